"""The pt2onnx binary inside this package: where it is, running it, and the `pt2onnx` command."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn, Sequence

# Installed by CMake (cmake/wheel.cmake) beside this file; auditwheel points its RPATH at the
# shared libraries it bundles in ../pt2onnx.libs.
_BINARY = Path(__file__).resolve().parent / "bin" / "pt2onnx"


def binary_path() -> Path:
    """The path of the bundled pt2onnx executable."""
    if not os.access(_BINARY, os.X_OK):
        raise FileNotFoundError(f"{_BINARY}: the pt2onnx binary is missing from the installed package "
                                "(a source checkout has no binary: build the wheel, or use build/pt2onnx)")
    return _BINARY


def run(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """Runs the binary with `args`, stdout and stderr captured as text; never raises on failure."""
    return subprocess.run([str(binary_path()), *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, errors="replace", check=False)


def main() -> NoReturn:
    """The `pt2onnx` console command and `python -m pt2onnx`: the binary replaces this process, so
    its exit status, signals and terminal are the user's."""
    binary = str(binary_path())
    os.execv(binary, ["pt2onnx", *sys.argv[1:]])

"""The exception every failure of the binary becomes, and its kinds.

The kinds are the binary's documented exit codes (README "Usage"; declared in C++ as ErrorCode in
src/common/error.h, which tests/wheel/check_installed.py compares with this enum).
"""
from __future__ import annotations

import enum
from typing import Any, Optional


class ErrorKind(enum.Enum):
    """Why pt2onnx refused: the value is the binary's exit code."""

    USAGE = 2  # bad option or config
    ARCHIVE = 3  # unreadable archive, malformed JSON, bad weights, a limit exceeded
    UNSUPPORTED = 4  # ops without a rule (all of them listed in the message)
    COMPILE = 6  # --compile: NVRTC missing or failing
    OUTPUT = 7  # the output cannot be written
    STRICT = 8  # strict=True: a warning, refused
    INTERNAL = 70  # a bug in pt2onnx


class Pt2OnnxError(Exception):
    """pt2onnx failed. Nothing was written (the binary writes its outputs only when complete).

    Attributes:
        kind: the ErrorKind of the exit code, or None when the process died by a signal or gave an
            undocumented code.
        exit_code: the process's exit status (negative: killed by that signal).
        message: the binary's one-line error (the file, field, node or ops at fault).
        unsupported_ops: for UNSUPPORTED, the blocking ops as the --report lists them
            (``{"target": "aten.foo.default", "nodes": 2, "reason": "no rule"}``).
        report: the run's --report document when the binary wrote one, else None.
    """

    def __init__(self, exit_code: int, message: str, report: Optional[dict[str, Any]] = None):
        self.exit_code = exit_code
        self.kind: Optional[ErrorKind] = next((k for k in ErrorKind if k.value == exit_code), None)
        self.message = message
        self.report = report
        self.unsupported_ops: list[dict[str, Any]] = list((report or {}).get("unsupported_ops", []))
        super().__init__(message)

    def __str__(self) -> str:
        kind = self.kind.name.lower() if self.kind else "failed"
        return f"pt2onnx {kind} (exit {self.exit_code}): {self.message}"


def error_from_run(exit_code: int, stderr: str, report: Optional[dict[str, Any]]) -> Pt2OnnxError:
    """The exception for a run that exited with `exit_code`, its message taken from stderr."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if lines:
        message = lines[-1].removeprefix("pt2onnx: error: ")
    elif exit_code < 0:
        message = f"killed by signal {-exit_code}"
    else:
        message = f"exited with status {exit_code} and no message"
    return Pt2OnnxError(exit_code, message, report)

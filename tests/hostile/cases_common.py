"""The case record shared by every cases_* module, and the context that builds inputs."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional


@dataclass
class Case:
    cls: str                      # the class in the summary table ("zip structure", "bombs", ...)
    name: str                     # unique within the suite
    input: Optional[Path]         # the archive (or FIFO, device...) given to pt2onnx
    expect: int                   # documented exit code; negative: killed by that signal
    names: Optional[str] = None   # text the single stderr line must contain (the file, flag or limit)
    args: list = field(default_factory=lambda: ["{in}", "-o", "{out}"])  # {in}, {out}, {outdir}
    setup: Optional[Callable[[Path, Path], None]] = None  # (outdir, sentinel): plant files first
    outputs: tuple = ("out.onnx",)  # files exit 0 must leave (created or replaced) in the outdir
    removed: tuple = ()           # files exit 0 may remove from the outdir (stale data)
    signal: Optional[int] = None  # sent once pt2onnx has an output open in the outdir
    timeout: float = 30.0
    env: dict = field(default_factory=dict)  # set in pt2onnx's environment
    memory_cap: Optional[int] = None  # RLIMIT_AS in bytes instead of the runner's MEMORY_CAP


class Context:
    """Where generated inputs go; `samples` is the committed samples folder."""

    def __init__(self, samples: Path, inputs: Path):
        self.samples = samples
        self.inputs = inputs
        inputs.mkdir(parents=True, exist_ok=True)

    def put(self, name: str, data: bytes) -> Path:
        path = self.inputs / name
        path.write_bytes(data)
        return path

    def sample(self, stem: str) -> Path:
        return self.samples / f"{stem}.pt2"

    def fifo(self, name: str) -> Path:
        path = self.inputs / name
        if not path.exists():
            os.mkfifo(path)
        return path

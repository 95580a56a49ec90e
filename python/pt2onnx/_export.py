"""export(): an in-memory torch.export program to ONNX, through a temporary .pt2 archive.

torch is imported only here, when export() is called: the package itself never needs it.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from pt2onnx._convert import ConvertResult, PathLike, convert


def export(program: Any, output: PathLike, *, args: Sequence[Any] = (),
           kwargs: Optional[Mapping[str, Any]] = None, dynamic_shapes: Any = None,
           **options: Any) -> ConvertResult:
    """Converts a torch.export.ExportedProgram (or an nn.Module, exported here with
    torch.export.export(program, tuple(args), kwargs, dynamic_shapes=dynamic_shapes)) to the ONNX
    file `output`: saves it with torch.export.save to a temporary archive beside `output` (the
    disk the user chose for the model, not /tmp) and runs convert(archive, output, **options).
    A replacement for torch.onnx.export(..., dynamo=True)."""
    import torch  # noqa: PLC0415 (only export() needs torch)

    if not isinstance(program, torch.export.ExportedProgram):
        if not isinstance(program, torch.nn.Module):
            raise TypeError(f"export() takes a torch.export.ExportedProgram or a torch.nn.Module, "
                            f"not {type(program).__name__}")
        program = torch.export.export(program, tuple(args), kwargs=dict(kwargs or {}),
                                      dynamic_shapes=dynamic_shapes)
    elif args or kwargs or dynamic_shapes is not None:
        raise TypeError("args, kwargs and dynamic_shapes are for an nn.Module; this program is exported")
    folder = Path(os.fspath(output)).resolve().parent
    with tempfile.TemporaryDirectory(prefix=".pt2onnx-export-", dir=folder) as scratch:
        archive = Path(scratch) / "program.pt2"
        torch.export.save(program, archive)
        return convert(archive, output, **options)

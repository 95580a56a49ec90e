"""pt2onnx: convert PyTorch .pt2 archives (torch.export.save) to ONNX.

The conversion is done by the bundled pt2onnx executable (C++, no Python, no LibTorch); this
package finds it, runs it and turns its results and failures into Python values:

    import pt2onnx
    result = pt2onnx.convert("model.pt2", "model.onnx", opset=18)
    info = pt2onnx.inspect("model.pt2")                   # `pt2onnx inspect --json`
    pt2onnx.export(exported_program, "model.onnx")        # needs torch, imported only here

Failures raise pt2onnx.Pt2OnnxError (kind, exit_code, message, unsupported_ops).
The `pt2onnx` command and `python -m pt2onnx` run the binary itself.
"""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version as _version

from pt2onnx._binary import binary_path
from pt2onnx._convert import ConvertResult, convert, inspect, list_outputs
from pt2onnx._errors import ErrorKind, Pt2OnnxError
from pt2onnx._export import export

try:
    __version__ = _version("pt2onnx")  # from project(VERSION) in CMakeLists.txt, via pyproject.toml
except PackageNotFoundError:  # a source checkout on sys.path, not installed
    __version__ = "0+unknown"

__all__ = ["ConvertResult", "ErrorKind", "Pt2OnnxError", "binary_path", "convert", "export", "inspect",
           "list_outputs", "__version__"]

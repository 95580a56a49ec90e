"""convert(), list_outputs() and inspect(): the binary's conversion and inspection, from Python."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union

from pt2onnx._binary import run
from pt2onnx._errors import error_from_run
from pt2onnx._options import command_line

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class ConvertResult:
    """What a conversion wrote.

    Attributes:
        output: the .onnx file.
        files: every file written: the .onnx, its external data file, each kernel bundle's
            manifest.json (the report's "outputs").
        report: the --report document (schema/pt2onnx-report.schema.json): versions, files with
            sizes and sha256, stage timings, counts, warnings.
        log: what the binary printed (its summary line; stage details with verbose=True).
    """

    output: Path
    files: list[Path]
    report: dict[str, Any]
    log: str

    @property
    def warnings(self) -> list[str]:
        return list(self.report.get("warnings", []))


def _read_report(path: Path) -> Optional[dict[str, Any]]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # a usage error can stop the binary before it writes one


def convert(archive: PathLike, output: Optional[PathLike] = None, *,
            opset: Optional[int] = None,
            external_data: Union[bool, str] = False,
            model: Optional[str] = None,
            all_models: bool = False,
            hiera: Iterable[str] = (),
            function_domain: Optional[str] = None,
            function_name: Optional[str] = None,
            compile: Iterable[str] = (),  # noqa: A002 (the config key's name)
            arch: Optional[Iterable[str]] = None,
            kernels_dir: Optional[PathLike] = None,
            kernel_tf32: bool = False,
            nvrtc: Optional[PathLike] = None,
            dim_names: Optional[Mapping[str, str]] = None,
            config: Optional[PathLike] = None,
            strict: bool = False,
            depfile: Optional[PathLike] = None,
            report: Optional[PathLike] = None,
            verbose: bool = False,
            fuse: bool = True,
            fold: bool = True,
            matmul_nbits: bool = False,
            limits: Optional[Mapping[str, int]] = None) -> ConvertResult:
    """Converts the .pt2 archive `archive` to ONNX with the bundled pt2onnx binary.

    Args:
        archive: the .pt2 file (what torch.export.save wrote).
        output: the .onnx to write; default: `archive` with the extension .onnx.
        opset: ONNX opset, 17 to 28 (the binary's default, 18, when None).
        external_data: True or "file": weights in one file `<output>.data` (automatic above 2 GB);
            "archive": none copied, the .onnx references them inside `archive`.
        model: which model of an archive that holds several.
        all_models: every model, each to `<output stem>.<model>.onnx`, sharing one weight file.
        hiera: module types (class name or qualified) whose instances become ONNX local functions.
        function_domain, function_name: domain and name pattern ("{class}", "{qualified}") of those.
        compile, arch, kernels_dir, kernel_tf32, nvrtc: CUDA kernel bundles per function of these
            module types (needs NVRTC at run time).
        dim_names: names of dynamic dims, {"s72": "batch"} or {"input_ids.0": "batch"}.
        config: a JSON config (options and translation rules); keywords given here override it.
        strict: refuse on any warning (ErrorKind.STRICT).
        depfile: also write a Make-format depfile there.
        report: also keep the run's JSON report there (it is returned either way).
        verbose: stage timings and counts in ConvertResult.log.
        fuse: False keeps attention and RMS norm decomposed at opset 23+.
        fold: False keeps weights as in the archive (BatchNorm, weight norms, weight Transposes and
            scalar shifts of weights as nodes).
        matmul_nbits: Linear layers on int4/uint4 weights as onnxruntime's com.microsoft.MatMulNBits.
        limits: raised limits on untrusted input, {"entry-bytes": 2**31}.

    Every option is the command line's (README "Usage"); None and the defaults pass nothing.

    Raises:
        Pt2OnnxError: the binary refused; nothing was written. Its kind is the exit code's,
            its message the binary's one line, unsupported_ops the blocking ops.
    """
    options = dict(opset=opset, external_data=external_data, model=model, all_models=all_models, hiera=hiera,
                   function_domain=function_domain, function_name=function_name, compile=compile,
                   arch=arch, kernels_dir=kernels_dir, kernel_tf32=kernel_tf32, nvrtc=nvrtc,
                   dim_names=dim_names, config=config, strict=strict, depfile=depfile,
                   verbose=verbose, fuse=fuse, fold=fold, matmul_nbits=matmul_nbits, limits=limits)
    args = [os.fspath(archive)]
    if output is not None:
        args += ["--output", os.fspath(output)]
    args += command_line(options)
    with tempfile.TemporaryDirectory(prefix="pt2onnx-") as scratch:
        report_path = Path(report) if report is not None else Path(scratch) / "report.json"
        done = run([*args, "--report", os.fspath(report_path)])
        document = _read_report(report_path)
    if done.returncode != 0:
        raise error_from_run(done.returncode, done.stderr, document)
    if document is None:
        raise error_from_run(70, f"{report_path}: the report of a successful run is unreadable", None)
    files = [Path(entry["path"]) for entry in document.get("outputs", [])]
    return ConvertResult(output=files[0], files=files, report=document, log=done.stdout + done.stderr)


def list_outputs(archive: PathLike, output: Optional[PathLike] = None, **options: Any) -> list[Path]:
    """The files convert(archive, output, **options) would write, writing nothing."""
    args = [os.fspath(archive)]
    if output is not None:
        args += ["--output", os.fspath(output)]
    done = run([*args, *command_line(options), "--list-outputs"])
    if done.returncode != 0:
        raise error_from_run(done.returncode, done.stderr, None)
    return [Path(line) for line in done.stdout.splitlines() if line]


def inspect(archive: PathLike, *, model: Optional[str] = None, opset: Optional[int] = None,
            config: Optional[PathLike] = None) -> dict[str, Any]:
    """What the archive holds and what convert would refuse: the `pt2onnx inspect --json`
    document (schema/pt2onnx-inspect.schema.json) as a dict."""
    args = ["inspect", os.fspath(archive), "--json"]
    if model is not None:
        args += ["--model", model]
    if opset is not None:
        args += ["--opset", str(opset)]
    if config is not None:
        args += ["--config", os.fspath(config)]
    done = run(args)
    if done.returncode != 0:
        raise error_from_run(done.returncode, done.stderr, None)
    return json.loads(done.stdout)

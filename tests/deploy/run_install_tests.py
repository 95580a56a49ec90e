#!/usr/bin/env python3
"""Install and CMake-package tests (ctest `install_package`).

- `cmake --install BUILD --prefix TMP` puts the binary, library, header, CMake package, schemas,
  man page and completions where they belong.
- tests/consumer, a user's project, configures against that prefix with Ninja and with Make,
  converts two archives through pt2onnx_convert (one named only by a config, with external data)
  and links the library; the ONNX files load and pass onnx's checker. A second build does nothing
  (`ninja -n`: "no work to do"); touching one archive reconverts exactly that one (the archive
  named by the config through pt2onnx's depfile), touching the config exactly the model using it.
- A project without a compiled language (project(... LANGUAGES NONE)) finds the package and
  converts: the library's dependencies are looked for only by projects that compile.
- With WITH_COMPILE (Ninja), pt2onnx_convert declares a COMPILE conversion's outputs as
  `pt2onnx --list-outputs` names them at configure time: with NVRTC, the build writes exactly
  those files and `ninja -n` has no work left; without NVRTC the build step fails with exit 6
  and writes nothing (the listing needs no NVRTC).

Prints one line per check and `N passed, M failed`; exits 1 on failure.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from ort_compare import CheckFailed, run_checks  # noqa: E402

EXPECTED_FILES = [
    "bin/pt2onnx", "include/pt2onnx.h", "include/pt2onnx_version.h", "lib/libpt2onnx_lib.a",
    "lib/cmake/pt2onnx/pt2onnxConfig.cmake", "lib/cmake/pt2onnx/pt2onnxConfigVersion.cmake",
    "lib/cmake/pt2onnx/pt2onnx_convert.cmake", "lib/cmake/pt2onnx/pt2onnx-targets.cmake",
    "share/pt2onnx/schema/pt2onnx-config.schema.json", "share/pt2onnx/schema/pt2onnx-report.schema.json",
    "share/pt2onnx/schema/pt2onnx-ops.schema.json", "share/man/man1/pt2onnx.1.gz",
    "share/bash-completion/completions/pt2onnx", "share/zsh/vendor-completions/_pt2onnx",
]


def run(cmd, cwd=None, check=True):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, cmd))}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def touch_later(path: Path):
    # Newer than anything built so far, whatever the file system's timestamp resolution (not in
    # the future, or the output written next would still look older than its input).
    time.sleep(1.1)
    os.utime(path)


class Consumer:
    def __init__(self, source: Path, build: Path, prefix: Path, samples: Path, generator: str):
        self.build = build
        self.tool = ["ninja"] if generator == "Ninja" else ["make"]
        run(["cmake", "-S", source, "-B", build, "-G", generator, f"-DCMAKE_PREFIX_PATH={prefix}",
             f"-DSAMPLES={samples}", "-DCMAKE_BUILD_TYPE=Release"])

    def build_and_list_conversions(self):
        out = run(self.tool, cwd=self.build).stdout
        return sorted(line.split("pt2onnx: ", 1)[1].split(" -> ")[0].rsplit("/", 1)[-1]
                      for line in out.splitlines() if "pt2onnx: " in line and " -> " in line)


def check_install(build: Path, prefix: Path):
    run(["cmake", "--install", build, "--prefix", prefix])
    missing = [f for f in EXPECTED_FILES if not (prefix / f).exists()]
    if missing:
        raise CheckFailed(f"not installed: {missing}")
    if (prefix / "bin/bundle_launcher").exists():
        raise CheckFailed("bundle_launcher (a test harness) was installed")
    version = run([prefix / "bin/pt2onnx", "--version"]).stdout.strip()
    return f"{len(EXPECTED_FILES)} expected files present; {version}"


def check_consumer(source: Path, work: Path, prefix: Path, samples: Path, generator: str):
    import onnx

    consumer = Consumer(source, work / f"consumer-{generator.replace(' ', '_')}", prefix, samples, generator)
    first = consumer.build_and_list_conversions()
    if first != ["decoder.config.json", "mlp.pt2"]:
        raise CheckFailed(f"first build converted {first}")
    models = consumer.build / "models"
    for name in ["mlp.onnx", "decoder.onnx"]:
        onnx.checker.check_model(str(models / name))
    if not (models / "decoder.onnx.data").is_file():
        raise CheckFailed("EXTERNAL_DATA: decoder.onnx.data not written")
    hiera = [f.name for f in onnx.load(str(models / "decoder.onnx"), load_external_data=False).functions]
    if "DecoderLayer" not in hiera:
        raise CheckFailed(f"the config's hiera was not applied: functions {hiera}")
    shown = run([consumer.build / "show_version"]).stdout.strip()
    if generator == "Ninja":
        dry = run(["ninja", "-n"], cwd=consumer.build).stdout
        if "no work to do" not in dry:
            raise CheckFailed(f"ninja -n after a build: {dry.strip()}")
    second = consumer.build_and_list_conversions()
    if second:
        raise CheckFailed(f"a second build converted {second}")
    touched = {}
    for name in ["mlp.pt2", "decoder.pt2", "decoder.config.json"]:
        touch_later(samples / name)
        touched[name] = consumer.build_and_list_conversions()
    want = {"mlp.pt2": ["mlp.pt2"], "decoder.pt2": ["decoder.config.json"],
            "decoder.config.json": ["decoder.config.json"]}
    if touched != want:
        raise CheckFailed(f"touching each file converted {touched}, expected {want}")
    return f"converted {first}; again: nothing; touched -> converted: {touched}; {shown}"


def check_convert_only(work: Path, prefix: Path, samples: Path):
    project = work / "convert-only"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(models LANGUAGES NONE)\n"
        "find_package(pt2onnx CONFIG REQUIRED)\n"
        f"pt2onnx_convert(mlp_onnx INPUT {samples / 'mlp.pt2'} OUTPUT mlp.onnx)\n")
    run(["cmake", "-S", project, "-B", project / "build", "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"])
    built = run(["ninja"], cwd=project / "build").stdout
    if not (project / "build/mlp.onnx").is_file():
        raise CheckFailed(f"mlp.onnx not converted: {built}")
    return built.strip().splitlines()[-1]


def nvrtc_loadable() -> bool:
    # pt2onnx's own search: $PT2ONNX_NVRTC alone if set, else libnvrtc.so.13, libnvrtc.so.
    names = [os.environ["PT2ONNX_NVRTC"]] if os.environ.get("PT2ONNX_NVRTC") else ["libnvrtc.so.13", "libnvrtc.so"]
    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            pass
    return False


def check_compile_consumer(source: Path, work: Path, prefix: Path, samples: Path):
    build = work / "consumer-compile"
    shutil.copy(samples / "decoder.pt2", samples / "decoder_k.pt2")
    run(["cmake", "-S", source, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}", f"-DSAMPLES={samples}",
         "-DWITH_COMPILE=ON", "-DCMAKE_BUILD_TYPE=Release"])
    declared = sorted((build / "decoder_kernels.outputs").read_text().split())
    bundle = build / "kernels/DecoderAttention.kernels"
    want = sorted(str(build / "kernels" / f) for f in [
        "decoder.onnx", "DecoderAttention.kernels/manifest.json", "DecoderAttention.kernels/src/DecoderAttention.cu",
        "DecoderAttention.kernels/sm_80/DecoderAttention.cubin", "DecoderAttention.kernels/src/DecoderAttention.sm_80.ptx"])
    if declared != want:
        raise CheckFailed(f"declared outputs {declared}, expected {want}")
    proc = run(["ninja", "decoder_kernels"], cwd=build, check=False)
    if not nvrtc_loadable():
        # Ninja makes the folders of declared outputs before the step runs; no file may be in them.
        left = [str(p) for p in (build / "kernels").rglob("*") if p.is_file()]
        if proc.returncode == 0 or "NVRTC" not in proc.stdout + proc.stderr or left:
            raise CheckFailed(f"without NVRTC: exit {proc.returncode}, files left {left}\n{proc.stdout[-1500:]}")
        return f"declared {len(declared)} outputs; no NVRTC here: the build step failed naming NVRTC, nothing written"
    if proc.returncode != 0:
        raise CheckFailed(f"ninja decoder_kernels: exit {proc.returncode}\n{proc.stdout[-2000:]}")
    written = sorted([str(build / "kernels/decoder.onnx")] + [str(p) for p in bundle.rglob("*") if p.is_file()])
    if written != want:
        raise CheckFailed(f"written {written}, declared {want}")
    dry = run(["ninja", "-n", "decoder_kernels"], cwd=build).stdout
    if "no work to do" not in dry:
        raise CheckFailed(f"ninja -n after the build: {dry.strip()}")
    return f"declared = written: {[str(Path(w).relative_to(build)) for w in written]}; ninja -n: no work"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, type=Path, help="the pt2onnx build tree to install")
    parser.add_argument("--source", required=True, type=Path, help="the pt2onnx source tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-install-") as tmp:
        work = Path(tmp)
        prefix = work / "prefix"
        checks = [("install into a prefix", lambda: check_install(args.build, prefix))]
        for generator in ["Ninja", "Unix Makefiles"]:
            samples = work / f"samples-{generator.replace(' ', '_')}"
            samples.mkdir()
            shutil.copy(args.source / "samples/mlp.default.pt2", samples / "mlp.pt2")
            shutil.copy(args.source / "samples/decoder.default.pt2", samples / "decoder.pt2")
            (samples / "decoder.config.json").write_text('{"input": "decoder.pt2", "hiera": ["DecoderLayer"]}\n')
            checks.append((f"consumer project ({generator})",
                           lambda g=generator, s=samples: check_consumer(args.source / "tests/consumer", work, prefix, s, g)))
        checks.append(("a project with LANGUAGES NONE", lambda: check_convert_only(work, prefix, work / "samples-Ninja")))
        checks.append(("COMPILE outputs from --list-outputs",
                       lambda: check_compile_consumer(args.source / "tests/consumer", work, prefix, work / "samples-Ninja")))
        return run_checks(checks)


if __name__ == "__main__":
    sys.exit(main())

"""The Python wheel end to end (issue 33): build it (scripts/build_wheel.sh), `twine check` and
`auditwheel show` it, install it into a fresh venv with no other package, check that the
installed binary resolves no library outside the wheel but glibc's and GCC's runtime, run
check_installed.py there (empty LD_LIBRARY_PATH, a scratch folder, no view of the tree), and
compare the ONNX it wrote with torch's reference outputs in onnxruntime (this test venv).
Prints one line per check and the time of each step; exits 1 on failure.

Usage: run_wheel_tests.py --source TREE --reference-pt2onnx build/pt2onnx
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import onnxruntime as ort

SAMPLE = "decoder.default"
# Libraries the wheel may take from the system: glibc's and GCC's runtime, and zlib (DEFLATE entries),
# which every manylinux policy lists as present on any system, so auditwheel leaves it out.
SYSTEM_LIBS = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1",
               "ld-linux-x86-64.so.2", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libz.so.1"}
failed = 0


def check(name: str, ok: bool, detail: str = "") -> None:
    global failed
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
    failed += 0 if ok else 1


def timed(name: str, cmd: list[str], **kw) -> subprocess.CompletedProcess:
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    print(f"  {name}: {time.monotonic() - start:.1f} s", flush=True)
    return done


def unknown_op_archive(src: Path, dst: Path) -> None:
    """The sample with one aten node's target renamed to an op that has no rule."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith("models/model.json"):
                doc = json.loads(data)
                node = next(n for n in doc["graph_module"]["graph"]["nodes"]
                            if n["target"].startswith("torch.ops.aten."))
                node["target"] = "torch.ops.aten.not_a_real_op.default"
                data = json.dumps(doc).encode()
            zout.writestr(info.filename, data)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--reference-pt2onnx", type=Path, required=True, help="build/pt2onnx, for the byte comparison")
    a = ap.parse_args()
    started = time.monotonic()

    built = timed("build the wheel", ["bash", str(a.source / "scripts/build_wheel.sh")])
    if built.returncode != 0:
        check("scripts/build_wheel.sh", False, built.stderr[-3000:])
        return 1
    wheel = Path(built.stdout.strip().splitlines()[-1])
    tools = Path(os.environ.get("PT2ONNX_CACHE", Path.home() / ".cache/pt2onnx")) / "venv-wheel/bin"
    size = wheel.stat().st_size
    check("wheel size under 15 MB", size < 15e6, f"{wheel.name} {size / 1e6:.1f} MB")
    check("manylinux tag", re.search(r"-py3-none-manylinux_2_\d+_x86_64\.whl$", wheel.name) is not None, wheel.name)
    twine = timed("twine check", [str(tools / "twine"), "check", "--strict", str(wheel)])
    check("twine check", twine.returncode == 0, (twine.stdout + twine.stderr).strip()[-300:])
    show = timed("auditwheel show", [str(tools / "auditwheel"), "show", str(wheel)])
    shown = " ".join(show.stdout.split())
    check("auditwheel show", show.returncode == 0 and "is consistent with the following platform tag" in shown,
          shown[:160])
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    check("metadata: Apache-2.0, no dependencies", "License-Expression: Apache-2.0" in metadata
          and "Requires-Dist" not in metadata and any(n.endswith("licenses/LICENSE") for n in names))

    with tempfile.TemporaryDirectory(prefix="pt2onnx-wheel-") as tmp:
        tmp = Path(tmp)
        venv, work = tmp / "venv", tmp / "work"
        work.mkdir()
        # A venv of the system Python, not this test venv's: nothing but pip and the wheel in it.
        made = timed("fresh venv + pip install", ["bash", "-c",
                     f'python3 -m venv "{venv}" && "{venv}/bin/pip" install -q --no-index --no-deps '
                     f'--disable-pip-version-check "{wheel}"'])
        check("pip install into a fresh venv", made.returncode == 0, made.stderr[-500:])
        if made.returncode != 0:
            return 1
        env = {"PATH": f"{venv}/bin:/usr/bin:/bin", "HOME": str(tmp), "LD_LIBRARY_PATH": "", "LANG": "C.UTF-8"}
        binary = next(venv.glob("lib/python*/site-packages/pt2onnx/bin/pt2onnx"))
        ldd = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=env)
        outside = [line.strip() for line in ldd.stdout.splitlines()
                   if Path(line.split()[0]).name not in SYSTEM_LIBS and str(venv) not in line]
        check("ldd: only glibc/libstdc++/libgcc outside the wheel", ldd.returncode == 0 and not outside,
              "; ".join(outside) or f"{len(ldd.stdout.splitlines())} libraries")

        sample = work / f"{SAMPLE}.pt2"
        shutil.copy(a.source / "samples" / f"{SAMPLE}.pt2", sample)
        (work / "truncated.pt2").write_bytes(sample.read_bytes()[: sample.stat().st_size // 2])
        unknown_op_archive(sample, work / "unknown_op.pt2")
        shutil.copy(a.source / "src/common/error.h", work / "error.h")
        inside = timed("checks in the fresh venv", [str(venv / "bin/python"), "-I", str(Path(__file__).with_name("check_installed.py")),
                                                    str(work), str(sample)], env=env, cwd=work)
        print(inside.stdout + inside.stderr, end="", flush=True)
        check("check_installed.py", inside.returncode == 0)
        if not (work / "api.onnx").is_file():
            return 1

        reference = tmp / "reference.onnx"
        subprocess.run([str(a.reference_pt2onnx), str(sample), "-o", str(reference), "-q"], check=True)
        check("wheel's ONNX is build/pt2onnx's, byte for byte", reference.read_bytes() == (work / "api.onnx").read_bytes())

        with np.load(a.source / "samples" / f"{SAMPLE}.io.npz", allow_pickle=False) as io:
            inputs = [io[f"input_{i}"] for i in range(sum(k.startswith("input_") for k in io.files))]
            expected = [io[f"output_{i}"] for i in range(sum(k.startswith("output_") for k in io.files))]
        session = ort.InferenceSession(str(work / "api.onnx"), providers=["CPUExecutionProvider"])
        feeds = {x.name: value for x, value in zip(session.get_inputs(), inputs)}
        got = session.run(None, feeds)
        # The house tolerance for fp32 (README "Tests"): rtol 1e-4, atol 1e-5.
        close = all(np.allclose(g, e, rtol=1e-4, atol=1e-5) for g, e in zip(got, expected)) and len(got) == len(expected)
        err = max(float(np.max(np.abs(g.astype(np.float64) - e))) for g, e in zip(got, expected))
        check(f"onnxruntime vs torch on {SAMPLE} (rtol 1e-4, atol 1e-5)", close, f"max abs error {err:.2e}")

    print(f"wheel test: {time.monotonic() - started:.1f} s, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

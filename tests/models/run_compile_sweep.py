#!/usr/bin/env python3
"""`--compile` planned on every module type of every sample (run by ctest as `compile_sweep`).

run_kernel_tests.py compiles chosen samples with NVRTC and checks their bundles against torch.
This sweep checks breadth, without NVRTC: for every sample archive with one model, every module
type that `inspect --json` lists is given to `--compile` at once, with `--list-outputs`, which
generates every function's kernels (or refuses the function by name) and writes nothing. The run
must exit 0, write no file, list the .onnx first, and list for each bundle its manifest, its
source, and a cubin and a PTX file for each default architecture. Code generation over these
programs (the zoo's transformers, the op, quantization, control-flow and torch-release samples)
must not crash or fail otherwise: a function it cannot generate is refused, not fatal.

Needs only the pt2onnx binary (and Python). Prints one line per archive and a summary `N passed,
M failed`; exits 1 on failure.
"""
from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ort_compare import PLAIN_REFUSED, CheckFailed, sweep_main, tally, types_left_out  # noqa: E402
from run_hiera_sweep import module_types  # noqa: E402

DEFAULT_ARCHS = ("sm_80", "sm_90")


def bundle_files(function: str):
    files = {"manifest.json", f"src/{function}.cu"}
    for arch in DEFAULT_ARCHS:
        files |= {f"{arch}/{function}.cubin", f"src/{function}.{arch}.ptx"}
    return files


def check_archive(exe, archive: Path, types, work: Path):
    out = work / "model.onnx"
    cmd = [exe, str(archive), "-o", str(out), "--list-outputs"] + [a for t in types for a in ("--compile", t)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise CheckFailed(f"exit {proc.returncode}: {proc.stderr.strip()[:300]!r}")
    if any(work.iterdir()):
        raise CheckFailed(f"--list-outputs wrote {sorted(p.name for p in work.iterdir())}")
    lines = proc.stdout.split()
    if not lines or Path(lines[0]) != out:
        raise CheckFailed(f"the listing does not start with the .onnx: {lines[:2]}")
    bundles = defaultdict(set)
    for line in lines[1:]:
        rel = Path(line).relative_to(work)
        if not rel.parts[0].endswith(".kernels"):
            continue  # an external data file
        bundles[rel.parts[0][: -len(".kernels")]].add("/".join(rel.parts[1:]))
    for function, files in bundles.items():
        if files != bundle_files(function):
            raise CheckFailed(f"bundle {function} lists {sorted(files)}")
    return f"{len(types)} types, {len(bundles)} bundles planned"


def archives_to_check(exe, samples: Path, work: Path, counts):
    for archive in sorted(samples.rglob("*.pt2")):
        stem = str(archive.relative_to(samples))[: -len(".pt2")]
        types = module_types(exe, archive)
        reason = types_left_out(types)
        if reason is None:
            plain = subprocess.run([exe, str(archive), "-o", str(work / "model.onnx"), "--list-outputs"],
                                   capture_output=True, text=True, timeout=300)
            if plain.returncode != 0:
                reason = PLAIN_REFUSED
        if tally(counts, stem, reason):
            yield stem, lambda a=archive, t=types: check_archive(exe, a, t, work)


def main():
    # The samples hold about 340 such archives: a walk that finds fewer than 300 is broken.
    return sweep_main(__doc__, archives_to_check, 300)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The hostile-input suite (issue 11): generates its cases from the committed samples
(cases_archive, cases_output, cases_parse, cases_cli) and runs each under a memory cap and a time limit.

Each case checks: the documented exit code (or death by the signal sent); on failure exactly one
stderr line, naming the file (or the flag or limit); the output folder exactly as it was, or on
success as it was plus the outputs (onnx.checker-valid); the input and a sentinel folder outside
(with a victim file that links point to) unchanged. Prints a table by class and exits 1 on any
failure.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases_archive  # noqa: E402
import cases_cli  # noqa: E402
import cases_output  # noqa: E402
import cases_parse  # noqa: E402
from cases_common import Case, Context  # noqa: E402

MODULES = [cases_archive, cases_output, cases_parse, cases_cli]
MEMORY_CAP = 1 << 30  # ulimit -v 1 GB


def snapshot(root: Path, contents: bool = True) -> dict:
    """Name -> (kind, content hash or link target) for everything under root, links unfollowed;
    without `contents`, size and mtime stand for the bytes (input folders hold large files)."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            rel = str(p.relative_to(root))
            if p.is_symlink():
                state[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                state[rel] = ("dir", "")
            elif p.is_file():
                digest = hashlib.sha256(p.read_bytes()).hexdigest() if contents else (st.st_size, st.st_mtime_ns)
                state[rel] = ("file", digest, st.st_ino)
            else:
                state[rel] = ("special", oct(st.st_mode))
    return state


def limit_memory(cap: int = MEMORY_CAP):
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def output_open_in(pid: int, outdir: Path) -> bool:
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(str(outdir) + "/"):
                    return True
            except OSError:
                pass
    except OSError:
        pass
    return False


def run(cmd, cwd: Path, timeout: float, sig=None, outdir=None, env=None, memory_cap=None):
    """Returns (status, stderr, peak RSS MiB, seconds, signal sent mid-write, timed out)."""
    import subprocess
    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                         preexec_fn=lambda: limit_memory(memory_cap or MEMORY_CAP), env={**os.environ, **(env or {})})
    sent = False
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if sig is not None and not sent and output_open_in(p.pid, outdir):
            os.kill(p.pid, sig)
            sent = True
        if time.monotonic() - t0 > timeout:
            p.kill()
            _, status, usage = os.wait4(p.pid, 0)
            break
        time.sleep(0.001 if sig is not None else 0.005)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err.seek(0)
    return p.returncode, err.read().decode("utf-8", "replace"), usage.ru_maxrss / 1024.0, wall, sent, \
        wall > timeout


def check_onnx(path: Path) -> str:
    import onnx
    try:
        onnx.checker.check_model(str(path))
    except Exception as e:  # noqa: BLE001 - reported as the failure
        return f"onnx.checker: {str(e).splitlines()[0][:200]}"
    model = onnx.load(str(path), load_external_data=False)
    if model.producer_name != "pt2onnx" or not model.producer_version:
        return f"producer {model.producer_name!r} version {model.producer_version!r}"
    return ""


def run_case(case: Case, exe: Path, root: Path) -> dict:
    outdir = root / "out"
    sentinel = root / "sentinel"
    for d in (outdir, sentinel):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    (sentinel / "victim.onnx").write_bytes(b"must stay as it is")
    (sentinel / "cwd").mkdir()
    if case.setup:
        case.setup(outdir, sentinel)
    before_out = snapshot(outdir)
    before_sentinel = snapshot(sentinel)
    input_path = case.input
    before_input = snapshot(input_path.parent, False) if input_path else {}

    subst = {"{in}": str(input_path) if input_path else "", "{out}": str(outdir / "out.onnx"),
             "{outdir}": str(outdir), "{indir}": str(input_path.parent) if input_path else ""}
    args = []
    for a in case.args:
        for k, v in subst.items():
            a = a.replace(k, v)
        args.append(a)
    rc, stderr, rss, wall, sent, timed_out = run([str(exe)] + args, sentinel / "cwd", case.timeout, case.signal,
                                                 outdir, case.env, case.memory_cap)
    problems = []
    if timed_out:
        problems.append(f"timed out after {case.timeout:.0f} s")
    if rc != case.expect:
        problems.append(f"exit {rc}, expected {case.expect}: {stderr.strip()[:300]}")
    if case.signal is not None and not sent:
        problems.append("finished before the signal could be sent mid-write")
    lines = [l for l in stderr.splitlines() if l.strip()]
    if rc > 0:
        if len(lines) != 1:
            problems.append(f"{len(lines)} stderr lines, expected 1: {stderr.strip()[:300]}")
        elif case.names and case.names not in lines[0]:
            problems.append(f"stderr does not name {case.names!r}: {lines[0][:300]}")
        if rc == 70:
            problems.append("internal error")
    after_out = snapshot(outdir)
    if rc == 0:
        expected = {k: v for k, v in before_out.items() if k not in case.outputs and k not in case.removed}
        got = {k: v for k, v in after_out.items() if k not in case.outputs}
        if got != expected:
            problems.append(f"output folder: expected {sorted(expected)} + outputs, has {sorted(after_out)}")
        for name in case.outputs:
            if after_out.get(name, ("missing",))[0] != "file":
                problems.append(f"output {name} is {after_out.get(name, ('missing',))[0]}, not a regular file")
        onnx_outputs = [n for n in case.outputs if n.endswith(".onnx")]
        for name in onnx_outputs:
            if (outdir / name).is_file():
                msg = check_onnx(outdir / name)
                if msg:
                    problems.append(msg)
    elif after_out != before_out:
        added = sorted(set(after_out) - set(before_out))
        changed = sorted(k for k in before_out if after_out.get(k) != before_out[k])
        problems.append(f"output folder changed: added {added}, changed or removed {changed}")
    if snapshot(sentinel) != before_sentinel:
        problems.append("the sentinel folder changed")
    if input_path and snapshot(input_path.parent, False) != before_input:
        problems.append("the input's folder changed")
    return {"case": case, "rc": rc, "rss": rss, "wall": wall, "problems": problems}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--workdir", default=None, help="where generated inputs go (default: a temp folder)")
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--markdown", action="store_true", help="also print the table by class as Markdown (README)")
    args = ap.parse_args()
    exe = Path(args.pt2onnx).resolve()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="pt2onnx-hostile-")).resolve()
    ctx = Context(Path(args.samples).resolve(), work / "inputs")
    t0 = time.monotonic()
    all_cases: list[Case] = []
    per_module = {}
    for module in MODULES:
        found = module.cases(ctx)
        per_module[module.__name__] = len(found)
        all_cases += found
    names = [c.name for c in all_cases]
    assert len(names) == len(set(names)), "case names must be unique"
    print(f"hostile: generated {len(all_cases)} cases in {time.monotonic() - t0:.1f} s under {work} "
          f"({', '.join(f'{m}: {n}' for m, n in per_module.items())})", flush=True)
    if per_module.get("cases_parse") == 0:
        print("hostile: cases_parse contributes no cases on this branch (the parser classes are "
              "filled by the hostile-parse work)", flush=True)
    selected = [c for c in all_cases if args.k in c.name]
    results = []
    for case in selected:
        r = run_case(case, exe, work / "run")
        results.append(r)
        if r["problems"]:
            print(f"FAIL {case.cls} / {case.name}: " + "; ".join(r["problems"]), flush=True)
    by_class = defaultdict(list)
    for r in results:
        by_class[r["case"].cls].append(r)
    print(f"\n{'class':<16} {'cases':>5} {'pass':>5}  {'exit codes':<28} {'worst RSS':>10} {'worst time':>10}")
    for cls, rs in by_class.items():
        codes = defaultdict(int)
        for r in rs:
            codes[r["rc"]] += 1
        code_text = " ".join(f"{c}x{n}" for c, n in sorted(codes.items()))
        print(f"{cls:<16} {len(rs):>5} {sum(not r['problems'] for r in rs):>5}  {code_text:<28} "
              f"{max(r['rss'] for r in rs):>7.0f} MB {max(r['wall'] for r in rs):>8.2f} s")
    failed = [r for r in results if r["problems"]]
    if args.markdown:
        print("\n| class | cases | passed | exit codes (code x cases) | worst RSS | worst time |\n|---|---|---|---|---|---|")
        for cls, rs in by_class.items():
            codes = defaultdict(int)
            for r in rs:
                codes[r["rc"]] += 1
            code_text = ", ".join(f"{c} x{n}" for c, n in sorted(codes.items()))
            print(f"| {cls} | {len(rs)} | {sum(not r['problems'] for r in rs)} | {code_text} | "
                  f"{max(r['rss'] for r in rs):.0f} MB | {max(r['wall'] for r in rs):.2f} s |")
        print(f"| total | {len(results)} | {len(results) - len(failed)} | | | |")
    print(f"{'total':<16} {len(results):>5} {len(results) - len(failed):>5}   "
          f"({time.monotonic() - t0:.0f} s; memory cap {MEMORY_CAP >> 20} MB per case)")
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs inside a fresh venv where only the pt2onnx wheel is installed, from a folder that holds
copies of the sample, a damaged archive, an archive with an unknown op and error.h (no build or
source folder is reachable; LD_LIBRARY_PATH is empty). Checks the command, `python -m pt2onnx`
and the Python API against each other, the option table against --help and the exception kinds
against error.h. Prints one line per check; exits 1 on any failure.

Usage: python check_installed.py WORKDIR SAMPLE.pt2
"""
from __future__ import annotations

import inspect as pyinspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pt2onnx
from pt2onnx import _options

failed = 0


def check(name: str, ok: bool, detail: str = "") -> None:
    global failed
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    failed += 0 if ok else 1


def expect_error(name: str, kind: pt2onnx.ErrorKind, call, words: list[str]):
    try:
        call()
    except pt2onnx.Pt2OnnxError as e:
        ok = e.kind is kind and all(w in e.message for w in words) and "\n" not in e.message
        check(name, ok, f"{e.kind} {e.message!r}")
        return e
    except Exception as e:  # noqa: BLE001 (any other exception type is the failure checked here)
        check(name, False, f"{type(e).__name__}: {e}")
        return None
    check(name, False, "no exception")
    return None


def main() -> int:
    work, sample = Path(sys.argv[1]), Path(sys.argv[2])
    os.chdir(work)
    site = Path(pt2onnx.__file__).parent
    check("package imported from the venv, not the tree", str(site).startswith(sys.prefix), str(site))
    check("torch, onnx and numpy are not installed",
          all(subprocess.run([sys.executable, "-c", f"import {m}"], capture_output=True).returncode != 0
              for m in ("torch", "onnx", "numpy")))

    version = subprocess.run(["pt2onnx", "--version"], capture_output=True, text=True)
    check("pt2onnx --version", version.returncode == 0 and version.stdout.strip() == f"pt2onnx {pt2onnx.__version__}",
          version.stdout.strip() + version.stderr.strip())

    by_command = work / "command.onnx"
    done = subprocess.run(["pt2onnx", str(sample), "-o", str(by_command)], capture_output=True, text=True)
    check("convert through the pt2onnx command", done.returncode == 0 and by_command.is_file(), done.stderr.strip())
    by_module = work / "module.onnx"
    done = subprocess.run([sys.executable, "-m", "pt2onnx", str(sample), "-o", str(by_module)],
                          capture_output=True, text=True)
    check("convert through python -m pt2onnx", done.returncode == 0 and by_module.is_file(), done.stderr.strip())
    by_api = work / "api.onnx"
    result = pt2onnx.convert(sample, by_api)
    check("pt2onnx.convert result", result.output == by_api and result.files == [by_api]
          and result.report["status"] == "ok" and result.report["counts"]["onnx_nodes"] > 0,
          f"{result.files} {result.report.get('counts')}")
    same = by_command.read_bytes() == by_module.read_bytes() == by_api.read_bytes()
    check("command, python -m and convert() write the same bytes", same)

    listed = pt2onnx.list_outputs(sample, work / "listed.onnx", external_data=True)
    check("list_outputs", listed == [work / "listed.onnx", work / "listed.onnx.data"]
          and not (work / "listed.onnx").exists(), str(listed))
    opset23 = pt2onnx.convert(sample, work / "opset23.onnx", opset=23, fuse=False, verbose=True)
    check("keywords reach the binary", opset23.report["opset"] == 23 and "--no-fuse" in opset23.report["command"]
          and "--verbose" in opset23.report["command"], " ".join(opset23.report["command"][1:]))

    info = pt2onnx.inspect(sample)
    check("pt2onnx.inspect", isinstance(info, dict) and "format_version" in info, ",".join(sorted(info)[:6]))

    expect_error("damaged archive -> ARCHIVE", pt2onnx.ErrorKind.ARCHIVE,
                 lambda: pt2onnx.convert(work / "truncated.pt2", work / "t.onnx"), ["truncated.pt2"])
    e = expect_error("unknown op -> UNSUPPORTED", pt2onnx.ErrorKind.UNSUPPORTED,
                     lambda: pt2onnx.convert(work / "unknown_op.pt2", work / "u.onnx"), ["not_a_real_op"])
    check("unsupported_ops from the report", e is not None and
          [op["target"] for op in e.unsupported_ops] == ["aten.not_a_real_op.default"],
          str(e.unsupported_ops if e else None))
    expect_error("bad opset -> USAGE", pt2onnx.ErrorKind.USAGE,
                 lambda: pt2onnx.convert(sample, work / "o.onnx", opset=99), ["99"])
    expect_error("missing folder -> OUTPUT", pt2onnx.ErrorKind.OUTPUT,
                 lambda: pt2onnx.convert(sample, work / "no" / "such" / "x.onnx"), ["x.onnx"])
    expect_error("inspect of a damaged archive -> ARCHIVE", pt2onnx.ErrorKind.ARCHIVE,
                 lambda: pt2onnx.inspect(work / "truncated.pt2"), ["truncated.pt2"])
    check("nothing written on failure", not any((work / n).exists() for n in ("t.onnx", "u.onnx", "o.onnx")))

    # The option table: every long flag of --help is a keyword of convert() or named in NOT_KEYWORDS.
    help_text = subprocess.run(["pt2onnx", "--help"], capture_output=True, text=True).stdout
    flags = set(re.findall(r"^\s+(?:-\w,)?(--[a-z0-9-]+)", help_text, re.MULTILINE))
    rows = {option.flag: option for option in _options.OPTIONS}
    check("every --help flag has a keyword or a reason", flags == set(rows) | set(_options.NOT_KEYWORDS),
          f"missing {sorted(flags - set(rows) - set(_options.NOT_KEYWORDS))}, "
          f"stale {sorted((set(rows) | set(_options.NOT_KEYWORDS)) - flags)}")
    parameters = set(pyinspect.signature(pt2onnx.convert).parameters) - {"archive", "output", "report"}
    check("every row is a parameter of convert()", parameters == {option.keyword for option in _options.OPTIONS},
          str(parameters ^ {option.keyword for option in _options.OPTIONS}))

    # The exception kinds: error.h's ErrorCode, the one declaration of the exit codes.
    declared = dict((name, int(code)) for name, code in
                    re.findall(r"^\s+k(\w+) = (\d+),", (work / "error.h").read_text(), re.MULTILINE))
    ours = {kind.name.lower(): kind.value for kind in pt2onnx.ErrorKind}
    check("ErrorKind is error.h's ErrorCode", {k.lower(): v for k, v in declared.items()} == ours,
          f"{declared} vs {ours}")

    print(json.dumps({"failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

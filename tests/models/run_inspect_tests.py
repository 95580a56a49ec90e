#!/usr/bin/env python3
"""CLI checks of `pt2onnx inspect` over samples/ (standard library only, no torch):

- `pt2onnx inspect X.pt2` and `--json` succeed on every sample; the JSON's op histogram, user
  inputs and torch version equal MANIFEST.json's, and the text ends with "N ops, 0 unsupported";
- the output is deterministic (two runs, same bytes);
- usage errors (missing input, unknown --model, conversion options mixed with inspect, missing
  file) exit with convert's codes and print exactly one stderr line "pt2onnx: error: ...";
- `--config`: the custom op of samples/hiera/custom_op.default.pt2 is unsupported without it and
  handled by the config's rule with it (text note and JSON "support"/"rule"); a bad config exits 2;
- plain conversion still works beside the subcommand.

Usage: run_inspect_tests.py --pt2onnx BUILD/pt2onnx --samples samples/
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def run(exe, *args):
    return subprocess.run([exe, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--samples", required=True, type=Path)
    a = ap.parse_args()
    manifest = json.loads((a.samples / "MANIFEST.json").read_text())["samples"]
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print(f"FAIL {what}")

    for stem, sample in sorted(manifest.items()):
        path = a.samples / sample["file"]
        text = run(a.pt2onnx, "inspect", path)
        check(text.returncode == 0, f"{stem}: text exit {text.returncode}: {text.stderr.decode()[:300]}")
        check(text.stdout.decode().rstrip("\n").endswith(" ops, 0 unsupported"), f"{stem}: text summary line")
        js = run(a.pt2onnx, "inspect", path, "--json")
        check(js.returncode == 0, f"{stem}: --json exit {js.returncode}")
        check(js.stdout == run(a.pt2onnx, "inspect", path, "--json").stdout, f"{stem}: --json not deterministic")
        try:
            model = json.loads(js.stdout)["models"][0]
        except (ValueError, KeyError, IndexError) as e:
            check(False, f"{stem}: --json unreadable: {e}")
            continue
        expected_ops = {t.removeprefix("torch.ops."): n for t, n in sample["op_histogram"].items()}
        check({o["target"]: o["count"] for o in model["ops"]} == expected_ops, f"{stem}: op histogram")
        check([v["name"] for v in model["inputs"]] == sample["user_inputs"], f"{stem}: user inputs")
        # Programs record torch_version from torch 2.5 on; 2.1 and 2.4 archives do not say.
        made_by = sample["torch_version"]
        expected_version = None if made_by.startswith(("2.1.", "2.4.")) else made_by
        check(model["torch_version"] in ((expected_version,) if expected_version else (None, "")),
              f"{stem}: torch version")
        check(model["summary"]["unsupported"] == 0, f"{stem}: unsupported ops")

    mlp = a.samples / "mlp.default.pt2"
    for args, code in [
        (["inspect"], 2),
        (["inspect", mlp, "--model", "nope"], 2),
        (["inspect", mlp, "--opset", "3"], 2),
        (["inspect", mlp, "-o", "x.onnx"], 2),
        (["--opset", "18", "inspect", mlp], 2),
        (["inspect", a.samples / "no-such-file.pt2"], 3),
        (["inspect", a.samples / "MANIFEST.json"], 3),
        ([], 2),
    ]:
        p = run(a.pt2onnx, *args)
        lines = p.stderr.decode().splitlines()
        what = f"pt2onnx {' '.join(map(str, args))}"
        check(p.returncode == code, f"{what}: exit {p.returncode}, expected {code}")
        check(len(lines) == 1 and lines[0].startswith("pt2onnx: error: "), f"{what}: stderr {lines!r}")
        check(p.stdout == b"", f"{what}: printed on stdout")

    custom = a.samples / "hiera" / "custom_op.default.pt2"
    config = a.samples / "hiera" / "custom_op.config.json"
    op = "pt2onnx_test.scaled_tanh.default"
    bare = run(a.pt2onnx, "inspect", custom).stdout.decode()
    check(bare.rstrip("\n").endswith(f"3 ops, 1 unsupported ({op})"), f"custom op without --config: {bare[-200:]!r}")
    with_config = run(a.pt2onnx, "inspect", custom, "--config", config)
    text = with_config.stdout.decode()
    check(with_config.returncode == 0 and text.rstrip("\n").endswith("3 ops, 0 unsupported")
          and any(line.split()[:1] == [op] and line.rstrip().endswith("config rules[0]") for line in text.splitlines()),
          f"custom op with --config: {text[-300:]!r}")
    js = json.loads(run(a.pt2onnx, "inspect", custom, "--config", config, "--json").stdout)["models"][0]
    by_target = {o["target"]: o for o in js["ops"]}
    check(by_target[op]["support"] == "config_rule" and by_target[op]["rule"] == "rules[0]"
          and js["summary"]["unsupported"] == 0, f"custom op with --config --json: {by_target[op]}")
    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "bad.json"
        bad.write_text('{"rules": 3}')
        p = run(a.pt2onnx, "inspect", custom, "--config", bad)
        lines = p.stderr.decode().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and "$.rules" in lines[0], f"inspect with a bad config: {lines!r}")

    help_text = run(a.pt2onnx, "--help").stdout.decode()
    check("inspect" in help_text and "input" in help_text, "--help lists the input and the inspect subcommand")

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "mlp.onnx"
        p = run(a.pt2onnx, mlp, "-o", out)
        check(p.returncode == 0 and out.is_file() and p.stdout.decode().startswith("wrote "), "conversion still works")

    print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

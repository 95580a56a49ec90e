#!/usr/bin/env python3
"""Command-line features for pipelines (ctest `cli_deploy`).

- `--depfile`: for a conversion driven by a config that names the input and output, in folders
  whose names hold spaces, '$' and '#', the depfile is exactly `outputs: archive config` with
  absolute paths escaped for Make and Ninja; a path with ':' is refused before anything is written.
- `--report`: validates against schema/pt2onnx-report.schema.json, its sizes and sha256 match the
  files; a failed run writes one too (status error, its exit code).
- `ops --json` validates against its schema, and agrees with `inspect --json` (itself validated,
  with format_version) on every sample: an op inspect calls supported is listed at that opset, one
  it calls unsupported or needing a newer opset is not.
- One policy for what matches nothing: a config rule and a --hiera type that match nothing are
  warnings (exit 0); `--strict` or the config's "strict" refuse them (exit 8, nothing written).
- `-q -v` is a usage error; `--version` is the ONNX producer_version; `-v` prints stage timings;
  `--list-outputs` prints the .onnx and its .data and writes nothing (no depfile either).

Prints one line per check and `N passed, M failed`; exits 1 on failure.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from ort_compare import CheckFailed, run_checks  # noqa: E402


def run(cmd, expect=0):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300)
    if expect is not None and proc.returncode != expect:
        raise CheckFailed(f"{' '.join(map(str, cmd))}: exit {proc.returncode} (expected {expect})\n{proc.stderr[-2000:]}")
    return proc


def make_word(path: Path) -> str:
    return str(path).replace("$", "$$").replace(" ", "\\ ").replace("#", "\\#")


def check_depfile(exe, samples: Path, work: Path):
    folder = work / "a dir $HOME #1"
    folder.mkdir()
    archive = folder / "my model.pt2"
    archive.write_bytes((samples / "mlp.default.pt2").read_bytes())
    config = folder / "the config.json"
    config.write_text(json.dumps({"input": "my model.pt2", "output": "out $x.onnx", "external_data": True}))
    depfile = work / "deps.d"
    run([exe, "--config", config, "--depfile", depfile, "-q"])
    expected = (f"{make_word(folder / 'out $x.onnx')} \\\n {make_word(folder / 'out $x.onnx.data')}: \\\n"
                f" {make_word(archive)} \\\n {make_word(config)}\n")
    got = depfile.read_text()
    if got != expected:
        raise CheckFailed(f"depfile:\n{got!r}\nexpected:\n{expected!r}")
    colon = work / "a:b.onnx"
    bad = run([exe, archive, "-o", colon, "--depfile", work / "bad.d"], expect=2)
    if colon.exists() or (work / "bad.d").exists() or "depfile" not in bad.stderr:
        raise CheckFailed(f"a ':' path: {bad.stderr.strip()!r}, output left {colon.exists()}")
    return got.replace("\n", " ")


def check_report(exe, samples: Path, work: Path, schema_dir: Path):
    import jsonschema

    schema = json.loads((schema_dir / "pt2onnx-report.schema.json").read_text())
    out = work / "report.onnx"
    report_path = work / "report.json"
    run([exe, samples / "decoder.default.pt2", "-o", out, "--hiera", "DecoderLayer", "--external-data",
         "--report", report_path, "-q"])
    report = json.loads(report_path.read_text())
    jsonschema.validate(report, schema)
    for entry in report["inputs"] + report["outputs"]:
        data = Path(entry["path"]).read_bytes()
        if entry["bytes"] != len(data) or entry["sha256"] != hashlib.sha256(data).hexdigest():
            raise CheckFailed(f"{entry['path']}: size or sha256 differ")
    if [e["path"] for e in report["outputs"]] != [str(out), str(out) + ".data"]:
        raise CheckFailed(f"outputs {report['outputs']}")
    stages = [s["stage"] for s in report["stages"]]
    if stages[:3] != ["read", "import", "translate"] or "hierarchy" not in stages or "emit" not in stages:
        raise CheckFailed(f"stages {stages}")
    if report["counts"]["functions"] < 1 or report["status"] != "ok":
        raise CheckFailed(f"counts {report['counts']}, status {report['status']}")
    failed_path = work / "failed.json"
    run([exe, work / "no such.pt2", "--report", failed_path], expect=3)
    failed = json.loads(failed_path.read_text())
    jsonschema.validate(failed, schema)
    if failed["status"] != "error" or failed["exit_code"] != 3 or "no such.pt2" not in failed["error"]:
        raise CheckFailed(f"failed run: {failed}")
    return f"stages {stages}, counts {report['counts']}; failed run: exit {failed['exit_code']}"


def check_ops(exe, samples: Path, schema_dir: Path):
    import jsonschema

    ops_schema = json.loads((schema_dir / "pt2onnx-ops.schema.json").read_text())
    inspect_schema = json.loads((schema_dir / "pt2onnx-inspect.schema.json").read_text())
    listing = json.loads(run([exe, "ops", "--json"]).stdout)
    jsonschema.validate(listing, ops_schema)
    opsets = {op["target"]: set(op["opsets"]) for op in listing["ops"]}
    at_18 = json.loads(run([exe, "ops", "--json", "--opset", "18"]).stdout)
    if {op["target"] for op in at_18["ops"]} != {t for t, v in opsets.items() if 18 in v}:
        raise CheckFailed("ops --opset 18 differs from the opset-18 entries of ops")
    compared = 0
    archives = sorted(samples.glob("*.pt2")) + sorted((samples / "ops").glob("*.pt2"))[:20]
    for archive in archives:
        for opset in (17, 18):
            doc = json.loads(run([exe, "inspect", archive, "--json", "--opset", opset]).stdout)
            jsonschema.validate(doc, inspect_schema)
            for model in doc["models"]:
                for op in model["ops"]:
                    listed = opset in opsets.get(op["target"], set())
                    if op["support"] == "supported" and not listed:
                        raise CheckFailed(f"{archive.name}: inspect supports {op['target']} at {opset}, ops does not list it")
                    if op["support"] in ("unsupported", "needs_opset") and listed:
                        raise CheckFailed(f"{archive.name}: ops lists {op['target']} at {opset}, inspect says {op['support']}")
                    compared += 1
    return f"{len(listing['ops'])} ops; {compared} inspect entries over {len(archives)} archives agree"


def check_match_nothing_policy(exe, samples: Path, work: Path):
    config = work / "nothing.config.json"
    config.write_text(json.dumps({"rules": [{"op": "nosuch.op", "domain": "com.example", "op_type": "Nope"}]}))
    out = work / "policy.onnx"
    warned = run([exe, samples / "mlp.default.pt2", "-o", out, "--config", config])
    if "pt2onnx: warning: config rule rules[0] (op nosuch.op) matched no node" not in warned.stderr or not out.exists():
        raise CheckFailed(f"expected a warning: {warned.stderr!r}")
    out.unlink()
    strict = run([exe, samples / "mlp.default.pt2", "-o", out, "--config", config, "--strict"], expect=8)
    if out.exists() or "--strict" not in strict.stderr:
        raise CheckFailed(f"--strict: {strict.stderr!r}, output left {out.exists()}")
    strict_config = work / "strict.config.json"
    strict_config.write_text(json.dumps({"strict": True, "hiera": ["NoSuchModule"]}))
    by_key = run([exe, samples / "mlp.default.pt2", "-o", out, "--config", strict_config], expect=8)
    if out.exists() or "--hiera NoSuchModule matches no module type" not in by_key.stderr:
        raise CheckFailed(f"config strict: {by_key.stderr!r}")
    return f"{warned.stderr.strip()} | {strict.stderr.strip()} | {by_key.stderr.strip()}"


def check_flags(exe, samples: Path, work: Path):
    import onnx

    both = run([exe, samples / "mlp.default.pt2", "-o", work / "qv.onnx", "-q", "-v"], expect=2)
    if (work / "qv.onnx").exists() or "excludes" not in both.stderr:
        raise CheckFailed(f"-q -v: {both.stderr!r}")
    version = run([exe, "--version"]).stdout.strip()
    out = work / "verbose.onnx"
    verbose = run([exe, samples / "mlp.default.pt2", "-o", out, "-v"]).stdout
    producer = onnx.load(str(out)).producer_version
    if not producer or version != f"pt2onnx {producer}":
        raise CheckFailed(f"--version {version!r}, producer_version {producer!r}")
    stage_line = next((line for line in verbose.splitlines() if line.startswith("stages:")), "")
    for stage in ("read", "import", "translate", "emit"):
        if f" {stage} " not in stage_line:
            raise CheckFailed(f"-v: no {stage} timing in {verbose!r}")
    listed_out = work / "listed" / "m.onnx"
    listed = run([exe, samples / "decoder.default.pt2", "-o", listed_out, "--external-data", "--list-outputs",
                  "--depfile", work / "listed.d"]).stdout.split()
    if listed != [str(listed_out), str(listed_out) + ".data"] or (work / "listed").exists() or (work / "listed.d").exists():
        raise CheckFailed(f"--list-outputs: {listed}, wrote {(work / 'listed').exists()}")
    quiet = run([exe, samples / "mlp.default.pt2", "-o", out, "-q"])
    if quiet.stdout or quiet.stderr:
        raise CheckFailed(f"-q printed {quiet.stdout!r} {quiet.stderr!r}")
    return f"{version} = producer_version; {stage_line}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pt2onnx", required=True)
    parser.add_argument("--samples", required=True, type=Path)
    parser.add_argument("--schema", required=True, type=Path, help="the schema/ folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-deploy-") as tmp:
        work = Path(tmp)
        exe = args.pt2onnx
        return run_checks([
            ("--depfile", lambda: check_depfile(exe, args.samples, work)),
            ("--report", lambda: check_report(exe, args.samples, work, args.schema)),
            ("ops --json vs inspect", lambda: check_ops(exe, args.samples, args.schema)),
            ("match-nothing policy and --strict", lambda: check_match_nothing_policy(exe, args.samples, work)),
            ("-q -v, --version, -v timings, --list-outputs", lambda: check_flags(exe, args.samples, work)),
        ])


if __name__ == "__main__":
    sys.exit(main())

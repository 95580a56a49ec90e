#!/usr/bin/env python3
"""Weights at disk speed on the archives users convert (needs torch: scripts/bench_models.sh).

bench_weights.py times a stack of Linear layers whose weights are copied as they are. The models
users run have weights that conversion derives: every transformers Linear becomes MatMul with the
weight transposed, and a torchvision CNN's BatchNorm is folded into its Conv weights. This bench
builds such archives with transformers and torchvision (random weights, kept in a work folder
outside the repo and reused while the configuration is the same):

  llama-default  LlamaForCausalLM, hidden 2048, MLP 5632, 16 heads / 4 KV heads, 7 layers, vocab
                 32000 (1.78 GB fp32), dynamic batch and sequence, torch.export's default IR
  llama-core     the same program after run_decompositions() (core ATen: permute + addmm)
  resnet50       torchvision ResNet-50 in eval mode (BatchNorm folded), dynamic batch

For each archive and each output form (embedded weights in the .onnx, and --external-data) it
runs --runs rounds of: `cp` of the archive, pt2onnx, and the in-kernel floor (os.copy_file_range of
every weight entry to an aligned offset of a new file, no CRC), and reports the medians, the
median of the per-round ratios pt2onnx / cp, pt2onnx / floor, and pt2onnx's peak RSS (wait4).
The last output of each is run in onnxruntime and compared with torch's eager output
(rtol 1e-3, atol 1e-4 on logits/scores of order 1-10). With --before BIN it also times that
binary once per archive and form (the binary before a fix can be 100x slower).
Exits 1 when a run fails, a check fails, or pt2onnx takes more than 1.5x cp (median of pairs).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The floor, the weight entries it copies and the timed child: the same as the plain-weight bench's.
from bench_weights import FLOOR_SCRIPT, run_timed, weight_entries

RATIO_LIMIT = 1.5
RTOL, ATOL = 1e-3, 1e-4
SEED = 1234
ARCHIVES = ("llama-default", "llama-core", "resnet50")
LLAMA = dict(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=7,
             num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=512, use_cache=False,
             tie_word_embeddings=False)

VERIFY_SCRIPT = r"""
import sys, json
import numpy as np
import onnxruntime as ort
onnx_path, io_path, rtol, atol = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
io = np.load(io_path)
so = ort.SessionOptions()
so.intra_op_num_threads = 2
sess = ort.InferenceSession(onnx_path, sess_options=so, providers=["CPUExecutionProvider"])
feeds = {i.name: io[f"input_{k}"] for k, i in enumerate(sess.get_inputs())}
got = sess.run(None, feeds)[0]
want = io["output_0"]
err = np.abs(got.astype(np.float64) - want.astype(np.float64))
ok = got.shape == want.shape and bool(np.all(err <= atol + rtol * np.abs(want.astype(np.float64))))
print(json.dumps({"ok": ok, "max_abs_err": float(err.max()), "max_abs_want": float(np.abs(want).max())}))
"""


def build_archives(work: Path, names: list, stamp: dict) -> None:
    """Exports and saves the archives in `names` with their inputs and torch's outputs."""
    import warnings

    import numpy as np
    import torch
    from torch.export import Dim

    torch.manual_seed(SEED)
    warnings.simplefilter("ignore")
    if any(n.startswith("llama") for n in names):
        from transformers import LlamaConfig, LlamaForCausalLM
        model = LlamaForCausalLM(LlamaConfig(**LLAMA)).eval()
        ids = torch.randint(0, LLAMA["vocab_size"], (2, 16), generator=torch.Generator().manual_seed(SEED))
        with torch.no_grad():
            want = model(input_ids=ids).logits
        shapes = ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=512)},)
        ep = torch.export.export(model, (ids,), dynamic_shapes=shapes, strict=False)
        for name in names:
            if not name.startswith("llama"):
                continue
            prog = ep if name == "llama-default" else ep.run_decompositions()
            torch.export.save(prog, str(work / f"{name}.pt2"))
            np.savez(work / f"{name}.io.npz", input_0=ids.numpy(), output_0=want.numpy())
            print(f"bench: saved {name}.pt2 ({(work / f'{name}.pt2').stat().st_size / 2**20:.0f} MiB)", flush=True)
        del ep, model
    if "resnet50" in names:
        import torchvision
        model = torchvision.models.resnet50(weights=None).eval()
        with torch.no_grad():  # BatchNorm statistics away from 0/1, so that folding them matters
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.1, 0.1)
                    m.running_var.uniform_(0.5, 1.5)
        x = torch.randn(2, 3, 224, 224, generator=torch.Generator().manual_seed(SEED + 1))
        with torch.no_grad():
            want = model(x)
        ep = torch.export.export(model, (x,), dynamic_shapes=({0: Dim("batch", min=1, max=64)},))
        torch.export.save(ep, str(work / "resnet50.pt2"))
        np.savez(work / "resnet50.io.npz", input_0=x.numpy(), output_0=want.numpy())
        print(f"bench: saved resnet50.pt2 ({(work / 'resnet50.pt2').stat().st_size / 2**20:.0f} MiB)", flush=True)
    (work / "stamp.json").write_text(json.dumps(stamp))


def convert_cmd(exe: str, archive: Path, out_dir: Path, form: str) -> list:
    cmd = [exe, str(archive), "-o", str(out_dir / "out.onnx")]
    return cmd + (["--external-data"] if form == "external" else [])


def measure(cfg: dict) -> dict:
    """The timing loop (no torch in this process, so children's RSS is their own)."""
    work, exe, runs = Path(cfg["work"]), cfg["exe"], cfg["runs"]
    results = {}
    for name in cfg["archives"]:
        archive = work / f"{name}.pt2"
        entries = json.dumps(weight_entries(archive))
        for form in cfg["forms"]:
            row = {"cp": [], "conv": [], "floor": [], "rss": [], "failed": [], "before": None}
            out_dir = work / "out"
            copy = work / "copy.pt2"
            for i in range(runs):
                copy.unlink(missing_ok=True)
                os.sync()  # settle the previous run's dirty pages; the page cache is left as it is
                wall, _, rc, err = run_timed(["cp", str(archive), str(copy)], work / "cp.stdout")
                row["cp"].append(wall)
                if rc:
                    row["failed"].append(f"cp exit {rc}: {err.strip()}")
                copy.unlink(missing_ok=True)
                shutil.rmtree(out_dir, ignore_errors=True)
                out_dir.mkdir()
                os.sync()
                wall, peak, rc, err = run_timed(convert_cmd(exe, archive, out_dir, form), work / "conv.stdout")
                row["conv"].append(wall)
                row["rss"].append(peak)
                if rc:
                    row["failed"].append(f"pt2onnx exit {rc}: {err.strip()[:600]}")
                os.sync()
                wall, _, rc, err = run_timed([sys.executable, "-S", "-c", FLOOR_SCRIPT, str(archive), str(copy),
                                              entries], work / "floor.stdout")
                row["floor"].append(wall)
                if rc:
                    row["failed"].append(f"floor exit {rc}: {err.strip()[:600]}")
                copy.unlink(missing_ok=True)
                print(f"bench: {name} {form} {i + 1}/{runs}: cp {row['cp'][-1]:.2f} s, pt2onnx "
                      f"{row['conv'][-1]:.2f} s, floor {wall:.2f} s, RSS {peak:.0f} MiB", file=sys.stderr, flush=True)
            row["files"] = {p.name: p.stat().st_size for p in out_dir.iterdir()} if out_dir.exists() else {}
            if cfg.get("before"):
                before_dir = work / "out-before"
                shutil.rmtree(before_dir, ignore_errors=True)
                before_dir.mkdir()
                os.sync()
                wall, peak, rc, err = run_timed(convert_cmd(cfg["before"], archive, before_dir, form),
                                                work / "before.stdout")
                row["before"] = {"wall": wall, "rss": peak, "rc": rc}
                shutil.rmtree(before_dir, ignore_errors=True)
                print(f"bench: {name} {form} before: {wall:.2f} s, RSS {peak:.0f} MiB, exit {rc}",
                      file=sys.stderr, flush=True)
            verify = {"ok": False, "error": "not run"}
            if not row["failed"]:
                p = subprocess.run([cfg["test_python"], "-c", VERIFY_SCRIPT, str(out_dir / "out.onnx"),
                                    str(work / f"{name}.io.npz"), str(RTOL), str(ATOL)], capture_output=True, text=True)
                verify = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {
                    "ok": False, "error": p.stderr.strip()[-600:]}
            row["verify"] = verify
            shutil.rmtree(out_dir, ignore_errors=True)
            results[f"{name} {form}"] = row
    return results


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        print(json.dumps(measure(json.loads(sys.argv[2]))))
        return 0
    here = Path(__file__).resolve().parent.parent
    cache = Path(os.environ.get("PT2ONNX_CACHE", Path.home() / ".cache" / "pt2onnx"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", default="./build/pt2onnx")
    ap.add_argument("--before", help="a previous pt2onnx binary, timed once per archive and form")
    ap.add_argument("--runs", type=int, default=5, help="rounds of cp / pt2onnx / floor (at least 5)")
    ap.add_argument("--archives", default=",".join(ARCHIVES), help=f"comma-separated subset of {ARCHIVES}")
    ap.add_argument("--forms", default="embedded,external", help="embedded, external or both")
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "pt2onnx_bench_models"))
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--test-python", default=str(cache / "venv-test" / "bin" / "python"))
    args = ap.parse_args()
    if args.runs < 5:
        print("bench: --runs must be at least 5 (the medians need them)", file=sys.stderr)
        return 2
    names = [n for n in args.archives.split(",") if n]
    unknown = [n for n in names if n not in ARCHIVES]
    if unknown:
        print(f"bench: unknown archive(s) {unknown}; known: {ARCHIVES}", file=sys.stderr)
        return 2
    exe = Path(args.pt2onnx).resolve()
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        print(f"bench: {exe} is not an executable file (build it, or pass --pt2onnx)", file=sys.stderr)
        return 2
    work = Path(args.workdir).resolve()
    if here in work.parents or work == here:
        print(f"bench: --workdir {work} is inside the repo; use a folder outside it", file=sys.stderr)
        return 2
    work.mkdir(parents=True, exist_ok=True)

    import torch
    import transformers
    stamp = {"llama": LLAMA, "seed": SEED, "torch": torch.__version__, "transformers": transformers.__version__}
    old = json.loads((work / "stamp.json").read_text()) if (work / "stamp.json").exists() else None
    missing = [n for n in names if args.rebuild or old != stamp or not (work / f"{n}.pt2").exists()]
    if missing:
        print(f"bench: building {missing} in {work}", flush=True)
        build_archives(work, missing, stamp)
    # A fresh Python that never imported torch starts the timed runs (a fork of this process
    # would count torch's pages in the children's ru_maxrss).
    cfg = {"work": str(work), "exe": str(exe), "runs": args.runs, "archives": names,
           "forms": [f for f in args.forms.split(",") if f], "test_python": args.test_python,
           "before": str(Path(args.before).resolve()) if args.before else None}
    p = subprocess.run([sys.executable, "-S", str(Path(__file__).resolve()), "--measure", json.dumps(cfg)],
                       stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print(f"bench: the measuring process failed (exit {p.returncode})", file=sys.stderr)
        return 1
    results = json.loads(p.stdout.strip().splitlines()[-1])

    med = statistics.median
    ok = True
    header = ("archive / form", "MiB", "cp s", "floor s", "pt2onnx s", "pt2onnx/cp", "pt2onnx/floor",
              "RSS MiB", "before s", "before/cp", "ORT max abs err", "result")
    table = []
    for key, row in results.items():
        size = (work / f"{key.split()[0]}.pt2").stat().st_size / 2**20
        pair = med([c / p for c, p in zip(row["conv"], row["cp"]) if p > 0])
        floor_pair = med([c / f for c, f in zip(row["conv"], row["floor"]) if f > 0])
        before = row["before"]
        passed = not row["failed"] and row["verify"].get("ok") and pair <= RATIO_LIMIT
        ok = ok and passed
        table.append((key, f"{size:.0f}", f"{med(row['cp']):.2f}", f"{med(row['floor']):.2f}",
                      f"{med(row['conv']):.2f}", f"{pair:.2f}x", f"{floor_pair:.2f}x", f"{max(row['rss']):.0f}",
                      f"{before['wall']:.1f}" if before else "-",
                      f"{before['wall'] / med(row['cp']):.1f}x" if before else "-",
                      f"{row['verify'].get('max_abs_err', float('nan')):.2g}", "PASS" if passed else "FAIL"))
    widths = [max(len(str(r[i])) for r in [header] + table) for i in range(len(header))]
    print(f"\n{args.runs} rounds each (cp, pt2onnx, floor back to back); ratios are medians of per-round ratios; "
          f"limit pt2onnx/cp <= {RATIO_LIMIT}x; ORT vs torch rtol {RTOL} atol {ATOL}")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in table:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    for key, row in results.items():
        print(f"{key}: walls cp {[round(w, 2) for w in row['cp']]}, pt2onnx {[round(w, 2) for w in row['conv']]}, "
              f"floor {[round(w, 2) for w in row['floor']]}; output files {row['files']}")
        for f in row["failed"]:
            print(f"  error: {f}")
        if "error" in row["verify"]:
            print(f"  verify: {row['verify']['error']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Graph clean-up end to end (run by ctest as the `clean` test).

Every sample of samples/ (and samples/ops, samples/zoo, samples/hiera, samples/control_flow,
samples/kernels, and the state samples of samples/state/state_samples.json) is converted at
opset 18 and must have no dead node and no unused initializer, in the main graph and in every local
function, and no function that nothing calls; onnxruntime must still reproduce torch's outputs
(fp32: rtol 1e-4, atol 1e-5) at every size the sample has. The --hiera cases of the hiera test
are checked the same way, and `--no-fold` must keep BatchNormalization and weight norms apart (and
numbers equal) where folding removed them. Prints each sample's node count and max abs error vs torch.

Dead means: not needed (transitively) by a scope's outputs; subgraphs (If/Loop/Scan) read outer
values by name, and those reads count."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_hiera_tests import CASES as HIERA_CASES  # noqa: E402
from run_model_tests import (ATOL, RTOL, CheckFailed, compare, load_io, load_known_failures,  # noqa: E402
                             load_samples, run_ort)

# Samples where every BatchNorm follows a Conv with constant weights: folding must remove them.
FOLDED_BATCH_NORMS = {"cnn.default", "cnn.core", "hiera/resnet.default", "hiera/resnet.core"}
# Samples whose _weight_norm of two parameters folds into one weight (no ReduceL2 left).
FOLDED_WEIGHT_NORMS = {"ops/weight_norm_conv.default"}

OPSET = 18


def graph_reads(graph):
    """Names a subgraph reads that it does not define (its outer-scope reads)."""
    local = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    reads = set()
    for node in graph.node:
        local.update(node.output)
        reads.update(node.input)
        reads |= node_subgraph_reads(node)
    reads |= {v.name for v in graph.output}
    return {r for r in reads if r and r not in local}


def node_subgraph_reads(node):
    out = set()
    for a in node.attribute:
        if a.HasField("g"):
            out |= graph_reads(a.g)
        for g in a.graphs:
            out |= graph_reads(g)
    return out


def dead_nodes(nodes, outputs):
    """Nodes (op_type/name) that nothing reachable from `outputs` reads."""
    live = set(outputs)
    dead = []
    for node in reversed(list(nodes)):
        if node.output and not any(o and o in live for o in node.output):
            dead.append(f"{node.op_type} {node.name or node.output[0]}")
            continue
        live.update(i for i in node.input if i)
        live |= node_subgraph_reads(node)
    return dead


def clean_problems(model):
    """Every dead node, unused initializer and uncalled function, one string each."""
    g = model.graph
    problems = [f"dead node {d}" for d in dead_nodes(g.node, [o.name for o in g.output])]
    read = {o.name for o in g.output}
    for node in g.node:
        read.update(node.input)
        read |= node_subgraph_reads(node)
    inputs = {i.name for i in g.input}
    problems += [f"unused initializer {t.name}" for t in g.initializer if t.name not in read and t.name not in inputs]
    called = set()
    for nodes in [g.node] + [f.node for f in model.functions]:
        called |= {(n.domain, n.op_type) for n in nodes}
    for f in model.functions:
        problems += [f"dead node in function {f.name}: {d}" for d in dead_nodes(f.node, f.output)]
        if (f.domain, f.name) not in called:
            problems.append(f"function {f.domain}.{f.name} is never called")
    return problems


def count_nodes(model):
    return len(model.graph.node), sum(len(f.node) for f in model.functions)


def convert(exe, pt2: Path, out: Path, extra):
    opset = [] if "--opset" in extra else ["--opset", str(OPSET)]
    cmd = [exe, str(pt2), "-o", str(out), *opset, "-q", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, cmd[1:]))}: exit {p.returncode}: {p.stderr.strip()}")


REPORT_ONLY = False  # --report-only: count problems instead of failing (to measure an older binary)


def check(exe, pt2: Path, npz: Path, has_second: bool, out: Path, extra, tol):
    """Converts, checks cleanliness and numbers; returns (main nodes, function nodes, max error, model)."""
    import onnx

    convert(exe, pt2, out, extra)
    model = onnx.load(str(out))
    problems = clean_problems(model)
    if problems and REPORT_ONLY:
        print(f"      {out.stem}: {sum('dead node' in p for p in problems)} dead nodes, "
              f"{sum('initializer' in p for p in problems)} unused initializers")
    elif problems:
        raise CheckFailed(f"{len(problems)} problem(s): " + "; ".join(problems[:5]))
    worst = 0.0
    for prefix in [""] + (["b2_"] if has_second else []):
        inputs, expected = load_io(npz, prefix)
        worst = max(worst, compare(run_ort(out, inputs), expected, *tol))
    return (*count_nodes(model), worst, model)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--samples", required=True, help="the samples/ folder (manifests below it are read too)")
    ap.add_argument("--report-only", action="store_true",
                    help="print dead nodes and unused initializers instead of failing (for an older binary)")
    args = ap.parse_args(argv)
    global REPORT_ONLY
    REPORT_ONLY = args.report_only
    samples_dir = Path(args.samples)
    samples = load_samples([samples_dir])
    known = load_known_failures([samples_dir])
    failures, passed, skipped = [], 0, 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-clean-") as tmp:
        work = Path(tmp)
        cases = []
        for tag, s in sorted(samples.items()):
            if tag in known or s.stem in known:
                print(f"SKIP  {tag}: a known failure ({known.get(tag) or known.get(s.stem)})")
                skipped += 1
                continue
            extra = ["--config", str(s.folder / s.entry["config"])] if s.entry.get("config") else []
            if s.entry.get("min_opset", OPSET) > OPSET:  # e.g. torch.onnx.ops samples need opset 23
                extra += ["--opset", str(s.entry["min_opset"])]
            cases.append((tag, s, extra))
        for stem, types, _ in HIERA_CASES:
            s = samples[stem]
            extra = [x for t in types for x in ("--hiera", t)]
            cases.append((f"{stem} --hiera {' '.join(types)}", s, extra))
        seen = set()
        for label, s, extra in cases:
            if label in seen:
                continue
            seen.add(label)
            tol = (s.entry.get("tolerance", {}).get("rtol", RTOL), s.entry.get("tolerance", {}).get("atol", ATOL))
            pt2, npz = s.folder / s.entry["file"], s.folder / s.entry["io_file"]
            out = work / (label.replace("/", "_").replace(" ", "_") + ".onnx")
            try:
                main_nodes, fn_nodes, err, model = check(args.pt2onnx, pt2, npz, s.entry.get("has_second_batch", False),
                                                         out, extra, tol)
                detail = f"{main_nodes} nodes" + (f" + {fn_nodes} in functions" if fn_nodes else "")
                if any(n.op_type == "BatchNormalization" for n in model.graph.node):
                    detail += ", BatchNorm kept (not after a Conv/Gemm with constant weights)"
                had_bn = "batch_norm" in " ".join(s.entry.get("op_histogram", {}))
                if had_bn and not extra and "hiera" not in label and not REPORT_ONLY:
                    # --no-fold keeps BatchNorm apart; numbers must agree as well.
                    _, _, err_kept, kept = check(args.pt2onnx, pt2, npz, s.entry.get("has_second_batch", False),
                                                 work / "nofold.onnx", ["--no-fold"], tol)
                    n_bn = sum(n.op_type == "BatchNormalization" for n in kept.graph.node)
                    n_bn_folded = sum(n.op_type == "BatchNormalization" for n in model.graph.node)
                    if n_bn < n_bn_folded or (label in FOLDED_BATCH_NORMS and (n_bn == 0 or n_bn_folded > 0)):
                        raise CheckFailed(f"{n_bn_folded} BatchNormalization left after folding, {n_bn} with --no-fold")
                    detail += f"; --no-fold: {len(kept.graph.node)} nodes ({n_bn} BatchNorm), max abs err {err_kept:.2g}"
                if label in FOLDED_WEIGHT_NORMS and not REPORT_ONLY:
                    # --no-fold keeps the norms (ReduceL2) at run time; numbers must agree as well.
                    _, _, err_kept, kept = check(args.pt2onnx, pt2, npz, s.entry.get("has_second_batch", False),
                                                 work / "nofold.onnx", ["--no-fold"], tol)
                    n_norms = sum(n.op_type == "ReduceL2" for n in kept.graph.node)
                    n_norms_folded = sum(n.op_type == "ReduceL2" for n in model.graph.node)
                    if n_norms == 0 or n_norms_folded > 0:
                        raise CheckFailed(f"{n_norms_folded} ReduceL2 left after folding, {n_norms} with --no-fold")
                    detail += f"; --no-fold: {len(kept.graph.node)} nodes ({n_norms} ReduceL2), max abs err {err_kept:.2g}"
                print(f"ok    {label}: {detail}, max abs err vs torch {err:.2g}")
                passed += 1
            except CheckFailed as e:
                print(f"FAIL  {label}: {e}")
                failures.append(label)
            except Exception as e:  # a crash of the checker itself is a failure too, with its name
                print(f"FAIL  {label}: {type(e).__name__}: {e}")
                failures.append(label)
        # The state samples (their own list; the state test checks their numbers over calls):
        # every one that converts must be clean too.
        import onnx
        state_list = samples_dir / "state" / "state_samples.json"
        for stem, entry in sorted(json.loads(state_list.read_text()).items()) if state_list.is_file() else []:
            label = f"state/{stem}"
            if "exit_code" in entry:
                print(f"SKIP  {label}: refused by design (exit {entry['exit_code']}; the state test checks the refusal)")
                skipped += 1
                continue
            out = work / (label.replace("/", "_") + ".onnx")
            try:
                convert(args.pt2onnx, samples_dir / "state" / entry["file"], out, [])
                model = onnx.load(str(out))
                problems = clean_problems(model)
                if problems:
                    raise CheckFailed(f"{len(problems)} problem(s): " + "; ".join(problems[:5]))
                print(f"ok    {label}: {len(model.graph.node)} nodes, clean (numbers: the state test)")
                passed += 1
            except CheckFailed as e:
                print(f"FAIL  {label}: {e}")
                failures.append(label)
    print(f"\n{passed} passed, {len(failures)} failed, {skipped} skipped in {time.monotonic() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

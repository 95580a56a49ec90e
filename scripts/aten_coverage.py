#!/usr/bin/env python3
"""Marks every aten overload torch registers (torch.ops.aten, the dispatcher's native ops; not the
TorchScript-only list/str helpers) as one of:

  rule           pt2onnx has a translation rule for that exact overload (many composite ops too:
                 their rules expand straight into ONNX ops where that is smaller)
  decomposition  pt2onnx rewrites the overload into other aten ops before translation
                 (src/translate/decompositions/)
  out of scope   with the reason: TorchScript-only overloads (registered by the JIT, not the
                 dispatcher) that torch.export never writes, writing the overloads in WRITTEN_AS
                 instead, each of which is handled (checked here; samples/ops/export_rewrites runs
                 them); else the table OUT_OF_SCOPE below, first match wins
  missing        everything else

Tooling only (needs the torch venv). Reads the rule list from build/tools/list_rules.

  python aten_coverage.py [--list-rules build/tools/list_rules] [--write docs/aten_coverage.md]
"""
from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent

# (test on (name, overload, schema), reason). Name is the base name without "aten::".
BACKEND_PREFIXES = ("cudnn", "_cudnn", "miopen", "_miopen", "mkldnn", "_mkldnn", "mps", "_mps", "fbgemm", "_fbgemm",
                    "_nnpack", "_xnnpack", "_cufft", "_cslt", "_cudnn_", "_thnn", "_use_cudnn", "_triton", "_vulkan",
                    "_efficient_attention", "_flash_attention", "_scaled_dot_product_cudnn", "_scaled_dot_product_flash",
                    "_scaled_dot_product_efficient", "_scaled_mm", "_scaled_grouped_mm", "_cutlass", "_nested",
                    "nested", "_foreach", "_fused_adam", "_fused_sgd", "_fused_adagrad", "_amp_", "_cummax_helper",
                    "_cummin_helper", "_weight_int4pack", "_weight_int8pack", "_convert_weight_to_int4pack",
                    "_dyn_quant", "_mixed_dtypes", "_int_mm", "_wrapped", "_sparse", "sparse", "to_sparse", "_to_sparse",
                    "_coalesce", "_coalesced", "coalesce", "indices", "values", "crow_indices", "col_indices",
                    "ccol_indices", "row_indices", "_indices", "_values", "_validate_sparse", "_validate_compressed",
                    "to_mkldnn", "to_padded_tensor", "_padded_dense", "_jagged", "_test_", "_functional_sym_constrain",
                    "_print", "_assert", "_check_tensor", "_fake_quantize_learnable", "_scaled_addmm", "_spdiags")
QUANTIZED_ENGINE = ("quantize_per", "dequantize", "q_", "_quantized", "quantized_", "int_repr", "_make_per",
                    "_make_per_channel", "_saturate_weight", "fake_quantize", "_fake_quantize", "_choose_qparams",
                    "choose_qparams", "fused_moving_avg_obs", "_fused_moving_avg_obs")
METADATA = {"_version", "retains_grad", "retain_grad", "requires_grad_", "set_", "resize_", "resize_as_",
            "record_stream", "pin_memory", "_pin_memory", "is_pinned", "data", "output_nr", "_fw_primal",
            "_make_dual", "_unpack_dual", "_has_same_storage_numel", "_nnz", "_dimI", "_dimV", "dense_dim",
            "sparse_dim", "is_coalesced", "_is_zerotensor", "_is_any_true", "_is_all_true", "is_conj", "is_neg",
            "is_inference", "_conj_physical", "_neg_view_copy", "is_leaf", "_autocast_to_reduced_precision",
            "_autocast_to_full_precision", "storage_offset", "stride", "_shape_as_tensor", "_reshape_alias",
            "lift", "lift_fresh", "lift_fresh_copy", "_lazy_clone", "_propagate_xla_data", "_new_zeros_with_same_feature_meta",
            "_has_compatible_shallow_copy_type", "_to_cpu", "_copy_from", "_copy_from_and_resize", "_local_scalar_dense",
            "_make_dep_token", "_debug_has_internal_overlap", "is_set_to", "_sync", "_set_grad_enabled", "set_data",
            "_cast_Byte", "_cast_Char", "_cast_Double", "_cast_Float", "_cast_Half", "_cast_Int", "_cast_Long",
            "_cast_Short", "align_as", "align_tensors", "align_to", "refine_names", "rename", "rename_", "_resize_output",
            "_resize_output_", "unsafe_split", "_unsafe_view", "_fused_dropout", "_masked_scale", "_sobol_engine_draw",
            "_sobol_engine_ff", "_sobol_engine_scramble", "_sobol_engine_initialize_state", "_functional_assert_async",
            "_functional_assert_scalar", "_assert_async", "_assert_scalar", "_assert_tensor_metadata", "sym_constrain_range",
            "sym_constrain_range_for_size", "_chunk_cat", "_pack_padded_sequence", "_pad_packed_sequence", "to_dense",
            "_to_dense", "_linalg_check_errors", "_version", "_fw_primal_copy", "_make_dual_copy", "is_same_size",
            "is_distributed", "is_complex", "is_floating_point", "is_signed", "is_nonzero", "equal", "allclose",
            "item", "can_cast", "result_type", "promote_types", "_has_same_storage_numel", "size", "sym_numel",
            "numel", "dim", "_dim_arange", "_nested_tensor_size", "_nested_tensor_strides"}


# TorchScript-only overloads -> what torch.export writes when a program calls them (torch 2.15,
# default IR; samples/ops/export_rewrites calls each): the dispatcher resolves them to these.
WRITTEN_AS = {
    "aten.index.Tensor_hacked_twin": ["aten.index.Tensor"],
    "aten._unsafe_index.Tensor_hacked_twin": ["aten._unsafe_index.Tensor"],
    "aten.index_put.hacked_twin": ["aten.index_put.default"],
    "aten._unsafe_index_put.hacked_twin": ["aten._unsafe_index_put.default"],
    "aten.split.default": ["aten.split_with_sizes.default"],
    "aten.to.prim_dtype": ["aten.to.dtype"],
    "aten.to.prim_Device": ["aten.to.device"],
    "aten.to.prim_other": [],  # no node: the value itself
    "aten._list_to_tensor.default": ["aten.empty.memory_format", "aten.select.int", "aten.fill_.Scalar"],
    "aten.mT.a": ["aten.mT.default"],
    "aten.mH.a": ["aten.mH.default"],
    "aten.matrix_H.a": ["aten.matrix_H.default"],
    "aten.numpy_T.a": ["aten.numpy_T.default"],
    "aten.einsum.sublist": ["aten.einsum.default"],
}
# The overloads an explicit torch.Generator selects (rand.generator, randint_like.Tensor_generator, ...).
GENERATOR_OVERLOAD = re.compile(r"(^|_)generator($|_)")
EIGEN_SVD = {"linalg_eig", "linalg_eigvals", "_linalg_eigvals", "_linalg_eigh", "_linalg_svd"}
SPARSE_NAMED = {"hspmm", "smm", "sspaddmm", "copy_sparse_to_sparse", "resize_as_sparse", "_spsolve",
                "_convert_indices_from_coo_to_csr", "_convert_indices_from_csr_to_coo", "_rowwise_prune"}
QUANTIZED_NAMED = {"_empty_affine_quantized", "_empty_per_channel_affine_quantized", "empty_quantized"}
# SyncBatchNorm's kernels: per-process statistics, their all-gather and the running-stat update.
SYNC_BATCH_NORM = {"batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts",
                   "batch_norm_update_stats"}
# Kernels aten.convolution dispatches to (CPU slow paths, depthwise CUDA kernels, THNN).
CONV_KERNELS = {"_conv_depthwise2d", "conv_depthwise3d", "slow_conv3d", "slow_conv3d_forward", "slow_conv_dilated2d",
                "slow_conv_dilated3d", "slow_conv_transpose2d", "slow_conv_transpose3d", "thnn_conv2d",
                "_slow_conv2d_forward"}
PACKED_RNN = {"lstm", "gru", "rnn_tanh", "rnn_relu"}


def in_dispatcher(name: str, overload: str) -> bool:
    """False for overloads only the TorchScript JIT registers (hacked twins, prim forms, list helpers)."""
    qualified = f"aten::{name}" + ("" if overload == "default" else f".{overload}")
    try:
        torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CPU")
        return True
    except RuntimeError:
        return False


def sparse_only(name: str, overload: str) -> bool:
    """True where the only kernels are sparse ones (no dense, composite or meta-only entry)."""
    qualified = f"aten::{name}" + ("" if overload == "default" else f".{overload}")
    has = lambda key: torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key)
    try:
        dense = any(has(k) for k in ("CPU", "CUDA", "CompositeImplicitAutograd", "CompositeExplicitAutograd",
                                     "CompositeExplicitAutogradNonFunctional"))
        return not dense and (has("SparseCPU") or has("SparseCUDA"))
    except RuntimeError:
        return False


def is_named_tensor(schema) -> bool:
    return any("Dimname" in str(a.type) for a in schema.arguments)


def returns_no_tensor(schema) -> bool:
    return bool(schema.returns) and not any("Tensor" in str(r.type) or "SymInt" in str(r.type) for r in schema.returns)


OUT_OF_SCOPE = [
    (lambda n, o, s: torch.Tag.out in s["tags"] or any(a.is_out for a in s["schema"].arguments),
     "out= form: torch.export writes the functional overload"),
    (lambda n, o, s: "backward" in n or n.startswith("_backward") or n.endswith(("_grad", "_jvp")) or n == "get_gradients",
     "backward op: training graphs are not exported for inference"),
    (lambda n, o, s: n in SPARSE_NAMED or sparse_only(n, o), "backend-, sparse- or nested-specific op: not backend-neutral"),
    (lambda n, o, s: n in QUANTIZED_NAMED,
     "quantized-engine op: PT2E/torchao programs carry quantized_decomposed/torchao ops instead (rules exist for those)"),
    (lambda n, o, s: n in SYNC_BATCH_NORM,
     "SyncBatchNorm's distributed-training kernels (per-process statistics, their all-gather, the running-stat "
     "update): an inference program's batch norm is native_batch_norm or its functional forms, which have rules"),
    (lambda n, o, s: n in CONV_KERNELS,
     "a kernel aten.convolution dispatches to (CPU slow path, depthwise or THNN): programs write convolution, "
     "which has rules"),
    (lambda n, o, s: n in ("_add_batch_dim", "_remove_batch_dim"),
     "functorch (vmap) batching internals: an exported program holds no batched tensors"),
    (lambda n, o, s: n in ("flatten_dense_tensors", "unflatten_dense_tensors"),
     "DistributedDataParallel's gradient-bucket helpers: not in an inference program"),
    (lambda n, o, s: n == "_foobar", "a test op of torch's own dispatcher tests"),
    (lambda n, o, s: n == "_batch_norm_impl_index",
     "batch_norm's backend selection (returns the cudnn/miopen kernel index and reserve space): programs write "
     "native_batch_norm or its functional forms, which have rules"),
    (lambda n, o, s: n == "_efficientzerotensor",
     "autograd's lazy ZeroTensor: torch.export cannot trace it (fake tensors refuse ZeroTensor)"),
    (lambda n, o, s: n in ("set", "from_file"), "autograd, storage or metadata query: not a tensor computation export writes"),
    (lambda n, o, s: n.startswith(BACKEND_PREFIXES), "backend-, sparse- or nested-specific op: not backend-neutral"),
    (lambda n, o, s: n.startswith(QUANTIZED_ENGINE),
     "quantized-engine op: PT2E/torchao programs carry quantized_decomposed/torchao ops instead (rules exist for those)"),
    (lambda n, o, s: n in METADATA, "autograd, storage or metadata query: not a tensor computation export writes"),
    (lambda n, o, s: is_named_tensor(s["schema"]), "named-tensor overload (Dimname): torch.export does not support named tensors"),
    (lambda n, o, s: (n.endswith("_") and not n.startswith("__")) or n.startswith("__i") or s["schema"].is_mutable,
     "in-place form: torch.export functionalizes it into the out-of-place op"),
    (lambda n, o, s: returns_no_tensor(s["schema"]), "returns a Python value, not a tensor"),
    (lambda n, o, s: GENERATOR_OVERLOAD.search(o) is not None,
     "takes an explicit torch.Generator: the program asks for torch's seeded stream, which ONNX's unseeded "
     "Random* ops cannot reproduce (pt2onnx's random rules match torch in distribution only)"),
    (lambda n, o, s: n.startswith("_philox_"),
     "torch's counter-based (Philox) generator: draws and key arithmetic from an explicit key, which ONNX random ops do not take"),
    (lambda n, o, s: n in EIGEN_SVD,
     "eigen- or singular-vector factors: defined only up to sign (a complex phase for eig) and, for general "
     "matrices, complex and unordered eigenvalues; LAPACK's iterative algorithm fixes them and ONNX has no "
     "counterpart (rules by Jacobi sweeps: linalg_svdvals, linalg_svd, svd and linalg_eigh; _linalg_svd and "
     "_linalg_eigh are forms export does not write)"),
    (lambda n, o, s: n in ("linalg_ldl_factor", "linalg_ldl_factor_ex", "linalg_ldl_solve"),
     "LAPACK sytrf's Bunch-Kaufman LDL^T: pivots and 2x2 blocks encoded as LAPACK chooses them while it "
     "factors; no ONNX counterpart"),
    (lambda n, o, s: n.endswith(("_for_mps", "_mps", "_overrideable")),
     "kernel of one backend: MPS (Apple GPUs) or a PrivateUse1 hook whose CPU kernel raises; CPU and CUDA "
     "programs write the SDPA kernels that have rules"),
    (lambda n, o, s: n in PACKED_RNN and o == "data",
     "PackedSequence form: torch.export fails on packed sequences (pack_padded_sequence makes shapes from data)"),
    (lambda n, o, s: n == "copy" and o == "Dict_Tensor", "TorchScript dict operator: torch.export cannot pass it a Dict"),
    (lambda n, o, s: n == "chalf", "complex32 (chalf): ONNX has no complex32 type"),
    (lambda n, o, s: n in ("corrcoef", "cov", "_reshape_from_tensor"),
     "torch 2.15's export fails on it (a check or a shape read from tensor data: DataDependentOutputException)"),
    (lambda n, o, s: n in ("unique_dim_consecutive", "linalg_lstsq", "ctc_loss", "_ctc_loss"),
     "torch 2.15's export fails on it (no fake kernel for its data-dependent output size: "
     "DynamicOutputShapeException)"),
    (lambda n, o, s: n == "slice_inverse",
     "functionalization's view replay (it re-views the mutated slice's storage as the base): exported programs "
     "write slice_scatter, which has a rule"),
    (lambda n, o, s: n == "random" and o == "from",
     "torch 2.15's export fails on it (FX writes its `from` argument as a Python keyword: SyntaxError)"),
    (lambda n, o, s: n == "baddbmm" and o == "dtype",
     "torch 2.15's export fails on it (the fake-tensor decomposition of baddbmm reads out_dtype as beta)"),
]


def registered_overloads():
    # The dispatcher's whole list: dir(torch.ops.aten) names only the packets already loaded
    # (torch.ops resolves them lazily), which left out about a third of the overloads.
    names = sorted({n.split("::", 1)[1].split(".", 1)[0] for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::")})
    for name in names:
        packet = getattr(torch.ops.aten, name, None)
        if packet is None or not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            op = getattr(packet, overload)
            yield name, overload, {"schema": op._schema, "tags": set(op.tags)}


def rule_targets(list_rules: Path) -> dict[str, str]:
    """Target -> "rule" or "decomposition", from list_rules' lines ("target [opset] [decomposition]")."""
    out = subprocess.run([str(list_rules)], check=True, capture_output=True, text=True).stdout
    targets = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 2 and not line.endswith("distinct aten base ops"):
            targets[words[0]] = "decomposition" if words[-1] == "decomposition" else "rule"
    return targets


TORCHSCRIPT_ONLY = "TorchScript-only: torch.export writes other overloads, which pt2onnx handles (listed below)"
written_as: dict[str, str] = {}


def classify(rules: dict[str, str]):
    rows = []
    for name, overload, info in registered_overloads():
        target = f"aten.{name}.{overload}"
        if target in rules:
            rows.append((target, rules[target], ""))
            continue
        written = WRITTEN_AS.get(target)
        if written is not None and not in_dispatcher(name, overload) and all(w in rules for w in written):
            rows.append((target, "out of scope", TORCHSCRIPT_ONLY))
            written_as[target] = ", ".join(written) or "nothing (the value itself)"
            continue
        reason = next((why for test, why in OUT_OF_SCOPE if test(name, overload, info)), None)
        rows.append((target, "out of scope", reason) if reason else (target, "missing", ""))
    return rows


def report(rows) -> str:
    counts = collections.Counter(kind for _, kind, _ in rows)
    reasons = collections.Counter(why for _, kind, why in rows if kind == "out of scope")
    missing = [t for t, kind, _ in rows if kind == "missing"]
    by_base = collections.defaultdict(list)
    for t in missing:
        _, base, overload = t.split(".", 2)
        by_base[base].append(overload)
    lines = [
        "# Coverage against torch's whole aten op list",
        "",
        f"Generated by `scripts/aten_coverage.py` (torch {torch.__version__}) from every overload in",
        "`torch.ops.aten` (the dispatcher's native ops), against `build/tools/list_rules`. An overload is",
        "*rule* when pt2onnx has a translation rule for it (many composite ops too: their rules expand",
        "straight into ONNX ops where that is smaller), *decomposition* when pt2onnx rewrites it into other",
        "aten ops before translation (`src/translate/decompositions/`), *out of scope* for the reason",
        "below (TorchScript-only overloads that torch.export writes as others among them), else *missing*.",
        "The reasons are decided by name patterns in the script's table, not checked op by op; a missing",
        "overload is not necessarily one torch.export writes.",
        "",
        f"| overloads | rule | decomposition | out of scope | missing |",
        f"|---|---|---|---|---|",
        f"| {len(rows)} | {counts['rule']} | {counts['decomposition']} | {counts['out of scope']} | {counts['missing']} |",
        "",
        "## Decompositions",
        "",
    ]
    lines += [f"- `{t}`" for t, kind, _ in rows if kind == "decomposition"]
    lines += [
        "",
        "## TorchScript-only overloads: what torch.export writes instead",
        "",
        "| overload | written as |",
        "|---|---|",
    ]
    lines += [f"| `{t}` | {w} |" for t, w in sorted(written_as.items())]
    lines += [
        "",
        "## Out of scope, by reason",
        "",
        "| reason | overloads |",
        "|---|---|",
    ]
    lines += [f"| {why} | {n} |" for why, n in reasons.most_common()]
    lines += ["", f"## Missing ({len(missing)} overloads of {len(by_base)} ops)", ""]
    lines += [f"- `{base}`: {', '.join(sorted(ovs))}" for base, ovs in sorted(by_base.items())]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list-rules", type=Path, default=ROOT / "build/tools/list_rules")
    parser.add_argument("--write", type=Path, help="write the report here (markdown) instead of stdout")
    args = parser.parse_args()
    text = report(classify(rule_targets(args.list_rules)))
    if args.write:
        args.write.write_text(text)
        print(text.split("## Out of scope")[0].strip().splitlines()[-1])
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

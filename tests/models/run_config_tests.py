#!/usr/bin/env python3
"""End-to-end tests of `--config` (run by ctest as the `config` test).

- Every config in samples/hiera/*.config.json validates against schema/pt2onnx-config.schema.json,
  and each of a set of bad configs is rejected both by the schema and by pt2onnx (exit 2, one
  stderr line naming the file and the JSON path of the field at fault, no output written).
- A custom torch.library op (`pt2onnx_test::scaled_tanh`, unknown to the built-in rules) is refused
  without a config (exit 4, op named); with `custom_op.config.json` it becomes a ScaledTanh node of
  domain pt2onnx.test whose body is given in ONNX text, and onnxruntime reproduces torch
  (rtol 1e-4, atol 1e-5) in both IRs; with `custom_op.node.config.json` it becomes a bare node with
  the attributes asked for (checked structurally: no runtime has a kernel for it).
- A module rule makes every DecoderAttention of samples/decoder.*.pt2 one opaque
  DecoderAttentionPlugin node, inside the shared DecoderLayer function: its inputs are exactly the
  inputs of the call that `--hiera DecoderAttention` makes. Giving the model the --hiera function
  under the plugin's name (what a plugin does) makes it run, and onnxruntime reproduces torch.
- Dynamic dims named by `--dim-name` and the config's "dim_names" (symbol or INPUT.DIM keys; a flag
  wins over the config for one key): inputs and outputs carry the names as dim_params, the range
  constraints metadata uses them, `pkg.pt2onnx.dim_names` maps them back to the export's symbols,
  and onnxruntime reproduces torch at both sample sizes. Without names, the metadata holds the
  export's own ranges. Bad names (unknown symbol, static or out-of-range dim, not an identifier,
  one name for two dims, a name that is another symbol) exit 2 naming the request, writing nothing.
- Config rules win over built-in ones (an aten op mapped by a rule), a rule that matches nothing
  is reported as a warning, and command-line flags override the config's options.

Needs numpy, onnx, onnxruntime and jsonschema (the test venv). Prints one line per check and a
summary `N passed, M failed`; exits 1 on failure.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ort_compare import CheckFailed, load_io, max_error, run_checks, run_ort  # noqa: E402


def pt2onnx(exe, *args, expect=0):
    cmd = [exe, *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if expect is not None and proc.returncode != expect:
        raise CheckFailed(f"{' '.join(cmd[1:])}: exit {proc.returncode} (expected {expect}): {proc.stderr.strip()}")
    return proc


class Checks:
    def __init__(self, exe, samples: Path, schema: Path, work: Path):
        self.exe, self.samples, self.schema_path, self.work = exe, samples, schema, work
        self.hiera = samples / "hiera"

    # ---- the schema ------------------------------------------------------------------------
    def validator(self):
        import jsonschema

        schema = json.loads(self.schema_path.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        return jsonschema.Draft202012Validator(schema)

    def sample_configs_validate(self):
        v = self.validator()
        configs = sorted(self.hiera.glob("*.config.json"))
        if not configs:
            raise CheckFailed("no samples/hiera/*.config.json")
        for c in configs:
            errors = list(v.iter_errors(json.loads(c.read_text())))
            if errors:
                raise CheckFailed(f"{c.name}: {errors[0].message}")
        return f"{len(configs)} configs valid: {', '.join(c.name for c in configs)}"

    BAD = [
        # (config, JSON path pt2onnx must name, words it must say); all but the standard-op-name
        # case are refused by the schema too (a schema cannot list every ONNX op name).
        ({"opset": "18"}, "$.opset", "expected an integer"),
        ({"hiera": ["DecoderLayer"], "hieraa": []}, "$.hieraa", "unknown key"),
        ({"rules": [{"op": "pt2onnx_test::scaled_tanh", "op_type": "ScaledTanh"}]}, "$.rules[0]", "missing \"domain\""),
        ({"rules": [{"op": "pt2onnx_test::scaled_tanh", "domain": "pt2onnx.test", "op_type": "Tanh"}]},
         "$.rules[0].op_type", "standard ONNX op"),
        ({"rules": [{"module": "DecoderAttention", "domain": "ai.onnx", "op_type": "P"}]}, "$.rules[0].domain",
         "standard ONNX domain"),
        ({"rules": [{"op": "pt2onnx_test::scaled_tanh", "domain": "a.b", "op_type": "S",
                     "attributes": {"alpha": {"value": [1, "x"]}}}]}, "$.rules[0].attributes.alpha.value[1]",
         "expected a number"),
        ({"functions": {"name": "Fixed"}}, "$.functions.name", "{class}"),
        ({"dim_names": {"s72": 3}}, "$.dim_names.s72", "expected a string"),
    ]

    def bad_configs_refused(self):
        v = self.validator()
        out = self.work / "bad.onnx"
        for i, (config, path, words) in enumerate(self.BAD):
            if "standard ONNX op" not in words and not list(v.iter_errors(config)):
                raise CheckFailed(f"the schema accepts bad config {i}: {config}")
            cfg = self.work / f"bad{i}.json"
            cfg.write_text(json.dumps(config))
            proc = pt2onnx(self.exe, self.samples / "decoder.default.pt2", "--config", cfg, "-o", out, expect=2)
            lines = proc.stderr.strip().splitlines()
            if len(lines) != 1 or f"{cfg}: {path}: " not in lines[0] or words not in lines[0]:
                raise CheckFailed(f"bad config {i}: stderr {proc.stderr.strip()!r}, wanted '{cfg}: {path}: ... {words}'")
            if out.exists():
                raise CheckFailed(f"bad config {i}: output written")
        return f"{len(self.BAD)} bad configs refused by the schema and by pt2onnx (exit 2, JSON path named)"

    # ---- custom op ---------------------------------------------------------------------------
    def custom_op_refused_without_config(self):
        out = self.work / "custom_refused.onnx"
        proc = pt2onnx(self.exe, self.hiera / "custom_op.default.pt2", "-o", out, expect=4)
        if "pt2onnx_test.scaled_tanh.default" not in proc.stderr or out.exists():
            raise CheckFailed(f"stderr {proc.stderr.strip()!r}, output left: {out.exists()}")
        return proc.stderr.strip()

    def custom_op_with_body(self, ir):
        import onnx

        out = self.work / f"custom_op.{ir}.onnx"
        pt2onnx(self.exe, self.hiera / f"custom_op.{ir}.pt2", "--config", self.hiera / "custom_op.config.json",
                "-o", out, "-q")
        onnx.checker.check_model(str(out), full_check=True)
        model = onnx.load(str(out))
        nodes = [n for n in model.graph.node if n.domain == "pt2onnx.test"]
        if len(nodes) != 1 or nodes[0].op_type != "ScaledTanh":
            raise CheckFailed(f"custom nodes {[(n.domain, n.op_type) for n in nodes]}")
        alpha = {a.name: a.f for a in nodes[0].attribute}.get("alpha")
        if alpha != 1.5:
            raise CheckFailed(f"alpha attribute {alpha}, expected 1.5")
        if [(f.domain, f.name) for f in model.functions] != [("pt2onnx.test", "ScaledTanh")]:
            raise CheckFailed(f"functions {[(f.domain, f.name) for f in model.functions]}")
        inputs, expected = load_io(self.hiera / f"custom_op.{ir}.io.npz")
        err = max_error(run_ort(out, inputs), expected)
        return f"ScaledTanh(alpha=1.5) with its ONNX-text body; onnxruntime vs torch max abs error {err:.3g}"

    def custom_op_bare_node(self):
        import onnx

        out = self.work / "custom_op.node.onnx"
        pt2onnx(self.exe, self.hiera / "custom_op.default.pt2", "--config", self.hiera / "custom_op.node.config.json",
                "-o", out, "-q")
        onnx.checker.check_model(str(out), full_check=True)
        model = onnx.load(str(out))
        nodes = [n for n in model.graph.node if n.domain == "pt2onnx.test"]
        if len(nodes) != 1 or nodes[0].op_type != "ScaledTanh" or len(nodes[0].input) != 1:
            raise CheckFailed(f"custom nodes {[(n.op_type, list(n.input)) for n in nodes]}")
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in nodes[0].attribute}
        if attrs != {"alpha": 1.5, "approximation": b"none"}:
            raise CheckFailed(f"attributes {attrs}")
        if ("pt2onnx.test", 1) not in [(o.domain, o.version) for o in model.opset_import]:
            raise CheckFailed("domain pt2onnx.test not declared")
        # Its input is the fc1 output, its output feeds fc2.
        producers = {o: n for n in model.graph.node for o in n.output}
        if producers[nodes[0].input[0]].op_type not in ("Gemm", "MatMul", "Add"):
            raise CheckFailed(f"input made by {producers[nodes[0].input[0]].op_type}")
        return f"bare ScaledTanh node, attributes {attrs}, domain declared"

    # ---- opaque module -------------------------------------------------------------------------
    def opaque_module(self, ir):
        import onnx

        sample = self.samples / f"decoder.{ir}.pt2"
        opaque = self.work / f"decoder.{ir}.opaque.onnx"
        hiera = self.work / f"decoder.{ir}.attn.onnx"
        pt2onnx(self.exe, sample, "--config", self.hiera / "decoder.opaque.config.json", "-o", opaque, "-q")
        pt2onnx(self.exe, sample, "--hiera", "DecoderAttention", "--hiera", "DecoderLayer", "-o", hiera, "-q")
        onnx.checker.check_model(str(opaque), full_check=True)
        m_opaque, m_hiera = onnx.load(str(opaque)), onnx.load(str(hiera))
        fn_opaque = {f.name: f for f in m_opaque.functions}
        fn_hiera = {f.name: f for f in m_hiera.functions}
        if sorted(fn_opaque) != ["DecoderLayer"]:
            raise CheckFailed(f"functions {sorted(fn_opaque)}, expected only DecoderLayer")
        plugin = [n for n in fn_opaque["DecoderLayer"].node if n.domain == "pt2onnx.plugins"]
        call = [n for n in fn_hiera["DecoderLayer"].node if n.op_type == "DecoderAttention"]
        if len(plugin) != 1 or plugin[0].op_type != "DecoderAttentionPlugin" or len(call) != 1:
            raise CheckFailed(f"plugin nodes {[n.op_type for n in plugin]}")
        if list(plugin[0].input) != list(call[0].input) or list(plugin[0].output) != list(call[0].output):
            raise CheckFailed(f"plugin boundary {list(plugin[0].input)} -> {list(plugin[0].output)} differs from the "
                              f"--hiera call's {list(call[0].input)} -> {list(call[0].output)}")
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in plugin[0].attribute}
        if attrs != {"heads": 4, "causal": 1}:
            raise CheckFailed(f"plugin attributes {attrs}")
        main_plugins = sum(1 for n in m_opaque.graph.node if n.domain == "pt2onnx.plugins")
        layer_calls = sum(1 for n in m_opaque.graph.node if n.op_type == "DecoderLayer")
        if main_plugins != 0 or layer_calls != 2:
            raise CheckFailed(f"main graph: {layer_calls} DecoderLayer calls, {main_plugins} plugin nodes")
        # Play the plugin: the --hiera function under the plugin's name and domain.
        body = onnx.FunctionProto()
        body.CopyFrom(fn_hiera["DecoderAttention"])
        body.name, body.domain = "DecoderAttentionPlugin", "pt2onnx.plugins"
        body.attribute.extend(["heads", "causal"])
        m_opaque.functions.append(body)
        inputs, expected = load_io(self.samples / f"decoder.{ir}.io.npz")
        err = max_error(run_ort(m_opaque.SerializeToString(), inputs), expected)
        return (f"2 DecoderAttentionPlugin nodes (one in the shared DecoderLayer function, called twice), boundary "
                f"{len(plugin[0].input)} inputs -> {len(plugin[0].output)} outputs = the --hiera call's; with the "
                f"--hiera body as plugin, onnxruntime vs torch max abs error {err:.3g}")

    # ---- dim names ----------------------------------------------------------------------------------
    DYNAMIC = "zoo/zoo_llama.{ir}.pt2"  # input_ids int64[s72, s70]: batch 1..512, sequence 1..60

    @staticmethod
    def boundary_dims(model):
        import onnx  # noqa: F401

        def dims(v):
            return [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        return {v.name: dims(v) for v in list(model.graph.input) + list(model.graph.output)}

    def dim_names(self, ir):
        import onnx

        sample = self.samples / self.DYNAMIC.format(ir=ir)
        plain = self.work / f"dims.{ir}.plain.onnx"
        pt2onnx(self.exe, sample, "-o", plain, "-q")
        m = onnx.load(str(plain))
        meta = {p.key: p.value for p in m.metadata_props}
        ranges = json.loads(meta.get("pkg.torch.export.range_constraints", "{}"))
        symbols = self.boundary_dims(m)["input_ids"]
        if ranges != {"s72": {"min": 1, "max": 512}, "s70": {"min": 1, "max": 60}} or symbols != ["s72", "s70"]:
            raise CheckFailed(f"without names: input_ids dims {symbols}, range metadata {ranges}")
        if "pkg.pt2onnx.dim_names" in meta:
            raise CheckFailed("pkg.pt2onnx.dim_names written though no dim was named")

        cfg = self.work / f"dims.{ir}.json"
        cfg.write_text(json.dumps({"dim_names": {"input_ids.0": "batch", "s70": "from_config"}}))
        named = self.work / f"dims.{ir}.named.onnx"
        pt2onnx(self.exe, sample, "--config", cfg, "--dim-name", "s70=sequence", "-o", named, "-q")
        onnx.checker.check_model(str(named), full_check=True)
        m = onnx.load(str(named))
        dims = self.boundary_dims(m)
        out_name = [o.name for o in m.graph.output][0]
        if dims["input_ids"] != ["batch", "sequence"] or dims[out_name][:2] != ["batch", "sequence"]:
            raise CheckFailed(f"named dims {dims}")
        meta = {p.key: p.value for p in m.metadata_props}
        ranges = json.loads(meta["pkg.torch.export.range_constraints"])
        back = json.loads(meta.get("pkg.pt2onnx.dim_names", "{}"))
        if ranges != {"batch": {"min": 1, "max": 512}, "sequence": {"min": 1, "max": 60}}:
            raise CheckFailed(f"range metadata {ranges}")
        if back != {"batch": "s72", "sequence": "s70"}:
            raise CheckFailed(f"pkg.pt2onnx.dim_names {back}")
        io = sample.with_name(sample.name.replace(".pt2", ".io.npz"))
        results = []
        for prefix in ("", "b2_"):
            inputs, expected = load_io(io, prefix)
            results.append(f"{tuple(inputs[0].shape)}: {max_error(run_ort(named, inputs), expected):.3g}")
        return (f"input_ids [batch, sequence] (config input_ids.0, flag s70 over the config's name), ranges and names "
                f"in metadata; onnxruntime vs torch max abs error at {', '.join(results)}")

    BAD_DIM_NAMES = [
        # (--dim-name arguments, words the one stderr line must hold)
        (["s99=x"], "'s99' is no symbol of the program"),
        (["input_ids.2=x"], "input_ids has rank 2"),
        (["nosuch.0=x"], "'nosuch' is no tensor input"),
        (["input_ids.0=2x"], "is not an identifier"),
        (["s72=a", "s70=a"], "two dims with one name"),
        (["s72=s70"], "s70 is already a symbol of the program"),
        (["input_ids.0=b", "s72=c"], "already named"),
        (["s72"], "expected KEY=NAME"),
    ]

    def bad_dim_names_refused(self):
        out = self.work / "bad_dims.onnx"
        sample = self.samples / self.DYNAMIC.format(ir="default")
        for args, words in self.BAD_DIM_NAMES:
            flags = [a for arg in args for a in ("--dim-name", arg)]
            proc = pt2onnx(self.exe, sample, *flags, "-o", out, expect=2)
            lines = proc.stderr.strip().splitlines()
            if len(lines) != 1 or words not in lines[0]:
                raise CheckFailed(f"{' '.join(flags)}: stderr {proc.stderr.strip()!r}, wanted one line with '{words}'")
            if out.exists():
                raise CheckFailed(f"{' '.join(flags)}: output written")
        return f"{len(self.BAD_DIM_NAMES)} bad --dim-name requests refused (exit 2, request named, nothing written)"

    # ---- precedence and reporting ----------------------------------------------------------------
    def rules_win_and_unused_reported(self):
        import onnx

        cfg = self.work / "override.json"
        cfg.write_text(json.dumps({"rules": [
            {"op": "aten.silu", "domain": "com.example", "op_type": "FastSilu"},
            {"op": "nosuch::op", "domain": "com.example", "op_type": "Never"},
            {"module": "NoSuchModule", "domain": "com.example", "op_type": "NeverModule"},
        ]}))
        out = self.work / "override.onnx"
        proc = pt2onnx(self.exe, self.samples / "decoder.default.pt2", "--config", cfg, "-o", out)
        model = onnx.load(str(out))
        fast = [n for n in model.graph.node if n.op_type == "FastSilu"]
        sigmoid = [n for n in model.graph.node if n.op_type == "Sigmoid"]
        if len(fast) != 2 or sigmoid:
            raise CheckFailed(f"{len(fast)} FastSilu nodes, {len(sigmoid)} Sigmoid nodes (built-in silu rule ran?)")
        for words in ["rules[1] (op nosuch.op) matched no node", "rules[2] (module NoSuchModule) matched no module"]:
            if words not in proc.stderr:
                raise CheckFailed(f"no warning '{words}' in {proc.stderr!r}")
        return "aten.silu taken by the config rule (2 FastSilu, 0 Sigmoid); unused op and module rules reported"

    def flags_override_config(self):
        import onnx

        cfg = self.work / "options.json"
        cfg.write_text(json.dumps({"input": str((self.samples / "decoder.default.pt2").resolve()), "output": "from_config.onnx",
                                   "opset": 17, "hiera": ["DecoderLayer"],
                                   "functions": {"domain": "com.example.fn", "name": "{class}Fn"}}))
        pt2onnx(self.exe, "--config", cfg, "-q")
        from_config = self.work / "from_config.onnx"  # relative to the config's folder
        m = onnx.load(str(from_config))
        opsets = {o.domain: o.version for o in m.opset_import}
        if opsets.get("") != 17 or [(f.domain, f.name) for f in m.functions] != [("com.example.fn", "DecoderLayerFn")]:
            raise CheckFailed(f"from config: opsets {opsets}, functions {[(f.domain, f.name) for f in m.functions]}")
        out = self.work / "from_flags.onnx"
        pt2onnx(self.exe, "--config", cfg, "-o", out, "--opset", "18", "--hiera", "DecoderAttention", "-q")
        m = onnx.load(str(out))
        opsets = {o.domain: o.version for o in m.opset_import}
        names = sorted(f.name for f in m.functions)
        if opsets.get("") != 18 or names != ["DecoderAttentionFn", "DecoderLayerFn"]:
            raise CheckFailed(f"with flags: opsets {opsets}, functions {names}")
        return "config gives input/output/opset/hiera/naming; -o, --opset override, --hiera adds"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pt2onnx", required=True)
    parser.add_argument("--samples", required=True, type=Path)
    parser.add_argument("--schema", required=True, type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-config-") as tmp:
        c = Checks(args.pt2onnx, args.samples, args.schema, Path(tmp))
        checks = [
            ("sample configs match the schema", c.sample_configs_validate),
            ("bad configs refused", c.bad_configs_refused),
            ("custom op refused without a config", c.custom_op_refused_without_config),
            ("custom op + ONNX-text body (default IR)", lambda: c.custom_op_with_body("default")),
            ("custom op + ONNX-text body (core IR)", lambda: c.custom_op_with_body("core")),
            ("custom op as a bare node", c.custom_op_bare_node),
            ("opaque module (default IR)", lambda: c.opaque_module("default")),
            ("opaque module (core IR)", lambda: c.opaque_module("core")),
            ("dim names (default IR)", lambda: c.dim_names("default")),
            ("dim names (core IR)", lambda: c.dim_names("core")),
            ("bad dim names refused", c.bad_dim_names_refused),
            ("config rules win, unused rules reported", c.rules_win_and_unused_reported),
            ("flags override the config", c.flags_override_config),
        ]
        return run_checks(checks)


if __name__ == "__main__":
    sys.exit(main())

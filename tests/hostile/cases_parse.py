"""Hostile-input cases of the parsing classes: deep nesting, huge numbers and dims, pickles that
make far more than they hold, and configs. Generated from committed samples (stdlib only).

Interface: cases(ctx) returns cases_common.Case records for tests/hostile/run_hostile.py (the
hostile-io branch's runner). They are built from parse_cases(samples), whose ParseCase files are
named relative to a work folder ("{work}" in args) with "{out}/out.onnx" as the output; `exit` is
the documented exit code, and every refusal must be one stderr line naming the file.
"""
import dataclasses
import io
import json
import pathlib
import zipfile
from typing import Optional

DYNAMIC = "mlp_dynamic.default.pt2"      # raw weights, one symbolic dim on input x
PICKLED = "mlp.default.torch2_8.pt2"     # torch 2.8 layout: weights in a nested torch.save zip


@dataclasses.dataclass
class ParseCase:
    name: str
    cls: str                      # "nesting", "numbers", "pickle", "config"
    files: dict                   # relative path -> bytes
    args: list                    # pt2onnx arguments with {work} and {out}
    exit: int
    memory_cap: Optional[int] = None  # RLIMIT_AS in bytes (the runner's 1 GB when None)


def convert_args(name="in.pt2"):
    return ["{work}/" + name, "-o", "{out}/out.onnx"]


def inspect_args(name="in.pt2"):
    return ["inspect", "{work}/" + name]


def rezip(sample: bytes, replace: dict, compression=zipfile.ZIP_STORED) -> bytes:
    """The archive with entries whose name ends with a key of `replace` given new bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(sample)) as src, zipfile.ZipFile(out, "w", compression) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            for suffix, new in replace.items():
                if info.filename.endswith(suffix):
                    data = new(data) if callable(new) else new
            dst.writestr(info.filename, data, compress_type=compression)
    return out.getvalue()


def with_program(sample: bytes, edit) -> bytes:
    """The archive with models/model.json edited: edit(program dict) -> dict or JSON text."""
    def change(data):
        result = edit(json.loads(data))
        return result.encode() if isinstance(result, str) else json.dumps(result).encode()
    return rezip(sample, {"models/model.json": change}, zipfile.ZIP_DEFLATED)


def graph(program):
    return program["graph_module"]["graph"]


def with_weights_config(sample: bytes, edit) -> bytes:
    """The archive with its weights config's text edited: edit(text) -> text. STORED, as torch
    writes it, so that it is read in place."""
    return rezip(sample, {"model_weights_config.json": lambda data: edit(data.decode()).encode()})


def in_first_tensor_meta(text: str, field: str) -> str:
    """The weights config with `field` ('"name": value') first in its first tensor_meta."""
    return text.replace('"tensor_meta": {', '"tensor_meta": {' + field + ", ", 1)


def set_x_dim(program, dim):
    graph(program)["tensor_values"]["x"]["sizes"][0] = dim
    return program


def expr_dim(text):
    return {"as_expr": {"expr_str": text, "hint": {"as_int": 4}}}


def with_pickle(sample: bytes, pickle: bytes) -> bytes:
    """The torch 2.8 archive with the weights' data.pkl replaced (both zips DEFLATE-compressed)."""
    def new_weights(nested):
        return rezip(nested, {"/data.pkl": pickle}, zipfile.ZIP_DEFLATED)
    return rezip(sample, {"data/weights/model.pt": new_weights}, zipfile.ZIP_DEFLATED)


def nesting_cases(dynamic: bytes):
    parens = "(" * 7400 + "s77" + ")" * 7400
    max_chain = "Max(1, " * 2200 + "s77" + ")" * 2200
    minus = "-" * 75000 + "s77"
    powers = "2**" * 5000 + "2"

    def deep_meta(program):
        meta = graph(program)["tensor_values"]["x"]
        text = json.dumps(meta)
        values = json.dumps({k: v for k, v in graph(program)["tensor_values"].items() if k != "x"})[1:-1]
        wrapped = '{"meta": ' * 22000 + text + "}" * 22000
        graph(program)["tensor_values"] = {}
        body = json.dumps(program)
        return body.replace('"tensor_values": {}', '"tensor_values": {' + values + ', "x": ' + wrapped + "}")

    def deep_array(program):
        return json.dumps(program)[:-1] + ', "extra": ' + "[" * 100000 + "]" * 100000 + "}"

    def deep_module_stack(program):
        frames = ";".join(f"m{i},m{i},M" for i in range(20000))
        for node in graph(program)["nodes"]:
            node["metadata"]["nn_module_stack"] = frames
        return program

    deep_meta_archive = with_program(dynamic, deep_meta)
    deep_weights_config = with_weights_config(
        dynamic, lambda t: in_first_tensor_meta(t, '"extra": ' + "[" * 100000 + "]" * 100000))
    deep_stack_archive = with_program(dynamic, deep_module_stack)
    return [
        ParseCase("sym_expr_7400_parentheses", "nesting", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, expr_dim(parens)))}, convert_args(), 3),
        ParseCase("sym_expr_2200_max_calls", "nesting", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, expr_dim(max_chain)))}, convert_args(), 3),
        ParseCase("sym_expr_75000_unary_minus", "nesting", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, expr_dim(minus)))}, convert_args(), 3),
        ParseCase("sym_expr_5000_powers", "nesting", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, expr_dim(powers)))}, convert_args(), 3),
        ParseCase("tensor_meta_22000_deep_convert", "nesting", {"in.pt2": deep_meta_archive}, convert_args(), 3),
        ParseCase("tensor_meta_22000_deep_inspect", "nesting", {"in.pt2": deep_meta_archive}, inspect_args(), 3),
        ParseCase("json_array_100000_deep", "nesting", {"in.pt2": with_program(dynamic, deep_array)}, convert_args(), 3),
        ParseCase("weights_config_100000_deep", "nesting", {"in.pt2": deep_weights_config}, convert_args(), 3),
        ParseCase("weights_config_100000_deep_inspect", "nesting", {"in.pt2": deep_weights_config}, inspect_args(), 3),
        ParseCase("weights_config_truncated", "nesting",
                  {"in.pt2": with_weights_config(dynamic, lambda t: t[: len(t) // 2])}, convert_args(), 3),
        ParseCase("module_stack_20000_deep_inspect", "nesting", {"in.pt2": deep_stack_archive}, inspect_args(), 3),
        ParseCase("module_stack_20000_deep_hiera", "nesting", {"in.pt2": deep_stack_archive}, convert_args() + ["--hiera", "M"], 3),
    ]


def number_cases(dynamic: bytes):
    def huge_number(program):
        return json.dumps(program)[:-1] + ', "extra": 1e999}'

    def product_overflow(program):
        graph(program)["tensor_values"]["x"]["sizes"] = [{"as_int": 1 << 32}, {"as_int": 1 << 32}]
        return program

    def bad_dtype_int(program):
        graph(program)["tensor_values"]["x"]["dtype"] = 1 << 64  # past int64 and uint64's signed range
        return program

    cases = [
        ParseCase("json_number_1e999", "numbers", {"in.pt2": with_program(dynamic, huge_number)}, convert_args(), 3),
        ParseCase("json_number_1e999_inspect", "numbers", {"in.pt2": with_program(dynamic, huge_number)}, inspect_args(), 3),
        ParseCase("dim_negative", "numbers", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, {"as_int": -3}))}, convert_args(), 3),
        ParseCase("dim_2_pow_62", "numbers", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, {"as_int": 1 << 62}))}, convert_args(), 3),
        ParseCase("dim_2_pow_63", "numbers", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, {"as_int": 1 << 63}))}, convert_args(), 3),
        ParseCase("dims_product_overflow", "numbers", {"in.pt2": with_program(dynamic, product_overflow)}, convert_args(), 3),
        ParseCase("dtype_2_pow_64", "numbers", {"in.pt2": with_program(dynamic, bad_dtype_int)}, convert_args(), 3),
        # An expression the parser cannot read stays an opaque named dim (documented): exit 0, valid ONNX.
        ParseCase("sym_expr_integer_2_pow_70", "numbers", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, expr_dim(str(1 << 70))))}, convert_args(), 0),
        ParseCase("sym_expr_64k_characters", "numbers", {"in.pt2": with_program(dynamic, lambda p: set_x_dim(p, expr_dim("s77" + " + 1" * 20000)))}, convert_args(), 3),
        ParseCase("weights_config_dtype_1e999", "numbers",
                  {"in.pt2": with_weights_config(dynamic, lambda t: t.replace('"dtype": 7', '"dtype": 1e999', 1))}, convert_args(), 3),
        ParseCase("weights_config_size_2_pow_64", "numbers",
                  {"in.pt2": with_weights_config(dynamic, lambda t: in_first_tensor_meta(t, f'"sizes": [{{"as_int": {1 << 64}}}]'))},
                  convert_args(), 3),
        ParseCase("weights_config_size_text", "numbers",
                  {"in.pt2": with_weights_config(dynamic, lambda t: in_first_tensor_meta(t, '"sizes": [{"as_int": "32"}]'))},
                  inspect_args(), 3),
    ]
    return cases


def pickle_cases(pickled: bytes):
    header = b"\x80\x02"
    nones = header + b"N" * 20_000_000 + b"."
    big_list = header + b"(" + b"N" * 100_000 + b"lq\x00cbuiltins\nset\nq\x01"
    copies = big_list + b"h\x01h\x00\x85R0" * 20_000 + b"}."
    self_dict = header + b"}q\x00h\x00X\x01\x00\x00\x00ah\x00s."  # d = {}; d["a"] = d
    deep_lists = header + b"]" * 1_000_000 + b"a" * 999_999 + b"."
    return [
        ParseCase("pickle_20M_none", "pickle", {"in.pt2": with_pickle(pickled, nones)}, convert_args(), 3),
        ParseCase("pickle_list_copied_20000_times", "pickle", {"in.pt2": with_pickle(pickled, copies)}, convert_args(), 3),
        ParseCase("pickle_self_referencing_dict", "pickle", {"in.pt2": with_pickle(pickled, self_dict)}, convert_args(), 3),
        ParseCase("pickle_1M_nested_lists", "pickle", {"in.pt2": with_pickle(pickled, deep_lists)}, convert_args(), 3),
        ParseCase("pickle_20M_none_inspect", "pickle", {"in.pt2": with_pickle(pickled, nones)}, inspect_args(), 3),
    ]


def config_cases(dynamic: bytes):
    def config(text):
        return {"in.pt2": dynamic, "c.json": text.encode() if isinstance(text, str) else text}

    def body_rule(body):
        return json.dumps({"rules": [{"op": "mylib::f", "function": body}]})

    nested_graph = "<domain: \"com.x\", opset_import: [\"\": 18]> F (x) => (y) { y = If (x) <then_branch = " * 3000
    return [
        ParseCase("config_dev_zero", "config", {"in.pt2": dynamic}, convert_args() + ["--config", "/dev/zero"], 2),
        ParseCase("config_20MB", "config", config(b'{"comment": "' + b" " * (20 << 20) + b'"}'), convert_args() + ["--config", "{work}/c.json"], 2),
        ParseCase("config_json_100000_deep", "config", config("[" * 100000 + "]" * 100000), convert_args() + ["--config", "{work}/c.json"], 2),
        ParseCase("config_number_1e999", "config", config('{"opset": 1e999}'), convert_args() + ["--config", "{work}/c.json"], 2),
        ParseCase("config_float_attribute_1e300", "config",
             config(json.dumps({"rules": [{"op": "aten.relu", "domain": "com.x", "op_type": "R", "attributes": {"a": {"value": 1e300}}}]})),
             convert_args() + ["--config", "{work}/c.json"], 2),
        ParseCase("config_onnx_text_20000_parentheses", "config",
             config(body_rule("<domain: \"com.x\"> F (x) => (y) { y = Identity" + "(" * 20000 + "x" + ")" * 20000 + " }")),
             convert_args() + ["--config", "{work}/c.json"], 2),
        ParseCase("config_onnx_text_3000_nested_graphs", "config", config(body_rule(nested_graph)),
             convert_args() + ["--config", "{work}/c.json"], 2),
        # libonnx's number parsing throws (std::stol/stod) on these: found by fuzz_onnx_text.
        ParseCase("config_onnx_text_float_minus_reference", "config",
             config(body_rule("<domain: \"com.x\"> F <alpha> (x) => (y) { a = Constant <value_float: float = -alpha> () "
                              "y = Mul(x, a) }")),
             convert_args() + ["--config", "{work}/c.json"], 2),
        ParseCase("config_onnx_text_int_out_of_range", "config",
             config(body_rule("<domain: \"com.x\"> F (x) => (y) { a = Constant <value_int: int = 99999999999999999999999> () "
                              "y = Add(x, a) }")),
             convert_args() + ["--config", "{work}/c.json"], 2),
        ParseCase("config_inspect_dev_zero", "config", {"in.pt2": dynamic}, ["inspect", "{work}/in.pt2", "--config", "/dev/zero"], 2),
    ]


def many_nodes(program: dict) -> dict:
    """40,000 more (dead) relu nodes of input x: a nodes array of ~8 MB, which the import reads on a
    second thread (src/import/nodes_beside.h)."""
    graph = program["graph_module"]["graph"]
    x = [a["as_tensor"]["name"] for a in graph["inputs"] if "as_tensor" in a][-1]
    extra = []
    for i in range(40000):
        name = f"pad_relu_{i}"
        extra.append({"target": "torch.ops.aten.relu.default",
                      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": x}}, "kind": 1}],
                      "outputs": [{"as_tensor": {"name": name}}], "metadata": {"stack_trace": f"File m.py, line {i}"},
                      "is_hop_single_tensor_return": None, "name": name})
        graph["tensor_values"][name] = graph["tensor_values"][x]
    graph["nodes"] = extra + graph["nodes"]
    return program


def memory_cases(dynamic: bytes):
    """Address-space caps met wherever the allocation fails, on either import thread: one line and
    exit 3, never abort() (mimalloc's own operator new aborted: src/cli/new_delete.cpp). Before
    that fix these caps ended in SIGABRT on this archive; 300 MiB converts it."""
    archive = with_program(dynamic, many_nodes)
    return [ParseCase(f"nodes_40000_cap_{mib}_mib", "memory", {"in.pt2": archive}, convert_args(), 3, mib << 20)
            for mib in (100, 160, 250)]


def parse_cases(samples: pathlib.Path):
    dynamic = (samples / DYNAMIC).read_bytes()
    pickled = (samples / PICKLED).read_bytes()
    return (nesting_cases(dynamic) + number_cases(dynamic) + pickle_cases(pickled) + config_cases(dynamic) +
            memory_cases(dynamic))


CLASSES = {"nesting": "deep nesting", "numbers": "huge numbers and dims", "pickle": "pickles", "config": "configs",
           "memory": "memory caps"}


def cases(ctx):
    """The runner's Case records: inputs written with ctx.put, args in its {in}/{out} form."""
    from cases_common import Case  # the runner's module (tests/hostile/cases_common.py)
    out = []
    for c in parse_cases(ctx.samples):
        paths = {name: ctx.put(f"parse_{c.name}.{name}", data) for name, data in c.files.items()}
        args = []
        for a in c.args:
            if a == "{work}/in.pt2":
                args.append("{in}")
            elif a == "{out}/out.onnx":
                args.append("{out}")
            elif a.startswith("{work}/"):
                args.append(str(paths[a[len("{work}/"):]]))
            else:
                args.append(a)
        config = next((a for a in c.args if "c.json" in a or a == "/dev/zero"), None)
        names = "/dev/zero" if config == "/dev/zero" else (paths["c.json"].name if config else paths["in.pt2"].name)
        out.append(Case(CLASSES[c.cls], "parse:" + c.name, paths["in.pt2"], c.exit, names, args, memory_cap=c.memory_cap))
    return out


if __name__ == "__main__":
    import sys
    for case in parse_cases(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "samples")):
        size = sum(len(v) for v in case.files.values())
        print(f"{case.cls:8} {case.name:40} exit {case.exit}  {size} bytes")

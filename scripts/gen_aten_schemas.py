#!/usr/bin/env python3
"""Writes src/import/aten_schema_table.inc: the schema of every aten/prims operator overload.

The importer needs it because newer exporters omit arguments left at their defaults, and old
ones may not name their arguments. Run it with a torch venv (the converter itself never uses
torch):

    $(scripts/torch_venv.sh 2.15)/bin/python scripts/gen_aten_schemas.py

Each entry gives the qualified name (aten.<op>.<overload>), the arguments in schema order (name,
type as native_functions.yaml writes it, keyword-only flag, typed default) and the number of
returns. Out-variants (overloads with out= tensors) and TorchScript-only builtins whose types an
exported program cannot hold (generic t, Dict, Future, ...) are left out to keep the table small.
Enum defaults are written in the export schema's numbering, not c10's.
"""

import argparse
import math
import os
import re
import sys

import torch
from torch._export.serde import serialize as export_serialize

NAMESPACES = ("aten", "prims")
# Argument types an exported program can carry; anything else marks a TorchScript-only builtin.
BASE_TYPES = {
    "Tensor", "int", "SymInt", "float", "SymFloat", "bool", "SymBool", "str", "Scalar",
    "ScalarType", "Layout", "MemoryFormat", "Device", "Generator", "Dimname", "Storage",
    "complex", "QScheme", "Stream", "GraphModule", "AnyEnumType", "DispatchKeySet",
}
DEFAULT_OUTPUT = os.path.join(os.path.dirname(__file__), "..", "src", "import", "aten_schema_table.inc")


def split_top_level(text):
    """Splits an argument list on commas outside brackets, parentheses and string literals."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def argument_texts(schema):
    """The `type name[=default]` texts of a schema's arguments, without the `*` marker."""
    text = str(schema)
    open_at = text.index("(")
    depth, quote, i = 0, None, open_at
    while True:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    return [p for p in split_top_level(text[open_at + 1:i]) if p != "*"]


def type_text(arg_text, name):
    """`SymInt[2] stride=[1, 1]` -> `SymInt[2]`."""
    head = arg_text.split("=", 1)[0].strip()  # types never contain '='
    if not head.endswith(" " + name):
        raise ValueError(f"cannot find argument {name!r} in {arg_text!r}")
    return head[: -len(name) - 1].strip()


def base_type(text):
    """`Tensor(a!)?[]` -> `Tensor`."""
    text = re.sub(r"\([^)]*\)", "", text)
    return re.sub(r"[\[\]0-9?]", "", text).strip()


def enum_maps():
    """c10 integer -> export-schema integer, for ScalarType, MemoryFormat and Layout."""
    def c10_values(table):
        body = "\n".join(f"def f{i}() -> int:\n    return torch.{str(k).split('.')[-1]}"
                         for i, k in enumerate(table)) + "\n"
        unit = torch.jit.CompilationUnit(body)
        return {getattr(unit, f"f{i}")(): int(v.value if hasattr(v, "value") else v)
                for i, v in enumerate(table.values())}
    return (c10_values(export_serialize._TORCH_TO_SERIALIZE_DTYPE),
            c10_values(export_serialize._TORCH_TO_SERIALIZE_MEMORY_FORMAT),
            c10_values(export_serialize._TORCH_TO_SERIALIZE_LAYOUT))


def cpp_string(s):
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in "\"\\":
            out.append("\\" + ch)
        elif 32 <= code < 127:
            out.append(ch)
        else:
            out.append(f"\\x{code:02x}\"\"")  # split the literal so the next char is not a hex digit
    out.append('"')
    return "".join(out)


def cpp_int(v):
    return "INT64_MIN" if v == -(2**63) else str(v)  # the literal 9223372036854775808 would overflow


def cpp_double(v):
    if math.isnan(v):
        return "kNaN"
    if math.isinf(v):
        return "kInf" if v > 0 else "-kInf"
    text = repr(float(v))
    return text if ("." in text or "e" in text) else text + ".0"


class Pools:
    """Deduplicated constant arrays for list defaults."""

    def __init__(self):
        self.ints, self.floats = [], []
        self._int_at, self._float_at = {}, {}

    def _add(self, values, pool, index):
        key = tuple(values)
        if key not in index:
            index[key] = len(pool)
            pool.extend(values)
        return index[key]

    def int_span(self, values):
        if not values:
            return "{}"
        return f"{{kIntPool + {self._add(values, self.ints, self._int_at)}, {len(values)}}}"

    def float_span(self, values):
        if not values:
            return "{}"
        return f"{{kFloatPool + {self._add(values, self.floats, self._float_at)}, {len(values)}}}"


def default_expr(arg, type_str, maps, pools):
    """C++ expression of the argument's default, or None when it has none."""
    if not arg.has_default_value():
        return None
    value = arg.default_value
    if value is None:
        return "none_default()"
    dtype_map, memory_format_map, layout_map = maps
    base = base_type(type_str)
    is_list = "[" in type_str
    if is_list:
        if not isinstance(value, (list, tuple)):
            value = [value] * (arg.N or 1)  # `int[2] stride=1` means [1, 1]
        if base in ("int", "SymInt"):
            return f"int_list_default({pools.int_span([int(v) for v in value])})"
        if base in ("float", "SymFloat"):
            return f"float_list_default({pools.float_span([float(v) for v in value])})"
        if base in ("bool", "SymBool"):
            return f"bool_list_default({pools.int_span([int(bool(v)) for v in value])})"
        raise ValueError(f"list default of type {type_str}: {value!r}")
    if base == "ScalarType":
        return f"scalar_type_default({dtype_map[int(value)]})"
    if base == "MemoryFormat":
        return f"memory_format_default({memory_format_map[int(value)]})"
    if base == "Layout":
        return f"layout_default({layout_map[int(value)]})"
    if base == "Device":
        return f"device_default({cpp_string(str(value))})"
    if base == "str":
        return f"string_default({cpp_string(value)})"
    if base in ("float", "SymFloat"):
        return f"float_default({cpp_double(float(value))})"
    if base in ("int", "SymInt") and not isinstance(value, bool):
        return f"int_default({cpp_int(int(value))})"
    if isinstance(value, bool):  # before int: bool is an int in Python
        return f"bool_default({'true' if value else 'false'})"
    if isinstance(value, int):
        return f"int_default({cpp_int(value)})"
    if isinstance(value, float):
        return f"float_default({cpp_double(value)})"
    if isinstance(value, complex):
        return f"complex_default({cpp_double(value.real)}, {cpp_double(value.imag)})"
    raise ValueError(f"default of type {type_str}: {value!r}")


def is_out_variant(schema):
    return any(a.is_out or (a.kwarg_only and a.alias_info is not None and a.alias_info.is_write)
               for a in schema.arguments)


def collect(maps, pools):
    rows, skipped = [], {"out": 0, "type": 0}
    for schema in torch._C._jit_get_all_schemas():
        namespace, op = schema.name.split("::", 1)
        if namespace not in NAMESPACES:
            continue
        if is_out_variant(schema):
            skipped["out"] += 1
            continue
        texts = argument_texts(schema)
        if len(texts) != len(schema.arguments) or any("..." in t for t in texts):
            skipped["type"] += 1
            continue
        try:
            types = [type_text(t, a.name) for t, a in zip(texts, schema.arguments)]
        except ValueError:
            skipped["type"] += 1
            continue
        if any(base_type(t) not in BASE_TYPES for t in types):
            skipped["type"] += 1
            continue
        args = []
        for arg, type_str in zip(schema.arguments, types):
            args.append((arg.name, type_str, arg.kwarg_only, default_expr(arg, type_str, maps, pools)))
        name = f"{namespace}.{op}.{schema.overload_name or 'default'}"
        rows.append((name, args, len(schema.returns)))
    rows.sort(key=lambda r: r[0].encode())
    return rows, skipped


def write(path, rows, pools, skipped):
    lines = [
        "// GENERATED FILE - DO NOT EDIT.",
        f"// Written by scripts/gen_aten_schemas.py from torch {torch.__version__}: the schema of every",
        f"// {'/'.join(NAMESPACES)} operator overload ({len(rows)} overloads; {skipped['out']} out-variants and",
        f"// {skipped['type']} TorchScript-only builtins left out). Included by aten_schema.cpp only.",
        "",
        f"constexpr std::string_view kSchemaTorchVersion = {cpp_string(torch.__version__)};",
        "",
        "constexpr int64_t kIntPool[] = {",
    ]
    for i in range(0, max(len(pools.ints), 1), 16):
        chunk = pools.ints[i:i + 16] or [0]
        lines.append("    " + ", ".join(cpp_int(v) for v in chunk) + ",")
    lines.append("};")
    lines.append("constexpr double kFloatPool[] = {")
    for i in range(0, max(len(pools.floats), 1), 8):
        chunk = pools.floats[i:i + 8] or [0.0]
        lines.append("    " + ", ".join(cpp_double(v) for v in chunk) + ",")
    lines.append("};")
    lines.append("")
    lines.append("// {name, type, keyword-only, default}, every operator's arguments one after another.")
    lines.append("constexpr SchemaArg kSchemaArgs[] = {")
    first = []
    count = 0
    for name, args, _ in rows:
        first.append(count)
        for arg_name, type_str, kwarg_only, default in args:
            fields = [cpp_string(arg_name), cpp_string(type_str), "true" if kwarg_only else "false"]
            if default is not None:
                fields.append(default)
            lines.append("    {" + ", ".join(fields) + "},")
            count += 1
    if count == 0:
        lines.append("    {},")
    lines.append("};")
    lines.append("")
    lines.append("// {qualified name, arguments, returns}, sorted by name.")
    lines.append("constexpr OpSchema kOpSchemas[] = {")
    for (name, args, returns), start in zip(rows, first):
        span = f"{{kSchemaArgs + {start}, {len(args)}}}" if args else "{}"
        lines.append(f"    {{{cpp_string(name)}, {span}, {returns}}},")
    lines.append("};")
    with open(path, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=DEFAULT_OUTPUT)
    options = parser.parse_args()
    pools = Pools()
    rows, skipped = collect(enum_maps(), pools)
    write(options.output, rows, pools, skipped)
    size = os.path.getsize(options.output)
    print(f"wrote {os.path.normpath(options.output)}: {len(rows)} overloads, {size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()

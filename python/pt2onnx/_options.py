"""Keyword arguments of convert() as pt2onnx command-line flags.

The binary declares every conversion option once (src/config/option_table.cpp) and renders its
--help from that table; this is the Python side of it, one row per flag. tests/wheel's check
requires every flag --help lists to have a row here (or a reason in NOT_KEYWORDS) and every row
to be a parameter of convert(), so a new option cannot be forgotten. A keyword left at its
default is not passed at all, so the binary's defaults and a config file's values apply.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Option:
    keyword: str  # the parameter of convert()
    flag: str  # the long flag
    kind: str  # value | switch | switch_off | flag_value | repeated | comma_list | key_value


OPTIONS: tuple[Option, ...] = (
    Option("opset", "--opset", "value"),
    Option("external_data", "--external-data", "flag_value"),
    Option("model", "--model", "value"),
    Option("all_models", "--all-models", "switch"),
    Option("hiera", "--hiera", "repeated"),
    Option("function_domain", "--function-domain", "value"),
    Option("function_name", "--function-name", "value"),
    Option("compile", "--compile", "repeated"),
    Option("arch", "--arch", "comma_list"),
    Option("kernels_dir", "--kernels-dir", "value"),
    Option("kernel_tf32", "--kernel-tf32", "switch"),
    Option("nvrtc", "--nvrtc", "value"),
    Option("dim_names", "--dim-name", "key_value"),
    Option("config", "--config", "value"),
    Option("strict", "--strict", "switch"),
    Option("depfile", "--depfile", "value"),
    Option("verbose", "--verbose", "switch"),
    Option("fuse", "--no-fuse", "switch_off"),
    Option("fold", "--no-fold", "switch_off"),
    Option("matmul_nbits", "--matmul-nbits", "switch"),
    Option("limits", "--limit", "key_value"),
)

# Flags of --help that are no keyword of convert(), and why.
NOT_KEYWORDS: dict[str, str] = {
    "--help": "not a conversion",
    "--version": "pt2onnx.__version__",
    "--output": "convert()'s second argument",
    "--report": "convert() always asks for one and returns it as ConvertResult.report",
    "--list-outputs": "pt2onnx.list_outputs()",
    "--quiet": "output is captured, never printed (ConvertResult.log)",
    "--max-entry-bytes": "alias of limits={'entry-bytes': N}",
    "--max-inflate-ratio": "alias of limits={'inflate-ratio': N}",
}


def _text(value: Any) -> str:
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def command_line(values: Mapping[str, Any]) -> list[str]:
    """The flags for convert()'s keyword values; None, False, empty and fuse/fold=True pass nothing."""
    unknown = sorted(set(values) - {option.keyword for option in OPTIONS})
    if unknown:
        raise TypeError(f"unknown pt2onnx option(s): {', '.join(unknown)}")
    args: list[str] = []
    for option in OPTIONS:
        value = values.get(option.keyword)
        if option.kind == "switch":
            if value:
                args.append(option.flag)
        elif option.kind == "switch_off":
            if value is False:
                args.append(option.flag)
        elif option.kind == "flag_value":  # True: the flag alone; a string: --flag=VALUE
            if value is True:
                args.append(option.flag)
            elif value:
                args.append(f"{option.flag}={_text(value)}")
        elif value is None:
            continue
        elif option.kind == "value":
            args += [option.flag, _text(value)]
        elif option.kind == "repeated":
            items = [value] if isinstance(value, (str, os.PathLike)) else list(value)
            for item in items:
                args += [option.flag, _text(item)]
        elif option.kind == "comma_list":
            items = [value] if isinstance(value, str) else list(value)
            if items:
                args += [option.flag, ",".join(_text(item) for item in items)]
        elif option.kind == "key_value":
            for key, item in dict(value).items():
                args += [option.flag, f"{key}={_text(item)}"]
        else:
            raise AssertionError(f"option kind {option.kind!r} of {option.flag}")
    return args

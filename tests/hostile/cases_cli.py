"""Command lines a careless user writes: contradictory flags, bad --limit values, and an NVRTC
library named by $PT2ONNX_NVRTC or --nvrtc that cannot be loaded (refused like a bad flag,
never skipped silently)."""
from __future__ import annotations

from cases_common import Case, Context

OUT = ["{in}", "-o", "{out}"]


def cases(ctx: Context) -> list[Case]:
    mlp = ctx.sample("mlp.default")
    not_a_library = ctx.put("not-a-library.so", b"this is no ELF file\n")
    out: list[Case] = []

    def add(name, expect, names, args, **kw):
        out.append(Case("command line", name, mlp, expect, names, list(args), **kw))

    add("quiet-and-verbose", 2, "--quiet", OUT + ["-q", "-v"])
    add("verbose-and-quiet", 2, "--verbose", OUT + ["--verbose", "--quiet"])
    for tag, value in [("zero", "nesting=0"), ("text", "nesting=abc"), ("no-name", "=5"), ("no-value", "nesting"),
                       ("negative", "nesting=-1"), ("overflow", "nesting=99999999999999999999999"),
                       ("unknown", "depth=5")]:
        add(f"limit-{tag}", 2, "--limit", OUT + ["--limit", value])
    add("limit-inspect-zero", 2, "--limit", ["inspect", "{in}", "--limit", "pickle-bytes=0"], outputs=())
    add("alias-text", 2, "--max-inflate-ratio", OUT + ["--max-inflate-ratio", "lots"])
    # NVRTC: --compile needs it, and a library the user named is the only one tried.
    compile_args = OUT + ["--compile", "Linear"]
    add("nvrtc-env-missing", 6, "/nonexistent/libnvrtc.so", compile_args,
        env={"PT2ONNX_NVRTC": "/nonexistent/libnvrtc.so"})
    add("nvrtc-env-not-a-library", 6, not_a_library.name, compile_args, env={"PT2ONNX_NVRTC": str(not_a_library)})
    add("nvrtc-flag-missing", 6, "/nonexistent/libnvrtc.so", compile_args + ["--nvrtc", "/nonexistent/libnvrtc.so"])
    add("nvrtc-flag-over-env", 6, not_a_library.name, compile_args + ["--nvrtc", str(not_a_library)],
        env={"PT2ONNX_NVRTC": "/nonexistent/other.so"})
    # An element type the opset's operators do not take: refused by name, not written invalid.
    dtypes = ctx.sample("ops/dtypes.default")
    out.append(Case("command line", "float8-below-opset-19", dtypes, 4, "float8_e4m3fn needs --opset 19",
                    OUT + ["--opset", "18"]))
    return out

"""Output-path attacks (symbolic and hard links, planted temp names, devices, FIFOs, the input
as output, '' and long names, existing outputs) and signals in the middle of a large copy."""
from __future__ import annotations

import os
import signal
import zipfile

from cases_common import Case, Context
from hostile_zip import read_entries, write_zip

OUT = ["{in}", "-o", "{out}"]


def padded_archive(ctx: Context) -> "os.PathLike":
    """mlp.default with weight_0's storage padded to 256 MiB (a view of a larger storage is
    legal): its verification and copy take long enough to be interrupted."""
    path = ctx.inputs / "large-storage.pt2"
    if path.exists():
        return path
    entries = read_entries(ctx.sample("mlp.default"))
    padded = [(n, d + bytes((256 << 20) - len(d)) if n.endswith("/data/weights/weight_0") else d,
               zipfile.ZIP_STORED) for n, d, _ in entries]
    path.write_bytes(write_zip(padded))
    return path


def cases(ctx: Context) -> list[Case]:
    # A copy beside the outputs' folder: hard links cannot cross file systems (/tmp may be tmpfs).
    mlp = ctx.put("output-input.pt2", ctx.sample("mlp.default").read_bytes())
    bad = ctx.put("output-case-truncated.pt2", mlp.read_bytes()[:4000])
    onnx_named = ctx.put("named.onnx", mlp.read_bytes())  # default output = the input itself
    out: list[Case] = []

    def add(name, expect, names=None, args=OUT, setup=None, outputs=("out.onnx",), removed=(), input=mlp, **kw):
        out.append(Case("output paths", name, input, expect, names, list(args), setup, outputs, removed, **kw))

    def link_to_input(kind, name="out.onnx"):
        def setup(outdir, sentinel):
            (os.link if kind == "hard" else os.symlink)(mlp.resolve(), outdir / name)
        return setup

    def plant(name, make):
        def setup(outdir, sentinel):
            make(outdir / name, sentinel)
        return setup

    victim = lambda path, sentinel: os.symlink(sentinel / "victim.onnx", path)  # noqa: E731

    add("empty-o", 2, "output path", args=["{in}", "-o", ""])
    add("o-is-input", 2, mlp.name, args=["{in}", "-o", "{in}"])
    add("o-is-input-other-spelling", 2, mlp.name, args=["{in}", "-o", "{indir}/../inputs/" + mlp.name])
    add("o-symlink-to-input", 2, "out.onnx", setup=link_to_input("sym"))
    add("o-hardlink-to-input", 2, "out.onnx", setup=link_to_input("hard"))
    add("default-o-is-input", 2, "named.onnx", args=["{in}"], input=onnx_named)
    add("data-hardlink-to-input", 2, "out.onnx.data", args=OUT + ["--external-data"],
        setup=link_to_input("hard", "out.onnx.data"))
    add("o-fifo", 7, "out.onnx", setup=plant("out.onnx", lambda p, s: os.mkfifo(p)), timeout=10)
    add("o-dev-null", 7, "/dev/null", args=["{in}", "-o", "/dev/null"])
    # A link is replaced, never written through, even when it names a device.
    add("o-symlink-to-device", 0, setup=plant("out.onnx", lambda p, s: os.symlink("/dev/zero", p)))
    add("o-directory", 7, "out.onnx", setup=plant("out.onnx", lambda p, s: p.mkdir()))
    add("o-trailing-slash", 2, "out/", args=["{in}", "-o", "{outdir}/out/"])
    add("o-dot", 2, "/.'", args=["{in}", "-o", "{outdir}/."])
    add("o-missing-folder", 7, "out.onnx", args=["{in}", "-o", "{outdir}/missing/out.onnx"])
    add("o-symlink-elsewhere", 0, setup=plant("out.onnx", victim))
    add("o-dangling-symlink", 0, setup=plant("out.onnx", lambda p, s: os.symlink(s / "nothing-here", p)))
    add("data-symlink-elsewhere", 0, args=OUT + ["--external-data"], outputs=("out.onnx", "out.onnx.data"),
        setup=plant("out.onnx.data", victim))

    def planted_temp_names(outdir, sentinel):
        # The names an older pt2onnx used (".<name>.tmp.<pid>.<n>"), each a link to a victim.
        for pid in range(1, 400, 7):
            for n in range(2):
                os.symlink(sentinel / "victim.onnx", outdir / f".out.onnx.tmp.{pid}.{n}")
    add("planted-temp-links", 0, setup=planted_temp_names)
    add("planted-temp-links-external", 0, args=OUT + ["--external-data"], setup=planted_temp_names,
        outputs=("out.onnx", "out.onnx.data"))

    def existing(outdir, sentinel):
        (outdir / "out.onnx").write_bytes(b"an older model")
    add("replace-existing", 0, setup=existing)
    add("keep-existing-on-failure", 3, bad.name, input=bad, setup=existing)

    def existing_both(outdir, sentinel):
        (outdir / "out.onnx").write_bytes(b"an older model")
        (outdir / "out.onnx.data").write_bytes(b"older weights")
    add("replace-existing-external", 0, args=OUT + ["--external-data"], setup=existing_both,
        outputs=("out.onnx", "out.onnx.data"))
    add("stale-data-removed", 0, setup=existing_both, removed=("out.onnx.data",))
    add("stale-data-fifo-kept", 0, setup=plant("out.onnx.data", lambda p, s: os.mkfifo(p)))

    for length in (240, 250, 255):
        name = "n" * (length - 5) + ".onnx"
        add(f"name-{length}-bytes", 0, args=["{in}", "-o", "{outdir}/" + name], outputs=(name,))
    add("name-256-bytes", 7, "n" * 20, args=["{in}", "-o", "{outdir}/" + "n" * 251 + ".onnx"])
    add("name-250-external", 0, args=["{in}", "-o", "{outdir}/" + "e" * 245 + ".onnx", "--external-data"],
        outputs=("e" * 245 + ".onnx", "e" * 245 + ".onnx.data"))
    add("name-251-external", 7, "e" * 20,
        args=["{in}", "-o", "{outdir}/" + "e" * 246 + ".onnx", "--external-data"])

    # Signals while the large storage is verified and copied: nothing may be left behind, an
    # existing output stays as it was, and the process dies of the signal.
    large = padded_archive(ctx)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for external in (False, True):
            args = OUT + (["--external-data"] if external else [])
            tag = f"{signal.Signals(sig).name}{'-external' if external else ''}"
            out.append(Case("signals", tag, large, -sig, None, list(args), signal=sig, timeout=60))
    out.append(Case("signals", "SIGINT-existing-kept", large, -signal.SIGINT, None, list(OUT), existing,
                    signal=signal.SIGINT, timeout=60))
    out.append(Case("signals", "large-completes", large, 0, None, OUT + ["--external-data"],
                    outputs=("out.onnx", "out.onnx.data"), timeout=60))
    return out

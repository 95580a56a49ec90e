"""Damaged and hostile archives: zip structure (CRC flips, overlapping entries, header
mismatches, truncation, bad offsets), zip bombs, and inputs that are not regular files."""
from __future__ import annotations

import io
import json
import os
import random
import zipfile
import zlib

from cases_common import Case, Context
from hostile_zip import Zip, deflate_spaces, raw_deflate_zip, read_entries, write_zip

RAW = ["attention.core", "attention.default", "cnn.core", "cnn.default", "decoder.core",
       "decoder.default", "mlp.core", "mlp.default", "mlp_dynamic.core", "mlp_dynamic.default"]
NESTED = ["mlp.default.torch2_8", "mlp.default.torch2_7"]  # torch.save zips inside


def weight_entries(z: Zip) -> list:
    """The weight blobs that conversion copies (BatchNorm's num_batches_tracked is never read)."""
    config = next(e for e in z.entries if e.name.endswith("model_weights_config.json"))
    payload = json.loads(zipfile.ZipFile(io.BytesIO(z.data)).read(config.name))["config"]
    unused = {meta["path_name"] for fqn, meta in payload.items() if fqn.endswith("num_batches_tracked")}
    return [e for e in z.entries if "/data/weights/weight_" in e.name and e.name.split("/")[-1] not in unused]


def structure_cases(ctx: Context, stem: str) -> list[Case]:
    data = ctx.sample(stem).read_bytes()
    z = Zip(data)
    out = []

    def add(tag, blob, expect=3, names=None):
        path = ctx.put(f"{stem}.{tag}.pt2", blob)
        out.append(Case("zip structure", f"{stem}:{tag}", path, expect, names or path.name))

    weights = weight_entries(z)
    model_json = z.find("models/model.json")
    # CRC: a flipped bit in each kind of entry that conversion reads.
    add("crc-model-json", z.flip_data_bit(model_json))
    add("crc-weights-config", z.flip_data_bit(z.find("model_weights_config.json")))
    add("crc-weight-first", z.flip_data_bit(weights[0], 0.0))
    add("crc-weight-last", z.flip_data_bit(weights[-1], 1.0))
    add("crc-archive-format", z.flip_data_bit(z.find("archive_format")))
    add("crc-byteorder", z.flip_data_bit(z.find("byteorder")))
    add("crc-field", z.set_central(weights[0], "crc", weights[0].crc ^ 0x80))
    # Structure.
    add("local-name", z.set_local_name_byte(model_json, model_json.name_len - 2, ord("X")))
    add("local-method", z.set_local_method(weights[0], 8))
    add("duplicate-record", z.duplicate_central(weights[0]))
    grown = weights[0].size + 64  # STORED sizes that reach into the next entry's header
    add("overlap-grown", Zip(z.set_central(weights[0], "csize", grown)).set_central(weights[0], "size", grown))
    add("truncated-half", data[: len(data) // 2])
    add("truncated-end", data[:-1])
    add("bad-cd-offset", z.set_eocd("cd_offset", z.cd_offset + 1))
    add("bad-header-offset", z.set_central(model_json, "header_offset", len(data) + 100))
    add("bad-count", z.set_eocd("count", z.count + 1))
    return out


def nested_cases(ctx: Context, stem: str) -> list[Case]:
    """torch.save zips inside: flip a bit inside the nested zip's weight record."""
    data = ctx.sample(stem).read_bytes()
    z = Zip(data)
    outer = z.find("serialized_state_dict.pt" if "2_7" in stem else "data/weights/model.pt")
    inner = Zip(data[outer.data_offset: outer.data_offset + outer.size])
    record = [e for e in inner.entries if e.name.split("/")[-1].isdigit()][0]
    b = bytearray(data)
    b[outer.data_offset + record.data_offset] ^= 0x01
    p1 = ctx.put(f"{stem}.crc-nested-weight.pt2", bytes(b))
    pickle = inner.find("data.pkl")
    b = bytearray(data)
    b[outer.data_offset + pickle.data_offset + 3] ^= 0x01
    p2 = ctx.put(f"{stem}.crc-nested-pickle.pt2", bytes(b))
    return [Case("zip structure", f"{stem}:crc-nested-weight", p1, 3, p1.name),
            Case("zip structure", f"{stem}:crc-nested-pickle", p2, 3, p2.name)]


def deflate_cases(ctx: Context) -> list[Case]:
    """Every sample re-zipped with DEFLATE converts (CRCs checked through inflation); a flipped
    compressed bit does not."""
    out = []
    for stem in RAW + NESTED:
        entries = [(n, d, zipfile.ZIP_DEFLATED) for n, d, _ in read_entries(ctx.sample(stem))]
        blob = write_zip(entries)
        path = ctx.put(f"{stem}.deflated.pt2", blob)
        out.append(Case("deflate", f"{stem}:deflated", path, 0))
        if stem in RAW:
            z = Zip(blob)
            w = weight_entries(z)[0]
            bad = ctx.put(f"{stem}.deflated-flip.pt2", z.flip_data_bit(w, 0.5))
            out.append(Case("deflate", f"{stem}:deflated-flip", bad, 3, bad.name))
    return out


def bomb_cases(ctx: Context) -> list[Case]:
    mlp = ctx.sample("mlp.default")
    entries = read_entries(mlp)
    root = entries[0][0].split("/")[0]
    json_name = f"{root}/models/model.json"
    others = [(n, d) for n, d, _ in entries if n != json_name]
    out = []

    # 7 KB of DEFLATE declaring a 4 GB model JSON.
    small = deflate_spaces(64 << 20)[:7000]
    p = ctx.put("bomb-declared-4g.pt2", raw_deflate_zip(json_name, small, 0xFFFFFFF0, 0, others))
    out.append(Case("bombs", "declared-4g-json", p, 3, "--limit inflate-ratio=N"))
    # 256 MiB of JSON spaces in ~250 kB, sizes honest (issue 11 had 3 GiB in 3 MB).
    n = 256 << 20
    body = deflate_spaces(n)
    crc = 0
    block = b" " * (1 << 20)
    for _ in range(n >> 20):
        crc = zlib.crc32(block, crc)
    p = ctx.put("bomb-spaces.pt2", raw_deflate_zip(json_name, body, n, crc, others))
    out.append(Case("bombs", "spaces-json", p, 3, "--limit inflate-ratio=N"))
    out.append(Case("bombs", "spaces-ratio-raised", p, 3, "--limit entry-bytes=N",
                    args=["{in}", "-o", "{out}", "--max-inflate-ratio", "5000", "--max-entry-bytes", "100000000"]))
    # Both raised: inflated (CRC checked) into memory under the cap, then refused as JSON.
    out.append(Case("bombs", "spaces-all-raised", p, 3, p.name,
                    args=["{in}", "-o", "{out}", "--max-inflate-ratio", "5000"], timeout=60))
    # A declared size far below the stream's: only the declared bytes are read, the CRC fails.
    p = ctx.put("bomb-understated.pt2", raw_deflate_zip(json_name, body, 1000, 0x1234, others))
    out.append(Case("bombs", "understated-size", p, 3, p.name))
    # A weight declaring 2 GB in a few kB.
    wname = f"{root}/data/weights/weight_0"
    wothers = [(nm, d) for nm, d, _ in entries if nm != wname]
    p = ctx.put("bomb-weight.pt2", raw_deflate_zip(wname, small, 2_000_000_000, 0, wothers))
    out.append(Case("bombs", "weight-2g", p, 3, "--limit inflate-ratio=N"))
    # A nested torch.save zip declaring 3 GB.
    nested = read_entries(ctx.sample("mlp.default.torch2_8"))
    nroot = nested[0][0].split("/")[0]
    nname = f"{nroot}/data/weights/model.pt"
    p = ctx.put("bomb-nested.pt2", raw_deflate_zip(nname, small, 3_000_000_000, 0,
                                                    [(nm, d) for nm, d, _ in nested if nm != nname]))
    out.append(Case("bombs", "nested-zip-3g", p, 3, "--limit inflate-ratio=N"))
    # The entry cap on an honest archive, and the ratio on an honest re-zip with a tiny limit.
    out.append(Case("bombs", "entry-cap-1000", mlp, 3, "--limit entry-bytes=N",
                    args=["{in}", "-o", "{out}", "--max-entry-bytes", "1000"]))
    # An honest DEFLATE JSON over 1 MiB (whitespace of four kinds inflates ~4x): converts under
    # the default ratio, refused under --max-inflate-ratio 2.
    rng = random.Random(11)
    pad = "".join(rng.choice(" \t\r\n") for _ in range(2 << 20)).encode()
    big = [(nm, d + pad if nm == json_name else d, zipfile.ZIP_DEFLATED if nm == json_name else zipfile.ZIP_STORED)
           for nm, d, _ in entries]
    p = ctx.put("padded-json-deflate.pt2", write_zip(big))
    out.append(Case("bombs", "ratio-limit-honest", p, 3, "--limit inflate-ratio=N",
                    args=["{in}", "-o", "{out}", "--max-inflate-ratio", "2"]))
    out.append(Case("bombs", "ratio-default-honest", p, 0))
    # One table of limits: --limit NAME=N and the older flags are the same limit, for inspect too.
    out.append(Case("bombs", "ratio-limit-spelt-limit", p, 3, "--limit inflate-ratio=N",
                    args=["{in}", "-o", "{out}", "--limit", "inflate-ratio=2"]))
    out.append(Case("bombs", "entry-cap-spelt-limit", mlp, 3, "--limit entry-bytes=N",
                    args=["{in}", "-o", "{out}", "--limit", "entry-bytes=1000"]))
    out.append(Case("bombs", "entry-cap-inspect", mlp, 3, "--limit entry-bytes=N",
                    args=["inspect", "{in}", "--limit", "entry-bytes=1000"], outputs=()))
    out.append(Case("bombs", "entry-cap-inspect-alias", mlp, 3, "--limit entry-bytes=N",
                    args=["inspect", "{in}", "--max-entry-bytes", "1000"], outputs=()))
    out.append(Case("bombs", "spaces-inspect", ctx.inputs / "bomb-spaces.pt2", 3, "--limit inflate-ratio=N",
                    args=["inspect", "{in}"], outputs=()))
    out.append(Case("bombs", "limit-alias-zero", mlp, 2, "--max-entry-bytes",
                    args=["{in}", "-o", "{out}", "--max-entry-bytes", "0"]))
    out.append(Case("bombs", "limit-unknown-name", mlp, 2, "--limit",
                    args=["{in}", "-o", "{out}", "--limit", "entry-byte=5"]))
    return out


def input_kind_cases(ctx: Context) -> list[Case]:
    fifo = ctx.fifo("input.fifo")
    link = ctx.inputs / "fifo-link.pt2"
    if not link.is_symlink():
        os.symlink(fifo, link)
    folder = ctx.inputs / "a-folder.pt2"
    folder.mkdir(exist_ok=True)
    empty = ctx.put("empty.pt2", b"")
    return [
        Case("input kinds", "fifo", fifo, 3, "input.fifo", timeout=10),
        Case("input kinds", "symlink-to-fifo", link, 3, "fifo-link.pt2", timeout=10),
        Case("input kinds", "char-device", ctx.inputs.parent / "dev-zero-link", 3, "dev-zero-link", timeout=10),
        Case("input kinds", "directory", folder, 3, "a-folder.pt2"),
        Case("input kinds", "empty", empty, 3, "empty.pt2"),
        Case("input kinds", "missing", ctx.inputs / "missing.pt2", 3, "missing.pt2"),
    ]


def cases(ctx: Context) -> list[Case]:
    dev = ctx.inputs.parent / "dev-zero-link"
    if not dev.is_symlink():
        os.symlink("/dev/zero", dev)
    out = []
    for stem in RAW:
        out += structure_cases(ctx, stem)
    for stem in NESTED:
        out += nested_cases(ctx, stem)
    return out + deflate_cases(ctx) + bomb_cases(ctx) + input_kind_cases(ctx)

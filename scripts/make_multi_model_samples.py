#!/usr/bin/env python3
"""Regenerates samples/multi/: one archive holding several models that share weights.

`prefill_decode.pt2` is a tiny seeded language model saved as two programs by torch's package
API (`package_pt2(f, exported_programs={"prefill": ..., "decode": ...})`): `prefill` reads the
prompt's token ids [B, S] and returns logits [B, S, V] and the last hidden state [B, D]; `decode`
reads one token id [B, 1] and that state and returns the next logits [B, V] and the new state.
Both use the same embedding, layers and LM head; decode alone has a state gate. torch writes
each program's weights separately (the shared ones twice). `prefill_decode.io.npz` holds, per
model, `<model>_input_<i>` and torch eager's `<model>_output_<i>`; `multi.json` lists them.

Run with the torch 2.15 venv (`scripts/torch_venv.sh 2.15`)."""
from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import torch
from torch.export.pt2_archive._package import package_pt2

OUT = Path(__file__).resolve().parent.parent / "samples" / "multi"
VOCAB, DIM, LAYERS = 64, 32, 2


class Core(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, DIM)
        self.layers = torch.nn.ModuleList(torch.nn.Linear(DIM, DIM) for _ in range(LAYERS))
        self.norm = torch.nn.LayerNorm(DIM)
        self.head = torch.nn.Linear(DIM, VOCAB, bias=False)

    def hidden(self, x):
        for layer in self.layers:
            x = x + torch.nn.functional.gelu(layer(x))
        return self.norm(x)


class Prefill(torch.nn.Module):
    def __init__(self, core):
        super().__init__()
        self.core = core

    def forward(self, tokens):
        h = self.core.hidden(self.core.embed(tokens))
        return self.core.head(h), h[:, -1]


class Decode(torch.nn.Module):
    def __init__(self, core):
        super().__init__()
        self.core = core
        self.gate = torch.nn.Linear(2 * DIM, DIM)

    def forward(self, token, state):
        x = self.core.embed(token)[:, 0]
        x = x + torch.sigmoid(self.gate(torch.cat([x, state], dim=-1))) * state
        h = self.core.hidden(x)
        return self.core.head(h), h


def main():
    torch.manual_seed(0)
    core = Core().eval()
    prefill, decode = Prefill(core).eval(), Decode(core).eval()
    batch = torch.export.Dim("batch", min=1, max=16)
    seq = torch.export.Dim("seq", min=2, max=64)
    tokens = torch.randint(0, VOCAB, (2, 5))
    with torch.no_grad():
        logits, state = prefill(tokens)
        token = logits[:, -1:].argmax(-1)
        step_logits, step_state = decode(token, state)
    programs = {
        "prefill": torch.export.export(prefill, (tokens,), dynamic_shapes=({0: batch, 1: seq},)),
        "decode": torch.export.export(decode, (token, state), dynamic_shapes=({0: batch}, {0: batch})),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    pt2 = OUT / "prefill_decode.pt2"
    package_pt2(str(pt2), exported_programs=programs)
    arrays = {"prefill_input_0": tokens.numpy(), "prefill_output_0": logits.numpy(), "prefill_output_1": state.numpy(),
              "decode_input_0": token.numpy(), "decode_input_1": state.numpy(),
              "decode_output_0": step_logits.numpy(), "decode_output_1": step_state.numpy()}
    np.savez(OUT / "prefill_decode.io.npz", **arrays)
    shared = sorted(k for k in core.state_dict())
    with zipfile.ZipFile(pt2) as z:
        entries = [{"name": i.filename, "size": i.file_size} for i in z.infolist() if "/data/weights/weight_" in i.filename]
    manifest = {"samples": {"prefill_decode": {
        "file": pt2.name, "io_file": "prefill_decode.io.npz", "models": sorted(programs),
        "torch_version": torch.__version__, "sha256": hashlib.sha256(pt2.read_bytes()).hexdigest(),
        "shared_weights": ["core." + k for k in shared], "weight_entries": entries}}}
    (OUT / "multi.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {pt2} ({pt2.stat().st_size} bytes, {len(entries)} weight entries)")


if __name__ == "__main__":
    main()

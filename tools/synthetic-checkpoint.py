#!/usr/bin/python3
"""A synthetic Llama-3.1-shaped checkpoint for the README's `posenc usage` figures.

    tools/synthetic-checkpoint.py FOLDER

Writes FOLDER/config.json (a Llama 3.1 config cut down to 16 layers, 8 query heads on
2 key heads of width 64, rope_theta 500000, llama3 scaling) and FOLDER/model.safetensors
(BF16 q_proj and k_proj only) whose usage is planted: in layer l a bump of weight over
the pairs near i = l (high frequencies move to middle ones with depth), and in every layer
large norms on the last pairs (the lowest frequencies), over a floor of 0.4. It is NOT a
trained model: it shows what the figures draw, not what real models do.
Deterministic (numpy's PCG64, seed 1). The safetensors layout is the format's own: an
8-byte little-endian header length, the JSON header, the raw data."""
import json
import os
import struct
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
L, H, KV, hd, hidden = 16, 8, 2, 64, 256
cfg = {"model_type": "llama", "hidden_size": hidden, "num_attention_heads": H,
       "num_key_value_heads": KV, "head_dim": hd, "num_hidden_layers": L,
       "max_position_embeddings": 131072, "rope_theta": 500000.0,
       "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                        "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
with open(os.path.join(out, "config.json"), "w") as f:
    json.dump(cfg, f, indent=1)

rng = np.random.default_rng(1)
pairs = hd // 2
tensors = {}
for l in range(L):
    i = np.arange(pairs)
    bump = 0.4 + 1.2 * np.exp(-((i - l) ** 2) / 8.0) + 2.0 * (i / (pairs - 1)) ** 8
    per_row = np.concatenate([bump, bump])  # half layout: pair i is rows i and i + 32
    for name, heads in (("q_proj", H), ("k_proj", KV)):
        w = rng.standard_normal((heads * hd, hidden)) * np.tile(per_row, heads)[:, None] / 16
        tensors[f"model.layers.{l}.self_attn.{name}.weight"] = w.astype(np.float32)

header, blobs, at = {}, [], 0
for name, a in tensors.items():
    b = (a.view("<u4") >> 16).astype("<u2").tobytes()  # bfloat16: the top half of float32
    header[name] = {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [at, at + len(b)]}
    blobs.append(b)
    at += len(b)
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
with open(os.path.join(out, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

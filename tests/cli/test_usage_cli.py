#!/usr/bin/env python3
"""posenc usage: RoPE frequency usage from q/k weights, on checkpoints written here
(st_write.py) for small random models of several architectures, each with a planted
usage, against an independent numpy computation written from transformers' modeling
code: the projection's rows viewed as the model views them (LlamaAttention
q_proj(x).view(..., heads, head_dim); Phi3's qkv_proj split [q | k | v]; GPT-NeoX's
query_key_value viewed (heads, 3 * head_size); DeepseekV3's q_b_proj viewed
(heads, nope + rope) and kv_a_proj_with_mqa split [kv_lora_rank | rope]), the pairs as
rotate_half (i, i + d/2) or rotate_every_two (2i, 2i + 1) pair them, repeat_kv's key
head h // n_rep, q_norm/k_norm scaling the coordinates (Gemma3RMSNorm: 1 + weight).
Bounded memory: a 3 GiB sparse checkpoint read within --max-memory 64M."""
import csv
import json
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, require_numpy, run, skip, workdir  # noqa: E402

np = require_numpy("posenc usage against numpy")

import st_write  # noqa: E402
from usage_ref import compare, pair_norms, pairs_of, usage_rows  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
with open(EXE, "rb") as f:
    _image = f.read()
SANITIZED = b"__asan_init" in _image or b"__ubsan_handle" in _image
rng = np.random.default_rng(27)


def path(name):
    return os.path.join(TMP, name)


def config(name, cfg):
    p = path(name + ".json")
    with open(p, "w") as f:
        json.dump(cfg, f)
    return p


def table(cfgpath, weights, *extra):
    """posenc usage's CSV as {(layer, head, pair): row} and the run."""
    return usage_rows(EXE, "-s", "hf:" + cfgpath, "--weights", weights, *extra)


def plant_first_pairs(Wh, pairs, keep):
    """Zero every row of one head except those of pairs 0..keep-1."""
    live = {c for p in pairs[:keep] for c in p}
    for j in range(Wh.shape[0]):
        if j not in live:
            Wh[j] = 0.0


# ---- Llama: half layout, grouped-query heads, BF16, planted head ----------------------
hidden, H, KV, hd, L = 64, 4, 2, 16, 2
cfg_llama = config("llama", {"model_type": "llama", "hidden_size": hidden,
                             "num_attention_heads": H, "num_key_value_heads": KV,
                             "head_dim": hd, "num_hidden_layers": L,
                             "max_position_embeddings": 4096, "rope_theta": 10000.0})
tensors, Wq, Wk = {}, [], []
for l in range(L):
    q = rng.standard_normal((H * hd, hidden)).astype(np.float32)
    k = rng.standard_normal((KV * hd, hidden)).astype(np.float32)
    if l == 1:  # head 2 of layer 1 uses only pairs 0..3 (rows 0-3 and 8-11 of the head)
        plant_first_pairs(q[2 * hd:3 * hd], pairs_of(hd, False), 4)
    tensors[f"model.layers.{l}.input_layernorm.weight"] = np.ones(hidden, np.float32)
    tensors[f"model.layers.{l}.self_attn.q_proj.weight"] = q
    tensors[f"model.layers.{l}.self_attn.k_proj.weight"] = k
    tensors[f"model.layers.{l}.self_attn.v_proj.weight"] = k
    Wq.append(st_write.stored(q, "BF16"))
    Wk.append(st_write.stored(k, "BF16"))
tensors["model.embed_tokens.weight"] = rng.standard_normal((10, hidden)).astype(np.float32)
st_write.write(path("llama.safetensors"), tensors, "BF16")
half = pairs_of(hd, False)
ref_q = [[pair_norms(Wq[l].reshape(H, hd, hidden)[h], half) for h in range(H)] for l in range(L)]
ref_k = [[pair_norms(Wk[l].reshape(KV, hd, hidden)[h // (H // KV)], half) for h in range(H)]
         for l in range(L)]
r, rows = table(cfg_llama, path("llama.safetensors"))
ok(r.rc == 0, "llama: runs", r.err)
compare("llama (half, GQA 4 on 2, BF16)", rows, ref_q, ref_k)
planted = [float(rows[(1, 2, i)]["q"]) for i in range(hd // 2)] if rows else []
ok(len(planted) == 8 and all(v > 0 for v in planted[:4]) and all(v == 0 for v in planted[4:]),
   "llama: the planted head uses pairs 0-3 only (half pairing: rows i and i+8)", planted)
ok(rows and all(int(rows[(0, h, 0)]["kv_head"]) == h // 2 for h in range(H)),
   "llama: query head h uses key head h/2")
ok("query head h uses key head h/2" in r.err and "pairs (i, i+8)" in r.err
   and "proxy" in r.err, "llama: stderr says the pairing, the grouping and the limits", r.err)
# The config read once: from standard input (a second opening would find it empty)
with open(cfg_llama, "rb") as f:
    rs = run(EXE, "usage", "-s", "hf:/dev/stdin", "--weights", path("llama.safetensors"), "-o", "-",
             stdin=f)
ok(rs.rc == 0 and rs.text == r.text, "usage reads its config once: hf:/dev/stdin", rs.err)
# The same weights read as interleaved would put the planted head's weight in pairs 0, 1, 4, 5.
inter = pair_norms(Wq[1].reshape(H, hd, hidden)[2], pairs_of(hd, True))
ok(np.count_nonzero(inter) != 4 or list(np.nonzero(inter)[0]) != [0, 1, 2, 3],
   "llama: the planted pattern tells the pairings apart")

# NPY: the [layers, heads, pairs] array of each quantity.
for qn, ref in (("q", ref_q), ("k", ref_k)):
    r = run(EXE, "usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"),
            "--quantity", qn, "-o", path(f"llama-{qn}.npy"))
    a = np.load(path(f"llama-{qn}.npy")) if r.rc == 0 else None
    ok(a is not None and a.shape == (L, H, hd // 2) and np.allclose(a, np.array(ref), rtol=1e-12,
                                                                     atol=0),
       f"llama: NPY of {qn} is the [layers, heads, pairs] array", r.err)
r = run(EXE, "usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"),
        "-o", path("llama-qk.npy"))
a = np.load(path("llama-qk.npy")) if r.rc == 0 else None
ok(a is not None and np.allclose(a, np.array(ref_q) * np.array(ref_k), rtol=1e-12, atol=0),
   "llama: NPY of qk is q times k")

# ---- the same model sharded, with an index ---------------------------------------------
names = list(tensors)
shard1 = {n: tensors[n] for n in names if ".0." in n or "embed" in n}
shard2 = {n: tensors[n] for n in names if n not in shard1}
st_write.write(path("model-00001-of-00002.safetensors"), shard1, "BF16")
st_write.write(path("model-00002-of-00002.safetensors"), shard2, "BF16")
wm = {n: "model-00001-of-00002.safetensors" for n in shard1}
wm.update({n: "model-00002-of-00002.safetensors" for n in shard2})
with open(path("model.safetensors.index.json"), "w") as f:
    json.dump({"metadata": {"total_size": 0}, "weight_map": wm}, f)
r, rows2 = table(cfg_llama, path("model.safetensors.index.json"))
ok(r.rc == 0 and rows2 == table(cfg_llama, path("llama.safetensors"))[1],
   "sharded index: the same numbers as the single file", r.err)
ok("2 files" in r.err, "sharded index: both shards read", r.err)
bad = dict(wm)
bad[names[0]] = "../elsewhere.safetensors"
with open(path("bad.index.json"), "w") as f:
    json.dump({"weight_map": bad}, f)
error_case(EXE, "index naming a file outside its folder",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("bad.index.json")], 1,
           "not a file name in the index's folder")
bad = dict(wm)
bad[next(iter(shard2))] = "model-00001-of-00002.safetensors"
with open(path("bad2.index.json"), "w") as f:
    json.dump({"weight_map": bad}, f)
error_case(EXE, "index naming the wrong shard",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("bad2.index.json")], 1,
           "the index says")

# a stray layers.99 tensor: the gap is named, not "every layer 0..N-1"
gap = dict(tensors)
gap["model.layers.9.self_attn.q_proj.weight"] = tensors["model.layers.0.self_attn.q_proj.weight"]
st_write.write(path("gap.safetensors"), gap, "BF16")
error_case(EXE, "a layer index past a gap",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("gap.safetensors")], 1,
           "layers 0..9 are named, but layer 2 has no query and key projections")
error_case(EXE, "two models", ["usage", "-s", "hf:" + cfg_llama, "-s", "hf:" + cfg_llama,
                               "--weights", path("llama.safetensors")], 2,
           "usage reads one model's weights: give one -s (2 given)")

# ---- Qwen 2: biases, F16 -----------------------------------------------------------------
cfg_qwen = config("qwen", {"model_type": "qwen2", "hidden_size": hidden, "num_attention_heads": H,
                           "num_key_value_heads": 1, "num_hidden_layers": 1,
                           "max_position_embeddings": 32768, "rope_theta": 1000000.0})
q = rng.standard_normal((H * hd, hidden)).astype(np.float32)
k = rng.standard_normal((hd, hidden)).astype(np.float32)
qb = (rng.standard_normal(H * hd) * 5).astype(np.float32)
kb = (rng.standard_normal(hd) * 5).astype(np.float32)
st_write.write(path("qwen.safetensors"), {
    "model.layers.0.self_attn.q_proj.weight": q, "model.layers.0.self_attn.q_proj.bias": qb,
    "model.layers.0.self_attn.k_proj.weight": k, "model.layers.0.self_attn.k_proj.bias": kb},
    "F16")
q64, k64 = st_write.stored(q, "F16"), st_write.stored(k, "F16")
qb64, kb64 = st_write.stored(qb, "F16"), st_write.stored(kb, "F16")
ref_q = [[pair_norms(q64.reshape(H, hd, hidden)[h], half) for h in range(H)]]
ref_k = [[pair_norms(k64, half) for h in range(H)]]
r, rows = table(cfg_qwen, path("qwen.safetensors"))
compare("qwen2 (F16, 4 heads on 1 key head, biases left out)", rows, ref_q, ref_k)
ok("biases present, left out" in r.err, "qwen2: says the biases are left out", r.err)
qa = np.concatenate([q64, qb64[:, None]], axis=1)
ka = np.concatenate([k64, kb64[:, None]], axis=1)
ref_q = [[pair_norms(qa.reshape(H, hd, hidden + 1)[h], half) for h in range(H)]]
ref_k = [[pair_norms(ka, half) for h in range(H)]]
r, rows = table(cfg_qwen, path("qwen.safetensors"), "--fold-bias")
compare("qwen2 --fold-bias (the bias as one more column)", rows, ref_q, ref_k)

# ---- Gemma 3: q_norm/k_norm (1 + weight), local and global layers --------------------------
cfg_gemma = config("gemma", {"model_type": "gemma3_text", "hidden_size": hidden,
                             "num_attention_heads": H, "num_key_value_heads": KV, "head_dim": hd,
                             "num_hidden_layers": 2, "max_position_embeddings": 4096,
                             "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
                             "sliding_window": 512,
                             "layer_types": ["sliding_attention", "full_attention"]})
tensors, ref_q, ref_k = {}, [], []
for l in range(2):
    q = rng.standard_normal((H * hd, hidden)).astype(np.float32)
    k = rng.standard_normal((KV * hd, hidden)).astype(np.float32)
    qn = rng.standard_normal(hd).astype(np.float32)
    kn = rng.standard_normal(hd).astype(np.float32)
    if l == 0:  # pairs 0-3 of head 1 carry all; and q_norm silences pair 5 of every head
        plant_first_pairs(q[hd:2 * hd], half, 4)
        qn[5] = qn[13] = -1.0  # 1 + w = 0 on both coordinates of pair 5
    p = f"language_model.model.layers.{l}.self_attn."
    tensors.update({p + "q_proj.weight": q, p + "k_proj.weight": k, p + "q_norm.weight": qn,
                    p + "k_norm.weight": kn})
    # a vision tower with the same names under another prefix must be ignored
    tensors[f"vision_tower.encoder.layers.{l}.self_attn.q_proj.weight"] = q[:16]
    tensors[f"vision_tower.encoder.layers.{l}.self_attn.k_proj.weight"] = q[:16]
    ref_q.append([pair_norms(q.astype(np.float64).reshape(H, hd, hidden)[h], half,
                             1.0 + qn.astype(np.float64)) for h in range(H)])
    ref_k.append([pair_norms(k.astype(np.float64).reshape(KV, hd, hidden)[h // 2], half,
                             1.0 + kn.astype(np.float64)) for h in range(H)])
st_write.write(path("gemma.safetensors"), tensors, "F32")
r, rows = table(cfg_gemma, path("gemma.safetensors"))
compare("gemma3 (q_norm/k_norm as 1 + w, under language_model.)", rows, ref_q, ref_k)
ok(rows and all(float(rows[(0, h, 5)]["q"]) == 0 for h in range(H))
   and [float(rows[(0, 1, i)]["q"]) > 0 for i in range(8)] == [True] * 4 + [False] * 4,
   "gemma3: planted pairs and the norm's zero found")
ok("1 + w" in r.err, "gemma3: says the norms are folded in as 1 + w", r.err)
ok(rows and rows[(0, 0, 1)]["wavelength"] != rows[(1, 0, 1)]["wavelength"],
   "gemma3: local and global layers have their own frequencies")

# ---- Gemma 4: local heads of 16, global heads of 32 with proportional RoPE, q_norm as w -------
cfg_g4 = config("gemma4", {"model_type": "gemma4", "text_config": {
    "model_type": "gemma4_text", "head_dim": 16, "global_head_dim": 32, "hidden_size": hidden,
    "num_attention_heads": H, "num_key_value_heads": 2, "num_global_key_value_heads": 1,
    "num_hidden_layers": 2, "max_position_embeddings": 8192,
    "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 1024,
    "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1e6,
                                           "rope_type": "proportional"},
                        "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}})
tensors, ref_q, ref_k = {}, [], []
for l, (w, kvh) in enumerate(((16, 2), (32, 1))):
    q = rng.standard_normal((H * w, hidden)).astype(np.float32)
    k = rng.standard_normal((kvh * w, hidden)).astype(np.float32)
    qn = rng.standard_normal(w).astype(np.float32)
    p = f"model.language_model.layers.{l}.self_attn."
    tensors.update({p + "q_proj.weight": q, p + "k_proj.weight": k, p + "q_norm.weight": qn})
    hp = pairs_of(w, False)
    ref_q.append([pair_norms(q.astype(np.float64).reshape(H, w, hidden)[h], hp,
                             qn.astype(np.float64)) for h in range(H)])
    ref_k.append([pair_norms(k.astype(np.float64).reshape(kvh, w, hidden)[h // (H // kvh)], hp)
                  for h in range(H)])
st_write.write(path("gemma4.safetensors"), tensors, "F32")
r, rows = table(cfg_g4, path("gemma4.safetensors"))
compare("gemma4 (heads of 16 and 32, 2 and 1 key heads, q_norm as w)", rows, ref_q, ref_k)
ok(rows and rows[(1, 0, 3)]["scaled_wavelength"] != "inf" and rows[(1, 0, 4)]["scaled_wavelength"] == "inf"
   and int(rows[(1, 0, 4)]["dim_b"]) == 20,
   "gemma4: proportional pairs past the turning 4 have frequency 0 but stay pairs (4, 20)")
r = run(EXE, "usage", "-s", "hf:" + cfg_g4, "--weights", path("gemma4.safetensors"), "-o",
        path("g4.npy"))
a = np.load(path("g4.npy")) if r.rc == 0 else None
ok(a is not None and a.shape == (2, H, 16) and np.isnan(a[0, :, 8:]).all()
   and not np.isnan(a[1]).any(), "gemma4: NPY pads the narrower layer with NaN", r.err)
r = run(EXE, "usage", "-s", "hf:" + cfg_g4, "--weights", path("gemma4.safetensors"),
        "--view", "wavelength", "-o", path("g4.png"))
ok(r.rc == 0 and "12 pairs of frequency 0" in r.err, "gemma4: the wavelength figure says what it "
   "leaves out", r.err)

# ---- SmolLM3: a layer without RoPE -------------------------------------------------------
cfg_smol = config("smol", {"model_type": "smollm3", "hidden_size": hidden, "num_attention_heads": H,
                           "num_key_value_heads": KV, "num_hidden_layers": 4,
                           "max_position_embeddings": 4096, "rope_theta": 10000.0,
                           "no_rope_layers": [1, 1, 1, 0]})
tensors = {}
for l in range(4):
    tensors[f"model.layers.{l}.self_attn.q_proj.weight"] = np.ones((H * hd, hidden), np.float32)
    tensors[f"model.layers.{l}.self_attn.k_proj.weight"] = np.ones((KV * hd, hidden), np.float32)
st_write.write(path("smol.safetensors"), tensors, "F32")
r, rows = table(cfg_smol, path("smol.safetensors"))
ok(r.rc == 0 and len(rows) == 3 * H * 8 and all(l < 3 for l, _, _ in rows)
   and float(rows[(0, 0, 0)]["q"]) == np.sqrt(2 * hidden), "smollm3: the NoPE layer has no pairs",
   r.err)
ok("1 layers without RoPE" in r.err, "smollm3: says so", r.err)

# ---- DeepSeek-V3: MLA rope part, interleaved ------------------------------------------------
nope, rope, kvl, ql = 16, 8, 12, 10
cfg_ds = config("ds", {"model_type": "deepseek_v3", "hidden_size": hidden, "num_attention_heads": H,
                       "num_key_value_heads": H, "num_hidden_layers": 1,
                       "max_position_embeddings": 4096, "rope_theta": 10000.0,
                       "qk_rope_head_dim": rope, "qk_nope_head_dim": nope, "v_head_dim": 16,
                       "kv_lora_rank": kvl, "q_lora_rank": ql})
qb_w = rng.standard_normal((H * (nope + rope), ql)).astype(np.float32)
kva = rng.standard_normal((kvl + rope, hidden)).astype(np.float32)
view = qb_w.reshape(H, nope + rope, ql)
view[3, nope:] = 0.0
view[3, nope + 0] = 1.0  # head 3: only pair 0 of the rope part (rows 0 and 1, interleaved)
view[3, nope + 1] = 2.0
qb_w = view.reshape(H * (nope + rope), ql)
p = "model.layers.0.self_attn."
st_write.write(path("ds.safetensors"), {
    p + "q_a_proj.weight": rng.standard_normal((ql, hidden)).astype(np.float32),
    p + "q_b_proj.weight": qb_w, p + "kv_a_proj_with_mqa.weight": kva,
    p + "kv_b_proj.weight": rng.standard_normal((H * 32, kvl)).astype(np.float32)}, "F32")
inter = pairs_of(rope, True)
ref_q = [[pair_norms(qb_w.astype(np.float64).reshape(H, nope + rope, ql)[h, nope:], inter)
          for h in range(H)]]
ref_k = [[pair_norms(kva.astype(np.float64)[kvl:], inter) for h in range(H)]]
r, rows = table(cfg_ds, path("ds.safetensors"))
compare("deepseek-v3 (rope part of q_b_proj and kv_a_proj_with_mqa, interleaved)", rows, ref_q,
        ref_k)
ok(rows and [float(rows[(0, 3, i)]["q"]) for i in range(4)] == [np.sqrt(1.0 * ql + 4.0 * ql), 0, 0, 0],
   "deepseek-v3: the planted pair 0 (rows 0 and 1 of the rope part)")

# ---- GPT-J: interleaved partial rotary ------------------------------------------------------
cfg_gptj = config("gptj", {"model_type": "gptj", "n_embd": hidden, "n_head": H, "rotary_dim": 8,
                           "n_layer": 1, "n_positions": 2048})
q = rng.standard_normal((H * hd, hidden)).astype(np.float32)
k = rng.standard_normal((H * hd, hidden)).astype(np.float32)
st_write.write(path("gptj.safetensors"), {"transformer.h.0.attn.q_proj.weight": q,
                                          "transformer.h.0.attn.k_proj.weight": k}, "F32")
ip = pairs_of(8, True)
ref_q = [[pair_norms(q.astype(np.float64).reshape(H, hd, hidden)[h], ip) for h in range(H)]]
ref_k = [[pair_norms(k.astype(np.float64).reshape(H, hd, hidden)[h], ip) for h in range(H)]]
r, rows = table(cfg_gptj, path("gptj.safetensors"))
compare("gpt-j (rotary_dim 8 of 16, pairs (2i, 2i+1))", rows, ref_q, ref_k)

# ---- GPT-NeoX: fused query_key_value per head, partial half ---------------------------------
cfg_neox = config("neox", {"model_type": "gpt_neox", "hidden_size": hidden,
                           "num_attention_heads": H, "rotary_pct": 0.5, "num_hidden_layers": 1,
                           "max_position_embeddings": 2048, "rotary_emb_base": 10000})
w = rng.standard_normal((3 * H * hd, hidden)).astype(np.float32)
st_write.write(path("neox.safetensors"), {"gpt_neox.layers.0.attention.query_key_value.weight": w},
               "F32")
v = w.astype(np.float64).reshape(H, 3 * hd, hidden)
hp = pairs_of(8, False)
ref_q = [[pair_norms(v[h, :hd], hp) for h in range(H)]]
ref_k = [[pair_norms(v[h, hd:2 * hd], hp) for h in range(H)]]
r, rows = table(cfg_neox, path("neox.safetensors"))
compare("gpt-neox (fused per head, rotary 8 of 16, half)", rows, ref_q, ref_k)

# ---- Falcon: query_key_value per key head [its query heads | k | v], and multi-query --------
cfg_falcon = config("falcon", {"model_type": "falcon", "hidden_size": hidden, "num_attention_heads": H,
                               "num_kv_heads": KV, "new_decoder_architecture": True,
                               "num_hidden_layers": 1, "max_position_embeddings": 2048,
                               "rope_theta": 10000.0, "alibi": False})
w = rng.standard_normal(((H + 2 * KV) * hd, hidden)).astype(np.float32)
st_write.write(path("falcon.safetensors"),
               {"transformer.h.0.self_attention.query_key_value.weight": w}, "F32")
# FalconAttention._split_heads: view(..., -1, heads // kv + 2, head_dim); q = [:, :-2], k = [-2]
v = w.astype(np.float64).reshape(KV, H // KV + 2, hd, hidden)
ref_q = [[pair_norms(v[h // 2, h % 2], half) for h in range(H)]]
ref_k = [[pair_norms(v[h // 2, -2], half) for h in range(H)]]
r, rows = table(cfg_falcon, path("falcon.safetensors"))
compare("falcon new_decoder_architecture (per key head [q, q, k, v])", rows, ref_q, ref_k)
cfg_falcon7 = config("falcon7", {"model_type": "falcon", "hidden_size": hidden,
                                 "num_attention_heads": H, "multi_query": True,
                                 "num_hidden_layers": 1, "max_position_embeddings": 2048,
                                 "rope_theta": 10000.0, "alibi": False})
w = rng.standard_normal(((H + 2) * hd, hidden)).astype(np.float32)
st_write.write(path("falcon7.safetensors"),
               {"transformer.h.0.self_attention.query_key_value.weight": w}, "F32")
v = w.astype(np.float64).reshape(H + 2, hd, hidden)  # view(..., heads + 2, head_dim)
ref_q = [[pair_norms(v[h], half) for h in range(H)]]
ref_k = [[pair_norms(v[-2], half) for h in range(H)]]
r, rows = table(cfg_falcon7, path("falcon7.safetensors"))
compare("falcon multi_query ([q heads | k | v])", rows, ref_q, ref_k)

# ---- Phi-3: fused qkv_proj [q | k | v] with GQA ---------------------------------------------
cfg_phi = config("phi3", {"model_type": "phi3", "hidden_size": hidden, "num_attention_heads": H,
                          "num_key_value_heads": KV, "num_hidden_layers": 1,
                          "max_position_embeddings": 4096, "rope_theta": 10000.0})
w = rng.standard_normal(((H + 2 * KV) * hd, hidden)).astype(np.float32)
st_write.write(path("phi3.safetensors"), {"model.layers.0.self_attn.qkv_proj.weight": w}, "F32")
w64 = w.astype(np.float64)
qpart, kpart = w64[:H * hd].reshape(H, hd, hidden), w64[H * hd:(H + KV) * hd].reshape(KV, hd, hidden)
ref_q = [[pair_norms(qpart[h], half) for h in range(H)]]
ref_k = [[pair_norms(kpart[h // 2], half) for h in range(H)]]
r, rows = table(cfg_phi, path("phi3.safetensors"))
compare("phi-3 (fused qkv_proj [q | k | v], GQA)", rows, ref_q, ref_k)

cfg_noheads = config("noheads", {"model_type": "phi3", "hidden_size": hidden, "head_dim": hd,
                                 "num_hidden_layers": 1, "max_position_embeddings": 4096})
error_case(EXE, "a fused tensor without num_attention_heads in the config",
           ["usage", "-s", "hf:" + cfg_noheads, "--weights", path("phi3.safetensors"), "-o", "-"],
           1, "num_attention_heads is missing")

# ---- activations: [layers, heads, head_dim] drawn with the same pairing ---------------------
act = rng.random((L, H, hd))
np.save(path("act.npy"), act)
r, rows = table(cfg_llama, path("llama.safetensors"), "--activations", path("act.npy"))
want = np.sqrt(np.array([[[act[l, h, a] ** 2 + act[l, h, b] ** 2 for a, b in half]
                          for h in range(H)] for l in range(L)]))
got = np.array([[[float(rows[(l, h, i)]["activation"]) for i in range(8)] for h in range(H)]
                for l in range(L)]) if rows else None
ok(got is not None and np.allclose(got, want, rtol=1e-14, atol=0),
   "activations: per coordinate, paired (i, i+8) as the weights", r.err)
np.save(path("act-pairs.npy"), act[:, :, :8])
r, rows = table(cfg_llama, path("llama.safetensors"), "--activations", path("act-pairs.npy"))
ok(rows and float(rows[(1, 3, 7)]["activation"]) == act[1, 3, 7],
   "activations: per pair, taken as they are", r.err)
kact = rng.random((L, KV, hd))
np.save(path("act-k.npy"), kact)
r, rows = table(cfg_llama, path("llama.safetensors"), "--activations", path("act-k.npy"))
want = np.sqrt(np.array([[[kact[l, h // 2, a] ** 2 + kact[l, h // 2, b] ** 2 for a, b in half]
                          for h in range(H)] for l in range(L)]))
got = np.array([[[float(rows[(l, h, i)]["activation"]) for i in range(8)] for h in range(H)]
                for l in range(L)]) if rows else None
ok(got is not None and np.allclose(got, want, rtol=1e-14, atol=0),
   "activations of the key heads: query head h gets key head h/2", r.err)
np.save(path("act-bad.npy"), act[:, :3])
error_case(EXE, "activations of another head count",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"),
            "--activations", path("act-bad.npy"), "-o", "-"], 1, "heads")

# ---- figures -----------------------------------------------------------------------------
for args, what in ((["-o", "u.png"], "frequency usage heatmap"),
                   (["--view", "wavelength", "-o", "w.png"], "frequency usage curves"),
                   (["--head", "2", "--quantity", "q", "-o", "h.svg"], "frequency usage heatmap"),
                   (["--activations", path("act.npy"), "-o", "a.png"], "frequency usage heatmap"),
                   (["--activations", path("act.npy"), "--view", "wavelength", "-o", "aw.pdf"],
                    "frequency usage curves")):
    r = run(EXE, "usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"),
            *args, cwd=TMP)
    ok(r.rc == 0 and f"({what})" in r.err and os.path.getsize(path(args[-1])) > 1000,
       f"figure {' '.join(args)}", r.err)

r = run(EXE, "usage", "-s", "hf:" + cfg_gemma, "--weights", path("gemma.safetensors"), "--view",
        "wavelength", "--layer", "global", "-o", path("gl.png"))
ok(r.rc == 0 and os.path.getsize(path("gl.png")) > 1000, "figure --layer global (one group)", r.err)
r = run(EXE, "usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"), "--view",
        "wavelength", "--layer", "1", "--head", "2", "-o", path("l1.png"))
ok(r.rc == 0 and os.path.getsize(path("l1.png")) > 1000, "figure --layer 1 --head 2", r.err)
error_case(EXE, "--layer past the last layer",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"), "--view",
            "wavelength", "--layer", "2", "-o", path("x.png")], 2, "--layer")
error_case(EXE, "--layer naming no group",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"), "--view",
            "wavelength", "--layer", "local", "-o", path("x.png")], 2, "no layer index or layer group")
error_case(EXE, "--layer with the heatmap",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"), "--layer", "1"],
           2, "--view wavelength")

# ---- errors ------------------------------------------------------------------------------
error_case(EXE, "no --weights", ["usage", "-s", "hf:" + cfg_llama], 2, "--weights")
error_case(EXE, "no model", ["usage", "--weights", path("llama.safetensors")], 2, "which model")
error_case(EXE, "a plain spec", ["usage", "-s", "rope", "--weights", path("llama.safetensors")],
           2, "config")
cfg_wide = config("wide", {"model_type": "llama", "hidden_size": hidden, "num_attention_heads": H,
                           "num_key_value_heads": KV, "head_dim": 32, "num_hidden_layers": L})
error_case(EXE, "weights of another model (head_dim 32: 2 heads, the config says 4)",
           ["usage", "-s", "hf:" + cfg_wide, "--weights", path("llama.safetensors"), "-o", "-"],
           1, "rows")
error_case(EXE, "weights of another model (1 layer, the checkpoint has 2)",
           ["usage", "-s", "hf:" + cfg_qwen, "--weights", path("llama.safetensors"), "-o", "-"],
           1, "layers")
error_case(EXE, "no attention tensors",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("act.npy"), "-o", "-"], 1,
           "no layers with query and key")
error_case(EXE, "missing weights file",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("nothing.safetensors")], 1,
           "No such file")
error_case(EXE, "bad --quantity", ["usage", "-s", "hf:" + cfg_llama, "--weights", "x",
                                   "--quantity", "v"], 2, "--quantity")
error_case(EXE, "head out of range",
           ["usage", "-s", "hf:" + cfg_llama, "--weights", path("llama.safetensors"),
            "--head", "9", "-o", path("x.png")], 2, "--head")
st_write.write(path("i8.safetensors"), {
    "model.layers.0.self_attn.q_proj.weight": (np.zeros((64, 64)), "F32"),
    "model.layers.0.self_attn.k_proj.weight": (np.zeros((32, 64)), "F32")})
with open(path("i8.safetensors"), "r+b") as f:  # a truncated file: refused, not a crash
    f.truncate(os.path.getsize(path("i8.safetensors")) - 100)
error_case(EXE, "truncated checkpoint",
           ["usage", "-s", "hf:" + config("one", {"model_type": "llama", "hidden_size": 64,
                                                   "num_attention_heads": 4,
                                                   "num_key_value_heads": 2, "head_dim": 16,
                                                   "num_hidden_layers": 1}),
            "--weights", path("i8.safetensors"), "-o", "-"], 1, "truncated")

# ---- hostile files: one line, exit 1, nothing written ----------------------------------------
hostile = workdir()
one = config("onel", {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                      "num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 1})
st_write.write(path("f8.safetensors"), {
    "model.layers.0.self_attn.q_proj.weight": (np.zeros((64, 64)), "F32"),
    "model.layers.0.self_attn.k_proj.weight": (np.zeros((32, 64)), "F32")})
raw = open(path("f8.safetensors"), "rb").read()
raw = raw.replace(b'"F32", "shape": [32, 64]', b'"U32", "shape": [32, 64]')
open(path("f8.safetensors"), "wb").write(raw)
st_write.write(path("esc2.safetensors"), {
    "x\x1b.layers.0.self_attn.q_proj.weight": (np.zeros((64,)), "F32"),
    "x\x1b.layers.0.self_attn.k_proj.weight": (np.zeros((32, 64)), "F32")})
with open(path("notjson.index.json"), "w") as f:
    f.write("{\"weight_map\": [1, 2")
with open(path("num.index.json"), "w") as f:
    f.write('{"weight_map": {"a": 3}}')
for name, weights, needle in (
        ("a folder", TMP, "not a regular file"),
        ("a device", "/dev/zero", "not a regular file"),
        ("an integer dtype", path("f8.safetensors"), "dtype U32"),
        ("a 1-D q_proj, its name escaped", path("esc2.safetensors"), "\\x1b"),
        ("an index that is not JSON", path("notjson.index.json"), "index:"),
        ("an index value that is not a file name", path("num.index.json"), "not a file name")):
    error_case(EXE, f"hostile: {name}",
               ["usage", "-s", "hf:" + one, "--weights", weights, "-o", "out.csv"], 1, needle,
               cwd=hostile)
st_write.write(path("mixed.safetensors"), {
    "model.layers.0.self_attn.q_proj.weight": (np.ones((64, 64)), "F32"),
    "model.layers.0.self_attn.k_proj.weight": (np.ones((32, 64)), "F32"),
    "model.layers.1.self_attn.qkv_proj.weight": (np.ones((128, 64)), "F32")})
two = config("twol", {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                      "num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 2})
error_case(EXE, "hostile: separate and fused projections mixed",
           ["usage", "-s", "hf:" + two, "--weights", path("mixed.safetensors"), "-o", "out.csv"],
           1, "mixed checkpoint", cwd=hostile)
r = run(EXE, "usage", "-s", "hf:" + one, "--weights", path("esc2.safetensors"), "-o", "-")
ok("\x1b" not in r.err, "hostile: no raw escape byte reaches the terminal", r.err)

# ---- bounded memory: a 3 GiB sparse checkpoint within --max-memory 64M ---------------------
hidden_b, H_b, KV_b, hd_b = 8192, 32, 8, 128
cfg_big = config("big", {"model_type": "llama", "hidden_size": hidden_b, "num_attention_heads": H_b,
                         "num_key_value_heads": KV_b, "head_dim": hd_b, "num_hidden_layers": 1,
                         "max_position_embeddings": 8192, "rope_theta": 500000.0})
live = rng.standard_normal((2, hidden_b)).astype(np.float32)
size = st_write.write_sparse(path("big.safetensors"), {
    "model.embed_tokens.weight": (96 * 1024, hidden_b),  # 3 GiB, never read
    "model.layers.0.self_attn.q_proj.weight": (H_b * hd_b, hidden_b),  # 128 MiB
    "model.layers.0.self_attn.k_proj.weight": (KV_b * hd_b, hidden_b),  # 32 MiB
}, "F32", {"model.layers.0.self_attn.q_proj.weight": (5 * hd_b + 3, live[:1]),
           "model.layers.0.self_attn.k_proj.weight": (hd_b + 64 + 3, live[1:])})
proc = subprocess.Popen([EXE, "usage", "-s", "hf:" + cfg_big, "--weights", path("big.safetensors"),
                         "--max-memory", "64M", "-o", path("big.csv")],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
_, _, rusage = os.wait4(proc.pid, 0)
err = proc.stderr.read().decode()
proc.stdout.close()
proc.stderr.close()
peak = rusage.ru_maxrss * 1024
if SANITIZED:
    skip("bounded memory: peak RSS within the budget", "sanitizers add shadow memory")
else:
    ok(size > 3 << 30 and peak < 64 << 20,
       f"bounded memory: a {size / 2**30:.1f} GiB checkpoint (128 MiB q_proj) read in "
       f"{peak / 2**20:.1f} MiB peak RSS, budget 64 MiB", err)
# Under an address-space limit smaller than the file: nothing of the file's size is mapped.
if SANITIZED:
    skip("bounded memory: under ulimit -v 1 GiB", "sanitizers reserve shadow address space")
else:
    def limit_as():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    p2 = subprocess.run([EXE, "usage", "-s", "hf:" + cfg_big, "--weights", path("big.safetensors"),
                         "-o", path("big-ulimit.csv")], capture_output=True, preexec_fn=limit_as,
                        timeout=120)
    ok(p2.returncode == 0 and open(path("big-ulimit.csv")).read() == open(path("big.csv")).read(),
       "bounded memory: a 3.2 GiB checkpoint under ulimit -v 1 GiB", p2.stderr.decode())
rows = {}
if os.path.exists(path("big.csv")):
    with open(path("big.csv")) as f:
        for row in csv.DictReader(f):
            rows[(int(row["head"]), int(row["pair"]))] = row
nz = sorted((h, i) for (h, i), row in rows.items() if float(row["q"]) > 0)
nk = sorted((h, i) for (h, i), row in rows.items() if float(row["k"]) > 0)
qn = float(np.sqrt((live[0].astype(np.float64) ** 2).sum()))
ok(nz == [(5, 3)] and abs(float(rows[(5, 3)]["q"]) - qn) <= 1e-12 * qn
   and nk == [(h, 3) for h in range(4, 8)],
   "bounded memory: the planted rows found (q head 5 pair 3; key head 1, row 64+3: pair 3 of "
   "query heads 4-7)", f"{nz} {nk}")

# ---- fused layouts by architecture (each view restated from the modeling code) -------------
# PersimmonAttention._split_heads: view(..., heads, 3, head_dim), q = [..., 0, :], k = [..., 1, :];
# partial_rotary_factor 0.5: pairs (i, i + 4) of the first 8 coordinates. Fuyu's text model is
# Persimmon (text_config.model_type).
H8, hd8 = 8, 16
w = rng.standard_normal((3 * H8 * hd8, H8 * hd8)).astype(np.float32)
v = w.astype(np.float64).reshape(H8, 3, hd8, H8 * hd8)
p8 = pairs_of(8, False)
ref_q = [[pair_norms(v[h, 0], p8) for h in range(H8)]]
ref_k = [[pair_norms(v[h, 1], p8) for h in range(H8)]]
st_write.write(path("persimmon.safetensors"),
               {"model.layers.0.self_attn.query_key_value.weight": w}, "F32")
pers = {"model_type": "persimmon", "hidden_size": H8 * hd8, "num_attention_heads": H8,
        "num_hidden_layers": 1, "partial_rotary_factor": 0.5, "rope_theta": 25000.0,
        "max_position_embeddings": 16384}
r, rows = table(config("persimmon", pers), path("persimmon.safetensors"))
compare("persimmon (query_key_value per head [q, k, v])", rows, ref_q, ref_k)
st_write.write(path("fuyu.safetensors"),
               {"language_model.model.layers.0.self_attn.query_key_value.weight": w}, "F32")
r, rows = table(config("fuyu", {"model_type": "fuyu", "text_config": pers}),
                path("fuyu.safetensors"))
compare("fuyu (its persimmon text model's per-head query_key_value)", rows, ref_q, ref_k)
# GPTNeoXJapaneseAttention: view(..., heads, 3 * head_size), q = [:head_size], k = the next
# head_size; rotary_pct 0.5.
w = rng.standard_normal((3 * H8 * hd8, H8 * hd8)).astype(np.float32)
v = w.astype(np.float64).reshape(H8, 3 * hd8, H8 * hd8)
st_write.write(path("neoxjp.safetensors"),
               {"gpt_neox_japanese.layers.0.attention.query_key_value.weight": w}, "F32")
r, rows = table(config("neoxjp", {"model_type": "gpt_neox_japanese", "hidden_size": H8 * hd8,
                                  "num_attention_heads": H8, "num_hidden_layers": 1,
                                  "rotary_pct": 0.5, "rotary_emb_base": 10000,
                                  "max_position_embeddings": 2048}),
                path("neoxjp.safetensors"))
compare("gpt_neox_japanese (query_key_value per head)", rows,
        [[pair_norms(v[h, :hd8], p8) for h in range(H8)]],
        [[pair_norms(v[h, hd8:2 * hd8], p8) for h in range(H8)]])
# CodeGenAttention: qkv reshaped (..., mp_num = 4, -1) and split [query | value | key] of
# local_dim = heads * head_dim / 4 each; _split_heads then gives block b's heads
# 2b, 2b + 1 (8 heads); rotary_dim 8, pairs (2i, 2i + 1).
w = rng.standard_normal((3 * H8 * hd8, H8 * hd8)).astype(np.float32)
blk = w.astype(np.float64).reshape(4, 3, 2, hd8, H8 * hd8)  # block, (q, v, k), head, coordinate
i8 = pairs_of(8, True)
st_write.write(path("codegen.safetensors"), {"transformer.h.0.attn.qkv_proj.weight": w}, "F32")
r, rows = table(config("codegen", {"model_type": "codegen", "n_embd": H8 * hd8, "n_head": H8,
                                   "n_layer": 1, "rotary_dim": 8, "n_positions": 2048}),
                path("codegen.safetensors"))
compare("codegen (qkv_proj in 4 blocks of [q | v | k])", rows,
        [[pair_norms(blk[h // 2, 0, h % 2], i8) for h in range(H8)]],
        [[pair_norms(blk[h // 2, 2, h % 2], i8) for h in range(H8)]])
ok("4 blocks of [q | v | k]" in r.err, "codegen: names its layout", r.err)
error_case(EXE, "codegen: 6 heads do not fill its 4 blocks",
           ["usage", "-s", "hf:" + config("codegen6", {"model_type": "codegen", "n_embd": 96,
                                                      "n_head": 6, "n_layer": 1, "rotary_dim": 8}),
            "--weights", path("codegen.safetensors"), "-o", "-"], 1, "blocks of heads")
# ChatGLM (modeling_chatglm.py SelfAttention): with multi_query_attention the rows split
# [heads x kv_channels | groups x kv_channels | groups x kv_channels], query head h on group
# h // (heads / groups); without it viewed (heads, 3 * kv_channels). RoPE on the first
# kv_channels / 2 coordinates, pairs (2i, 2i + 1).
G = 2
glm = {"model_type": "chatglm", "hidden_size": H8 * hd8, "num_attention_heads": H8,
       "num_layers": 1, "kv_channels": hd8, "seq_length": 2048, "multi_query_attention": True,
       "multi_query_group_num": G}
w = rng.standard_normal(((H8 + 2 * G) * hd8, H8 * hd8)).astype(np.float32)
w64 = w.astype(np.float64)
st_write.write(path("chatglm.safetensors"),
               {"transformer.encoder.layers.0.self_attention.query_key_value.weight": w}, "F32")
r, rows = table(config("chatglm", glm), path("chatglm.safetensors"))
compare("chatglm multi_query_attention ([q | k | v], 2 groups)", rows,
        [[pair_norms(w64[h * hd8:(h + 1) * hd8], i8) for h in range(H8)]],
        [[pair_norms(w64[(H8 + h // 4) * hd8:(H8 + h // 4 + 1) * hd8], i8) for h in range(H8)]])
w = rng.standard_normal((3 * H8 * hd8, H8 * hd8)).astype(np.float32)
v = w.astype(np.float64).reshape(H8, 3 * hd8, H8 * hd8)
st_write.write(path("chatglm1.safetensors"),
               {"transformer.encoder.layers.0.self_attention.query_key_value.weight": w}, "F32")
r, rows = table(config("chatglm1", dict(glm, multi_query_attention=False)),
                path("chatglm1.safetensors"))
compare("chatglm without multi_query_attention (per head [q, k, v])", rows,
        [[pair_norms(v[h, :hd8], i8) for h in range(H8)]],
        [[pair_norms(v[h, hd8:2 * hd8], i8) for h in range(H8)]])
# DBRX (DbrxAttention): Wqkv split [d_model | kv_n_heads x head_dim | kv_n_heads x head_dim];
# the counts are n_heads and attn_config.kv_n_heads.
w = rng.standard_normal(((H8 + 2 * G) * hd8, H8 * hd8)).astype(np.float32)
w64 = w.astype(np.float64)
full = pairs_of(hd8, False)
st_write.write(path("dbrx.safetensors"),
               {"transformer.blocks.0.norm_attn_norm.attn.Wqkv.weight": w}, "F32")
r, rows = table(config("dbrx", {"model_type": "dbrx", "d_model": H8 * hd8, "n_heads": H8,
                                "n_layers": 1, "max_seq_len": 2048,
                                "attn_config": {"kv_n_heads": G, "rope_theta": 500000}}),
                path("dbrx.safetensors"))
compare("dbrx (Wqkv [q | k | v], attn_config.kv_n_heads 2)", rows,
        [[pair_norms(w64[h * hd8:(h + 1) * hd8], full) for h in range(H8)]],
        [[pair_norms(w64[(H8 + h // 4) * hd8:(H8 + h // 4 + 1) * hd8], full) for h in range(H8)]])
# Falcon: FalconConfig's multi_query defaults to True, so a config without the key is
# multi-query: view(..., heads + 2, head_dim).
w = rng.standard_normal(((H8 + 2) * hd8, H8 * hd8)).astype(np.float32)
v = w.astype(np.float64).reshape(H8 + 2, hd8, H8 * hd8)
st_write.write(path("falcon-mq.safetensors"),
               {"transformer.h.0.self_attention.query_key_value.weight": w}, "F32")
r, rows = table(config("falcon-mq", {"model_type": "falcon", "hidden_size": H8 * hd8,
                                     "num_attention_heads": H8, "num_hidden_layers": 1,
                                     "max_position_embeddings": 2048, "alibi": False}),
                path("falcon-mq.safetensors"))
compare("falcon without multi_query (its default: True)", rows,
        [[pair_norms(v[h], full) for h in range(H8)]], [[pair_norms(v[-2], full) for h in range(H8)]])

# A safetensors file is one by its bytes, whatever its name; a GGUF file's rows are paired as
# its own metadata says, so not with a config.json (test_usage_gguf_cli.py reads GGUF weights).
w = {f"model.layers.0.self_attn.{n}.weight": rng.standard_normal((r_, 32)).astype(np.float32)
     for n, r_ in (("q_proj", 4 * 8), ("k_proj", 2 * 8))}
st_write.write(path("named.bin"), w, "F32")
q64 = w["model.layers.0.self_attn.q_proj.weight"].astype(np.float64).reshape(4, 8, 32)
k64 = w["model.layers.0.self_attn.k_proj.weight"].astype(np.float64).reshape(2, 8, 32)
r, rows = table(config("named", {"model_type": "llama", "hidden_size": 32, "num_attention_heads": 4,
                                 "num_key_value_heads": 2, "num_hidden_layers": 1}),
                path("named.bin"))
compare("a safetensors checkpoint named .bin", rows,
        [[pair_norms(q64[h], pairs_of(8, False)) for h in range(4)]],
        [[pair_norms(k64[h // 2], pairs_of(8, False)) for h in range(4)]])
import gguf_write  # noqa: E402
with open(path("model.gguf"), "wb") as f:
    f.write(gguf_write.gguf([("general.architecture", gguf_write.STRING, "llama")]))
error_case(EXE, "--weights a GGUF file with an HF config",
           ["usage", "-s", "hf:" + path("named.json"), "--weights", path("model.gguf"), "-o", "-"],
           1, "GGUF weights are paired as the GGUF's own metadata says")

# q_proj and k_proj read different hidden widths: not one layer's projections.
st_write.write(path("cols.safetensors"), {
    "model.layers.0.self_attn.q_proj.weight": np.ones((32, 32), np.float32),
    "model.layers.0.self_attn.k_proj.weight": np.ones((16, 24), np.float32)}, "F32")
error_case(EXE, "q_proj and k_proj of different input widths",
           ["usage", "-s", "hf:" + path("named.json"), "--weights", path("cols.safetensors"),
            "-o", "-"], 1, "has 32 columns and 'model.layers.0.self_attn.k_proj.weight' 24")

# GLM-4.5 and DeepSeek-V3 store num_nextn_predict_layers multi-token-prediction layers after
# their own (model.layers.<num_hidden_layers>); transformers does not load them
# (Glm4MoeModel's _keys_to_ignore_on_load_unexpected), so neither are they read here.
mtp = {f"model.layers.{l}.self_attn.{n}.weight": rng.standard_normal((r_, 32)).astype(np.float32)
       for l in range(3) for n, r_ in (("q_proj", 4 * 8), ("k_proj", 2 * 8))}
mtp["model.layers.2.eh_proj.weight"] = np.zeros((32, 64), np.float32)
st_write.write(path("mtp.safetensors"), mtp, "F32")
glm45 = {"model_type": "glm4_moe", "hidden_size": 32, "num_attention_heads": 4,
         "num_key_value_heads": 2, "head_dim": 8, "num_hidden_layers": 2,
         "partial_rotary_factor": 0.5, "max_position_embeddings": 4096,
         "num_nextn_predict_layers": 1}
r, rows = table(config("glm45", glm45), path("mtp.safetensors"))
p4 = pairs_of(4, False)
compare("glm4_moe: layers 0-1 read, the MTP layer 2 left out", rows,
        [[pair_norms(mtp[f"model.layers.{l}.self_attn.q_proj.weight"].astype(np.float64)
                     .reshape(4, 8, 32)[h], p4) for h in range(4)] for l in range(2)],
        [[pair_norms(mtp[f"model.layers.{l}.self_attn.k_proj.weight"].astype(np.float64)
                     .reshape(2, 8, 32)[h // 2], p4) for h in range(4)] for l in range(2)])
glm45.pop("num_nextn_predict_layers")
error_case(EXE, "a layer past the config's, not an MTP layer",
           ["usage", "-s", "hf:" + config("glm45-no-mtp", glm45), "--weights",
            path("mtp.safetensors"), "-o", "-"], 1, "has layers 0..2 under 'model.layers.'")

# Hybrid models: layers without RoPE may have no q/k at all. Qwen3-Next: linear_attention layers
# (Qwen3NextGatedDeltaNet) and full_attention ones whose q_proj(x).view(..., -1, 2 * head_dim) is
# chunked into the query and its output gate (rows per head: [q | gate]); Qwen3NextRMSNorm, its
# q_norm and k_norm, multiplies by 1 + weight; partial_rotary_factor 0.25 of 16: pairs (i, i + 2).
qn3 = {"model_type": "qwen3_next", "hidden_size": 32, "num_attention_heads": 4,
       "num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 4,
       "partial_rotary_factor": 0.25, "max_position_embeddings": 4096,
       "layer_types": ["linear_attention"] * 3 + ["full_attention"]}
w = {f"model.layers.{l}.linear_attn.in_proj_qkvz.weight": np.zeros((8, 32), np.float32)
     for l in range(3)}
gq = rng.standard_normal((4 * 2 * 16, 32)).astype(np.float32)
gk = rng.standard_normal((2 * 16, 32)).astype(np.float32)
gqn = rng.standard_normal(16).astype(np.float32)
gkn = rng.standard_normal(16).astype(np.float32)
w.update({"model.layers.3.self_attn.q_proj.weight": gq, "model.layers.3.self_attn.k_proj.weight": gk,
          "model.layers.3.self_attn.q_norm.weight": gqn,
          "model.layers.3.self_attn.k_norm.weight": gkn})
st_write.write(path("qwen3next.safetensors"), w, "F32")
r, rows = table(config("qwen3next", qn3), path("qwen3next.safetensors"))
p2 = pairs_of(4, False)
qv = gq.astype(np.float64).reshape(4, 2, 16, 32)[:, 0]  # [head, q or gate, coordinate]
kv_ = gk.astype(np.float64).reshape(2, 16, 32)
ok(r.rc == 0 and sorted({l for l, _, _ in rows}) == [3] and "3 layers without RoPE" in r.err,
   "qwen3_next: the linear-attention layers 0-2 have no pairs", r.err)
compare("qwen3_next layer 3 (gated q_proj, q_norm/k_norm as 1 + w)",
        {(0, h, i): v for (l, h, i), v in rows.items() if l == 3},
        [[pair_norms(qv[h], p2, 1.0 + gqn.astype(np.float64)) for h in range(4)]],
        [[pair_norms(kv_[h // 2], p2, 1.0 + gkn.astype(np.float64)) for h in range(4)]])
# --layer of the wavelength view: the linear-attention group, or one of its layers, has no
# pairs: a usage error either way (the group was 'no layer group has RoPE pairs to draw',
# exit 1)
for what, arg in (("the nope group", "nope"), ("linear-attention layer 0", "0")):
    error_case(EXE, f"--layer of {what} of qwen3_next", ["usage", "-s", "hf:" +
               config("qwen3next", qn3), "--weights", path("qwen3next.safetensors"), "--view",
               "wavelength", "--layer", arg, "-o", path("x.png")], 2, "no RoPE")
r = run(EXE, "usage", "-s", "hf:" + config("qwen3next", qn3), "--weights",
        path("qwen3next.safetensors"), "--view", "wavelength", "--layer", "rope", "-o",
        path("qn_rope.png"))
ok(r.rc == 0 and os.path.getsize(path("qn_rope.png")) > 1000,
   "qwen3_next --layer rope draws its one RoPE layer", r.err)
# Mllama: cross_attention_layers hold cross_attn (no RoPE) instead of self_attn.
ml = {f"language_model.model.layers.{l}.self_attn.{n}.weight":
      rng.standard_normal((r_, 32)).astype(np.float32)
      for l in (0, 2) for n, r_ in (("q_proj", 4 * 8), ("k_proj", 2 * 8))}
ml["language_model.model.layers.1.cross_attn.q_proj.weight"] = np.ones((32, 32), np.float32)
ml["language_model.model.layers.1.cross_attn.k_proj.weight"] = np.ones((16, 32), np.float32)
st_write.write(path("mllama.safetensors"), ml, "F32")
r, rows = table(config("mllama", {"model_type": "mllama", "text_config": {
    "model_type": "mllama_text_model", "hidden_size": 32, "num_attention_heads": 4,
    "num_key_value_heads": 2, "num_hidden_layers": 3, "cross_attention_layers": [1],
    "max_position_embeddings": 131072}}), path("mllama.safetensors"))
p8h = pairs_of(8, False)
ok(r.rc == 0 and sorted({l for l, _, _ in rows}) == [0, 2], "mllama: the cross-attention layer "
   "1 has no pairs", r.err)
compare("mllama self-attention layers 0 and 2", {((l // 2), h, i): v for (l, h, i), v in rows.items()},
        [[pair_norms(ml[f"language_model.model.layers.{l}.self_attn.q_proj.weight"]
                     .astype(np.float64).reshape(4, 8, 32)[h], p8h) for h in range(4)]
         for l in (0, 2)],
        [[pair_norms(ml[f"language_model.model.layers.{l}.self_attn.k_proj.weight"]
                     .astype(np.float64).reshape(2, 8, 32)[h // 2], p8h) for h in range(4)]
         for l in (0, 2)])

# Fewer layers than the config's, the missing ones RoPE layers: the counts are named.
error_case(EXE, "a checkpoint with fewer layers than the config",
           ["usage", "-s", "hf:" + config("glm45-4", dict(glm45, num_hidden_layers=4)),
            "--weights", path("mtp.safetensors"), "-o", "-"], 1,
           "the checkpoint has layers 0..2 under 'model.layers.', the config 4 layers")

# Per key head [its query heads | k | v] in one tensor: Phi-3-small's query_key_value viewed
# (..., -1, q_per_kv + 2, head_dim) (vLLM's phi3_small.py, its remote code's layout) and
# InternLM2's wqkv rearranged '(h gs d)' with gs = 2 + groups; Baichuan (7B)'s W_pack is
# [q | k | v] (unflatten(-1, (3, hidden_size))).
full8 = pairs_of(16, False)
for mt, name in (("phi3small", "model.layers.0.self_attn.query_key_value.weight"),
                 ("internlm2", "model.layers.0.attention.wqkv.weight")):
    w = rng.standard_normal(((8 + 2 * 2) * 16, 128)).astype(np.float32)
    v = w.astype(np.float64).reshape(2, 4 + 2, 16, 128)  # key head, (4 q, k, v), coordinate
    st_write.write(path(mt + ".safetensors"), {name: w}, "F32")
    r, rows = table(config(mt, {"model_type": mt, "hidden_size": 128, "num_attention_heads": 8,
                                "num_key_value_heads": 2, "num_hidden_layers": 1,
                                "max_position_embeddings": 8192}), path(mt + ".safetensors"))
    compare(mt + " (per key head [4 q | k | v])", rows,
            [[pair_norms(v[h // 4, h % 4], full8) for h in range(8)]],
            [[pair_norms(v[h // 4, 4], full8) for h in range(8)]])
w = rng.standard_normal((3 * 128, 128)).astype(np.float32)
w64 = w.astype(np.float64)
st_write.write(path("baichuan.safetensors"), {"model.layers.0.self_attn.W_pack.weight": w}, "F32")
r, rows = table(config("baichuan", {"model_type": "baichuan", "hidden_size": 128,
                                    "num_attention_heads": 8, "num_hidden_layers": 1,
                                    "max_position_embeddings": 4096}),
                path("baichuan.safetensors"))
compare("baichuan (W_pack [q | k | v])", rows,
        [[pair_norms(w64[h * 16:(h + 1) * 16], full8) for h in range(8)]],
        [[pair_norms(w64[(8 + h) * 16:(9 + h) * 16], full8) for h in range(8)]])

done()

#!/usr/bin/env python3
"""posenc usage on GGUF weights (-s gguf:FILE --weights FILE), against numpy on the
original HF-layout weights.

The GGUF files are written here as llama.cpp's converter writes them
(convert_hf_to_gguf.py, its conversion/*.py at de3ff815): LlamaModel.modify_tensors
passes q_proj and k_proj through LlamaModel.permute (restated below), which within each
head moves row j + t * hd/2 (t = 0, 1) to row 2j + t, so that ggml's NORM rope, which
rotates rows (2j, 2j+1), rotates the rows HF's rotate_half pairs (j, j + hd/2); qwen2,
qwen3 and phi3 keep HF's rows and run NEOX rope (llama_model_rope_type in
src/llama-model.cpp). Each weight is stored with ggml's ne = [in, out] (ne[0] the
fastest). The expected pair norms are computed from the HF rows with HF's pairing, so a
GGUF read with the wrong pairing (or rows in the wrong order) fails; and the GGUF result
must equal usage on the same weights as a safetensors checkpoint with its config.json.
deepseek2 (MLA: attn_q_b or attn_q, attn_kv_a_mqa), plm, minicpm3 and qwen3next (gated attn_q)
are written as their converters write them and checked against numpy restating the views of
llama.cpp's graphs (deepseek2.cpp, plm.cpp, minicpm3.cpp, qwen3next.cpp)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, require_numpy, run, skip, workdir  # noqa: E402

np = require_numpy("posenc usage on GGUF weights against numpy")

import gguf_write as gw  # noqa: E402
import st_write  # noqa: E402
from usage_ref import compare as compare_rows, pair_norms, pairs_of, usage_rows  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
rng = np.random.default_rng(31)
GTYPE = {"F32": gw.GGML_F32, "F16": gw.GGML_F16, "BF16": gw.GGML_BF16, "F64": gw.GGML_F64}


def path(name):
    return os.path.join(TMP, name)


def llama_permute(w, n_head, n_head_kv):
    """convert_hf_to_gguf's LlamaModel.permute, restated in numpy."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def table(args):
    return usage_rows(EXE, *args)


def half_norms(W, hd, scale=None):
    """W: [hd, in] rows of one head in HF order; rotate_half's pairs (i, i + hd/2)."""
    return pair_norms(W, pairs_of(hd, False), scale)


def compare(name, rows, ref_q, ref_k, tol=1e-12):
    return compare_rows(name, rows, ref_q, ref_k, tol, "numpy computes it from the HF rows")


def same_as(name, a, b, keys=("q", "k", "qk", "theta", "wavelength", "kv_head")):
    diff = [k for k in a if k not in b or any(a[k][c] != b[k][c] for c in keys)]
    return ok(a and set(a) == set(b) and not diff,
              f"{name}: the GGUF's table equals the safetensors checkpoint's ({len(a)} rows)",
              f"{len(a)} vs {len(b)} rows; first differing {diff[:1]}")


def model(arch, hidden, H, KV, hd, L, dtype, permute, extra=None, bias=False, qnorm=False,
          fused=False):
    """HF-layout weights (rounded to dtype), a GGUF as the converter writes them, the same
    weights as safetensors with a config.json; returns (weights, gguf path, st, config)."""
    w = {}
    for l in range(L):
        w[(l, "q")] = st_write.stored(rng.standard_normal((H * hd, hidden)), dtype)
        w[(l, "k")] = st_write.stored(rng.standard_normal((KV * hd, hidden)), dtype)
        w[(l, "v")] = st_write.stored(rng.standard_normal((KV * hd, hidden)), dtype)
        if bias:
            w[(l, "qb")] = st_write.stored(rng.standard_normal(H * hd), "F32")
            w[(l, "kb")] = st_write.stored(rng.standard_normal(KV * hd), "F32")
        if qnorm:
            w[(l, "qn")] = st_write.stored(rng.uniform(0.5, 2.0, hd), "F32")
            w[(l, "kn")] = st_write.stored(rng.uniform(0.5, 2.0, hd), "F32")
    kvs = [("general.architecture", gw.STRING, arch),
           (f"{arch}.context_length", gw.UINT32, 4096),
           (f"{arch}.embedding_length", gw.UINT32, hidden),
           (f"{arch}.block_count", gw.UINT32, L),
           (f"{arch}.attention.head_count", gw.UINT32, H),
           (f"{arch}.attention.head_count_kv", gw.UINT32, KV),
           (f"{arch}.attention.key_length", gw.UINT32, hd),
           (f"{arch}.attention.value_length", gw.UINT32, hd),
           (f"{arch}.rope.dimension_count", gw.UINT32, hd),
           (f"{arch}.rope.freq_base", gw.FLOAT32, 10000.0)] + (extra or [])
    tensors, st = [], {}
    for l in range(L):
        q, k = w[(l, "q")], w[(l, "k")]
        if permute:
            q, k = llama_permute(q, H, H), llama_permute(k, H, KV)
        if fused:
            qkv = np.concatenate([q, k, w[(l, "v")]])
            tensors.append((f"blk.{l}.attn_qkv.weight", [hidden, qkv.shape[0]], GTYPE[dtype],
                            st_write.encode(qkv, dtype)))
            st[f"model.layers.{l}.self_attn.qkv_proj.weight"] = (
                np.concatenate([w[(l, "q")], w[(l, "k")], w[(l, "v")]]), dtype)
        else:
            for n, a in (("q", q), ("k", k)):
                tensors.append((f"blk.{l}.attn_{n}.weight", [hidden, a.shape[0]], GTYPE[dtype],
                                st_write.encode(a, dtype)))
                st[f"model.layers.{l}.self_attn.{n}_proj.weight"] = (w[(l, n)], dtype)
        if bias:
            for n in ("q", "k"):
                b = w[(l, n + "b")]
                tensors.append((f"blk.{l}.attn_{n}.bias", [b.shape[0]], gw.GGML_F32,
                                st_write.encode(b, "F32")))
                st[f"model.layers.{l}.self_attn.{n}_proj.bias"] = (b, "F32")
        if qnorm:
            for n in ("q", "k"):
                g = w[(l, n + "n")]
                tensors.append((f"blk.{l}.attn_{n}_norm.weight", [hd], gw.GGML_F32,
                                st_write.encode(g, "F32")))
                st[f"model.layers.{l}.self_attn.{n}_norm.weight"] = (g, "F32")
    name = f"{arch}-{dtype}"
    with open(path(name + ".gguf"), "wb") as f:
        f.write(gw.gguf(kvs, tensors))
    st_write.write(path(name + ".safetensors"), st)
    cfg = {"model_type": {"llama": "llama", "qwen2": "qwen2", "qwen3": "qwen3",
                          "phi3": "phi3"}[arch],
           "hidden_size": hidden, "num_attention_heads": H, "num_key_value_heads": KV,
           "head_dim": hd, "num_hidden_layers": L, "max_position_embeddings": 4096,
           "rope_theta": 10000.0}
    with open(path(name + ".json"), "w") as f:
        json.dump(cfg, f)
    return w, path(name + ".gguf"), path(name + ".safetensors"), path(name + ".json")


def refs(w, H, KV, hd, L, bias=False, qnorm=False):
    rq, rk = [], []
    for l in range(L):
        q = w[(l, "q")].reshape(H, hd, -1)
        k = w[(l, "k")].reshape(KV, hd, -1)
        if bias:
            q = np.concatenate([q, w[(l, "qb")].reshape(H, hd, 1)], axis=2)
            k = np.concatenate([k, w[(l, "kb")].reshape(KV, hd, 1)], axis=2)
        qs, ks = (w[(l, "qn")], w[(l, "kn")]) if qnorm else (None, None)
        rq.append([half_norms(q[h], hd, qs) for h in range(H)])
        rk.append([half_norms(k[h // (H // KV)], hd, ks) for h in range(H)])
    return rq, rk


# ---- llama: permuted rows, NORM rope; GQA 4 on 2; F32, F16, BF16, F64 --------------------
hidden, H, KV, hd, L = 32, 4, 2, 8, 2
for dtype in ("F32", "F16", "BF16", "F64"):
    w, gg, st, cfg = model("llama", hidden, H, KV, hd, L, dtype, permute=True)
    r, rows = table(["-s", "gguf:" + gg, "--weights", gg])
    ok(r.rc == 0, f"llama {dtype} gguf runs", r.err)
    rq, rk = refs(w, H, KV, hd, L)
    compare(f"llama {dtype} gguf (permuted rows, pairs (2i, 2i+1))", rows, rq, rk)
    ok(all(rows[k]["dim_b"] == str(int(rows[k]["dim_a"]) + 1) for k in rows),
       f"llama {dtype} gguf: pairs (2i, 2i+1) of the permuted rows", "")
    r2, rows2 = table(["-s", "hf:" + cfg, "--weights", st])
    same_as(f"llama {dtype}", rows, rows2)
    if dtype == "F32":
        # the permuted rows read with HF's pairing (i, i + hd/2) are the wrong pairs: the
        # comparison above would fail for them (a check that it can)
        wrong = [[half_norms(llama_permute(w[(l, "q")], H, H).reshape(H, hd, -1)[h], hd)
                  for h in range(H)] for l in range(L)]
        worst = max(abs(float(rows[(l, h, i)]["q"]) - wrong[l][h][i]) / wrong[l][h][i]
                    for l in range(L) for h in range(H) for i in range(hd // 2))
        ok(worst > 1e-3, "llama gguf: the permuted rows paired as HF pairs give other norms",
           f"worst rel {worst:.3g}")

# ---- qwen2: HF's rows, NEOX rope, q/k biases (--fold-bias) --------------------------------
for dtype in ("F32", "BF16"):
    w, gg, st, cfg = model("qwen2", hidden, H, KV, hd, L, dtype, permute=False, bias=True)
    r, rows = table(["-s", "gguf:" + gg, "--weights", gg, "--fold-bias"])
    rq, rk = refs(w, H, KV, hd, L, bias=True)
    compare(f"qwen2 {dtype} gguf (HF rows, pairs (i, i+4), biases folded)", rows, rq, rk)
    ok(all(rows[k]["dim_b"] == str(int(rows[k]["dim_a"]) + hd // 2) for k in rows),
       f"qwen2 {dtype} gguf: pairs (i, i + hd/2)", "")
    r2, rows2 = table(["-s", "hf:" + cfg, "--weights", st, "--fold-bias"])
    same_as(f"qwen2 {dtype} --fold-bias", rows, rows2)
    r, rows = table(["-s", "gguf:" + gg, "--weights", gg])
    r2, rows2 = table(["-s", "hf:" + cfg, "--weights", st])
    same_as(f"qwen2 {dtype} biases left out", rows, rows2)

# ---- qwen3: attn_q_norm / attn_k_norm folded in (the weight as stored), F16 ---------------
w, gg, st, cfg = model("qwen3", hidden, H, KV, hd, L, "F16", permute=False, qnorm=True)
r, rows = table(["-s", "gguf:" + gg, "--weights", gg])
rq, rk = refs(w, H, KV, hd, L, qnorm=True)
compare("qwen3 F16 gguf, q_norm/k_norm folded in", rows, rq, rk)
r2, rows2 = table(["-s", "hf:" + cfg, "--weights", st])
same_as("qwen3 F16 q_norm", rows, rows2)

# ---- phi3: fused attn_qkv, rows [q | k | v] as llama.cpp's graph views them ---------------
w, gg, st, cfg = model("phi3", hidden, H, KV, hd, L, "F32", permute=False, fused=True)
r, rows = table(["-s", "gguf:" + gg, "--weights", gg])
rq, rk = refs(w, H, KV, hd, L)
compare("phi3 F32 gguf, fused attn_qkv", rows, rq, rk)
r2, rows2 = table(["-s", "hf:" + cfg, "--weights", st])
same_as("phi3 fused", rows, rows2)

# ---- the same llama written by gguf-py's GGUFWriter, when it can be imported --------------
try:
    import gguf as ggufpy  # llama.cpp's gguf-py (PYTHONPATH=llama.cpp/gguf-py)
except ImportError:
    ggufpy = None
if ggufpy is None:
    skip("llama gguf written by gguf-py's GGUFWriter", "gguf-py is not importable")
else:
    w, gg, st, cfg = model("llama", hidden, H, KV, hd, L, "F16", permute=True)
    wr = ggufpy.GGUFWriter(path("gguf-py.gguf"), "llama")
    wr.add_context_length(4096)
    wr.add_embedding_length(hidden)
    wr.add_block_count(L)
    wr.add_head_count(H)
    wr.add_head_count_kv(KV)
    wr.add_rope_dimension_count(hd)
    wr.add_rope_freq_base(10000.0)
    for l in range(L):
        # GGUFWriter takes the torch-order [out, in] array and writes ne reversed
        wr.add_tensor(f"blk.{l}.attn_q.weight",
                      llama_permute(w[(l, "q")], H, H).astype(np.float16))
        wr.add_tensor(f"blk.{l}.attn_k.weight",
                      llama_permute(w[(l, "k")], H, KV).astype(np.float16))
    wr.write_header_to_file()
    wr.write_kv_data_to_file()
    wr.write_tensors_to_file()
    wr.close()
    r, rows = table(["-s", "gguf:" + path("gguf-py.gguf"), "--weights", path("gguf-py.gguf")])
    compare("llama F16 written by gguf-py's GGUFWriter", rows, *refs(w, H, KV, hd, L))

# ---- deepseek2: MLA, the rope part of attn_q_b / attn_q and of attn_kv_a_mqa --------------
# The layout restated from llama.cpp (src/models/deepseek2.cpp, load_arch_tensors and the
# graph; conversion/deepseek.py DeepseekV2Model): q_b_proj -> attn_q_b (q_proj -> attn_q
# without q_lora_rank) and kv_a_proj_with_mqa -> attn_kv_a_mqa are written unchanged (no
# permute); kv_b_proj is split per head into attn_k_b (its nope rows, transposed) and
# attn_v_b, or kept as attn_kv_b by older converters. The graph views q per head
# n_embd_head_k_mla = key_length_mla (key_length when that key is absent) wide, q_pe at
# offset n_embd_head_k_mla - n_rot, and k_pe as kv_a_mqa's rows from kv_lora_rank on,
# one key head for every query head; rope type NORM (llama_model_rope_type) rotates
# (2i, 2i+1) of the n_rot rope rows.
def mla_model(name, dtype, lite, legacy, arch="deepseek2", neox=False, drop=(), L=2, hidden=32,
              H=4, nope=16, rope=8, kvl=12, ql=10, vd=16):
    w = {}
    for l in range(L):
        if not lite:
            w[(l, "qa")] = st_write.stored(rng.standard_normal((ql, hidden)), dtype)
        w[(l, "qb")] = st_write.stored(rng.standard_normal((H * (nope + rope),
                                                            hidden if lite else ql)), dtype)
        w[(l, "kva")] = st_write.stored(rng.standard_normal((kvl + rope, hidden)), dtype)
        w[(l, "kvb")] = st_write.stored(rng.standard_normal((H * (nope + vd), kvl)), dtype)
    a = arch
    kvs = [("general.architecture", gw.STRING, a), (f"{a}.context_length", gw.UINT32, 4096),
           (f"{a}.embedding_length", gw.UINT32, hidden), (f"{a}.block_count", gw.UINT32, L),
           (f"{a}.attention.head_count", gw.UINT32, H),
           (f"{a}.attention.head_count_kv", gw.UINT32, 1),
           (f"{a}.attention.kv_lora_rank", gw.UINT32, kvl),
           (f"{a}.rope.dimension_count", gw.UINT32, rope),
           (f"{a}.rope.freq_base", gw.FLOAT32, 10000.0),
           (f"{a}.attention.layer_norm_rms_epsilon", gw.FLOAT32, 1e-6)]
    if legacy:  # before MLA's keys: key_length is the MHA head, nope + rope
        kvs += [(f"{a}.attention.key_length", gw.UINT32, nope + rope),
                (f"{a}.attention.value_length", gw.UINT32, vd)]
    else:
        kvs += [(f"{a}.attention.key_length", gw.UINT32, kvl + rope),
                (f"{a}.attention.value_length", gw.UINT32, kvl),
                (f"{a}.attention.key_length_mla", gw.UINT32, nope + rope),
                (f"{a}.attention.value_length_mla", gw.UINT32, vd)]
    if not lite:
        kvs.append((f"{a}.attention.q_lora_rank", gw.UINT32, ql))
    kvs = [kv for kv in kvs if kv[0].split(".", 1)[1] not in drop]
    tensors, st = [], {}
    enc = lambda n, arr: tensors.append((n, list(arr.shape[::-1]), GTYPE[dtype],  # noqa: E731
                                         st_write.encode(arr, dtype)))
    for l in range(L):
        p = f"model.layers.{l}.self_attn."
        if not lite:
            enc(f"blk.{l}.attn_q_a.weight", w[(l, "qa")])
            st[p + "q_a_proj.weight"] = (w[(l, "qa")], dtype)
        enc(f"blk.{l}.attn_{'q' if lite else 'q_b'}.weight", w[(l, "qb")])
        st[p + ("q_proj" if lite else "q_b_proj") + ".weight"] = (w[(l, "qb")], dtype)
        enc(f"blk.{l}.attn_kv_a_mqa.weight", w[(l, "kva")])
        st[p + "kv_a_proj_with_mqa.weight"] = (w[(l, "kva")], dtype)
        st[p + "kv_b_proj.weight"] = (w[(l, "kvb")], dtype)
        if legacy:
            enc(f"blk.{l}.attn_kv_b.weight", w[(l, "kvb")])
        else:
            kvb = w[(l, "kvb")].reshape(H, nope + vd, kvl)
            enc(f"blk.{l}.attn_k_b.weight", np.ascontiguousarray(kvb[:, :nope].transpose(0, 2, 1)))
            enc(f"blk.{l}.attn_v_b.weight", np.ascontiguousarray(kvb[:, nope:]))
    with open(path(name + ".gguf"), "wb") as f:
        f.write(gw.gguf(kvs, tensors))
    st_write.write(path(name + ".safetensors"), st)
    cfg = {"model_type": "deepseek_v2", "hidden_size": hidden, "num_attention_heads": H,
           "num_key_value_heads": H, "num_hidden_layers": L, "max_position_embeddings": 4096,
           "rope_theta": 10000.0, "qk_rope_head_dim": rope, "qk_nope_head_dim": nope,
           "v_head_dim": vd, "kv_lora_rank": kvl, "q_lora_rank": None if lite else ql}
    with open(path(name + ".json"), "w") as f:
        json.dump(cfg, f)
    # numpy on the HF rows: q_pe rows nope.. of each head, k_pe rows kvl.., pairs (2i, 2i+1)
    # (NORM), or (i, i + rope/2) (NEOX: minicpm3)
    inter = pairs_of(rope, not neox)
    rq = [[pair_norms(w[(l, "qb")].reshape(H, nope + rope, -1)[h, nope:], inter)
           for h in range(H)] for l in range(L)]
    rk = [[pair_norms(w[(l, "kva")][kvl:], inter) for h in range(H)] for l in range(L)]
    wq = [[pair_norms(w[(l, "qb")].reshape(H, nope + rope, -1)[h, nope:], pairs_of(rope, False))
           for h in range(H)] for l in range(L)]
    return path(name + ".gguf"), path(name + ".safetensors"), path(name + ".json"), rq, rk, wq


for name, dtype, lite, legacy in (("ds2", "F32", False, False), ("ds2-bf16", "BF16", False, False),
                                  ("ds2-lite-legacy", "F16", True, True)):
    gg, st, cfg, rq, rk, wq = mla_model(name, dtype, lite, legacy)
    r, rows = table(["-s", "gguf:" + gg, "--weights", gg])
    ok(r.rc == 0, f"deepseek2 {name} gguf runs", r.err)
    compare(f"deepseek2 {name} gguf ({'attn_q' if lite else 'attn_q_b'} and attn_kv_a_mqa, rope "
            f"part, pairs (2i, 2i+1))", rows, rq, rk)
    ok(rows and all(rows[k]["kv_head"] == "0" for k in rows)
       and all(rows[k]["dim_b"] == str(int(rows[k]["dim_a"]) + 1) for k in rows),
       f"deepseek2 {name}: one key head, pairs (2i, 2i+1)", "")
    r2, rows2 = table(["-s", "hf:" + cfg, "--weights", st])
    ok(r2.rc == 0, f"deepseek2 {name}: hf: of the same weights runs", r2.err)
    same_as(f"deepseek2 {name}", rows, rows2)
    if name == "ds2" and len(rows) == 32:
        # the same rope rows paired as NEOX pairs them, (i, i + 4), give other norms: the
        # comparison above can fail
        worst = max(abs(float(rows[(l, h, i)]["q"]) - wq[l][h][i]) / wq[l][h][i]
                    for l in range(2) for h in range(4) for i in range(4))
        ok(worst > 1e-3, "deepseek2: the rope rows paired (i, i + 4) give other norms",
           f"worst rel {worst:.3g}")

# plm (plm.cpp: attn_q, key_length = nope + rope, NORM) and minicpm3 (minicpm3.cpp: attn_q_b,
# NEOX): the same views; their converters (conversion/plm.py, minicpm.py) leave the rows as
# they are
for name, arch, lite, neox in (("plm", "plm", True, False), ("minicpm3", "minicpm3", False, True)):
    gg, st, cfg, rq, rk, wq = mla_model(name, "F32", lite, True, arch=arch, neox=neox)
    r, rows = table(["-s", "gguf:" + gg, "--weights", gg])
    compare(f"{arch} gguf (rope part of {'attn_q' if lite else 'attn_q_b'} and attn_kv_a_mqa, "
            f"pairs {'(i, i+4)' if neox else '(2i, 2i+1)'})", rows, rq, rk)
# the errors: an MLA graph not checked, a deepseek2 file without kv_lora_rank
gg = mla_model("glm-dsa", "F32", False, False, arch="glm-dsa")[0]
error_case(EXE, "glm-dsa's MLA tensors", ["usage", "-s", "gguf:" + gg, "--weights", gg, "-o", "-"],
           1, "GGUF: glm-dsa's MLA tensors (attn_kv_a_mqa) are not read")
gg = mla_model("ds2-nolora", "F32", False, False, drop=("attention.kv_lora_rank",))[0]
error_case(EXE, "deepseek2 without attention.kv_lora_rank",
           ["usage", "-s", "gguf:" + gg, "--weights", gg, "-o", "-"], 1,
           "GGUF: deepseek2's MLA tensors need deepseek2.rope.dimension_count, "
           "attention.kv_lora_rank")

# ---- qwen3next: attn_q per head [query | gate]; Gated DeltaNet layers' attn_qkv left aside -----
# src/models/qwen3next.cpp build_layer_attn reshapes attn_q's output to (n_embd_head * 2,
# n_head) and views the query at offset 0 of each head, the gate after it; NEOX rope over
# n_rot = rope.dimension_count. conversion/qwen.py Qwen3NextModel writes q_proj unchanged,
# adds 1 to q_norm/k_norm (Qwen3NextRMSNorm's 1 + w), and writes the linear-attention layers'
# in_proj_qkvz as attn_qkv + attn_gate (not attention of RoPE).
def qn3_model(dtype):
    hidden, H, KV, hd, rot, L = 32, 4, 2, 16, 4, 4
    gq = st_write.stored(rng.standard_normal((H * 2 * hd, hidden)), dtype)
    gk = st_write.stored(rng.standard_normal((KV * hd, hidden)), dtype)
    gv = st_write.stored(rng.standard_normal((KV * hd, hidden)), dtype)
    # norm weights whose 1 + w is exact in float32, so both readings agree to the bit
    qn = rng.integers(-32, 32, hd) / 64.0
    kn = rng.integers(-32, 32, hd) / 64.0
    a = "qwen3next"
    kvs = [("general.architecture", gw.STRING, a), (f"{a}.context_length", gw.UINT32, 4096),
           (f"{a}.embedding_length", gw.UINT32, hidden), (f"{a}.block_count", gw.UINT32, L),
           (f"{a}.attention.head_count", gw.UINT32, H),
           (f"{a}.attention.head_count_kv", gw.UINT32, KV),
           (f"{a}.attention.key_length", gw.UINT32, hd),
           (f"{a}.attention.value_length", gw.UINT32, hd),
           (f"{a}.rope.dimension_count", gw.UINT32, rot),
           (f"{a}.rope.freq_base", gw.FLOAT32, 10000.0),
           (f"{a}.full_attention_interval", gw.UINT32, 4)]
    tensors = []
    for l in range(3):  # Gated DeltaNet layers: fused qkv and z, random (must not be read)
        for n, rows in (("attn_qkv", 48), ("attn_gate", 32)):
            tensors.append((f"blk.{l}.{n}.weight", [hidden, rows], GTYPE[dtype],
                            st_write.encode(rng.standard_normal((rows, hidden)), dtype)))
    for n, arr in (("attn_q", gq), ("attn_k", gk), ("attn_v", gv)):
        tensors.append((f"blk.3.{n}.weight", [hidden, arr.shape[0]], GTYPE[dtype],
                        st_write.encode(arr, dtype)))
    for n, g in (("attn_q_norm", qn), ("attn_k_norm", kn)):
        tensors.append((f"blk.3.{n}.weight", [hd], gw.GGML_F32, st_write.encode(g + 1.0, "F32")))
    gg = path(f"qwen3next-{dtype}.gguf")
    with open(gg, "wb") as f:
        f.write(gw.gguf(kvs, tensors))
    p = "model.layers.3.self_attn."
    st = {f"model.layers.{l}.linear_attn.in_proj_qkvz.weight": (np.zeros((8, hidden)), "F32")
          for l in range(3)}
    st.update({p + "q_proj.weight": (gq, dtype), p + "k_proj.weight": (gk, dtype),
               p + "v_proj.weight": (gv, dtype), p + "q_norm.weight": (qn, "F32"),
               p + "k_norm.weight": (kn, "F32")})
    sp = path(f"qwen3next-{dtype}.safetensors")
    st_write.write(sp, st)
    cp = path(f"qwen3next-{dtype}.json")
    with open(cp, "w") as f:
        json.dump({"model_type": "qwen3_next", "hidden_size": hidden, "num_attention_heads": H,
                   "num_key_value_heads": KV, "head_dim": hd, "num_hidden_layers": L,
                   "partial_rotary_factor": rot / hd, "max_position_embeddings": 4096,
                   "rope_theta": 10000.0,
                   "layer_types": ["linear_attention"] * 3 + ["full_attention"]}, f)
    half = pairs_of(rot, False)
    q = gq.reshape(H, 2, hd, hidden)[:, 0]  # [head, query or gate, coordinate]: the query
    k = gk.reshape(KV, hd, hidden)
    rq = [[pair_norms(q[h], half, 1.0 + qn) for h in range(H)]]
    rk = [[pair_norms(k[h // (H // KV)], half, 1.0 + kn) for h in range(H)]]
    return gg, sp, cp, rq, rk


for dtype in ("F32", "BF16"):
    gg, sp, cp, rq, rk = qn3_model(dtype)
    r, rows = table(["-s", "gguf:" + gg, "--weights", gg])
    ok(r.rc == 0 and sorted({l for l, _, _ in rows}) == [3], f"qwen3next {dtype} gguf: layer 3 "
       "alone has pairs (layers 0-2's attn_qkv is Gated DeltaNet's)", r.err)
    compare(f"qwen3next {dtype} gguf (query rows of the gated attn_q, pairs (i, i+2))",
            {(0, h, i): v for (l, h, i), v in rows.items() if l == 3}, rq, rk)
    r2, rows2 = table(["-s", "hf:" + cp, "--weights", sp])
    ok(r2.rc == 0, f"qwen3next {dtype}: hf: of the same weights runs", r2.err)
    same_as(f"qwen3next {dtype}", rows, rows2)

# a full-attention layer's fused attn_qkv ([query and gate per head | k | v]) is refused
a = "qwen3next"
kvs3 = [("general.architecture", gw.STRING, a), (f"{a}.context_length", gw.UINT32, 4096),
        (f"{a}.embedding_length", gw.UINT32, 32), (f"{a}.block_count", gw.UINT32, 4),
        (f"{a}.attention.head_count", gw.UINT32, 4), (f"{a}.attention.head_count_kv", gw.UINT32, 2),
        (f"{a}.attention.key_length", gw.UINT32, 16),
        (f"{a}.attention.value_length", gw.UINT32, 16),
        (f"{a}.rope.dimension_count", gw.UINT32, 4)]
fq = path("qwen3next-fused.gguf")
with open(fq, "wb") as f:
    f.write(gw.gguf(kvs3, [(f"blk.{l}.attn_qkv.weight", [32, rows], gw.GGML_F32,
                            st_write.encode(np.ones((rows, 32)), "F32"))
                           for l, rows in ((0, 48), (1, 48), (2, 48), (3, (8 + 2 + 2) * 16))]))
error_case(EXE, "qwen3next's fused attn_qkv in its attention layer",
           ["usage", "-s", "gguf:" + fq, "--weights", fq, "-o", "-"], 1,
           "GGUF: qwen3next's gated query in a fused attn_qkv is not read")

# ---- errors ----------------------------------------------------------------------------------
kvs = [("general.architecture", gw.STRING, "llama"), ("llama.context_length", gw.UINT32, 4096),
       ("llama.embedding_length", gw.UINT32, hidden), ("llama.block_count", gw.UINT32, 1),
       ("llama.attention.head_count", gw.UINT32, H),
       ("llama.attention.head_count_kv", gw.UINT32, KV)]
q4 = path("q4k.gguf")
with open(q4, "wb") as f:
    # a Q4_K block: 256 weights in 144 bytes (ggml-common.h block_q4_K); the bytes are
    # never read
    f.write(gw.gguf(kvs, [("blk.0.attn_q.weight", [256, H * hd], gw.GGML_Q4_K,
                           bytes(144 * H * hd)),
                          ("blk.0.attn_k.weight", [256, KV * hd], gw.GGML_Q4_K,
                           bytes(144 * KV * hd))]))
error_case(EXE, "a quantised GGUF tensor (Q4_K)", ["usage", "-s", "gguf:" + q4, "--weights", q4,
                                                   "-o", "-"], 1,
           "tensor blk.0.attn_q.weight is Q4_K; usage reads F32, F16, BF16 and F64 GGUF tensors")
q8 = path("q8.gguf")
with open(q8, "wb") as f:
    f.write(gw.gguf(kvs, [("blk.0.attn_q.weight", [hidden, H * hd], gw.GGML_F16,
                           bytes(2 * hidden * H * hd)),
                          ("blk.0.attn_k.weight", [hidden, KV * hd], gw.GGML_Q8_0,
                           bytes(34 * KV * hd))]))
error_case(EXE, "F16 attn_q, Q8_0 attn_k", ["usage", "-s", "gguf:" + q8, "--weights", q8,
                                             "-o", "-"], 1, "tensor blk.0.attn_k.weight is Q8_0;")
llama_gg, llama_cfg = path("llama-F32.gguf"), path("llama-F32.json")
error_case(EXE, "GGUF weights with an HF config", ["usage", "-s", "hf:" + llama_cfg, "--weights",
                                                   llama_gg, "-o", "-"], 1,
           "GGUF weights are paired as the GGUF's own metadata says")
error_case(EXE, "-s gguf: of one file, --weights another",
           ["usage", "-s", "gguf:" + llama_gg, "--weights", path("qwen2-F32.gguf"), "-o", "-"], 2,
           "-s gguf:FILE --weights FILE, the same file")
trunc = path("trunc.gguf")
with open(llama_gg, "rb") as f:
    data = f.read()
with open(trunc, "wb") as f:
    f.write(data[:-64])
r = run(EXE, "usage", "-s", "gguf:" + trunc, "--weights", trunc, "-o", "-")
ok(r.rc == 1 and "past the end of the file" in r.err, "a truncated GGUF: its tensor runs past "
   "the end", r.err)
dup = path("dup.gguf")
one = st_write.encode(np.ones((H * hd, hidden)), "F32")
with open(dup, "wb") as f:
    f.write(gw.gguf(kvs, [("blk.0.attn_q.weight", [hidden, H * hd], gw.GGML_F32, one),
                          ("blk.0.attn_q.weight", [hidden, H * hd], gw.GGML_F32, one)]))
error_case(EXE, "a GGUF naming a tensor twice", ["usage", "-s", "gguf:" + dup, "--weights", dup,
                                                 "-o", "-"], 1,
           "tensor 'blk.0.attn_q.weight' appears twice")
# Every tensor's info is kept (and counted): 20000 one-value tensors, their infos about 13 MB
# in memory, are refused under a small --max-memory, and open under a large one.
many = path("many.gguf")
with open(many, "wb") as f:
    f.write(gw.gguf(kvs + [("general.alignment", gw.UINT32, 4)],
                    [(f"t.{i}", [1], [0.0]) for i in range(20000)], alignment=4))
r = run(EXE, "usage", "-s", "gguf:" + many, "--weights", many, "--max-memory", "16M", "-o", "-")
ok(r.rc == 1 and "more than the" in r.err and "memory" in r.err,
   "20000 GGUF tensor infos over a 16M --max-memory: refused", r.err)
r = run(EXE, "usage", "-s", "gguf:" + many, "--weights", many, "--max-memory", "2G", "-o", "-")
ok(r.rc == 1 and "no layers with query and key projections" in r.err,
   "20000 GGUF tensor infos under 2G: read, no attention tensors among them", r.err)
done()

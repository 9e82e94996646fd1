#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: small valid files of every
kind the readers accept (and a few specs), into OUTDIR/{npy,safetensors,csv,spec}.
Pure Python, so it runs where numpy is missing; numpy-written files are
added when numpy is there."""
import json
import os
import struct
import sys


def npy(major, descr, shape, data, fortran=False):
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_text)
    lenfield = 2 if major == 1 else 4
    total = 8 + lenfield + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    fmt = "<H" if major == 1 else "<I"
    return b"\x93NUMPY" + bytes([major, 0]) + struct.pack(fmt, len(header)) + header.encode() + data


def safetensors(tensors, metadata=None):
    header, blob = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + blob


def main():
    out = sys.argv[1]
    for kind in ("npy", "safetensors", "csv", "spec", "json", "list", "hf", "gguf"):
        os.makedirs(os.path.join(out, kind), exist_ok=True)

    def write(kind, name, data):
        with open(os.path.join(out, kind, name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    f8 = struct.pack("<6d", 0.5, -1.25, 3.0, 1e-300, -0.0, 65504.0)
    write("npy", "v1_f8", npy(1, "<f8", (2, 3), f8))
    write("npy", "v2_f4", npy(2, "<f4", (3, 2), struct.pack("<6f", 1, 2, 3, 4, 5, 6)))
    write("npy", "v3_f2", npy(3, "<f2", (2, 2), struct.pack("<4H", 0x3C00, 0xC000, 0x7BFF, 1)))
    write("npy", "be_f8", npy(1, ">f8", (2, 3), struct.pack(">6d", 1, 2, 3, 4, 5, 6)))
    write("npy", "be_f2", npy(1, ">f2", (4,), struct.pack(">4H", 0x3C00, 0xC000, 0x7BFF, 1)))
    write("npy", "fortran", npy(1, "<f8", (2, 3), f8, fortran=True))
    write("npy", "i8", npy(1, "<i8", (2,), struct.pack("<2q", 1, 2)))

    f32 = struct.pack("<6f", 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
    write("safetensors", "gpt2", safetensors(
        [("wpe.weight", "F64", [2, 3], f8), ("wte.weight", "F32", [2, 3], f32),
         ("h.0.attn.bias", "I64", [1], struct.pack("<q", 7))], {"format": "pt"}))
    write("safetensors", "halves", safetensors(
        [("transformer.wpe.weight", "BF16", [2, 2], struct.pack("<4H", 0x3F80, 0x4049, 0xC2F7, 1)),
         ("h", "F16", [4], struct.pack("<4H", 0x3800, 0xFBFF, 0x0400, 1))]))
    write("safetensors", "empty", safetensors([]))
    write("safetensors", "scalar", safetensors([("s", "F32", [], struct.pack("<f", 2.0)),
                                               ("z", "F32", [0, 4], b"")]))

    write("csv", "posenc", "position,0,1,2\n0,0,1,0\n1,0.8414709848078965,0.54030230586813977,0.0001\n")
    write("csv", "pandas", ",a,b\n0,1.5,nan\n1,-inf,2e-3\n")
    write("csv", "plain", "1,2,3\n4,5,6\n")
    write("csv", "quoted", "\ufeff\"pos\",\"a,b\"\r\n# c\r\n0,1\r\n1,2\r\n")

    for i, spec in enumerate([
            "sinusoidal", "sinusoidal:base=10,layout=blocks,freq=t2t,start=2,label=x",
            "rope:base=500000,layout=half,rotary=0.5", "rope:scaling=yarn,factor=4,original=4096",
            "rope:scaling=llama3,factor=8,low=1,high=4", "rope:scaling=longrope,long-factor=1/2/3",
            "learned:seed=3,std=0.02", "binary", "alibi:heads=12,form=official",
            "t5:buckets=32,max-distance=128,bidirectional=0",
            "rope:base=1000000,layout=half,head=512,scaling=proportional,proportion=0.25",
            "file:path=gpt2.safetensors,tensor=wpe.weight,rows=2:10", "model.safetensors#wpe.weight",
            "x.npy"]):
        write("spec", "spec%02d" % i, spec)

    for i, doc in enumerate([
            '{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"__metadata__":{"k":"v"}}',
            '[1,-2.5e-3,true,false,null,"\\u00e9\\ud83d\\ude00",{"":[]}]', '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
            '18446744073709551615', ' {"nested":[[[[{"x":1}]]]]} ']):
        write("json", "doc%02d" % i, doc)
    for i, text in enumerate(["1/2/3", "1 2 3\n", "[1.0, 1.5, 2.0]", "1,2,3,", "1e0\t2e-1"]):
        write("list", "list%02d" % i, text)

    configs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                           "configs")
    for name in sorted(os.listdir(configs)):
        with open(os.path.join(configs, name), "rb") as f:
            write("hf", name, f.read())
    # Published configs of the other paths: class defaults, wrappers, aliases, learned
    # tables, MPT, refusals (tests/fixtures/hf), and a few small ones written here.
    published = os.path.join(os.path.dirname(configs), "hf")
    for name in sorted(os.listdir(published)):
        if name.endswith(".json"):
            with open(os.path.join(published, name), "rb") as f:
                write("hf", "pub-" + name, f.read())
    for i, doc in enumerate([
            '{"model_type":"brandnew","hidden_size":64,"num_attention_heads":4,"rope_theta":5e4}',
            '{"model_type":"cohere2","hidden_size":64,"num_attention_heads":4,"num_hidden_layers":8,'
            '"sliding_window":16,"sliding_window_pattern":4}',
            '{"model_type":"whisper","d_model":64,"max_source_positions":30,'
            '"max_target_positions":20}',
            '{"model_type":"llava","text_config":{"max_position_embeddings":4096}}',
            '{"model_type":"hunyuan_v1_dense","hidden_size":64,"num_attention_heads":4,'
            '"rope_scaling":{"type":"dynamic","alpha":1000.0,"factor":1.0}}',
            '{"model_type":"llama4","text_config":{"model_type":"llama4_text","num_hidden_layers":8}}',
            '{"model_type":"mllama","text_config":{"model_type":"mllama_text_model",'
            '"num_hidden_layers":4,"cross_attention_layers":[1,3]}}',
            '{"model_type":"mpt","n_heads":12,"attn_config":{"alibi_bias_max":16}}',
            '{"model_type":"qwen2","max_position_embeddings":32768,"rope_scaling":{"type":"yarn",'
            '"factor":4.0,"original_max_position_embeddings":32768,"finetuned":true}}']):
        write("hf", "paths%02d" % i, doc)

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
    from gguf_write import FLOAT32, STRING, UINT32, gguf
    write("gguf", "llama", gguf([
        ("general.architecture", STRING, "llama"), ("llama.context_length", UINT32, 8192),
        ("llama.embedding_length", UINT32, 64), ("llama.attention.head_count", UINT32, 4),
        ("llama.rope.freq_base", FLOAT32, 500000.0)],
        [("rope_freqs.weight", [8], [1.0, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0])]))
    write("gguf", "qwen-yarn", gguf([
        ("general.architecture", STRING, "qwen2"), ("qwen2.context_length", UINT32, 32768),
        ("qwen2.embedding_length", UINT32, 64), ("qwen2.attention.head_count", UINT32, 2),
        ("qwen2.rope.scaling.type", STRING, "yarn"), ("qwen2.rope.scaling.factor", FLOAT32, 4.0),
        ("qwen2.rope.scaling.original_context_length", UINT32, 8192)]))
    write("gguf", "phi3", gguf([
        ("general.architecture", STRING, "phi3"), ("phi3.context_length", UINT32, 16384),
        ("phi3.embedding_length", UINT32, 32), ("phi3.attention.head_count", UINT32, 2),
        ("phi3.rope.scaling.original_context_length", UINT32, 4096)],
        [("rope_factors_long.weight", [8], [2.0] * 8),
         ("rope_factors_short.weight", [8], [1.0] * 8)]))

    try:
        import numpy as np
    except ImportError:
        return
    import io
    for dtype in ("<f8", "<f4", "<f2", ">f4"):
        buf = io.BytesIO()
        np.save(buf, np.arange(12, dtype=dtype).reshape(3, 4) / 7)
        write("npy", "numpy_" + dtype.replace("<", "le").replace(">", "be"), buf.getvalue())
    buf = io.BytesIO()
    np.save(buf, np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    write("npy", "numpy_fortran", buf.getvalue())


if __name__ == "__main__":
    main()

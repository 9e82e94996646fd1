"""A safetensors writer from the format's description (huggingface/safetensors README):
an 8-byte little-endian header length, the JSON header (dtype, shape, data_offsets per
tensor), then the raw little-endian data. Only numpy; used to make test checkpoints."""
import json
import struct

import numpy as np


def bf16_bits(a):
    """float32 values truncated to bfloat16 bit patterns (uint16)."""
    return (np.ascontiguousarray(a, dtype="<f4").view("<u4") >> 16).astype("<u2")


def bf16_values(bits):
    return (bits.astype("<u4") << 16).view("<f4").astype(np.float64)


def encode(a, dtype):
    if dtype == "F32":
        return np.ascontiguousarray(a, dtype="<f4").tobytes()
    if dtype == "F16":
        return np.ascontiguousarray(a, dtype="<f2").tobytes()
    if dtype == "BF16":
        return bf16_bits(a).tobytes()
    if dtype == "F64":
        return np.ascontiguousarray(a, dtype="<f8").tobytes()
    raise ValueError(dtype)


def stored(a, dtype):
    """The float64 values a tensor holds once written in dtype."""
    if dtype == "F32":
        return np.asarray(a, dtype=np.float32).astype(np.float64)
    if dtype == "F16":
        return np.asarray(a, dtype=np.float16).astype(np.float64)
    if dtype == "BF16":
        return bf16_values(bf16_bits(np.asarray(a, dtype=np.float32)))
    return np.asarray(a, dtype=np.float64)


def write(path, tensors, dtype="F32"):
    """tensors: {name: array} (or {name: (array, dtype)}), written in the given order."""
    header, blobs, at = {}, [], 0
    for name, v in tensors.items():
        a, dt = v if isinstance(v, tuple) else (v, dtype)
        b = encode(a, dt)
        header[name] = {"dtype": dt, "shape": list(np.shape(a)), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def write_sparse(path, shapes, dtype, pieces):
    """A checkpoint of the given {name: shape} whose data is zero except pieces
    {name: (first_row, array)}: the file is extended with truncate, so the zero pages
    are holes that take no disk and read back as zeros."""
    size = {"F32": 4, "F16": 2, "BF16": 2}[dtype]
    header, at, offs = {}, 0, {}
    for name, shape in shapes.items():
        n = int(np.prod(shape)) * size
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [at, at + n]}
        offs[name] = at
        at += n
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    base = 8 + len(h)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        f.truncate(base + at)
        for name, (row, a) in pieces.items():
            cols = shapes[name][1]
            f.seek(base + offs[name] + row * cols * size)
            f.write(encode(a, dtype))
    return base + at

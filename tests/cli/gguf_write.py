"""A small GGUF writer for tests, from ggml's GGUF specification (docs/gguf.md):
little-endian; magic "GGUF", uint32 version, uint64 tensor count, uint64 key-value count;
each pair a string key (uint64 length + UTF-8 bytes), a uint32 value type and the value;
each tensor info its name, uint32 dimension count, uint64 dimensions, uint32 ggml type and
uint64 offset into the data section, which starts at the next multiple of
general.alignment (32 by default)."""
import struct

UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, \
    FLOAT64 = range(13)
FMT = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i",
       FLOAT32: "<f", BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}


def string(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def value(t, v):
    if t == STRING:
        return string(v)
    if t == ARRAY:
        et, items = v
        out = struct.pack("<IQ", et, len(items))
        return out + b"".join(value(et, x) for x in items)
    return struct.pack(FMT[t], v)


# ggml's type numbers (ggml.h enum ggml_type) of the float types and a few quantised ones
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q8_0, GGML_Q4_K, GGML_F64, GGML_BF16 = 0, 1, 2, 8, 12, 28, 30


def gguf(kvs, tensors=(), version=3, alignment=32):
    """kvs: [(key, type, value)]; tensors: [(name, [dims], float32 values)] (F32), or
    (name, [dims], ggml type, data bytes) for any other type: dims are ggml's ne, the
    fastest first (a row-major [out, in] array is ne [in, out])."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, t, v in kvs:
        out += string(key) + struct.pack("<I", t) + value(t, v)
    data, infos = b"", b""
    for name, dims, *rest in tensors:
        while len(data) % alignment:
            data += b"\0"
        gtype = rest[0] if len(rest) == 2 else GGML_F32
        infos += string(name) + struct.pack("<I", len(dims)) + \
            b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", gtype, len(data))
        data += rest[1] if len(rest) == 2 else b"".join(struct.pack("<f", x) for x in rest[0])
    out += infos
    while len(out) % alignment:
        out += b"\0"
    return out + data

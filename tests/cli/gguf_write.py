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


def gguf(kvs, tensors=(), version=3, alignment=32):
    """kvs: [(key, type, value)]; tensors: [(name, [dims], float32 values)] (F32)."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, t, v in kvs:
        out += string(key) + struct.pack("<I", t) + value(t, v)
    data, infos = b"", b""
    for name, dims, values in tensors:
        while len(data) % alignment:
            data += b"\0"
        infos += string(name) + struct.pack("<I", len(dims)) + \
            b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", 0, len(data))
        data += b"".join(struct.pack("<f", x) for x in values)
    out += infos
    while len(out) % alignment:
        out += b"\0"
    return out + data

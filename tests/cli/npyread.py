"""Read an NPY file with the standard library only: (shape, flat values)."""
import ast
import struct


def load_npy(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not an NPY file")
    if raw[6] == 1:
        (hlen,) = struct.unpack("<H", raw[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", raw[8:12])
        start = 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    code = {"<f8": "d", "<f4": "f"}[header["descr"]]
    data = raw[start + hlen:]
    count = len(data) // struct.calcsize(code)
    return tuple(header["shape"]), struct.unpack(f"<{count}{code}", data)

"""Minimal .npy writer/checker for lit tests (no numpy on the test machines).

  npy_io.py write FILE DTYPE SHAPE VALUES       e.g. write x.npy float32 2,3 1,2,3,4,5,6
  npy_io.py check FILE SHAPE VALUES [TOL]       exits 1 naming the first mismatch
"""
import ast
import struct
import sys

CODES = {"float32": ("<f4", "f"), "int32": ("<i4", "i"), "int64": ("<i8", "q"), "uint8": ("|u1", "B"),
         "int8": ("|i1", "b"), "float16": ("<f2", "e")}


def parse_list(text, cast):
    return [cast(v) for v in text.split(",") if v != ""]


def write(path, dtype, shape, values):
    descr, fmt = CODES[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    major = data[6]
    hlen_size = 2 if major == 1 else 4
    hlen = int.from_bytes(data[8:8 + hlen_size], "little")
    header = ast.literal_eval(data[8 + hlen_size:8 + hlen_size + hlen].decode())
    fmt = {v[0]: v[1] for v in CODES.values()}[header["descr"]]
    count = 1
    for d in header["shape"]:
        count *= d
    body = data[8 + hlen_size + hlen:]
    return list(header["shape"]), list(struct.unpack("<%d%s" % (count, fmt), body[:count * struct.calcsize(fmt)]))


def main():
    if sys.argv[1] == "write":
        _, _, path, dtype, shape, values = sys.argv
        cast = float if dtype.startswith("float") else int
        write(path, dtype, parse_list(shape, int), parse_list(values, cast))
        return 0
    _, _, path, shape, values = sys.argv[:5]
    tol = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-5
    got_shape, got = read(path)
    want = parse_list(values, float)
    if got_shape != parse_list(shape, int):
        print("%s: shape %s, expected %s" % (path, got_shape, shape))
        return 1
    for i, (g, w) in enumerate(zip(got, want)):
        if abs(g - w) > tol:
            print("%s: element %d is %r, expected %r" % (path, i, g, w))
            return 1
    if len(got) != len(want):
        print("%s: %d values, expected %d" % (path, len(got), len(want)))
        return 1
    print("%s ok" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Writes a 1-D or 2-D .npy file without numpy:
write_npy.py OUT DTYPE SHAPE VALUES...  (DTYPE i32 or f32; SHAPE like 4 or 3x2)."""
import struct
import sys

out, dtype, shape = sys.argv[1], sys.argv[2], sys.argv[3]
dims = tuple(int(d) for d in shape.split("x"))
values = sys.argv[4:]
descr, fmt, cast = {"i32": ("<i4", "<i", int), "f32": ("<f4", "<f", float)}[dtype]
shape_text = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    for v in values:
        f.write(struct.pack(fmt, cast(v)))

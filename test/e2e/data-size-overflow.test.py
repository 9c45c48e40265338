#!/usr/bin/env python3
"""Write a data file whose array shape has a byte size that wraps around 64 bits.

``x`` is declared ``(2**58 + 1, 64)`` float32: (2**58 + 1) * 64 * 4 bytes is
2**66 + 256, i.e. 256 modulo 2**64, and the file holds exactly 256 data bytes,
so a size check that multiplies without overflow detection passes and the
runtime then treats 2**58 + 1 rows as present. ``labels`` is a valid
(1,) int64 array. Stored (not deflated), as numpy.savez writes.

    python3 data-size-overflow.test.py OUT.npz
"""
import struct
import sys
import zipfile


def npy(descr, shape, data):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def main():
    with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
        z.writestr("x.npy", npy("<f4", (2**58 + 1, 64), bytes(256)))
        z.writestr("labels.npy", npy("<i8", (1,), bytes(8)))


if __name__ == "__main__":
    main()

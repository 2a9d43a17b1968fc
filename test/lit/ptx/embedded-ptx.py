"""Writes the PTX a compiled model library embeds for one architecture.

    embedded-ptx.py model.so SYMBOL out.ptx   (SYMBOL: aimz_ptx, aimz_ptx_sm90)
"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
text = ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(lib, sys.argv[2])))
if not text:
    sys.exit("%s embeds no PTX under %s" % (sys.argv[1], sys.argv[2]))
with open(sys.argv[3], "wb") as f:
    f.write(text)

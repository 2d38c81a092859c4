# driver of d014_unsigned_c_conversions.pyx: run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
mod = __import__(sys.argv[1] if len(sys.argv) > 1 else "d014_unsigned_c_conversions")
for args in [(0, 8, 2, 1), (7, -20, 2, 3), (7, 3, 2, 2**64 - 9), (1, -1, -5, 4), (2**63, 2**62, 7, 2**63 + 1)]:
    try:
        print("return", repr(mod.f(*args)))
    except Exception as e:
        print("raised", type(e).__name__, e)

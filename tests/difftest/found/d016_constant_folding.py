# driver of d016_constant_folding.pyx: run in the directory of the built module
import os, sys
sys.path.insert(0, os.getcwd())
mod = __import__(sys.argv[1] if len(sys.argv) > 1 else "d016_constant_folding")
for k in (0, 3):
    try:
        print("return", repr(mod.f(k)))
    except Exception as e:
        print("raised", type(e).__name__, e)

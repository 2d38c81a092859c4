import sys
import os
sys.path.insert(0, os.getcwd())  # the built module, not this driver of the same name
mod = __import__(sys.argv[1])
for fn, v in ((mod.f, 200), (mod.f, -2**70), (mod.g, 2**70)):
    try:
        print(fn(v))
    except Exception as e:
        print(type(e).__name__, e)

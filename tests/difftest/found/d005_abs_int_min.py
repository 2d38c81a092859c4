import sys
import os
sys.path.insert(0, os.getcwd())  # the built module, not this driver of the same name
mod = __import__(sys.argv[1])
for v in (-5, -2**31):
    try:
        print(mod.f(v))
    except Exception as e:
        print(type(e).__name__, e)

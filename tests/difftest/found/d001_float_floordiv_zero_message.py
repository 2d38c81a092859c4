import sys
import os
sys.path.insert(0, os.getcwd())  # the built module, not this driver of the same name
mod = __import__(sys.argv[1])
try:
    print(mod.f(5.0, 0.0))
except Exception as e:
    print(type(e).__name__, e)

import sys
mod = __import__(sys.argv[1])
try:
    print(mod.f(5.0, 0.0))
except Exception as e:
    print(type(e).__name__, e)

import sys
mod = __import__(sys.argv[1])
for v in (-5, -2**31):
    try:
        print(mod.f(v))
    except Exception as e:
        print(type(e).__name__, e)

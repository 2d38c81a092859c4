import time


def check(mod):
    dt, s = mod.busy(100000)
    assert 0.0 <= dt < 60.0 and s == sum(i * 0.5 for i in range(100000))
    t = mod.now()
    assert isinstance(t, int) and abs(t - time.time()) < 120

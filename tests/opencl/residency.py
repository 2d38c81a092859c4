#!/usr/bin/env python3
"""Residency across regions and calls (DESIGN §4.5-4.6), shown from the trace.

Builds tests/opencl/residency.pyx with `cyocl build` and runs each scenario in
a fresh process under CYOCL_FORCE=opencl with a CYOCL_TRACE file; every
result is also checked against numpy, and every scenario is run once more
under CYOCL_FORCE=native (same results, nothing moved).

Usage: residency.py --cyocl build/cyocl [--work DIR] [--only SCENARIO ...]
Exit status 0 all passed, 1 a failure, 77 no OpenCL device (skipped).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Each scenario: code run in a fresh python3 with the module imported as m,
# cyocl imported, numpy as np; T() returns the trace records so far.
SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn.__doc__
    return fn


@scenario
def jacobi_moves_once():
    """
u = np.random.default_rng(1).random((256, 300)); t = u.copy()
ru, rt = u.copy(), u.copy()
def ref(a, out): out[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
m.jacobi(u, t, 50)
for _ in range(50): ref(ru, rt); ref(rt, ru)
assert np.allclose(u, ru) and np.allclose(t, rt)
if OPENCL:
    recs = T()
    regions = [r for r in recs if 'impl' in r]
    assert len(regions) == 100 and all(r['impl'] == 'opencl' for r in regions), regions[:3]
    size = u.nbytes
    # each array goes to the device once (the first two regions) ...
    assert sum(r['bytes_to_device'] for r in regions) == 2 * size, [r['bytes_to_device'] for r in regions[:4]]
    assert all(r['bytes_to_device'] == 0 for r in regions[2:])
    assert all(r['bytes_to_host'] == 0 for r in regions)
    # ... and back once, when jacobi returns
    syncs = [r for r in recs if r.get('event') == 'sync']
    assert [(s['function'], s['reason'], s['bytes_to_host']) for s in syncs] == [('jacobi', 'return', 2 * size)], syncs
    st = cyocl.stats()
    assert (st['to_device'], st['to_host']) == (2, 2), st
"""


@scenario
def resident_moves_nothing():
    """
a = np.arange(1000, dtype=np.float64)
exp = a.copy()
with cyocl.resident(a):
    for k in range(10):
        m.scale(a, 1.5)
        exp *= 1.5
    if OPENCL:
        recs = T()
        assert len(recs) == 10, recs
        assert recs[0]['bytes_to_device'] == a.nbytes
        assert all(r['bytes_to_device'] == 0 and r['bytes_to_host'] == 0 for r in recs[1:]), recs
        assert cyocl.stats()['to_host'] == 0
    cyocl.to_host(a)                  # Python may look now
    assert np.allclose(a, exp)
    a[0] = 100.0; exp[0] = 100.0      # and write
    m.scale(a, 2.0); exp *= 2.0
assert np.allclose(a, exp), (a[:4], exp[:4])
st = cyocl.stats()
assert st['regions'] == 0 and st['handles'] == 0, st
"""


@scenario
def resident_exit_syncs():
    """
a = np.ones(4096)
with cyocl.resident(a):
    m.scale(a, 3.0)
assert np.all(a == 3.0)
"""


@scenario
def returns_up_to_date():
    """
a = np.arange(5000, dtype=np.float64)
for k in range(3):
    m.scale(a, 2.0)
    assert a[17] == 17.0 * 2 ** (k + 1), a[17]  # read straight after each call
st = cyocl.stats()   # time per implementation
if OPENCL:
    assert st['launches'] == 3 and st['opencl_ns'] > 0 and st['native_regions'] == 0, st
else:
    assert st['native_regions'] == 3 and st['native_ns'] > 0 and st['launches'] == 0, st
"""


@scenario
def host_access_between_regions():
    """
a = np.arange(100, dtype=np.float64)
first, last = m.host_between(a)
exp = np.arange(100, dtype=np.float64) + 1.0
assert first == 1.0, first
exp[-1] = -100.0
exp *= 2.0
assert last == -200.0 and np.array_equal(a, exp), (last, a[-3:])
if OPENCL:
    syncs = [r for r in T() if r.get('event') == 'sync']
    assert syncs and syncs[0]['reason'] == 'host use', syncs
"""


@scenario
def host_use_syncs_its_views_only():
    """
a = np.arange(4096, dtype=np.float64); b = np.ones(8192); c = np.full(1024, 2.0)
with cyocl.resident(a, b, c):
    m.scale(a, 2.0); m.scale(b, 3.0); m.scale(c, 5.0)
    n0 = len(T())
    assert m.peek(a, 7) == 14.0          # a comes back, b and c stay
    assert m.peek(a, 9) == 18.0          # nothing moves any more
    m.poke(c, 0, -1.0)                   # c: host write (its device copy goes)
    m.scale(b, 2.0); m.scale(c, 2.0)
    if OPENCL:
        recs = T()[n0:]
        syncs = [r for r in recs if r.get('event') == 'sync']
        assert [(s['function'], s['bytes_to_host']) for s in syncs] == [('peek', a.nbytes), ('poke', c.nbytes)], syncs
        regs = [r for r in recs if r.get('impl') == 'opencl']
        # b never moved; c went up again after the host wrote it
        assert [(r['bytes_to_device'], r['bytes_to_host']) for r in regs] == [(0, 0), (c.nbytes, 0)], regs
assert np.array_equal(a, np.arange(4096) * 2.0)
assert np.all(b == 6.0)
assert c[0] == -2.0 and np.all(c[1:] == 20.0)
"""


@scenario
def serial_loop():
    """
a = np.arange(10000, dtype=np.float64)
s = m.serial_loop_after(a)
assert s == 3.0 * np.arange(10000).sum() and np.array_equal(a, 3.0 * np.arange(10000))
"""


@scenario
def temporaries_die_on_device():
    """
n = 100000
assert m.temporaries(n, 20) == 20 * (n * (n - 1) / 2)
st = cyocl.stats()
assert st['regions'] == 0 and st['handles'] == 0, st
"""


@scenario
def nested_defs_stay_resident():
    """
x = np.arange(64 * 8, dtype=np.float64).reshape(64, 8); h = np.zeros_like(x); o = np.zeros_like(x)
with cyocl.resident(x, h, o):
    for k in range(5):
        m.two_layers(x, h, o)
    if OPENCL:
        # x goes up with the first layer; h and o, which the layers write
        # whole, never go up (CYRT_WRITE_ALL); nothing comes back between
        # the calls of the def inside the def
        st = cyocl.stats()
        assert (st['to_device'], st['to_host']) == (1, 0), st
        assert not [r for r in T() if r.get('event') == 'sync'], T()
    # a name that is not the module's def any more is Python code: the data
    # comes back first (and its device copies go, or leaving the block
    # would copy them over what Python wrote)
    real = m.layer
    def np_layer(a, b):
        b[:] = np.asarray(a) * 3.0
    m.layer = np_layer
    m.two_layers(x, h, o)
    m.layer = real
assert np.all(h == 3 * x) and np.all(o == 9 * x), (h[0], o[0])
"""


@scenario
def python_in_between():
    """
a = np.zeros(1000)
seen = []
def f():
    seen.append(a.sum())   # must see the first region's write
    a[:] += 5.0            # must reach the second region
m.through_python(a, f)
assert seen == [1000.0], seen
assert np.all(a == 60.0), a[:4]
"""


@scenario
def raise_keeps_writes():
    """
a = np.zeros(1000)
try:
    m.write_then_fail(a, 1000)
except IndexError as e:
    assert 'Out of bounds' in str(e), e
else:
    raise AssertionError('no IndexError')
assert np.all(a == 7.0), a[:4]
st = cyocl.stats()
assert st['regions'] == 0 and st['handles'] == 0, st
if OPENCL:
    # both regions ran on the device, the second one raised there
    ran = [r for r in T() if r.get('impl') == 'opencl' and r['function'] == 'write_then_fail']
    assert len(ran) == 2, T()
"""


@scenario
def pin_host_runs_natively():
    """
a = np.ones(1000)
with cyocl.pin_host(a):
    m.scale(a, 2.0)
m.scale(a, 2.0)
assert np.all(a == 4.0)
if OPENCL:
    recs = [r for r in T() if 'impl' in r]
    assert recs[0]['impl'] == 'native' and recs[0]['reason'] == 'fallback: pinned to the host (cyocl.pin_host)', recs[0]
    assert recs[1]['impl'] == 'opencl', recs[1]
"""


# Run under CYOCL_FORCE=opencl without a trace: the trace times every
# kernel, so its launches always wait for them.
UNTRACED = {"quiet_kernels_unwaited"}
# ... and under CYOCL_FORCE=native without a trace: regions are counted, not timed
UNTRACED_NATIVE = {"forced_native_counted_untimed", "force_switches_at_run_time"}


@scenario
def forced_native_counted_untimed():
    """
a = np.arange(5000, dtype=np.float64)
for k in range(3):
    m.scale(a, 2.0)
assert a[17] == 17.0 * 8, a[17]
st = cyocl.stats()
if OPENCL:
    assert st['launches'] == 3 and st['native_regions'] == 0, st
else:
    # no dispatcher, no trace: nothing reads the clock (prelude.h: cyrt_timing)
    assert 'CYOCL_TRACE' not in os.environ
    assert st['native_regions'] == 3 and st['native_ns'] == 0 and st['launches'] == 0, st
"""


@scenario
def force_switches_at_run_time():
    """
a = np.arange(5000, dtype=np.float64)
start = 'opencl' if OPENCL else 'native'
s0 = cyocl.stats()
assert cyocl.force('native') == start
m.scale(a, 2.0)
s1 = cyocl.stats()
assert s1['launches'] == s0['launches'] and s1['native_regions'] == s0['native_regions'] + 1, (s0, s1)
assert cyocl.force('opencl') == 'native'
m.scale(a, 2.0)
s2 = cyocl.stats()
assert s2['launches'] == s1['launches'] + 1 and s2['native_regions'] == s1['native_regions'], (s1, s2)
assert cyocl.force(None) == 'opencl'
for k in range(4):
    m.scale(a, 2.0)
s3 = cyocl.stats()
assert s3['launches'] + s3['native_regions'] == s2['launches'] + s2['native_regions'] + 4, (s2, s3)
assert cyocl.force(mode=start) == 'auto'
assert a[17] == 17.0 * 2 ** 6, a[17]
for bad in ('gpu', 1):
    try:
        cyocl.force(bad)
    except ValueError as e:
        assert 'mode' in str(e), e
    else:
        raise AssertionError('no ValueError for %r' % (bad,))
assert cyocl.force(start) == start
if 'CYOCL_TRACE' in os.environ:
    why = [r['reason'] for r in T() if 'impl' in r]
    assert why[:2] == ['forced', 'forced'] and 'forced' not in why[2:6], why
"""


@scenario
def quiet_kernels_unwaited():
    """
a = np.arange(100000, dtype=np.float64)
exp = a.copy()
s0 = cyocl.stats()
with cyocl.resident(a):
    for k in range(10):
        m.scale(a, 1.5)        # boundscheck off, no reduction: its kernel reports nothing
        exp *= 1.5
    if OPENCL:
        st = cyocl.stats()
        assert st['launches'] - s0['launches'] == 10, st
        # no launch waited for its kernel ...
        assert st['unwaited_launches'] - s0['unwaited_launches'] == 10, st
        assert st['result_reads'] == s0['result_reads'], st
        # finish() waits for them without moving data
        cyocl.finish()
        st2 = cyocl.stats()
        assert st2['drains'] == st['drains'] + 1 and st2['bytes_to_host'] == st['bytes_to_host'], st2
        cyocl.finish()             # nothing pending: no second wait
        assert cyocl.stats()['drains'] == st2['drains']
        m.scale(a, 1.5)
        exp *= 1.5
    cyocl.to_host(a)           # ... the host access waits for the last one
    assert np.array_equal(a, exp), (a[:4], exp[:4])
    if OPENCL:
        assert cyocl.stats()['drains'] > s0['drains']
    # a host read between two quiet regions of one call sees the first's writes
    first, last = m.host_between(a)
    exp += 1.0
    assert first == exp[0], (first, exp[0])
    exp[-1] = -100.0
    exp *= 2.0
    cyocl.to_host(a)
    assert last == -200.0 and np.array_equal(a, exp), (last, a[-3:])
# a kernel that can raise still waits for its result: the error surfaces in
# the call that raised it, after the first region's writes
b = np.zeros(1000)
s1 = cyocl.stats()
try:
    m.write_then_fail(b, 1000)
except IndexError as e:
    assert 'Out of bounds' in str(e), e
else:
    raise AssertionError('no IndexError')
assert np.all(b == 7.0), b[:4]
if OPENCL:
    st = cyocl.stats()
    assert st['result_reads'] - s1['result_reads'] == 2, st
    assert st['unwaited_launches'] == s1['unwaited_launches'], st
"""


@scenario
def cpdef_scalar_result():
    """
a = np.ones(1000)
assert m.scale_twice(a, 3.0) == 3.0 and np.all(a == 9.0)
if OPENCL:
    recs = T()
    regions = [r for r in recs if 'impl' in r]
    assert len(regions) == 2 and all(r['bytes_to_host'] == 0 for r in regions), regions
    assert regions[1]['bytes_to_device'] == 0, regions
    syncs = [r for r in recs if r.get('event') == 'sync']
    assert [(s['function'], s['reason']) for s in syncs] == [('scale_twice', 'return')], syncs
"""


@scenario
def python_api_errors():
    """
for bad in (lambda: cyocl.resident(42).__enter__(), lambda: cyocl.pin_host('text'), lambda: cyocl.to_host(None),
            lambda: cyocl.resident(np.zeros(3), key=1)):
    try:
        bad()
    except TypeError:
        pass
    else:
        raise AssertionError('no TypeError')
r = cyocl.resident(np.zeros(3))
with r:
    try:
        r.__enter__()
    except RuntimeError:
        pass
    else:
        raise AssertionError('entered twice')
st = cyocl.stats()
assert st['regions'] == 0 and st['handles'] == 0, st
info = cyocl.cache_info()
assert info['state'] in ('on', 'read-only', 'off', 'unsafe') and 'hits' in info, info
"""


# plain calls of several sizes: buffers come back from the pool (runtime/pool.h)
POOL_CALLS = """
import threading
sizes = [1000, 3000, 20000, 150000, 700, 3100]
def calls(seed, rounds):
    rng = np.random.default_rng(seed)
    for rnd in range(rounds):
        for n in sizes:
            a = np.arange(n, dtype=np.float64)
            m.scale(a, 1e9 + rnd)          # leaves large values in the buffer it frees
            assert np.array_equal(a, np.arange(n) * (1e9 + rnd)), (n, a[:3])
            b = np.full(n, -1.0)
            m.fill_even(b, float(rnd))     # its odd elements are not written, its buffer held a's bytes
            exp = np.full(n, -1.0); exp[::2] = rnd
            assert np.array_equal(b, exp), (n, b[:4])
            u = rng.random((8, n // 8)); t = u.copy(); ru, rt = u.copy(), u.copy()
            m.jacobi(u, t, 2)
            for _ in range(2):
                rt[1:-1, 1:-1] = 0.25 * (ru[:-2, 1:-1] + ru[2:, 1:-1] + ru[1:-1, :-2] + ru[1:-1, 2:])
                ru[1:-1, 1:-1] = 0.25 * (rt[:-2, 1:-1] + rt[2:, 1:-1] + rt[1:-1, :-2] + rt[1:-1, 2:])
            assert np.allclose(u, ru) and np.allclose(t, rt), n
calls(0, 3)
# and from several threads at once
errors = []
def run(seed):
    try:
        calls(seed, 2)
    except BaseException as e:
        errors.append(e)
ths = [threading.Thread(target=run, args=(s,)) for s in range(1, 5)]
for th in ths: th.start()
for th in ths: th.join()
assert not errors, errors
st = cyocl.stats()
assert st['regions'] == 0 and st['device_buffers'] == 0, st
"""


def with_pool_calls(fn):
    fn.__doc__ = fn.__doc__.replace("exec(POOL_CALLS)\n", POOL_CALLS)
    return fn


@scenario
@with_pool_calls
def pool_reuses_buffers():
    """
os.environ.pop('CYOCL_POOL_MB', None)   # the default cap (the suite may run under CYOCL_POOL_MB=0)
exec(POOL_CALLS)
if OPENCL:
    # every size misses once at most per buffer it needs at once; the rest hit
    assert st['pool_misses'] > 0 and st['pool_hits'] > 5 * st['pool_misses'], st
    assert st['pool_buffers'] > 0 and st['pool_bytes'] >= 150000 * 8, st
else:
    assert (st['pool_hits'], st['pool_misses'], st['pool_buffers'], st['pool_bytes']) == (0, 0, 0, 0), st
"""


@scenario
@with_pool_calls
def pool_off():
    """
os.environ['CYOCL_POOL_MB'] = '0'   # read when the first call binds the device
exec(POOL_CALLS)
assert (st['pool_hits'], st['pool_misses'], st['pool_buffers'], st['pool_bytes']) == (0, 0, 0, 0), st
if OPENCL:
    assert st['launches'] > 0, st
"""


@scenario
def pool_cap_evicts():
    """
os.environ['CYOCL_POOL_MB'] = '1'
cap = 1 << 20
for rnd in range(3):
    for n in (50000, 75000, 20000, 400000, 60000):   # 400000 doubles: over the cap alone
        x = np.full((2, n // 2), float(rnd)); out = np.zeros_like(x)
        m.layer(x, out)
        assert np.all(out == 2.0 * rnd + 1.0), (n, out[0, :3])
        st = cyocl.stats()
        assert st['pool_bytes'] <= cap, st
if OPENCL:
    assert st['pool_evictions'] > 0 and st['pool_hits'] > 0 and st['pool_buffers'] > 0, st
"""

DRIVER = r"""
import json, os, sys, warnings
warnings.simplefilter('error')   # a fallback warning would be a failure here
sys.path.insert(0, sys.argv[1])
import numpy as np
import cyocl
import residency as m
OPENCL = os.environ.get('CYOCL_FORCE') == 'opencl'
def T():
    with open(os.environ['CYOCL_TRACE']) as f:
        return [json.loads(l) for l in f]
exec(compile(sys.argv[2], 'scenario', 'exec'))
if not OPENCL and 'CYOCL_TRACE' in os.environ:
    assert all(r.get('impl') == 'native' for r in T())
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyocl", required=True)
    ap.add_argument("--work")
    ap.add_argument("--only", action="append", help="run this scenario only (repeatable)")
    a = ap.parse_args()
    if subprocess.run([a.cyocl, "devices"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        print("SKIP: no OpenCL device")
        return 77
    work = a.work or tempfile.mkdtemp(prefix="cyocl-res-")
    os.makedirs(work, exist_ok=True)
    r = subprocess.run([a.cyocl, "build", "-o", work, os.path.join(HERE, "residency.pyx")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL build\n" + r.stdout + r.stderr)
        return 1
    passed = failed = 0
    for name, code in SCENARIOS.items():
        if a.only and name not in a.only:
            continue
        for force in ("opencl", "native"):
            trace = os.path.join(work, "trace-%s-%s.jsonl" % (name, force))
            if os.path.exists(trace):
                os.remove(trace)
            env = dict(os.environ, CYOCL_FORCE=force, CYOCL_TRACE=trace,
                       CYOCL_CACHE_DIR=os.path.join(work, "kcache"))
            if name in (UNTRACED if force == "opencl" else UNTRACED_NATIVE):
                del env["CYOCL_TRACE"]
            p = subprocess.run([sys.executable, "-c", DRIVER, work, code], env=env, capture_output=True,
                               text=True, timeout=300)
            label = "%s [%s]" % (name, force)
            if p.returncode == 0:
                passed += 1
                print("PASS " + label)
            else:
                failed += 1
                print("FAIL " + label + "\n" + p.stdout + p.stderr)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

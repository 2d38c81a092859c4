"""Deterministic inputs of a generated call: base arrays filled from a seed,
and the views (slices of them) and scalars passed as arguments.

spec = {"bases": [(npdtype, shape, order, profile, seed), ...],
        "args":  [("arr", base, ((start, stop, step), ...)) | ("scalar", value)]}
profile: ("int", lo, hi) | ("edge", lo, hi) | ("float", lo, hi, q) | ("fspecial", lo, hi)
"""
import numpy as np


def fill(dtype, shape, profile, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    kind = profile[0]
    if kind in ("int", "edge"):
        lo, hi = profile[1], profile[2]
        v = rng.integers(lo, hi, size=n, endpoint=True, dtype=np.int64 if hi < 2**63 else np.uint64)
        a = v.astype(dtype)
        if kind == "edge" and n:
            info = np.iinfo(dtype)
            specials = [info.min, info.max, 0, 1]
            if info.min < 0:
                specials += [-1, info.min + 1]
            k = rng.integers(0, n, size=min(n, 4))
            for j, pos in enumerate(k):
                a[pos] = specials[int(rng.integers(0, len(specials)))]
    elif kind == "float":
        lo, hi, q = profile[1], profile[2], profile[3]
        v = rng.integers(int(lo * q), int(hi * q), size=n, endpoint=True)
        a = (v / q).astype(dtype)
    elif kind == "fspecial":
        lo, hi = profile[1], profile[2]
        v = rng.integers(lo, hi, size=n, endpoint=True).astype(dtype)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0], dtype=dtype)
        if n:
            k = rng.integers(0, n, size=min(n, 3))
            v[k] = specials[rng.integers(0, 4, size=len(k))]
        a = v
    else:
        raise ValueError(profile)
    return a.reshape(shape)


def make_inputs(spec):
    bases = []
    for dt, shape, order, profile, seed in spec["bases"]:
        a = fill(np.dtype(dt), tuple(shape), profile, seed)
        if order == "F":
            a = np.asfortranarray(a)
        bases.append(a)
    args = []
    for a in spec["args"]:
        if a[0] == "arr":
            b = bases[a[1]]
            args.append(b[tuple(slice(s, e, st) for s, e, st in a[2])])
        else:
            args.append(a[1])
    return args, bases


def recipe(extent, step, offset):
    """Axis recipe: a slice of a base axis giving `extent` elements with this
    step (negative: reversed), starting at base index `offset` (lowest index
    touched). Returns (slice triple, base extent needed)."""
    if extent == 0:
        return (offset, offset, step), offset + 1
    span = (extent - 1) * abs(step)
    need = offset + span + 1
    if step > 0:
        return (offset, offset + span + 1, step), need
    start = offset + span
    stop = offset - 1
    return (start, stop if stop >= 0 else None, step), need

import json
import os

import numpy as np


def check(mod):
    rng = np.random.default_rng(6)
    a = rng.integers(-50, 50, 10_000).astype(np.float64)
    out = np.empty_like(a)
    mod.many_terms(a, out)
    assert np.array_equal(out, a * 260), "many_terms"
    out2 = np.empty_like(a)
    mod.many_terms_again(a, out2)
    assert np.array_equal(out2, a * 260), "many_terms_again"
    mod.double_it(a)
    assert np.array_equal(out, a * 130), "double_it"
    path = os.environ.get("CYOCL_TRACE")
    if os.environ.get("CYOCL_FORCE") == "opencl" and path and os.path.exists(path):
        recs = [json.loads(line) for line in open(path)]
        many = [r for r in recs if r.get("function") in ("many_terms", "many_terms_again")]
        assert {r["function"] for r in many} == {"many_terms", "many_terms_again"}, many
        assert many and all(r["impl"] == "native" for r in many), many
        # without libclang the kernel is not checked, so it stays in the
        # program and the device compiler's failure is the fallback
        assert all("OpenCL C compiler rejects" in r["reason"] or r["reason"].startswith("fallback")
                   for r in many), many

import numpy as np


def check(mod):
    assert mod.settings(["a=1", "# c", "bb=22", "c=x"]) == {"a": 1, "bb": 22}
    assert mod.read_blocks(b"abcdefgh", 3) == [b"abc", b"def", b"gh"]
    assert mod.read_blocks("", 2) == []
    assert mod.keep_big([1, 2, 3, 4], 5.0) == [9, 16]
    assert mod.last_kept([3, 0, 2, 1]) == ([2, 1], 0)
    a = np.array([1, 2, 3, -4], dtype=np.int_)
    assert mod.run_thresholded(a, 4) == 6 + 9
    assert mod.first_over(["ab", "abcd"], 2) == ("abcd", 4)
    assert mod.first_over(["ab", "c"], 5) == (None, 1)
    assert mod.typed_total(1.25, 2.0) == (3.25, 6.5)
    assert mod.tail_pair(np.arange(4.0)) == (3.0, 3) and mod.tail_pair(np.arange(2.0)) == (0.0, 1)
    assert mod.DEPTH == 12 and mod.found.group(1) == "depth"

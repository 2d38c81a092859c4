def check(m):
    assert m.first_primes(12) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
    assert m.first_primes(1) == [2] and m.first_primes(0) == []
    assert m.windows(1, 3) == ([1.5, 2.5], [9.0, 11.0], [0.0, 1.0, 4.0, 9.0], 14.0)
    assert m.windows(2, 2)[0] == []

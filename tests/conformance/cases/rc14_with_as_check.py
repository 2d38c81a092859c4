import os
import tempfile


class CM:
    def __init__(self, suppress=False):
        self.log = []
        self.suppress = suppress

    def __enter__(self):
        self.log.append('enter')
        return 'val'

    def __exit__(self, t, v, tb):
        self.log.append(('exit', t.__name__ if t else None))
        return self.suppress


def check(mod):
    fd, path = tempfile.mkstemp()
    os.write(fd, b"line1\nline2\n")
    os.close(fd)
    try:
        assert mod.read_first(path) == 'line1\n'
        c = CM()
        assert mod.nested(path, c) == ['val', 'lin'] and c.log == ['enter', ('exit', None)]
        c = CM(True)
        assert mod.suppressed(c) == 'after' and c.log == ['enter', ('exit', 'ValueError')]
        c = CM(False)
        try:
            mod.suppressed(c)
        except ValueError as e:
            assert str(e) == 'boom'
        else:
            raise AssertionError("not re-raised")
        assert c.log == ['enter', ('exit', 'ValueError')]
        c = CM()
        assert mod.early(c, [1, 2, -3, 4]) == 2 and len(c.log) == 12
        c = CM()
        assert mod.early(c, [1, 0, 5]) == -1 and c.log == ['enter', ('exit', None)] * 4
    finally:
        os.remove(path)

# with statements on context managers, as PEP 343 defines them: 'as'
# targets, several items, __exit__ on return/break and on an exception
# (suppressed when it returns true); open() is the builtin.
class_log = []

def read_first(path):
    with open(path) as fh:
        return fh.readline()

def nested(path, cm):
    out = []
    with cm as c, open(path) as fh:
        out.append(c)
        out.append(fh.read(3))
    return out

def suppressed(cm):
    with cm as v:
        raise ValueError("boom")
    return "after"

def early(cm, list items):
    cdef int i
    for i in range(len(items)):
        with cm:
            pass
        with cm as v:
            if items[i] < 0:
                return i
            if items[i] == 0:
                break
    return -1

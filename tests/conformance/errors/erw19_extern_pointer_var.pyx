# expect-error: 5:12 an extern variable of type
# cyocl-limit
# Extern variables that are not C numbers (cyocl reads extern numbers as constants).
cdef extern from "unistd.h":
    char **environ

def first():
    return environ[0]

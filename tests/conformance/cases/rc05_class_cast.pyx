# A cast of an object to a cdef class, (<Node>obj).attr, reaches the C
# attribute (real code keeps instances in lists and dicts and casts them
# back); <Node?>obj tests the type first.
cdef class Node:
    cdef public double value
    cdef Node next
    def __init__(self, double value, Node next=None):
        self.value = value
        self.next = next

def total(list nodes):
    cdef double s = 0
    cdef Py_ssize_t i
    for i in range(len(nodes)):
        s += (<Node>nodes[i]).value
    return s

def chain_sum(head):
    cdef double s = 0
    cur = head
    while cur is not None:
        s += (<Node>cur).value
        cur = (<Node>cur).next
    return s

def scale_all(dict d, double f):
    for k in d:
        (<Node>d[k]).value *= f

def checked(obj):
    return (<Node?>obj).value

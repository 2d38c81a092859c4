/* pymod.c: the `cyocl` Python module — devices(), stats(), and the capsule
 * cyocl._api (cyocl_api.h) through which generated modules run their
 * regions on OpenCL.  Built only into the Python module (CMake target
 * cyocl_pymod), never into the cyocl executable. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cyrt.h"
#include "cyocl_api.h"

int cyrt_launch_region(cyrt_rt *rt, cyocl_launch *L, int kerr[4]);
int cyrt_dispatch_decide(cyrt_rt *rt, cyocl_launch *L);
void cyrt_dispatch_native_done(cyrt_rt *rt, cyocl_launch *L, long long ns);
void cyrt_dispatch_idle_check(cyrt_rt *rt);
cyrt_status cyrt_host_views(cyrt_rt *rt, int write, size_t n, const cyocl_hview *v, cyrt_xfer *acc, cyrt_err *err);

/* Where a region is, for messages: "heat.pyx:12 in step()" (the module
 * name is the .pyx file's; never the kernel's internal name). */
static void region_where(const cyocl_launch *L, char *buf, size_t n) {
    const char *f = L->function ? L->function : "<module>";
    snprintf(buf, n, "%s.pyx:%d in %s%s", L->module ? L->module : "?", L->line, f, f[0] == '<' ? "" : "()");
}

/* The runtime's warnings not given yet, as RuntimeWarnings (the runtime
 * keeps them and prints nothing: PyInit_cyocl defers them), each naming
 * the region it came up in when there is one.  -1 when a warning filter
 * turned one into an exception. */
static int give_warnings(const cyocl_launch *L) {
    char *w = cyrt_warnings_take(cyrt_rt_global());
    if (!w) return 0;
    char where[300] = "";
    if (L) {
        char r[280];
        region_where(L, r, sizeof r);
        snprintf(where, sizeof where, " (region at %s)", r);
    }
    int rc = 0;
    for (char *line = w; rc == 0 && line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        if (*line && PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "cyocl: %s%s", line, where) < 0) rc = -1;
        line = nl ? nl + 1 : NULL;
    }
    free(w);
    return rc;
}

/* OpenCL was asked for (CYOCL_FORCE=opencl is the only way a region gets
 * here for now) and the region runs natively without OpenCL failing: if
 * that is because there is no OpenCL at all (no loader, no platform, no
 * device of the allowed type, a forked child), one RuntimeWarning per
 * reason and process says so. */
static int warn_unavailable(const cyocl_launch *L) {
    int dev;
    cyrt_err err = {0};
    cyrt_status st = cyrt_select_device(cyrt_rt_global(), L->cpu_only ? CYRT_DEV_CPU : CYRT_DEV_ALL, &dev, &err);
    if (st == CYRT_OK) return 0; /* a policy reason (pinned, no fp64, ...): the trace says which */
    char key[600];
    snprintf(key, sizeof key, "unavailable: %s", err.msg);
    if (!cyrt_first(cyrt_rt_global(), key)) return 0;
    const char *force = getenv("CYOCL_FORCE");
    char where[280];
    region_where(L, where, sizeof where);
    return PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "cyocl: %s but %s (region at %s); running natively",
                            force && !strcmp(force, "opencl") ? "CYOCL_FORCE=opencl" : "OpenCL was requested",
                            err.msg[0] ? err.msg : cyrt_status_name(st), where);
}

static int run_region(cyocl_launch *L) {
    if (L->version != CYOCL_API_VERSION) {
        snprintf(L->reason, sizeof L->reason, "fallback: runtime API version mismatch");
        return 1;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    int kerr[4], rc;
    char where[280];
    Py_BEGIN_ALLOW_THREADS
    rc = cyrt_launch_region(cyrt_rt_global(), L, kerr);
    Py_END_ALLOW_THREADS
    region_where(L, where, sizeof where);
    if (rc == 2) {
        switch (kerr[0]) {
        case 1: PyErr_Format(PyExc_IndexError, "Out of bounds on buffer access (axis %d)", kerr[1]); break;
        case 2: {
            static const char *const m[] = {"integer division or modulo by zero", "float division",
                                            "float modulo", "float divmod()"};
            PyErr_SetString(PyExc_ZeroDivisionError, m[kerr[1] >= 0 && kerr[1] < 4 ? kerr[1] : 0]);
            break;
        }
        case 4: PyErr_SetString(PyExc_OverflowError, "value too large to perform division"); break;
        case 5: PyErr_SetString(PyExc_ValueError, "range() arg 3 must not be zero"); break;
        case 6:
            PyErr_Format(PyExc_RuntimeError, "cyocl: region at %s: copying results back from the device failed; "
                         "the arrays it wrote are partly updated", where);
            break;
        default: PyErr_Format(PyExc_RuntimeError, "OpenCL kernel reported error %d", kerr[0]); break;
        }
        rc = -1;
    }
    if (rc != -1 && give_warnings(L) < 0) rc = -1;
    if (rc == 1 && L->failure && cyrt_first(cyrt_rt_global(), "opencl failed")) {
        /* one per process: a failing device tends to fail every launch */
        const char *why = strncmp(L->reason, "fallback: ", 10) ? L->reason : L->reason + 10;
        if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "cyocl: OpenCL failed: %s (region at %s); running natively",
                             why, where) < 0)
            rc = -1;
    } else if (rc == 1 && !L->failure && warn_unavailable(L) < 0) {
        rc = -1;
    }
    const char *v = getenv("CYOCL_VERBOSE");
    if (v && !strcmp(v, "1")) {
        /* under the dispatcher (dslot) its decisions are printed instead */
        if (rc == 0 && !L->dslot)
            fprintf(stderr, "cyocl: %s.%s (line %d, region %d): opencl on %s, n=%lld\n", L->module, L->function,
                    L->line, L->region, L->device, L->n);
        else if (rc == 1)
            fprintf(stderr, "cyocl: %s.%s (line %d, region %d): native: %s\n", L->module, L->function, L->line,
                    L->region, L->reason);
    }
    PyGILState_Release(g);
    return rc;
}

static long long mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* With the GIL (a def wrapper). */
static int scope_enter(void) {
    cyrt_err err;
    if (cyrt_scope_enter(cyrt_rt_global(), &err) != CYRT_OK) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int scope_leave(cyocl_sync *S) {
    cyrt_err err = {0};
    cyrt_xfer acc = {0};
    cyrt_status st;
    if (cyrt_scope_leave_quick(cyrt_rt_global())) {
        S->bytes_to_host = 0;
        S->ns = 0;
        return 0;
    }
    long long t0 = mono_ns();
    Py_BEGIN_ALLOW_THREADS
    st = cyrt_scope_leave(cyrt_rt_global(), &acc, &err);
    Py_END_ALLOW_THREADS
    S->bytes_to_host = acc.bytes_to_host;
    S->ns = mono_ns() - t0;
    if (!PyErr_Occurred() && give_warnings(NULL) < 0) return -1;
    if (st == CYRT_OK) return 0;
    if (PyErr_Occurred()) {
        /* the call is raising already: its exception stays the one the caller sees */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PySys_WriteStderr("cyocl: warning: copying results back from the device failed: %s\n", err.msg);
        PyErr_Restore(t, v, tb);
        return -1;
    }
    PyErr_Format(PyExc_RuntimeError, "cyocl: copying results back from the device failed: %s", err.msg);
    return -1;
}

/* With or without the GIL: no Python here. */
static void host_use(int write, cyocl_sync *S) {
    cyrt_err err = {0};
    cyrt_xfer acc = {0};
    long long t0 = mono_ns();
    /* kept for the next point that can give a RuntimeWarning (the call's
     * return, which also fails: cyrt_scope_leave reports it) */
    if (cyrt_host_use(cyrt_rt_global(), write, &acc, &err) != CYRT_OK) {
        char line[600];
        snprintf(line, sizeof line, "copying data back from the device failed: %s", err.msg);
        cyrt_warning(cyrt_rt_global(), line);
    }
    S->bytes_to_host = acc.bytes_to_host;
    S->ns = mono_ns() - t0;
}

/* With or without the GIL: no Python here. */
static void host_views(int write, int n, const cyocl_hview *v, cyocl_sync *S) {
    cyrt_err err = {0};
    cyrt_xfer acc = {0};
    long long t0 = mono_ns();
    if (cyrt_host_views(cyrt_rt_global(), write, (size_t)(n > 0 ? n : 0), v, &acc, &err) != CYRT_OK) {
        char line[600];
        snprintf(line, sizeof line, "copying data back from the device failed: %s", err.msg);
        cyrt_warning(cyrt_rt_global(), line);
    }
    S->bytes_to_host = acc.bytes_to_host;
    S->ns = mono_ns() - t0;
}

static void host_extent(const void *data, int ndim, const ptrdiff_t *shape, const ptrdiff_t *strides,
                        ptrdiff_t itemsize) {
    cyrt_err err = {0};
    if (itemsize > 0 &&
        cyrt_host_extent(cyrt_rt_global(), data, ndim, shape, strides, (size_t)itemsize, NULL, &err) != CYRT_OK &&
        err.code) {
        char line[600];
        snprintf(line, sizeof line, "copying data back from the device failed: %s", err.msg);
        cyrt_warning(cyrt_rt_global(), line);
    }
}

static void native_ran(long long ns) {
    cyrt_note_native(cyrt_rt_global(), ns > 0 ? (uint64_t)ns : 0);
    cyrt_dispatch_idle_check(cyrt_rt_global());
}

/* With or without the GIL: no Python here (the dispatcher's messages go
 * to stderr under CYOCL_VERBOSE=1). */
static int decide(cyocl_launch *L) {
    if (L->version != CYOCL_API_VERSION) return 0;
    return cyrt_dispatch_decide(cyrt_rt_global(), L);
}

static void native_done(cyocl_launch *L, long long ns) { cyrt_dispatch_native_done(cyrt_rt_global(), L, ns); }

static cyocl_api api = {CYOCL_API_VERSION, run_region, NULL, scope_enter, scope_leave, host_use, host_extent,
                        native_ran, decide, native_done, host_views, NULL, NULL};

/* ---- views of Python objects: resident(), pin_host(), to_host() ---------------------- */

/* One buffer of a Python object, registered in the runtime's registry. */
typedef struct {
    Py_buffer buf;
    cyrt_handle *h;
} Held;

static int hold(PyObject *obj, Held *x, unsigned flags) {
    /* no suboffsets: an indirect buffer has no one extent to register */
    if (PyObject_GetBuffer(obj, &x->buf, PyBUF_RECORDS_RO) < 0) return -1;
    ptrdiff_t one_shape = x->buf.len / (x->buf.itemsize ? x->buf.itemsize : 1), one_stride = x->buf.itemsize;
    const ptrdiff_t *shape = x->buf.ndim ? (const ptrdiff_t *)x->buf.shape : &one_shape;
    const ptrdiff_t *strides = x->buf.ndim ? (const ptrdiff_t *)x->buf.strides : &one_stride;
    cyrt_err err = {0};
    if (cyrt_register(cyrt_rt_global(), x->buf.buf, x->buf.ndim ? x->buf.ndim : 1, shape, strides,
                      (size_t)(x->buf.itemsize ? x->buf.itemsize : 1), &x->h, NULL, &err) != CYRT_OK) {
        PyBuffer_Release(&x->buf);
        x->h = NULL;
        PyErr_Format(PyExc_RuntimeError, "cyocl: %s", err.msg);
        return -1;
    }
    if (flags) cyrt_handle_set_flags(cyrt_rt_global(), x->h, flags);
    return 0;
}

/* Brings the data back (dropping the device copy) and lets go of it. */
static int unhold(Held *x) {
    cyrt_err err = {0};
    cyrt_status st = CYRT_OK;
    if (!x->h) return 0;
    Py_BEGIN_ALLOW_THREADS
    st = cyrt_host_acquire(cyrt_rt_global(), x->h, CYRT_RW, NULL, &err);
    cyrt_release(cyrt_rt_global(), x->h, NULL, NULL);
    Py_END_ALLOW_THREADS
    x->h = NULL;
    PyBuffer_Release(&x->buf);
    if (st != CYRT_OK) {
        PyErr_Format(PyExc_RuntimeError, "cyocl: copying back from the device failed: %s", err.msg);
        return -1;
    }
    return 0;
}

typedef struct {
    PyObject_HEAD
    PyObject *objs; /* tuple */
    Held *held;
    Py_ssize_t nheld;
    unsigned flags;
} HoldObj;

static void hold_release_all(HoldObj *o) {
    for (Py_ssize_t i = 0; i < o->nheld; i++)
        if (unhold(&o->held[i]) < 0) PyErr_WriteUnraisable((PyObject *)o);
    PyMem_Free(o->held);
    o->held = NULL;
    o->nheld = 0;
}

static int hold_all(HoldObj *o) {
    Py_ssize_t n = PyTuple_GET_SIZE(o->objs);
    o->held = PyMem_Calloc(n ? (size_t)n : 1, sizeof *o->held);
    if (!o->held) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (hold(PyTuple_GET_ITEM(o->objs, i), &o->held[i], o->flags) < 0) {
            hold_release_all(o);
            return -1;
        }
        o->nheld = i + 1;
    }
    return 0;
}

static void hold_dealloc(HoldObj *o) {
    if (o->held) hold_release_all(o);
    Py_XDECREF(o->objs);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *hold_exit(HoldObj *o, PyObject *args) {
    (void)args;
    if (o->held) {
        Py_ssize_t n = o->nheld;
        Held *h = o->held;
        o->held = NULL;
        o->nheld = 0;
        PyObject *t = NULL, *v = NULL, *tb = NULL;
        for (Py_ssize_t i = 0; i < n; i++)
            if (unhold(&h[i]) < 0) {
                if (!t) PyErr_Fetch(&t, &v, &tb); /* the first failure is the one raised */
                else PyErr_Clear();
            }
        PyMem_Free(h);
        if (t) {
            PyErr_Restore(t, v, tb);
            return NULL;
        }
    }
    Py_RETURN_FALSE;
}

static PyTypeObject ResidentType, PinType;

static PyObject *hold_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "cyocl: takes arrays only, no keyword arguments");
        return NULL;
    }
    HoldObj *o = (HoldObj *)type->tp_alloc(type, 0);
    if (!o) return NULL;
    Py_INCREF(args);
    o->objs = args;
    o->flags = type == &PinType ? CYRT_HF_HOSTPIN : CYRT_HF_RESIDENT;
    if (type == &PinType) {
        /* pinned from now on: the data comes back first */
        if (hold_all(o) < 0) {
            Py_DECREF(o);
            return NULL;
        }
        cyrt_err err = {0};
        for (Py_ssize_t i = 0; i < o->nheld; i++)
            if (cyrt_host_acquire(cyrt_rt_global(), o->held[i].h, CYRT_RW, NULL, &err) != CYRT_OK) {
                PyErr_Format(PyExc_RuntimeError, "cyocl: copying back from the device failed: %s", err.msg);
                Py_DECREF(o);
                return NULL;
            }
    }
    return (PyObject *)o;
}

static PyObject *resident_enter(HoldObj *o, PyObject *args) {
    (void)args;
    if (o->held) {
        PyErr_SetString(PyExc_RuntimeError, "cyocl.resident: this block is already entered");
        return NULL;
    }
    if (hold_all(o) < 0) return NULL;
    Py_INCREF(o);
    return (PyObject *)o;
}

static PyObject *pin_enter(HoldObj *o, PyObject *args) {
    (void)args;
    Py_INCREF(o);
    return (PyObject *)o;
}

static PyMethodDef resident_methods[] = {
    {"__enter__", (PyCFunction)resident_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)hold_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef pin_methods[] = {
    {"__enter__", (PyCFunction)pin_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)hold_exit, METH_VARARGS, NULL},
    {"release", (PyCFunction)hold_exit, METH_VARARGS, "Ends the pin."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ResidentType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cyocl.resident",
    .tp_basicsize = sizeof(HoldObj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "with cyocl.resident(*arrays): the arrays' data stays on the device across calls\n"
              "of cyocl functions until the block ends (then it is copied back).  Inside the\n"
              "block, reading or writing the arrays from Python needs cyocl.to_host(arr) first.",
    .tp_new = hold_new,
    .tp_dealloc = (destructor)hold_dealloc,
    .tp_methods = resident_methods,
};

static PyTypeObject PinType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cyocl.pin_host",
    .tp_basicsize = sizeof(HoldObj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "cyocl.pin_host(*arrays): the arrays never move to a device while the returned\n"
              "object lives (or until .release() / the end of a with block); regions that\n"
              "touch them run natively.",
    .tp_new = hold_new,
    .tp_dealloc = (destructor)hold_dealloc,
    .tp_methods = pin_methods,
};

static PyObject *py_to_host(PyObject *self, PyObject *args) {
    (void)self;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++) {
        Held x;
        if (hold(PyTuple_GET_ITEM(args, i), &x, 0) < 0 || unhold(&x) < 0) return NULL;
    }
    if (PyTuple_GET_SIZE(args) == 1) {
        PyObject *a = PyTuple_GET_ITEM(args, 0);
        Py_INCREF(a);
        return a;
    }
    Py_RETURN_NONE;
}

static PyObject *py_devices(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    const cyrt_devinfo *d;
    int n = 0;
    cyrt_err err;
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    if (cyrt_devices(cyrt_rt_global(), &d, &n, &err) != CYRT_OK) {
        if (give_warnings(NULL) < 0) Py_CLEAR(list);
        return list;
    }
    for (int i = 0; i < n; i++) {
        PyObject *o = Py_BuildValue("{s:i,s:s,s:s,s:s,s:s,s:s,s:O,s:K}", "index", d[i].index, "type",
                                    cyrt_device_type_name(d[i].type), "platform", d[i].platform, "name",
                                    d[i].name, "vendor", d[i].vendor, "version", d[i].version, "fp64",
                                    d[i].fp64 ? Py_True : Py_False, "global_mem",
                                    (unsigned long long)d[i].global_mem);
        if (!o || PyList_Append(list, o) < 0) {
            Py_XDECREF(o);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(o);
    }
    return list;
}

static const char *dstate_name(int s) {
    return s == 0 ? "not started" : s == 1 ? "starting" : s == 2 ? "ready" : "none";
}

static PyObject *py_stats(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    cyrt_xfer x;
    cyrt_registry_info r;
    cyrt_counts c;
    cyrt_stats(cyrt_rt_global(), &x);
    cyrt_registry_info_get(cyrt_rt_global(), &r);
    cyrt_counts_get(cyrt_rt_global(), &c);
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:n,s:n,s:n,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:s,s:K,s:K,s:K,s:K,s:n}", "bytes_to_device",
                         (unsigned long long)x.bytes_to_device, "bytes_to_host",
                         (unsigned long long)x.bytes_to_host, "bytes_device_copy",
                         (unsigned long long)x.bytes_device_copy, "to_device",
                         (unsigned long long)x.to_device, "to_host", (unsigned long long)x.to_host,
                         "device_copies", (unsigned long long)x.device_copies, "regions",
                         (Py_ssize_t)r.tops, "handles", (Py_ssize_t)r.handles, "device_buffers",
                         (Py_ssize_t)r.device_buffers, "device_bytes",
                         (unsigned long long)r.device_bytes, "launches", (unsigned long long)c.launches,
                         "fallbacks", (unsigned long long)c.fallbacks, "failures",
                         (unsigned long long)c.failures, "kernels_built",
                         (unsigned long long)c.programs_compiled, "cache_hits",
                         (unsigned long long)c.programs_loaded, "opencl_ns", (unsigned long long)c.device_ns,
                         "native_regions", (unsigned long long)c.native_regions, "native_ns",
                         (unsigned long long)c.native_ns, "calls_native", (unsigned long long)c.native_regions,
                         "calls_opencl", (unsigned long long)c.launches, "calibration_runs",
                         (unsigned long long)cyrt_dispatch_calibration_runs(cyrt_rt_global()), "fast_decisions",
                         (unsigned long long)cyrt_dispatch_fast_calls(cyrt_rt_global()), "result_reads",
                         (unsigned long long)c.result_reads, "unwaited_launches", (unsigned long long)c.unwaited,
                         "drains", (unsigned long long)c.drains, "device_state",
                         dstate_name(cyrt_dispatch_device_state(cyrt_rt_global())), "pool_hits",
                         (unsigned long long)r.pool_hits, "pool_misses", (unsigned long long)r.pool_misses,
                         "pool_evictions", (unsigned long long)r.pool_evictions, "pool_bytes",
                         (unsigned long long)r.pool_bytes, "pool_buffers", (Py_ssize_t)r.pool_buffers);
}

static PyObject *py_cache_info(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    cyrt_cache_info c;
    Py_BEGIN_ALLOW_THREADS
    cyrt_cache_info_get(cyrt_rt_global(), &c);
    Py_END_ALLOW_THREADS
    if (give_warnings(NULL) < 0) return NULL;
    return Py_BuildValue("{s:s,s:s,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "dir", c.dir, "state",
                         c.state ? c.state : "off", "entries", (unsigned long long)c.entries, "bytes",
                         (unsigned long long)c.bytes, "max_bytes", (unsigned long long)c.max_bytes, "hits",
                         (unsigned long long)c.hits, "misses", (unsigned long long)c.misses, "stores",
                         (unsigned long long)c.stores, "compile_ns", (unsigned long long)c.compile_ns,
                         "load_ns", (unsigned long long)c.load_ns, "saved_ns", (unsigned long long)c.saved_ns);
}

static PyObject *py_sync(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    cyrt_err err;
    if (cyrt_sync_all(cyrt_rt_global(), NULL, &err) != CYRT_OK) {
        PyErr_Format(PyExc_RuntimeError, "cyocl: %s", err.msg);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_finish(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    cyrt_err err;
    cyrt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = cyrt_finish(cyrt_rt_global(), &err);
    Py_END_ALLOW_THREADS
    if (st != CYRT_OK) {
        PyErr_Format(PyExc_RuntimeError, "cyocl: %s", err.msg);
        return NULL;
    }
    Py_RETURN_NONE;
}

static const char *const force_names[] = {"auto", "native", "opencl"};

/* The CYRT_FORCE_* a mode's name means, -1 none. */
static int force_named(const char *s) {
    for (int i = 0; s && i < 3; i++)
        if (!strcmp(s, force_names[i]))
            return i;
    return -1;
}

/* force(mode): where regions run from now on (None: the dispatcher); returns the previous
 * mode's name, so that a caller can put it back. */
static PyObject *py_force(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"mode", NULL};
    PyObject *mode = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:force", kwlist, &mode))
        return NULL;
    int want = -1;
    if (mode == Py_None) {
        want = CYRT_FORCE_AUTO;
    } else if (PyUnicode_Check(mode)) {
        const char *s = PyUnicode_AsUTF8(mode);
        if (!s)
            PyErr_Clear(); /* (a lone surrogate: no mode's name, the ValueError below) */
        want = force_named(s);
    }
    if (want < 0) {
        PyErr_Format(PyExc_ValueError, "force(): mode must be None, 'auto', 'native' or 'opencl', not %R", mode);
        return NULL;
    }
    int old = cyrt_set_force(cyrt_rt_global(), want);
    return PyUnicode_FromString(force_names[old >= 0 && old < 3 ? old : 0]);
}

/* Python's atexit: before the C library's exit handlers (see cyrt.h). */
static PyObject *py_shutdown(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    Py_BEGIN_ALLOW_THREADS
    cyrt_dispatch_shutdown(cyrt_rt_global());
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_shutdown", py_shutdown, METH_NOARGS, "Waits for the device opener and saves the calibration (atexit)."},
    {"devices", py_devices, METH_NOARGS, "The OpenCL devices the runtime can use, as dicts."},
    {"stats", py_stats, METH_NOARGS, "Transfer totals and registry state."},
    {"sync", py_sync, METH_NOARGS, "Copies every device-dirty region back to the host."},
    {"finish", py_finish, METH_NOARGS,
     "Waits for every kernel launched so far (a call whose kernel reports nothing may return before "
     "the kernel ends); the data stays where it is. For timing device work."},
    {"cache_info", py_cache_info, METH_NOARGS,
     "The kernel cache: dir, state, entries, bytes, max_bytes, and this process's hits, misses, "
     "stores, compile_ns, load_ns, saved_ns (docs/cache.md)."},
    {"force", (PyCFunction)(void (*)(void))py_force, METH_VARARGS | METH_KEYWORDS,
     "force(mode): where every region runs from now on: None or 'auto' the dispatcher's choice, "
     "'native' always natively with Cython's team, 'opencl' always on the device (CYOCL_FORCE's meanings; "
     "forced runs teach the dispatcher nothing). Returns the previous mode ('auto', 'native', 'opencl')."},
    {"to_host", py_to_host, METH_VARARGS,
     "to_host(*arrays): brings the arrays' data back from the device (dropping the device copy); "
     "returns the array when given one."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "cyocl", "The cyocl OpenCL runtime.", -1, methods,
                                    NULL, NULL, NULL, NULL};
/* the same module as the extension cyocl._runtime of the installed `cyocl`
 * package, whose __init__ re-exports it (python/cyocl/__init__.py) */
static struct PyModuleDef moddef_pkg = {PyModuleDef_HEAD_INIT, "_runtime", "The cyocl OpenCL runtime.", -1,
                                        methods, NULL, NULL, NULL, NULL};

static PyObject *make_module(struct PyModuleDef *def) {
    api.state = cyrt_state_word(cyrt_rt_global());
    api.native_regions = cyrt_native_regions_word(cyrt_rt_global());
    /* CYOCL_FORCE as every module reads it (prelude.h's cyrt_init, which
     * also warns about a value it does not understand) */
    int force = force_named(getenv("CYOCL_FORCE"));
    cyrt_set_force(cyrt_rt_global(), force > 0 ? force : CYRT_FORCE_AUTO);
    api.force = cyrt_force_word(cyrt_rt_global());
    /* the runtime's warnings become RuntimeWarnings (give_warnings): Python
     * can filter them, and they name the region they concern */
    cyrt_warnings_defer(cyrt_rt_global(), 1);
    if (PyType_Ready(&ResidentType) < 0 || PyType_Ready(&PinType) < 0) return NULL;
    PyObject *m = PyModule_Create(def);
    if (!m) return NULL;
    Py_INCREF(&ResidentType);
    if (PyModule_AddObject(m, "resident", (PyObject *)&ResidentType) < 0) {
        Py_DECREF(&ResidentType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&PinType);
    if (PyModule_AddObject(m, "pin_host", (PyObject *)&PinType) < 0) {
        Py_DECREF(&PinType);
        Py_DECREF(m);
        return NULL;
    }
    /* the dispatcher's device opener must be out of the driver before
     * the C library's exit handlers run: Python's atexit comes first */
    PyObject *ae = PyImport_ImportModule("atexit");
    PyObject *fn = ae ? PyObject_GetAttrString(m, "_shutdown") : NULL;
    PyObject *res = fn ? PyObject_CallMethod(ae, "register", "O", fn) : NULL;
    Py_XDECREF(res);
    Py_XDECREF(fn);
    Py_XDECREF(ae);
    if (!res) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(&api, "cyocl._api", NULL);
    if (!cap || PyModule_AddObject(m, "_api", cap) < 0) {
        Py_XDECREF(cap);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/* One file, two names: `cyocl` where `cyocl build` copies it beside the
 * modules it builds, `cyocl._runtime` inside the installed package.  One
 * process imports one of them (generated modules import `cyocl`). */
PyMODINIT_FUNC PyInit_cyocl(void) { return make_module(&moddef); }
PyMODINIT_FUNC PyInit__runtime(void) { return make_module(&moddef_pkg); }

/* pymod.c: the `cyocl` Python module — devices(), stats(), and the capsule
 * cyocl._api (cyocl_api.h) through which generated modules run their
 * regions on OpenCL.  Built only into the Python module (CMake target
 * cyocl_pymod), never into the cyocl executable. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "cyrt.h"
#include "cyocl_api.h"

int cyrt_launch_region(cyrt_rt *rt, cyocl_launch *L, int kerr[4]);

static int warned;

static int run_region(cyocl_launch *L) {
    if (L->version != CYOCL_API_VERSION) {
        snprintf(L->reason, sizeof L->reason, "fallback: runtime API version mismatch");
        return 1;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    int kerr[4], rc;
    Py_BEGIN_ALLOW_THREADS
    rc = cyrt_launch_region(cyrt_rt_global(), L, kerr);
    Py_END_ALLOW_THREADS
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
        default: PyErr_Format(PyExc_RuntimeError, "OpenCL kernel reported error %d", kerr[0]); break;
        }
        rc = -1;
    } else if (rc == 1 && !strncmp(L->reason, "fallback:", 9) && !warned) {
        warned = 1;
        if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "cyocl: %s: %s; running natively", L->kernel,
                             L->reason) < 0)
            rc = -1;
    }
    const char *v = getenv("CYOCL_VERBOSE");
    if (v && !strcmp(v, "1")) {
        if (rc == 0)
            fprintf(stderr, "cyocl: %s.%s (line %d, region %d): opencl on %s, n=%lld\n", L->module, L->function,
                    L->line, L->region, L->device, L->n);
        else if (rc == 1)
            fprintf(stderr, "cyocl: %s.%s (line %d, region %d): native: %s\n", L->module, L->function, L->line,
                    L->region, L->reason);
    }
    PyGILState_Release(g);
    return rc;
}

static cyocl_api api = {CYOCL_API_VERSION, run_region};

static PyObject *py_devices(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    const cyrt_devinfo *d;
    int n = 0;
    cyrt_err err;
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    if (cyrt_devices(cyrt_rt_global(), &d, &n, &err) != CYRT_OK) return list;
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

static PyObject *py_stats(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    cyrt_xfer x;
    cyrt_registry_info r;
    cyrt_stats(cyrt_rt_global(), &x);
    cyrt_registry_info_get(cyrt_rt_global(), &r);
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:n,s:n,s:n,s:K}", "bytes_to_device",
                         (unsigned long long)x.bytes_to_device, "bytes_to_host",
                         (unsigned long long)x.bytes_to_host, "bytes_device_copy",
                         (unsigned long long)x.bytes_device_copy, "to_device",
                         (unsigned long long)x.to_device, "to_host", (unsigned long long)x.to_host,
                         "device_copies", (unsigned long long)x.device_copies, "regions",
                         (Py_ssize_t)r.tops, "handles", (Py_ssize_t)r.handles, "device_buffers",
                         (Py_ssize_t)r.device_buffers, "device_bytes",
                         (unsigned long long)r.device_bytes);
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

static PyMethodDef methods[] = {
    {"devices", py_devices, METH_NOARGS, "The OpenCL devices the runtime can use, as dicts."},
    {"stats", py_stats, METH_NOARGS, "Transfer totals and registry state."},
    {"sync", py_sync, METH_NOARGS, "Copies every device-dirty region back to the host."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "cyocl", "The cyocl OpenCL runtime.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_cyocl(void) {
    PyObject *m = PyModule_Create(&moddef);
    if (!m) return NULL;
    PyObject *cap = PyCapsule_New(&api, "cyocl._api", NULL);
    if (!cap || PyModule_AddObject(m, "_api", cap) < 0) {
        Py_XDECREF(cap);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

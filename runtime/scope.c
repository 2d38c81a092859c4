/* scope.c: residency across the parallel regions of one def call (DESIGN
 * §4.5-4.6).
 *
 * A generated module opens a scope when a def that may launch a kernel is
 * called from Python and closes it when the def returns.  Launches inside
 * register their views here instead of releasing them at once, so the
 * regions (and their device copies) outlive the launch: the next region
 * finds its data where the last one left it.  Generated code keeps the
 * host side honest through cyrt_host_use at every host access; leaving the
 * scope brings everything back, because the caller is Python.
 *
 * Scopes are per thread (a slot in rt->tscopes per thread with an open
 * call); residency itself is the registry's and so process-wide. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static cyrt_tscope *find(cyrt_rt *rt) {
    pthread_t self = pthread_self();
    for (size_t i = 0; i < rt->ntscopes; i++)
        if (pthread_equal(rt->tscopes[i].tid, self))
            return &rt->tscopes[i];
    return NULL;
}

cyrt_status cyrt_scope_enter(cyrt_rt *rt, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_tscope *s = find(rt);
    if (!s) {
        if (rt->ntscopes == rt->captscopes) {
            size_t cap = rt->captscopes ? rt->captscopes * 2 : 4;
            cyrt_tscope *n = realloc(rt->tscopes, cap * sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&rt->lock);
                cyrt_seterr(err, 0, "out of memory");
                return CYRT_ENOMEM;
            }
            rt->tscopes = n;
            rt->captscopes = cap;
        }
        s = &rt->tscopes[rt->ntscopes++];
        memset(s, 0, sizeof *s);
        s->tid = pthread_self();
    }
    s->depth++;
    pthread_mutex_unlock(&rt->lock);
    return CYRT_OK;
}

/* A thread's slot goes once its last call has returned and holds no views. */
static void slot_drop_if_idle(cyrt_rt *rt, cyrt_tscope *s) {
    if (s->depth == 0 && s->n == 0) {
        free(s->v);
        *s = rt->tscopes[--rt->ntscopes];
    }
}

/* The usual end of a call that ran natively: no views registered at this
 * level, nothing registered anywhere (so no device copy the host lacks and
 * none to invalidate), no failure and no warning to hand over.  Leaving is
 * then popping a level; the caller skips giving up the GIL and timing the
 * copy back, which cost about a microsecond against a few for a whole call
 * of 10^2 elements.  Anything else is cyrt_scope_leave's. */
int cyrt_scope_leave_quick(cyrt_rt *rt) {
    pthread_mutex_lock(&rt->lock);
    cyrt_tscope *s = find(rt);
    int quick = s && s->depth > 0 && s->failed == CYRT_OK && rt->ntops == 0 &&
                !(rt->warnings && rt->wtaken < rt->nwarn);
    for (size_t i = 0; quick && i < s->n; i++)
        if (s->v[i].level >= s->depth)
            quick = 0;
    if (quick) {
        __atomic_add_fetch(&rt->scope_seq, 1, __ATOMIC_RELEASE);
        s->depth--;
        slot_drop_if_idle(rt, s);
    }
    pthread_mutex_unlock(&rt->lock);
    return quick;
}

cyrt_status cyrt_scope_leave(cyrt_rt *rt, cyrt_xfer *acc, cyrt_err *err) {
    pthread_mutex_lock(&rt->lock);
    cyrt_tscope *s = find(rt);
    if (!s || s->depth == 0) {
        pthread_mutex_unlock(&rt->lock);
        cyrt_seterr(err, 0, "cyrt_scope_leave without cyrt_scope_enter");
        return CYRT_EINVAL;
    }
    cyrt_status st = cyrt_host_range_locked(rt, 0, 0, 1, 1, acc, err);
    __atomic_add_fetch(&rt->scope_seq, 1, __ATOMIC_RELEASE);
    /* that may have waited (unlocked) for other threads' kernels, and their
     * enter/leave move the slots */
    s = find(rt);
    if (s->failed != CYRT_OK) {
        /* a host use inside the call worked on data that could not come
         * back: the call fails, whatever it computed */
        if (st == CYRT_OK) {
            st = s->failed;
            if (err)
                *err = s->ferr;
        }
        s->failed = CYRT_OK;
    }
    /* this level's views go even if the copy failed: the device is then
     * unusable and the registry must not keep records of dead calls */
    int level = s->depth--;
    size_t keep = 0;
    cyrt_handle **drop = NULL;
    size_t ndrop = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].level >= level)
            ndrop++;
    if (ndrop && !(drop = malloc(ndrop * sizeof *drop))) {
        /* keep them at the outer level: released when that call ends */
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i].level >= level)
                s->v[i].level = level - 1;
        ndrop = 0;
    } else {
        ndrop = 0;
        for (size_t i = 0; i < s->n; i++) {
            if (s->v[i].level >= level)
                drop[ndrop++] = s->v[i].h;
            else
                s->v[keep++] = s->v[i];
        }
        s->n = keep;
    }
    slot_drop_if_idle(rt, s);
    pthread_mutex_unlock(&rt->lock);
    for (size_t i = 0; i < ndrop; i++) {
        cyrt_status r = cyrt_release(rt, drop[i], acc, st == CYRT_OK ? err : NULL);
        if (st == CYRT_OK)
            st = r;
    }
    free(drop);
    return st;
}

static int same_view(const cyrt_scoped *e, const void *data, int ndim, const ptrdiff_t *shape,
                     const ptrdiff_t *strides, size_t itemsize) {
    if (e->h->data != (uintptr_t)data || e->ndim != ndim || e->itemsize != itemsize)
        return 0;
    for (int d = 0; d < ndim; d++)
        if (e->shape[d] != shape[d] || e->strides[d] != strides[d])
            return 0;
    return 1;
}

cyrt_status cyrt_scope_view(cyrt_rt *rt, const void *data, int ndim, const ptrdiff_t *shape,
                            const ptrdiff_t *strides, size_t itemsize, cyrt_handle **out, int *kept,
                            cyrt_xfer *acc, cyrt_err *err) {
    *out = NULL;
    *kept = 0;
    if (ndim > 8) {
        cyrt_seterr(err, 0, "a view of more than 8 dimensions");
        return CYRT_EINVAL;
    }
    pthread_mutex_lock(&rt->lock);
    cyrt_tscope *s = find(rt);
    int open = s && s->depth > 0;
    for (size_t i = 0; open && i < s->n; i++)
        if (same_view(&s->v[i], data, ndim, shape, strides, itemsize)) {
            *out = s->v[i].h;
            *kept = 1;
            pthread_mutex_unlock(&rt->lock);
            return CYRT_OK;
        }
    pthread_mutex_unlock(&rt->lock);
    cyrt_handle *h;
    cyrt_status st = cyrt_register(rt, data, ndim, shape, strides, itemsize, &h, acc, err);
    if (st != CYRT_OK || !open) {
        *out = st == CYRT_OK ? h : NULL;
        return st;
    }
    pthread_mutex_lock(&rt->lock);
    /* the slot may have moved while unlocked (other threads' scopes) */
    s = find(rt);
    if (s && s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        cyrt_scoped *v = realloc(s->v, cap * sizeof *v);
        if (v) {
            s->v = v;
            s->cap = cap;
        }
    }
    if (s && s->n < s->cap) {
        cyrt_scoped *e = &s->v[s->n++];
        memset(e, 0, sizeof *e);
        e->h = h;
        e->level = s->depth;
        e->ndim = ndim;
        e->itemsize = itemsize;
        for (int d = 0; d < ndim; d++) {
            e->shape[d] = shape[d];
            e->strides[d] = strides[d];
        }
        *kept = 1;
    }
    pthread_mutex_unlock(&rt->lock);
    *out = h;
    return CYRT_OK;
}

/* The memory [lo, hi) goes back to its exporter (lock held; its regions
 * are already back on the host): this thread's calls forget the views
 * they registered inside it.  A record must not outlive its memory: a
 * later array at an overlapping address (the allocator reuses it at once)
 * would merge with it, and the merged region, which then spans memory no
 * live view owns (allocator headers, other objects), would be copied to
 * the device and back over it.  Other threads' views stay: their own
 * views keep the memory alive, and one may be between finding its handle
 * and launching with it.  A view of memory that lives on registers again
 * at its next launch; its device copy is already gone. */
void cyrt_scope_forget_locked(cyrt_rt *rt, uintptr_t lo, uintptr_t hi) {
    cyrt_tscope *s = find(rt);
    size_t keep = 0;
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        const cyrt_region *r = s->v[i].h->r;
        if (r && r->lo >= lo && r->hi <= hi)
            cyrt_release_locked(rt, s->v[i].h, NULL, NULL);
        else
            s->v[keep++] = s->v[i];
    }
    s->n = keep;
}

/* Teardown (lock held): the handles themselves are freed by the registry. */
void cyrt_scopes_free(cyrt_rt *rt) {
    for (size_t i = 0; i < rt->ntscopes; i++)
        free(rt->tscopes[i].v);
    free(rt->tscopes);
    rt->tscopes = NULL;
    rt->ntscopes = rt->captscopes = 0;
}

void cyrt_scope_note_failure_locked(cyrt_rt *rt, cyrt_status st, const cyrt_err *err) {
    cyrt_tscope *s = find(rt);
    if (s && s->depth > 0 && s->failed == CYRT_OK) {
        s->failed = st;
        s->ferr = *err;
    }
}

void cyrt_scopes_fork_child(cyrt_rt *rt) {
    pthread_t self = pthread_self();
    size_t keep = 0;
    for (size_t i = 0; i < rt->ntscopes; i++) {
        cyrt_tscope *s = &rt->tscopes[i];
        if (pthread_equal(s->tid, self)) {
            /* the forking thread goes on in the child, inside its calls */
            rt->tscopes[keep++] = *s;
            continue;
        }
        /* a thread of the parent: its calls never return here, and a new
         * thread may get its id */
        for (size_t j = 0; j < s->n; j++)
            cyrt_release_locked(rt, s->v[j].h, NULL, NULL);
        free(s->v);
    }
    rt->ntscopes = keep;
}

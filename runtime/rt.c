/* rt.c: the runtime object — the process's one instance, private ones,
 * teardown, warnings and statistics. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The only mutable global of the runtime: everything else hangs off it. */
static cyrt_rt cyrt_the_rt = {
    /* error-checking: a fork from inside the runtime (a driver starting a
     * helper process while the runtime holds its lock) must not deadlock
     * in fork_prepare; locking a mutex this thread holds says EDEADLK */
    .lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
    .unpinned = PTHREAD_COND_INITIALIZER,
    .prog_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
    .prog_cond = PTHREAD_COND_INITIALIZER,
    .disp_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
    .disp_cond = PTHREAD_COND_INITIALIZER,
    .is_global = 1,
    .be_device = -1,
    .fork_once = PTHREAD_ONCE_INIT,
};

/* ---- fork ------------------------------------------------------------------------
 * pthread_atfork handlers take no argument: they act on cyrt_the_rt, the
 * one runtime a forked Python process has (private runtimes belong to
 * their caller, who must not fork while using them). */

static void fork_prepare(void) {
    cyrt_rt *rt = &cyrt_the_rt;
    for (;;) {
        /* the order every other path takes them in (launch.c holds the
         * program lock while it asks for the runtime's) */
        if (pthread_mutex_lock(&rt->prog_lock) == EDEADLK) {
            rt->fork_nested = 1;
            return;
        }
        if (cyrt_progs_building(rt)) {
            /* a driver's helper, forked inside a build (which holds no lock) */
            pthread_mutex_unlock(&rt->prog_lock);
            rt->fork_nested = 1;
            return;
        }
        if (pthread_mutex_lock(&rt->lock) == EDEADLK) {
            pthread_mutex_unlock(&rt->prog_lock);
            rt->fork_nested = 1; /* forked inside a driver call the runtime made */
            return;
        }
        if (!cyrt_registry_fork_busy(rt)) {
            /* the dispatcher's lock is never held while the others are taken */
            pthread_mutex_lock(&rt->disp_lock);
            break;
        }
        /* another thread's kernel is writing data the child must see:
         * wait for it with neither lock held by us, since its launch may
         * need either to finish */
        pthread_mutex_unlock(&rt->prog_lock);
        pthread_cond_wait(&rt->unpinned, &rt->lock);
        pthread_mutex_unlock(&rt->lock);
    }
    /* a copy back cannot run in the child (no driver there): now, while
     * the device can still answer */
    cyrt_registry_fork_prepare(rt);
}

static void fork_parent(void) {
    cyrt_rt *rt = &cyrt_the_rt;
    if (rt->fork_nested) {
        rt->fork_nested = 0;
        return;
    }
    pthread_mutex_unlock(&rt->disp_lock);
    pthread_mutex_unlock(&rt->lock);
    pthread_mutex_unlock(&rt->prog_lock);
}

/* The child is single-threaded: the locks are made anew rather than
 * unlocked (the condition variable may still count the waiters of threads
 * that stayed in the parent), and no OpenCL object is released, used or
 * even looked at: they belong to a driver whose threads are not here, and
 * a call into it may wait forever. */
static void fork_child(void) {
    cyrt_rt *rt = &cyrt_the_rt;
    if (rt->fork_nested) {
        /* a driver's helper process, which execs at once: nothing of the
         * runtime is used there, and its state is the calling thread's */
        rt->fork_nested = 0;
        return;
    }
    pthread_mutexattr_t attr;
    int have_attr = pthread_mutexattr_init(&attr) == 0;
    int checked = have_attr && pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK) == 0;
    pthread_mutex_init(&rt->lock, checked ? &attr : NULL);
    pthread_mutex_init(&rt->prog_lock, checked ? &attr : NULL);
    pthread_cond_init(&rt->prog_cond, NULL);
    pthread_mutex_init(&rt->disp_lock, checked ? &attr : NULL);
    pthread_cond_init(&rt->disp_cond, NULL);
    if (have_attr)
        pthread_mutexattr_destroy(&attr);
    pthread_cond_init(&rt->unpinned, NULL);
    cyrt_progs_forget(rt);
    cyrt_registry_fork_child(rt);
    cyrt_scopes_fork_child(rt);
    cyrt_devices_fork_child(rt);
    cyrt_dispatch_fork_child(rt);
    cyrt_restate_locked(rt);
    /* a new process: its own statistics and its own warnings */
    memset(&rt->stats, 0, sizeof rt->stats);
    memset(&rt->counts, 0, sizeof rt->counts);
    free(rt->warnings);
    rt->warnings = NULL;
    rt->nwarn = rt->wtaken = 0;
    free(rt->seen);
    rt->seen = NULL;
    rt->nseen = 0;
}

/* What the dispatcher learnt since its last save, at exit. */
static void at_exit(void) { cyrt_dispatch_flush(&cyrt_the_rt); }

static void fork_register(void) {
    /* a failure (ENOMEM) leaves fork as unsafe as it was: nothing else to do */
    (void)pthread_atfork(fork_prepare, fork_parent, fork_child);
    (void)atexit(at_exit);
}

void cyrt_fork_init(cyrt_rt *rt) {
    if (rt->is_global)
        pthread_once(&rt->fork_once, fork_register);
}

cyrt_rt *cyrt_rt_global(void) {
    cyrt_fork_init(&cyrt_the_rt);
    return &cyrt_the_rt;
}

int cyrt_forked(cyrt_rt *rt) {
    pthread_mutex_lock(&rt->lock);
    int f = rt->forked;
    pthread_mutex_unlock(&rt->lock);
    return f;
}

cyrt_status cyrt_rt_new(const cyrt_config *cfg, cyrt_rt **out) {
    *out = NULL;
    cyrt_rt *rt = calloc(1, sizeof *rt);
    if (!rt)
        return CYRT_ENOMEM;
    /* each step undone by the labels below it, in reverse */
    if (cfg && cfg->loader && !(rt->loader = strdup(cfg->loader)))
        goto no_loader;
    if (pthread_mutex_init(&rt->lock, NULL) != 0)
        goto no_lock;
    if (pthread_mutex_init(&rt->prog_lock, NULL) != 0)
        goto no_prog_lock;
    if (pthread_cond_init(&rt->prog_cond, NULL) != 0)
        goto no_prog_cond;
    if (pthread_mutex_init(&rt->disp_lock, NULL) != 0)
        goto no_disp_lock;
    if (pthread_cond_init(&rt->disp_cond, NULL) != 0)
        goto no_disp_cond;
    if (pthread_cond_init(&rt->unpinned, NULL) != 0)
        goto no_unpinned;
    rt->be_device = -1;
    if (cfg && cfg->backend) {
        rt->be = *cfg->backend;
        rt->have_be = 1;
    }
    rt->quiet = cfg ? cfg->quiet : 0;
    *out = rt;
    return CYRT_OK;

no_unpinned:
    pthread_cond_destroy(&rt->disp_cond);
no_disp_cond:
    pthread_mutex_destroy(&rt->disp_lock);
no_disp_lock:
    pthread_cond_destroy(&rt->prog_cond);
no_prog_cond:
    pthread_mutex_destroy(&rt->prog_lock);
no_prog_lock:
    pthread_mutex_destroy(&rt->lock);
no_lock:
    free(rt->loader);
no_loader:
    free(rt);
    return CYRT_ENOMEM;
}

cyrt_status cyrt_rt_free(cyrt_rt *rt, cyrt_err *err) {
    if (!rt)
        return CYRT_OK;
    cyrt_dispatch_free(rt); /* its opener first: it uses the devices */
    cyrt_progs_free(rt);    /* before the devices' contexts go */
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_registry_free(rt, err);
    cyrt_scopes_free(rt);
    rt->state = 0;
    cyrt_devices_free(rt);
    cyrt_cache_state_free(rt->cache);
    rt->cache = NULL;
    free(rt->warnings);
    rt->warnings = NULL;
    rt->nwarn = rt->wtaken = 0;
    free(rt->seen);
    rt->seen = NULL;
    rt->nseen = 0;
    memset(&rt->stats, 0, sizeof rt->stats);
    memset(&rt->counts, 0, sizeof rt->counts);
    if (rt->is_global) {
        /* back to the state of a fresh process */
        rt->have_be = 0;
        rt->be_device = -1;
        memset(&rt->be, 0, sizeof rt->be);
        pthread_mutex_unlock(&rt->lock);
        return st;
    }
    pthread_mutex_unlock(&rt->lock);
    pthread_cond_destroy(&rt->unpinned);
    pthread_cond_destroy(&rt->disp_cond);
    pthread_mutex_destroy(&rt->disp_lock);
    pthread_cond_destroy(&rt->prog_cond);
    pthread_mutex_destroy(&rt->prog_lock);
    pthread_mutex_destroy(&rt->lock);
    free(rt->loader);
    free(rt);
    return st;
}

void cyrt_seterr(cyrt_err *err, int code, const char *fmt, ...) {
    if (!err)
        return;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

/* Whether buf (lines) holds line (n bytes, no newline). */
static int has_line(const char *buf, const char *line, size_t n) {
    for (const char *p = buf; p && *p;) {
        const char *e = strchr(p, '\n');
        if ((size_t)(e - p) == n && memcmp(p, line, n) == 0)
            return 1;
        p = e + 1;
    }
    return 0;
}

/* Appends line (n bytes) and a newline to *buf of *len bytes; 0 or -1. */
static int add_line(char **buf, size_t *len, const char *line, size_t n) {
    char *w = realloc(*buf, *len + n + 2);
    if (!w)
        return -1;
    memcpy(w + *len, line, n);
    w[*len + n] = '\n';
    w[*len + n + 1] = '\0';
    *buf = w;
    *len += n + 1;
    return 0;
}

/* Records a line and prints it once, unless the runtime is quiet (lock
 * held; an unknown CYOCL_* value is reported every time it is looked at
 * otherwise). */
static void warn_line(cyrt_rt *rt, const char *line) {
    size_t n = strlen(line);
    if (has_line(rt->warnings, line, n))
        return;
    add_line(&rt->warnings, &rt->nwarn, line, n);
    if (!rt->quiet)
        fprintf(stderr, "cyocl: warning: %s\n", line);
}

void cyrt_warn(cyrt_rt *rt, const char *fmt, ...) {
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* one warning is one line */
    for (char *p = line; *p; p++)
        if (*p == '\n')
            *p = ' ';
    warn_line(rt, line);
}

void cyrt_warning(cyrt_rt *rt, const char *line) {
    pthread_mutex_lock(&rt->lock);
    cyrt_warn(rt, "%s", line);
    pthread_mutex_unlock(&rt->lock);
}

int cyrt_first(cyrt_rt *rt, const char *key) {
    size_t n = strcspn(key, "\n");
    pthread_mutex_lock(&rt->lock);
    int first = !has_line(rt->seen, key, n);
    if (first)
        add_line(&rt->seen, &rt->nseen, key, n);
    pthread_mutex_unlock(&rt->lock);
    return first;
}

void cyrt_warnings_defer(cyrt_rt *rt, int on) {
    pthread_mutex_lock(&rt->lock);
    rt->quiet = on;
    pthread_mutex_unlock(&rt->lock);
}

char *cyrt_warnings_take(cyrt_rt *rt) {
    pthread_mutex_lock(&rt->lock);
    char *w = NULL;
    if (rt->warnings && rt->wtaken < rt->nwarn && (w = strdup(rt->warnings + rt->wtaken)))
        rt->wtaken = rt->nwarn;
    pthread_mutex_unlock(&rt->lock);
    return w;
}

char *cyrt_warnings(cyrt_rt *rt) {
    pthread_mutex_lock(&rt->lock);
    char *w = rt->warnings ? strdup(rt->warnings) : NULL;
    pthread_mutex_unlock(&rt->lock);
    return w;
}

void cyrt_counts_get(cyrt_rt *rt, cyrt_counts *out) {
    const uint64_t *src = (const uint64_t *)&rt->counts;
    uint64_t *dst = (uint64_t *)out;
    for (size_t i = 0; i < sizeof *out / sizeof(uint64_t); i++)
        dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
    /* and the native runs the dispatcher counted in its records */
    uint64_t runs, ns;
    cyrt_dispatch_native_counts(rt, &runs, &ns);
    out->native_regions += runs;
    out->native_ns += ns;
}

void cyrt_note_native(cyrt_rt *rt, uint64_t ns) {
    __atomic_add_fetch(&rt->counts.native_regions, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&rt->counts.native_ns, ns, __ATOMIC_RELAXED);
}

uint64_t *cyrt_native_regions_word(cyrt_rt *rt) { return &rt->counts.native_regions; }

void cyrt_stats(cyrt_rt *rt, cyrt_xfer *out) {
    pthread_mutex_lock(&rt->lock);
    *out = rt->stats;
    pthread_mutex_unlock(&rt->lock);
}

const char *cyrt_status_name(cyrt_status s) {
    switch (s) {
    case CYRT_OK: return "ok";
    case CYRT_ENOMEM: return "out of memory";
    case CYRT_EINVAL: return "invalid argument";
    case CYRT_ENOLOADER: return "no OpenCL loader";
    case CYRT_ENOPLATFORM: return "no OpenCL platform";
    case CYRT_ENODEVICE: return "no usable OpenCL device";
    case CYRT_ECL: return "OpenCL error";
    case CYRT_EBUILD: return "OpenCL build failed";
    case CYRT_EBACKEND: return "device memory error";
    case CYRT_EBUSY: return "region busy in this thread";
    case CYRT_EFORKED: return "OpenCL unavailable in a forked process";
    }
    return "unknown status";
}

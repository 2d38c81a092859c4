/* rt.c: the runtime object — the process's one instance, private ones,
 * teardown, warnings and statistics. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The only mutable global of the runtime: everything else hangs off it. */
static cyrt_rt cyrt_the_rt = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .unpinned = PTHREAD_COND_INITIALIZER,
    .prog_lock = PTHREAD_MUTEX_INITIALIZER,
    .is_global = 1,
    .be_device = -1,
};

cyrt_rt *cyrt_rt_global(void) { return &cyrt_the_rt; }

cyrt_status cyrt_rt_new(const cyrt_config *cfg, cyrt_rt **out) {
    *out = NULL;
    cyrt_rt *rt = calloc(1, sizeof *rt);
    if (!rt)
        return CYRT_ENOMEM;
    if (cfg && cfg->loader && !(rt->loader = strdup(cfg->loader))) {
        free(rt);
        return CYRT_ENOMEM;
    }
    if (pthread_mutex_init(&rt->lock, NULL) != 0) {
        free(rt->loader);
        free(rt);
        return CYRT_ENOMEM;
    }
    if (pthread_mutex_init(&rt->prog_lock, NULL) != 0) {
        pthread_mutex_destroy(&rt->lock);
        free(rt->loader);
        free(rt);
        return CYRT_ENOMEM;
    }
    if (pthread_cond_init(&rt->unpinned, NULL) != 0) {
        pthread_mutex_destroy(&rt->prog_lock);
        pthread_mutex_destroy(&rt->lock);
        free(rt->loader);
        free(rt);
        return CYRT_ENOMEM;
    }
    rt->be_device = -1;
    if (cfg && cfg->backend) {
        rt->be = *cfg->backend;
        rt->have_be = 1;
    }
    rt->quiet = cfg ? cfg->quiet : 0;
    *out = rt;
    return CYRT_OK;
}

cyrt_status cyrt_rt_free(cyrt_rt *rt, cyrt_err *err) {
    if (!rt)
        return CYRT_OK;
    cyrt_progs_free(rt); /* before the devices' contexts go */
    pthread_mutex_lock(&rt->lock);
    cyrt_status st = cyrt_registry_free(rt, err);
    cyrt_scopes_free(rt);
    rt->state = 0;
    cyrt_devices_free(rt);
    cyrt_cache_state_free(rt->cache);
    rt->cache = NULL;
    free(rt->warnings);
    rt->warnings = NULL;
    rt->nwarn = 0;
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

/* Records a warning and prints it once (an unknown CYOCL_* value is
 * reported every time it is looked at otherwise). */
void cyrt_warn(cyrt_rt *rt, const char *fmt, ...) {
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t n = strlen(line);
    for (const char *p = rt->warnings; p && *p;) {
        const char *e = strchr(p, '\n');
        if ((size_t)(e - p) == n && memcmp(p, line, n) == 0)
            return;
        p = e + 1;
    }
    char *w = realloc(rt->warnings, rt->nwarn + n + 2);
    if (w) {
        memcpy(w + rt->nwarn, line, n);
        w[rt->nwarn + n] = '\n';
        w[rt->nwarn + n + 1] = '\0';
        rt->warnings = w;
        rt->nwarn += n + 1;
    }
    if (!rt->quiet)
        fprintf(stderr, "cyocl: warning: %s\n", line);
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
}

void cyrt_note_native(cyrt_rt *rt, uint64_t ns) {
    __atomic_add_fetch(&rt->counts.native_regions, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&rt->counts.native_ns, ns, __ATOMIC_RELAXED);
}

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
    }
    return "unknown status";
}

/* pool.c: the bookkeeping of a device's buffer pool (pool.h says what it
 * is for and how sizes and the cap work). */
#include "pool.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIN_CLASS ((size_t)4096)

void cyrt_pool_init(cyrt_pool *p, uint64_t cap_bytes) {
    memset(p, 0, sizeof *p);
    p->cap_bytes = cap_bytes;
}

void cyrt_pool_free(cyrt_pool *p) {
    free(p->idle);
    free(p->lent);
    uint64_t cap = p->cap_bytes;
    cyrt_pool_init(p, cap);
}

size_t cyrt_pool_class(size_t bytes) {
    if (bytes == 0)
        return 0;
    if (bytes <= MIN_CLASS)
        return MIN_CLASS;
    /* b = bytes - SLACK in (2^k, 2^(k+1)]: up to a multiple of 2^(k-2),
     * so one of 1.25, 1.5, 1.75 or 2 times 2^k, under 25% more */
    size_t b = bytes - CYRT_POOL_SLACK;
    int k = 63 - __builtin_clzll((unsigned long long)(b - 1));
    size_t step = (size_t)1 << (k - 2);
    if (step < MIN_CLASS)
        step = MIN_CLASS;
    size_t c = (b + step - 1) / step * step + CYRT_POOL_SLACK;
    return c < bytes ? bytes : c; /* at the top of size_t: as asked */
}

/* ---- the lent table ------------------------------------------------------------- */

static size_t slot_of(const cyrt_pool *p, const void *buf) {
    uint64_t h = (uint64_t)(uintptr_t)buf * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (p->caplent - 1);
}

static int lent_grow(cyrt_pool *p) {
    size_t ncap = p->caplent ? p->caplent * 2 : 64;
    cyrt_pool_buf *nt = calloc(ncap, sizeof *nt), *old = p->lent;
    if (!nt)
        return -1;
    size_t ocap = p->caplent;
    p->lent = nt;
    p->caplent = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].buf) {
            size_t s = slot_of(p, old[i].buf);
            while (nt[s].buf)
                s = (s + 1) & (ncap - 1);
            nt[s] = old[i];
        }
    free(old);
    return 0;
}

int cyrt_pool_lent(cyrt_pool *p, void *buf, size_t size) {
    if (!buf)
        return -1;
    /* at most half full, so that probes stay short */
    if (2 * (p->nlent + 1) > p->caplent && lent_grow(p) != 0)
        return -1;
    size_t s = slot_of(p, buf);
    while (p->lent[s].buf && p->lent[s].buf != buf)
        s = (s + 1) & (p->caplent - 1);
    if (!p->lent[s].buf)
        p->nlent++;
    p->lent[s] = (cyrt_pool_buf){buf, size};
    return 0;
}

/* Takes buf out of the lent table: 1 and its size, or 0 not there. */
static int lent_remove(cyrt_pool *p, void *buf, size_t *size) {
    if (!p->caplent)
        return 0;
    size_t mask = p->caplent - 1, s = slot_of(p, buf);
    while (p->lent[s].buf != buf) {
        if (!p->lent[s].buf)
            return 0;
        s = (s + 1) & mask;
    }
    *size = p->lent[s].size;
    /* backward shift: the entries after it that probed past s move up */
    size_t hole = s;
    for (size_t j = (s + 1) & mask; p->lent[j].buf; j = (j + 1) & mask) {
        size_t home = slot_of(p, p->lent[j].buf);
        /* j's entry may fill the hole unless its home lies in (hole, j] */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            p->lent[hole] = p->lent[j];
            hole = j;
        }
    }
    p->lent[hole] = (cyrt_pool_buf){NULL, 0};
    p->nlent--;
    return 1;
}

/* ---- taking and putting back ---------------------------------------------------- */

static void idle_remove(cyrt_pool *p, size_t i) {
    p->idle_bytes -= p->idle[i].size;
    memmove(p->idle + i, p->idle + i + 1, (p->nidle - i - 1) * sizeof *p->idle);
    p->nidle--;
}

void *cyrt_pool_take(cyrt_pool *p, size_t bytes, size_t *size) {
    size_t best = SIZE_MAX;
    /* twice the bytes, or the class where that is more (small buffers) */
    size_t most = bytes > SIZE_MAX / 2 ? SIZE_MAX : 2 * bytes;
    if (cyrt_pool_class(bytes) > most)
        most = cyrt_pool_class(bytes);
    /* newest first, so that of equal sizes the most recently freed wins */
    for (size_t i = p->nidle; i-- > 0;) {
        size_t s = p->idle[i].size;
        if (s >= bytes && s <= most && (best == SIZE_MAX || s < p->idle[best].size))
            best = i;
    }
    if (best == SIZE_MAX || cyrt_pool_lent(p, p->idle[best].buf, p->idle[best].size) != 0) {
        p->misses++;
        return NULL;
    }
    void *buf = p->idle[best].buf;
    *size = p->idle[best].size;
    idle_remove(p, best);
    p->hits++;
    return buf;
}

int cyrt_pool_put(cyrt_pool *p, void *buf, void **evicted, size_t *nevicted) {
    *nevicted = 0;
    size_t size = 0;
    if (!buf || !lent_remove(p, buf, &size) || size > p->cap_bytes)
        return 0;
    if (p->nidle == p->capidle) {
        size_t ncap = p->capidle ? p->capidle * 2 : 16;
        if (ncap > CYRT_POOL_MAX_IDLE + 1)
            ncap = CYRT_POOL_MAX_IDLE + 1;
        cyrt_pool_buf *ni = ncap > p->capidle ? realloc(p->idle, ncap * sizeof *ni) : NULL;
        if (!ni)
            return 0;
        p->idle = ni;
        p->capidle = ncap;
    }
    p->idle[p->nidle++] = (cyrt_pool_buf){buf, size};
    p->idle_bytes += size;
    /* room for it: the least recently freed go (never buf itself, which
     * fits the cap alone) */
    while (p->idle_bytes > p->cap_bytes || p->nidle > CYRT_POOL_MAX_IDLE) {
        evicted[(*nevicted)++] = p->idle[0].buf;
        idle_remove(p, 0);
        p->evictions++;
    }
    return 1;
}

size_t cyrt_pool_drain(cyrt_pool *p, void **out, size_t max) {
    size_t n = p->nidle < max ? p->nidle : max;
    if (n == 0)
        return 0; /* idle may be NULL: no memmove of it */
    for (size_t i = 0; i < n; i++)
        out[i] = p->idle[i].buf;
    for (size_t i = 0; i < n; i++)
        p->idle_bytes -= p->idle[i].size;
    memmove(p->idle, p->idle + n, (p->nidle - n) * sizeof *p->idle);
    p->nidle -= n;
    return n;
}

uint64_t cyrt_pool_default_cap(uint64_t global_mem, int cpu) {
    uint64_t cap = cpu ? global_mem / 8 : global_mem / 4, most = (uint64_t)(cpu ? 1 : 4) << 30;
    return cap < most ? cap : most;
}

int cyrt_pool_parse_mb(const char *v, uint64_t *cap_bytes) {
    if (!v || !isdigit((unsigned char)*v))
        return -1;
    errno = 0;
    char *end;
    unsigned long long mb = strtoull(v, &end, 10);
    if (errno || *end || mb > (UINT64_MAX >> 20))
        return -1;
    *cap_bytes = (uint64_t)mb << 20;
    return 0;
}

/* pool.h: the bookkeeping of a device's buffer pool (device.c keeps one
 * per device).  A freed device buffer waits here, idle, for a later
 * allocation of a size it fits, instead of being released: on the H100 a
 * release of large buffers keeps the driver's threads busy for 100-250 ms
 * and a creation costs too, while a plain call (outside cyocl.resident)
 * creates and frees its buffers at every call.
 *
 * No OpenCL here: buffers are opaque pointers, made and released by the
 * caller, so that tests/unit/test_pool.c drives it without a device.  Not
 * thread-safe: the owner locks (device.c: the device's pool lock).
 *
 * Sizes: a new buffer is made with cyrt_pool_class(bytes) bytes, bytes
 * rounded up to a quarter of its power-of-two octave (at most 25% more; 4
 * KiB at least), so that arrays of nearby sizes share buffers; the octave
 * is that of bytes - CYRT_POOL_SLACK, since a region's buffer starts at its
 * address rounded down to 128 bytes (CYRT_ALIGN): a power-of-two array
 * asks for up to 127 bytes more, and gets 128 more, not 25%.  An
 * allocation takes the smallest idle buffer of at least the bytes asked
 * and at most twice as many, or its class where that is more (the most
 * recently freed of equals).
 *
 * The cap: idle bytes beyond cap_bytes, or idle buffers beyond
 * CYRT_POOL_MAX_IDLE, go, least recently freed first; a buffer larger than
 * the cap is released when freed; cap_bytes 0 is no pool. */
#ifndef CYRT_POOL_H
#define CYRT_POOL_H

#include <stddef.h>
#include <stdint.h>

/* the registry's alignment of a buffer's start (CYRT_ALIGN in internal.h) */
#define CYRT_POOL_SLACK ((size_t)128)
/* idle buffers at most (their search is linear) */
#define CYRT_POOL_MAX_IDLE 128

typedef struct {
    void *buf;
    size_t size;
} cyrt_pool_buf;

typedef struct cyrt_pool {
    uint64_t cap_bytes;
    /* idle buffers, least recently freed first */
    cyrt_pool_buf *idle;
    size_t nidle, capidle;
    uint64_t idle_bytes;
    /* lent buffers (made or taken, not yet back) and their sizes: an open
     * addressing table, capacity a power of two (0: none yet) */
    cyrt_pool_buf *lent;
    size_t nlent, caplent;
    uint64_t hits, misses, evictions; /* takes that found one / did not; idle buffers that went */
} cyrt_pool;

void cyrt_pool_init(cyrt_pool *p, uint64_t cap_bytes);
/* The host memory of the tables (the buffers are the caller's: drain first). */
void cyrt_pool_free(cyrt_pool *p);
/* The size a buffer made for bytes gets (0 for 0). */
size_t cyrt_pool_class(size_t bytes);
/* An idle buffer for bytes, now lent (*size its size), or NULL (a miss). */
void *cyrt_pool_take(cyrt_pool *p, size_t bytes, size_t *size);
/* Records a buffer the caller made (size bytes) as lent.  -1: out of host
 * memory, the buffer is not known (cyrt_pool_put then answers 0). */
int cyrt_pool_lent(cyrt_pool *p, void *buf, size_t size);
/* buf comes back.  1: it is idle in the pool now; 0: the caller releases
 * it (not lent from here, no pool, larger than the cap).  Either way the
 * idle buffers that had to go for it are in evicted[0..*nevicted) (room
 * for CYRT_POOL_MAX_IDLE + 1), for the caller to release. */
int cyrt_pool_put(cyrt_pool *p, void *buf, void **evicted, size_t *nevicted);
/* Takes up to max idle buffers out (least recently freed first) into out,
 * for the caller to release; returns how many. */
size_t cyrt_pool_drain(cyrt_pool *p, void **out, size_t max);
/* The default cap for a device of global_mem bytes: a quarter, at most
 * 4 GiB (cpu: an eighth, at most 1 GiB, since it is the host's memory). */
uint64_t cyrt_pool_default_cap(uint64_t global_mem, int cpu);
/* CYOCL_POOL_MB's value as a cap in bytes: 0 ok, -1 not a number of MiB. */
int cyrt_pool_parse_mb(const char *v, uint64_t *cap_bytes);

#endif

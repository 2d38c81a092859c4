/* test_pool.c: the device-buffer pool's bookkeeping (runtime/pool.c)
 * without a device: buffers are fake pointers, each with its size.
 *
 * Size classes, best fit within twice the bytes asked, least recently
 * freed evicted first beyond the cap in bytes and in buffers, a buffer
 * larger than the cap or not lent from the pool handed back, the lent
 * table under many buffers, drains, CYOCL_POOL_MB's parsing, and a
 * randomized run against a plain model of what is idle. */
#include "runtime/pool.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define MiB ((size_t)1 << 20)

/* fake buffers: distinct addresses, never dereferenced */
static char arena[1 << 16];
static void *fake(size_t i) { return arena + i; }

static void test_classes(void) {
    CHECK(cyrt_pool_class(0) == 0);
    CHECK(cyrt_pool_class(1) == 4096 && cyrt_pool_class(4096) == 4096);
    CHECK(cyrt_pool_class(4097) == 4096 + 128 && cyrt_pool_class(4225) == 8192 + 128);
    CHECK(cyrt_pool_class(MiB) == MiB + 128);
    CHECK(cyrt_pool_class(MiB + 1) == MiB + 128);
    CHECK(cyrt_pool_class(MiB + 128) == MiB + 128);
    CHECK(cyrt_pool_class(MiB + 129) == MiB + MiB / 4 + 128);
    /* a 4096x4096 float64 array and its alignment: 128 bytes more, not 25% */
    CHECK(cyrt_pool_class(128 * MiB + 100) == 128 * MiB + 128, "%zu", cyrt_pool_class(128 * MiB + 100));
    CHECK(cyrt_pool_class(SIZE_MAX - 5) >= SIZE_MAX - 5);
    size_t prev = 0;
    for (size_t b = 1; b < ((size_t)1 << 40); b = b * 9 / 8 + 7) {
        size_t c = cyrt_pool_class(b);
        CHECK(c >= b && c >= prev, "class(%zu) = %zu", b, c);
        /* at most a quarter more where quarters are 4 KiB or more, and idempotent */
        CHECK(b <= 16384 || c - b < b / 4 + 1, "class(%zu) = %zu", b, c);
        CHECK(c - b < 4096 || c - b < b / 4 + 1, "class(%zu) = %zu", b, c);
        CHECK(cyrt_pool_class(c) == c, "class(class(%zu))", b);
        prev = c;
    }
}

static void test_fit(void) {
    cyrt_pool p;
    cyrt_pool_init(&p, 64 * MiB);
    void *ev[CYRT_POOL_MAX_IDLE + 1];
    size_t nev, size;
    void *none[2];
    CHECK(cyrt_pool_drain(&p, none, 2) == 0); /* nothing idle ever: no table yet */
    CHECK(cyrt_pool_take(&p, 100, &size) == NULL && p.misses == 1);
    size_t sizes[] = {4 * MiB, 2 * MiB, 3 * MiB, 2 * MiB};
    for (size_t i = 0; i < 4; i++)
        CHECK(cyrt_pool_lent(&p, fake(i), sizes[i]) == 0);
    for (size_t i = 0; i < 4; i++)
        CHECK(cyrt_pool_put(&p, fake(i), ev, &nev) == 1 && nev == 0);
    CHECK(p.nidle == 4 && p.idle_bytes == 11 * MiB && p.nlent == 0);
    /* best fit; of the two 2 MiB ones the most recently freed */
    void *b = cyrt_pool_take(&p, 2 * MiB - 10, &size);
    CHECK(b == fake(3) && size == 2 * MiB && p.hits == 1);
    CHECK(cyrt_pool_take(&p, 2 * MiB, &size) == fake(1));
    /* 1.6 MiB: 3 MiB is under twice that, 4 MiB is not */
    CHECK(cyrt_pool_take(&p, (size_t)(1.6 * MiB), &size) == fake(2) && size == 3 * MiB);
    /* nothing at most twice 1 MiB is left: the 4 MiB one stays */
    CHECK(cyrt_pool_take(&p, MiB, &size) == NULL && p.nidle == 1);
    CHECK(cyrt_pool_take(&p, 5 * MiB, &size) == NULL);
    CHECK(cyrt_pool_take(&p, 4 * MiB, &size) == fake(0) && p.nidle == 0 && p.idle_bytes == 0);
    CHECK(p.nlent == 4 && p.hits == 4 && p.misses == 3);
    /* a small buffer fits its class, over twice its bytes */
    CHECK(cyrt_pool_lent(&p, fake(20), cyrt_pool_class(1000)) == 0);
    CHECK(cyrt_pool_put(&p, fake(20), ev, &nev) == 1);
    CHECK(cyrt_pool_take(&p, 1000, &size) == fake(20) && size == 4096);
    CHECK(cyrt_pool_put(&p, fake(20), ev, &nev) == 1 && cyrt_pool_take(&p, 1000, &size) == fake(20));
    CHECK(cyrt_pool_put(&p, fake(20), ev, &nev) == 1 && cyrt_pool_take(&p, 4097, &size) == NULL);
    CHECK(cyrt_pool_take(&p, 2048, &size) == fake(20));
    /* back again, in another order */
    for (size_t i = 4; i-- > 0;)
        CHECK(cyrt_pool_put(&p, fake(i), ev, &nev) == 1);
    /* a buffer the pool never lent, or one put back twice: the caller's */
    CHECK(cyrt_pool_put(&p, fake(9), ev, &nev) == 0 && nev == 0);
    CHECK(cyrt_pool_put(&p, fake(0), ev, &nev) == 0);
    CHECK(cyrt_pool_put(&p, NULL, ev, &nev) == 0);
    void *out[8];
    CHECK(cyrt_pool_drain(&p, out, 3) == 3 && out[0] == fake(3) && out[1] == fake(2) && out[2] == fake(1));
    CHECK(cyrt_pool_drain(&p, out, 8) == 1 && out[0] == fake(0) && p.idle_bytes == 0);
    CHECK(cyrt_pool_drain(&p, out, 8) == 0);
    cyrt_pool_free(&p);
}

static void test_cap(void) {
    cyrt_pool p;
    cyrt_pool_init(&p, 10 * MiB);
    void *ev[CYRT_POOL_MAX_IDLE + 1];
    size_t nev;
    for (size_t i = 0; i < 6; i++)
        CHECK(cyrt_pool_lent(&p, fake(i), 3 * MiB) == 0);
    CHECK(cyrt_pool_lent(&p, fake(6), 11 * MiB) == 0);
    CHECK(cyrt_pool_lent(&p, fake(7), 9 * MiB) == 0);
    for (size_t i = 0; i < 3; i++)
        CHECK(cyrt_pool_put(&p, fake(i), ev, &nev) == 1 && nev == 0);
    /* a fourth 3 MiB one: the least recently freed goes */
    CHECK(cyrt_pool_put(&p, fake(3), ev, &nev) == 1 && nev == 1 && ev[0] == fake(0));
    CHECK(p.idle_bytes == 9 * MiB && p.evictions == 1);
    /* larger than the cap: not kept, nothing evicted for it */
    CHECK(cyrt_pool_put(&p, fake(6), ev, &nev) == 0 && nev == 0 && p.nidle == 3);
    /* 9 MiB: every older one goes */
    CHECK(cyrt_pool_put(&p, fake(7), ev, &nev) == 1 && nev == 3);
    CHECK(ev[0] == fake(1) && ev[1] == fake(2) && ev[2] == fake(3) && p.nidle == 1 && p.idle_bytes == 9 * MiB);
    size_t size;
    CHECK(cyrt_pool_take(&p, 5 * MiB, &size) == fake(7));
    CHECK(cyrt_pool_put(&p, fake(7), ev, &nev) == 1);
    void *out[4];
    CHECK(cyrt_pool_drain(&p, out, 4) == 1);
    cyrt_pool_free(&p);

    /* the cap in buffers */
    cyrt_pool_init(&p, 1ull << 40);
    for (size_t i = 0; i < CYRT_POOL_MAX_IDLE + 5; i++)
        CHECK(cyrt_pool_lent(&p, fake(i), 4096) == 0);
    size_t evicted = 0;
    for (size_t i = 0; i < CYRT_POOL_MAX_IDLE + 5; i++) {
        CHECK(cyrt_pool_put(&p, fake(i), ev, &nev) == 1);
        for (size_t k = 0; k < nev; k++)
            CHECK(ev[k] == fake(evicted + k), "evicted %zu", evicted + k);
        evicted += nev;
    }
    CHECK(evicted == 5 && p.nidle == CYRT_POOL_MAX_IDLE);
    void *all[CYRT_POOL_MAX_IDLE + 1];
    CHECK(cyrt_pool_drain(&p, all, CYRT_POOL_MAX_IDLE + 1) == CYRT_POOL_MAX_IDLE);
    cyrt_pool_free(&p);

    /* cap 0: no buffer is kept */
    cyrt_pool_init(&p, 0);
    CHECK(cyrt_pool_lent(&p, fake(1), 4096) == 0);
    CHECK(cyrt_pool_put(&p, fake(1), ev, &nev) == 0 && nev == 0 && p.nlent == 0);
    cyrt_pool_free(&p);
}

/* Many buffers lent at once, returned in a scrambled order: the table
 * grows and its deletions keep every other entry findable. */
static void test_lent_table(void) {
    enum { N = 5000 };
    cyrt_pool p;
    cyrt_pool_init(&p, 1ull << 40);
    for (size_t i = 0; i < N; i++)
        CHECK(cyrt_pool_lent(&p, fake(i * 8), 4096 + i) == 0);
    CHECK(p.nlent == N);
    void *ev[CYRT_POOL_MAX_IDLE + 1];
    size_t nev, back = 0, kept = 0;
    for (size_t k = 0; k < N; k++) {
        size_t i = (k * 2654435761u) % N; /* a permutation: N is coprime with it */
        int r = cyrt_pool_put(&p, fake(i * 8), ev, &nev);
        back += r == 1;
        kept += r == 1;
        kept -= nev;
    }
    CHECK(back == N && p.nlent == 0 && kept == p.nidle && p.nidle == CYRT_POOL_MAX_IDLE, "%zu %zu %zu", back,
          p.nlent, p.nidle);
    uint64_t bytes = 0;
    for (size_t i = 0; i < p.nidle; i++)
        bytes += p.idle[i].size;
    CHECK(bytes == p.idle_bytes);
    cyrt_pool_free(&p);
}

/* Random takes and puts against a model: the idle list in free order. */
static void test_random(void) {
    enum { NB = 400 };
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    size_t model_size[NB];
    int state[NB]; /* 0 not made, 1 lent, 2 idle, 3 released */
    size_t order[NB], norder = 0; /* the model's idle buffers, least recently freed first */
    cyrt_pool p;
    cyrt_pool_init(&p, 40 * MiB);
    size_t made = 0;
    for (int step = 0; step < 20000; step++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        if (rng % 2 == 0) {
            size_t bytes = (size_t)(rng >> 20) % (6 * MiB) + 1, size = 0;
            void *b = cyrt_pool_take(&p, bytes, &size);
            /* the model's best fit */
            size_t best = SIZE_MAX;
            for (size_t k = norder; k-- > 0;) {
                size_t s = model_size[order[k]];
                size_t most = 2 * bytes > cyrt_pool_class(bytes) ? 2 * bytes : cyrt_pool_class(bytes);
                if (s >= bytes && s <= most && (best == SIZE_MAX || s < model_size[order[best]]))
                    best = k;
            }
            if (best == SIZE_MAX) {
                CHECK(b == NULL, "step %d: a hit where the model has none", step);
                if (made < NB) {
                    model_size[made] = cyrt_pool_class(bytes);
                    state[made] = 1;
                    CHECK(cyrt_pool_lent(&p, fake(made), model_size[made]) == 0);
                    made++;
                }
            } else {
                size_t i = order[best];
                CHECK(b == fake(i) && size == model_size[i], "step %d: took %p, model %zu", step, b, i);
                state[i] = 1;
                for (size_t k = best; k + 1 < norder; k++)
                    order[k] = order[k + 1];
                norder--;
            }
        } else if (made) {
            size_t i = (size_t)(rng >> 24) % made;
            void *ev[CYRT_POOL_MAX_IDLE + 1];
            size_t nev;
            int r = cyrt_pool_put(&p, fake(i), ev, &nev);
            if (state[i] != 1) {
                CHECK(r == 0 && nev == 0, "step %d: %zu put twice", step, i);
                continue;
            }
            CHECK(r == 1);
            state[i] = 2;
            order[norder++] = i;
            uint64_t total = 0;
            for (size_t k = 0; k < norder; k++)
                total += model_size[order[k]];
            size_t k = 0;
            while (total > 40 * MiB || norder - k > CYRT_POOL_MAX_IDLE)
                total -= model_size[order[k++]];
            CHECK(nev == k, "step %d: %zu evicted, model %zu", step, nev, k);
            for (size_t e = 0; e < k && e < nev; e++) {
                CHECK(ev[e] == fake(order[e]));
                state[order[e]] = 3;
            }
            for (size_t e = k; e < norder; e++)
                order[e - k] = order[e];
            norder -= k;
            CHECK(p.idle_bytes == total && p.nidle == norder);
        }
    }
    CHECK(p.hits > 1000 && p.evictions > 10, "%llu hits, %llu evictions", (unsigned long long)p.hits,
          (unsigned long long)p.evictions);
    cyrt_pool_free(&p);
}

static void test_config(void) {
    uint64_t cap = 7;
    CHECK(cyrt_pool_parse_mb("0", &cap) == 0 && cap == 0);
    CHECK(cyrt_pool_parse_mb("512", &cap) == 0 && cap == 512ull << 20);
    CHECK(cyrt_pool_parse_mb("-1", &cap) != 0 && cap == 512ull << 20);
    CHECK(cyrt_pool_parse_mb("", &cap) != 0);
    CHECK(cyrt_pool_parse_mb(" 5", &cap) != 0);
    CHECK(cyrt_pool_parse_mb("5MB", &cap) != 0);
    CHECK(cyrt_pool_parse_mb("99999999999999999999999", &cap) != 0);
    CHECK(cyrt_pool_default_cap(80ull << 30, 0) == 4ull << 30);
    CHECK(cyrt_pool_default_cap(8ull << 30, 0) == 2ull << 30);
    CHECK(cyrt_pool_default_cap(64ull << 30, 1) == 1ull << 30);
    CHECK(cyrt_pool_default_cap(4ull << 30, 1) == 512ull << 20);
}

int main(void) {
    test_classes();
    test_fit();
    test_cap();
    test_lent_table();
    test_random();
    test_config();
    printf("test_pool: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

/* dispatch.c: the calibrated dispatcher (DESIGN §6; docs/runtime.md,
 * "The dispatcher").
 *
 * Per region and call it predicts the time of the native team and of the
 * bound OpenCL device and runs the smaller:
 *
 *   native  = fit_native(n) + bytes its views must bring back / bw_down
 *   opencl  = fit_opencl(n) + bytes to upload / bw_up
 *                           + bytes the region leaves only on the device / bw_down
 *   (each copy also pays the device's round trip)
 *
 * per copy, by its path (cyrt_copy_staged, device.c's own rule): a direct
 * copy from pageable memory at the direct bandwidths plus the round trip,
 * a staged one (through pinned buffers, GPUs from 8 MiB) at the staged
 * bandwidths plus the staged path's fixed cost.  The two are 5-8x apart
 * on the H100 (5-8 GB/s up, 8-15 back; 40-47 staged): one number per
 * direction made large moves look 5-8x dearer than they are, and, refined
 * by them, small ones cheap.
 *
 * fit_side(n) is a piecewise-linear curve through one point per octave of
 * n (side_observe: the lowest of the recent (n, time) pairs that fell in
 * it, a native point's second lowest of six or more), extrapolated with the slope
 * of the two largest points, or from the side's fixed overhead when there
 * is only one.  Device times are recorded without the copies as the
 * registry timed them (those refine the bandwidths) and without a program
 * build.  So per-iteration cost may vary with n (caches, occupancy), and a
 * wrong guess corrects itself: the side that ran is measured, its point
 * moves.
 *
 * Rent or buy (rent_or_buy): where the side that is faster without copies
 * is not the one chosen, the calls add up what they lost; once that reaches
 * the price of moving the data (a quarter of the copies for cyocl.resident
 * views, the whole for others, times 2^k learnt from how earlier moves paid
 * off) the data moves, and stays while it pays.
 *
 * Calibration: a region's first call runs natively (again at the second
 * where it took under STALL_SLACK: it may be all cold start or stall), then
 * once on the device (unless the device's launch overhead and transfers
 * alone already cost more than twice the native time); later, a side without a point
 * within a factor 4 of n that is predicted within 4x of the other, or
 * whose nearest point is one 4x below n and that is predicted within 2x, is run
 * once there (at most 16 times per side and region), a side measured only
 * once or twice at this size and predicted within 4x is measured again,
 * every 256 calls a side predicted within 1.3x of the chosen one (or
 * less than 1 ms slower) is run once, and any other side once the calls
 * since its last run were predicted to take 32 times its predicted time;
 * a native point measured only in bad moments (provisional) is retried
 * with a backoff, never before the chosen side's calls took its cost less
 * STALL_SLACK, and once RETRY_GAP and RETRY_SHARE times its cost have
 * passed since its last run (stored provisional points stay so).  A
 * native run far slower than its prediction (a stalled team) makes the
 * native times of the next STALL_NS provisional, and small regions run one
 * thread for a while (stall_solo).  The native team's size (the full team or
 * one thread) is chosen per region and octave of n from both's measured
 * times (team_locked).  Per device,
 * once: bandwidth both ways per copy path (direct: 8 MiB copies; staged:
 * 8 and 32 MiB, a bandwidth and a fixed cost) and the launch overhead of a
 * kernel that does nothing (a tiny microbenchmark when the device opens).
 *
 * The hot path (decide): once SETTLE full decisions in a row at an octave
 * of n chose one side without calibrating or moving data, and while the
 * data stays where it was (call_sig), calls there take that side from
 * r->fast with a few atomic loads and no lock; every SAMPLE-th call is
 * decided in full, and only full decisions' native runs are timed in.
 *
 * The device opens on a background thread at the first region that asks
 * (dstate: 0 not started, 1 starting, 2 ready, -1 none); meanwhile regions
 * run natively ("auto: device starting"), unless the stored calibration
 * says that waiting for it is faster.
 *
 * Calibration is stored in the kernel cache's directory (one file per
 * device selection, holding the device's identity, which is checked when
 * the device opens), written atomically, ignored when damaged, never
 * when the cache is off or unsafe. */
#include "internal.h"
#include "cyocl_api.h"
#include "cache/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef CYOCL_VERSION
#define CYOCL_VERSION "0.0.0-dev"
#endif

#define DB 48                   /* points per side: one per octave of n */
#define EXPLORE_MAX 16          /* calibration runs per side and region at new sizes, far from the others' */
#define NATIVE_OVERHEAD 3000.0  /* ns: the fixed cost of a native team, before any measurement */
#define BUSY_NS 20000000u        /* cyrt_dispatch_device_used */
#define BUILD_BUSY_NS 250000000u /* the same after a program build */
#define STALL_NS 100000000u      /* native times provisional after a stalled team */
#define WAKE_NS 5000000u         /* a native team after this long without one wakes its threads */
#define DEV_COLD_NS 2000000u     /* a device run this long after the last one is cold (choose_locked) */
#define STALL_SLACK 25000000.0   /* ns a stall may add to a native time: two scheduler slices (12 ms on the H100) */

#define SAMPLE 64   /* a settled decision is made in full (and its run timed) every SAMPLE calls */
#define SETTLE 3    /* full decisions in a row, alike, that settle one */

#define WIN 4                 /* a point's time comes from its last WIN measurements (side_observe) */
#define RING 8                /* and of those of the last YOUNG ns, up to RING */
#define YOUNG 250000000u
#define BURST 50000000u       /* ns: WIN measurements this close are a burst (side_observe) */
#define RETRY_GAP 200000000u  /* ns: a provisional point is retried no sooner than this after its last run */
#define RETRY_SHARE 20.0      /* nor before RETRY_SHARE times what the retry is predicted to cost */
#define SOLO_TRY 100000.0     /* ns: one thread is tried at sizes where the team takes less */
#define SOLO_BYTES 262144.0   /* and first, before the team, where the views span less */
#define SOLO_RECHECK 16       /* full native decisions at an octave between runs of the team size not chosen */

typedef struct {
    double n, t;  /* the lowest of the recent (n, ns) pairs in this octave */
    uint32_t cnt;
    uint32_t loaded; /* 1 from the store, not measured by this process yet;
                        2 provisional: measured while the device's driver was busy
                        beside the native team (starting, or just used) */
    double wn[RING], wt[RING]; /* the last measurements: a ring, wpos written so far */
    uint64_t wts[RING];        /* when (0: from the store) */
    uint32_t wpos;
} dpoint;

typedef struct {
    dpoint b[DB];
    uint32_t explored;
} dside;

/* The native team's size at one octave of n (cyocl_launch.team): ns per
 * iteration of the full team's [0] and one thread's [1] last WIN runs.  A
 * short region's work is less than the team's start and barrier (H100,
 * 16 threads: 5-8 us for a 10x10 matmul's microsecond of work), and a
 * team of every core stalls for a scheduler slice whenever another thread
 * takes one of them: one thread does neither. */
typedef struct {
    float t[2][WIN];
    uint32_t cnt[2];
    uint32_t since; /* full decisions since the size not chosen last ran */
    float work[WIN]; /* the team's runs: thread 0's share times the team's size
                        (what one thread would take), ns per iteration */
    uint32_t nwork;
    uint32_t waits; /* team runs that waited at their end (native_done) */
    int size;       /* the full team's size its runs had (native_done) */
} dteam;

/* A settled decision for one octave of n (decide's hot path): word is 0,
 * or 1 | side << 1 | sig << 2, where sig names where the data was (the
 * registry's sequence, the views) when SETTLE full decisions in a row
 * with that signature chose that side without calibrating, moving data or
 * losing time to rent or buy.  While the signature holds, calls take the
 * side from here with a few atomic loads, and every SAMPLE-th is made (and
 * timed) in full.  WAYS of them per octave, one per signature: a time
 * step that swaps its arrays (jacobi's u and t inside cyocl.resident)
 * alternates two, and with one way no decision settled (H100, bench side,
 * c03 jacobi 100x100 resident: every call decided in full, 1.3x forced
 * native). */
typedef struct {
    uint64_t word;          /* atomic */
    long long pred[2];      /* atomic: the predictions behind it (trace, CYOCL_VERBOSE) */
    uint64_t cand_sig;      /* the candidate (spin lock held): its signature, side, */
    int cand_side, streak;  /* and how many full decisions in a row chose it */
    uint32_t calls;         /* spin: calls that found word settled (sampling) */
} dfast;
#define WAYS 2

struct cyrt_dregion {
    char key[80];       /* SHA-256 of the kernel source (hex) ":" region id */
    const char *src;    /* the module's source string (NULL: loaded, not seen yet) */
    int region;
    int spin;           /* guards the fields below: held for a few loads and stores */
    dside side[2];      /* CYRT_SIDE_NATIVE, CYRT_SIDE_OPENCL */
    uint32_t since_explore;
    double credit;      /* ns the chosen sides were predicted to take since the last recheck */
    int lost, lost_best; /* rechecks in a row (choose_locked's last) that left lost_best the faster side */
    int lost_b;         /* at this octave of n (another starts again) */
    int again, again_b, again_n; /* the side the next again_n full decisions at octave again_b run (-1 none) */
    int again_cold;     /* again runs the device after a cold run: copies or not (choose_locked) */
    int last;           /* the last choice printed (CYOCL_VERBOSE), -1 none */
    int off;            /* the device cannot take it (failure, not eligible): native */
    int stored;         /* some point came from the store */
    /* rent or buy (choose_locked): moving the data to the side that is
     * faster once the data is there */
    double regret;      /* ns the calls lost since, by not moving it */
    int regret_b;       /* at this octave of n (another size starts again) */
    int owner;          /* the side a purchase moved the data to, -1 none */
    double paid, gained; /* that purchase's transfers, and what it saved since */
    int fails;          /* 0..4: a purchase for resident views costs x * 2^(fails-4)
                           of regret (none at 0) */
    int owner_res;      /* the purchase was for resident views */
    /* calls per epoch (rt->scope_seq: between two def calls' returns,
     * which bring data back to the host, data stays where regions leave
     * it): a def that loops over the region calls it many times per
     * epoch, so one upload serves them all; a plain call of a def that
     * runs it once pays its copies every time */
    uint64_t ep;          /* the epoch of the last call */
    uint32_t ep_calls;    /* calls in it so far */
    uint32_t ep_hist[2];  /* the last two finished epochs' counts (0: none yet) */
    uint64_t regret_ep;   /* plain calls: the epoch their regret was lost in */
    /* the hot path (decide).  Its bookkeeping and native_done's are each
     * one hold of spin (plain adds inside): two locked instructions a
     * call where an atomic add or exchange per count made eight (2-core
     * VM: decide + native_done 78 ns a settled native call, now 55) */
    dfast fast[DB][WAYS];
    unsigned char fast_next[DB]; /* spin: the way a new signature takes next */
    uint32_t ncalls;    /* spin: calls decided natively without a device (sampling; the ways count their own) */
    uint32_t skipped;   /* spin: calls decided from fast[] since the last full decision */
    uint64_t nfast;     /* spin: calls decided from fast[] (cyocl.stats()' fast_decisions) */
    uint64_t nat_runs, nat_ns; /* spin: native runs decided here, their time (stats' native_regions,
                                  native_ns: cyrt_dispatch_native_counts) */
    uint32_t nquiet;    /* atomic: quiet device launches (cyrt_dispatch_wait_due) */
    double enq_ns;      /* spin: a quiet kernel's launch up to its enqueue, ns (0: none seen;
                           cyrt_dispatch_observe_enqueue) */
    /* spin: its calls in a row with no host use of device data and no
     * wait for the device between one's end and the next one's start
     * (row_mark), across def calls too: quiet kernels on cyocl.resident
     * views called from a Python loop stream as jacobi's steps do within
     * one def call.  A device run that waited ends its row; so does a
     * call whose end was not seen (a launch that read results back) */
    uint64_t st_mark;   /* row_mark at the last call's end */
    uint64_t st_ep;     /* and its epoch: a def's return ends the row unless */
    int st_res;         /* every view of the region's last full decision was resident */
    int st_open;        /* that end was seen, and the row may go on */
    uint32_t st_run;    /* the row so far */
    uint32_t st_last;   /* the last finished row's length */
    dteam team[DB];     /* the native team's size per octave (team_locked) */
    int solo[DB];       /* atomic: its choice there for the hot path: 0 none yet (full decisions
                           measure it), 1 the full team, 2 one thread */
    float solo_t[DB];   /* atomic: one thread's ns per iteration there (its runs, or the
                           team's thread 0's work times the team's size), 0 unknown */
    struct cyrt_dregion *next;
};

struct cyrt_disp {
    int dstate;            /* atomic: 0 not started, 1 starting, 2 ready, -1 no device */
    int dev;               /* the device index once ready */
    unsigned dev_type;     /* and its CYRT_DEV_* type */
    unsigned allowed;      /* device types the opener may take */
    int have_thr;
    pthread_t thr;
    uint64_t start_ns;     /* when the opener started */
    /* per device (under disp_lock) */
    int have_dev, dev_stored;
    double bw_up, bw_down; /* direct copies (pageable host memory): bytes per ns */
    double st_up, st_down; /* staged copies (cyrt_copy_staged): bytes per ns */
    double st_fix_up, st_fix_down; /* a staged copy's fixed cost, ns */
    int staged_known;      /* the staged path was measured (a file of format 1 has one
                              bandwidth each way: the device is measured again) */
    double launch_ns, startup_ns;
    char devid[600];
    /* regions */
    struct cyrt_dregion *regions;
    int verbose;
    int dirty;
    uint64_t last_save;
    char path[1100];       /* the calibration file, "" none */
    int writable;
    uint64_t calib_runs;   /* atomic */
    int exiting;           /* atomic: the process is exiting (cyrt_dispatch_flush) */
    double lost_ns;        /* predicted time lost running natively while the device started */
    int team_seen;         /* atomic: a native region ran since the opener started (opener) */
    int sync_open;         /* the opener runs on the caller's thread (no thread could be made) */
    /* When native times stop being provisional, the driver stops working
     * beside native teams, and so on (atomic, ns; each only grows but
     * solo_until, which stall_solo clears): */
    uint64_t busy_until;   /* native times provisional: device runs, copies, builds, stalls */
    uint64_t build_until;  /* the driver works (start-up, a build): teams short, no native retries */
    uint64_t dev_last;     /* the device last ran or copied (team sizes: native_done) */
    uint64_t solo_until;   /* atomic: and small regions one thread till then (stall_solo; 0 none) */
    uint64_t native_end;   /* atomic: when the last native run ended (cyrt_dispatch_native_done) */
    uint64_t ocl_end;      /* atomic: when the last device run the dispatcher timed ended (observe) */
};

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* *at = max(*at, t), for the dispatcher's "until" times */
static void later(uint64_t *at, uint64_t t) {
    uint64_t old = __atomic_load_n(at, __ATOMIC_ACQUIRE);
    while (old < t && !__atomic_compare_exchange_n(at, &old, t, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
        ;
}

static void spin_lock(int *s) {
    while (__atomic_exchange_n(s, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(s, __ATOMIC_RELAXED))
            ;
}
static void spin_unlock(int *s) { __atomic_store_n(s, 0, __ATOMIC_RELEASE); }

/* ---- the model -------------------------------------------------------------------- */

static int bucket(double n) {
    if (n < 1)
        return 0;
    uint64_t u = n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
    int b = 1 + (63 - __builtin_clzll(u)); /* no libm: floor(log2(n)) */
    return b < DB ? b : DB - 1;
}

/* A point holding one pair (n, t) counted cnt times. */
static void point_set(dpoint *p, double n, double t, uint32_t cnt, uint32_t loaded) {
    memset(p, 0, sizeof *p);
    p->n = p->wn[0] = n;
    p->t = p->wt[0] = t;
    p->wts[0] = loaded == 1 ? 0 : now_ns();
    p->wpos = 1;
    p->cnt = cnt;
    p->loaded = loaded;
}

/* prov: measured while the device's driver was busy beside the team
 * (starting, or just used: its threads then take cores the team waits
 * for at its barrier): the point is provisional until a real measurement
 * joins it (it is measured again soon, and not stored), and a provisional
 * measurement only counts where it is lower.
 *
 * Of its last WIN measurements and all those of the last YOUNG ns (up
 * to RING), a point's time is the lowest, a native one's the second
 * lowest where there are six or more.  Times are noisy upwards: native
 * ones widely (a thread of the team descheduled for a scheduler slice:
 * milliseconds for microseconds of work; page faults; a driver beside
 * it; a team run short), in bursts (four of 4-13 ms in a row on the
 * H100), device ones by a cold first run (choose_locked runs it again).
 * So no stall, nor a burst of them, moves a point, a lasting slowdown
 * shows after WIN calls spanning YOUNG, and a speed-up at once.  WIN
 * calls within BURST are a burst, whatever came before: the older ones
 * still count (H100, bench side, c03 jacobi 1000x1000 resident: four
 * device runs of 106-150 us in a row after a pause replaced 1200 calls'
 * 34 and moved the data back to a team of 78: 1.8x).  Not a widely
 * spread team's one lucky run (H100, bench side, c01 triad 10^6
 * resident: 16 threads ran it in 47-250 us, a median of 100; the lowest,
 * 45, stood against the device's 40 and the data never moved: 3.3x).
 * Not its lowest third's highest either: on 2 cores two stalls of 8-10
 * ms among a few runs made c06 sigmoid 100x100 resident's 150 us 470, and
 * moved its data to PoCL's 410 (2.55x). */
static void side_observe(dside *s, double n, double t, int prov, int lowest) {
    if (n < 0 || !(t >= 0) || !isfinite(t))
        return;
    dpoint *p = &s->b[bucket(n)];
    if (!p->cnt) {
        point_set(p, n, t, 1, prov ? 2 : 0);
        return;
    }
    if (!prov && p->loaded == 2) {
        /* the first clean time: the provisional ones above it were upper
         * bounds it disproves (H100 matmul 10x10: 11.4, 4 and 12 ms
         * stalls, then 8 us); those below still say what a run can take
         * (2-core PoCL, triad 10^2: 361-414 ns provisional, then a clean
         * run of a team of two that stalled 4.3 ms) */
        int filled = p->wpos < RING ? (int)p->wpos : RING, kept = 0;
        double kn[RING], kt[RING];
        uint64_t kts[RING];
        for (uint32_t q = p->wpos - (uint32_t)filled; q != p->wpos; q++)
            if (p->wt[q % RING] <= t) {
                kn[kept] = p->wn[q % RING];
                kt[kept] = p->wt[q % RING];
                kts[kept++] = p->wts[q % RING];
            }
        p->wpos = (uint32_t)kept;
        for (int q = 0; q < kept; q++) {
            p->wn[q] = kn[q];
            p->wt[q] = kt[q];
            p->wts[q] = kts[q];
        }
        p->loaded = 0;
    }
    if (prov && p->loaded != 2 && t >= p->t) {
        /* it may have waited for the driver: it says nothing new, but it
         * counts as an attempt (choose_locked retries a point up to three) */
        if (p->cnt < 1000000)
            p->cnt++;
        return;
    }
    uint64_t now = now_ns();
    p->wn[p->wpos % RING] = n;
    p->wt[p->wpos % RING] = t;
    p->wts[p->wpos % RING] = now;
    p->wpos++;
    int idx[RING], m = 0, filled = p->wpos < RING ? (int)p->wpos : RING;
    /* the last WIN came in a burst: the older ones still count */
    int lasting = filled >= WIN && now - p->wts[(p->wpos - WIN) % RING] >= BURST;
    for (int k = 0; k < filled; k++) {
        uint32_t age = (p->wpos - 1u - (uint32_t)k) % RING; /* 0: the newest */
        if (age >= WIN && (!p->wts[k] || (lasting && now - p->wts[k] >= YOUNG)))
            continue;
        int j = m++;
        for (; j > 0 && p->wt[idx[j - 1]] > p->wt[k]; j--)
            idx[j] = idx[j - 1];
        idx[j] = k;
    }
    int lo = idx[lowest || p->loaded == 2 || m < 6 ? 0 : 1]; /* provisional: upper bounds all */
    p->n = p->wn[lo];
    p->t = p->wt[lo];
    if (p->cnt < 1000000)
        p->cnt++;
    if (!prov)
        p->loaded = 0;
}

/* ns for n iterations; -1 without any point.  ov: the side's fixed cost. */
static double side_predict(const dside *s, double n, double ov) {
    const dpoint *lo = NULL, *lo2 = NULL, *hi = NULL;
    for (int b = 0; b < DB; b++) {
        const dpoint *p = &s->b[b];
        if (!p->cnt)
            continue;
        if (p->n <= n) {
            lo2 = lo;
            lo = p;
        } else if (!hi) {
            hi = p;
        }
    }
    if (!lo && !hi)
        return -1;
    if (lo && hi) {
        double f = hi->n > lo->n ? (n - lo->n) / (hi->n - lo->n) : 0;
        return lo->t + f * (hi->t - lo->t);
    }
    if (hi) {
        double o = ov < hi->t ? ov : hi->t;
        return hi->n > 0 ? o + (hi->t - o) * n / hi->n : hi->t;
    }
    /* beyond the largest point; from points all 64 times smaller the cost
     * per iteration is not known (at n = 100 a device's time is its
     * launch): no prediction, as for a side never measured */
    if (n > 64 * lo->n)
        return -1;
    double slope = -1;
    if (lo2 && lo->n > lo2->n)
        slope = (lo->t - lo2->t) / (lo->n - lo2->n);
    double o = ov < lo->t ? ov : lo->t;
    double avg = lo->n > 0 ? (lo->t - o) / lo->n : 0;
    if (slope < avg)
        slope = avg;
    return lo->t + slope * (n - lo->n);
}

/* How far the side's prediction at n reaches: 0 from a point within 2x
 * of n or one up to 4x above it, 1 only upwards from one 4x below (two
 * octaves of extrapolation), 2 from none within 4x. */
static int side_reach(const dside *s, double n) {
    int b = bucket(n), reach = 2;
    for (int k = b - 2; k <= b + 2; k++)
        if (k >= 0 && k < DB && s->b[k].cnt && (k == b - 2 ? 1 : 0) < reach)
            reach = k == b - 2;
    return reach;
}

/* The point a prediction at n leans on (the side's nearest, at any
 * distance) was measured only in bad moments (provisional: its time is an
 * upper bound, not an estimate); 0 for a side with none.  (H100, c02 dot
 * 10^5 plain within the window after triad's 2.4 GB of device arrays were
 * freed: native 2.5, 5.9 and 1.0 ms for 15 us of work; 10^6, extrapolated
 * from it, was predicted 10.7 ms against the device's 2.5 and never run
 * natively, 92 us in a process of its own: the device ran it at 23x.) */
static int side_unproven(const dside *s, double n) {
    int b = bucket(n), best = -1;
    for (int k = 0; k < DB; k++)
        if (s->b[k].cnt && (best < 0 || abs(k - b) < abs(best - b)))
            best = k;
    return best >= 0 && s->b[best].loaded == 2;
}

/* What a side with only provisional points may really cost at n: its
 * prediction po scaled as if the point it leans on (the nearest) had lost
 * STALL_SLACK to a stall.  A stalled 10x10 call (11 ms for 8 us of work)
 * extrapolated to 100x100 says 1.1 s; this says: maybe nothing. */
static double unproven_floor(const dside *s, double n, double po) {
    int b = bucket(n), best = -1;
    for (int k = 0; k < DB; k++)
        if (s->b[k].cnt && (best < 0 || abs(k - b) < abs(best - b)))
            best = k;
    if (best < 0 || !(s->b[best].t > 0))
        return po;
    double t = s->b[best].t, lo = t > STALL_SLACK ? t - STALL_SLACK : 0;
    return po * lo / t;
}

/* A lower bound of the side's time at n: its largest point at or below n
 * (a region's time does not shrink as n grows), its fixed cost ov where
 * there is none. */
static double side_floor(const dside *s, double n, double ov) {
    double t = ov;
    for (int b = 0; b < DB; b++)
        if (s->b[b].cnt && s->b[b].n <= n)
            t = s->b[b].t;
    return t;
}

/* When the point was last measured (ns; 0: only loaded from the store). */
static uint64_t point_last(const dpoint *p) {
    uint64_t t = 0;
    int filled = p->wpos < RING ? (int)p->wpos : RING;
    for (int k = 0; k < filled; k++)
        if (p->wts[k] > t)
            t = p->wts[k];
    return t;
}

/* The point nearest n within a factor 4 (the one its prediction leans
 * on), NULL none. */
static const dpoint *side_nearest(const dside *s, double n) {
    int b = bucket(n);
    for (int d = 0; d <= 2; d++)
        for (int k = b - d; k <= b + d; k += d ? 2 * d : 1)
            if (k >= 0 && k < DB && s->b[k].cnt)
                return &s->b[k];
    return NULL;
}

/* ---- the dispatcher object ----------------------------------------------------------- */

static void disp_load_locked(cyrt_rt *rt, struct cyrt_disp *d);

/* ---- the native team's size (cyocl_launch.team) ---------------------------------- */

static int view_extent(const cyocl_arg *a, uintptr_t *lo, uintptr_t *hi);

static double team_best(const dteam *v, int k) {
    if (!v->cnt[k])
        return -1;
    uint32_t m = v->cnt[k] < WIN ? v->cnt[k] : WIN;
    double lo = v->t[k][0];
    for (uint32_t i = 1; i < m; i++)
        if (v->t[k][i] < lo)
            lo = v->t[k][i];
    return lo;
}

/* What one thread is expected to take, ns per iteration: the lowest of
 * the team's recent work estimates, -1 none. */
static double team_work(const dteam *v) {
    if (!v->nwork)
        return -1;
    uint32_t m = v->nwork < WIN ? v->nwork : WIN;
    double lo = v->work[0];
    for (uint32_t i = 1; i < m; i++)
        if (v->work[i] < lo)
            lo = v->work[i];
    return lo;
}

static void team_note(dteam *v, int k, double per) {
    if (!(per >= 0) || !isfinite(per))
        return;
    v->t[k][v->cnt[k] % WIN] = (float)per;
    if (v->cnt[k] < 1000000)
        v->cnt[k]++;
}

/* The size of the team for a native run of n iterations (r->spin held):
 * 0 the full team, 1 one thread; *cal: the run measures a size.  Where the
 * views span less than SOLO_BYTES (small), one thread first, twice (a
 * first run pays for cold caches), then the team twice; elsewhere the full
 * team first (Cython's), then, where it or its thread 0's share times its
 * size took less than SOLO_TRY, one thread twice, the team again.  Sizes
 * within 2x of each other run four times each; then the faster stands
 * (times are noisy upwards only: the lowest of the last WIN runs counts),
 * the other rechecked every SOLO_RECHECK full decisions where within 4x,
 * and the team every 4 * SOLO_RECHECK whatever its time. */
static int team_locked(struct cyrt_dregion *r, double n, int small, int *cal) {
    int b = bucket(n);
    dteam *v = &r->team[b];
    double tt = team_best(v, 0), ts = team_best(v, 1);
    int pick = 0;
    *cal = 0;
    if (v->size == 1) {
        /* the full team is one thread (native_done): nothing to choose */
        __atomic_store_n(&r->solo[b], 1, __ATOMIC_RELAXED);
        return 0;
    }
    if (small && v->cnt[1] < 2 && (tt < 0 || ts < 0 || ts <= 4 * tt)) {
        /* views this small: one thread first, twice (H100, matmul 10x10
         * right after 800 MB of device arrays were freed: the team's runs
         * took 12 and 17 ms, thread 0 alone 6 ms of them for one row, the
         * team's waiting threads spinning on its core; one thread, 1.5 us) */
        pick = *cal = 1;
    } else if (tt < 0) {
        pick = 0;
        *cal = small;
    } else if (ts < 0) {
        /* the team's own time, or the work its thread 0 did times its
         * size where the team waited at its end far longer (H100, matmul
         * 10x10 right after 1 GB of device arrays were freed: every team
         * run took 5-8 ms, for microseconds of work) */
        double w = team_work(v);
        pick = *cal = (w >= 0 && w < tt ? w : tt) * n < SOLO_TRY;
    } else if (v->cnt[1] < 2 && ts <= 4 * tt) {
        pick = *cal = 1;
    } else if (v->cnt[0] < 2) {
        /* the team's first run was the region's first at this size (cold) */
        pick = 0;
        *cal = 1;
    } else if ((v->cnt[0] < 4 || v->cnt[1] < 4) && (ts < tt ? 2 * ts >= tt : 2 * tt >= ts)) {
        /* within 2x of each other: four runs each before one stands (a
         * team's run in a bad moment, or one thread's, decided triad 10^4
         * on the H100 for the hot path's next thousand calls, at 1.5x) */
        pick = v->cnt[1] < v->cnt[0];
        *cal = 1;
    } else if (ts < tt && v->waits >= v->cnt[0] && v->waits < 3) {
        /* every team run so far waited at its end for a thread without
         * its core, a moment's (2-core VM, PoCL: c05 mandelbrot 100x100's
         * two team runs right after device runs took 6.3 and 4.3 ms, one
         * thread 0.5 ms, the team 0.25 ms on any later run; one thread
         * stood for the rest of the process) or the machine's: the team
         * again, up to three such runs, each after four full decisions of
         * one thread (retried at once, on 2 cores right after the device's
         * calibration runs, c04 matmul 100x100's three team runs all
         * waited: 6.7, 12 and 6.2 ms, and one thread at 1.55x the team
         * stood for the process) */
        pick = ++v->since < 4;
        if (!pick)
            v->since = 0;
        *cal = 1;
    } else {
        pick = ts < tt;
        double win = pick ? ts : tt, lose = pick ? tt : ts;
        /* the team is rechecked whatever its time (one measured in a bad
         * moment may be a thousand times its own), one thread where within 4x */
        ++v->since;
        if ((v->since >= SOLO_RECHECK && lose <= 4 * win) || (pick && v->since >= 4 * SOLO_RECHECK)) {
            v->since = 0;
            pick = !pick;
            *cal = 1;
        }
    }
    if (!*cal && tt >= 0)
        __atomic_store_n(&r->solo[b], 1 + pick, __ATOMIC_RELAXED);
    return pick;
}

/* For STALL_SOLO_WIN ns after a team stalled (a team of every core lost
 * milliseconds at its barrier for microseconds of work), one thread where
 * it takes less than STALL_SOLO_NS and at most twice the team's time
 * (solo_t, native_done): one thread cannot wait for another (H100, bench
 * side, c01 triad 10^5 plain right after forced OpenCL calls: 19 calls in
 * a row of 5.9 ms each, for 9 us of work; a team two threads short
 * stalled as well).  Then the team again, and another 10 ms of one thread
 * if it stalls again: such windows lasted about 30 ms there, and one
 * thread for 100 ms cost c02 dot 10^5 85 calls at 84 us against the
 * team's 10.  solo_until is 0 outside a window, so that the hot path pays
 * one load. */
#define STALL_SOLO_NS 1000000.0
#define STALL_SOLO_WIN 10000000u
static int stall_solo(struct cyrt_disp *d, struct cyrt_dregion *r, long long n) {
    uint64_t until;
    if (!d || !r || n <= 0 || !(until = __atomic_load_n(&d->solo_until, __ATOMIC_ACQUIRE)))
        return 0;
    if (now_ns() >= until) {
        __atomic_compare_exchange_n(&d->solo_until, &until, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
        return 0;
    }
    float t;
    __atomic_load(&r->solo_t[bucket((double)n)], &t, __ATOMIC_RELAXED);
    return t > 0 && (double)t * (double)n < STALL_SOLO_NS;
}

/* A native choice at a full decision: the team's size, and the reason
 * says when it is one thread or that run measures it. */
static void native_team(struct cyrt_disp *d, struct cyrt_dregion *r, cyocl_launch *L) {
    L->team = 0;
    if (!r || !L->team_ok || L->n <= 0)
        return;
    double bytes = 0;
    for (int i = 0; i < L->nargs; i++) {
        uintptr_t lo, hi;
        if (L->args[i].kind == CYOCL_A_VIEW && view_extent(&L->args[i], &lo, &hi))
            bytes += (double)(hi - lo);
    }
    int cal;
    spin_lock(&r->spin);
    long long size = cyocl_launch_work(L);
    L->team = team_locked(r, (double)size, bytes > 0 && bytes < SOLO_BYTES, &cal);
    spin_unlock(&r->spin);
    if (!cal && !L->team && stall_solo(d, r, size))
        L->team = 1;
    if (cal) {
        snprintf(L->reason, sizeof L->reason, "calibrating (%s)", L->team ? "one thread" : "the full team");
    } else if (L->team) {
        size_t k = strlen(L->reason);
        if (k + 14 < sizeof L->reason)
            memcpy(L->reason + k, " (one thread)", 14);
    }
}

/* The dispatcher, made at its first use (loading the stored calibration). */
static struct cyrt_disp *disp_get(cyrt_rt *rt) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    if (d)
        return d;
    /* the cache directory first: it takes the runtime's lock */
    char dir[1024] = "";
    int mode = CYRT_CACHE_OFF;
    cyrt_cache_dir(rt, dir, sizeof dir, &mode);
    pthread_mutex_lock(&rt->disp_lock);
    if (!(d = rt->disp)) {
        d = calloc(1, sizeof *d);
        if (d) {
            const char *v = getenv("CYOCL_VERBOSE");
            d->verbose = v && !strcmp(v, "1");
            d->allowed = CYRT_DEV_ALL;
            if (dir[0] && (mode == CYRT_CACHE_RW || mode == CYRT_CACHE_RO)) {
                /* one file per device selection; the device's identity is inside */
                const char *e1 = getenv("CYOCL_DEVICE"), *e2 = getenv("CYOCL_DEVICE_TYPE");
                const char *e3 = rt->loader ? rt->loader : rt->is_global ? getenv("CYOCL_OPENCL_LIBRARY") : NULL;
                cyrt_cache_part parts[] = {
                    {"dispatch", CYOCL_VERSION, strlen(CYOCL_VERSION)},
                    {"device", e1 ? e1 : "", e1 ? strlen(e1) : 0},
                    {"type", e2 ? e2 : "", e2 ? strlen(e2) : 0},
                    {"loader", e3 ? e3 : "", e3 ? strlen(e3) : 0},
                };
                char *text = NULL, hex[65];
                size_t len;
                if (cyrt_cache_key(parts, 4, &text, &len, hex) == 0) {
                    snprintf(d->path, sizeof d->path, "%s/" CYRT_CALIB_PREFIX "%.32s" CYRT_CALIB_SUFFIX, dir, hex);
                    d->writable = mode == CYRT_CACHE_RW;
                }
                free(text);
            }
            disp_load_locked(rt, d);
            __atomic_store_n(&rt->disp, d, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&rt->disp_lock);
    return d;
}

static void src_key(const char *src, int region, char key[80]) {
    cyrt_sha256 s;
    unsigned char h[32];
    cyrt_sha256_init(&s);
    cyrt_sha256_update(&s, src, strlen(src));
    cyrt_sha256_final(&s, h);
    int k = 0;
    for (int i = 0; i < 32; i++)
        k += snprintf(key + k, 80 - (size_t)k, "%02x", h[i]);
    snprintf(key + k, 80 - (size_t)k, ":%d", region);
}

static struct cyrt_dregion *region_new(struct cyrt_disp *d, const char *key) {
    struct cyrt_dregion *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    snprintf(r->key, sizeof r->key, "%s", key);
    r->last = -1;
    r->lost_best = -1;
    r->again = -1;
    r->owner = -1;
    r->next = d->regions;
    d->regions = r;
    return r;
}

cyrt_dregion *cyrt_dispatch_region(cyrt_rt *rt, const char *src, int region) {
    struct cyrt_disp *d = disp_get(rt);
    if (!d || !src)
        return NULL;
    pthread_mutex_lock(&rt->disp_lock);
    struct cyrt_dregion *r;
    for (r = d->regions; r; r = r->next)
        if (r->src == src && r->region == region)
            break;
    if (!r) {
        char key[80];
        struct cyrt_dregion *same = NULL;
        for (same = d->regions; same; same = same->next)
            if (same->src == src)
                break;
        if (same) {
            /* another region of the same program: its hash */
            snprintf(key, sizeof key, "%.64s:%d", same->key, region);
        } else {
            pthread_mutex_unlock(&rt->disp_lock);
            src_key(src, region, key); /* hashing a whole program: not under the lock */
            pthread_mutex_lock(&rt->disp_lock);
        }
        for (r = d->regions; r; r = r->next)
            if ((r->src == src && r->region == region) || (!r->src && !strcmp(r->key, key)))
                break;
        if (!r)
            r = region_new(d, key);
        if (r && !r->src) {
            r->src = src;
            r->region = region;
        }
    }
    pthread_mutex_unlock(&rt->disp_lock);
    return r;
}

/* ---- device constants ------------------------------------------------------------------ */

static void set_dev(struct cyrt_disp *d, const cyrt_devconst *k);

void cyrt_dispatch_set_consts(cyrt_rt *rt, const cyrt_devconst *k) {
    struct cyrt_disp *d = disp_get(rt);
    if (!d || !k)
        return;
    cyrt_devconst v = *k;
    double *bw[4] = {&v.up, &v.down, &v.st_up, &v.st_down};
    for (int i = 0; i < 4; i++)
        if (!(*bw[i] > 0) || !isfinite(*bw[i]))
            *bw[i] = 1;
    double *ns[3] = {&v.launch_ns, &v.st_fix_up, &v.st_fix_down};
    for (int i = 0; i < 3; i++)
        if (!(*ns[i] >= 0) || !isfinite(*ns[i]))
            *ns[i] = 0;
    pthread_mutex_lock(&rt->disp_lock);
    set_dev(d, &v);
    d->staged_known = 1;
    d->dirty = 1;
    pthread_mutex_unlock(&rt->disp_lock);
}

void cyrt_dispatch_set_device(cyrt_rt *rt, double bw_up, double bw_down, double launch_ns) {
    double l = launch_ns >= 0 ? launch_ns : 0;
    cyrt_devconst k = {bw_up, bw_down, bw_up, bw_down, l, l, l};
    cyrt_dispatch_set_consts(rt, &k);
}

/* The constants for a prediction (defaults before the device was
 * measured: PCIe-like, 5 GB/s both ways on both paths and 20 us). */
static void dev_consts(struct cyrt_disp *d, cyrt_devconst *k) {
    /* read without the lock (every decision does): each value is written
     * atomically, rarely (set_dev, refine_bw) */
    if (!__atomic_load_n(&d->have_dev, __ATOMIC_ACQUIRE)) {
        k->up = k->down = k->st_up = k->st_down = 5.0;
        k->launch_ns = k->st_fix_up = k->st_fix_down = 20000.0;
        return;
    }
    __atomic_load(&d->bw_up, &k->up, __ATOMIC_RELAXED);
    __atomic_load(&d->bw_down, &k->down, __ATOMIC_RELAXED);
    __atomic_load(&d->st_up, &k->st_up, __ATOMIC_RELAXED);
    __atomic_load(&d->st_down, &k->st_down, __ATOMIC_RELAXED);
    __atomic_load(&d->st_fix_up, &k->st_fix_up, __ATOMIC_RELAXED);
    __atomic_load(&d->st_fix_down, &k->st_fix_down, __ATOMIC_RELAXED);
    __atomic_load(&d->launch_ns, &k->launch_ns, __ATOMIC_RELAXED);
}

void cyrt_dispatch_get_consts(cyrt_rt *rt, cyrt_devconst *k) {
    struct cyrt_disp *d = disp_get(rt);
    memset(k, 0, sizeof *k);
    if (d && __atomic_load_n(&d->have_dev, __ATOMIC_ACQUIRE))
        dev_consts(d, k);
}

void cyrt_dispatch_get_device(cyrt_rt *rt, double *bw_up, double *bw_down, double *launch_ns) {
    cyrt_devconst k;
    cyrt_dispatch_get_consts(rt, &k);
    *bw_up = k.up;
    *bw_down = k.down;
    *launch_ns = k.launch_ns;
}

/* The device constants (disp_lock held). */
static void set_dev(struct cyrt_disp *d, const cyrt_devconst *kc) {
    cyrt_devconst v = *kc, *k = &v; /* __atomic_store takes non-const pointers (clang) */
    __atomic_store(&d->bw_up, &k->up, __ATOMIC_RELAXED);
    __atomic_store(&d->bw_down, &k->down, __ATOMIC_RELAXED);
    __atomic_store(&d->st_up, &k->st_up, __ATOMIC_RELAXED);
    __atomic_store(&d->st_down, &k->st_down, __ATOMIC_RELAXED);
    __atomic_store(&d->st_fix_up, &k->st_fix_up, __ATOMIC_RELAXED);
    __atomic_store(&d->st_fix_down, &k->st_fix_down, __ATOMIC_RELAXED);
    __atomic_store(&d->launch_ns, &k->launch_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&d->have_dev, 1, __ATOMIC_RELEASE);
}

/* Whether a copy of bytes takes the staged path on the device (the type
 * is 0, a GPU's rule, until it opens: a CPU device's staged constants are
 * its direct ones, so that guess costs nothing). */
static int staged_copy(struct cyrt_disp *d, uint64_t bytes) {
    return cyrt_copy_staged(__atomic_load_n(&d->dev_type, __ATOMIC_RELAXED), (size_t)bytes);
}

/* The ns a call's copies cost: *xo those of a device run (uploads, and
 * what it leaves only on the device), *xn those before a native run.  Each
 * copy at its path's bandwidth and fixed cost; a move given as totals
 * (split 0: the unit tests, cyrt_dispatch_choose) is one copy per total
 * for the path and the copies' count for the fixed costs. */
static void move_ns(struct cyrt_disp *d, const cyrt_devconst *k, const cyrt_dmove *m, double *xo, double *xn) {
    cyrt_dmove s = *m;
    if (!s.split) {
        s.up_st = staged_copy(d, s.up) ? s.up : 0;
        s.pend_st = staged_copy(d, s.down_pend) ? s.down_pend : 0;
        s.native_st = staged_copy(d, s.down_native) ? s.down_native : 0;
        s.copies_up_st = s.copies_pend_st = s.copies_native_st = 0;
    }
    s.up_st = s.up_st < s.up ? s.up_st : s.up;
    s.pend_st = s.pend_st < s.down_pend ? s.pend_st : s.down_pend;
    s.native_st = s.native_st < s.down_native ? s.native_st : s.down_native;
    unsigned so = s.copies_up_st + s.copies_pend_st, sn = s.copies_native_st;
    double direct_o = s.copies > so ? (double)(s.copies - so) : 0;
    double direct_n = s.copies_native > sn ? (double)(s.copies_native - sn) : 0;
    *xo = (double)(s.up - s.up_st) / k->up + (double)s.up_st / k->st_up + (double)(s.down_pend - s.pend_st) / k->down +
          (double)s.pend_st / k->st_down + direct_o * k->launch_ns + s.copies_up_st * k->st_fix_up +
          s.copies_pend_st * k->st_fix_down;
    *xn = (double)(s.down_native - s.native_st) / k->down + (double)s.native_st / k->st_down +
          direct_n * k->launch_ns + sn * k->st_fix_down;
}

/* ---- choosing ------------------------------------------------------------------------- */

/* What changes when the host uses data that has a device copy or waits
 * for the device (cyrt_host_range_locked, cyrt_drain_locked). */
static uint64_t row_mark(cyrt_rt *rt) {
    return __atomic_load_n(&rt->touch_seq, __ATOMIC_RELAXED) +
           __atomic_load_n(&rt->counts.drains, __ATOMIC_RELAXED);
}

/* A call's end in epoch ep (r->spin held): the row goes on if nothing
 * touches the host's side before the next call, and, unless every view
 * is resident, the def does not return (its plain views come back then);
 * ended: a device run that waited. */
static void row_end_locked(struct cyrt_dregion *r, uint64_t ep, uint64_t mark, int ended) {
    r->st_ep = ep;
    r->st_mark = mark;
    r->st_open = !ended;
}

/* A call of the region in epoch ep, row_mark mark (r->spin held): counts
 * it in both. */
static void epoch_tick_locked(struct cyrt_dregion *r, uint64_t ep, uint64_t mark) {
    if (r->st_open && mark == r->st_mark && (ep == r->st_ep || r->st_res)) {
        if (r->st_run < UINT32_MAX)
            r->st_run++;
    } else {
        if (r->st_run)
            r->st_last = r->st_run;
        r->st_run = 1;
    }
    r->st_open = 0;
    if (ep != r->ep || !r->ep_calls) {
        if (r->ep_calls) {
            r->ep_hist[1] = r->ep_hist[0];
            r->ep_hist[0] = r->ep_calls;
        }
        r->ep = ep;
        r->ep_calls = 0;
    }
    if (r->ep_calls < UINT32_MAX)
        r->ep_calls++;
}

static void epoch_tick(cyrt_rt *rt, struct cyrt_dregion *r) {
    uint64_t ep = __atomic_load_n(&rt->scope_seq, __ATOMIC_ACQUIRE), mark = row_mark(rt);
    spin_lock(&r->spin);
    epoch_tick_locked(r, ep, mark);
    spin_unlock(&r->spin);
}

/* The region's calls per epoch, as the last two epochs went (the fewer
 * of them: a region called from two defs in turn, once by one and 200
 * times by the other, expects the once and learns the rest within the
 * epoch); 0 before any epoch ended. */
static uint32_t epoch_len(const struct cyrt_dregion *r) {
    uint32_t a = r->ep_hist[0], b = r->ep_hist[1];
    return b && b < a ? b : a;
}

/* The region's calls per wait: its rows' (the last finished one, or the
 * one going on where longer). */
static uint32_t stream_len(const struct cyrt_dregion *r) {
    return r->st_run > r->st_last ? r->st_run : r->st_last;
}

/* The calls of the region still to come in this epoch after this one. */
static double epoch_rest(const struct cyrt_dregion *r) {
    uint32_t est = epoch_len(r);
    return est > r->ep_calls ? (double)(est - r->ep_calls) : 0;
}

/* Rent or buy: the calls that ran where the data is while the other side
 * would be faster once the data were there add up what they lost; once
 * that reaches the cost of moving it (a quarter of it for resident views,
 * which the user said will be used again), the data moves.  Plain calls
 * (no resident view): their data goes back to the host when the def
 * returns, so what they lost counts within one epoch only, and the calls
 * the epoch is expected to hold still (epoch_rest) count as lost ahead: a
 * def that calls the region 200 times moves its data at the first call,
 * one that calls it once never does (its call alone decides).  For
 * resident views a purchase is settled when the data has moved away
 * again: one that saved less than it cost doubles the next one's price,
 * one that paid off halves it. */
static int rent_or_buy(struct cyrt_dregion *r, const double cost[2], const double comp[2], const double x[2],
                       const int away[2], int now, int resident, int b, double w, int *idle) {
    *idle = 0;
    if (r->owner >= 0) {
        /* gone: it must be moved again (not: a run there would leave
         * something to copy back later, as after a host read) */
        if (away[r->owner]) {
            /* resident views: the scope ended before the purchase paid
             * off, but the user said the data stays: their price stays a
             * quarter of the copy at most */
            if (r->owner_res && r->gained < r->paid)
                r->fails += r->fails < 4;
            else if (r->owner_res)
                r->fails -= r->fails > 1 && r->gained >= 8 * r->paid ? 2 : r->fails > 0;
            r->owner = -1;
        } else {
            r->gained += w * (comp[!r->owner] - comp[r->owner]);
        }
    }
    int steady = comp[1] < comp[0];
    if (steady == now || !(x[steady] > 0) || b != r->regret_b || (!resident && r->regret_ep != r->ep)) {
        r->regret = 0;
        r->regret_b = b;
        r->regret_ep = r->ep;
        if (steady == now || !(x[steady] > 0)) {
            *idle = 1;
            return now;
        }
    }
    double loss = cost[now] - comp[steady];
    r->regret += loss;
    /* resident views (the user said the data stays): at once, or after
     * x/8 .. x (x * 2^fails, without libm) once scopes ended too soon;
     * plain calls: x, with what the epoch's calls to come would lose */
    double price = resident && r->fails <= 0 ? 0 : x[steady], ahead = resident ? 0 : loss * epoch_rest(r);
    for (int k = resident ? r->fails - 4 : 0; k < 0; k++)
        price *= 0.5;
    if (r->regret + ahead < price) {
        /* plain calls whose epochs are too short for their loss ever to
         * reach the price (a def that runs the region once per call):
         * nothing will move, and the choice may settle.  Without this the
         * H100's small plain calls, where the device's kernel alone beats
         * the native team but its copies do not (c03 stencil 316x316,
         * c02 dot 10^5), were decided in full at every call: 1.5 us a
         * call, 1.15x forced native */
        uint32_t len = r->ep_hist[0] > r->ep_hist[1] ? r->ep_hist[0] : r->ep_hist[1];
        if (!resident && len && loss * (double)len < price)
            *idle = 1;
        return now;
    }
    r->regret = 0;
    r->owner = steady;
    r->owner_res = resident;
    r->paid = x[steady];
    r->gained = 0;
    return steady | 2;
}

/* A recheck of the side not chosen (choose_locked's last two): one more in
 * a row that leaves best the faster at the octave b, or the first since
 * best or the octave changed: what the rechecks found at one size says
 * nothing of another (H100, bench side, c05 mandelbrot 100x100 resident:
 * the backoff that 10x10 and 32x32 had earned put the device's rechecks
 * off by 128x, and two cold device runs of 97 and 119 us kept the size
 * native at 57 us against the device's 34 for the rest of the point). */
static void lost_recheck(struct cyrt_dregion *r, int best, int b) {
    if (r->lost_best != best || r->lost_b != b)
        r->lost = 0;
    else if (r->lost < 7)
        r->lost++;
    r->lost_best = best;
    r->lost_b = b;
}

/* The next `runs` full decisions at n's octave run side once more, each
 * where it is still due (choose_locked: a cold run is run again). */
static void again_set(struct cyrt_dregion *r, int side, long long n, int runs) {
    r->again = side;
    r->again_b = bucket((double)n);
    r->again_n = runs;
    r->again_cold = 0;
}

/* A device run now would be cold: the last one the dispatcher timed
 * ended DEV_COLD_NS ago or more.  The first device call after native
 * calls or a pause took 134-176 us where the next took 40-60 and those
 * after 35-50 (H100, bench side, c02 dot 10^6 resident: the rechecks,
 * each alone after native calls, measured the device at 134-176 us;
 * native's 73 stood against the device's 41 in its blocks, 1.6x; c04
 * matmul 100x100 plain: 190-290 us cold with its copies, 47 warm, which
 * extrapolated to 316x316 said 3.2 ms against native's 1.1: the device's
 * 0.4 never ran). */
static int device_cold(struct cyrt_disp *d) {
    return now_ns() - __atomic_load_n(&d->ocl_end, __ATOMIC_ACQUIRE) >= DEV_COLD_NS;
}

/* r->spin held.  dry: a prediction only (no state changes).  w: the calls
 * this decision stands for (itself and those decided from a settled one
 * since the last full decision: they count towards the rechecks and the
 * purchase's gain).  *stable: the choice may settle (no calibration, no
 * move, and no time lost to rent or buy, which counts calls). */
static void choose_locked(struct cyrt_disp *d, struct cyrt_dregion *r, long long n, const cyrt_dmove *m,
                          cyrt_dchoice *c, int dry, double w, int *stable) {
    *stable = 0;
    if (!dry)
        r->st_res = m->all_resident;
    cyrt_devconst k;
    dev_consts(d, &k);
    double launch = k.launch_ns, xo, xn;
    /* each copy also pays the device's round trip (what the launch
     * microbenchmark measures; a staged one its path's fixed cost): at
     * small sizes that is the whole copy */
    move_ns(d, &k, m, &xo, &xn);
    double tn = side_predict(&r->side[0], (double)n, NATIVE_OVERHEAD);
    double to = side_predict(&r->side[1], (double)n, launch);
    c->pred[0] = tn < 0 ? -1 : (long long)(tn + xn);
    c->pred[1] = to < 0 ? -1 : (long long)(to + xo);
    c->calibrating = c->moving = 0;
    c->side = 0;
    if (r->off) {
        c->pred[1] = -1;
        return;
    }
    if (tn < 0) { /* first: native, which is always there */
        c->calibrating = 1;
        c->pred[1] = -1;
        return;
    }
    /* the device not measured yet: at least its launch */
    int unknown = to < 0;
    if (unknown) {
        to = launch;
        c->pred[1] = (long long)(to + xo);
    }
    if (!unknown && r->enq_ns > 0 && d->dev_type != CYRT_DEV_CPU) {
        /* a quiet kernel's launches wait for nothing: in a stream of them
         * (a def that calls the region E times per epoch, jacobi's steps;
         * or E calls in a row on cyocl.resident views that the host does
         * not wait for between) a call costs its enqueue or its kernel,
         * whichever is longer, and only the row's end waits for the last;
         * a timed run's time is all three (H100, bench side, c03 jacobi
         * 316x316 resident: the device timed at 37 us a step, 22 back to
         * back, the team's 30 chose: 1.4-1.7x; c06 sigmoid 100x100
         * resident, one call per def: 25 us a call back to back, 45-70
         * timed, the team's 45-50: auto went back and forth, moving the
         * data, 2.12x).  Where this call moves data (xo) the calls to
         * come do not: rent or buy weighs the stream's cost.  Not on a
         * CPU device: its kernels run on the cores the host's next calls
         * need, nothing overlaps (2-core VM, PoCL, bench side2: c06
         * sigmoid 100x100, predicted so, the device's rechecks came often
         * enough that the native team, beside their spinning threads, was
         * measured at 1.5x its time and auto's calls took that) */
        uint32_t e = epoch_len(r), sl = stream_len(r);
        if (sl > e)
            e = sl;
        if (e >= 2) {
            double kern = to > launch ? to - launch : 0, stream = r->enq_ns > kern ? r->enq_ns : kern;
            if (stream < to) {
                to = stream + (to - stream) / (double)e;
                c->pred[1] = (long long)(to + xo);
            }
        }
    }
    double cost[2] = {tn + xn, to + xo}, comp[2] = {tn, to}, x[2] = {xn, xo};
    int now = cost[1] < cost[0];
    if (unknown && cost[1] <= 2.0 * cost[0]) {
        const dpoint *n0 = side_nearest(&r->side[0], (double)n);
        if (!dry && n0 && n0->loaded == 2 && n0->cnt < 2 && n0->t <= STALL_SLACK) {
            /* native once more first, where its only time is a first call
             * that may be all cold start or stall: once the device has run,
             * its driver keeps cores busy for a while (after a program
             * build, longer than a small size's calls last: on the H100
             * stencil, matmul and mandelbrot 10x10 plain then ran 48 of 51
             * calls on the device, at 6-12x native, because every native
             * retry stalled) */
            c->calibrating = 1;
            return;
        }
        /* the device's calibration run, where it costs 2x at most */
        c->side = 1;
        c->calibrating = 1;
        c->pred[1] = -1;
        again_set(r, 1, n, 1);
        r->again_cold = device_cold(d);
        return;
    }
    if (dry) {
        c->side = unknown ? 0 : now;
        return;
    }
    /* The run after one that was cold runs that side once more, where it
     * would lose now and its data is there: a side's first run after the
     * data moved to it (a purchase, or a recheck that moved it) pays for
     * cold pages and a first launch at the size, and a native run right
     * after device runs waits for the driver's threads (twice more: on 2
     * cores PoCL's spin for about 10 ms).  Measured once,
     * such a time decided against the side (H100, bench side: c03 stencil
     * 1000x1000 resident, the device's first run after the move 86 us,
     * then 38 in its blocks: native's 73-88 stood, the data moved back and
     * forth at each recheck; c06 sigmoid 100x100 plain, native measured
     * only around the program's load and right after device calls, 149
     * and 168 us against 46-58 in its blocks: the device's 119 ran every
     * call). */
    if (r->again >= 0) {
        int a = r->again;
        /* (not while a program build keeps the driver busy: that run
         * would wait as the first did) */
        /* where the run moves data, only after a cold device run, and
         * where it costs 4x the other side at most */
        int due = r->again_b == bucket((double)n) && (x[a] <= 0 || (r->again_cold && cost[a] <= 4.0 * cost[!a])) &&
                  comp[a] > comp[!a] &&
                  (a != CYRT_SIDE_NATIVE || now_ns() >= __atomic_load_n(&d->build_until, __ATOMIC_ACQUIRE));
        if (--r->again_n <= 0 || !due)
            r->again = -1;
        if (due) {
            c->side = a;
            c->calibrating = 1;
            return;
        }
    }
    /* cyocl.resident data on the device, which ran there fewer than five
     * times at this octave: once more there before it moves away (a run
     * there moves nothing; a move back is dear to undo).  The runs that
     * brought it there were each cold (H100, bench side, c03 stencil
     * 1000x1000 resident: the move's two runs, then 143 us, against the
     * team's 84: the data went back, and the device's 39 never ran) */
    if (m->resident && m->down_native > 0 && !m->up && comp[1] > comp[0] && comp[1] <= 4.0 * comp[0] &&
        r->side[1].b[bucket((double)n)].cnt < 5) {
        c->side = 1;
        c->calibrating = 1;
        return;
    }
    int away[2] = {m->down_native > 0, m->up > 0}, idle;
    int best = rent_or_buy(r, cost, comp, x, away, unknown ? 0 : now, m->resident != 0, bucket((double)n), w, &idle);
    if (best & 2) {
        c->side = best & 1;
        c->moving = 1;
        c->calibrating = unknown && c->side == 1;
        r->credit = 0;
        again_set(r, c->side, n, 1);
        return;
    }
    /* the side faster without copies is the chosen one, or the data can
     * never move: rent or buy adds nothing up */
    int quiet = idle || (comp[1] < comp[0]) == (best & 1);
    if (unknown) {
        c->side = 0;
        *stable = quiet;
        return;
    }
    int o = !best;
    c->side = best;
    double pb = cost[best], po = cost[o];
    int lost = r->lost_b == bucket((double)n) ? r->lost : 0;
    const dpoint *op = &r->side[o].b[bucket((double)n)], *np;
    r->credit += w * pb;
    r->since_explore += (uint32_t)w;
    int reach = side_reach(&r->side[o], (double)n);
    if (r->side[o].explored < EXPLORE_MAX && reach &&
        (po <= (reach == 2 ? 4.0 : 2.0) * pb ||
         (side_unproven(&r->side[o], (double)n) && unproven_floor(&r->side[o], (double)n, po) <= 2.0 * pb) ||
         (m->resident && side_floor(&r->side[o], (double)n, o ? launch : NATIVE_OVERHEAD) < pb))) {
        /* a new size that the other side's points reach only from afar
         * (side_reach: none within 4x, or one 4x below and none nearer),
         * where that side is predicted within 4x, or 2x from the point 4x
         * below (a stall in such a point, extrapolated with the slope from
         * the point under it, grows with each octave: H100, bench side,
         * c03 stencil plain, native's 2048x2048 point 13.9 ms, a stall
         * against forced native's 7-14, said 68 ms at 4096x4096 and 284 at
         * 8192x8192, against the device's 34 and 92: the device ran every
         * call of both, 2.5x at 8192x8192 in three runs, where native's
         * team took 15-20 ms to the device's 23-29); or where the point its
         * prediction leans on was measured only in bad moments (an upper
         * bound: extrapolated, a stalled 10x10 call made every larger size
         * look hopeless); or, for cyocl.resident views (the move is paid
         * once), where that side's time at a smaller size is below this
         * one's: an extrapolation from small sizes says little (H100, bench side,
         * c01 triad and c02 dot 10^6 resident: the device predicted 0.3
         * and 0.5 ms from its 10^5 points plus the copies, never run, the
         * native team's 60-130 us stood against the device's 40-48) */
        r->side[o].explored++;
        c->side = o;
        c->calibrating = 1;
    } else if ((np = side_nearest(&r->side[o], (double)n)) && np->loaded == 2 &&
               ((np->cnt < 3 && po <= 4.0 * pb && now_ns() >= __atomic_load_n(&d->build_until, __ATOMIC_ACQUIRE)) ||
                (r->credit >= 4.0 * pb * (double)(1u << (np->cnt < 17 ? np->cnt - 1 : 16)) &&
                 r->credit >= po - STALL_SLACK) ||
                (point_last(np) && (double)(now_ns() - point_last(np)) >= RETRY_SHARE * po &&
                 now_ns() - point_last(np) >= RETRY_GAP))) {
        /* the point the prediction leans on was measured only while the
         * device's driver was busy (starting, or just used: on a CPU
         * device it was using the cores, a GPU's threads took cores the
         * native team waited for) or at the region's first call: once or
         * twice more, now, where that costs 4x at most, unless a program
         * build has just kept the driver busy for a while (the run would
         * only wait for it too).  And wherever it costs more, for as long
         * as it was measured only in bad moments: once the chosen side's
         * calls took 4x their time, then 8x, 16x... (a backoff: the
         * retries cost a vanishing share of the time, yet one comes
         * within a few calls), and at least what the retry costs whatever
         * a stall added (its time less STALL_SLACK: a 55 ms native
         * matmul 1024x1024 retried after 4 device calls of 0.24 ms ran
         * 2 of 3 timed calls natively).  A provisional time is an upper bound that
         * may be a stall a thousand times the truth (H100: matmul 10x10
         * native 11.4 ms cold, 4 ms again right after the device's first
         * run, 8 us later); counted as measured after three such attempts,
         * it kept small sizes on the device for hundreds of calls.  And,
         * whatever the calls since cost, once RETRY_GAP (a stall's window:
         * 100-250 ms after the device's large frees, on the H100) and
         * RETRY_SHARE times the retry's predicted cost have passed since the
         * point was last measured: retries counted in calls all fell inside
         * the window when the calls were short (H100, c04 matmul 10x10 right
         * after c03's 8192x8192 arrays were freed: native 10.3, 8.1 and 8.0
         * ms, against 10.7 us in a process of its own, so the device ran
         * every size up to 100x100 at 3-13x native). */
        r->credit = 0;
        c->side = o;
        c->calibrating = 1;
        /* (a retry right after the device's runs waits for the driver's
         * threads as the first did: run twice, below) */
        if (o == CYRT_SIDE_NATIVE)
            again_set(r, o, n, 2);
    } else if (op->cnt && op->cnt < 3 && po <= (op->loaded ? 1.5 : 4.0) * pb) {
        /* the other side was measured here once or twice only (maybe in a
         * bad moment), or in another process (points loaded from the store
         * count once): twice more at most, then its average stands; a
         * stored point only where that costs 1.5x at most */
        c->side = o;
        c->calibrating = 1;
    } else if (r->since_explore >= 256 &&
               (po + x[o] - pb <= 0.3 * pb || po + x[o] - pb <= 0.03 * r->credit / (double)(1u << lost))) {
        /* now and then the other side again, where that costs little
         * (within 1.3x, or 3% of the calls' time since the last recheck):
         * a time measured in a bad moment does not stand for ever.  Where
         * the run there moves data, the calls after it move it back (x[o]
         * again): c03 jacobi 4096x4096, its data just moved to the device
         * for the def's 200 calls, rechecked native at the next call
         * (predicted 13.9 ms with the copy back against this call's 11.8
         * ms with its own) and paid 10 ms of copies more for it every
         * other def call.  The 3% halves with each such recheck in a row
         * (below) */
        lost_recheck(r, best, bucket((double)n));
        r->since_explore = 0;
        r->credit = 0;
        c->side = o;
        c->calibrating = 1;
    } else if (r->credit >= (op->cnt && op->cnt < 3 && pb < po ? (4.0 * pb > po - STALL_SLACK ? 4.0 * pb : po - STALL_SLACK)
                                                              : 32.0 * (double)(1u << lost) * po)) {
        /* and wherever it costs more: once the calls since the last
         * recheck took 32 times what it is predicted to cost (at most ~3%
         * of the time spent).  A point measured once or twice (here or in
         * the process that stored it) may be one bad moment, a native team
         * beside a driver's threads losing a scheduler slice (ms for us of
         * work): it is retried after four of the chosen side's calls (and
         * no sooner than they took what the retry costs less what a stall
         * may add), which counts it up to three, so at most twice.
         * Each such recheck in a row that leaves the same side the faster
         * doubles the wait, up to 2^7 (a recheck costs what the run costs,
         * not its prediction: c03 jacobi 100x100 resident on PoCL, 2-core
         * VM: the device predicted 0.16 ms, run after the native calls for
         * 0.2-4.2 ms with its copies, every 5 ms of native calls, a third of
         * the time) */
        lost_recheck(r, best, bucket((double)n));
        r->credit = 0;
        c->side = o;
        c->calibrating = 1;
    }
    /* it moves the data there, or runs the device cold (device_cold):
     * that side once more (above) */
    if (c->calibrating && c->side == o) {
        int cold = o == CYRT_SIDE_OPENCL && device_cold(d);
        if (x[o] > 0 || cold) {
            again_set(r, o, n, 1);
            r->again_cold = cold;
        }
    }
    /* settle only where the rechecks above have nothing left to do soon:
     * the other side's point here and the one its prediction leans on were
     * measured three times (a provisional or once-measured one is retried
     * within a few calls, which the hot path would put off 64 times) */
    const dpoint *onp = side_nearest(&r->side[o], (double)n);
    int solid = (!op->cnt || op->cnt >= 3) && (!onp || (onp->cnt >= 3 && onp->loaded != 2));
    /* and for cyocl.resident views only a choice whose data is where it
     * runs: settled ones that copy at every call were each good alone,
     * and rent or buy never saw them (H100, bench side, c06 mlp2 100x100
     * resident: its two layers, one region with two signatures, settled
     * one native and one on the device, `hidden` crossing twice a call:
     * 100 us against 38 with both on the device, 2.65x).  (Plain calls
     * copy at every call anyway: their data goes back when the def
     * returns.) */
    *stable = quiet && solid && !c->calibrating && (!m->resident || x[c->side] <= 0);
}

void cyrt_dispatch_choose_moves(cyrt_rt *rt, cyrt_dregion *r, long long n, const cyrt_dmove *m,
                                cyrt_dchoice *c) {
    struct cyrt_disp *d = disp_get(rt);
    memset(c, 0, sizeof *c);
    c->pred[0] = c->pred[1] = -1;
    if (!d || !r)
        return;
    int stable;
    spin_lock(&r->spin);
    epoch_tick_locked(r, __atomic_load_n(&rt->scope_seq, __ATOMIC_ACQUIRE), row_mark(rt));
    choose_locked(d, r, n, m, c, 0, 1, &stable);
    spin_unlock(&r->spin);
}

void cyrt_dispatch_choose(cyrt_rt *rt, cyrt_dregion *r, long long n, uint64_t up, uint64_t down_pend,
                          uint64_t down_native, cyrt_dchoice *c) {
    cyrt_dmove m;
    memset(&m, 0, sizeof m);
    m.up = up;
    m.down_pend = down_pend;
    m.down_native = down_native;
    cyrt_dispatch_choose_moves(rt, r, n, &m, c);
}

long long cyrt_dispatch_predict(cyrt_rt *rt, cyrt_dregion *r, int side, long long n) {
    struct cyrt_disp *d = disp_get(rt);
    if (!d || !r || side < 0 || side > 1)
        return -1;
    cyrt_devconst k;
    dev_consts(d, &k);
    spin_lock(&r->spin);
    double t = side_predict(&r->side[side], (double)n, side ? k.launch_ns : NATIVE_OVERHEAD);
    spin_unlock(&r->spin);
    return t < 0 ? -1 : (long long)t;
}

static void save_maybe(cyrt_rt *rt, struct cyrt_disp *d);

static void observe(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns, const cyrt_xfer *x, int timed,
                    int prov);

/* Transfers given as totals: one copy each way, its path by its size. */
static void xfer_of(struct cyrt_disp *d, uint64_t up, uint64_t ns_up, uint64_t down, uint64_t ns_down, cyrt_xfer *x) {
    memset(x, 0, sizeof *x);
    x->bytes_to_device = up;
    x->ns_to_device = ns_up;
    x->to_device = up > 0;
    x->bytes_to_host = down;
    x->ns_to_host = ns_down;
    x->to_host = down > 0;
    if (d && staged_copy(d, up)) {
        x->staged_bytes_to_device = up;
        x->staged_ns_to_device = ns_up;
        x->staged_to_device = x->to_device;
    }
    if (d && staged_copy(d, down)) {
        x->staged_bytes_to_host = down;
        x->staged_ns_to_host = ns_down;
        x->staged_to_host = x->to_host;
    }
}

void cyrt_dispatch_observe(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns,
                           uint64_t bytes_up, uint64_t bytes_down) {
    cyrt_xfer x;
    xfer_of(disp_get(rt), bytes_up, 0, bytes_down, 0, &x);
    observe(rt, r, side, n, ns, &x, 0, 0);
}

void cyrt_dispatch_observe_moved(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns,
                                 uint64_t bytes_up, uint64_t ns_up, uint64_t bytes_down, uint64_t ns_down) {
    cyrt_xfer x;
    xfer_of(disp_get(rt), bytes_up, ns_up, bytes_down, ns_down, &x);
    observe(rt, r, side, n, ns, &x, 1, 0);
}

void cyrt_dispatch_observe_xfer(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns,
                                const cyrt_xfer *moved) {
    observe(rt, r, side, n, ns, moved, 1, 0);
}

/* Timed copies of one path refine its bandwidth (disp_lock not held):
 * bytes in ns, of which fixed is the copies' fixed cost.  Small copies
 * say more about the fixed cost than the bandwidth: from 1 MiB on. */
static void refine_bw(struct cyrt_disp *d, double *bw, uint64_t bytes, uint64_t ns, double fixed) {
    double net = (double)ns - fixed;
    if (bytes < ((uint64_t)1 << 20) || !(net > 0) || !__atomic_load_n(&d->have_dev, __ATOMIC_ACQUIRE))
        return;
    double old, v = (double)bytes / net;
    __atomic_load(bw, &old, __ATOMIC_RELAXED);
    /* the time per byte, a quarter of the way: one slow copy (a page-fault
     * storm) does not make the next prediction that copy's */
    double nw = 1.0 / (1.0 / old + 0.25 * (1.0 / v - 1.0 / old));
    if (isfinite(nw) && nw > 0) {
        __atomic_store(bw, &nw, __ATOMIC_RELAXED);
        __atomic_store_n(&d->dirty, 1, __ATOMIC_RELAXED);
    }
}

/* x: the run's transfers (device side only); timed: their ns are measured
 * (else predicted from the bandwidths). */
static void observe(cyrt_rt *rt, cyrt_dregion *r, int side, long long n, long long ns, const cyrt_xfer *x, int timed,
                    int prov) {
    struct cyrt_disp *d = disp_get(rt);
    if (!d || !r || side < 0 || side > 1 || n <= 0 || ns < 0)
        return;
    if (side == CYRT_SIDE_OPENCL)
        __atomic_store_n(&d->ocl_end, now_ns(), __ATOMIC_RELEASE);
    double t = (double)ns;
    if (side == 1 && x) {
        /* the fit is the device's own cost: the transfers are predicted
         * from where the data is at each call */
        cyrt_devconst k;
        dev_consts(d, &k);
        uint64_t su = x->staged_bytes_to_device <= x->bytes_to_device ? x->staged_bytes_to_device : x->bytes_to_device;
        uint64_t sd = x->staged_bytes_to_host <= x->bytes_to_host ? x->staged_bytes_to_host : x->bytes_to_host;
        if (timed) {
            /* timed: taken out as they were; a guessed bandwidth would
             * leave the copies' error in the region's own time, where it
             * scales with n and stands for ever */
            t -= (double)x->ns_to_device + (double)x->ns_to_host;
            if (t < 0)
                t = 0;
            /* each path refines its own bandwidths: a large staged copy
             * says nothing of a small direct one's speed */
            uint64_t snu = x->staged_ns_to_device <= x->ns_to_device ? x->staged_ns_to_device : x->ns_to_device;
            uint64_t snd = x->staged_ns_to_host <= x->ns_to_host ? x->staged_ns_to_host : x->ns_to_host;
            uint64_t scu = x->staged_to_device <= x->to_device ? x->staged_to_device : x->to_device;
            uint64_t scd = x->staged_to_host <= x->to_host ? x->staged_to_host : x->to_host;
            refine_bw(d, &d->bw_up, x->bytes_to_device - su, x->ns_to_device - snu,
                      (double)(x->to_device - scu) * k.launch_ns);
            refine_bw(d, &d->bw_down, x->bytes_to_host - sd, x->ns_to_host - snd,
                      (double)(x->to_host - scd) * k.launch_ns);
            refine_bw(d, &d->st_up, su, snu, (double)scu * k.st_fix_up);
            refine_bw(d, &d->st_down, sd, snd, (double)scd * k.st_fix_down);
        } else {
            t -= (double)(x->bytes_to_device - su) / k.up + (double)su / k.st_up +
                 (double)(x->bytes_to_host - sd) / k.down + (double)sd / k.st_down;
            if (t < 0.5 * (double)ns)
                t = 0.5 * (double)ns; /* a bandwidth guess that wrong is not the region's fault */
        }
    }
    spin_lock(&r->spin);
    int fresh = !r->side[side].b[bucket((double)n)].cnt;
    side_observe(&r->side[side], (double)n, t, prov, side == CYRT_SIDE_OPENCL);
    spin_unlock(&r->spin);
    if (fresh) {
        __atomic_store_n(&d->dirty, 1, __ATOMIC_RELAXED);
        save_maybe(rt, d);
    }
}

/* A quiet kernel's launch: its time up to the enqueue (a launch that did
 * not wait: all of it), less its uploads and any wait for kernels still
 * pending (launch.c), which is what a stream of them costs.  Half the way
 * to each new one: the enqueue's cost hardly varies.  It is the call's end
 * (a row goes on after it unless it waited). */
void cyrt_dispatch_observe_enqueue(cyrt_rt *rt, cyrt_dregion *r, long long ns, int unwaited) {
    if (!r)
        return;
    uint64_t mark = row_mark(rt), ep = __atomic_load_n(&rt->scope_seq, __ATOMIC_ACQUIRE);
    spin_lock(&r->spin);
    if (ns > 0)
        r->enq_ns = r->enq_ns > 0 ? 0.5 * (r->enq_ns + (double)ns) : (double)ns;
    row_end_locked(r, ep, mark, !unwaited);
    spin_unlock(&r->spin);
}

void cyrt_dispatch_disable(cyrt_rt *rt, cyrt_dregion *r) {
    (void)rt;
    if (r)
        __atomic_store_n(&r->off, 1, __ATOMIC_RELAXED);
}

/* ---- where the data is: the bytes each side would move ---------------------------------- */

static int view_extent(const cyocl_arg *a, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t l = (uintptr_t)a->ptr, h = l + (uintptr_t)a->size;
    for (int k = 0; k < a->ndim && k < CYOCL_API_MAX_NDIM; k++) {
        if (a->shape[k] <= 0)
            return 0;
        ptrdiff_t span = (a->shape[k] - 1) * a->strides[k];
        if (span < 0)
            l -= (uintptr_t)-span;
        else
            h += (uintptr_t)span;
    }
    *lo = l;
    *hi = h;
    return 1;
}

/* One copy of b bytes into a total of a move, with its count, and into
 * the staged ones where it takes that path. */
static void move_copy(struct cyrt_disp *d, uint64_t *tot, uint64_t *st, unsigned *n, unsigned *nst, uint64_t b) {
    *tot += b;
    (*n)++;
    if (staged_copy(d, b)) {
        *st += b;
        (*nst)++;
    }
}

/* up: bytes the device run must upload; pend: bytes it leaves only on the
 * device (to come back once, later); nat: bytes a native run must bring
 * back first (the device-only regions its views overlap); resident:
 * some view of the call is in cyocl.resident.  Without anything on a
 * device or any live view (no lock) every view uploads.  Each copy
 * counted on its path (move_copy). */
static void bytes_for(cyrt_rt *rt, const cyocl_launch *L, cyrt_dmove *m) {
    struct cyrt_disp *d = rt->disp;
    memset(m, 0, sizeof *m);
    m->split = 1;
    enum { MAXV = 32 };
    uintptr_t lo[MAXV], hi[MAXV];
    /* wh: a view the launch writes whole, alone on its extent: nothing
     * to upload (cyrt_device_acquire's CYRT_WRITE_ALL) */
    int wr[MAXV], wh[MAXV], nv = 0, over = 0;
    for (int i = 0; i < L->nargs; i++) {
        const cyocl_arg *a = &L->args[i];
        if (a->kind != CYOCL_A_VIEW || !(a->read || a->written))
            continue;
        uintptr_t l, h;
        if (!view_extent(a, &l, &h))
            continue;
        if (nv == MAXV) {
            over = 1;
            m->up += h - l;
            if (staged_copy(d, h - l))
                m->up_st += h - l;
            continue;
        }
        /* views of one array count once: merge overlapping extents */
        int merged = 0;
        for (int k = 0; k < nv; k++)
            if (l < hi[k] && lo[k] < h) {
                lo[k] = l < lo[k] ? l : lo[k];
                hi[k] = h > hi[k] ? h : hi[k];
                wr[k] |= a->written;
                wh[k] = 0;
                merged = 1;
                break;
            }
        if (!merged) {
            lo[nv] = l;
            hi[nv] = h;
            wh[nv] = cyocl_launch_writes_whole(L, a);
            wr[nv++] = a->written;
        }
    }
    if (!(__atomic_load_n(&rt->state, __ATOMIC_RELAXED) & (CYRT_STATE_DIRTY | CYRT_STATE_VALID)) &&
        !__atomic_load_n(&rt->handles, __ATOMIC_RELAXED)) {
        for (int k = 0; k < nv; k++) {
            if (!wh[k])
                move_copy(d, &m->up, &m->up_st, &m->copies, &m->copies_up_st, hi[k] - lo[k]);
            if (wr[k])
                move_copy(d, &m->down_pend, &m->pend_st, &m->copies, &m->copies_pend_st, hi[k] - lo[k]);
        }
        return;
    }
    pthread_mutex_lock(&rt->lock);
    /* a resident view on a top the call touches (cyocl.resident), and
     * whether every view is one */
    int res[MAXV] = {0}, nres = 0;
    for (const struct cyrt_handle *h = rt->handles; h && nres < nv; h = h->next) {
        if (!(h->flags & CYRT_HF_RESIDENT) || !h->r)
            continue;
        const cyrt_region *T = h->r->top ? h->r->top : h->r;
        for (int k = 0; k < nv; k++)
            if (!res[k] && T->lo < hi[k] && lo[k] < T->hi)
                res[k] = 1, nres++;
    }
    m->resident = nres > 0;
    m->all_resident = nres == nv && nv > 0 && !over;
    /* a native run brings back what its own views need (host_views):
     * the device-only regions they overlap, each whole.  Charging every
     * device-only region (as when a host use brought all of them back)
     * sent c06 mlp2's second layer to the device at 10x10 on 2 cores,
     * PoCL: both layers' native predictions counted three copies, 190 us
     * for 1.3 us of work, and the layers' data went back and forth at
     * every call (5.5x native).
     * Past MAXV views, every one, as before. */
    for (size_t t = 0; t < rt->ntops; t++) {
        const cyrt_region *T = rt->tops[t];
        int needed = over && !T->host_valid;
        for (int k = 0; k < nv && !needed && !T->host_valid; k++)
            needed = T->lo < hi[k] && lo[k] < T->hi;
        if (needed)
            move_copy(d, &m->down_native, &m->native_st, &m->copies_native, &m->copies_native_st, T->hi - T->lo);
    }
    for (int k = 0; k < nv; k++) {
        uint64_t covered = 0;
        for (size_t t = 0; t < rt->ntops; t++) {
            cyrt_region *T = rt->tops[t];
            if (T->hi <= lo[k] || T->lo >= hi[k])
                continue;
            uintptr_t a = T->lo > lo[k] ? T->lo : lo[k], b = T->hi < hi[k] ? T->hi : hi[k];
            covered += b - a;
            /* a top moves whole */
            if (!T->dev_valid && !(wh[k] && T->lo == lo[k] && T->hi == hi[k]))
                move_copy(d, &m->up, &m->up_st, &m->copies, &m->copies_up_st, T->hi - T->lo);
            if (wr[k] && T->host_valid)
                move_copy(d, &m->down_pend, &m->pend_st, &m->copies, &m->copies_pend_st, T->hi - T->lo);
        }
        uint64_t rest = (hi[k] - lo[k]) > covered ? (hi[k] - lo[k]) - covered : 0;
        if (rest) {
            if (!wh[k] || covered)
                move_copy(d, &m->up, &m->up_st, &m->copies, &m->copies_up_st, rest);
            if (wr[k])
                move_copy(d, &m->down_pend, &m->pend_st, &m->copies, &m->copies_pend_st, rest);
        }
    }
    pthread_mutex_unlock(&rt->lock);
}

/* ---- the device, opened off the critical path -------------------------------------- */

static void microbench(cyrt_rt *rt, struct cyrt_disp *d, int dev);

/* The loader, the platforms and the chosen device's context and queue are
 * made in a private runtime object, without the runtime's lock (a driver
 * may take hundreds of ms there), then moved into rt if nobody loaded
 * OpenCL meanwhile. */
static void *opener(void *arg) {
    cyrt_rt *rt = arg;
    /* named, as the driver's threads it starts are (top -H, /proc/PID/task);
     * not the caller's thread, where no thread could be made */
    if (!rt->disp->sync_open)
        pthread_setname_np(pthread_self(), "cyocl-opener");

    struct cyrt_disp *d = rt->disp;
    uint64_t t0 = now_ns();
    /* The caller's first native region makes its OpenMP team now: let it
     * (up to 5 ms) before the driver is loaded.  Making a thread waits for
     * the dynamic loader's TLS lock, which dlopen holds while it maps and
     * relocates a driver (NVIDIA's, PoCL's LLVM: tens of ms on the H100),
     * so a team made meanwhile cost the first call about 20 ms there. */
    if (!d->sync_open) {
        pthread_mutex_lock(&rt->disp_lock);
        while (!__atomic_load_n(&d->team_seen, __ATOMIC_ACQUIRE) && !__atomic_load_n(&d->exiting, __ATOMIC_ACQUIRE) &&
               now_ns() - t0 < 5000000u) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&rt->disp_cond, &rt->disp_lock, &ts);
        }
        pthread_mutex_unlock(&rt->disp_lock);
    }
    cyrt_rt *tmp = calloc(1, sizeof *tmp);
    cyrt_err err = {0};
    int idx = -1, installed = 0;
    pthread_mutex_lock(&rt->lock);
    int mine = rt->loaded == 0 && !rt->forked;
    rt->opening = mine;
    pthread_mutex_unlock(&rt->lock);
    if (tmp && mine) {
        tmp->quiet = 1;
        tmp->is_global = rt->is_global;
        tmp->loader = rt->loader;
        tmp->be_device = -1;
        if (cyrt_select_locked(tmp, d->allowed, &idx, &err) == CYRT_OK)
            cyrt_open_locked(tmp, idx, &err);
        pthread_mutex_lock(&rt->lock);
        if (rt->loaded == 0 && !rt->forked && tmp->loaded != 0) {
            rt->cl = tmp->cl;
            rt->devs = tmp->devs;
            rt->infos = tmp->infos;
            rt->ndevs = tmp->ndevs;
            rt->loaded = tmp->loaded;
            rt->load_status = tmp->load_status;
            rt->load_err = tmp->load_err;
            for (int i = 0; i < rt->ndevs; i++)
                rt->devs[i].rt = rt;
            installed = 1;
        }
        rt->opening = 0;
        pthread_cond_broadcast(&rt->unpinned);
        pthread_mutex_unlock(&rt->lock);
        if (!installed)
            cyrt_devices_free(tmp);
        free(tmp->warnings);
        free(tmp->seen);
    }
    if (!tmp || !mine) {
        pthread_mutex_lock(&rt->lock);
        rt->opening = 0;
        pthread_cond_broadcast(&rt->unpinned);
        pthread_mutex_unlock(&rt->lock);
    }
    free(tmp);
    /* through the real object now: its warnings, its device */
    int ok = cyrt_select_device(rt, d->allowed, &idx, &err) == CYRT_OK &&
             cyrt_device_open(rt, idx, NULL, NULL, &err) == CYRT_OK;
    const cyrt_devinfo *infos;
    int ndev;
    if (ok && !__atomic_load_n(&d->exiting, __ATOMIC_ACQUIRE))
        microbench(rt, d, idx);
    if (ok && (cyrt_devices(rt, &infos, &ndev, &err) != CYRT_OK || idx >= ndev))
        ok = 0;
    pthread_mutex_lock(&rt->disp_lock);
    if (ok) {
        d->dev = idx;
        d->dev_type = infos[idx].type;
        d->startup_ns = (double)(now_ns() - t0);
        d->dirty = 1;
    }
    if (ok) {
        /* the driver's threads finish their start-up for a while after
         * the device is ready (native teams of every core lost a
         * scheduler slice 3-6 times in its last 50-80 ms on the H100):
         * teams stay short and native times provisional as after a
         * program build (cyrt_dispatch_idle_check gives full teams back) */
        uint64_t until = now_ns() + BUILD_BUSY_NS;
        later(&d->busy_until, until);
        later(&d->build_until, until);
    }
    __atomic_store_n(&d->dstate, ok ? 2 : -1, __ATOMIC_RELEASE);
    if (!ok)
        __atomic_fetch_and(&rt->state, ~CYRT_STATE_STARTING, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&rt->disp_cond);
    pthread_mutex_unlock(&rt->disp_lock);
    if (ok)
        save_maybe(rt, d);
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The staged path's constants (device.c's rule): copies of STAGE_LO and
 * STAGE_HI bytes each way through the backend's own path, best of two
 * after one that makes the staging buffers (which the process's first
 * large copy would make anyway), a line through the two: its slope the
 * bandwidth, its intercept the fixed cost (a copy of a few chunks keeps
 * fewer workers busy: so the line holds from 8 MiB on).  Once per device
 * (then stored), but not cheap: on the H100 the device's start-up took
 * 606-633 ms against 345-360 without it (PoCL with CYOCL_STAGING=on, 2
 * cores: 126 ms, 72 of them the first copy, which makes the buffers).
 * Regions run natively meanwhile, and the process's first large copy then
 * finds the buffers made.  0 done, -1 not (k unchanged). */
#define STAGE_LO ((size_t)8 << 20)
#define STAGE_HI ((size_t)32 << 20)
static int microbench_staged(cyrt_rt *rt, struct cyrt_disp *d, int dev, cl_context ctx, const cyrt_devinfo *info,
                             cyrt_devconst *k) {
    size_t hi = STAGE_HI;
    if (info->max_alloc && hi > info->max_alloc / 2)
        hi = (size_t)(info->max_alloc / 2);
    if (hi < 2 * STAGE_LO || !cyrt_copy_staged(info->type, STAGE_LO) || !cyrt_copy_staged(info->type, hi) ||
        __atomic_load_n(&d->exiting, __ATOMIC_ACQUIRE))
        return -1;
    const cyrt_cl *cl = &rt->cl;
    cl_int ce = 0;
    unsigned char *host = malloc(hi);
    cl_mem m = host ? cl->clCreateBuffer(ctx, CL_MEM_READ_WRITE, hi, NULL, &ce) : NULL;
    int ok = m && !ce;
    if (ok) {
        memset(host, 1, hi);
        ok = cyrt_device_copy(rt, dev, m, host, hi, 1) == 0;
    }
    uint64_t t[2][2] = {{UINT64_MAX, UINT64_MAX}, {UINT64_MAX, UINT64_MAX}}; /* [size][up, down] */
    for (int i = 0; i < 2 && ok; i++)
        for (int z = 0; z < 2 && ok; z++)
            for (int up = 1; up >= 0 && ok; up--) {
                uint64_t t0 = now_ns();
                ok = cyrt_device_copy(rt, dev, m, host, z ? hi : STAGE_LO, up) == 0;
                uint64_t dt = now_ns() - t0;
                if (dt < t[z][!up])
                    t[z][!up] = dt;
            }
    if (m)
        cl->clReleaseMemObject(m);
    free(host);
    if (!ok)
        return -1;
    double bw[2], fix[2];
    for (int w = 0; w < 2; w++) {
        double t1 = (double)t[0][w], t2 = (double)t[1][w];
        if (!(t1 > 0) || !(t2 > 0))
            return -1;
        bw[w] = (double)hi / t2;
        fix[w] = 0;
        if (t2 > t1) {
            double b = (double)(hi - STAGE_LO) / (t2 - t1), f = t1 - (double)STAGE_LO / b;
            if (f >= 0)
                bw[w] = b, fix[w] = f;
        }
    }
    k->st_up = bw[0];
    k->st_down = bw[1];
    k->st_fix_up = fix[0];
    k->st_fix_down = fix[1];
    return 0;
}

/* Bandwidth both ways per copy path and the launch overhead, unless the
 * store already holds them for this very device. */
static void microbench(cyrt_rt *rt, struct cyrt_disp *d, int dev) {
    const cyrt_devinfo *infos;
    int n;
    cyrt_err err = {0};
    if (cyrt_devices(rt, &infos, &n, &err) != CYRT_OK || dev >= n)
        return;
    char id[600];
    snprintf(id, sizeof id, "%s|%s|%s|%s", infos[dev].platform, infos[dev].name, infos[dev].version,
             infos[dev].driver);
    for (char *p = id; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    pthread_mutex_lock(&rt->disp_lock);
    int known = d->have_dev && d->dev_stored && d->staged_known && !strcmp(d->devid, id);
    if (!known && d->devid[0] && strcmp(d->devid, id)) {
        /* the store described another device: its device times are not ours */
        for (struct cyrt_dregion *r = d->regions; r; r = r->next) {
            spin_lock(&r->spin);
            memset(&r->side[1], 0, sizeof r->side[1]);
            spin_unlock(&r->spin);
        }
        __atomic_store_n(&d->have_dev, 0, __ATOMIC_RELEASE);
    }
    snprintf(d->devid, sizeof d->devid, "%s", id);
    pthread_mutex_unlock(&rt->disp_lock);
    if (known)
        return;
    cl_context ctx;
    cl_command_queue q;
    if (cyrt_device_open(rt, dev, &ctx, &q, &err) != CYRT_OK)
        return;
    const cyrt_cl *cl = &rt->cl;
    size_t bytes = (size_t)8 << 20;
    if (infos[dev].max_alloc && bytes > infos[dev].max_alloc / 2)
        bytes = (size_t)(infos[dev].max_alloc / 2);
    double up = 0, down = 0, launch = 0;
    cl_int ce = 0;
    void *host = malloc(bytes);
    cl_mem m = host ? cl->clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &ce) : NULL;
    if (m && !ce) {
        memset(host, 1, bytes);
        uint64_t bu = UINT64_MAX, bd = UINT64_MAX;
        for (int i = 0; i < 3; i++) {
            uint64_t t0 = now_ns();
            if (cl->clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL))
                break;
            uint64_t t1 = now_ns();
            if (cl->clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL))
                break;
            uint64_t t2 = now_ns();
            if (t1 - t0 < bu)
                bu = t1 - t0;
            if (t2 - t1 < bd)
                bd = t2 - t1;
        }
        if (bu != UINT64_MAX && bu && bd)
            up = (double)bytes / (double)bu, down = (double)bytes / (double)bd;
    }
    /* the round trip every launch pays: a small blocking read (a kernel
       of its own would cost a program build here, seconds on PoCL) */
    if (m) {
        uint64_t ts[9];
        int got = 0, word[4];
        for (int i = 0; i < 9; i++) {
            uint64_t t0 = now_ns();
            if (cl->clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof word, word, 0, NULL, NULL))
                break;
            ts[got++] = now_ns() - t0;
        }
        if (got) {
            qsort(ts, (size_t)got, sizeof ts[0], cmp_u64);
            launch = (double)ts[got / 2];
        }
    }
    if (m)
        cl->clReleaseMemObject(m);
    free(host);
    if (up > 0 && down > 0) {
        /* the staged path where the device's copies take it, else the
         * direct constants stand for it (never used there) */
        cyrt_devconst k = {up, down, up, down, launch, launch, launch};
        microbench_staged(rt, d, dev, ctx, &infos[dev], &k);
        pthread_mutex_lock(&rt->disp_lock);
        d->dev_stored = 0;
        set_dev(d, &k);
        d->staged_known = 1;
        d->dirty = 1;
        pthread_mutex_unlock(&rt->disp_lock);
    }
}

/* Starts the opener (disp_lock held). */
static void start_device(cyrt_rt *rt, struct cyrt_disp *d, unsigned allowed) {
    if (__atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE) != 0)
        return;
    if (rt->forked) {
        __atomic_store_n(&d->dstate, -1, __ATOMIC_RELEASE);
        return;
    }
    d->allowed = allowed;
    d->start_ns = now_ns();
    __atomic_store_n(&d->dstate, 1, __ATOMIC_RELEASE);
    /* native teams short of the driver's cores until the device is ready (cyrt.h) */
    __atomic_fetch_or(&rt->state, CYRT_STATE_STARTING, __ATOMIC_RELEASE);
    if (pthread_create(&d->thr, NULL, opener, rt) == 0) {
        d->have_thr = 1;
    } else {
        /* no thread: open it here, on the caller's time */
        d->sync_open = 1;
        pthread_mutex_unlock(&rt->disp_lock);
        opener(rt);
        pthread_mutex_lock(&rt->disp_lock);
    }
}

/* ---- a region asks -------------------------------------------------------------- */


static void verbose_print(struct cyrt_dregion *r, const cyocl_launch *L, int side, const char *why) {
    const char *f = L->function ? L->function : "<module>";
    char p0[32] = "-", p1[32] = "-";
    if (L->pred_native >= 0)
        snprintf(p0, sizeof p0, "%.1f us", (double)L->pred_native / 1e3);
    if (L->pred_opencl >= 0)
        snprintf(p1, sizeof p1, "%.1f us", (double)L->pred_opencl / 1e3);
    fprintf(stderr, "cyocl: %s.pyx:%d in %s%s: n=%lld: %s (predicted native %s, opencl %s; %s)\n",
            L->module ? L->module : "?", L->line, f, f[0] == '<' ? "" : "()", L->n, side ? "opencl" : "native", p0,
            p1, why);
    r->last = side;
}

/* Where the call's data is, as far as the model can tell it apart: 0 with
 * nothing on a device and no view registered (every view uploads), else
 * the registry's sequence number; mixed with the views' shapes and, where
 * the registry holds something, their addresses (another array may be
 * elsewhere).  Never 0 in the second case. */
static uint64_t call_sig(cyrt_rt *rt, const cyocl_launch *L) {
    uint64_t h = 1469598103934665603ull;
    int empty = !(__atomic_load_n(&rt->state, __ATOMIC_ACQUIRE) & (CYRT_STATE_DIRTY | CYRT_STATE_VALID)) &&
                !__atomic_load_n(&rt->handles, __ATOMIC_ACQUIRE);
    if (!empty)
        h = (h ^ __atomic_load_n(&rt->res_seq, __ATOMIC_ACQUIRE)) * 1099511628211ull;
    for (int i = 0; i < L->nargs; i++) {
        const cyocl_arg *a = &L->args[i];
        if (a->kind != CYOCL_A_VIEW)
            continue;
        if (!empty)
            h = (h ^ (uint64_t)(uintptr_t)a->ptr) * 1099511628211ull;
        for (int k = 0; k < a->ndim && k < CYOCL_API_MAX_NDIM; k++)
            h = (h ^ (uint64_t)a->shape[k] ^ (uint64_t)a->strides[k] << 32) * 1099511628211ull;
    }
    h &= (UINT64_C(1) << 62) - 1;
    return empty ? h & ~(UINT64_C(1) << 61) : h | UINT64_C(1) << 61;
}

/* Settling (r->spin held): SETTLE full decisions in a row alike with one
 * signature make the octave's decision for it the hot path's; another
 * choice undoes it.  A calibration run is a one-off that leaves it as it
 * is.  A signature without a way takes an unused one, else the ways in
 * turn. */
static void settle_locked(struct cyrt_dregion *r, int b, uint64_t sig, const cyrt_dchoice *c, int stable) {
    if (c->calibrating)
        return;
    dfast *ways = r->fast[b], *f = NULL;
    for (int k = 0; k < WAYS && !f; k++)
        if ((ways[k].streak || ways[k].word) && ways[k].cand_sig == sig)
            f = &ways[k];
    for (int k = 0; k < WAYS && !f; k++)
        if (!ways[k].word && !ways[k].streak)
            f = &ways[k];
    if (!f) {
        f = &ways[r->fast_next[b] % WAYS];
        r->fast_next[b] = (unsigned char)((r->fast_next[b] + 1) % WAYS);
    }
    if (stable && f->cand_side == c->side && f->cand_sig == sig) {
        if (f->streak < SETTLE)
            f->streak++;
    } else {
        f->cand_side = c->side;
        f->cand_sig = sig;
        f->streak = stable;
    }
    __atomic_store_n(&f->pred[0], c->pred[0], __ATOMIC_RELAXED);
    __atomic_store_n(&f->pred[1], c->pred[1], __ATOMIC_RELAXED);
    uint64_t word = stable && f->streak >= SETTLE ? 1u | (uint64_t)c->side << 1 | sig << 2 : 0;
    __atomic_store_n(&f->word, word, __ATOMIC_RELEASE);
}

int cyrt_dispatch_decide(cyrt_rt *rt, cyocl_launch *L) {
    L->pred_native = L->pred_opencl = -1;
    L->team = L->hot = 0;
    struct cyrt_dregion *hot = L->dslot ? __atomic_load_n((struct cyrt_dregion **)L->dslot, __ATOMIC_ACQUIRE) : NULL;
    struct cyrt_disp *hd = hot ? __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE) : NULL;
    const long long size = cyocl_launch_work(L); /* the call's size, and its octave */
    const int b = bucket((double)size);
    if (hd && L->n > 0) {
        /* the hot path: a settled decision, a few atomic loads and the
         * counts below; every SAMPLE-th call is made in full and timed */
        int hds = __atomic_load_n(&hd->dstate, __ATOMIC_ACQUIRE);
        int fside = -1;
        long long p0 = -1, p1 = -1;
        dfast *way = NULL; /* the settled decision taken (NULL: none, or no device) */
        if (hds == 2 && !__atomic_load_n(&hot->off, __ATOMIC_RELAXED) && !(L->cpu_only && hd->dev_type != CYRT_DEV_CPU)) {
            uint64_t sig = 0;
            for (int k = 0; k < WAYS && fside < 0; k++) {
                dfast *f = &hot->fast[b][k];
                uint64_t w = __atomic_load_n(&f->word, __ATOMIC_ACQUIRE);
                if (w && !sig)
                    sig = call_sig(rt, L);
                /* a native team size still being measured: full decisions */
                if (w && (w >> 2) == sig &&
                    (!(w >> 1 & 1) && L->team_ok ? __atomic_load_n(&hot->solo[b], __ATOMIC_RELAXED) : 1)) {
                    fside = (int)(w >> 1 & 1);
                    way = f;
                    p0 = __atomic_load_n(&f->pred[0], __ATOMIC_RELAXED);
                    p1 = __atomic_load_n(&f->pred[1], __ATOMIC_RELAXED);
                }
            }
        } else if (hds == -1) {
            /* no device: native, the model only predicts (and sizes the team) */
            if (!L->team_ok || __atomic_load_n(&hot->solo[b], __ATOMIC_RELAXED))
                fside = 0;
        }
        int take = 0;
        if (fside >= 0) {
            /* the call's counts, and the epoch's (the full path ticks its own) */
            uint64_t ep = __atomic_load_n(&rt->scope_seq, __ATOMIC_ACQUIRE), mark = row_mark(rt);
            spin_lock(&hot->spin);
            /* every SAMPLE-th call of a signature in full (a way's own
             * count: with two signatures alternating a count of the
             * region's calls sampled one of them only) */
            take = ++*(way ? &way->calls : &hot->ncalls) % SAMPLE != 0 && !(hd->verbose && hot->last != fside);
            if (take) {
                hot->skipped++;
                hot->nfast++;
                epoch_tick_locked(hot, ep, mark);
            }
            spin_unlock(&hot->spin);
        }
        if (take) {
            if (fside == 0) {
                L->hot = 1; /* its run is not timed in (native_done) */
                if (L->team_ok)
                    L->team = __atomic_load_n(&hot->solo[b], __ATOMIC_RELAXED) == 2 || stall_solo(hd, hot, size);
            }
            if (hds == 2) {
                cyrt_dispatch_idle_check(rt);
                memcpy(L->reason, L->team ? "auto (one thread)" : "auto", L->team ? 18 : 5);
                L->pred_native = p0;
                L->pred_opencl = p1;
            } else {
                snprintf(L->reason, sizeof L->reason, "auto: no OpenCL device%s", L->team ? " (one thread)" : "");
                if (L->kernel_time) /* the trace shows the prediction */
                    L->pred_native = cyrt_dispatch_predict(rt, hot, 0, size);
            }
            return fside;
        }
    }
    /* a full decision: its native run is timed into the model */
    struct cyrt_dregion *r = L->dslot ? __atomic_load_n((struct cyrt_dregion **)L->dslot, __ATOMIC_ACQUIRE) : NULL;
    if (!r) {
        r = cyrt_dispatch_region(rt, L->source, L->region);
        if (!r) {
            snprintf(L->reason, sizeof L->reason, "auto: out of memory");
            return 0;
        }
        if (L->dslot)
            __atomic_store_n((struct cyrt_dregion **)L->dslot, r, __ATOMIC_RELEASE);
    }
    epoch_tick(rt, r);
    struct cyrt_disp *d = rt->disp;
    const char *why = "auto";
    int side = 0, waited = 0;
    int ds = __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE);
    if (ds != 2 && ds != -1) {
        pthread_mutex_lock(&rt->disp_lock);
        start_device(rt, d, L->cpu_only ? CYRT_DEV_CPU : CYRT_DEV_ALL);
        ds = __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE);
        if (ds == 1 && d->dev_stored && d->startup_ns > 0) {
            /* stored calibration: is waiting for the device faster than
             * running natively now? */
            cyrt_dmove m;
            pthread_mutex_unlock(&rt->disp_lock);
            bytes_for(rt, L, &m);
            pthread_mutex_lock(&rt->disp_lock);
            cyrt_dchoice c;
            int stable;
            spin_lock(&r->spin);
            choose_locked(d, r, size, &m, &c, 1, 1, &stable);
            spin_unlock(&r->spin);
            double left = d->startup_ns - (double)(now_ns() - d->start_ns);
            if (left < 0)
                left = 0;
            /* the device is predicted faster by gain: wait once what the
             * calls run natively meanwhile lost, with this one, is worth
             * the rest of the start-up (a rent-or-buy rule: at most twice
             * the better of waiting at once and never waiting) */
            L->pred_native = c.pred[0];
            L->pred_opencl = c.pred[1];
            double gain = c.pred[0] >= 0 && c.pred[1] >= 0 ? (double)(c.pred[0] - c.pred[1]) : 0;
            int wait = !c.calibrating && c.side == 1 && gain > 0 && d->lost_ns + gain >= left;
            if (!wait && gain > 0 && !c.calibrating)
                d->lost_ns += gain;
            if (wait) {
                /* no native team is coming: the opener need not wait for one */
                __atomic_store_n(&d->team_seen, 1, __ATOMIC_RELEASE);
                pthread_cond_broadcast(&rt->disp_cond);
                uint64_t limit = now_ns() + (uint64_t)(2 * d->startup_ns) + 100000000u;
                while (__atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE) == 1 && now_ns() < limit) {
                    struct timespec ts;
                    clock_gettime(CLOCK_REALTIME, &ts);
                    ts.tv_nsec += 5000000;
                    if (ts.tv_nsec >= 1000000000) {
                        ts.tv_sec++;
                        ts.tv_nsec -= 1000000000;
                    }
                    pthread_cond_timedwait(&rt->disp_cond, &rt->disp_lock, &ts);
                }
                ds = __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE);
                waited = ds == 2;
            }
        }
        pthread_mutex_unlock(&rt->disp_lock);
    }
    if (ds == 2)
        cyrt_dispatch_idle_check(rt);
    if (ds != 2) {
        if (L->pred_native < 0)
            L->pred_native = cyrt_dispatch_predict(rt, r, 0, size);
        why = ds == 1 ? "auto: device starting" : "auto: no OpenCL device";
        snprintf(L->reason, sizeof L->reason, "%s", why);
        native_team(d, r, L);
        if (d->verbose && r->last != 0)
            verbose_print(r, L, 0, why);
        return 0;
    }
    if (L->n <= 0 || __atomic_load_n(&r->off, __ATOMIC_RELAXED) || (L->cpu_only && d->dev_type != CYRT_DEV_CPU)) {
        /* nothing to run, a region the device cannot take, or a CPU-only
         * module while a GPU was opened */
        L->pred_native = cyrt_dispatch_predict(rt, r, 0, size);
        snprintf(L->reason, sizeof L->reason, "auto");
        native_team(d, r, L);
        return 0;
    }
    /* the signature first: a registry that changes meanwhile leaves one
     * that no later call matches */
    uint64_t sig = call_sig(rt, L);
    cyrt_dmove m;
    bytes_for(rt, L, &m);
    cyrt_dchoice c;
    int stable;
    /* no lock but the record's own spin lock */
    spin_lock(&r->spin);
    double w = 1 + (double)r->skipped;
    r->skipped = 0;
    choose_locked(d, r, size, &m, &c, 0, w, &stable);
    settle_locked(r, b, sig, &c, stable);
    spin_unlock(&r->spin);
    side = c.side;
    L->pred_native = c.pred[0];
    L->pred_opencl = c.pred[1];
    why = c.moving        ? (side ? "auto: moving the data to the device for the calls to come"
                                  : "auto: bringing the data back for the calls to come")
          : c.calibrating ? "calibrating"
          : waited        ? "auto: waited for the device"
                          : "auto";
    if (c.calibrating)
        __atomic_add_fetch(&d->calib_runs, 1, __ATOMIC_RELAXED);
    snprintf(L->reason, sizeof L->reason, "%s", why);
    if (side == 0)
        native_team(d, r, L);
    if (d->verbose && r->last != side)
        verbose_print(r, L, side, why);
    return side;
}

/* Whether a stalled team makes the native times that follow provisional
 * and small regions one thread (stall_solo): beside a GPU's driver.  A
 * CPU device's threads (PoCL) work while its kernels run, and the launch
 * waits for them; without a device a stall is other load, which the
 * region's team size (team_locked) answers where it lasts. */
static int gpu_driver(struct cyrt_disp *d) {
    return __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE) == 2 && d->dev_type != CYRT_DEV_CPU;
}

void cyrt_dispatch_native_done(cyrt_rt *rt, cyocl_launch *L, long long ns) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    cyrt_dregion *r = L->dslot ? __atomic_load_n((cyrt_dregion **)L->dslot, __ATOMIC_ACQUIRE) : NULL;
    /* a native run decided from a settled decision (L->hot) teaches the
     * model nothing it needs: only full decisions' runs are timed in
     * (below).  Each run is counted in the record, in one hold of its spin
     * lock (stats' native_regions, native_ns: cyrt_dispatch_native_counts) */
    int hot = L->hot;
    const long long size = cyocl_launch_work(L); /* the call's size, and its octave */
    const int ob = bucket((double)size);
    if (r) {
        uint64_t mark = row_mark(rt), ep = __atomic_load_n(&rt->scope_seq, __ATOMIC_ACQUIRE);
        spin_lock(&r->spin);
        r->nat_runs++;
        r->nat_ns += ns > 0 ? (uint64_t)ns : 0;
        row_end_locked(r, ep, mark, 0);
        spin_unlock(&r->spin);
    } else {
        cyrt_note_native(rt, ns > 0 ? (uint64_t)ns : 0);
    }
    if (d && !__atomic_load_n(&d->team_seen, __ATOMIC_ACQUIRE) && __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE) == 1) {
        /* the team is made: the opener may load the driver (opener) */
        pthread_mutex_lock(&rt->disp_lock);
        __atomic_store_n(&d->team_seen, 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&rt->disp_cond);
        pthread_mutex_unlock(&rt->disp_lock);
    }
    /* (one thread's time is not the team's: a run that measures it may
     * take the team's times its prediction) */
    int stalled = d && !L->team && L->pred_native > 0 && ns > 2 * L->pred_native + 1000000;
    /* a team's first run after the process ran no region for a while
     * wakes its threads, asleep past libgomp's spin: milliseconds that are
     * no driver's (H100, bench side: the first calls of a block after its
     * 30 ms pause took 4-9 ms, forced native's as auto's; counted as a
     * driver's stall they made auto's next 10 ms one thread and its next
     * 100 ms short teams, c02 dot 10^4-10^5 plain 1.2x forced native).
     * Provisional, below. */
    int woke = 0;
    /* the run's end (the generated code's clock read that gave ns, else
     * ours), for the reads below too (a plain load and store: two runs
     * that end together may leave either end, a few us apart) */
    uint64_t end = 0;
    if (d) {
        end = L->end_ns > 0 ? (uint64_t)L->end_ns : now_ns();
        uint64_t last = __atomic_load_n(&d->native_end, __ATOMIC_ACQUIRE);
        __atomic_store_n(&d->native_end, end, __ATOMIC_RELEASE);
        woke = !L->team && last && end - (uint64_t)(ns > 0 ? ns : 0) > last + WAKE_NS;
    }
    if (woke)
        stalled = 0;
    if (stalled && gpu_driver(d)) {
        /* stalled: a team of every core waited at its barrier for a thread
         * that lost its core (H100: every call of dot 10^2 took 11.9 ms,
         * one scheduler slice, for 6 us of work, 19 calls in a row).  The
         * times measured for a while are provisional (below) and small
         * regions run one thread (stall_solo).  Teams stay full: the
         * thread was not lost to the driver's threads (on the H100 they
         * ran 0.1 ms in the 150 ms after a block of device calls, while
         * teams of 16 and of 14 threads stalled alike, their threads on
         * their cores all along: the host's doing, the VM's vCPUs taken
         * away), and a team short for 100 ms after each stall cost the
         * native calls there 1.15-1.6x (c03 stencil 1000x1000 plain: 90-130
         * us against the full team's 77, bench side), a team that changes
         * size 60 us a call. */
        later(&d->busy_until, end + STALL_NS);
        __atomic_store_n(&d->solo_until, end + STALL_SOLO_WIN, __ATOMIC_RELEASE);
    }
    if (d)
        cyrt_dispatch_idle_check(rt);
    if (r && d && !hot) {
        /* a team that ran while the driver started, or just after the
         * device was used, may have waited for a core the driver's threads
         * held, and a region's first call pays for cold code and data:
         * provisional (measured again soon, never spoiling a real point) */
        uint64_t start = end - (uint64_t)(ns > 0 ? ns : 0);
        spin_lock(&r->spin);
        int first = 1;
        for (int b = 0; b < DB && first; b++)
            first = !r->side[0].b[b].cnt;
        /* and a stalled run at a size without a point yet: the others
         * predicted a fraction of its time (H100, c03 stencil 998x998 plain
         * after the device's copies: 12.2, 7.5 and 4.8 ms predicted 35 us,
         * 96 us in a process of its own; three such runs made the point,
         * and the device ran the size at 20-34x) */
        int fresh = stalled && !r->side[0].b[ob].cnt;
        /* and one thread's run at a size where the team has no time yet:
         * an upper bound of native's (2-core PoCL, c05 mandelbrot 100x100
         * plain: one thread's 514 us, the team's one run stalled right after
         * the device's, 6.4 ms; the device's 501 then ran every call against
         * the team's 260, 2-2.5x) */
        int solo_only = L->team && L->team_ok && r->team[ob].size != 1 && !r->team[ob].cnt[0];
        if (L->team_ok && L->n > 0) {
            dteam *v = &r->team[ob];
            /* a team that waited at its end for over twice what thread 0
             * worked, or took over twice one thread's time, had a thread
             * without its core (team_locked); thread 0 may be the one (a
             * 2-core VM's first team runs after one thread's: 7.4 and 11.9
             * ms where one thread took 0.24, c04 matmul 100x100) */
            double one = team_best(v, 1);
            /* the full team's times are those of its full size: a team run
             * short (cyrt_team, while a driver holds cores) is not it (on 2
             * cores, PoCL: c02 dot 10^5's "full team" measured 57 us at one
             * thread in the 250 ms after the program's load, as fast as one
             * thread, which then stood for a thousand calls at 2x the team's
             * 30); a team of one is one thread */
            int k = L->team ? 1 : 0, skip = 0;
            if (!L->team && L->team_size > 0) {
                if (L->team_size == 1) {
                    k = 1;
                    /* and a full team of one outside the moments teams run
                     * short (cyrt_team: CYRT_STATE_STARTING) is the team the
                     * process has (OMP_NUM_THREADS=1, one core): no size to
                     * choose till a larger team runs (team_locked), else the
                     * team is never measured and every call is decided in
                     * full (2-core VM, OMP_NUM_THREADS=1: triad 10^2 1.27 us
                     * a call, "calibrating", against forced native's 0.69) */
                    if (v->size <= 1 && !(__atomic_load_n(&rt->state, __ATOMIC_RELAXED) & CYRT_STATE_STARTING))
                        v->size = 1;
                } else if (L->team_size > v->size) {
                    /* (a larger team than one: its size is chosen again) */
                    if (v->size == 1)
                        __atomic_store_n(&r->solo[ob], 0, __ATOMIC_RELAXED);
                    memset(v->t[0], 0, sizeof v->t[0]);
                    v->cnt[0] = v->nwork = v->waits = 0;
                    v->size = L->team_size;
                } else if (L->team_size < v->size) {
                    skip = 1;
                }
            }
            /* and a team run that starts within BUSY_NS of a device run
             * sizes nothing: the device's threads may still hold cores (a
             * CPU device's too: on 2 cores, PoCL, c04 matmul 100x100's team
             * took 6.7, 12 and 1.1 ms in the 3 ms after the device's
             * calibration runs, 0.15 ms in blocks of its own) */
            int after_dev = !k && start < __atomic_load_n(&d->dev_last, __ATOMIC_ACQUIRE) + BUSY_NS;
            if (!after_dev && !skip && !woke && !k && L->team_size > 1 && v->waits < 1000000 &&
                ((L->chunk_ns > 0 && ns > 2 * L->chunk_ns + 50000) ||
                 (one >= 0 && (double)ns > 2 * one * (double)size + 100000)))
                v->waits++;
            /* a run in such a moment (or one that woke the team) counts
             * where it is no slower than what either size is known to
             * take: times are noisy upwards only (2-core PoCL, c04 matmul
             * 100x100: 26 team runs of 145 us right after the device's
             * calibration counted for nothing, then two woken ones of 7.7
             * and 11.9 ms after a block of device runs were all the
             * team's times, and one thread's 225 stood, 1.55x) */
            double per = (double)(ns > 0 ? ns : 0) / (double)size, known = team_best(v, k);
            if (known < 0 && !k)
                known = team_best(v, 1);
            if (!skip && (!(after_dev || woke) || (known >= 0 && per <= known)))
                team_note(v, k, per);
            if (!k && !skip && L->chunk_ns > 0) {
                v->work[v->nwork % WIN] = (float)((double)L->chunk_ns * L->team_size / (double)size);
                if (v->nwork < 1000000)
                    v->nwork++;
            }
            /* (only where one thread was measured at most twice the
             * team's best: a stall's window is a guess, and one thread 10x
             * the team for its 10 ms cost c05 mandelbrot 100x100 on the
             * H100 700 us calls against the team's 70, the block's median.
             * Not from the team's work (thread 0's share times the team):
             * a memory-bound region's one thread is far slower than its
             * share of the team's bandwidth says (H100, c01 triad 10^5
             * resident: 78 calls of one thread at 60-69 us against the
             * team's 7, its work said 6.4; 4.6x the block's median) */
            double t1 = team_best(v, 1), tt = team_best(v, 0);
            float st = (float)(t1 >= 0 && tt >= 0 && t1 <= 2 * tt ? t1 : 0);
            __atomic_store(&r->solo_t[ob], &st, __ATOMIC_RELAXED);
        }
        spin_unlock(&r->spin);
        /* and any run in a stall's window (the stalled one included): the
         * H100's windows after large frees stalled every native try at dot
         * 10^5 (2.5, 5.9, 1.0 ms for 15 us of work); counted as measured,
         * the last stood, and the device ran the size at 20x.  Provisional,
         * they are retried with the backoff above (a lasting slowdown still
         * decides meanwhile: the upper bound is the estimate) */
        /* (within BUSY_NS of any device's run: a CPU device's threads
         * spin on for a while too; 2-core PoCL, c05 mandelbrot 100x100: the
         * team's runs right after device runs 6.2 and 7.4 ms, 0.26 ms in
         * blocks of its own; measured, they made the device's 0.45 the
         * faster for the point, 2.3x) */
        int prov = first || fresh || woke || solo_only || __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE) == 1 ||
                   start < __atomic_load_n(&d->busy_until, __ATOMIC_ACQUIRE);
        observe(rt, r, CYRT_SIDE_NATIVE, size, ns, NULL, 0, prov);
    }
}

/* BUSY_NS: how long native times stay provisional after the device was
 * used (H100: native teams of every core right after device runs waited
 * 7-9 ms, scheduler slices, some calls in a row, for 10 us of work; after
 * a big copy 2-3x their time).  Native teams run short (cyrt_team) only
 * while the device starts and, for a GPU's driver, for BUILD_BUSY_NS after
 * it is ready or a program was built or loaded: then the driver's own
 * threads work beside them.  A CPU device's driver has none left then
 * (2-core VM, PoCL: after c02's program load auto's teams of one ran dot
 * 10^4 at 5.9 us for 250 ms, forced native's full teams at 4.1 beside
 * them; bench side, 1.3x at the small points).  After runs and copies no driver thread does (H100: 0.1 ms in the
 * 150 ms after a block of device calls), and the teams' stalls there are
 * not theirs (native_done). */
void cyrt_dispatch_idle_check(cyrt_rt *rt) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    int ds;
    if (d && (__atomic_load_n(&rt->state, __ATOMIC_RELAXED) & CYRT_STATE_STARTING) &&
        (ds = __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE)) != 1 &&
        (now_ns() >= __atomic_load_n(&d->build_until, __ATOMIC_ACQUIRE) || (ds == 2 && !gpu_driver(d))))
        __atomic_fetch_and(&rt->state, ~CYRT_STATE_STARTING, __ATOMIC_RELEASE); /* full teams again */
}

void cyrt_dispatch_device_used(cyrt_rt *rt, int built) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    if (!d)
        return; /* CYOCL_FORCE: no native team chosen beside the device */
    uint64_t t = now_ns();
    __atomic_store_n(&d->dev_last, t, __ATOMIC_RELEASE);
    later(&d->busy_until, t + (built ? BUILD_BUSY_NS : BUSY_NS));
    if (built) {
        later(&d->build_until, t + BUILD_BUSY_NS);
        if (gpu_driver(d) && !(__atomic_load_n(&rt->state, __ATOMIC_RELAXED) & CYRT_STATE_STARTING))
            __atomic_fetch_or(&rt->state, CYRT_STATE_STARTING, __ATOMIC_RELEASE);
    }
}

/* After a large copy the H100's native teams stalled for longer than
 * BUSY_NS from the copy's start: c03 stencil 4096x4096 plain, native's
 * calibration runs right after the device's 268 MB of copies took 18-23
 * ms against 6.2-8.6 forced in its blocks, counted as measured; 8192x8192,
 * extrapolated from them, said 84 ms against the device's 39, never run
 * natively (13.7 ms): 2.5x.  As bench side's pauses: bytes / 5 GB/s, up
 * to 300 ms, from the copy's end. */
#define COPY_BUSY_MAX 300000000u
void cyrt_dispatch_device_copied(cyrt_rt *rt, size_t bytes) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    if (!d)
        return;
    uint64_t t = now_ns(), w = (uint64_t)bytes / 5;
    w = w < BUSY_NS ? BUSY_NS : w > COPY_BUSY_MAX ? COPY_BUSY_MAX : w;
    __atomic_store_n(&d->dev_last, t, __ATOMIC_RELEASE);
    later(&d->busy_until, t + w);
}

uint64_t cyrt_dispatch_calibration_runs(cyrt_rt *rt) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    return d ? __atomic_load_n(&d->calib_runs, __ATOMIC_RELAXED) : 0;
}

/* The regions' counts, summed under their spin locks (disp_lock keeps
 * the list as it is): exact for the calls that returned, as their one
 * atomic add per count was. */
uint64_t cyrt_dispatch_fast_calls(cyrt_rt *rt) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    uint64_t n = 0;
    if (!d)
        return 0;
    pthread_mutex_lock(&rt->disp_lock);
    for (struct cyrt_dregion *r = d->regions; r; r = r->next) {
        spin_lock(&r->spin);
        n += r->nfast;
        spin_unlock(&r->spin);
    }
    pthread_mutex_unlock(&rt->disp_lock);
    return n;
}

void cyrt_dispatch_native_counts(cyrt_rt *rt, uint64_t *runs, uint64_t *ns) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    *runs = *ns = 0;
    if (!d)
        return;
    pthread_mutex_lock(&rt->disp_lock);
    for (struct cyrt_dregion *r = d->regions; r; r = r->next) {
        spin_lock(&r->spin);
        *runs += r->nat_runs;
        *ns += r->nat_ns;
        spin_unlock(&r->spin);
    }
    pthread_mutex_unlock(&rt->disp_lock);
}

int cyrt_dispatch_wait_due(cyrt_rt *rt, cyrt_dregion *r, long long n) {
    (void)rt;
    if (!r)
        return 0;
    /* a size the device has not been timed at enough: the launches there
     * are its measurements (2-core VM, PoCL, bench --quick: c04 matmul
     * 512x512 chosen for the device on a prediction extrapolated from
     * smaller sizes, 3.9 ms, took 140 ms a call, paid at the def's return
     * where the dispatcher never saw it; every timed call ran there, 8-9x
     * native, in about half the runs) */
    spin_lock(&r->spin);
    uint32_t cnt = n > 0 ? r->side[CYRT_SIDE_OPENCL].b[bucket((double)n)].cnt : 3;
    spin_unlock(&r->spin);
    return cnt < 3 || __atomic_add_fetch(&r->nquiet, 1, __ATOMIC_RELAXED) % SAMPLE == 0;
}

void cyrt_dispatch_test_ready(cyrt_rt *rt, unsigned dev_type) {
    struct cyrt_disp *d = disp_get(rt);
    if (!d)
        return;
    pthread_mutex_lock(&rt->disp_lock);
    d->dev_type = dev_type;
    __atomic_store_n(&d->dstate, 2, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt->disp_lock);
}

int cyrt_dispatch_device_state(cyrt_rt *rt) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    return d ? __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE) : 0;
}

/* ---- the store ------------------------------------------------------------------------ */
/* Text, one record per line, then "sum <SHA-256 of the lines above>":
 *   cyocl-dispatch 3
 *   version <cyocl version>
 *   device <platform|name|version|driver>
 *   devconst <bw_up> <bw_down> <launch_ns> <startup_ns>     (bytes/ns, ns; direct copies)
 *   devstaged <bw_up> <bw_down> <fixed_up_ns> <fixed_down_ns>  (staged copies)
 *   p <key> <side> <bucket> <n> <t> <cnt> [<provisional>]   (n: a call's size, cyocl_launch_work)
 *   t <key> <bucket> <team ns/iter> <one thread's> <cnt> <cnt>
 * Anything unexpected and the whole file is ignored.  Format 1 (no
 * devstaged: devconst's bandwidths were both paths') still loads: its
 * bandwidths stand for both paths until the device, measured again when
 * it opens, replaces them.  Formats 1 and 2 sized calls by the prange's
 * count: their p and t lines are skipped. */

/* A devconst or devstaged line's four numbers: two bandwidths (> 0), then
 * two times (>= 0), all finite. */
static int dev_line(const char *s, double c[4]) {
    return sscanf(s, "%lf %lf %lf %lf", &c[0], &c[1], &c[2], &c[3]) == 4 && c[0] > 0 && c[1] > 0 && c[2] >= 0 &&
           c[3] >= 0 && isfinite(c[0] + c[1] + c[2] + c[3]);
}

static void hex32(const unsigned char h[32], char out[65]) {
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* The record of key in the scratch list of a load, made if new; NULL out of memory. */
static struct cyrt_dregion *load_region(struct cyrt_dregion **list, const char *key) {
    struct cyrt_dregion *r;
    for (r = *list; r; r = r->next)
        if (!strcmp(r->key, key))
            return r;
    if (!(r = calloc(1, sizeof *r)))
        return NULL;
    snprintf(r->key, sizeof r->key, "%s", key);
    r->last = -1;
    r->lost_best = -1;
    r->again = -1;
    r->owner = -1;
    r->stored = 1;
    r->next = *list;
    *list = r;
    return r;
}

static void disp_load_locked(cyrt_rt *rt, struct cyrt_disp *d) {
    (void)rt;
    if (!d->path[0])
        return;
    int fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    struct stat st;
    char *buf = NULL;
    /* a file others can write is not believed (the directory's safety was
     * checked by the cache) */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (8 << 20) &&
        !(st.st_mode & 022) && (st.st_uid == geteuid() || st.st_uid == 0) && (buf = malloc((size_t)st.st_size + 1))) {
        ssize_t got = read(fd, buf, (size_t)st.st_size);
        if (got != st.st_size) {
            free(buf);
            buf = NULL;
        } else {
            buf[got] = 0;
        }
    }
    close(fd);
    if (!buf)
        return;
    /* the checksum line */
    char *sum = strstr(buf, "sum ");
    while (sum && sum != buf && sum[-1] != '\n')
        sum = strstr(sum + 1, "sum ");
    int ok = 0;
    if (sum && strlen(sum) == 4 + 64 + 1 && sum[68] == '\n') {
        cyrt_sha256 s;
        unsigned char h[32];
        char hx[65];
        cyrt_sha256_init(&s);
        cyrt_sha256_update(&s, buf, (size_t)(sum - buf));
        cyrt_sha256_final(&s, h);
        hex32(h, hx);
        ok = !memcmp(sum + 4, hx, 64);
    }
    if (!ok || (strncmp(buf, "cyocl-dispatch 1\n", 17) && strncmp(buf, "cyocl-dispatch 2\n", 17) &&
                strncmp(buf, "cyocl-dispatch 3\n", 17))) {
        free(buf);
        return;
    }
    /* formats 1 and 2 counted a call's size as its prange's count, not
     * the loops' work (cyocl_launch.work): their points would put a 2-D
     * region's sizes a square root off; their device constants stand */
    int old_sizes = buf[15] != '3';
    *sum = 0;
    /* parse into a scratch list first: all or nothing */
    struct cyrt_dregion *list = NULL;
    char devid[600] = "";
    double c[4] = {0, 0, 0, 0}, cs[4] = {0, 0, 0, 0};
    int have_dc = 0, have_st = 0, bad = 0, have_version = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line && !bad; line = strtok_r(NULL, "\n", &save)) {
        if (!strcmp(line, "cyocl-dispatch 1") || !strcmp(line, "cyocl-dispatch 2") ||
            !strcmp(line, "cyocl-dispatch 3"))
            continue;
        if (old_sizes && (!strncmp(line, "p ", 2) || !strncmp(line, "t ", 2)))
            continue;
        if (!strncmp(line, "version ", 8)) {
            if (strcmp(line + 8, CYOCL_VERSION))
                bad = 1; /* another cyocl: recalibrate */
            have_version = 1;
        } else if (!strncmp(line, "device ", 7)) {
            snprintf(devid, sizeof devid, "%s", line + 7);
        } else if (!strncmp(line, "devconst ", 9)) {
            bad = !dev_line(line + 9, c);
            have_dc = 1;
        } else if (!strncmp(line, "devstaged ", 10)) {
            bad = !dev_line(line + 10, cs);
            have_st = 1;
        } else if (!strncmp(line, "p ", 2)) {
            char key[80];
            int side, b;
            double n, t;
            unsigned cnt, prov = 0;
            int got = sscanf(line + 2, "%79s %d %d %lf %lf %u %u", key, &side, &b, &n, &t, &cnt, &prov);
            if (got < 6 || prov > 1 || side < 0 || side > 1 ||
                b < 0 || b >= DB || !(n >= 0) || !(t >= 0) || !isfinite(n + t) || !cnt || !strchr(key, ':')) {
                bad = 1;
                break;
            }
            struct cyrt_dregion *r = load_region(&list, key);
            if (!r) {
                bad = 1;
                break;
            }
            /* a new process measures again where that is cheap (choose) */
            /* as many measurements as it had, up to three (a point measured
             * once may have been a bad moment: choose measures it again) */
            /* a point measured only in bad moments stays provisional: an
             * upper bound, retried once this process has run a while
             * (choose_locked), not a measurement to settle on (H100, auto2:
             * c04 matmul 10x10 plain ran all its calls on the device at 13x
             * native on the first process's stalled 10 ms) */
            point_set(&r->side[side].b[b], n, t, prov ? 1 : cnt < 3 ? cnt : 3, prov ? 2 : 1);
        } else if (!strncmp(line, "t ", 2)) {
            /* the native team's size at an octave: ns per iteration of the
             * full team and of one thread (-1 not measured), how often */
            char key[80];
            int b;
            double tt, ts;
            unsigned ct, cs;
            struct cyrt_dregion *r;
            if (sscanf(line + 2, "%79s %d %lf %lf %u %u", key, &b, &tt, &ts, &ct, &cs) != 6 || b < 0 || b >= DB ||
                !isfinite(tt + ts) || (ct && !(tt >= 0)) || (cs && !(ts >= 0)) || !strchr(key, ':') ||
                !(r = load_region(&list, key))) {
                bad = 1;
                break;
            }
            /* counted twice at most: the new process goes by them at once,
             * and its own runs soon outweigh them */
            dteam *v = &r->team[b];
            memset(v, 0, sizeof *v);
            for (int k = 0; k < 2; k++) {
                unsigned c = k ? cs : ct;
                v->cnt[k] = c < 2 ? c : 2;
                for (uint32_t i = 0; i < v->cnt[k]; i++)
                    v->t[k][i] = (float)(k ? ts : tt);
            }
            r->solo[b] = ct >= 2 && cs >= 2 ? 1 + (ts < tt) : 0;
        } else {
            bad = 1;
        }
    }
    free(buf);
    if (bad || !have_version) {
        while (list) {
            struct cyrt_dregion *n = list->next;
            free(list);
            list = n;
        }
        return;
    }
    if (have_dc) {
        /* without devstaged (format 1) one bandwidth each way was both
         * paths': it stands for both, and the device is measured again */
        cyrt_devconst k = {c[0], c[1], have_st ? cs[0] : c[0], have_st ? cs[1] : c[1],
                           have_st ? cs[2] : c[2], have_st ? cs[3] : c[2], c[2]};
        d->dev_stored = 1;
        d->staged_known = have_st;
        set_dev(d, &k);
        d->startup_ns = c[3];
    }
    snprintf(d->devid, sizeof d->devid, "%s", devid);
    while (list) {
        struct cyrt_dregion *n = list->next;
        list->next = d->regions;
        d->regions = list;
        list = n;
    }
}

/* Writes the file (temp + rename); 0 done, -1 not (no store, I/O error). */
static int save_now(cyrt_rt *rt, struct cyrt_disp *d) {
    pthread_mutex_lock(&rt->disp_lock);
    if (!d->path[0] || !d->writable) {
        pthread_mutex_unlock(&rt->disp_lock);
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    int oom = !text;
#define EMIT(...)                                                                              \
    do {                                                                                       \
        if (oom) break;                                                                        \
        int k_ = snprintf(text + len, cap - len, __VA_ARGS__);                                 \
        if (k_ < 0) { oom = 1; break; }                                                        \
        if ((size_t)k_ >= cap - len) {                                                         \
            size_t nc_ = (cap + (size_t)k_) * 2;                                               \
            char *nt_ = realloc(text, nc_);                                                    \
            if (!nt_) { oom = 1; break; }                                                      \
            text = nt_;                                                                        \
            cap = nc_;                                                                         \
            snprintf(text + len, cap - len, __VA_ARGS__);                                      \
        }                                                                                      \
        len += (size_t)k_;                                                                     \
    } while (0)
    EMIT("cyocl-dispatch 3\nversion %s\n", CYOCL_VERSION);
    if (d->devid[0])
        EMIT("device %s\n", d->devid);
    if (d->have_dev)
        EMIT("devconst %.17g %.17g %.17g %.17g\n", d->bw_up, d->bw_down, d->launch_ns, d->startup_ns);
    if (d->have_dev && d->staged_known)
        EMIT("devstaged %.17g %.17g %.17g %.17g\n", d->st_up, d->st_down, d->st_fix_up, d->st_fix_down);
    for (struct cyrt_dregion *r = d->regions; r; r = r->next) {
        spin_lock(&r->spin);
        dside s[2];
        dteam tm[DB];
        memcpy(s, r->side, sizeof s);
        memcpy(tm, r->team, sizeof tm);
        spin_unlock(&r->spin);
        /* provisional points (measured beside a busy driver) are upper
         * bounds, better than nothing for another process: stored as
         * measured once and marked, so that it measures them again */
        for (int side = 0; side < 2; side++)
            for (int b = 0; b < DB; b++)
                if (s[side].b[b].cnt) {
                    if (s[side].b[b].loaded == 2)
                        EMIT("p %s %d %d %.17g %.17g 1 1\n", r->key, side, b, s[side].b[b].n, s[side].b[b].t);
                    else
                        EMIT("p %s %d %d %.17g %.17g %u\n", r->key, side, b, s[side].b[b].n, s[side].b[b].t,
                             s[side].b[b].cnt);
                }
        for (int b = 0; b < DB; b++)
            if (tm[b].cnt[0] || tm[b].cnt[1])
                EMIT("t %s %d %.9g %.9g %u %u\n", r->key, b, team_best(&tm[b], 0), team_best(&tm[b], 1), tm[b].cnt[0],
                     tm[b].cnt[1]);
    }
    d->dirty = 0;
    d->last_save = now_ns();
    char path[1100];
    snprintf(path, sizeof path, "%s", d->path);
    pthread_mutex_unlock(&rt->disp_lock);
    if (!oom) {
        cyrt_sha256 s;
        unsigned char h[32];
        char hx[65];
        cyrt_sha256_init(&s);
        cyrt_sha256_update(&s, text, len);
        cyrt_sha256_final(&s, h);
        hex32(h, hx);
        EMIT("sum %s\n", hx);
    }
#undef EMIT
    int rc = -1;
    if (!oom) {
        char tmpl[1200];
        char *slash = strrchr(path, '/');
        if (slash) {
            snprintf(tmpl, sizeof tmpl, "%.*s/.tmp-calib.XXXXXX", (int)(slash - path), path);
            int fd = mkstemp(tmpl);
            if (fd >= 0) {
                size_t off = 0;
                while (off < len) {
                    ssize_t w = write(fd, text + off, len - off);
                    if (w <= 0) {
                        if (w < 0 && errno == EINTR)
                            continue;
                        break;
                    }
                    off += (size_t)w;
                }
                int closed = close(fd) == 0;
                if (off == len && closed && rename(tmpl, path) == 0)
                    rc = 0;
                else
                    unlink(tmpl);
            }
        }
    }
    free(text);
    return rc;
}

/* Saves when something new was learnt, at most every 200 ms. */
static void save_maybe(cyrt_rt *rt, struct cyrt_disp *d) {
    if (!__atomic_load_n(&d->dirty, __ATOMIC_RELAXED) || !d->writable)
        return;
    if (now_ns() - __atomic_load_n(&d->last_save, __ATOMIC_RELAXED) < 200000000u)
        return;
    save_now(rt, d);
}

int cyrt_dispatch_save(cyrt_rt *rt) {
    struct cyrt_disp *d = disp_get(rt);
    return d ? save_now(rt, d) : -1;
}

int cyrt_dispatch_path(cyrt_rt *rt, char *buf, size_t n) {
    struct cyrt_disp *d = disp_get(rt);
    if (!d || !d->path[0])
        return -1;
    snprintf(buf, n, "%s", d->path);
    return 0;
}

/* At exit: whatever was learnt since the last save. */
void cyrt_dispatch_flush(cyrt_rt *rt) {
    struct cyrt_disp *d = __atomic_load_n(&rt->disp, __ATOMIC_ACQUIRE);
    if (!d)
        return;
    /* a process must not exit while the opener is inside the driver: a
     * library half loaded while exit runs the destructors hangs or aborts
     * (seen with PoCL's LLVM).  So it finishes first; it skips its
     * microbenchmark once the process is exiting. */
    __atomic_store_n(&d->exiting, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&rt->disp_lock);
    while (d->have_thr && __atomic_load_n(&d->dstate, __ATOMIC_ACQUIRE) == 1) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&rt->disp_cond, &rt->disp_lock, &ts);
    }
    pthread_mutex_unlock(&rt->disp_lock);
    if (d->dirty)
        save_now(rt, d);
}

void cyrt_dispatch_shutdown(cyrt_rt *rt) { cyrt_dispatch_flush(rt); }

/* ---- lifetime ------------------------------------------------------------------------ */

void cyrt_dispatch_free(cyrt_rt *rt) {
    struct cyrt_disp *d = rt->disp;
    if (!d)
        return;
    if (d->have_thr)
        pthread_join(d->thr, NULL);
    rt->disp = NULL;
    while (d->regions) {
        struct cyrt_dregion *n = d->regions->next;
        free(d->regions);
        d->regions = n;
    }
    free(d);
}

/* In a forked child (single-threaded; after cyrt_devices_fork_child). */
void cyrt_dispatch_fork_child(cyrt_rt *rt) {
    struct cyrt_disp *d = rt->disp;
    if (!d)
        return;
    /* the opener did not come along: the child never waits for it, and
     * OpenCL, half started in the parent, is not for it */
    d->have_thr = 0;
    rt->opening = 0;
    __atomic_fetch_and(&rt->state, ~CYRT_STATE_STARTING, __ATOMIC_RELAXED);
    if (d->dstate == 1) {
        d->dstate = -1;
        if (rt->loaded != 1) {
            rt->loaded = -1;
            rt->load_status = CYRT_EFORKED;
            rt->forked = 1;
            cyrt_seterr(&rt->load_err, 0,
                        "OpenCL cannot be used in this process: it was forked while its parent was "
                        "starting OpenCL, and OpenCL drivers do not survive fork() (to use OpenCL in "
                        "worker processes, start them with multiprocessing's 'spawn' or 'forkserver')");
        }
    } else if (d->dstate == 2 && rt->forked) {
        d->dstate = -1;
    }
    for (struct cyrt_dregion *r = d->regions; r; r = r->next)
        r->spin = 0;
}

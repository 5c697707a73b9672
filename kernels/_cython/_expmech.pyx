# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled exponential-mechanism sampler and popcount error counts (CPU backend).

Called through :func:`semiprivate.kernels.exponential_mechanism` / :func:`semiprivate.kernels.error_counts`
(which validate inputs); see their docstrings for the algorithm and its error bounds.

Layout of the work (all in the C block below):

* ``sp_pass_*``: one pass over the scores in chunks of ``SP_CHUNK`` entries.  For each
  chunk (OpenMP ``parallel for`` over groups of ``SP_GROUP = 16`` chunks, dynamic schedule,
  when ``N >= SP_PAR_MIN = 2**20``) the chunk maximum
  ``m_c`` and ``S_c = sum_i exp(c (s_i - m_c))`` are computed; within a group the max (and
  NaN/``+inf`` flags) of chunk ``c + 1`` is taken inside chunk ``c``'s exp loop, which reads
  chunk ``c`` from L1 cache: main memory is read once, and its loads overlap the arithmetic
  (software pipelining; the per-chunk results are the chunk-at-a-time ones).
* ``sp_select_*``: chunk weights ``W_c = S_c exp(c (m_c - M))`` are prefix-summed; each
  draw picks a chunk by binary search with ``u1`` and an entry of that chunk by re-scanning
  it with ``u2`` (only entries with positive weight can be picked).
* ``sp_exp_neg(x)``: ``exp(x)`` for ``x <= 0``, branch-free and vectorisable: Cody-Waite
  reduction ``x = n ln2 + r`` (fdlibm hi/lo split, ``|r| <= ln2/2``), a degree-11
  polynomial for ``exp(r)`` (interpolant at Chebyshev nodes, relative error < ``1.6e-16``),
  exponent bits for ``2**n``; the whole function has relative error <= ``4u = 2**-51``
  (``u = 2**-53``) on ``[-708, 0]``, the figure the public error bound uses
  (``semiprivate.kernels._exponential.EXP_ERROR_U``; tested, observed about ``2u``).  Returns
  0 for ``x < -708`` (weights below ``2**-1021`` of the chunk maximum; see the public docstring
  for why dropping them is below float64 resolution).
* integer scores: ``exp(-c d)`` for ``d = m_c - s_i`` (exact ``uint64`` difference) comes
  from a table of ``min(4096, 708/c + 1)`` entries computed with libm ``exp``.
* the hot loops are compiled for x86-64 baseline and, through GCC ``target_clones``, for
  x86-64-v3 (AVX2+FMA) and x86-64-v4 (AVX-512), chosen at load time (portable binaries; no
  ``-march=native``; :func:`simd_path` says which clone runs).  The float exp-and-sum loop is
  vectorised on each of them and on aarch64 (NEON): the file is built with
  ``-fno-trapping-math``, without which GCC keeps the clamp and select of ``sp_exp_neg`` as
  branches except under AVX-512 masks (``scripts/vectorisation_report.py`` checks every target).
  FMA contraction in the v3/v4 clones only removes roundings (``kd``, ``r`` and each Horner
  step become single-rounding fused operations; ``kd * ln2_hi`` is exact either way), so the
  ``4u`` bound below holds for every clone; the accuracy test runs both the dispatched clone
  and the baseline scalar build.
"""

import numpy as np
from semiprivate.kernels._memo import memo_table
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t

cnp.import_array()

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #include <math.h>
    #include <stdlib.h>
    #ifdef _OPENMP
    #include <omp.h>
    #endif

    #define SP_CHUNK 2048
    #define SP_PAR_MIN 1048576
    #define SP_TABLE_MAX 4096
    #define SP_XMIN (-708.0)

    /* One clone per x86-64 micro-architecture level.  "arch=x86-64-v3" is AVX2 + FMA + BMI in one
       clone; the older spelling target_clones("avx2,fma") made two clones, ".avx2" (no FMA) and
       ".fma", and the AVX2 one ran.  Needs GCC >= 12 (arch= levels); older GCCs get no clones. */
    #if defined(__GNUC__) && !defined(__clang__) && (__GNUC__ >= 12) && defined(__x86_64__) && defined(__linux__) && !defined(SP_NO_CLONES)
    #define SP_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
    #define SP_CLONES_POPCNT __attribute__((target_clones("popcnt", "default")))
    #define SP_HAVE_CLONES 1
    #else
    #define SP_CLONES
    #define SP_CLONES_POPCNT
    #define SP_HAVE_CLONES 0
    #endif

    /* The SIMD path the float loops run on: the clone the ifunc resolver picks (x86-64 with
       clones), or what the compiler targeted for the whole file. */
    static const char* sp_simd_path(void) {
    #if SP_HAVE_CLONES
        __builtin_cpu_init();
        if (__builtin_cpu_supports("x86-64-v4")) return "x86-64-v4 (AVX-512, clone)";
        if (__builtin_cpu_supports("x86-64-v3")) return "x86-64-v3 (AVX2+FMA, clone)";
        return "x86-64 baseline (SSE2, clone)";
    #elif defined(__AVX512F__)
        return "AVX-512 (compile-time)";
    #elif defined(__AVX2__) && defined(__FMA__)
        return "AVX2+FMA (compile-time)";
    #elif defined(__x86_64__)
        return "x86-64 baseline (SSE2)";
    #elif defined(__aarch64__)
        return "aarch64 (NEON)";
    #else
        return "scalar/unknown target";
    #endif
    }

    static int sp_last_threads = 1;

    /* exp(x) for x <= 0 (x may be -inf or NaN: returns 0 then). Relative error <= 4u = 2^-51. */
    static inline double sp_exp_neg(double x) {
        const double shift = 6755399441055744.0;          /* 1.5 * 2^52 */
        const double inv_ln2 = 1.4426950408889634;
        const double ln2_hi = 6.93147180369123816490e-01;  /* fdlibm: 32 significant bits */
        const double ln2_lo = 1.90821492927058770002e-10;
        double xc = x > SP_XMIN ? x : SP_XMIN;             /* keep the arithmetic finite */
        double kd = xc * inv_ln2 + shift;
        uint64_t ki;
        memcpy(&ki, &kd, sizeof ki);
        kd -= shift;                                       /* n = round(x / ln2), exactly */
        double r = (xc - kd * ln2_hi) - kd * ln2_lo;
        /* degree-11 interpolant of exp at the Chebyshev nodes of [-ln2/2, ln2/2]
           (max relative error 1.6e-16 there, Horner rounding included) */
        double p = 2.5110037605963777e-08;
        p = p * r + 2.763263963904103e-07;
        p = p * r + 2.755724091857897e-06;
        p = p * r + 2.4801485482328494e-05;
        p = p * r + 0.00019841269890047113;
        p = p * r + 0.0013888888952314775;
        p = p * r + 0.008333333333319601;
        p = p * r + 0.0416666666664881;
        p = p * r + 0.1666666666666668;
        p = p * r + 0.5000000000000019;
        p = p * r + 1.0;
        p = p * r + 1.0;
        uint64_t sb = (ki + 1023u) << 52;                  /* 2^n, n in [-1022, 0] */
        double scale;
        memcpy(&scale, &sb, sizeof scale);
        double res = p * scale;
        return x >= SP_XMIN ? res : 0.0;
    }

    /* ---------- per-chunk kernels (cloned for SIMD levels) ---------- */
    /* sum_i exp(c (x_i - md)) over doubles: the loop every float path runs, vectorised on every
       target (SSE2, AVX2+FMA, AVX-512, NEON) once the file is built with -fno-trapping-math (see
       setup.py); scripts/vectorisation_report.py checks this with GCC's -fopt-info-vec. */
    static inline double sp_sum_exp(const double* x, int64_t n, double c, double md) {
        double sum = 0.0; int64_t i;
        _Pragma("omp simd reduction(+:sum)")
        for (i = 0; i < n; i++) sum += sp_exp_neg(c * (x[i] - md));  /* SP_VEC_SUM_EXP */
        return sum;
    }
    /* The same sum, fused with the max (and NaN flag) of the NEXT chunk t[0..n): the exp loop is
       compute-bound and reads x from L1, the max loop is bound by memory; run in one loop, the
       next chunk's loads overlap this chunk's arithmetic (whole call 1.12-1.18x faster on an AVX2
       EPYC, N = 1e7; the floor ratio went from 0.47 to 0.56, benchmarks/RESULTS.md). */
    static inline double sp_sum_exp_max(const double* x, const double* t, int64_t n, double c, double md,
                                        double* tmax, int* tbad) {
        /* NaN check through chk = sum (v - v), NaN iff some v is NaN or +-inf: an integer flag
           in this loop stops GCC vectorising it for SSE2; the rare NaN-or-inf case is re-checked */
        double sum = 0.0, m = *tmax, chk = 0.0; int64_t i;
        _Pragma("omp simd reduction(+:sum,chk) reduction(max:m)")
        for (i = 0; i < n; i++) {
            sum += sp_exp_neg(c * (x[i] - md));  /* SP_VEC_SUM_EXP_MAX */
            double v = t[i]; m = v > m ? v : m; chk += v - v;
        }
        if (chk != chk) { int bad = 0; for (i = 0; i < n; i++) bad |= (t[i] != t[i]); *tbad |= bad; }
        *tmax = m;
        return sum;
    }
    #define SP_F32_BLOCK 256
    /* float32 scores are widened to double (exactly) in blocks of SP_F32_BLOCK first: a loop that
       mixes float loads with double arithmetic is not vectorised on 128-bit SIMD (SSE2, NEON) */
    static inline double sp_sum_exp_f32(const float* s, int64_t n, double c, double md) {
        double buf[SP_F32_BLOCK], sum = 0.0; int64_t b, i;
        for (b = 0; b < n; b += SP_F32_BLOCK) {
            int64_t len = n - b < SP_F32_BLOCK ? n - b : SP_F32_BLOCK;
            _Pragma("omp simd")
            for (i = 0; i < len; i++) buf[i] = (double)s[b + i];  /* SP_VEC_WIDEN */
            sum += sp_sum_exp(buf, len, c, md);
        }
        return sum;
    }
    /* float32 with the next chunk's max fused into the widening loop (both float loads) */
    static inline double sp_sum_exp_max_f32(const float* s, const float* t, int64_t n, double c, double md,
                                            float* tmax, int* tbad) {
        double buf[SP_F32_BLOCK], sum = 0.0; float m = *tmax; int bad = *tbad; int64_t b, i;
        for (b = 0; b < n; b += SP_F32_BLOCK) {
            int64_t len = n - b < SP_F32_BLOCK ? n - b : SP_F32_BLOCK;
            _Pragma("omp simd reduction(max:m) reduction(|:bad)")
            for (i = 0; i < len; i++) {
                buf[i] = (double)s[b + i];  /* SP_VEC_WIDEN_MAX */
                float v = t[b + i]; m = v > m ? v : m; bad |= (v != v);
            }
            sum += sp_sum_exp(buf, len, c, md);
        }
        *tmax = m; *tbad = bad;
        return sum;
    }
    /* One group of consecutive chunks (the unit of OpenMP work): for each chunk j its max, its
       sum of exp(c (x - max_j)) and its flags (1: a NaN, 2: max = +inf), exactly as chunk-at-a-
       time processing gives them; chunk j+1's max is computed inside chunk j's exp loop (software
       pipelining), so the array is read from memory once, overlapped with the arithmetic. */
    #define SP_DEFINE_FLOAT_GROUP(NAME, T, SUM, SUMMAX)                                        \\
    SP_CLONES static void NAME(const T* s, int64_t n, double c, double* omax, double* osum, int* oflags) { \\
        int64_t nc = (n + SP_CHUNK - 1) / SP_CHUNK, j, i;                                   \\
        int64_t len = n < SP_CHUNK ? n : SP_CHUNK;                                          \\
        T m = -INFINITY; int bad = 0;                                                       \\
        _Pragma("omp simd reduction(max:m) reduction(|:bad)")                              \\
        for (i = 0; i < len; i++) { T v = s[i]; m = v > m ? v : m; bad |= (v != v); }      \\
        for (j = 0; j < nc; j++) {                                                          \\
            int64_t a = j * SP_CHUNK, b;                                                    \\
            len = n - a < SP_CHUNK ? n - a : SP_CHUNK;                                      \\
            b = a + len;                                                                    \\
            int64_t lenn = n - b < SP_CHUNK ? n - b : SP_CHUNK;                             \\
            double md = (double)m; double sum = 0.0; int fl = bad ? 1 : 0;                 \\
            if (md == INFINITY) fl |= 2;                                                    \\
            int ok = !bad && md > -INFINITY && md < INFINITY;                               \\
            T mn = -INFINITY; int badn = 0;                                                 \\
            if (ok && lenn == len) {                                                        \\
                sum = SUMMAX(s + a, s + b, len, c, md, &mn, &badn);                         \\
            } else {                                                                        \\
                if (ok) sum = SUM(s + a, len, c, md);                                       \\
                _Pragma("omp simd reduction(max:mn) reduction(|:badn)")                    \\
                for (i = 0; i < lenn; i++) { T v = s[b + i]; mn = v > mn ? v : mn; badn |= (v != v); } \\
            }                                                                               \\
            omax[j] = md; osum[j] = sum; oflags[j] = fl;                                    \\
            m = mn; bad = badn;                                                             \\
        }                                                                                   \\
    }
    SP_DEFINE_FLOAT_GROUP(sp_group_f64, double, sp_sum_exp, sp_sum_exp_max)
    SP_DEFINE_FLOAT_GROUP(sp_group_f32, float, sp_sum_exp_f32, sp_sum_exp_max_f32)

    SP_CLONES static void sp_chunk_i64(const int64_t* s, int64_t n, double c, const double* table, int64_t tn,
                                       int64_t* omax, double* osum) {
        int64_t m = INT64_MIN, lo = INT64_MAX, i;
        _Pragma("omp simd reduction(max:m) reduction(min:lo)")
        for (i = 0; i < n; i++) { int64_t v = s[i]; m = v > m ? v : m; lo = v < lo ? v : lo; }
        double sum = 0.0;
        uint64_t range = (uint64_t)m - (uint64_t)lo;
        if (range < (uint64_t)tn) {
            /* four accumulators: the gather loop is otherwise bound by the add latency */
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (i = 0; i + 4 <= n; i += 4) {
                s0 += table[(uint64_t)m - (uint64_t)s[i]];
                s1 += table[(uint64_t)m - (uint64_t)s[i + 1]];
                s2 += table[(uint64_t)m - (uint64_t)s[i + 2]];
                s3 += table[(uint64_t)m - (uint64_t)s[i + 3]];
            }
            for (; i < n; i++) s0 += table[(uint64_t)m - (uint64_t)s[i]];
            sum = (s0 + s1) + (s2 + s3);
        } else {
            _Pragma("omp simd reduction(+:sum)")
            for (i = 0; i < n; i++) {
                uint64_t d = (uint64_t)m - (uint64_t)s[i];
                sum += d < (uint64_t)tn ? table[d] : sp_exp_neg(-c * (double)d);
            }
        }
        *omax = m; *osum = sum;
    }

    static inline double sp_int_weight(uint64_t d, double c, const double* table, int64_t tn) {
        return d < (uint64_t)tn ? table[d] : sp_exp_neg(-c * (double)d);
    }

    /* ---------- drivers: OpenMP over chunks ---------- */
    /* OpenMP over groups of SP_GROUP chunks (dynamic schedule); chunk boundaries are multiples of
       SP_CHUNK whatever the thread count, so the per-chunk results do not depend on it. */
    #define SP_GROUP 16
    #define SP_DEFINE_FLOAT_PASS(NAME, GROUPFN, T)                                              \\
    static int NAME(const T* s, int64_t n, double c, double* cmax, double* csum, int* cflags) { \\
        const int64_t gsize = (int64_t)SP_GROUP * SP_CHUNK;                                   \\
        int64_t ng = (n + gsize - 1) / gsize, g; int threads = 1;                            \\
        _Pragma("omp parallel if(n >= 1048576)")                                          \\
        {                                                                                     \\
            SP_OMP_RECORD_THREADS(threads)                                                    \\
            _Pragma("omp for schedule(dynamic, 1)")                                               \\
            for (g = 0; g < ng; g++) {                                                        \\
                int64_t a = g * gsize, b = a + gsize < n ? a + gsize : n;                    \\
                int64_t j0 = g * SP_GROUP;                                                    \\
                GROUPFN(s + a, b - a, c, cmax + j0, csum + j0, cflags + j0);                  \\
            }                                                                                 \\
        }                                                                                     \\
        sp_last_threads = threads; return threads;                                            \\
    }
    #ifdef _OPENMP
    #define SP_OMP_RECORD_THREADS(t) _Pragma("omp single") { t = omp_get_num_threads(); }
    #else
    #define SP_OMP_RECORD_THREADS(t)
    #endif
    SP_DEFINE_FLOAT_PASS(sp_pass_f64, sp_group_f64, double)
    SP_DEFINE_FLOAT_PASS(sp_pass_f32, sp_group_f32, float)

    static int sp_pass_i64(const int64_t* s, int64_t n, double c, const double* table, int64_t tn,
                           int64_t* cmax, double* csum) {
        int64_t nc = (n + SP_CHUNK - 1) / SP_CHUNK, j; int threads = 1;
        _Pragma("omp parallel if(n >= 1048576)")
        {
            SP_OMP_RECORD_THREADS(threads)
            _Pragma("omp for schedule(dynamic, 16)")
            for (j = 0; j < nc; j++) {
                int64_t a = j * SP_CHUNK, b = a + SP_CHUNK < n ? a + SP_CHUNK : n;
                sp_chunk_i64(s + a, b - a, c, table, tn, cmax + j, csum + j);
            }
        }
        sp_last_threads = threads; return threads;
    }

    /* ---------- selection: binary search over chunk prefix sums, re-scan of one chunk ---------- */
    /* first j with P[j] > t; if none (t rounded up to the total), the last chunk with W > 0 */
    static int64_t sp_find_chunk(const double* P, const double* W, int64_t nc, double t) {
        int64_t lo = 0, hi = nc;
        while (lo < hi) { int64_t mid = lo + (hi - lo) / 2; if (P[mid] > t) hi = mid; else lo = mid + 1; }
        if (lo >= nc) { lo = nc - 1; while (lo > 0 && !(W[lo] > 0.0)) lo--; }
        return lo;
    }
    /* first i with cum[i] > r (cum non-decreasing, strictly increasing exactly at positive weights);
       if none (r rounded up to the total), the last positive one */
    static int64_t sp_find_in(const double* w, const double* cum, int64_t len, double r) {
        int64_t lo = 0, hi = len;
        while (lo < hi) { int64_t mid = lo + (hi - lo) / 2; if (cum[mid] > r) hi = mid; else lo = mid + 1; }
        if (lo >= len) { lo = len - 1; while (lo > 0 && !(w[lo] > 0.0)) lo--; }
        return lo;
    }
    static void sp_find_chunks(const double* P, const double* W, int64_t nc, const double* u1, int64_t k,
                               int64_t* jout) {
        for (int64_t t = 0; t < k; t++) jout[t] = sp_find_chunk(P, W, nc, u1[t] * P[nc - 1]);
    }
    /* draws visited in chunk order (order[] sorts jidx[]): each chunk's weights and cumulative
       sums are computed once, then one binary search per draw */
    #define SP_SELECT_BODY(WEIGHT)                                                              \\
        int64_t t, i, j, cur = -1, a = 0, len = 0; double buf[SP_CHUNK], cum[SP_CHUNK];       \\
        for (t = 0; t < k; t++) {                                                            \\
            int64_t d = order[t]; j = jidx[d];                                                \\
            if (j != cur) {                                                                   \\
                cur = j; a = j * SP_CHUNK; len = (a + SP_CHUNK < n ? a + SP_CHUNK : n) - a;   \\
                double acc = 0.0;                                                             \\
                for (i = 0; i < len; i++) buf[i] = (WEIGHT);                                  \\
                for (i = 0; i < len; i++) { acc += buf[i]; cum[i] = acc; }                    \\
            }                                                                                 \\
            out[d] = a + sp_find_in(buf, cum, len, u2[d] * cum[len - 1]);                     \\
        }
    SP_CLONES static void sp_select_f64(const double* s, int64_t n, double c, const double* cmax,
                              const int64_t* jidx, const int64_t* order, const double* u2, int64_t k, int64_t* out) {
        SP_SELECT_BODY(sp_exp_neg(c * (s[a + i] - cmax[j])))
    }
    SP_CLONES static void sp_select_f32(const float* s, int64_t n, double c, const double* cmax,
                              const int64_t* jidx, const int64_t* order, const double* u2, int64_t k, int64_t* out) {
        SP_SELECT_BODY(sp_exp_neg(c * ((double)s[a + i] - cmax[j])))
    }
    SP_CLONES static void sp_select_i64(const int64_t* s, int64_t n, double c, const double* table, int64_t tn,
                              const int64_t* cmax, const int64_t* jidx, const int64_t* order,
                              const double* u2, int64_t k, int64_t* out) {
        SP_SELECT_BODY(sp_int_weight((uint64_t)cmax[j] - (uint64_t)s[a + i], c, table, tn))
    }

    /* ---------- whole-call drivers: C buffers, no Python objects ---------- */
    typedef struct { int64_t j; int64_t d; } sp_pair;
    static int sp_cmp_pair(const void* a, const void* b) {
        const sp_pair* x = (const sp_pair*)a; const sp_pair* y = (const sp_pair*)b;
        if (x->j != y->j) return x->j < y->j ? -1 : 1;
        return (x->d > y->d) - (x->d < y->d);
    }
    /* order[] = draws sorted by chunk (stable); returns 0, or -1 when out of memory */
    static int sp_order(const int64_t* jidx, int64_t k, int64_t* order) {
        if (k == 1) { order[0] = 0; return 0; }
        sp_pair* pairs = (sp_pair*)malloc((size_t)k * sizeof(sp_pair));
        if (!pairs) return -1;
        for (int64_t t = 0; t < k; t++) { pairs[t].j = jidx[t]; pairs[t].d = t; }
        qsort(pairs, (size_t)k, sizeof(sp_pair), sp_cmp_pair);
        for (int64_t t = 0; t < k; t++) order[t] = pairs[t].d;
        free(pairs);
        return 0;
    }
    /* status: 0 ok, 1 NaN present, 2 all -inf, 3 +inf present, -1 out of memory */
    #define SP_DEFINE_FLOAT_SAMPLE(NAME, PASS, SELECT, T)                                        \\
    static int NAME(const T* s, int64_t n, double c, const double* u1, const double* u2,       \\
                    int64_t k, int64_t* out) {                                                  \\
        int64_t nc = (n + SP_CHUNK - 1) / SP_CHUNK, j; int status = 0, flags = 0;             \\
        double* cmax = (double*)malloc((size_t)nc * sizeof(double));                           \\
        double* csum = (double*)malloc((size_t)nc * sizeof(double));                           \\
        double* W = (double*)malloc((size_t)nc * sizeof(double));                              \\
        double* P = (double*)malloc((size_t)nc * sizeof(double));                              \\
        int* cfl = (int*)malloc((size_t)nc * sizeof(int));                                     \\
        int64_t* jidx = (int64_t*)malloc((size_t)k * sizeof(int64_t));                        \\
        int64_t* order = (int64_t*)malloc((size_t)k * sizeof(int64_t));                       \\
        if (!cmax || !csum || !W || !P || !cfl || !jidx || !order) { status = -1; goto done; } \\
        PASS(s, n, c, cmax, csum, cfl);                                                        \\
        for (j = 0; j < nc; j++) flags |= cfl[j];                                              \\
        if (flags & 1) { status = 1; goto done; }                                              \\
        if (flags & 2) { status = 3; goto done; }                                              \\
        {                                                                                      \\
            double M = -INFINITY, acc = 0.0;                                                   \\
            for (j = 0; j < nc; j++) if (cmax[j] > M) M = cmax[j];                             \\
            for (j = 0; j < nc; j++) {                                                         \\
                W[j] = csum[j] > 0.0 ? csum[j] * sp_exp_neg(c * (cmax[j] - M)) : 0.0;          \\
                acc += W[j]; P[j] = acc;                                                       \\
            }                                                                                  \\
            if (!(acc > 0.0)) { status = 2; goto done; }                                       \\
        }                                                                                      \\
        sp_find_chunks(P, W, nc, u1, k, jidx);                                                 \\
        if (sp_order(jidx, k, order)) { status = -1; goto done; }                              \\
        SELECT(s, n, c, cmax, jidx, order, u2, k, out);                                        \\
    done:                                                                                      \\
        free(cmax); free(csum); free(W); free(P); free(cfl); free(jidx); free(order);         \\
        return status;                                                                         \\
    }
    SP_DEFINE_FLOAT_SAMPLE(sp_sample_f64, sp_pass_f64, sp_select_f64, double)
    SP_DEFINE_FLOAT_SAMPLE(sp_sample_f32, sp_pass_f32, sp_select_f32, float)

    static int sp_sample_i64(const int64_t* s, int64_t n, double c, const double* table, int64_t tn,
                             const double* u1, const double* u2, int64_t k, int64_t* out) {
        int64_t nc = (n + SP_CHUNK - 1) / SP_CHUNK, j; int status = 0;
        int64_t* cmax = (int64_t*)malloc((size_t)nc * sizeof(int64_t));
        double* csum = (double*)malloc((size_t)nc * sizeof(double));
        double* W = (double*)malloc((size_t)nc * sizeof(double));
        double* P = (double*)malloc((size_t)nc * sizeof(double));
        int64_t* jidx = (int64_t*)malloc((size_t)k * sizeof(int64_t));
        int64_t* order = (int64_t*)malloc((size_t)k * sizeof(int64_t));
        if (!cmax || !csum || !W || !P || !jidx || !order) { status = -1; goto done; }
        sp_pass_i64(s, n, c, table, tn, cmax, csum);
        {
            int64_t M = INT64_MIN; double acc = 0.0;
            for (j = 0; j < nc; j++) if (cmax[j] > M) M = cmax[j];
            for (j = 0; j < nc; j++) {
                /* exact uint64 difference M - m_c, one conversion, libm exp */
                W[j] = csum[j] * exp(-c * (double)((uint64_t)M - (uint64_t)cmax[j]));
                acc += W[j]; P[j] = acc;
            }
        }
        sp_find_chunks(P, W, nc, u1, k, jidx);
        if (sp_order(jidx, k, order)) { status = -1; goto done; }
        sp_select_i64(s, n, c, table, tn, cmax, jidx, order, u2, k, out);
    done:
        free(cmax); free(csum); free(W); free(P); free(jidx); free(order);
        return status;
    }

    /* ---------- popcount error counts ---------- */
    SP_CLONES_POPCNT static void sp_errors_rows(const uint64_t* P, int64_t h0, int64_t h1, int64_t W,
                                                const uint64_t* lab, int64_t* out) {
        for (int64_t h = h0; h < h1; h++) {
            const uint64_t* row = P + h * W; int64_t cnt = 0;
            for (int64_t w = 0; w < W; w++) cnt += __builtin_popcountll(row[w] ^ lab[w]);
            out[h] = cnt;
        }
    }
    static int sp_errors_packed(const uint64_t* P, int64_t H, int64_t W, const uint64_t* lab, int64_t* out) {
        int threads = 1; int64_t blk = 64, nb = (H + blk - 1) / blk, j;
        _Pragma("omp parallel if(H * W >= 65536)")
        {
            SP_OMP_RECORD_THREADS(threads)
            _Pragma("omp for schedule(static)")
            for (j = 0; j < nb; j++) {
                int64_t h0 = j * blk, h1 = h0 + blk < H ? h0 + blk : H;
                sp_errors_rows(P, h0, h1, W, lab, out);
            }
        }
        return threads;
    }

    static double sp_exp_neg_scalar(double x) { return sp_exp_neg(x); }
    /* the same exp through the SIMD clone the float loops dispatch to (for accuracy tests) */
    SP_CLONES static void sp_exp_neg_array(const double* x, int64_t n, double* out) {
        int64_t i;
        _Pragma("omp simd")
        for (i = 0; i < n; i++) out[i] = sp_exp_neg(x[i]);
    }
    static int sp_get_last_threads(void) { return sp_last_threads; }
    static int sp_trapping_math(void) {
    #ifdef __NO_TRAPPING_MATH__
        return 0;
    #else
        return 1;
    #endif
    }
    """
    int SP_CHUNK
    int SP_TABLE_MAX
    double SP_XMIN
    int sp_pass_f64(const double* s, int64_t n, double c, double* cmax, double* csum, int* cflags) nogil
    int sp_pass_f32(const float* s, int64_t n, double c, double* cmax, double* csum, int* cflags) nogil
    int sp_pass_i64(const int64_t* s, int64_t n, double c, const double* table, int64_t tn,
                    int64_t* cmax, double* csum) nogil
    void sp_find_chunks(const double* P, const double* W, int64_t nc, const double* u1, int64_t k,
                        int64_t* jout) nogil
    void sp_select_f64(const double* s, int64_t n, double c, const double* cmax, const int64_t* jidx,
                       const int64_t* order, const double* u2, int64_t k, int64_t* out) nogil
    void sp_select_f32(const float* s, int64_t n, double c, const double* cmax, const int64_t* jidx,
                       const int64_t* order, const double* u2, int64_t k, int64_t* out) nogil
    void sp_select_i64(const int64_t* s, int64_t n, double c, const double* table, int64_t tn,
                       const int64_t* cmax, const int64_t* jidx, const int64_t* order,
                       const double* u2, int64_t k, int64_t* out) nogil
    int sp_sample_f64(const double* s, int64_t n, double c, const double* u1, const double* u2,
                      int64_t k, int64_t* out) nogil
    int sp_sample_f32(const float* s, int64_t n, double c, const double* u1, const double* u2,
                      int64_t k, int64_t* out) nogil
    int sp_sample_i64(const int64_t* s, int64_t n, double c, const double* table, int64_t tn,
                      const double* u1, const double* u2, int64_t k, int64_t* out) nogil
    int sp_errors_packed(const uint64_t* P, int64_t H, int64_t W, const uint64_t* lab, int64_t* out) nogil
    double sp_exp_neg_scalar(double x) nogil
    void sp_exp_neg_array(const double* x, int64_t n, double* out) nogil
    double sp_exp_neg(double x) nogil
    int sp_get_last_threads() nogil
    const char* sp_simd_path()
    int sp_trapping_math()

CHUNK = SP_CHUNK
TABLE_MAX = SP_TABLE_MAX


def simd_path():
    """The SIMD path the float loops run on here (the clone the loader picked), as text."""
    return sp_simd_path().decode("ascii")


def vectorisable_build():
    """True when the file was built with ``-fno-trapping-math``, which the float loops need to
    be vectorised by GCC (their clamp and select are if-converted only then)."""
    return not sp_trapping_math()


def threads_used():
    """Threads used by the last pass (OpenMP team size; 1 when serial or built without OpenMP)."""
    return int(sp_get_last_threads())


def exp_neg(const double[::1] x, bint dispatched=True):
    """The sampler's ``exp`` on an array of ``x <= 0`` (for accuracy tests).

    ``dispatched=True``: through the SIMD clone the float loops run on here (see
    :func:`simd_path`; FMA-contracted on x86-64-v3/v4); ``False``: the scalar function compiled
    for the file's baseline target (x86-64: SSE2, no FMA).
    """
    cdef Py_ssize_t i, n = x.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    if n == 0:
        return out
    with nogil:
        if dispatched:
            sp_exp_neg_array(&x[0], n, &o[0])
        else:
            for i in range(n):
                o[i] = sp_exp_neg_scalar(x[i])
    return out


def int_table(double c):
    """``exp(-c d)`` for ``d = 0 .. min(4096, floor(708/c) + 1) - 1`` (libm ``exp``)."""
    cdef double lim = -SP_XMIN / c + 1.0
    cdef Py_ssize_t tn = <Py_ssize_t>(lim if lim < SP_TABLE_MAX else SP_TABLE_MAX)
    if tn < 1:
        tn = 1
    return np.exp(-c * np.arange(tn, dtype=np.float64))


#: Integer-score tables by ``c``: a registered memo table (:func:`semiprivate.kernels._memo.memo_table`; put back
#: after a search that hides its number of runs), the last 8 ``c`` values (oldest dropped first).
_TABLE_CACHE = memo_table(__name__ + "._TABLE_CACHE", maxsize=8)


def _table(double c):
    """Integer-score table for ``c``, cached for the last few ``c`` values."""
    tab = _TABLE_CACHE.get(c)
    if tab is None:
        tab = _TABLE_CACHE.store(c, int_table(c))
    return tab


def sample(scores, double c, const double[::1] u1, const double[::1] u2, cnp.int64_t[::1] out):
    """Draw ``len(out)`` indices; returns 0 ok, 1 NaN present, 2 all ``-inf``, 3 ``+inf`` present.

    ``scores``: contiguous float64, float32 or int64; ``u1``, ``u2``: ``len(out)`` uniforms each.
    """
    cdef int64_t n = scores.shape[0]
    cdef int64_t k = out.shape[0]
    cdef const double[::1] s64
    cdef const float[::1] s32
    cdef const int64_t[::1] si
    cdef const double[::1] tab
    cdef int status
    if k == 0:
        return 0
    dt = scores.dtype
    if dt == np.float64:
        s64 = scores
        with nogil:
            status = sp_sample_f64(&s64[0], n, c, &u1[0], &u2[0], k, &out[0])
    elif dt == np.float32:
        s32 = scores
        with nogil:
            status = sp_sample_f32(&s32[0], n, c, &u1[0], &u2[0], k, &out[0])
    elif dt == np.int64:
        si = scores
        tab = _table(c)
        with nogil:
            status = sp_sample_i64(&si[0], n, c, &tab[0], tab.shape[0], &u1[0], &u2[0], k, &out[0])
    else:
        raise TypeError(f"unsupported dtype {dt}")
    if status < 0:
        raise MemoryError("exponential mechanism: out of memory for the chunk tables")
    return status


def error_counts_packed(const cnp.uint64_t[:, ::1] P, const cnp.uint64_t[::1] lab, cnp.int64_t[::1] out):
    """``out[h] = popcount(P[h] XOR lab)`` summed over words; returns the thread count used."""
    cdef int64_t H = P.shape[0], W = P.shape[1]
    cdef int th
    with nogil:
        th = sp_errors_packed(<const uint64_t*>&P[0, 0], H, W, <const uint64_t*>&lab[0], &out[0])
    return th

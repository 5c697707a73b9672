// Exponential-mechanism and error-count kernels for the CuPy backend (kernels/_cupy/exponential.py).
//
// Compiled at run time by CuPy (NVRTC, cupy.RawModule) and, in CI, by `nvcc -ptx` as a
// syntax/type check.  Self-contained: no headers, extern "C" names.
//
// sp_pass_*   one block per chunk of SP_CHUNK = 256 * 16 scores: the chunk is read once into
//             registers; block max (warp shuffles), NaN / +inf flags, and the block sum of
//             exp(c (s_i - m_chunk)) -- a fused block-level log-sum-exp.
// sp_combine_* one block: the global maximum M of the chunk maxima, the chunk weights
//             W_c = S_c exp(c (m_c - M)), their inclusive prefix sums P (each thread sums a
//             contiguous run of chunks; the run totals are scanned in order by one thread, so P
//             is non-decreasing and every entry carries at most C - 1 roundings), the
//             last chunk with W_c > 0, and a status word (1: NaN, 2: +inf present, 4: total
//             not > 0) -- written to res[k] and res[k + 1] for the host's one read.
// sp_select_* one block per draw: the chunk j = #{P_c <= u1 * P_last} (clamped to the last
//             positive chunk; a binary search), then recompute that chunk's weights, block
//             prefix sum, pick the first entry whose cumulative weight exceeds u2 * total (only
//             positive weights can be picked; if rounding leaves none, the last positive entry).
//             Nothing is drawn when the status is not 0.
// sp_errors_packed  one warp per hypothesis row: sum of __popcll(row[w] ^ labels[w]).

#define SP_THREADS 256
#define SP_ITEMS 16
#define SP_CHUNK (SP_THREADS * SP_ITEMS)
#define SP_INF __longlong_as_double(0x7ff0000000000000LL)
#define SP_LLMAX 9223372036854775807LL
#define SP_LLMIN (-SP_LLMAX - 1LL)

__device__ __forceinline__ double sp_warp_max(double v) {
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ long long sp_warp_max_ll(long long v) {
    for (int o = 16; o > 0; o >>= 1) {
        long long w = __shfl_xor_sync(0xffffffffu, v, o);
        v = w > v ? w : v;
    }
    return v;
}
__device__ __forceinline__ double sp_warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Block reductions; `sh` holds one slot per warp.  All threads get the result.
__device__ double sp_block_max(double v, double* sh) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = sp_warp_max(v);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = (threadIdx.x < (SP_THREADS >> 5)) ? sh[lane] : -SP_INF;
    if (warp == 0) v = sp_warp_max(v);
    if (threadIdx.x == 0) sh[0] = v;
    __syncthreads();
    v = sh[0];
    __syncthreads();
    return v;
}
__device__ long long sp_block_max_ll(long long v, long long* sh) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = sp_warp_max_ll(v);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = (threadIdx.x < (SP_THREADS >> 5)) ? sh[lane] : SP_LLMIN;
    if (warp == 0) v = sp_warp_max_ll(v);
    if (threadIdx.x == 0) sh[0] = v;
    __syncthreads();
    v = sh[0];
    __syncthreads();
    return v;
}
__device__ double sp_block_sum(double v, double* sh) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = sp_warp_sum(v);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = (threadIdx.x < (SP_THREADS >> 5)) ? sh[lane] : 0.0;
    if (warp == 0) v = sp_warp_sum(v);
    if (threadIdx.x == 0) sh[0] = v;
    __syncthreads();
    v = sh[0];
    __syncthreads();
    return v;
}

// ---------------------------------------------------------------- float scores
#define SP_PASS_FLOAT(NAME, T)                                                                   \
extern "C" __global__ void NAME(const T* __restrict__ s, long long n, double c, double* cmax,   \
                                double* csum, int* cflags) {                                    \
    __shared__ double sh[32];                                                                    \
    __shared__ int shf;                                                                          \
    long long base = (long long)blockIdx.x * SP_CHUNK;                                           \
    double v[SP_ITEMS];                                                                          \
    double m = -SP_INF;                                                                          \
    int bad = 0;                                                                                 \
    if (threadIdx.x == 0) shf = 0;                                                               \
    _Pragma("unroll")                                                                            \
    for (int k = 0; k < SP_ITEMS; k++) {                                                         \
        long long i = base + (long long)k * SP_THREADS + threadIdx.x;                            \
        double x = i < n ? (double)s[i] : -SP_INF;                                               \
        v[k] = x;                                                                                \
        bad |= (x != x);                                                                         \
        m = fmax(m, x);                                                                          \
    }                                                                                            \
    __syncthreads();                                                                             \
    if (bad) atomicOr(&shf, 1);                                                                  \
    m = sp_block_max(m, sh);                                                                     \
    int finite = (m > -SP_INF) && (m < SP_INF);                                                 \
    double sum = 0.0;                                                                            \
    if (finite) {                                                                                \
        _Pragma("unroll")                                                                        \
        for (int k = 0; k < SP_ITEMS; k++) sum += exp(c * (v[k] - m));                           \
    }                                                                                            \
    sum = sp_block_sum(sum, sh);                                                                 \
    if (threadIdx.x == 0) {                                                                      \
        cmax[blockIdx.x] = m;                                                                    \
        csum[blockIdx.x] = finite ? sum : 0.0;                                                   \
        cflags[blockIdx.x] = shf | (m == SP_INF ? 2 : 0);                                        \
    }                                                                                            \
}

// The chunk of draw d: first c with P[c] > u1 * P[nc - 1] (numpy's searchsorted, side="right"),
// clamped to the last chunk of positive weight (res[k]).  Returns -1 (for the whole block) when
// the status res[k + 1] is not 0: the host raises or takes another path, nothing is drawn.
__device__ long long sp_pick_chunk(const double* __restrict__ P, long long nc, double u1,
                                   const long long* res, long long k, long long* shj) {
    if (threadIdx.x == 0) {
        long long j = -1;
        if (res[k + 1] == 0) {
            double r = u1 * P[nc - 1];
            long long lo = 0, hi = nc;
            while (lo < hi) {
                long long mid = lo + ((hi - lo) >> 1);
                if (P[mid] <= r) lo = mid + 1; else hi = mid;
            }
            j = lo < res[k] ? lo : res[k];
        }
        *shj = j;
    }
    __syncthreads();
    return *shj;
}

#define SP_SELECT_BODY(LOAD_WEIGHT)                                                              \
    __shared__ double sh[SP_THREADS];                                                            \
    __shared__ long long best, lastpos, shj;                                                     \
    long long d = blockIdx.x;                                                                    \
    long long j = sp_pick_chunk(P, nc, u[d], res, k, &shj);                                      \
    if (j < 0) {                                                                                 \
        if (threadIdx.x == 0) res[d] = -1;                                                       \
        return;                                                                                  \
    }                                                                                            \
    long long* out = res;                                                                        \
    const double* u2 = u + k;                                                                    \
    long long base = j * SP_CHUNK;                                                               \
    double w[SP_ITEMS];                                                                          \
    double loc = 0.0;                                                                            \
    for (int q = 0; q < SP_ITEMS; q++) {                                                         \
        long long i = base + (long long)threadIdx.x * SP_ITEMS + q;                              \
        w[q] = i < n ? (LOAD_WEIGHT) : 0.0;                                                      \
        loc += w[q];                                                                             \
    }                                                                                            \
    sh[threadIdx.x] = loc;                                                                       \
    if (threadIdx.x == 0) { best = SP_LLMAX; lastpos = -1; }                                     \
    __syncthreads();                                                                             \
    for (int off = 1; off < SP_THREADS; off <<= 1) {                                             \
        double t = threadIdx.x >= off ? sh[threadIdx.x - off] : 0.0;                             \
        __syncthreads();                                                                         \
        sh[threadIdx.x] += t;                                                                    \
        __syncthreads();                                                                         \
    }                                                                                            \
    double total = sh[SP_THREADS - 1];                                                           \
    double acc = sh[threadIdx.x] - loc;                                                          \
    double r = u2[d] * total;                                                                    \
    for (int q = 0; q < SP_ITEMS; q++) {                                                         \
        long long i = base + (long long)threadIdx.x * SP_ITEMS + q;                              \
        acc += w[q];                                                                             \
        if (w[q] > 0.0) {                                                                        \
            atomicMax(&lastpos, i);                                                              \
            if (acc > r) { atomicMin(&best, i); break; }                                         \
        }                                                                                        \
    }                                                                                            \
    __syncthreads();                                                                             \
    if (threadIdx.x == 0) out[d] = best != SP_LLMAX ? best : lastpos;

#define SP_SELECT_FLOAT(NAME, T)                                                                 \
extern "C" __global__ void NAME(const T* __restrict__ s, long long n, double c,                 \
                                const double* __restrict__ cmax, const double* __restrict__ P,  \
                                long long nc, const double* __restrict__ u, long long k,         \
                                long long* res) {                                                \
    SP_SELECT_BODY(exp(c * ((double)s[i] - cmax[j])))                                            \
}

SP_PASS_FLOAT(sp_pass_f64, double)
SP_PASS_FLOAT(sp_pass_f32, float)
SP_SELECT_FLOAT(sp_select_f64, double)
SP_SELECT_FLOAT(sp_select_f32, float)

// ---------------------------------------------------------------- int64 scores (exact differences)
extern "C" __global__ void sp_pass_i64(const long long* __restrict__ s, long long n, double c,
                                       long long* cmax, double* csum) {
    __shared__ long long shl[32];
    __shared__ double sh[32];
    long long base = (long long)blockIdx.x * SP_CHUNK;
    long long v[SP_ITEMS];
    long long m = SP_LLMIN;
#pragma unroll
    for (int k = 0; k < SP_ITEMS; k++) {
        long long i = base + (long long)k * SP_THREADS + threadIdx.x;
        int inside = i < n;
        long long x = inside ? s[i] : SP_LLMIN;
        v[k] = x;
        m = x > m ? x : m;
    }
    m = sp_block_max_ll(m, shl);
    double sum = 0.0;
#pragma unroll
    for (int k = 0; k < SP_ITEMS; k++) {
        long long i = base + (long long)k * SP_THREADS + threadIdx.x;
        if (i < n) sum += exp(-c * (double)((unsigned long long)m - (unsigned long long)v[k]));
    }
    sum = sp_block_sum(sum, sh);
    if (threadIdx.x == 0) {
        cmax[blockIdx.x] = m;
        csum[blockIdx.x] = sum;
    }
}

extern "C" __global__ void sp_select_i64(const long long* __restrict__ s, long long n, double c,
                                         const long long* __restrict__ cmax, const double* __restrict__ P,
                                         long long nc, const double* __restrict__ u, long long k,
                                         long long* res) {
    SP_SELECT_BODY(exp(-c * (double)((unsigned long long)cmax[j] - (unsigned long long)s[i])))
}

// ---------------------------------------------------------------- chunk combine (one block)
// Phase A: each thread's contiguous run [lo, hi) of chunks gets local inclusive sums in P; phase
// B: thread 0 scans the run totals in order (offset of run t+1 = fl(offset_t + total_t), the
// very sum that phase C gives P[hi - 1]: P is non-decreasing across runs); phase C: P += offset.
#define SP_COMBINE_BODY(WEIGHT)                                                                  \
    __shared__ double sh[SP_THREADS];                                                            \
    __shared__ long long shl[32];                                                                \
    long long seg = (nc + SP_THREADS - 1) / SP_THREADS;                                          \
    long long lo = (long long)threadIdx.x * seg;                                                 \
    long long hi = lo + seg < nc ? lo + seg : nc;                                                \
    double acc = 0.0;                                                                            \
    long long lp = -1;                                                                           \
    for (long long i = lo; i < hi; i++) {                                                        \
        double w = (WEIGHT);                                                                     \
        acc += w;                                                                                \
        P[i] = acc;                                                                              \
        if (w > 0.0) lp = i;                                                                     \
    }                                                                                            \
    sh[threadIdx.x] = acc;                                                                       \
    __syncthreads();                                                                             \
    if (threadIdx.x == 0) {                                                                      \
        double a = 0.0;                                                                          \
        for (int q = 0; q < SP_THREADS; q++) {                                                   \
            double x = sh[q];                                                                    \
            sh[q] = a;                                                                           \
            a += x;                                                                              \
        }                                                                                        \
    }                                                                                            \
    __syncthreads();                                                                             \
    double off = sh[threadIdx.x];                                                                \
    for (long long i = lo; i < hi; i++) P[i] = off + P[i];                                       \
    lp = sp_block_max_ll(lp, shl);                                                               \
    __syncthreads();                                                                             \
    if (threadIdx.x == 0) {                                                                      \
        res[k] = lp;                                                                             \
        res[k + 1] = status | (P[nc - 1] > 0.0 ? 0 : 4);                                         \
    }

// float scores (float64 and float32 chunks both have float64 maxima and flags)
extern "C" __global__ void sp_combine_f(const double* __restrict__ cmax, const double* __restrict__ csum,
                                        const int* __restrict__ cflags, long long nc, double c, double* P,
                                        long long k, long long* res) {
    __shared__ double shm[32];
    __shared__ int shf;
    if (threadIdx.x == 0) shf = 0;
    double m = -SP_INF;
    int fl = 0;
    for (long long i = threadIdx.x; i < nc; i += SP_THREADS) {
        m = fmax(m, cmax[i]);
        fl |= cflags[i];
    }
    __syncthreads();
    if (fl) atomicOr(&shf, fl);
    double M = sp_block_max(m, shm);
    long long status = shf;
    SP_COMBINE_BODY(csum[i] > 0.0 ? csum[i] * exp(c * (cmax[i] - M)) : 0.0)
}

// int64 scores: exact differences M - m_c
extern "C" __global__ void sp_combine_i64(const long long* __restrict__ cmax, const double* __restrict__ csum,
                                          long long nc, double c, double* P, long long k, long long* res) {
    __shared__ long long shm[32];
    long long m = SP_LLMIN;
    for (long long i = threadIdx.x; i < nc; i += SP_THREADS) m = cmax[i] > m ? cmax[i] : m;
    long long M = sp_block_max_ll(m, shm);
    long long status = 0;
    SP_COMBINE_BODY(csum[i] * exp(-c * (double)((unsigned long long)M - (unsigned long long)cmax[i])))
}

// ---------------------------------------------------------------- popcount error counts
extern "C" __global__ void sp_errors_packed(const unsigned long long* __restrict__ P,
                                            const unsigned long long* __restrict__ lab,
                                            long long H, long long W, long long* out) {
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= H) return;
    const unsigned long long* p = P + row * W;
    long long cnt = 0;
    for (long long w = lane; w < W; w += 32) cnt += __popcll(p[w] ^ lab[w]);
    for (int o = 16; o > 0; o >>= 1) cnt += __shfl_xor_sync(0xffffffffu, cnt, o);
    if (lane == 0) out[row] = cnt;
}

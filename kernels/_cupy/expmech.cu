// Exponential-mechanism and error-count kernels for the CuPy backend (kernels/_cupy/exponential.py).
//
// Compiled at run time by CuPy (NVRTC, cupy.RawModule) and, in CI, by `nvcc -ptx` as a
// syntax/type check.  Self-contained: no headers, extern "C" names.
//
// The algorithm is specified, and tested on the CPU, by kernels/_cupy/onepass.py (a NumPy emulation
// of these kernels: the same chunks, tiles, prefix sums and picks); the GPU tests check that this file
// gives the emulation's picks from the same uniforms.
//
// sp_pass_*    one block per chunk of SP_CHUNK = 256 * 16 scores: the chunk is read once into
//              registers; block max (warp shuffles), NaN / +inf flags, and the block sum of
//              exp(c (s_i - m_chunk)) -- a fused block-level log-sum-exp (the only full read).
// sp_tiles_*   one block per tile of SP_TILE = 256 chunks, one thread per chunk: the tile maximum
//              M_t, T_t = sum_j S_j exp(c (m_j - M_t)) and the tile's flags.
// sp_select_*  one block per draw (block b computes draw perm[b] when the host sorted the tile
//              uniforms, else draw b): the status, then three inversions with sp_block_pick: a tile
//              (weights T_t exp(c (M_t - M)), M the maximum of the M_t), a chunk of it (weights
//              S_j exp(c (m_j - M_t))), an entry of that chunk, re-read (weights exp(c (s_i - m_j))).
//              Block 0 writes the status word (1: NaN, 2: +inf present, 4: total not > 0); nothing
//              is drawn when it is not 0.
// sp_block_pick  one block's monotone inversion: contiguous runs per thread summed in order, run
//              totals scanned in order by one thread, so the prefix values never decrease; the first
//              prefix above u * total (a positive weight), else the last positive weight.
// sp_errors_packed  one warp per hypothesis row: sum of __popcll(row[w] ^ labels[w]).

#ifndef SP_THREADS  // a test build on the CPU (tests/kernels/exponential) may shrink the blocks
#define SP_THREADS 256
#endif
#ifndef SP_ITEMS
#define SP_ITEMS 16
#endif
#define SP_CHUNK (SP_THREADS * SP_ITEMS)
#define SP_TILE SP_THREADS
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

SP_PASS_FLOAT(sp_pass_f64, double)
SP_PASS_FLOAT(sp_pass_f32, float)

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

// ---------------------------------------------------------------- monotone block pick
// Inversion of n >= 0 non-negative weights w(i), i in [0, n), by the whole block with the uniform u.
// Thread t owns the run [t seg, (t + 1) seg) and sums it in order; thread 0 scans the run totals in
// order (off_{t+1} = fl(off_t + total_t)), so the prefix P_i = fl(off_t + local_i) is non-decreasing
// and P_last = total.  Returns (to every thread) the first i with P_i > u * total -- its weight is
// positive -- or, when u * total rounds up to total, the last i with w(i) > 0; -1 when total is not > 0.
// sh: SP_THREADS + 1 doubles; shl: 32 long longs; shp: one long long (all shared).
template <class W>
__device__ long long sp_block_pick(long long n, const W& w, double u, double* sh, long long* shl, long long* shp) {
    long long seg = (n + SP_THREADS - 1) / SP_THREADS;
    long long lo = (long long)threadIdx.x * seg;
    if (lo > n) lo = n;
    long long hi = lo + seg < n ? lo + seg : n;
    double acc = 0.0;
    long long lp = -1;
    for (long long i = lo; i < hi; i++) {
        double x = w(i);
        acc += x;
        if (x > 0.0) lp = i;
    }
    sh[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        double a = 0.0;
        for (int q = 0; q < SP_THREADS; q++) {
            double x = sh[q];
            sh[q] = a;
            a += x;
        }
        sh[SP_THREADS] = a;
        *shp = SP_LLMAX;
    }
    __syncthreads();
    double off = sh[threadIdx.x];
    double total = sh[SP_THREADS];
    double r = u * total;
    if (total > 0.0 && hi > lo && off + acc > r) {  // this run holds a prefix above r
        double a = 0.0;
        for (long long i = lo; i < hi; i++) {
            double x = w(i);
            a += x;
            if (x > 0.0 && off + a > r) {
                atomicMin((unsigned long long*)shp, (unsigned long long)i);
                break;
            }
        }
    }
    lp = sp_block_max_ll(lp, shl);  // synchronises, so *shp is final below
    long long pick = *shp != SP_LLMAX ? *shp : lp;
    __syncthreads();  // sh, shl and shp are reused by the next pick
    return total > 0.0 ? pick : -1;
}

// The weights of the three levels.  Float scores: double maxima; int64 scores: exact differences.
struct SpScaledF {  // S_j exp(c (m_j - M)) where S_j > 0, else 0 (tiles, and chunks of a tile)
    const double* m; const double* S; double c; double M;
    __device__ double operator()(long long i) const { return S[i] > 0.0 ? S[i] * exp(c * (m[i] - M)) : 0.0; }
};
struct SpScaledI {
    const long long* m; const double* S; double c; long long M;
    __device__ double operator()(long long i) const {
        return S[i] > 0.0 ? S[i] * exp(-c * (double)((unsigned long long)M - (unsigned long long)m[i])) : 0.0;
    }
};
template <class T>
struct SpEntryF {  // exp(c (s_i - m)) over one chunk
    const T* s; double c; double m;
    __device__ double operator()(long long i) const { return exp(c * ((double)s[i] - m)); }
};
struct SpEntryI {
    const long long* s; double c; long long m;
    __device__ double operator()(long long i) const {
        return exp(-c * (double)((unsigned long long)m - (unsigned long long)s[i]));
    }
};

// ---------------------------------------------------------------- tiles (one block per tile)
extern "C" __global__ void sp_tiles_f(const double* __restrict__ cmax, const double* __restrict__ csum,
                                      const int* __restrict__ cflags, long long nc, double c, double* tmax,
                                      double* tsum, int* tflags) {
    __shared__ double sh[32];
    __shared__ int shf;
    long long j = (long long)blockIdx.x * SP_TILE + threadIdx.x;
    int inside = j < nc;
    double m = inside ? cmax[j] : -SP_INF;
    if (threadIdx.x == 0) shf = 0;
    __syncthreads();
    if (inside && cflags[j]) atomicOr(&shf, cflags[j]);
    double M = sp_block_max(m, sh);  // synchronises: shf is final
    double w = (inside && csum[j] > 0.0) ? csum[j] * exp(c * (m - M)) : 0.0;
    double T = sp_block_sum(w, sh);
    if (threadIdx.x == 0) {
        tmax[blockIdx.x] = M;
        tsum[blockIdx.x] = T;
        tflags[blockIdx.x] = shf;
    }
}

extern "C" __global__ void sp_tiles_i64(const long long* __restrict__ cmax, const double* __restrict__ csum,
                                        long long nc, double c, long long* tmax, double* tsum) {
    __shared__ double sh[32];
    __shared__ long long shl[32];
    long long j = (long long)blockIdx.x * SP_TILE + threadIdx.x;
    int inside = j < nc;
    long long m = inside ? cmax[j] : SP_LLMIN;
    long long M = sp_block_max_ll(m, shl);
    double w = (inside && csum[j] > 0.0)
        ? csum[j] * exp(-c * (double)((unsigned long long)M - (unsigned long long)m)) : 0.0;
    double T = sp_block_sum(w, sh);
    if (threadIdx.x == 0) {
        tmax[blockIdx.x] = M;
        tsum[blockIdx.x] = T;
    }
}

// ---------------------------------------------------------------- select (one block per draw)
// u[0, k): tiles, u[k, 2k): chunks, u[2k, 3k): entries; res[0, k): the draws, res[k]: the status.
// The tile of draw d is picked among the nt tiles with the maximum M of the tile maxima; the status
// (every block computes it, block 0 writes it) is the tiles' flags, or 4 when no weight is positive.
#define SP_SELECT_LEVELS(SCALED, ENTRY)                                                          \
    if (blockIdx.x == 0 && threadIdx.x == 0) res[k] = status;                                    \
    long long t = status ? -1 : sp_block_pick(nt, SCALED{tmax, tsum, c, M}, u[d], sh, shl, &shp); \
    if (t < 0) {                                                                                 \
        if (threadIdx.x == 0) res[d] = -1;                                                       \
        return;                                                                                  \
    }                                                                                            \
    long long cb = t * SP_TILE;                                 /* the chunks of tile t */       \
    long long ncl = nc - cb < SP_TILE ? nc - cb : SP_TILE;                                       \
    long long j = cb + sp_block_pick(ncl, SCALED{cmax + cb, csum + cb, c, tmax[t]}, u[k + d], sh, shl, &shp); \
    long long eb = j * SP_CHUNK;                                /* the entries of chunk j */     \
    long long nel = n - eb < SP_CHUNK ? n - eb : SP_CHUNK;                                       \
    long long i = eb + sp_block_pick(nel, ENTRY{s + eb, c, cmax[j]}, u[2 * k + d], sh, shl, &shp); \
    if (threadIdx.x == 0) res[d] = i;

#define SP_SELECT_FLOAT(NAME, T)                                                                 \
extern "C" __global__ void NAME(const T* __restrict__ s, long long n, double c,                 \
                                const double* __restrict__ cmax, const double* __restrict__ csum,\
                                long long nc, const double* __restrict__ tmax,                  \
                                const double* __restrict__ tsum, const int* __restrict__ tflags, \
                                long long nt, const double* __restrict__ u,                     \
                                const long long* __restrict__ perm, int use_perm, long long k,  \
                                long long* res) {                                                \
    __shared__ double sh[SP_THREADS + 1];                                                        \
    __shared__ long long shl[32];                                                                \
    __shared__ long long shp;                                                                    \
    __shared__ int shf;                                                                          \
    long long d = use_perm ? perm[blockIdx.x] : (long long)blockIdx.x;                           \
    if (threadIdx.x == 0) shf = 0;                                                               \
    double m = -SP_INF;                                                                          \
    int fl = 0;                                                                                  \
    for (long long q = threadIdx.x; q < nt; q += SP_THREADS) {                                   \
        m = fmax(m, tmax[q]);                                                                    \
        fl |= tflags[q];                                                                         \
    }                                                                                            \
    __syncthreads();                                                                             \
    if (fl) atomicOr(&shf, fl);                                                                  \
    double M = sp_block_max(m, sh);                             /* synchronises: shf is final */ \
    long long status = shf;                                                                      \
    if (status == 0) {                                                                           \
        double a = 0.0;                                                                          \
        for (long long q = threadIdx.x; q < nt; q += SP_THREADS)                                 \
            a += tsum[q] > 0.0 ? tsum[q] * exp(c * (tmax[q] - M)) : 0.0;                         \
        if (!(sp_block_sum(a, sh) > 0.0)) status = 4;                                            \
    }                                                                                            \
    SP_SELECT_LEVELS(SpScaledF, SpEntryF<T>)                                                     \
}

SP_SELECT_FLOAT(sp_select_f64, double)
SP_SELECT_FLOAT(sp_select_f32, float)

extern "C" __global__ void sp_select_i64(const long long* __restrict__ s, long long n, double c,
                                         const long long* __restrict__ cmax, const double* __restrict__ csum,
                                         long long nc, const long long* __restrict__ tmax,
                                         const double* __restrict__ tsum, long long nt,
                                         const double* __restrict__ u, const long long* __restrict__ perm,
                                         int use_perm, long long k, long long* res) {
    __shared__ double sh[SP_THREADS + 1];
    __shared__ long long shl[32];
    __shared__ long long shp;
    long long d = use_perm ? perm[blockIdx.x] : (long long)blockIdx.x;
    long long m = SP_LLMIN;
    for (long long q = threadIdx.x; q < nt; q += SP_THREADS) m = tmax[q] > m ? tmax[q] : m;
    long long M = sp_block_max_ll(m, shl);
    double a = 0.0;
    for (long long q = threadIdx.x; q < nt; q += SP_THREADS)
        a += tsum[q] > 0.0 ? tsum[q] * exp(-c * (double)((unsigned long long)M - (unsigned long long)tmax[q])) : 0.0;
    long long status = sp_block_sum(a, sh) > 0.0 ? 0 : 4;
    SP_SELECT_LEVELS(SpScaledI, SpEntryI)
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

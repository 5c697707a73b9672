// Exponential-mechanism and error-count kernels for the CuPy backend (kernels/_cupy/exponential.py).
//
// Compiled at run time by CuPy (NVRTC, cupy.RawModule) and, in CI, by `nvcc -ptx` as a
// syntax/type check.  Self-contained: no headers, extern "C" names.
//
// sp_pass_*   one block per chunk of SP_CHUNK = 256 * 16 scores: the chunk is read once into
//             registers; block max (warp shuffles), NaN / +inf flags, and the block sum of
//             exp(c (s_i - m_chunk)) -- a fused block-level log-sum-exp.
// sp_select_* one block per draw: recompute the chosen chunk's weights, block prefix sum,
//             pick the first entry whose cumulative weight exceeds u2 * total (only positive
//             weights can be picked; if rounding leaves none, the last positive entry).
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

#define SP_SELECT_BODY(LOAD_WEIGHT)                                                              \
    __shared__ double sh[SP_THREADS];                                                            \
    __shared__ long long best, lastpos;                                                          \
    long long d = blockIdx.x;                                                                    \
    long long j = jidx[d];                                                                       \
    long long base = j * SP_CHUNK;                                                               \
    double w[SP_ITEMS];                                                                          \
    double loc = 0.0;                                                                            \
    for (int k = 0; k < SP_ITEMS; k++) {                                                         \
        long long i = base + (long long)threadIdx.x * SP_ITEMS + k;                              \
        w[k] = i < n ? (LOAD_WEIGHT) : 0.0;                                                      \
        loc += w[k];                                                                             \
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
    for (int k = 0; k < SP_ITEMS; k++) {                                                         \
        long long i = base + (long long)threadIdx.x * SP_ITEMS + k;                              \
        acc += w[k];                                                                             \
        if (w[k] > 0.0) {                                                                        \
            atomicMax(&lastpos, i);                                                              \
            if (acc > r) { atomicMin(&best, i); break; }                                         \
        }                                                                                        \
    }                                                                                            \
    __syncthreads();                                                                             \
    if (threadIdx.x == 0) out[d] = best != SP_LLMAX ? best : lastpos;

#define SP_SELECT_FLOAT(NAME, T)                                                                 \
extern "C" __global__ void NAME(const T* __restrict__ s, long long n, double c,                 \
                                const double* __restrict__ cmax, const long long* __restrict__ jidx, \
                                const double* __restrict__ u2, long long* out) {                 \
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
                                         const long long* __restrict__ cmax, const long long* __restrict__ jidx,
                                         const double* __restrict__ u2, long long* out) {
    SP_SELECT_BODY(exp(-c * (double)((unsigned long long)cmax[j] - (unsigned long long)s[i])))
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

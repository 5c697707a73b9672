// Runs kernels/_cupy/expmech.cu on the CPU, for tests only: every CUDA thread of a block is a fiber
// (ucontext) of one OS thread, __syncthreads a fiber barrier, a warp shuffle an exchange through a per-block
// buffer, __shared__ variables function statics (blocks run one after another).  Built by
// test_cuda_source_on_cpu.py with small blocks (-DSP_THREADS=32 -DSP_ITEMS=2: chunks of 64, tiles of 32).
// A fiber runs until it waits at a barrier, so a thread that reads shared memory before the barrier that
// should order it reads what the threads after it have not written yet: a missing barrier shows on every
// run.  The fibers switch only at barriers, on one OS thread: the emulation's cost does not depend on the
// machine's load (32 std::threads per block waiting on std::barriers did, badly, on a busy 2-core machine).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <ucontext.h>
#include <vector>
#define SP_THREADS_CPU SP_THREADS

struct dim3 { unsigned x, y, z; };
static dim3 threadIdx, blockIdx;
static const dim3 blockDim = {SP_THREADS_CPU, 1, 1};

// The fibers of the running block: fiber t is CUDA thread t; the scheduler resumes them in turn.
static ucontext_t sp_sched;
static ucontext_t sp_fiber[SP_THREADS_CPU];
static char sp_done[SP_THREADS_CPU];
static std::vector<char> sp_stacks;
static const std::size_t SP_STACK = 256 * 1024;
static int sp_current;
static unsigned long long sp_progress;  // arrivals and finished fibers: a round without any is a deadlock
static const std::function<void()>* sp_body;

struct sp_barrier {  // n fibers: the last to arrive opens it; the others wait for the next generation
    int n, count = 0;
    unsigned long long gen = 0;
    explicit sp_barrier(int n_) : n(n_) {}
    void arrive_and_wait() {
        unsigned long long g = gen;
        sp_progress++;
        if (++count == n) { count = 0; gen++; return; }
        int me = sp_current;
        while (gen == g) swapcontext(&sp_fiber[me], &sp_sched);
    }
};
static sp_barrier sp_block_barrier(SP_THREADS_CPU);
static std::vector<sp_barrier> sp_warp_barriers(SP_THREADS_CPU / 32, sp_barrier(32));

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
inline void __syncthreads() { sp_block_barrier.arrive_and_wait(); }
inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
template <class T> T __shfl_xor_sync(unsigned, T v, int o) {
    static T buf[1024];
    auto& wb = sp_warp_barriers[threadIdx.x / 32];
    buf[threadIdx.x] = v;
    wb.arrive_and_wait();
    T r = buf[threadIdx.x ^ o];
    wb.arrive_and_wait();
    return r;
}
// Fibers switch only at barriers, so a read-modify-write is atomic as it stands.
inline int atomicOr(int* a, int v) { int o = *a; *a |= v; return o; }
inline unsigned long long atomicMin(unsigned long long* a, unsigned long long v) {
    unsigned long long o = *a; if (v < o) *a = v; return o;
}
using std::exp;
using std::fmax;

#include "../../../kernels/_cupy/expmech.cu"

static void sp_fiber_main() {
    (*sp_body)();
    sp_done[sp_current] = 1;
    sp_progress++;
}  // returns to the scheduler through uc_link

static void launch(long long blocks, const std::function<void()>& body) {
    if (sp_stacks.empty()) sp_stacks.resize(SP_STACK * SP_THREADS);
    sp_body = &body;
    for (long long b = 0; b < blocks; b++) {
        blockIdx = {(unsigned)b, 0, 0};
        sp_block_barrier = sp_barrier(SP_THREADS);
        for (auto& w : sp_warp_barriers) w = sp_barrier(32);
        for (int t = 0; t < SP_THREADS; t++) {
            getcontext(&sp_fiber[t]);
            sp_fiber[t].uc_stack.ss_sp = sp_stacks.data() + SP_STACK * t;
            sp_fiber[t].uc_stack.ss_size = SP_STACK;
            sp_fiber[t].uc_link = &sp_sched;
            makecontext(&sp_fiber[t], sp_fiber_main, 0);
            sp_done[t] = 0;
        }
        for (int left = SP_THREADS; left > 0;) {  // resume every unfinished fiber in turn, thread 0 first
            unsigned long long before = sp_progress;
            for (int t = 0; t < SP_THREADS; t++) {
                if (sp_done[t]) continue;
                sp_current = t;
                threadIdx = {(unsigned)t, 0, 0};
                swapcontext(&sp_sched, &sp_fiber[t]);
                left -= sp_done[t];
            }
            if (left > 0 && sp_progress == before) std::abort();  // every thread waits: a divergent barrier
        }
    }
}

// The host sequence of kernels/_cupy/exponential.py: pass, tiles, select; kind 0 float64, 1 float32, 2 int64.
// res: k draws then the status.
extern "C" int sp_cpu_sample(int kind, const void* s, long long n, double c, const double* u, long long k,
                             const long long* perm, int use_perm, long long* res) {
    long long nc = (n + SP_CHUNK - 1) / SP_CHUNK, nt = (nc + SP_TILE - 1) / SP_TILE;
    std::vector<double> csum(nc), tsum(nt);
    std::vector<int> cflags(nc), tflags(nt);
    const long long* pp = use_perm ? perm : res;
    if (kind == 2) {
        const long long* si = (const long long*)s;
        std::vector<long long> cmax(nc), tmax(nt);
        launch(nc, [&] { sp_pass_i64(si, n, c, cmax.data(), csum.data()); });
        launch(nt, [&] { sp_tiles_i64(cmax.data(), csum.data(), nc, c, tmax.data(), tsum.data()); });
        launch(k, [&] { sp_select_i64(si, n, c, cmax.data(), csum.data(), nc, tmax.data(), tsum.data(), nt, u, pp,
                                      use_perm, k, res); });
        return SP_CHUNK;
    }
    std::vector<double> cmax(nc), tmax(nt);
    if (kind == 0) launch(nc, [&] { sp_pass_f64((const double*)s, n, c, cmax.data(), csum.data(), cflags.data()); });
    else launch(nc, [&] { sp_pass_f32((const float*)s, n, c, cmax.data(), csum.data(), cflags.data()); });
    launch(nt, [&] { sp_tiles_f(cmax.data(), csum.data(), cflags.data(), nc, c, tmax.data(), tsum.data(),
                                tflags.data()); });
    if (kind == 0)
        launch(k, [&] { sp_select_f64((const double*)s, n, c, cmax.data(), csum.data(), nc, tmax.data(), tsum.data(),
                                      tflags.data(), nt, u, pp, use_perm, k, res); });
    else
        launch(k, [&] { sp_select_f32((const float*)s, n, c, cmax.data(), csum.data(), nc, tmax.data(), tsum.data(),
                                      tflags.data(), nt, u, pp, use_perm, k, res); });
    return SP_CHUNK;
}

// One launch of one kernel (grid blocks of SP_THREADS threads), for the host sequence of
// kernels/_cupy/exponential.py itself, run against a stand-in CuPy (test_cupy_host_sequence_on_cpu.py).
extern "C" void sp_cpu_pass_f(int f32, long long grid, const void* s, long long n, double c, double* cmax,
                              double* csum, int* cflags) {
    if (f32) launch(grid, [&] { sp_pass_f32((const float*)s, n, c, cmax, csum, cflags); });
    else launch(grid, [&] { sp_pass_f64((const double*)s, n, c, cmax, csum, cflags); });
}
extern "C" void sp_cpu_tiles_f(long long grid, const double* cmax, const double* csum, const int* cflags,
                               long long nc, double c, double* tmax, double* tsum, int* tflags) {
    launch(grid, [&] { sp_tiles_f(cmax, csum, cflags, nc, c, tmax, tsum, tflags); });
}
extern "C" void sp_cpu_select_f(int f32, long long grid, const void* s, long long n, double c, const double* cmax,
                                const double* csum, long long nc, const double* tmax, const double* tsum,
                                const int* tflags, long long nt, const double* u, const long long* perm,
                                int use_perm, long long k, long long* res) {
    if (f32)
        launch(grid, [&] { sp_select_f32((const float*)s, n, c, cmax, csum, nc, tmax, tsum, tflags, nt, u, perm,
                                         use_perm, k, res); });
    else
        launch(grid, [&] { sp_select_f64((const double*)s, n, c, cmax, csum, nc, tmax, tsum, tflags, nt, u, perm,
                                         use_perm, k, res); });
}
extern "C" void sp_cpu_pass_i64(long long grid, const long long* s, long long n, double c, long long* cmax,
                                double* csum) {
    launch(grid, [&] { sp_pass_i64(s, n, c, cmax, csum); });
}
extern "C" void sp_cpu_tiles_i64(long long grid, const long long* cmax, const double* csum, long long nc, double c,
                                 long long* tmax, double* tsum) {
    launch(grid, [&] { sp_tiles_i64(cmax, csum, nc, c, tmax, tsum); });
}
extern "C" void sp_cpu_select_i64(long long grid, const long long* s, long long n, double c, const long long* cmax,
                                  const double* csum, long long nc, const long long* tmax, const double* tsum,
                                  long long nt, const double* u, const long long* perm, int use_perm, long long k,
                                  long long* res) {
    launch(grid, [&] { sp_select_i64(s, n, c, cmax, csum, nc, tmax, tsum, nt, u, perm, use_perm, k, res); });
}

/* The kernel side of the CUDA emulation (C++, included by the emulated cuda_runtime.h): the
 * qualifiers, the built-in index variables, atomics and the launch that FOX_LAUNCH
 * (kernels/fox_launch.h) expands to. A launch checks the configuration against the device
 * limits and every pointer argument against the allocation table, then gives the kernel, its
 * arguments copied, to its stream as an op (engine.c): it runs when CUDA's ordering lets it,
 * on the calling thread or on the stream's worker. The op's accesses, for the sanitizer: a
 * pointer argument to const is a read of its allocation, any other pointer a write, and any
 * device address inside a struct argument a write too (what a kernel does through it is not
 * seen), and the arrays the launch declares (cuda_emu_launch_touch: a table's). Blocks run in
 * an order drawn per launch (in order, reversed, or shuffled; a device
 * promises none), and each block's threads in order or reversed, so a kernel whose threads or
 * blocks lean on each other without a barrier gives itself away.
 *
 * A kernel that calls __syncthreads is launched with FOX_LAUNCH_SYNC (fox_launch.h): then each
 * block's threads run as host threads that meet at a barrier at every __syncthreads, blocks
 * one after another; such a kernel may not use the atomics below (they are atomic only among
 * threads that run one at a time) and shares data through device memory (global memory is
 * visible to the whole block after __syncthreads, as on a device). __syncthreads in a kernel
 * launched plainly aborts naming it. Shared memory and warp intrinsics remain compile
 * errors. */
#ifndef FOX_CUDA_EMU_LAUNCH_H
#define FOX_CUDA_EMU_LAUNCH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda_emu.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ _Pragma("GCC error \"cuda-emu: no shared memory (cuda_emu_launch.h)\"")
#define __syncthreads() cuda_emu::syncthreads_()

/* One set per host thread: a kernel runs on whichever thread serves its stream. */
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;
constexpr int warpSize = 32;

namespace cuda_emu {
/* The barrier of the block the calling thread runs in (FOX_LAUNCH_SYNC), and its kernel. */
inline thread_local pthread_barrier_t *block_barrier_;
inline thread_local const char *sync_kernel_;

inline void syncthreads_() {
  if (!block_barrier_) {
    fprintf(stderr, "cuda-emu: %s calls __syncthreads but was not launched with FOX_LAUNCH_SYNC "
                    "(kernels/fox_launch.h)\n", sync_kernel_ ? sync_kernel_ : "a kernel");
    abort();
  }
  pthread_barrier_wait(block_barrier_);
}
} // namespace cuda_emu

/* The host's memory is coherent and a launch's threads run one at a time: a fence has nothing
 * to order. */
inline void __threadfence() {}

/* A block's threads run one at a time, so a read-modify-write is atomic as it stands. */
template <typename T> inline T atomicAdd(T *a, T v) {
  T old = *a;
  *a = old + v;
  return old;
}
template <typename T> inline T atomicSub(T *a, T v) {
  T old = *a;
  *a = old - v;
  return old;
}
template <typename T> inline T atomicExch(T *a, T v) {
  T old = *a;
  *a = v;
  return old;
}
template <typename T> inline T atomicMin(T *a, T v) {
  T old = *a;
  *a = v < old ? v : old;
  return old;
}
template <typename T> inline T atomicMax(T *a, T v) {
  T old = *a;
  *a = v > old ? v : old;
  return old;
}
template <typename T> inline T atomicCAS(T *a, T compare, T v) {
  T old = *a;
  *a = old == compare ? v : old;
  return old;
}

extern "C" {
/* 0: go on. Otherwise the launch error (bad configuration) is recorded for cudaGetLastError
 * and nothing runs. Aborts on a dead stream or on an earlier launch of this thread that no
 * cudaGetLastError / cudaPeekAtLastError followed. */
int cuda_emu_launch_begin(const char *kernel, const char *file, int line, dim3 grid, dim3 block,
                          size_t shmem, cudaStream_t stream);
/* Aborts unless ptr is NULL or inside a live device allocation. */
void cuda_emu_launch_arg(const char *kernel, const char *file, int line, int index,
                         const void *ptr);
/* The next launch of this thread reaches the allocation holding p (a read, or a write) besides
 * its arguments: an array a table in device memory points to, which the launch cannot show.
 * The launch checks each is live device memory and gives it to the sanitizer as its access
 * (a graph's replay then checks it is still that allocation); `what` names it in a report. */
void cuda_emu_launch_touch(const void *p, int write, const char *what);
/* The declared accesses into op (NULL: checked and dropped, a refused launch's). */
void cuda_emu_launch_touches(struct emu_op *op);
/* A seeded draw per launch: the order its blocks and threads run in. */
uint64_t cuda_emu_launch_draw(void);
}

namespace cuda_emu {

template <typename T>
inline void check_arg_(const char *kernel, const char *file, int line, int index, const T &v) {
  if constexpr (std::is_pointer<T>::value)
    cuda_emu_launch_arg(kernel, file, line, index, (const void *)v);
}

inline const char *arg_name_(int index) {
  static const char *names[] = {"argument 1", "argument 2",  "argument 3",  "argument 4",
                                "argument 5", "argument 6",  "argument 7",  "argument 8",
                                "argument 9", "argument 10", "argument 11", "argument 12",
                                "argument 13", "argument 14", "argument 15", "argument 16",
                                "argument 17", "argument 18", "argument 19", "argument 20"};
  return index < 20 ? names[index] : "an argument";
}

/* The sanitizer's view of one argument. */
template <typename T> inline void access_(struct emu_op *op, int index, const T &v) {
  if constexpr (std::is_pointer<T>::value) {
    cuda_emu_op_access(op, (const void *)v, 0,
                       !std::is_const<typename std::remove_pointer<T>::type>::value,
                       arg_name_(index));
  } else if constexpr (sizeof(T) >= sizeof(void *)) {
    /* A struct passed by value may carry device addresses (a replay ring, a rollout). */
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&v);
    for (size_t k = 0; k + sizeof(void *) <= sizeof(T); k += alignof(void *)) {
      const void *p;
      memcpy(&p, b + k, sizeof p);
      if (p && cuda_emu_is_device(p))
        cuda_emu_op_access(op, p, 0, 1, arg_name_(index));
    }
  }
}

template <typename... P> struct launch {
  /* What nvcc demands of a kernel's parameters: copied bytes, at most 32764 of them (CUDA 12.1+
   * on Volta and later). */
  static_assert((std::is_trivially_copyable<P>::value && ...),
                "cuda-emu: a kernel parameter must be trivially copyable");
  static_assert((sizeof(P) + ... + 0) <= 32764, "cuda-emu: kernel parameters exceed 32764 bytes");

  void (*kernel)(P...);
  const char *name, *file;
  int line;
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
  bool sync; /* FOX_LAUNCH_SYNC: a block's threads as host threads at a barrier */

  /* What a stream runs: the kernel, its arguments as given, the order drawn at the launch. */
  struct closure {
    void (*kernel)(P...);
    const char *name;
    dim3 grid, block;
    bool sync;
    uint64_t draw;
    std::tuple<P...> argv;

    static void run(struct emu_op *op) {
      closure *c = static_cast<closure *>(op->ctx);
      std::apply([c](const P &...a) { c->execute(a...); }, c->argv);
    }
    static void drop(void *ctx) { delete static_cast<closure *>(ctx); }
    static void *clone(const void *ctx) { return new closure(*static_cast<const closure *>(ctx)); }

    /* Block b of the order drawn: in order, reversed, or a seeded shuffle. */
    void execute(P... args) const {
      unsigned nb = grid.x * grid.y * grid.z;
      std::vector<unsigned> order;
      int mode = (int)(draw % 3);
      if (mode == 2) {
        order.resize(nb);
        for (unsigned i = 0; i < nb; i++)
          order[i] = i;
        uint64_t r = draw;
        for (unsigned i = nb; i > 1; i--) {
          r = r * 6364136223846793005ULL + 1442695040888963407ULL;
          unsigned j = (unsigned)((r >> 33) % i);
          unsigned t = order[i - 1];
          order[i - 1] = order[j];
          order[j] = t;
        }
      }
      bool back = (draw >> 8) & 1;
      gridDim = grid;
      blockDim = block;
      sync_kernel_ = name;
      for (unsigned k = 0; k < nb; k++) {
        unsigned b = mode == 0 ? k : mode == 1 ? nb - 1 - k : order[k];
        uint3 bi{b % grid.x, b / grid.x % grid.y, b / (grid.x * grid.y)};
        if (sync)
          run_block_sync_(bi, args...);
        else
          run_block_(bi, back, args...);
      }
    }

    void run_block_(uint3 bi, bool back, P... args) const {
      blockIdx = bi;
      unsigned nt = block.x * block.y * block.z;
      for (unsigned k = 0; k < nt; k++) {
        unsigned t = back ? nt - 1 - k : k;
        threadIdx = uint3{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
        kernel(args...);
      }
    }

    void run_block_sync_(uint3 bi, P... args) const {
      unsigned n = block.x * block.y * block.z;
      pthread_barrier_t bar;
      pthread_barrier_init(&bar, NULL, n);
      std::vector<std::thread> threads;
      threads.reserve(n);
      for (unsigned t = 0; t < n; t++)
        threads.emplace_back([&, t] {
          gridDim = grid;
          blockDim = block;
          blockIdx = bi;
          threadIdx = uint3{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
          block_barrier_ = &bar;
          sync_kernel_ = name;
          kernel(args...);
          block_barrier_ = nullptr;
        });
      for (auto &th : threads)
        th.join();
      pthread_barrier_destroy(&bar);
    }
  };

  /* The arguments convert to the kernel's parameter types as in a real launch. */
  void operator()(P... args) const {
    if (cuda_emu_launch_begin(name, file, line, grid, block, shmem, stream) != 0) {
      cuda_emu_launch_touches(NULL);
      return;
    }
    int index = 0;
    (check_arg_(name, file, line, index++, args), ...);
    struct emu_op *op = cuda_emu_op_new(EMU_OP_KERNEL, "kernel %s", name);
    op->kernel = name;
    op->threads = (uint64_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    index = 0;
    (access_(op, index++, args), ...);
    cuda_emu_launch_touches(op);
    op->ctx = new closure{kernel, name, grid, block, sync, cuda_emu_launch_draw(),
                          std::tuple<P...>(args...)};
    op->run = &closure::run;
    op->drop = &closure::drop;
    op->clone = &closure::clone;
    cuda_emu_submit(stream, 0, op, 0);
  }
};

template <typename... P>
inline launch<P...> launcher(void (*kernel)(P...), const char *name, const char *file, int line,
                             dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                             bool sync = false) {
  /* A launch on stream 0 goes to this translation unit's NULL stream. */
  return launch<P...>{kernel,         name, file, line, grid, block, shmem,
                      stream ? stream : CUDA_EMU_NULL_STREAM, sync};
}

} // namespace cuda_emu

#endif

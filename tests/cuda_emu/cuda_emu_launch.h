/* The kernel side of the CUDA emulation (C++, included by the emulated cuda_runtime.h): the
 * qualifiers, the built-in index variables, atomics and the launch that FOX_LAUNCH
 * (kernels/fox_launch.h) expands to. A launch checks the configuration against the device
 * limits and every pointer argument against the allocation table, then runs the grid on the
 * calling thread: blocks in order, each block's threads in order, each thread a plain call.
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
#include <stdio.h>
#include <stdlib.h>

#include <thread>
#include <type_traits>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ _Pragma("GCC error \"cuda-emu: no shared memory (cuda_emu_launch.h)\"")
#define __syncthreads() cuda_emu::syncthreads_()

/* One set per host thread: trials launch from their own threads, as on a device. */
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
/* 0: run the grid. Otherwise the launch error (bad configuration) is recorded for
 * cudaGetLastError and nothing runs. Aborts on a dead stream or on an earlier launch of this
 * thread that no cudaGetLastError / cudaPeekAtLastError followed. */
int cuda_emu_launch_begin(const char *kernel, const char *file, int line, dim3 grid, dim3 block,
                          size_t shmem, cudaStream_t stream);
/* Aborts unless ptr is NULL or inside a live device allocation. */
void cuda_emu_launch_arg(const char *kernel, const char *file, int line, int index,
                         const void *ptr);
}

namespace cuda_emu {

template <typename T>
inline void check_arg_(const char *kernel, const char *file, int line, int index, const T &v) {
  if constexpr (std::is_pointer<T>::value)
    cuda_emu_launch_arg(kernel, file, line, index, (const void *)v);
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

  /* The arguments convert to the kernel's parameter types as in a real launch. */
  void operator()(P... args) const {
    if (cuda_emu_launch_begin(name, file, line, grid, block, shmem, stream) != 0)
      return;
    int index = 0;
    (check_arg_(name, file, line, index++, args), ...);
    gridDim = grid;
    blockDim = block;
    sync_kernel_ = name;
    if (sync) {
      run_sync_(args...);
      return;
    }
    for (unsigned bz = 0; bz < grid.z; bz++)
      for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
          blockIdx = uint3{bx, by, bz};
          for (unsigned tz = 0; tz < block.z; tz++)
            for (unsigned ty = 0; ty < block.y; ty++)
              for (unsigned tx = 0; tx < block.x; tx++) {
                threadIdx = uint3{tx, ty, tz};
                kernel(args...);
              }
        }
  }

  void run_sync_(P... args) const {
    unsigned n = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; bz++)
      for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
          pthread_barrier_t bar;
          pthread_barrier_init(&bar, NULL, n);
          std::vector<std::thread> threads;
          threads.reserve(n);
          for (unsigned t = 0; t < n; t++)
            threads.emplace_back([&, t] {
              gridDim = grid;
              blockDim = block;
              blockIdx = uint3{bx, by, bz};
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
  }
};

template <typename... P>
inline launch<P...> launcher(void (*kernel)(P...), const char *name, const char *file, int line,
                             dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                             bool sync = false) {
  return launch<P...>{kernel, name, file, line, grid, block, shmem, stream, sync};
}

} // namespace cuda_emu

#endif

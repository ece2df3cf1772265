/* FOX_LAUNCH(kernel, grid, block, shmem, stream, args...): every kernel launch in foxopt. Under
 * nvcc it is kernel<<<grid, block, shmem, stream>>>(args...); in the host emulation
 * (FOXOPT_CUDA_EMU, tests/cuda_emu/) the same sources compile as C++ and it becomes a checked
 * loop over the grid. Like <<<...>>>, it is followed by cudaCheckLaunch. FOX_LAUNCH_SYNC launches a
 * kernel that calls __syncthreads: the same under nvcc; in the emulation each block's threads
 * then run concurrently and meet at a barrier (tests/cuda_emu/cuda_emu_launch.h). */
#ifndef FOX_LAUNCH_H
#define FOX_LAUNCH_H

#include <cuda_runtime.h>

#if defined(__CUDACC__)
#define FOX_LAUNCH(kernel, grid, block, shmem, stream, ...)                                     \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#define FOX_LAUNCH_SYNC FOX_LAUNCH
#elif defined(FOX_CUDA_EMU)
#define FOX_LAUNCH(kernel, grid, block, shmem, stream, ...)                                     \
  cuda_emu::launcher(kernel, #kernel, __FILE__, __LINE__, (grid), (block), (shmem),             \
                     (stream))(__VA_ARGS__)
#define FOX_LAUNCH_SYNC(kernel, grid, block, shmem, stream, ...)                                \
  cuda_emu::launcher(kernel, #kernel, __FILE__, __LINE__, (grid), (block), (shmem), (stream),   \
                     true)(__VA_ARGS__)
#endif

/* FOX_LAUNCH_TOUCH(ptr, write, what): the next FOX_LAUNCH of this thread reaches ptr's
 * allocation through a table in device memory (a population's members' arrays); `what`, a
 * string literal, names it. Nothing under nvcc; the emulation checks it as it checks a
 * pointer argument and its sanitizer takes it as the launch's access. */
#if defined(__CUDACC__)
#define FOX_LAUNCH_TOUCH(ptr, write, what) ((void)(ptr), (void)(write), (void)(what))
#elif defined(FOX_CUDA_EMU)
#define FOX_LAUNCH_TOUCH(ptr, write, what) cuda_emu_launch_touch((ptr), (write), (what))
#else
#error "fox_launch.h: neither nvcc nor the CUDA emulation (tests/cuda_emu) is compiling this"
#endif

#endif

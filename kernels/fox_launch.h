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
#else
#error "fox_launch.h: neither nvcc nor the CUDA emulation (tests/cuda_emu) is compiling this"
#endif

#endif

/* The CUDA emulation's per-kernel profile (cuda_emu_profile.h): counts by kernel name, taken
 * by the device-time model. */
#define _POSIX_C_SOURCE 200809L
#define CUDA_EMU_IMPL

#include <pthread.h>
#include <string.h>

#include "cuda_emu.h"
#include "cuda_emu_profile.h"

#define MAX_ 256

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;

void cuda_emu_profile_fork(int phase) { cuda_emu_fork_lock(&lock_, phase); }
static struct cuda_emu_kernel_stat stats_[MAX_];
static int n_stats_, more_; /* more_: kernels past the table's room */

void cuda_emu_profile_ran(const struct emu_op *op, int in_graph) {
  pthread_mutex_lock(&lock_);
  int i = 0;
  while (i < n_stats_ && strncmp(stats_[i].name, op->kernel, sizeof stats_[i].name - 1) != 0)
    i++;
  if (i == n_stats_) {
    if (n_stats_ == MAX_) {
      more_ = 1;
      pthread_mutex_unlock(&lock_);
      return;
    }
    memset(&stats_[i], 0, sizeof stats_[i]);
    strncpy(stats_[i].name, op->kernel, sizeof stats_[i].name - 1);
    n_stats_++;
  }
  struct cuda_emu_kernel_stat *s = &stats_[i];
  if (in_graph)
    s->nodes++;
  else
    s->launches++;
  s->threads += op->threads;
  s->flops += op->flops;
  s->bytes += op->bytes;
  pthread_mutex_unlock(&lock_);
}

int cuda_emu_profile_take(struct cuda_emu_kernel_stat *out, int max) {
  pthread_mutex_lock(&lock_);
  int n = n_stats_ + more_;
  for (int i = 0; i < n_stats_ && i < max; i++)
    out[i] = stats_[i];
  n_stats_ = 0;
  more_ = 0;
  pthread_mutex_unlock(&lock_);
  return n;
}

/* What a backend did on the device, for `foxopt train --json` and the tests that hold the
 * training loop to its budget of host round trips: kernel launches, host synchronisations
 * (explicit ones, and blocking device-to-host copies, where the host waits too), bytes copied
 * each way, counted per thread (every trial runs in a thread of its own), and the
 * process's peak of device memory allocated. The CUDA backend counts; the CPU backend has no
 * device and leaves every count 0. */
#ifndef FOX_COUNTERS_H
#define FOX_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct backend_counts {
  uint64_t launches, syncs, h2d_bytes, d2h_bytes;
};

void counters_launch(void);
void counters_sync(void);
void counters_h2d(size_t bytes);
void counters_d2h(size_t bytes);
/* Device memory taken and given back (the peak follows the sum); the _ptr forms remember each
 * allocation's size for its release. */
void counters_alloc(size_t bytes);
void counters_release(size_t bytes);
void counters_alloc_ptr(const void *p, size_t bytes);
void counters_release_ptr(const void *p);
/* The calling thread's counts since its last take; they start again from 0. */
struct backend_counts counters_take(void);
void counters_add(struct backend_counts *sum, const struct backend_counts *c);
uint64_t counters_peak_bytes(void);

#ifdef __cplusplus
}
#endif

#endif

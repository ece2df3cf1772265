/* What a backend did on the device, for `foxopt train --json` and the tests that hold the
 * training loop to its budget: the host's API calls (kernels launched one by one, graphs
 * launched, copies and memsets given), the kernels the device ran (one by one, or as nodes of
 * a graph), host synchronisations (explicit ones, and blocking device-to-host copies, where
 * the host waits too), bytes copied each way, counted per thread (every trial runs in a thread
 * of its own), and the process's peak of device memory allocated. While a thread captures a
 * graph its launches and copies are host calls still (a capture costs the host what launching
 * does) but run nothing: each launch of the graph counts its kernels as run. The CUDA backend
 * counts; the CPU backend has no device and leaves every count 0. */
#ifndef FOX_COUNTERS_H
#define FOX_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct backend_counts {
  uint64_t launches;       /* kernels launched one by one (FOX_LAUNCH, cuBLAS) */
  uint64_t graph_launches; /* captured graphs launched */
  uint64_t copies;         /* copies and memsets given one by one */
  uint64_t nodes;          /* kernels the device ran: launched, or as graph nodes */
  uint64_t syncs, h2d_bytes, d2h_bytes;
};

/* The host's API calls of a count: what each one costs the host, graph or not. */
static inline uint64_t counters_calls(const struct backend_counts *c) {
  return c->launches + c->graph_launches + c->copies;
}

/* What a captured graph holds: its kernels and copies. */
struct counters_graph {
  uint64_t kernels, copies;
};

void counters_launch(void);
void counters_copy(void);
/* The calling thread captures from now until counters_capture_end, which returns what it
 * captured; each launch of the graph counts it. */
void counters_capture_begin(void);
struct counters_graph counters_capture_end(void);
void counters_graph_launch(const struct counters_graph *g);
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
/* Sharer i of k's part of c: equal shares that add up to it (work done for k at once). */
struct backend_counts counters_share(const struct backend_counts *c, int i, int k);
uint64_t counters_peak_bytes(void);
/* The peak starts again from the memory in use now (a benchmark's phases, each its own). */
void counters_peak_reset(void);

#ifdef __cplusplus
}
#endif

#endif

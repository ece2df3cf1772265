/* The backend table: every device operation the algorithms use, as function pointers chosen at
 * run time (CPU always; CUDA when built and a device answers). Launchers and their CPU twins
 * share signatures so that tests can run both on the same inputs and compare. */
#ifndef FOX_BACKEND_H
#define FOX_BACKEND_H

#include <stddef.h>

#include "data/dataset.h"
#include "env_drive.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dataset as one backend holds it: uploaded once, shared by all trials of a process. */
struct device_dataset {
  size_t n;
  int ncol;        /* the dataset's feature columns */
  int nfeat;       /* the state's features (the dataset's selection) */
  float *features; /* raw [n, ncol], exactly the f32 of dataset.h5: the CPU backend's
                    * dataset_upload only (the CUDA backend passes them through the device
                    * in slabs and keeps the states: NULL) */
  float *prices;   /* [n, 4] open, high, low, close */
  float *states;   /* [n, nfeat] the selected features, normalised (norm_step.h) */
  float *norm;     /* mean[nfeat] then std[nfeat] of the selected columns */
  int *sel;        /* [nfeat] the selected columns (backend memory) */
  float *sigma;    /* [n] the ewm_vol column alone: the barrier width the step reads */
  int device;      /* CUDA device ordinal, -1 on the CPU */
  /* dataset_take only (0 after dataset_upload): the zlib crc32 of the raw features and of the
   * prices as the device holds them, read back after the copy (the rank file's proof of what
   * this device received). */
  int summed;
  uint32_t crc_features, crc_prices;
};

struct venv;      /* src/env/venv.h */
struct net_ops;   /* src/agents/net.h */
struct agent_ops; /* backend/agent_ops.h */
struct pop_ops;   /* backend/pop_ops.h */

/* A backtest of consecutive folds [folds[2j], folds[2j+1]) with one action per bar of their
 * union (host memory); each fold starts from initial capital. */
struct bt_request {
  struct market_params p;
  int nfolds;
  const int32_t *folds;
  const uint8_t *actions;
};

/* Host outputs, one entry per bar of the folds' union (NULL: not wanted); acc per fold. */
struct bt_result {
  double *equity;
  uint8_t *position;
  int8_t *labels;
  float *rewards;
  struct metrics_acc *acc;
};

struct backend {
  const char *name;
  /* Backend memory: NULL (and the reason in e) on failure. */
  void *(*mem_alloc)(size_t bytes, struct fox_err *e);
  void (*mem_free)(void *p);
  int (*mem_h2d)(void *dst, const void *src, size_t bytes, struct fox_err *e);
  int (*mem_d2h)(void *dst, const void *src, size_t bytes, struct fox_err *e);
  /* Within the backend's memory, in the calling thread's stream (no host wait). */
  int (*mem_copy)(void *dst, const void *src, size_t bytes, struct fox_err *e);
  int (*mem_zero)(void *p, size_t bytes, struct fox_err *e);
  int (*dataset_upload)(const struct dataset *ds, struct device_dataset *dev, struct fox_err *e);
  /* Copies back to host arrays ([n*ncol], [n*4], [n*nfeat]); any may be NULL; features fails
   * where the backend keeps none (features NULL). */
  int (*dataset_download)(const struct device_dataset *dev, float *features, float *prices,
                          float *states, struct fox_err *e);
  void (*dataset_release)(struct device_dataset *dev);
  /* dataset_upload for a process that keeps no host copy (a study's ranks): the host arrays
   * ds->features and ds->prices are handed over (freed, or adopted by the CPU backend, whose
   * memory the host's is) and left NULL, and dev's crc32 sums are taken from the device. The
   * CPU backend derives its states in place of the raw features: features is NULL after it, and
   * dataset_download of features fails. */
  int (*dataset_take)(struct dataset *ds, struct device_dataset *dev, struct fox_err *e);
  /* Copies rows [begin, begin + count) of the normalised states back to host [count, nfeat]. */
  int (*dataset_states)(const struct device_dataset *dev, size_t begin, size_t count,
                        float *states, struct fox_err *e);
  /* Vectorised environments (fused experience step): start every episode; step all. */
  int (*env_reset)(struct venv *v, struct fox_err *e);
  int (*env_step)(struct venv *v, int outputs /* VENV_STATES | VENV_NEXT */, struct fox_err *e);
  /* The backtest: one sequence per fold, in parallel; per-bar series and metrics. */
  int (*backtest)(const struct device_dataset *d, const struct bt_request *rq,
                  struct bt_result *out, struct fox_err *e);
  /* The portfolio simulator: the same sequences, giving the 3 portfolio features of every bar
   * (host [bars, 3]) and each fold's final portfolio (host [nfolds], may be NULL). */
  int (*portfolio_sim)(const struct device_dataset *d, const struct bt_request *rq, float *pf,
                       struct env_state *final_state, struct fox_err *e);
  /* The agents' networks, and the rest of their training steps. */
  const struct net_ops *nets;
  const struct agent_ops *agents;
  /* Makes `device` (a CUDA ordinal; -1: the default) current for the calling thread; every
   * thread that runs a trial calls it first. A no-op on the CPU. */
  int (*bind)(int device, struct fox_err *e);
  /* Graphs (CUDA graphs; NULL where a backend has none, as the CPU): the calling thread's work
   * from graph_begin to graph_end is captured, not run, into a graph that graph_launch runs on
   * the thread's stream as often as wanted (no host wait); graph_end ends the capture whatever
   * happened inside it. */
  int (*graph_begin)(struct fox_err *e);
  int (*graph_end)(void **graph, struct fox_err *e);
  int (*graph_launch)(void *graph, struct fox_err *e);
  void (*graph_free)(void *graph);
  /* How trials run at once: 1, on one thread as populations (train/pop.h: a device runs an
   * operation once for all members, where trials of their own would launch it each); 0, a
   * thread each (the CPU: the cores are its parallelism, and a launch costs nothing). */
  int populations;
  /* Operations over a population's members at once (pop_ops.h); NULL: the population loops
   * over its members. */
  const struct pop_ops *pops;
};

const struct backend *backend_cpu(void);
/* Threads of the CPU backend's loops for the calling thread (several trials at once each take
 * a share of the cores). */
void backend_cpu_threads(int n);
/* NULL when foxopt was built without CUDA. */
const struct backend *backend_cuda(void);
/* Number of usable CUDA devices (0 when none, no driver, or built without CUDA); `name`
 * receives device 0's name when there is one. */
int backend_cuda_devices(char *name, size_t n);
/* "auto" (CUDA when a device answers, else CPU), "cpu" or "cuda" (an error when unusable). */
int backend_select(const char *want, const struct backend **out, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif

/* The CUDA backend's graphs: the calling thread's per-thread stream captured (thread-local mode:
 * other trials' threads go on launching and synchronising meanwhile), the graph instantiated
 * and launched on that stream. What a graph holds is counted as it is captured
 * (backend/counters.h), so that each launch counts one host call and its kernels as nodes. */
#include <stdlib.h>

#include "cuda_backend.h"
#include "cuda_check.h"

struct fox_graph_ {
  cudaGraphExec_t exec;
  struct counters_graph holds;
};

int cuda_graph_begin(struct fox_err *e) {
  cudaCheck(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal), e);
  counters_capture_begin();
  return 0;
}

static int instantiate_(cudaGraph_t g, struct fox_graph_ *fg, struct fox_err *e) {
  cudaCheck(cudaGraphInstantiate(&fg->exec, g, 0), e);
  return 0;
}

int cuda_graph_end(void **graph, struct fox_err *e) {
  *graph = NULL;
  struct counters_graph holds = counters_capture_end();
  cudaGraph_t g = NULL;
  cudaCheck(cudaStreamEndCapture(cudaStreamPerThread, &g), e);
  struct fox_graph_ *fg = (struct fox_graph_ *)calloc(1, sizeof *fg);
  int rc = fg ? instantiate_(g, fg, e) : fox_errf(e, FOX_EFAIL, "graph: out of memory");
  cudaGraphDestroy(g); /* the executable graph is a copy */
  if (rc != 0) {
    free(fg);
    return rc;
  }
  fg->holds = holds;
  *graph = fg;
  return 0;
}

int cuda_graph_launch(void *graph, struct fox_err *e) {
  struct fox_graph_ *fg = (struct fox_graph_ *)graph;
  cudaCheck(cudaGraphLaunch(fg->exec, cudaStreamPerThread), e);
  counters_graph_launch(&fg->holds);
  return 0;
}

/* A launch still in flight finishes first (cudaGraphExecDestroy's promise). */
void cuda_graph_free(void *graph) {
  struct fox_graph_ *fg = (struct fox_graph_ *)graph;
  cudaGraphExecDestroy(fg->exec);
  free(fg);
}

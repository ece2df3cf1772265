/* The CUDA backend's launchers, shared between its translation units (not a public API:
 * everything outside kernels/ goes through struct backend). */
#ifndef FOX_CUDA_BACKEND_H
#define FOX_CUDA_BACKEND_H

#include "backend/backend.h"
#include "env/venv.h"

int cuda_dataset_upload(const struct dataset *ds, struct device_dataset *dev, struct fox_err *e);
int cuda_dataset_download(const struct device_dataset *dev, float *features, float *prices,
                          float *states, struct fox_err *e);
void cuda_dataset_release(struct device_dataset *dev);
int cuda_dataset_take(struct dataset *ds, struct device_dataset *dev, struct fox_err *e);
int cuda_dataset_states(const struct device_dataset *dev, size_t begin, size_t count,
                        float *states, struct fox_err *e);
int cuda_env_reset(struct venv *v, struct fox_err *e);
int cuda_env_step(struct venv *v, int outputs, struct fox_err *e);
int cuda_backtest(const struct device_dataset *d, const struct bt_request *rq,
                  struct bt_result *out, struct fox_err *e);
int cuda_portfolio_sim(const struct device_dataset *d, const struct bt_request *rq, float *pf,
                       struct env_state *final_state, struct fox_err *e);

int cuda_graph_begin(struct fox_err *e);
int cuda_graph_end(void **graph, struct fox_err *e);
int cuda_graph_launch(void *graph, struct fox_err *e);
void cuda_graph_free(void *graph);

/* The CUDA MLP behind a network of net_cuda_ops (the population kernels read its arrays). */
struct net;
struct mlp_cuda *cuda_net_mlp(const struct net *n);

/* Threads per block for one-thread-per-item kernels. */
#define FOX_CUDA_BLOCK 128

#endif

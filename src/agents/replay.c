/* The replay ring in backend memory: allocation, the insert's ring arithmetic, checkpoints. */
#include "agents/replay.h"

#include <stdio.h>
#include <string.h>

int replay_create(struct replay *b, const struct backend *be, size_t cap, int nfeat,
                  struct fox_err *e) {
  memset(b, 0, sizeof *b);
  b->be = be;
  b->d.cap = cap;
  b->d.nfeat = nfeat;
  b->d.bar = be->mem_alloc(cap * sizeof(int32_t), e);
  b->d.pf = b->d.bar ? be->mem_alloc(cap * 6 * sizeof(float), e) : NULL;
  b->d.r = b->d.pf ? be->mem_alloc(cap * sizeof(float), e) : NULL;
  b->d.a = b->d.r ? be->mem_alloc(cap, e) : NULL;
  b->d.term = b->d.a ? be->mem_alloc(cap, e) : NULL;
  if (!b->d.term) {
    char why[sizeof e->msg];
    snprintf(why, sizeof why, "%s", e->msg);
    replay_free(b);
    return fox_errf(e, FOX_EFAIL, "replay: no room for %zu transitions (dqn.buffer_size): %s",
                    cap, why);
  }
  return 0;
}

int replay_store(struct replay *b, struct dqn_clock *clk, int n, const int32_t *bars,
                 const float *s, const float *s2, const uint8_t *a, const float *r,
                 const uint8_t *dones, struct fox_err *e) {
  /* More transitions than the ring holds: only the last cap survive (the CPU's last write
   * wins), and on a device two threads must never write one entry's fields. */
  int skip = (size_t)n > b->d.cap ? n - (int)b->d.cap : 0;
  size_t k = (size_t)skip;
  const struct agent_ops *ops = b->be->agents;
  size_t dim = (size_t)b->d.nfeat + FOX_NPORTFOLIO;
  FOX_TRY(ops->replay_insert(&b->d, clk, skip, n - skip, bars + k, s + k * dim, s2 + k * dim,
                             a + k, r + k, dones + k, e));
  return ops->dqn_tick(clk, n, (int64_t)b->d.cap, e);
}

void replay_count(struct replay *b, int n) {
  b->pos = (b->pos + (size_t)n) % b->d.cap;
  b->size = b->size + (size_t)n < b->d.cap ? b->size + (size_t)n : b->d.cap;
}

int replay_push(struct replay *b, struct dqn_clock *clk, int n, const int32_t *bars,
                const float *s, const float *s2, const uint8_t *a, const float *r,
                const uint8_t *dones, struct fox_err *e) {
  FOX_TRY(replay_store(b, clk, n, bars, s, s2, a, r, dones, e));
  replay_count(b, n);
  return 0;
}

void replay_free(struct replay *b) {
  if (b->be) {
    void *bufs[] = {b->d.bar, b->d.pf, b->d.r, b->d.a, b->d.term};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
      if (bufs[i])
        b->be->mem_free(bufs[i]);
  }
  memset(b, 0, sizeof *b);
}

int replay_download(const struct replay *b, int32_t *bar, float *pf, float *r, uint8_t *a,
                    uint8_t *term, struct fox_err *e) {
  const struct backend *be = b->be;
  size_t n = b->size;
  FOX_TRY(be->mem_d2h(bar, b->d.bar, n * sizeof *bar, e));
  FOX_TRY(be->mem_d2h(pf, b->d.pf, n * 6 * sizeof *pf, e));
  FOX_TRY(be->mem_d2h(r, b->d.r, n * sizeof *r, e));
  FOX_TRY(be->mem_d2h(a, b->d.a, n, e));
  return be->mem_d2h(term, b->d.term, n, e);
}

int replay_upload(struct replay *b, size_t size, size_t pos, const int32_t *bar, const float *pf,
                  const float *r, const uint8_t *a, const uint8_t *term, struct fox_err *e) {
  const struct backend *be = b->be;
  if (size > b->d.cap || pos >= b->d.cap)
    return fox_errf(e, FOX_EDATA, "replay: %zu transitions at %zu do not fit a ring of %zu",
                    size, pos, b->d.cap);
  FOX_TRY(be->mem_h2d(b->d.bar, bar, size * sizeof *bar, e));
  FOX_TRY(be->mem_h2d(b->d.pf, pf, size * 6 * sizeof *pf, e));
  FOX_TRY(be->mem_h2d(b->d.r, r, size * sizeof *r, e));
  FOX_TRY(be->mem_h2d(b->d.a, a, size, e));
  FOX_TRY(be->mem_h2d(b->d.term, term, size, e));
  b->size = size;
  b->pos = pos;
  return 0;
}

int replay_copy(struct replay *dst, const struct replay *src, struct fox_err *e) {
  const struct backend *be = dst->be;
  size_t n = src->size;
  if (be != src->be || dst->d.cap != src->d.cap || dst->d.nfeat != src->d.nfeat)
    return fox_errf(e, FOX_EDATA, "replay: a ring of %zu cannot take the transitions of one of "
                                  "%zu on another backend or dataset", dst->d.cap, src->d.cap);
  FOX_TRY(be->mem_copy(dst->d.bar, src->d.bar, n * sizeof *dst->d.bar, e));
  FOX_TRY(be->mem_copy(dst->d.pf, src->d.pf, n * 6 * sizeof *dst->d.pf, e));
  FOX_TRY(be->mem_copy(dst->d.r, src->d.r, n * sizeof *dst->d.r, e));
  FOX_TRY(be->mem_copy(dst->d.a, src->d.a, n, e));
  FOX_TRY(be->mem_copy(dst->d.term, src->d.term, n, e));
  dst->size = n;
  dst->pos = src->pos;
  return 0;
}

/* The DQN replay buffer: a ring of transitions in the backend's memory (agent_ops.h's compact
 * replay_dev: the bar and portfolio features of s and s', the action, reward and terminal),
 * filled and sampled by backend operations, at the position and fill that the DQN's clock
 * keeps in the backend's memory; the host keeps mirrors of both (size, pos), which follow from
 * the transitions counted there. */
#ifndef FOX_REPLAY_H
#define FOX_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "backend/agent_ops.h"
#include "backend/backend.h"
#include "env_step.h"
#include "util/error.h"

struct replay {
  const struct backend *be;
  struct replay_dev d;
  size_t size, pos;
};

/* nfeat: the market features of a state (a sample rebuilds them from the dataset's row). */
int replay_create(struct replay *b, const struct backend *be, size_t cap, int nfeat,
                  struct fox_err *e);
struct dqn_clock;

/* n transitions of a vector step (backend arrays, agent_ops.h's replay_insert) into the ring
 * where the clock (backend memory) says, which then counts them (dqn_tick); the host's
 * mirrors of position and fill stay. */
int replay_store(struct replay *b, struct dqn_clock *clk, int n, const int32_t *bars,
                 const float *s, const float *s2, const uint8_t *a, const float *r,
                 const uint8_t *dones, struct fox_err *e);
/* The host's mirrors of position and fill after n more. */
void replay_count(struct replay *b, int n);
/* Both. */
int replay_push(struct replay *b, struct dqn_clock *clk, int n, const int32_t *bars,
                const float *s, const float *s2, const uint8_t *a, const float *r,
                const uint8_t *dones, struct fox_err *e);
void replay_free(struct replay *b);
/* The filled part as host arrays (a checkpoint): entries 0 .. size-1 of the ring, for
 * bar [size], pf [size, 6], r [size], a [size], term [size]; and back. */
int replay_download(const struct replay *b, int32_t *bar, float *pf, float *r, uint8_t *a,
                    uint8_t *term, struct fox_err *e);
int replay_upload(struct replay *b, size_t size, size_t pos, const int32_t *bar, const float *pf,
                  const float *r, const uint8_t *a, const uint8_t *term, struct fox_err *e);
/* dst's filled part, position and fill from src's (a ring of the same capacity on the same
 * backend), copied within the backend: replay_upload of src's replay_download. */
int replay_copy(struct replay *dst, const struct replay *src, struct fox_err *e);

#endif

/* Replay ring buffer: states are stored whole (54 floats) because a transition's next state
 * may be a pre-reset state that no later transition holds. */
#include "agents/replay.h"

#include <stdlib.h>
#include <string.h>

int replay_create(struct replay *b, size_t cap, struct fox_err *e) {
  memset(b, 0, sizeof *b);
  b->s = malloc(cap * FOX_STATE_DIM * sizeof *b->s);
  b->s2 = malloc(cap * FOX_STATE_DIM * sizeof *b->s2);
  b->a = malloc(cap);
  b->term = malloc(cap);
  b->r = malloc(cap * sizeof *b->r);
  if (!b->s || !b->s2 || !b->a || !b->term || !b->r) {
    replay_free(b);
    return fox_errf(e, FOX_EFAIL, "replay: out of memory for %zu transitions", cap);
  }
  b->cap = cap;
  return 0;
}

void replay_push(struct replay *b, size_t n, const float *s, const uint8_t *a, const float *r,
                 const float *s2, const uint8_t *terminal) {
  for (size_t i = 0; i < n; i++) {
    size_t p = b->pos;
    memcpy(b->s + p * FOX_STATE_DIM, s + i * FOX_STATE_DIM, FOX_STATE_DIM * sizeof(float));
    memcpy(b->s2 + p * FOX_STATE_DIM, s2 + i * FOX_STATE_DIM, FOX_STATE_DIM * sizeof(float));
    b->a[p] = a[i];
    b->r[p] = r[i];
    b->term[p] = terminal[i];
    b->pos = (p + 1) % b->cap;
    if (b->size < b->cap)
      b->size++;
  }
}

void replay_free(struct replay *b) {
  free(b->s);
  free(b->s2);
  free(b->a);
  free(b->term);
  free(b->r);
  memset(b, 0, sizeof *b);
}

/* A small keyed list: a rank holds a few states (its share of a population, twice), each as
 * image bytes and, where this rank trained it, as the trial itself. */
#include "study/state_cache.h"

#include <stdlib.h>
#include <string.h>

int state_cache_init(struct state_cache *c, void (*release)(void *held)) {
  memset(c, 0, sizeof *c);
  c->release = release;
  return pthread_mutex_init(&c->lock, NULL) != 0 ? -1 : 0;
}

static void drop_(struct state_cache *c, struct state_entry *x) {
  free(x->buf);
  if (x->held && c->release)
    c->release(x->held);
  x->buf = x->held = NULL;
}

void state_cache_free(struct state_cache *c) {
  for (int i = 0; i < c->n; i++)
    drop_(c, &c->e[i]);
  free(c->e);
  pthread_mutex_destroy(&c->lock);
  memset(c, 0, sizeof *c);
}

static int find_(const struct state_cache *c, int trial, int repeat, int epochs) {
  for (int i = 0; i < c->n; i++)
    if (c->e[i].trial == trial && c->e[i].repeat == repeat && c->e[i].epochs == epochs)
      return i;
  return -1;
}

int state_cache_put(struct state_cache *c, int trial, int repeat, int epochs, void *buf,
                    size_t len, struct fox_err *e) {
  pthread_mutex_lock(&c->lock);
  int i = find_(c, trial, repeat, epochs), rc = 0;
  if (i >= 0) {
    drop_(c, &c->e[i]);
  } else if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 16;
    struct state_entry *ne = realloc(c->e, (size_t)cap * sizeof *ne);
    if (!ne)
      rc = fox_errf(e, FOX_EFAIL, "out of memory for the states this rank holds");
    else
      c->e = ne, c->cap = cap;
  }
  if (rc == 0) {
    if (i < 0)
      i = c->n++;
    c->e[i] = (struct state_entry){trial, repeat, epochs, buf, len, NULL};
  } else {
    free(buf);
  }
  pthread_mutex_unlock(&c->lock);
  return rc;
}

int state_cache_get(struct state_cache *c, int trial, int repeat, int epochs,
                    struct state_entry *out) {
  pthread_mutex_lock(&c->lock);
  int i = find_(c, trial, repeat, epochs);
  if (i >= 0)
    *out = c->e[i];
  pthread_mutex_unlock(&c->lock);
  return i >= 0;
}

void state_cache_keep(struct state_cache *c, const struct work_item *items, int n) {
  pthread_mutex_lock(&c->lock);
  int k = 0;
  for (int i = 0; i < c->n; i++) {
    const struct state_entry *x = &c->e[i];
    int used = 0;
    for (int j = 0; !used && j < n; j++)
      used = x->repeat == items[j].repeat && x->epochs == items[j].from_epochs &&
             (x->trial == items[j].from_trial || x->trial == items[j].buffers_trial);
    if (used)
      c->e[k++] = c->e[i];
    else
      drop_(c, &c->e[i]);
  }
  c->n = k;
  pthread_mutex_unlock(&c->lock);
}

int state_cache_hold(struct state_cache *c, int trial, int repeat, int epochs, void *held) {
  pthread_mutex_lock(&c->lock);
  int i = find_(c, trial, repeat, epochs);
  if (i >= 0 && !c->e[i].held)
    c->e[i].held = held;
  pthread_mutex_unlock(&c->lock);
  return i >= 0 && c->e[i].held == held;
}

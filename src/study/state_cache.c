/* A small keyed list: a rank holds a few states (its share of a population, twice), each as
 * image bytes and, where this rank trained it, as the trial itself. */
#include "study/state_cache.h"

#include <stdlib.h>
#include <string.h>

int state_cache_init(struct state_cache *c, void (*release)(void *held), int max_held) {
  memset(c, 0, sizeof *c);
  c->release = release;
  c->max_held = max_held;
  return pthread_mutex_init(&c->lock, NULL) != 0 ? -1 : 0;
}

/* The entry's held trial, taken out (the caller releases it). */
static void *unhold_(struct state_cache *c, struct state_entry *x) {
  void *h = x->held;
  c->n_held -= h != NULL;
  x->held = NULL;
  return h;
}

static void release_(struct state_cache *c, void *held) {
  if (held && c->release)
    c->release(held);
}

static void drop_(struct state_cache *c, struct state_entry *x) {
  free(x->buf);
  x->buf = NULL;
  release_(c, unhold_(c, x));
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
    c->e[i] = (struct state_entry){trial, repeat, epochs, buf, len, NULL, 0};
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

void state_cache_keep(struct state_cache *c, const struct work_item *items, int n, int rank) {
  pthread_mutex_lock(&c->lock);
  int k = 0;
  for (int i = 0; i < c->n; i++) {
    struct state_entry *x = &c->e[i];
    int used = 0, here = 0;
    for (int j = 0; j < n; j++) {
      const struct work_item *w = &items[j];
      int reads = x->repeat == w->repeat && x->epochs == w->from_epochs;
      reads = reads && (x->trial == w->from_trial) + (x->trial == w->buffers_trial);
      used |= reads;
      here += reads && (w->owner == rank || w->owner < 0);
    }
    x->uses = here;
    if (!here)
      release_(c, unhold_(c, x));
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
  int took = i >= 0 && !c->e[i].held && c->n_held < c->max_held;
  if (took) {
    c->e[i].held = held;
    c->n_held++;
  }
  pthread_mutex_unlock(&c->lock);
  return took;
}

void state_cache_used(struct state_cache *c, int trial, int repeat, int epochs) {
  pthread_mutex_lock(&c->lock);
  int i = find_(c, trial, repeat, epochs);
  void *h = i >= 0 && c->e[i].held && --c->e[i].uses <= 0 ? unhold_(c, &c->e[i]) : NULL;
  pthread_mutex_unlock(&c->lock);
  release_(c, h);
}

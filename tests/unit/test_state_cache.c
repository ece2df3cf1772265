/* The states a rank holds between PBT generations: each entry's bytes, and at most max_held
 * trials held open beside them; state_cache_keep counts the loads a step makes of each entry on
 * this rank and releases a held trial nobody here reads, state_cache_used releases one after
 * its last load, and holds from several threads while others put (the CPU's trial threads)
 * count and release each trial exactly once. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fox_check.h"
#include "study/state_cache.h"

static int released_[256];
static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;

/* A held "trial" here is an int naming it. */
static void release_(void *held) {
  pthread_mutex_lock(&lock_);
  released_[*(int *)held]++;
  pthread_mutex_unlock(&lock_);
  free(held);
}

static void *held_(int id) {
  int *h = malloc(sizeof *h);
  *h = id;
  return h;
}

static int put_(struct state_cache *c, int trial) {
  struct fox_err e = {0};
  return state_cache_put(c, trial, 0, 2, malloc(8), 8, &e);
}

static struct work_item item_(int from, int buffers, int owner) {
  struct work_item w;
  memset(&w, 0, sizeof w);
  w.from_trial = from, w.buffers_trial = buffers, w.from_epochs = 2, w.owner = owner;
  return w;
}

static void test_hold_keep_used(void) {
  memset(released_, 0, sizeof released_);
  struct state_cache c;
  CHECK(state_cache_init(&c, release_, 2) == 0, "init");
  for (int t = 1; t <= 4; t++)
    CHECK(put_(&c, t) == 0, "put %d", t);
  void *h1 = held_(1), *h2 = held_(2), *h3 = held_(3), *h4 = held_(4);
  CHECK(state_cache_hold(&c, 1, 0, 2, h1) == 1 && state_cache_hold(&c, 2, 0, 2, h2) == 1,
        "the first two are held");
  CHECK(state_cache_hold(&c, 3, 0, 2, h3) == 0, "max_held 2: the third is not");
  free(h3);
  CHECK(state_cache_hold(&c, 9, 0, 2, h4) == 0, "no such entry");
  CHECK(state_cache_hold(&c, 1, 0, 2, h4) == 0, "entry 1 holds one already");
  /* the step: trial 1 read twice here (a continuation, an exploit's buffers), once on rank 1;
   * trial 2 read on rank 1 only; trial 3 here by an unplaced item; trial 4 by nobody */
  struct work_item it[4] = {item_(1, -1, 0), item_(5, 1, 0), item_(1, -1, 1), item_(2, -1, 1)};
  it[3].from_trial = 2;
  struct work_item un = item_(3, -1, -1);
  struct work_item all[5] = {it[0], it[1], it[2], it[3], un};
  state_cache_keep(&c, all, 5, 0);
  struct state_entry x;
  CHECK(released_[2] == 1 && state_cache_get(&c, 2, 0, 2, &x) && !x.held && x.buf,
        "trial 2, read on another rank only: released, its bytes kept");
  CHECK(!state_cache_get(&c, 4, 0, 2, &x), "trial 4, read by nobody: dropped");
  CHECK(state_cache_get(&c, 1, 0, 2, &x) && x.held == h1 && x.uses == 2, "trial 1: 2 loads here");
  CHECK(state_cache_get(&c, 3, 0, 2, &x) && x.uses == 1, "trial 3: its unplaced load counts");
  CHECK(state_cache_hold(&c, 3, 0, 2, h4) == 1, "a slot is free again");
  state_cache_used(&c, 1, 0, 2);
  CHECK(released_[1] == 0, "trial 1 after its first load: still held");
  state_cache_used(&c, 1, 0, 2);
  CHECK(released_[1] == 1 && state_cache_get(&c, 1, 0, 2, &x) && !x.held && x.buf,
        "trial 1 after its last load: released, its bytes kept");
  state_cache_free(&c);
  CHECK(released_[4] == 1 && released_[1] == 1 && released_[2] == 1 && released_[3] == 0,
        "free releases what is held, each once");
}

struct worker_ {
  struct state_cache *c;
  int first, n, held;
};

static void *worker_(void *arg) {
  struct worker_ *w = arg;
  for (int t = w->first; t < w->first + w->n; t++) {
    put_(w->c, t);
    void *h = held_(t);
    if (state_cache_hold(w->c, t, 0, 2, h))
      w->held++;
    else
      free(h);
  }
  return NULL;
}

/* Puts that grow the list (realloc) while other threads hold: each hold's answer is what it
 * did (a trial the cache took is released once, one it refused is the caller's). */
static void test_threads(void) {
  memset(released_, 0, sizeof released_);
  struct state_cache c;
  CHECK(state_cache_init(&c, release_, 40) == 0, "init");
  struct worker_ w[4];
  pthread_t tid[4];
  for (int k = 0; k < 4; k++) {
    w[k] = (struct worker_){&c, k * 50, 50, 0};
    CHECK(pthread_create(&tid[k], NULL, worker_, &w[k]) == 0, "thread");
  }
  int held = 0;
  for (int k = 0; k < 4; k++) {
    pthread_join(tid[k], NULL);
    held += w[k].held;
  }
  CHECK(held == 40 && c.n_held == 40 && c.n == 200, "40 of 200 held (%d, %d; %d entries)", held,
        c.n_held, c.n);
  state_cache_free(&c);
  int once = 0, twice = 0;
  for (int t = 0; t < 200; t++)
    once += released_[t] == 1, twice += released_[t] > 1;
  CHECK(once == 40 && twice == 0, "each held trial released once (%d, %d)", once, twice);
}

int main(void) {
  test_hold_keep_used();
  test_threads();
  return fox_check_done("test_state_cache");
}

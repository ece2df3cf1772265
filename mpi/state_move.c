/* Placement and point-to-point moves: every rank derives the same list of moves from the
 * broadcast items, posts its sends, then takes its receives in list order (MPI keeps the order
 * of messages between two ranks on one tag, so one tag serves every move). */
#include "mpi/state_move.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_ 7301
#define CHUNK_ ((size_t)1 << 30) /* MPI counts are ints */

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int move_needed(const struct work_item *items, int n) {
  for (int i = 0; i < n; i++)
    if ((items[i].from_epochs > 0 && items[i].src_rank >= 0) ||
        (items[i].buffers_trial >= 0 && items[i].buffers_rank >= 0))
      return 1;
  return 0;
}

void move_place(struct work_item *items, int n, int ranks) {
  int cap = (n + ranks - 1) / ranks;
  int *load = calloc((size_t)ranks, sizeof *load);
  if (!load)
    abort(); /* an int per rank */
  for (int i = 0; i < n; i++) {
    struct work_item *w = &items[i];
    int held = w->from_epochs > 0 && w->src_rank >= 0 ? w->src_rank : w->buffers_rank;
    w->owner = held >= 0 && held < ranks && load[held] < cap ? held : -1;
    if (w->owner >= 0)
      load[w->owner]++;
  }
  for (int i = 0; i < n; i++) {
    if (items[i].owner >= 0)
      continue;
    int best = 0;
    for (int k = 1; k < ranks; k++)
      best = load[k] < load[best] ? k : best;
    items[i].owner = best;
    load[best]++;
  }
  free(load);
}

struct move_ {
  int trial, repeat, epochs, src, dst;
};

/* The moves of the step, without repeats (one state to one rank once). */
static int moves_(const struct work_item *items, int n, struct move_ **out, int *nm) {
  struct move_ *m = malloc((size_t)(2 * n + 1) * sizeof *m);
  if (!m)
    return -1;
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int b = 0; b < 2; b++) {
      const struct work_item *w = &items[i];
      int trial = b ? w->buffers_trial : w->from_trial, src = b ? w->buffers_rank : w->src_rank;
      if (w->from_epochs <= 0 || trial < 0 || src < 0 || src == w->owner)
        continue;
      struct move_ x = {trial, w->repeat, w->from_epochs, src, w->owner};
      int dup = 0;
      for (int j = 0; !dup && j < k; j++)
        dup = !memcmp(&m[j], &x, sizeof x);
      if (!dup)
        m[k++] = x;
    }
  *out = m;
  *nm = k;
  return 0;
}

static int send_all_(struct world *w, struct state_cache *cache, const struct move_ *m, int nm,
                     MPI_Request **rq, int *nrq, uint64_t *lens, struct fox_err *e) {
  int cap = 0;
  for (int j = 0; j < nm; j++) {
    if (m[j].src != w->rank)
      continue;
    struct state_entry h = {0};
    lens[j] = state_cache_get(cache, m[j].trial, m[j].repeat, m[j].epochs, &h) ? h.len : 0;
    /* a state this rank does not hold goes as 0 bytes: the owner reads the checkpoint */
    int need = *nrq + 1 + (int)((lens[j] + CHUNK_ - 1) / CHUNK_);
    if (need > cap) {
      cap = need * 2 + 8;
      MPI_Request *nr = realloc(*rq, (size_t)cap * sizeof *nr);
      mallocCheck(nr, e);
      *rq = nr;
    }
    mpiCheck(MPI_Isend(&lens[j], 1, MPI_UINT64_T, m[j].dst, TAG_, w->comm, &(*rq)[(*nrq)++]), e);
    for (size_t off = 0; off < lens[j]; off += CHUNK_) {
      size_t part = lens[j] - off < CHUNK_ ? lens[j] - off : CHUNK_;
      mpiCheck(MPI_Isend((char *)h.buf + off, (int)part, MPI_BYTE, m[j].dst, TAG_, w->comm,
                         &(*rq)[(*nrq)++]),
               e);
    }
  }
  return 0;
}

static int recv_one_(struct world *w, struct state_cache *cache, const struct move_ *m,
                     int *count, double *bytes, struct fox_err *e) {
  uint64_t len = 0;
  mpiCheck(MPI_Recv(&len, 1, MPI_UINT64_T, m->src, TAG_, w->comm, MPI_STATUS_IGNORE), e);
  if (len == 0)
    return 0;
  char *buf = malloc((size_t)len);
  if (!buf)
    return fox_errf(e, FOX_EFAIL, "out of memory for a state of %llu bytes from rank %d",
                    (unsigned long long)len, m->src);
  for (size_t off = 0; off < len; off += CHUNK_) {
    size_t part = len - off < CHUNK_ ? len - off : CHUNK_;
    int rc = MPI_Recv(buf + off, (int)part, MPI_BYTE, m->src, TAG_, w->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      free(buf);
      mpiCheck(rc, e);
    }
  }
  *bytes += (double)len;
  (*count)++;
  return state_cache_put(cache, m->trial, m->repeat, m->epochs, buf, (size_t)len, e);
}

int move_states(struct world *w, struct state_cache *cache, const struct work_item *items,
                int n, int *planned, int *count, double *bytes, double *seconds,
                struct fox_err *e) {
  double t0 = now_();
  struct move_ *m;
  int nm, nrq = 0, rc = 0;
  *count = 0;
  *bytes = 0;
  if (moves_(items, n, &m, &nm) != 0)
    return fox_errf(e, FOX_EFAIL, "out of memory planning the state moves");
  uint64_t *lens = calloc((size_t)nm + 1, sizeof *lens);
  MPI_Request *rq = NULL;
  rc = lens ? send_all_(w, cache, m, nm, &rq, &nrq, lens, e)
            : fox_errf(e, FOX_EFAIL, "out of memory planning the state moves");
  double got = 0;
  int taken = 0;
  for (int j = 0; rc == 0 && j < nm; j++)
    if (m[j].dst == w->rank)
      rc = recv_one_(w, cache, &m[j], &taken, &got, e);
  if (nrq > 0 && MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS && rc == 0)
    rc = fox_errf(e, FOX_EFAIL, "rank %d: sending states to other ranks failed", w->rank);
  free(rq);
  free(lens);
  free(m);
  *seconds = now_() - t0;
  *planned = nm;
  *count = taken;
  *bytes = got;
  return rc;
}

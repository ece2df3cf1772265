/* Steps over ranks: broadcast, pull, reduce, agree. */
#include "mpi/coordinator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/state_move.h"
#include "util/stop.h"

int coord_open(struct coordinator *c, struct world *w, int use_nccl, int max_items,
               struct fox_err *e) {
  memset(c, 0, sizeof *c);
  c->w = w;
  c->win = MPI_WIN_NULL;
  c->bcast_len = sizeof(int) + (size_t)max_items * sizeof(struct work_item);
  if (c->bcast_len > 0x7fffffff)
    return fox_errf(e, FOX_EUSAGE, "study.round_size %d: a step of that many trials does not "
                                   "fit one broadcast", max_items);
  c->bcast = malloc(c->bcast_len);
  mallocCheck(c->bcast, e);
  if (pthread_mutex_init(&c->lock, NULL) != 0)
    return fox_errf(e, FOX_EFAIL, "coordinator: cannot make a mutex");
  MPI_Aint bytes = w->rank == 0 ? 2 * (MPI_Aint)sizeof(long) : 0;
  mpiCheck(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, w->comm, &c->slots, &c->win), e);
  if (w->rank == 0)
    c->slots[0] = c->slots[1] = 0;
  mpiCheck(MPI_Barrier(w->comm), e);
  /* One passive-target epoch for the whole run: every access is a lock-free atomic. A first
   * read from every rank sets up the paths to rank 0 now rather than in the first step. */
  mpiCheck(MPI_Win_lock_all(0, c->win), e);
  long zero = 0, seen = 0;
  mpiCheck(MPI_Fetch_and_op(&zero, &seen, MPI_LONG, 0, 0, MPI_NO_OP, c->win), e);
  mpiCheck(MPI_Win_flush(0, c->win), e);
  mpiCheck(MPI_Barrier(w->comm), e);
  return coll_init(&c->coll, w, use_nccl, e);
}

void coord_close(struct coordinator *c) {
  coll_free(&c->coll);
  if (c->win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(c->win);
    MPI_Win_free(&c->win);
  }
  pthread_mutex_destroy(&c->lock);
  free(c->bcast);
  free(c->mine);
}

/* The runner's queue: the next item of the step, taken at rank 0; in a placed step the next of
 * this rank's own. */
static long next_(void *ctx) {
  struct coordinator *c = ctx;
  long one = 1, idx = -1;
  pthread_mutex_lock(&c->lock);
  if (c->mine) {
    idx = c->next_mine < c->n_mine ? c->mine[c->next_mine++] : -1;
    pthread_mutex_unlock(&c->lock);
    return idx;
  }
  int rc = MPI_Fetch_and_op(&one, &idx, MPI_LONG, 0, 0, MPI_SUM, c->win);
  if (rc == MPI_SUCCESS)
    rc = MPI_Win_flush(0, c->win);
  if (rc != MPI_SUCCESS)
    c->mpi_err = rc;
  pthread_mutex_unlock(&c->lock);
  return rc == MPI_SUCCESS && idx < c->n_items ? idx : -1;
}

/* While the trial threads run: publish this rank's signal, and take any other rank's, so that
 * every rank stops its segments at the next vector step. */
static void watch_(void *ctx) {
  struct coordinator *c = ctx;
  long mine = stop_signal(), seen = 0, zero = 0;
  pthread_mutex_lock(&c->lock);
  int rc = MPI_SUCCESS;
  if (mine && !c->published) {
    rc = MPI_Accumulate(&mine, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_MAX, c->win);
    c->published = 1;
  }
  if (rc == MPI_SUCCESS)
    rc = MPI_Fetch_and_op(&zero, &seen, MPI_LONG, 0, 1, MPI_NO_OP, c->win);
  if (rc == MPI_SUCCESS)
    rc = MPI_Win_flush(0, c->win);
  if (rc != MPI_SUCCESS)
    c->mpi_err = rc;
  pthread_mutex_unlock(&c->lock);
  if (rc == MPI_SUCCESS && seen && !mine)
    stop_request((int)seen);
  if (c->idle && !c->idle_done) {
    c->idle_done = 1;
    c->idle(c->idle_ctx);
  }
}

int coord_agree(struct coordinator *c, int rc, int *who, struct fox_err *e) {
  /* The lowest failing rank names the status, which it then broadcasts. */
  int mine = rc != 0 ? c->w->rank : c->w->size, first = mine;
  mpiCheck(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->w->comm), e);
  *who = first < c->w->size ? first : -1;
  if (*who < 0)
    return 0;
  int code = rc;
  mpiCheck(MPI_Bcast(&code, 1, MPI_INT, first, c->w->comm), e);
  return code;
}

/* Result rows: done, status, epochs, rank, seconds, state seconds, start, states copied on the
 * device, then the metrics of every fold. */
#define HEAD_ 8
#define ROW_ (HEAD_ + FOX_FOLDS_MAX * FOX_STUDY_METRICS)

static void encode_(const struct work_result *r, double *row) {
  memset(row, 0, ROW_ * sizeof *row);
  if (r->done != FOX_WORK_DONE)
    return; /* not run here (or abandoned): nothing to add */
  row[0] = 1;
  row[1] = r->status;
  row[2] = r->epochs;
  row[3] = r->rank;
  row[4] = r->seconds;
  row[5] = r->state_seconds;
  row[6] = r->start;
  row[7] = r->copied;
  memcpy(row + HEAD_, r->metrics, sizeof r->metrics);
}

static void decode_(const double *row, const unsigned char *reason, int trial, int repeat,
                    struct work_result *r) {
  memset(r, 0, sizeof *r);
  r->trial = trial;
  r->repeat = repeat;
  r->done = row[0] == 1 ? FOX_WORK_DONE : FOX_WORK_STOPPED;
  r->status = (int)row[1];
  r->epochs = (int)row[2];
  r->rank = (int)row[3];
  r->seconds = row[4];
  r->state_seconds = row[5];
  r->start = row[6];
  r->copied = (int)row[7];
  memcpy(r->metrics, row + HEAD_, sizeof r->metrics);
  memcpy(r->reason, reason, FOX_REASON_LEN);
  r->reason[FOX_REASON_LEN - 1] = '\0';
}

/* The step's one reduction: a header (failed ranks, their signals, signalled ranks, results
 * with a reason, state bytes and states received) then the rows, summed onto every rank; the
 * reasons only when there are some (by MAX: one rank wrote each, the others left zeros). */
#define HDR_ 6

static int reduce_(struct coordinator *c, int rc, struct work_result *res, int n, int *failed,
                   int *signal, struct fox_err *e) {
  size_t len = HDR_ + (size_t)n * ROW_;
  double *buf = calloc(len, sizeof *buf);
  mallocCheck(buf, e);
  int sig = stop_signal();
  buf[0] = rc != 0;
  buf[1] = sig;
  buf[2] = sig != 0;
  buf[4] = c->xfer_bytes;
  buf[5] = c->xfer_count;
  for (int i = 0; i < n; i++) {
    encode_(&res[i], buf + HDR_ + (size_t)i * ROW_);
    buf[3] += res[i].done == FOX_WORK_DONE && res[i].reason[0];
  }
  int st = coll_sum(&c->coll, buf, len, e);
  *failed = st == 0 && buf[0] > 0;
  if (st == 0) {
    c->xfer_bytes = buf[4];
    c->xfer_count = (int)buf[5];
  }
  *signal = st == 0 && buf[2] > 0 ? (sig ? sig : (int)lround(buf[1] / buf[2])) : 0;
  unsigned char *why = NULL;
  if (st == 0 && !*failed && buf[3] > 0) {
    why = calloc((size_t)n, FOX_REASON_LEN);
    st = why ? 0 : fox_errf(e, FOX_EFAIL, "coordinator: out of memory");
    for (int i = 0; st == 0 && i < n; i++)
      if (res[i].done == FOX_WORK_DONE)
        memcpy(why + (size_t)i * FOX_REASON_LEN, res[i].reason, FOX_REASON_LEN);
    if (st == 0 && MPI_Allreduce(MPI_IN_PLACE, why, n * FOX_REASON_LEN, MPI_UNSIGNED_CHAR,
                                 MPI_MAX, c->w->comm) != MPI_SUCCESS)
      st = fox_errf(e, FOX_EFAIL, "coordinator: MPI_Allreduce of the failure reasons failed");
  }
  static const unsigned char none[FOX_REASON_LEN];
  for (int i = 0; st == 0 && !*failed && i < n; i++)
    decode_(buf + HDR_ + (size_t)i * ROW_, why ? why + (size_t)i * FOX_REASON_LEN : none,
            res[i].trial, res[i].repeat, &res[i]);
  free(buf);
  free(why);
  return st;
}

/* This rank's share of a placed step and the states it lacks; the states no item of the step
 * continues from are dropped. An unplaced step: every rank pulls from rank 0's counter. */
static int place_(struct coordinator *c, struct runner *r, const struct work_item *items, int n,
                  struct fox_err *e) {
  free(c->mine);
  c->mine = NULL;
  c->n_mine = c->next_mine = 0;
  c->xfer_count = c->xfer_planned = 0;
  c->xfer_bytes = c->xfer_seconds = 0;
  int placed = 0;
  for (int i = 0; i < n; i++)
    placed |= items[i].owner >= 0;
  int rc = 0;
  if (placed) {
    c->mine = malloc((size_t)n * sizeof *c->mine);
    mallocCheck(c->mine, e);
    for (int i = 0; i < n; i++)
      if (items[i].owner == c->w->rank)
        c->mine[c->n_mine++] = i;
    rc = move_states(c->w, &r->cache, items, n, &c->xfer_planned, &c->xfer_count,
                     &c->xfer_bytes, &c->xfer_seconds, e);
  }
  state_cache_keep(&r->cache, items, n, c->w->rank);
  return rc;
}

int coord_step(struct coordinator *c, struct runner *r, struct work_item *items, int *n,
               struct work_result *res, int *stop, struct fox_err *e) {
  struct world *w = c->w;
  if (w->rank == 0 && *n > 0) {
    long zero = 0;
    pthread_mutex_lock(&c->lock);
    int rc = MPI_Accumulate(&zero, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_REPLACE, c->win);
    if (rc == MPI_SUCCESS)
      rc = MPI_Win_flush(0, c->win);
    pthread_mutex_unlock(&c->lock);
    mpiCheck(rc, e);
  }
  /* A step whose items continue from states ranks hold is placed: each item runs where its
   * state is, or goes there. */
  if (w->rank == 0 && *n > 0 && move_needed(items, *n))
    move_place(items, *n, w->size);
  /* The count and the items in one broadcast of the largest step. */
  if (w->rank == 0) {
    memcpy(c->bcast, n, sizeof *n);
    if (*n > 0)
      memcpy(c->bcast + sizeof(int), items, (size_t)*n * sizeof *items);
  }
  MPI_Request rq;
  mpiCheck(MPI_Ibcast(c->bcast, (int)c->bcast_len, MPI_BYTE, 0, w->comm, &rq), e);
  FOX_TRY(world_wait(&rq, e));
  memcpy(n, c->bcast, sizeof *n);
  if (*n <= 0)
    return 0;
  if (w->rank != 0)
    memcpy(items, c->bcast + sizeof(int), (size_t)*n * sizeof *items);
  c->n_items = *n;
  c->mpi_err = 0;
  c->idle_done = 0;
  int rc = place_(c, r, items, *n, e);
  struct runner_queue q = {next_, watch_, c};
  if (rc == 0)
    rc = runner_run(r, items, *n, res, &q, e);
  else
    for (int i = 0; i < *n; i++)
      res[i] = (struct work_result){.trial = items[i].trial, .repeat = items[i].repeat,
                                    .done = FOX_WORK_STOPPED};
  if (rc == 0 && c->mpi_err)
    rc = fox_errf(e, FOX_EFAIL, "rank %d: an MPI one-sided call failed (%d)", w->rank,
                  c->mpi_err);
  int failed = 0, signal = 0;
  int st = reduce_(c, rc, res, *n, &failed, &signal, e);
  if (st != 0)
    return st; /* the reduction itself failed: MPI reports it, the job ends */
  if (failed) {
    int who;
    int agreed = coord_agree(c, rc, &who, e);
    if (who != w->rank) {
      fox_err_clear(e);
      e->quiet = 1; /* the failing rank reports it */
      e->code = agreed;
    }
    return agreed ? agreed : FOX_EFAIL;
  }
  if (signal && !stop_signal())
    stop_request(signal);
  *stop = signal;
  /* the slowest rank's moves: every rank knows whether some were planned */
  if (c->xfer_planned > 0)
    mpiCheck(MPI_Allreduce(MPI_IN_PLACE, &c->xfer_seconds, 1, MPI_DOUBLE, MPI_MAX, w->comm), e);
  return 0;
}

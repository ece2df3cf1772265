/* NCCL on MPI for the CUDA emulation: ncclCommInitRank splits MPI_COMM_WORLD by the unique id
 * (so every world rank must call it, as foxopt's ranks do) and checks that the split agrees with
 * the nranks and rank it was given; ncclAllReduce checks its buffers against the allocation
 * table and runs MPI_Allreduce on them. */
#define _POSIX_C_SOURCE 200809L
#define CUDA_EMU_IMPL

#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_emu.h"
#include "nccl.h"

#define MAGIC_ "foxopt-nccl-emu"

struct ncclComm {
  MPI_Comm comm;
  int nranks, rank;
};

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t live_[64]; /* cuda_emu_hide(comm) */
static int n_live_;
static unsigned long ids_made_;

static void require_comm_(ncclComm_t c) {
  int ok = 0;
  pthread_mutex_lock(&lock_);
  for (int i = 0; i < n_live_ && !ok; i++)
    ok = live_[i] == cuda_emu_hide(c);
  pthread_mutex_unlock(&lock_);
  if (!ok)
    cuda_emu_fail(NULL, "%p is not a live NCCL communicator (destroyed, or never created)",
                  (void *)c);
}

static ncclResult_t mpi_failed_(const char *call, int rc) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  cuda_emu_note("%s: %s (ncclSystemError)", call, msg);
  return ncclSystemError;
}

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error";
  case ncclSystemError:
    return "unhandled system error";
  case ncclInternalError:
    return "internal error";
  case ncclInvalidArgument:
    return "invalid argument";
  case ncclInvalidUsage:
    return "invalid usage";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress:
    return "NCCL operation in progress";
  }
  return "unknown result code";
}

ncclResult_t ncclGetVersion(int *version) {
  cuda_emu_enter("ncclGetVersion");
  if (!version)
    return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

/* The id names its maker (pid, time, a counter), so that two communicators get two colours. */
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  cuda_emu_enter("ncclGetUniqueId");
  if (!id)
    return ncclInvalidArgument;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  pthread_mutex_lock(&lock_);
  unsigned long serial = ++ids_made_;
  pthread_mutex_unlock(&lock_);
  memset(id, 0, sizeof *id);
  snprintf(id->internal, sizeof id->internal, "%s %ld %lld.%09ld %lu", MAGIC_, (long)getpid(),
           (long long)ts.tv_sec, ts.tv_nsec, serial);
  return ncclSuccess;
}

static int colour_(const ncclUniqueId *id) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < sizeof id->internal; i++)
    h = (h ^ (unsigned char)id->internal[i]) * 16777619u;
  return (int)(h & 0x7fffffff);
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
  cuda_emu_enter("ncclCommInitRank");
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (!up || down) {
    cuda_emu_note("the emulated NCCL runs on MPI, which is not running (ncclInvalidUsage)");
    return ncclInvalidUsage;
  }
  if (!comm || nranks < 1 || rank < 0 || rank >= nranks) {
    cuda_emu_note("comm %p, nranks %d, rank %d (ncclInvalidArgument)", (void *)comm, nranks,
                  rank);
    return ncclInvalidArgument;
  }
  if (strncmp(id.internal, MAGIC_, strlen(MAGIC_)) != 0) {
    cuda_emu_note("the unique id did not come from ncclGetUniqueId (ncclInvalidArgument)");
    return ncclInvalidArgument;
  }
  MPI_Comm split;
  int rc = MPI_Comm_split(MPI_COMM_WORLD, colour_(&id), rank, &split);
  if (rc != MPI_SUCCESS)
    return mpi_failed_("MPI_Comm_split", rc);
  int size = 0, me = -1;
  MPI_Comm_size(split, &size);
  MPI_Comm_rank(split, &me);
  if (size != nranks || me != rank) {
    MPI_Comm_free(&split);
    cuda_emu_note("nranks %d, rank %d, but %d world ranks share this id and this one is their "
                  "rank %d (ncclInvalidUsage)", nranks, rank, size, me);
    return ncclInvalidUsage;
  }
  struct ncclComm *c = malloc(sizeof *c);
  pthread_mutex_lock(&lock_);
  int full = n_live_ == (int)(sizeof live_ / sizeof *live_);
  if (c && !full)
    live_[n_live_++] = cuda_emu_hide(c);
  pthread_mutex_unlock(&lock_);
  if (!c || full) {
    free(c);
    MPI_Comm_free(&split);
    cuda_emu_note("out of communicators (ncclSystemError)");
    return ncclSystemError;
  }
  c->comm = split;
  c->nranks = nranks;
  c->rank = rank;
  *comm = c;
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  cuda_emu_enter("ncclCommDestroy");
  if (!comm)
    return ncclSuccess;
  require_comm_(comm);
  pthread_mutex_lock(&lock_);
  for (int i = 0; i < n_live_; i++)
    if (live_[i] == cuda_emu_hide(comm)) {
      live_[i] = live_[--n_live_];
      break;
    }
  pthread_mutex_unlock(&lock_);
  int down = 0;
  MPI_Finalized(&down);
  if (!down)
    MPI_Comm_free(&comm->comm);
  free(comm);
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  cuda_emu_enter("ncclCommCount");
  require_comm_(comm);
  if (!count)
    return ncclInvalidArgument;
  *count = comm->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  cuda_emu_enter("ncclCommUserRank");
  require_comm_(comm);
  if (!rank)
    return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

/* MPI's type and size for an NCCL type; MPI_DATATYPE_NULL for the halves, which MPI lacks. */
static MPI_Datatype type_(ncclDataType_t t, size_t *size) {
  switch (t) {
  case ncclInt8:
    *size = 1;
    return MPI_INT8_T;
  case ncclUint8:
    *size = 1;
    return MPI_UINT8_T;
  case ncclInt32:
    *size = 4;
    return MPI_INT32_T;
  case ncclUint32:
    *size = 4;
    return MPI_UINT32_T;
  case ncclInt64:
    *size = 8;
    return MPI_INT64_T;
  case ncclUint64:
    *size = 8;
    return MPI_UINT64_T;
  case ncclFloat32:
    *size = 4;
    return MPI_FLOAT;
  case ncclFloat64:
    *size = 8;
    return MPI_DOUBLE;
  default:
    *size = 0;
    return MPI_DATATYPE_NULL;
  }
}

static void average_(void *buf, size_t count, ncclDataType_t t, int n) {
  for (size_t i = 0; i < count; i++)
    switch (t) {
#define DIV_(type, nc)                                                                          \
  case nc:                                                                                      \
    ((type *)buf)[i] /= (type)n;                                                                \
    break;
      DIV_(int8_t, ncclInt8)
      DIV_(uint8_t, ncclUint8)
      DIV_(int32_t, ncclInt32)
      DIV_(uint32_t, ncclUint32)
      DIV_(int64_t, ncclInt64)
      DIV_(uint64_t, ncclUint64)
      DIV_(float, ncclFloat32)
      DIV_(double, ncclFloat64)
#undef DIV_
    default:
      break;
    }
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
  cuda_emu_enter("ncclAllReduce");
  require_comm_(comm);
  size_t size = 0;
  MPI_Datatype type = type_(datatype, &size);
  if (type == MPI_DATATYPE_NULL) {
    cuda_emu_note("data type %d is not emulated (ncclInvalidArgument)", (int)datatype);
    return ncclInvalidArgument;
  }
  static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_SUM};
  if ((unsigned)op > ncclAvg) {
    cuda_emu_note("reduction %d (ncclInvalidArgument)", (int)op);
    return ncclInvalidArgument;
  }
  if (count > INT_MAX) {
    cuda_emu_note("%zu elements in one call exceed MPI's int count (ncclInvalidArgument)", count);
    return ncclInvalidArgument;
  }
  if (count == 0)
    return ncclSuccess;
  size_t bytes = count * size;
  cuda_emu_require_device("sendbuff", sendbuff, bytes);
  cuda_emu_require_device("recvbuff", recvbuff, bytes);
  uintptr_t s = (uintptr_t)sendbuff, r = (uintptr_t)recvbuff;
  if (s != r && s < r + bytes && r < s + bytes)
    cuda_emu_fail(recvbuff, "sendbuff %p and recvbuff %p overlap without being equal", sendbuff,
                  recvbuff);
  /* The collective takes its place on the stream (the sanitizer sees its buffers there); the
   * host then waits for the stream to reach it and runs MPI itself (MPI is the host's), so the
   * reduction lands before anything given to the stream after it. The host learns nothing by
   * this wait: a program must still synchronise before it relies on the result. */
  struct CUstream_st *st = cuda_emu_stream(stream, 0);
  if (st->cap)
    cuda_emu_fail(NULL, "ncclAllReduce on %s, which is being captured: not emulated",
                  cuda_emu_stream_label(st));
  struct emu_op *mark = cuda_emu_op_new(EMU_OP_COLL, "ncclAllReduce");
  cuda_emu_op_access(mark, sendbuff, bytes, 0, "sendbuff");
  cuda_emu_op_access(mark, recvbuff, bytes, 1, "recvbuff");
  uint64_t seq = cuda_emu_submit(stream, 0, mark, 0);
  cuda_emu_wait_op(st, seq);
  int rc = MPI_Allreduce(s == r ? MPI_IN_PLACE : sendbuff, recvbuff, (int)count, type, ops[op],
                         comm->comm);
  if (rc != MPI_SUCCESS)
    return mpi_failed_("MPI_Allreduce", rc);
  if (op == ncclAvg)
    average_(recvbuff, count, datatype, comm->nranks);
  return ncclSuccess;
}

/* One live writer per output directory: DIR/.lock held with an exclusive fcntl lock for the
 * whole run. The lock, not the file, is what counts: the kernel (or the NFS server) drops it
 * with its process, so a run that crashed never blocks the next; the file's text only names
 * the holder (pid, host, start time) for the refusal message. */
#ifndef FOX_DIRLOCK_H
#define FOX_DIRLOCK_H

#include "util/error.h"

struct dirlock {
  int fd; /* -1: not held */
  char path[4200];
};

/* Takes DIR/.lock (DIR must exist) without waiting, and writes this process's pid, host and
 * start time into it. FOX_EUSAGE naming the holder's pid and host when another process holds
 * it; FOX_EDATA when DIR does not exist. On a file system that cannot lock (NFSv3 without
 * lockd, Lustre mounted without -o flock) it warns on stderr and goes on unlocked. `who`
 * names the command in the file ("foxopt run"). */
int dirlock_take(struct dirlock *l, const char *dir, const char *who, struct fox_err *e);
/* Empties the file (no run holds it now) and drops the lock; nothing when not held. */
void dirlock_release(struct dirlock *l);

#endif

/* DIR/.lock: an exclusive fcntl (POSIX record) lock over the whole file, which works on local
 * file systems and over NFS (NFSv4 in the protocol, NFSv3 through lockd), and dies with its
 * process. POSIX locks belong to the process and drop when it closes any descriptor of the
 * file, so only this module opens it. The file is never removed: a run that unlinked it while
 * another had it open would let a third lock a new file beside the second's. */
#include "util/dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The holder writes its name right after taking the lock: only a run started within
 * milliseconds of it can find the file empty, and it waits this long for the name. */
#define DIRLOCK_WAIT_MS_ 2000
#define DIRLOCK_NAP_MS_ 20

static int lock_(int fd) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET; /* l_start = l_len = 0: the whole file, however long it grows */
  return fcntl(fd, F_SETLK, &fl);
}

/* "foxopt run, pid 123 on host n07, since 2025-01-02T03:04:05Z": fsync'd, because a refused
 * run on another NFS client reads it from the server. */
static int write_holder_(int fd, const char *who, const char *path, struct fox_err *e) {
  char host[256] = "", when[32] = "?", text[512];
  if (gethostname(host, sizeof host - 1) != 0)
    snprintf(host, sizeof host, "unknown");
  time_t now = time(NULL);
  struct tm tm;
  if (now != (time_t)-1 && gmtime_r(&now, &tm))
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  int n = snprintf(text, sizeof text, "%s, pid %ld on host %s, since %s\n", who, (long)getpid(),
                   host, when);
  errno = 0;
  if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n || fsync(fd) != 0)
    return fox_errf(e, FOX_EFAIL, "%s: cannot write this run's pid and host into it: %s", path,
                    errno ? strerror(errno) : "short write");
  return 0;
}

/* The pid holding the lock on fd (0: none, or unknown, as for a holder on another NFS client). */
static pid_t holder_pid_(int fd) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type == F_UNLCK)
    return 0;
  return fl.l_pid;
}

static void nap_(void) {
  struct timespec ts = {0, DIRLOCK_NAP_MS_ * 1000000L};
  nanosleep(&ts, NULL);
}

int dirlock_take(struct dirlock *l, const char *dir, const char *who, struct fox_err *e) {
  l->fd = -1;
  if (snprintf(l->path, sizeof l->path, "%s/.lock", dir) >= (int)sizeof l->path)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", dir);
  char holder[512] = "";
  for (int waited = 0;; waited += DIRLOCK_NAP_MS_) {
    /* A fresh descriptor each time: NFS revalidates a file's cached text when it is opened. */
    /* O_NOFOLLOW: a link planted as .lock never has the lock's text written over its target */
    int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
    if (fd < 0 && errno == ENOENT)
      return fox_errf(e, FOX_EDATA, "%s: no such directory", dir);
    if (fd < 0 && (errno == ELOOP || errno == ENXIO || errno == EOPNOTSUPP))
      return fox_errf(e, FOX_EDATA, "%s: not a regular file (a link, FIFO, device or socket) "
                                    "where foxopt keeps the directory's lock: remove it", l->path);
    if (fd < 0)
      return fox_errf(e, FOX_EFAIL, "%s: cannot open: %s", l->path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      close(fd);
      return fox_errf(e, FOX_EDATA, "%s: not a regular file (a link, FIFO, device or socket) "
                                    "where foxopt keeps the directory's lock: remove it", l->path);
    }
    if (lock_(fd) == 0) {
      l->fd = fd;
      int rc = write_holder_(fd, who, l->path, e);
      if (rc != 0)
        dirlock_release(l);
      return rc;
    }
    int err = errno;
    if (err != EAGAIN && err != EACCES) {
      /* ENOLCK (NFSv3 without lockd), ENOSYS or EOPNOTSUPP (Lustre without -o flock): refusing
       * would make such a file system unusable, so the run goes on and says what it lacks. */
      fprintf(stderr, "foxopt: warning: %s: the file system cannot lock it (%s): nothing keeps "
                      "a second run out of %s\n", l->path, strerror(err), dir);
      l->fd = fd;
      return write_holder_(fd, who, l->path, e);
    }
    ssize_t k = pread(fd, holder, sizeof holder - 1, 0);
    pid_t pid = holder_pid_(fd);
    close(fd);
    holder[k > 0 ? k : 0] = '\0';
    holder[strcspn(holder, "\n")] = '\0';
    /* The text may still be a dead run's until the new holder rewrites it: believe it only when
     * it names the pid the kernel says holds the lock (where the kernel knows). */
    char mine[32];
    snprintf(mine, sizeof mine, "pid %ld ", (long)pid);
    if (pid > 0 && !strstr(holder, mine))
      holder[0] = '\0';
    if (holder[0] || waited >= DIRLOCK_WAIT_MS_) {
      if (!holder[0] && pid > 0)
        snprintf(holder, sizeof holder, "pid %ld (which has not written its name yet)",
                 (long)pid);
      break;
    }
    nap_();
  }
  return fox_errf(e, FOX_EUSAGE, "%s is in use by %s (lock %s): wait for it to end, or stop "
                                 "it first", dir,
                  holder[0] ? holder : "another process that has not written its pid yet",
                  l->path);
}

void dirlock_release(struct dirlock *l) {
  if (l->fd < 0)
    return;
  /* Empty: nobody holds it. Only a stale name is left if this fails; the next holder
   * overwrites it, and the lock itself goes with the descriptor either way. */
  if (ftruncate(l->fd, 0) != 0)
    fprintf(stderr, "foxopt: warning: %s: cannot empty it: %s\n", l->path, strerror(errno));
  if (close(l->fd) != 0)
    fprintf(stderr, "foxopt: warning: %s: close failed: %s\n", l->path, strerror(errno));
  l->fd = -1;
}

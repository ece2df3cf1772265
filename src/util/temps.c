/* Temporaries removed by a signal: slots a writer claims and releases with atomics, read by the
 * handler, which may run in any thread at any moment (it only unlinks: async-signal-safe). */
#include "util/temps.h"

#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define SLOTS_ 64
enum { FREE_, BUSY_, READY_ }; /* BUSY_: its path is being written or taken away */

static char path_[SLOTS_][PATH_MAX + 32];
static int state_[SLOTS_];

void temps_add(const char *tmp) {
  if (strlen(tmp) >= sizeof path_[0])
    return;
  for (int i = 0; i < SLOTS_; i++) {
    int want = FREE_;
    if (__atomic_compare_exchange_n(&state_[i], &want, BUSY_, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      strcpy(path_[i], tmp);
      __atomic_store_n(&state_[i], READY_, __ATOMIC_RELEASE);
      return;
    }
  }
}

void temps_drop(const char *tmp) {
  for (int i = 0; i < SLOTS_; i++) {
    int want = READY_;
    if (__atomic_load_n(&state_[i], __ATOMIC_ACQUIRE) == READY_ && strcmp(path_[i], tmp) == 0 &&
        __atomic_compare_exchange_n(&state_[i], &want, BUSY_, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      __atomic_store_n(&state_[i], FREE_, __ATOMIC_RELEASE);
      return;
    }
  }
}

static void on_signal_(int sig) {
  for (int i = 0; i < SLOTS_; i++)
    if (__atomic_load_n(&state_[i], __ATOMIC_ACQUIRE) == READY_)
      unlink(path_[i]);
  /* SA_RESETHAND put the default back; the signal, blocked in here, ends the process on
   * return with the status the shell expects (130 for Ctrl-C) */
  raise(sig);
}

void temps_install(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) {
    struct sigaction old, sa;
    if (sigaction(sigs[k], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
      continue; /* ignored (nohup) or handled already */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal_;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[k], &sa, NULL);
  }
}

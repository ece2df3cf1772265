/* The stop flag behind SIGTERM and SIGUSR1. */
#include "util/stop.h"

#include <string.h>

static volatile sig_atomic_t flag_;

static void on_signal_(int sig) { flag_ = sig; }

const volatile sig_atomic_t *stop_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal_;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  return &flag_;
}

int stop_signal(void) { return (int)flag_; }

void stop_request(int sig) { flag_ = sig; }

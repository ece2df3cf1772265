/* For the emulation's own tests: run a function in a child process and judge how it ended, so
 * that a misuse that aborts (as the emulation makes it) can be watched without ending the
 * test. The child's stderr is captured. */
#ifndef FOX_TEST_CHILD_H
#define FOX_TEST_CHILD_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fox_check.h"

/* Runs fn in a child; its stderr into out (NUL-terminated); returns the wait status. */
static int child_run_(void (*fn)(void), char *out, size_t cap) {
  fflush(stdout);
  fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(out, cap, "pipe failed");
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    fn();
    fflush(stderr);
    _exit(0);
  }
  close(fds[1]);
  size_t len = 0;
  ssize_t got;
  while ((got = read(fds[0], out + len, cap - 1 - len)) > 0)
    len += (size_t)got;
  out[len] = '\0';
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

/* `misuse` must die (of SIGABRT when `abort_only`) with `want` in its stderr, on a line that
 * names `site` when that is not NULL; returns its stderr (a static buffer) for more checks. */
static const char *expect_death_(const char *what, void (*misuse)(void), const char *want,
                                 const char *site, int abort_only) {
  static char out[1 << 16];
  int status = child_run_(misuse, out, sizeof out);
  int died = abort_only ? WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT
                        : WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
  CHECK(died, "%s: the child ended with status %#x; its stderr:\n%s", what, status, out);
  const char *hit = strstr(out, want);
  CHECK(hit != NULL, "%s: stderr lacks \"%s\":\n%s", what, want, out);
  if (hit) { /* the line that says it */
    static char line[1024];
    while (hit > out && hit[-1] != '\n')
      hit--;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(hit, "\n"), hit);
    CHECK(!site || strstr(line, site), "%s: the message names another call site: %s", what,
          line);
    printf("%-34s %s\n", what, line);
  }
  return out;
}

/* `fn` must end normally with status 0 and say nothing of the emulation's. */
static void expect_clean_(const char *what, void (*fn)(void)) {
  static char out[1 << 16];
  int status = child_run_(fn, out, sizeof out);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && !strstr(out, "cuda-emu:"),
        "%s: the child ended with status %#x; its stderr:\n%s", what, status, out);
}

#endif

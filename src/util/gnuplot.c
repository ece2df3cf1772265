/* Running gnuplot: posix_spawnp rather than system(), so that no shell sees the paths. */
#include "util/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int gnuplot_find(void) {
  const char *path = getenv("PATH");
  if (!path || !*path)
    return 0;
  char dir[4096];
  for (const char *p = path;;) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    /* an empty entry is the current directory */
    int n = snprintf(dir, sizeof dir, "%.*s/gnuplot", (int)len, len ? p : ".");
    if (n > 0 && n < (int)sizeof dir && access(dir, X_OK) == 0)
      return 1;
    if (!colon)
      return 0;
    p = colon + 1;
  }
}

/* The last non-empty line of the log: gnuplot ends with the error that stopped it. */
static void last_line_(const char *log, char *out, size_t n) {
  out[0] = '\0';
  FILE *f = fopen(log, "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (line[strspn(line, " \t^")] != '\0')
      snprintf(out, n, "%s", line);
  }
  fclose(f);
}

int gnuplot_run(const char *script, const char *log, const char *what, struct fox_err *e) {
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0)
    return fox_errf(e, FOX_EFAIL, "%s: cannot start gnuplot: out of memory", what);
  int rc = posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
  if (rc == 0)
    rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  char *argv[] = {"gnuplot", (char *)script, NULL};
  if (rc == 0)
    rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return fox_errf(e, FOX_EFAIL, "%s: cannot start gnuplot: %s", what, strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return fox_errf(e, FOX_EFAIL, "%s: waiting for gnuplot: %s", what, strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  char msg[512];
  last_line_(log, msg, sizeof msg);
  if (WIFEXITED(status))
    return fox_errf(e, FOX_EFAIL, "%s: gnuplot failed (exit status %d)%s%s", what,
                    WEXITSTATUS(status), msg[0] ? ": " : "", msg);
  return fox_errf(e, FOX_EFAIL, "%s: gnuplot was killed by signal %d", what,
                  WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

void gnuplot_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    fputc(*s == '\n' ? ' ' : *s, f);
  }
  fputc('\'', f);
}

/* The names nearest to a misspelt one, for "did you mean ...?" in messages. */
#include "util/nearest.h"

#include <stdio.h>
#include <string.h>

/* Optimal string alignment distance (Levenshtein with adjacent swaps), capped at 255. */
static int distance_(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 62 || m > 62)
    return 255;
  int d[64][64];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int cost = a[i - 1] != b[j - 1];
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v)
        v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v)
        v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m];
}

void nearest_names(const char *word, const char *const *names, int n, char *buf, size_t size) {
  /* Near: within a third of the word's length (at least 2 edits), or the word is a part of
   * the name ("lr" -> dqn.lr, ppo.lr). */
  int best[3] = {0}, dist[3] = {256, 256, 256}, found = 0;
  int limit = (int)strlen(word) / 3 < 2 ? 2 : (int)strlen(word) / 3;
  for (int i = 0; n < 0 ? names[i] != NULL : i < n; i++) {
    int d = distance_(word, names[i]);
    if (d > limit && !(strlen(word) >= 2 && strstr(names[i], word)))
      continue;
    if (d > limit)
      d = limit + 1; /* after every near spelling */
    for (int k = 0; k < 3; k++)
      if (d < dist[k]) {
        for (int j = 2; j > k; j--)
          best[j] = best[j - 1], dist[j] = dist[j - 1];
        best[k] = i, dist[k] = d;
        found += found < 3;
        break;
      }
  }
  buf[0] = '\0';
  if (!found)
    return;
  size_t len = (size_t)snprintf(buf, size, "did you mean ");
  for (int k = 0; k < found && len < size; k++)
    len += (size_t)snprintf(buf + len, size - len, "%s'%s'", k == 0 ? "" : k == found - 1 ? " or " : ", ",
                            names[best[k]]);
  if (len < size)
    snprintf(buf + len, size - len, "?");
}

/* The report page's building blocks: HTML escaping byte by byte, the Pareto front against a
 * brute-force check of every pair on hand-made and random tables (ties, mixed directions,
 * missing objectives, trials that are not complete), a long line thinned without losing its
 * extremes, and pages written from constructed studies: the Pareto section holds exactly the
 * front and is absent with one objective, the study's name comes out escaped, a study without
 * trials still gets its page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fox_check.h"
#include "views/html.h"
#include "util/text.h"
#include "report/report.h"
#include "views/figure.h"
#include "views/svg.h"
#include "study/study.h"
#include "study/work.h"
#include "util/rng.h"

static char *escaped_(const char *s) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  text_escape_html(f, s);
  fclose(f);
  return buf;
}

static void test_escape(void) {
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"", ""},
      {"plain text 1.5e-3", "plain text 1.5e-3"},
      {"<b>&\"", "&lt;b&gt;&amp;&quot;"},
      {"it's", "it&#39;s"},
      {"&amp;", "&amp;amp;"}, /* already escaped text is text: escaped again */
      {"</script><script>alert(1)</script>",
       "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"},
      {"a\tb\nc\rd", "a\tb\nc\rd"},
      {"bell\a esc\x1b del\x7f", "bell&#xfffd; esc&#xfffd; del&#xfffd;"},
      {"caf\xc3\xa9 \xe2\x89\xa4", "caf\xc3\xa9 \xe2\x89\xa4"}, /* UTF-8 passes through */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *got = escaped_(cases[i].in);
    CHECK(strcmp(got, cases[i].out) == 0, "escape case %zu: '%s', expected '%s'", i, got,
          cases[i].out);
    free(got);
  }
  /* Every byte: none of the five specials nor a control byte survives. */
  char all[256];
  for (int c = 1; c < 256; c++)
    all[c - 1] = (char)c;
  all[255] = '\0';
  char *got = escaped_(all);
  int bad = 0;
  for (const char *p = got; *p; p++) {
    unsigned char c = (unsigned char)*p;
    bad |= c == '<' || c == '>' || c == '"' || c == '\'' || c == 0x7f ||
           (c < 0x20 && c != '\t' && c != '\n' && c != '\r');
    if (c == '&') /* only as the start of a reference */
      bad |= strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
             strncmp(p, "&quot;", 6) && strncmp(p, "&#39;", 5) && strncmp(p, "&#xfffd;", 8);
  }
  CHECK(!bad, "every byte escaped: %s", got);
  free(got);
}

/* A study of n trials with the given objectives: only what report_front reads. */
static struct study *study_(int n, int n_obj, const int *metric, const int *dir) {
  struct study *s = calloc(1, sizeof *s);
  s->trials = calloc((size_t)(n ? n : 1), sizeof *s->trials);
  s->n = s->cap = n;
  s->n_obj = n_obj;
  s->n_metrics = FOX_STUDY_METRICS;
  for (int k = 0; k < n_obj; k++)
    s->obj_metric[k] = metric[k], s->obj_dir[k] = dir[k];
  for (int i = 0; i < n; i++) {
    s->trials[i].id = i;
    s->trials[i].status = FOX_ST_COMPLETE;
    s->trials[i].epochs = 3;
    for (int m = 0; m < FOX_STUDY_METRICS; m++)
      s->trials[i].metrics[m] = NAN;
  }
  return s;
}

static void free_(struct study *s) {
  free(s->trials);
  free(s);
}

/* The front by definition: every feasible trial that no feasible trial dominates, each pair
 * compared in the metrics' own directions. */
static int brute_(const struct study *s, int *ids) {
  int n = 0;
  for (int i = 0; i < s->n; i++) {
    const struct study_trial *a = &s->trials[i];
    int ok = a->status == FOX_ST_COMPLETE && a->epochs > 0;
    for (int k = 0; k < s->n_obj; k++)
      ok &= !isnan(a->metrics[s->obj_metric[k]]);
    if (!ok)
      continue;
    int dominated = 0;
    for (int j = 0; j < s->n && !dominated; j++) {
      const struct study_trial *b = &s->trials[j];
      int fb = b->status == FOX_ST_COMPLETE && b->epochs > 0;
      for (int k = 0; k < s->n_obj; k++)
        fb &= !isnan(b->metrics[s->obj_metric[k]]);
      if (!fb || j == i)
        continue;
      int no_worse = 1, better = 0;
      for (int k = 0; k < s->n_obj; k++) {
        double x = a->metrics[s->obj_metric[k]], y = b->metrics[s->obj_metric[k]];
        if (s->obj_dir[k] == FOX_MAXIMIZE) {
          no_worse &= y >= x;
          better |= y > x;
        } else {
          no_worse &= y <= x;
          better |= y < x;
        }
      }
      dominated = no_worse && better;
    }
    if (!dominated)
      ids[n++] = a->id;
  }
  return n;
}

static void expect_front_(const struct study *s, const int *want, int nwant, const char *what) {
  int got[64];
  int n = report_front(s, got);
  int same = n == nwant;
  for (int i = 0; same && i < n; i++)
    same = got[i] == want[i];
  char g[256] = "";
  for (int i = 0; i < n; i++)
    snprintf(g + strlen(g), sizeof g - strlen(g), " %d", got[i]);
  CHECK(same, "%s: front {%s }, %d expected", what, g, nwant);
}

static void set_(struct study *s, int id, double a, double b) {
  s->trials[id].metrics[0] = a;
  s->trials[id].metrics[1] = b;
}

static void test_pareto_by_hand(void) {
  static const int m01[2] = {0, 1}, maxmax[2] = {FOX_MAXIMIZE, FOX_MAXIMIZE},
                   maxmin[2] = {FOX_MAXIMIZE, FOX_MINIMIZE};
  /* Both maximised: 2 is dominated by 1, 4 by everyone; 5 equals 1 and neither dominates. */
  struct study *s = study_(6, 2, m01, maxmax);
  set_(s, 0, 1, 5), set_(s, 1, 2, 4), set_(s, 2, 2, 3), set_(s, 3, 3, 1), set_(s, 4, 0, 0);
  set_(s, 5, 2, 4);
  expect_front_(s, (const int[]){0, 1, 3, 5}, 4, "max/max");
  /* Trials that are not complete, or lack an objective, are off it however good: 6 would
   * dominate everything. */
  free_(s);
  s = study_(10, 2, m01, maxmax);
  set_(s, 0, 1, 5), set_(s, 1, 2, 4), set_(s, 2, 2, 3), set_(s, 3, 3, 1), set_(s, 4, 0, 0);
  set_(s, 5, 2, 4);
  for (int i = 6; i < 10; i++)
    set_(s, i, 9, 9);
  s->trials[6].status = FOX_ST_PRUNED;
  s->trials[7].status = FOX_ST_RUNNING;
  s->trials[8].status = FOX_ST_FAILED;
  s->trials[9].metrics[1] = NAN;
  expect_front_(s, (const int[]){0, 1, 3, 5}, 4, "not complete or no objective");
  s->trials[9].metrics[1] = 9; /* now it is complete with both: it dominates all the rest */
  expect_front_(s, (const int[]){9}, 1, "one dominating trial");
  free_(s);
  /* The first maximised, the second minimised: 2 (2, 1) dominates 0 (1, 1) and 1 (2, 2); 3
   * (0, 0) is best in the second. */
  s = study_(4, 2, m01, maxmin);
  set_(s, 0, 1, 1), set_(s, 1, 2, 2), set_(s, 2, 2, 1), set_(s, 3, 0, 0);
  expect_front_(s, (const int[]){2, 3}, 2, "max/min");
  /* Directions swapped, the same points: the front changes to its mirror. */
  s->obj_dir[0] = FOX_MINIMIZE, s->obj_dir[1] = FOX_MAXIMIZE;
  expect_front_(s, (const int[]){0, 1, 3}, 3, "min/max");
  free_(s);
  /* One objective: the trials tied for the best. */
  static const int m3[1] = {3}, mx[1] = {FOX_MAXIMIZE};
  s = study_(5, 1, m3, mx);
  double v[5] = {1, 7, 3, 7, -2};
  for (int i = 0; i < 5; i++)
    s->trials[i].metrics[3] = v[i];
  expect_front_(s, (const int[]){1, 3}, 2, "one objective");
  s->trials[1].metrics[3] = -INFINITY;
  s->trials[4].metrics[3] = INFINITY; /* an infinity is a value (a profit factor's can be) */
  expect_front_(s, (const int[]){4}, 1, "infinite objective");
  free_(s);
  /* No trial, and no feasible one. */
  s = study_(0, 2, m01, maxmax);
  expect_front_(s, NULL, 0, "empty study");
  free_(s);
  s = study_(3, 2, m01, maxmax);
  expect_front_(s, NULL, 0, "no objective anywhere");
  free_(s);
}

/* Random tables, values on a small grid so that ties are common. */
static void test_pareto_random(void) {
  struct rng r;
  rng_seed(&r, 20240611);
  int worst = 0;
  for (int c = 0; c < 3000; c++) {
    int n = (int)(rng_next(&r) % 41), n_obj = 1 + (int)(rng_next(&r) % FOX_OBJ_MAX);
    int metric[FOX_OBJ_MAX], dir[FOX_OBJ_MAX];
    for (int k = 0; k < n_obj; k++) {
      metric[k] = (int)(rng_next(&r) % 6); /* repeats allowed: max and min of one metric */
      dir[k] = (int)(rng_next(&r) % 2);
    }
    struct study *s = study_(n, n_obj, metric, dir);
    int levels = 2 + (int)(rng_next(&r) % 6);
    for (int i = 0; i < n; i++) {
      struct study_trial *t = &s->trials[i];
      for (int m = 0; m < 6; m++)
        t->metrics[m] = (double)(rng_next(&r) % (uint64_t)levels) - 2;
      uint64_t u = rng_next(&r) % 20;
      t->status = u < 14 ? FOX_ST_COMPLETE : u < 16 ? FOX_ST_PRUNED : u < 18 ? FOX_ST_FAILED
                                                                         : FOX_ST_RUNNING;
      if (rng_next(&r) % 15 == 0)
        t->metrics[metric[rng_next(&r) % (uint64_t)n_obj]] = NAN;
      if (rng_next(&r) % 30 == 0)
        t->epochs = 0;
    }
    int want[64], got[64];
    int nw = brute_(s, want), ng = report_front(s, got);
    int same = nw == ng;
    for (int i = 0; same && i < ng; i++)
      same = want[i] == got[i];
    if (!same && worst++ < 5)
      CHECK(same, "random case %d (n %d, %d objectives): %d on the front, brute force %d", c, n,
            n_obj, ng, nw);
    else
      CHECK(same, "random case %d", c);
    free_(s);
  }
}

/* A line of 200,000 points in a 600-unit plot: thinned to at most 4 points per half unit,
 * its lowest and highest points (one-bar spikes) still drawn. */
static void test_line(void) {
  long n = 200000;
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  for (long i = 0; i < n; i++)
    x[i] = (double)i, y[i] = sin(i * 1e-3);
  y[123457] = 5;   /* the spikes the thinning must keep */
  y[54321] = -7;
  y[n / 2] = NAN;  /* a gap: two pieces */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  struct svg g = {.left = 40, .right = 10, .top = 10, .bottom = 30};
  svg_begin(&g, f, 600, 300, "line");
  g.x = (struct svg_axis){0, (double)(n - 1), 0};
  g.y = (struct svg_axis){-8, 6, 0};
  svg_line(&g, x, y, n, "eq");
  svg_end(&g);
  fclose(f);
  long points = 0, moves = 0;
  for (const char *p = buf; *p; p++) {
    points += *p == 'L' || *p == 'M';
    moves += *p == 'M';
  }
  CHECK(points > 1000 && points <= 4 * 2 * 550 + 8, "%ld points drawn for %ld", points, n);
  CHECK(moves == 2, "%ld pieces, expected 2 (the NaN breaks the line)", moves);
  char top[32], bottom[32];
  snprintf(top, sizeof top, " %.1f", svg_py(&g, 5));
  snprintf(bottom, sizeof bottom, " %.1f", svg_py(&g, -7));
  CHECK(strstr(buf, top) != NULL, "the highest point (y %s) kept", top);
  CHECK(strstr(buf, bottom) != NULL, "the lowest point (y %s) kept", bottom);
  free(buf), free(x), free(y);
}

static const char yaml_[] =
    "study: {name: \"a<b>&\\\"'z\", seed: 5, trials: 6, round_size: 6,\n"
    "        objective: {function: branin, direction: minimize}}\n"
    "parameters:\n"
    "  x0: {distribution: uniform, min: -5, max: 10}\n"
    "  x1: {distribution: uniform, min: 0, max: 15}\n";

static char *slurp_(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  buf[fread(buf, 1, (size_t)n, f)] = '\0';
  fclose(f);
  return buf;
}

/* The ids in the first column of table `id`, in order, as " 1 4 5". */
static void column_(const char *page, const char *id, char *out, size_t n) {
  out[0] = '\0';
  char open[64];
  snprintf(open, sizeof open, "<table id=\"%s\">", id);
  const char *p = strstr(page, open), *end = p ? strstr(p, "</table>") : NULL;
  while (p && (p = strstr(p, "<tr><td>")) && p < end) {
    p += 8;
    snprintf(out + strlen(out), n - strlen(out), " %d", atoi(p));
  }
}

static void test_page(void) {
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, yaml_, NULL, "t.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  struct work_item *items = malloc((size_t)study_max_items(&s) * sizeof *items);
  int n = 0;
  rc = study_next_work(&s, items, &n, &e);
  free(items);
  CHECK(rc == 0 && s.n == 6, "proposed %d trials: %s", s.n, e.msg);
  if (rc != 0 || s.n != 6) {
    study_free(&s);
    return;
  }
  /* Two objectives on two value columns (the study layer has one for now): value minimised,
   * value2 maximised. Front: 1 (1, 1), 3 (2, 5), 4 (4, 9); 0 (2, 3), 2 (5, 5) dominated, 5
   * pruned. */
  double v[6][2] = {{2, 3}, {1, 1}, {5, 5}, {2, 5}, {4, 9}, {0, 99}};
  s.n_metrics = 2;
  snprintf(s.metric_names[1], sizeof s.metric_names[1], "value2");
  for (int i = 0; i < 6; i++) {
    struct study_trial *t = &s.trials[i];
    t->status = i == 5 ? FOX_ST_PRUNED : FOX_ST_COMPLETE;
    t->epochs = 1;
    t->rank = 0;
    t->metrics[0] = v[i][0];
    t->metrics[1] = v[i][1];
  }
  s.n_obj = 2;
  s.obj_metric[0] = 0, s.obj_dir[0] = FOX_MINIMIZE;
  s.obj_metric[1] = 1, s.obj_dir[1] = FOX_MAXIMIZE;
  int order[6];
  report_rank(&s, order);
  char dir[] = "/tmp/fox_test_html.XXXXXX", path[256];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(path, sizeof path, "%s/report.html", dir);
  struct html_page page = {&s, order, 10, dir, NULL, NULL};
  rc = html_write(&page, path, NULL, &e);
  CHECK(rc == 0, "html_write: %s", e.msg);
  char *text = slurp_(path);
  CHECK(text != NULL, "%s: not written", path);
  if (text) {
    char ids[256];
    column_(text, "pareto-rows", ids, sizeof ids);
    CHECK(strcmp(ids, " 1 3 4") == 0, "the page's front:%s, expected 1 3 4", ids);
    CHECK(strstr(text, "a&lt;b&gt;&amp;&quot;&#39;z") != NULL, "the study's name escaped");
    CHECK(strstr(text, "<b>") == NULL, "no raw <b> from the study's name");
    CHECK(strstr(text, "value (min)") && strstr(text, "value2 (max)"),
          "each objective's column says its direction");
    CHECK(strstr(text, "<script") == NULL, "no script");
    free(text);
  }
  /* No trial yet (a run stopped before its first step): a page all the same. */
  int n_all = s.n;
  s.n = 0;
  rc = html_write(&page, path, NULL, &e);
  CHECK(rc == 0, "html_write of a study without trials: %s", e.msg);
  text = slurp_(path);
  CHECK(text && strstr(text, "No trial has been recorded yet.") && strstr(text, "</html>"),
        "a study without trials: its page says so");
  free(text);
  s.n = n_all;
  /* One objective: no Pareto section. */
  s.n_obj = 1;
  rc = html_write(&page, path, NULL, &e);
  CHECK(rc == 0, "html_write: %s", e.msg);
  text = slurp_(path);
  CHECK(text && !strstr(text, "id=\"pareto\"") && strstr(text, "id=\"history\""),
        "one objective: no Pareto section, the rest still there");
  free(text);
  unlink(path);
  rmdir(dir);
  study_free(&s);
}

/* A time axis's tick labels from an SVG drawn over [lo, hi] (UTC seconds). */
static char *time_axis_(double lo, double hi) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  struct svg g = {.right = 12, .top = 10, .em = 17};
  g.x = (struct svg_axis){.lo = lo, .hi = hi, .time = 1};
  g.y = (struct svg_axis){.lo = 0, .hi = 1};
  svg_begin(&g, f, 600, 330, "t");
  svg_axes(&g, "time", NULL, NULL, 0);
  svg_end(&g);
  fclose(f);
  return buf;
}

/* Round times as dates: days across a week, hours within a day, firsts of months across a
 * year (worked out by hand: 2018-01-01 00:00 UTC is 1514764800), every tick inside the range,
 * at least two. */
static void test_time_axis(void) {
  const double jan1 = 1514764800;
  char *a = time_axis_(jan1 + 3600, jan1 + 7 * 86400 - 3600); /* 01-01 01:00 .. 01-07 23:00 */
  CHECK(strstr(a, ">2018-01-03<") && strstr(a, ">2018-01-05<") && strstr(a, ">2018-01-07<") &&
            !strstr(a, ">2018-01-01<"),
        "every other day within a week: %s", a);
  free(a);
  a = time_axis_(jan1 + 5 * 3600 + 60, jan1 + 17 * 3600); /* 05:01 .. 17:00 */
  CHECK(strstr(a, ">01-01 06:00<") && strstr(a, ">01-01 12:00<") && !strstr(a, ">01-01 03:00<"),
        "hours within a day: %s", a);
  free(a);
  a = time_axis_(jan1 + 86400, jan1 + 364 * 86400); /* 2018-01-02 .. 2018-12-31 */
  CHECK(strstr(a, ">2018-04-01<") && strstr(a, ">2018-07-01<") && strstr(a, ">2018-10-01<") &&
            !strstr(a, ">2018-01-01<"),
        "firsts of months across a year: %s", a);
  free(a);
  a = time_axis_(jan1 + 1800, jan1 + 5400); /* 00:30 .. 01:30: at least two ticks */
  int ticks = 0;
  for (const char *p = a; (p = strstr(p, ">01-01 ")) != NULL; p++)
    ticks++;
  CHECK(ticks >= 2, "at least two ticks in an hour: %d", ticks);
  free(a);
  a = time_axis_(jan1 - 40 * 365.25 * 86400, jan1 - 8 * 365.25 * 86400); /* 1978 .. 2010 */
  ticks = 0;
  for (const char *p = a; (p = strstr(p, "-01-01<")) != NULL; p++)
    ticks++;
  CHECK(ticks >= 2 && ticks <= 8, "32 years: %d year ticks (every few years)", ticks);
  free(a);
  a = time_axis_(jan1 + 7, jan1 + 50); /* 43 seconds of 1-second bars */
  CHECK(strstr(a, ">00:00:15<") && strstr(a, ">00:00:30<") && strstr(a, ">00:00:45<"),
        "seconds: %s", a);
  free(a);
}

/* An axis of counts (epochs 1 .. 3) is ticked at whole numbers only; a plain one halves. */
static void test_integer_axis(void) {
  for (int integer = 0; integer < 2; integer++) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    struct svg g = {.right = 12, .top = 10, .em = 17};
    g.x = (struct svg_axis){.lo = 0.5, .hi = 3.5, .integer = integer};
    g.y = (struct svg_axis){.lo = 0, .hi = 1};
    svg_begin(&g, f, 600, 330, "t");
    svg_axes(&g, "epoch", NULL, NULL, 0);
    svg_end(&g);
    fclose(f);
    int halves = strstr(buf, ">1.5<") != NULL || strstr(buf, ">2.5<") != NULL;
    CHECK(strstr(buf, ">1<") && strstr(buf, ">2<") && strstr(buf, ">3<") && halves == !integer,
          "%s axis over 0.5 .. 3.5: %s", integer ? "an integer" : "a plain", buf);
    free(buf);
  }
}

/* A figure's standalone file: the heading, the part, the legend and the notes, escaped; notes
 * past what it keeps are said to be on the page, not dropped silently. */
static void test_figure_file(void) {
  struct figure fg;
  struct fox_err e = {0};
  figure_init(&fg, "t", "a <b> & c");
  FILE *f = figure_part_begin(&fg, &e);
  CHECK(f != NULL, "%s", e.msg);
  fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 300 200\"></svg>\n", f);
  CHECK(figure_part_end(&fg, NULL, 300, 200, "x0 (log scale)", &e) == 0, "%s", e.msg);
  figure_key(&fg, 'o', "c", "complete");
  for (int i = 0; i < 3; i++)
    figure_note(&fg, "a note & one more");
  size_t n = 0;
  double w, h;
  char *svg = figure_standalone(&fg, &n, &w, &h);
  CHECK(svg && strstr(svg, ">a &lt;b&gt; &amp; c<") && strstr(svg, ">x0 (log scale)<") &&
            strstr(svg, ">complete<") && strstr(svg, ">a note &amp; one more<") &&
            !strstr(svg, "more notes") && w == 480 && h > 200,
        "the file: %s", svg ? svg : "(none)");
  free(svg);
  for (int i = 0; i < 12; i++)
    figure_note(&fg, "another note");
  svg = figure_standalone(&fg, &n, &w, &h);
  CHECK(svg && strstr(svg, "and more notes: report.html has them all"), "notes cut: %s",
        svg ? svg : "(none)");
  free(svg);
  figure_free(&fg);
}

int main(void) {
  test_escape();
  test_figure_file();
  test_time_axis();
  test_integer_axis();
  test_pareto_by_hand();
  test_pareto_random();
  test_line();
  test_page();
  return fox_check_done("test_html");
}

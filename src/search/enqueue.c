/* The `enqueue:` section: parameter sets a study evaluates first, in order, as Optuna's
 * enqueue_trial. Each is a mapping of every parameter active under it to one value of its
 * distribution; every rejection names FILE:LINE and the key. */
#include "search/enqueue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_yaml.h"

static const char *scalar_(yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static int param_index_(const struct space *sp, const char *key) {
  for (int i = 0; i < sp->n; i++)
    if (strcmp(sp->p[i].key, key) == 0)
      return i;
  return -1;
}

/* What the distribution takes, in the refusal of a value it does not. */
static int bad_value_(const struct space_param *p, const char *where, const char *text,
                      struct fox_err *e) {
  if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
    char list[512] = "";
    for (int k = 0; k < p->n_choices; k++) {
      size_t at = strlen(list);
      snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", p->choice[k]);
    }
    return fox_errf(e, FOX_EUSAGE, "%s.%s = %s: expected one of its values: %s", where, p->key,
                    text, list);
  }
  double lo, hi, step;
  int log_scale;
  space_numeric(p, &lo, &hi, &step, &log_scale);
  char grid[64] = "";
  if (step > 0)
    snprintf(grid, sizeof grid, ", a multiple of %.15g from the minimum", step);
  return fox_errf(e, FOX_EUSAGE, "%s.%s = %s: expected a number in [%.15g, %.15g]%s", where,
                  p->key, text, lo, hi, grid);
}

/* One set: its values, then every parameter active under them given, no inactive one. */
static int load_set_(const struct space *sp, yaml_document_t *doc, yaml_node_t *m, int k,
                     const char *name, double *x, struct fox_err *e) {
  char where[1200];
  snprintf(where, sizeof where, "%s:%zu: enqueue[%d]", name, m->start_mark.line + 1, k);
  if (m->type != YAML_MAPPING_NODE)
    return fox_errf(e, FOX_EUSAGE, "%s: expected a mapping of parameters to values, e.g. "
                                   "{dqn.lr: 1.0e-3}", where);
  for (int i = 0; i < FOX_SPACE_MAX; i++)
    x[i] = NAN;
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    yaml_node_t *kn = yaml_document_get_node(doc, p->key), *vn = yaml_document_get_node(doc, p->value);
    const char *key = kn->type == YAML_SCALAR_NODE ? scalar_(kn) : "?";
    int i = param_index_(sp, key);
    if (i < 0)
      return fox_errf(e, FOX_EUSAGE, "%s.%s: not a parameter of the study (parameters:)", where,
                      key);
    if (!isnan(x[i]))
      return fox_errf(e, FOX_EUSAGE, "%s.%s: given twice", where, key);
    char text[FOX_CHOICE_LEN];
    if (space_render(doc, vn, text, sizeof text) != 0 || space_value(&sp->p[i], text, &x[i]) != 0)
      return bad_value_(&sp->p[i], where,
                        space_render(doc, vn, text, sizeof text) == 0 ? text : "(a mapping)", e);
  }
  for (int i = 0; i < sp->n; i++) {
    int active = space_active(sp, i, x);
    if (active && isnan(x[i]) && sp->p[i].dist == FOX_DIST_FIXED)
      x[i] = 0; /* its one value */
    if (active && isnan(x[i]))
      return fox_errf(e, FOX_EUSAGE, "%s: parameters.%s is not given (an enqueued set names "
                                     "every parameter active under it)", where, sp->p[i].key);
    if (!active && !isnan(x[i]))
      return fox_errf(e, FOX_EUSAGE, "%s.%s: not active under this set's train.algo", where,
                      sp->p[i].key);
  }
  return 0;
}

static int load_doc_(struct enqueue *q, const struct space *sp, yaml_document_t *doc,
                     const char *name, struct fox_err *e) {
  yaml_node_t *root = yaml_document_get_root_node(doc);
  if (!root || root->type != YAML_MAPPING_NODE)
    return 0;
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
       p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
    if (k->type != YAML_SCALAR_NODE || strcmp(scalar_(k), "enqueue") != 0)
      continue;
    if (v->type == YAML_SCALAR_NODE && scalar_(v)[0] == '\0')
      continue; /* `enqueue:` with nothing under it */
    if (v->type != YAML_SEQUENCE_NODE)
      return fox_errf(e, FOX_EUSAGE, "%s:%zu: enqueue: expected a list of parameter sets",
                      name, k->start_mark.line + 1);
    int n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n > FOX_ENQUEUE_MAX)
      return fox_errf(e, FOX_EUSAGE, "%s:%zu: enqueue: %d sets, at most %d", name,
                      k->start_mark.line + 1, n, FOX_ENQUEUE_MAX);
    q->x = calloc(n ? (size_t)n : 1, sizeof *q->x);
    if (!q->x)
      return fox_errf(e, FOX_EFAIL, "%s: out of memory", name);
    for (int j = 0; j < n; j++) {
      yaml_node_t *m = yaml_document_get_node(doc, v->data.sequence.items.start[j]);
      FOX_TRY(load_set_(sp, doc, m, j, name, q->x[j], e));
      q->n = j + 1;
    }
  }
  return 0;
}

int enqueue_load_text(struct enqueue *q, const struct space *sp, const char *text,
                      const char *name, struct fox_err *e) {
  memset(q, 0, sizeof *q);
  yaml_document_t doc;
  FOX_TRY(config_yaml_load(&doc, text, strlen(text), name, e));
  int rc = load_doc_(q, sp, &doc, name, e);
  yaml_document_delete(&doc);
  if (rc != 0)
    enqueue_free(q);
  return rc;
}

void enqueue_free(struct enqueue *q) {
  free(q->x);
  memset(q, 0, sizeof *q);
}

/* The bounded YAML loader: libyaml's events built into a libyaml document by hand, so that each
 * bound of config.h is checked as the text is read, before it can cost anything. */
#include "config/config_yaml.h"
#include "util/text.h"

#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* An open sequence or mapping. */
struct frame_ {
  int node;      /* its id in the document */
  int key;       /* a mapping's key still waiting for its value, or 0 */
  size_t count0; /* the values counted before it opened */
  int anchor;    /* its anchor's index, or -1 */
};

struct anchor_ {
  char *name;
  int node;
  size_t weight; /* the values an alias to it repeats; 0 while the node is still open */
};

struct builder_ {
  yaml_document_t *doc;
  int have_doc;
  const char *name;
  struct frame_ open[FOX_CONFIG_MAX_DEPTH];
  int depth;
  struct anchor_ *anchors;
  size_t n_anchors, cap_anchors;
  size_t count; /* values so far, an alias counting as every value it repeats */
};

void config_yaml_position(const char *text, size_t off, size_t *line, size_t *col) {
  size_t start = 0;
  *line = 1;
  for (size_t i = 0; i < off; i++)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == off || text[i + 1] != '\n'))) {
      (*line)++;
      start = i + 1;
    }
  *col = 1;
  for (size_t i = start; i < off; i++)
    *col += ((unsigned char)text[i] & 0xC0) != 0x80; /* UTF-8 continuation bytes add nothing */
}

static size_t line_(const yaml_event_t *ev) { return ev->start_mark.line + 1; }

/* libyaml reports an encoding error at a byte offset and leaves its mark at the start (1:1),
 * so the position is worked out from the offset. */
static int parse_error_(const yaml_parser_t *p, const char *text, const char *name,
                        struct fox_err *e) {
  if (p->error == YAML_MEMORY_ERROR)
    return fox_errf(e, FOX_EFAIL, "%s: out of memory reading YAML", name);
  const char *problem = p->problem ? p->problem : "invalid YAML";
  if (p->error == YAML_READER_ERROR) {
    size_t line, col;
    config_yaml_position(text, p->problem_offset, &line, &col);
    if (p->problem_value < 0) /* a sequence cut short by the end */
      return fox_errf(e, FOX_EUSAGE, "%s:%zu:%zu: %s: a config is UTF-8 text", name, line, col,
                      problem);
    if (strstr(problem, "UTF-8")) /* the value is the offending byte */
      return fox_errf(e, FOX_EUSAGE, "%s:%zu:%zu: %s (byte 0x%02X): a config is UTF-8 text", name,
                      line, col, problem, (unsigned)p->problem_value);
    return fox_errf(e, FOX_EUSAGE, "%s:%zu:%zu: %s (U+%04X): a config is UTF-8 text without "
                                   "control characters", name, line, col, problem,
                    (unsigned)p->problem_value);
  }
  return fox_errf(e, FOX_EUSAGE, "%s:%zu:%zu: YAML syntax: %s%s%s", name,
                  p->problem_mark.line + 1, p->problem_mark.column + 1, problem,
                  p->context ? " " : "", p->context ? p->context : "");
}

/* Counts `n` more values; `alias` names the alias that brings them, for the message. */
static int count_(struct builder_ *b, size_t n, const yaml_event_t *ev, const char *alias,
                  struct fox_err *e) {
  b->count += n;
  if (b->count <= FOX_CONFIG_MAX_VALUES)
    return 0;
  if (alias)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: alias *%s repeats %zu values, past the %d a config "
                                   "may hold in all (aliases count as what they repeat)",
                    b->name, line_(ev), alias, n, FOX_CONFIG_MAX_VALUES);
  return fox_errf(e, FOX_EUSAGE, "%s:%zu: more than %d values (keys, items and scalars): a "
                                 "config holds a few hundred", b->name, line_(ev),
                  FOX_CONFIG_MAX_VALUES);
}

static int memory_(struct builder_ *b, struct fox_err *e) {
  return fox_errf(e, FOX_EFAIL, "%s: out of memory reading YAML", b->name);
}

/* Anchors are searched one by one: the values bound keeps them and the aliases to a few
 * thousand, and real configs have a handful. */
static struct anchor_ *anchor_find_(struct builder_ *b, const char *name) {
  for (size_t i = 0; i < b->n_anchors; i++)
    if (strcmp(b->anchors[i].name, name) == 0)
      return &b->anchors[i];
  return NULL;
}

/* Records the anchor of node `id` (none when `name` is NULL) and returns its index or -1.
 * libyaml's own loader refuses a second anchor of one name, and so does this one. */
static int anchor_add_(struct builder_ *b, const char *name, int id, size_t weight,
                       const yaml_event_t *ev, int *index, struct fox_err *e) {
  *index = -1;
  if (!name)
    return 0;
  if (anchor_find_(b, name))
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: anchor &%s given twice", b->name, line_(ev), name);
  if (b->n_anchors == b->cap_anchors) {
    size_t cap = b->cap_anchors ? 2 * b->cap_anchors : 16;
    struct anchor_ *a = realloc(b->anchors, cap * sizeof *a);
    if (!a)
      return memory_(b, e);
    b->anchors = a;
    b->cap_anchors = cap;
  }
  char *copy = strdup(name);
  if (!copy)
    return memory_(b, e);
  b->anchors[b->n_anchors] = (struct anchor_){copy, id, weight};
  *index = (int)b->n_anchors++;
  return 0;
}

/* Puts node `id` where the document has reached: the root, a sequence's next item, a mapping's
 * key or that key's value. */
static int attach_(struct builder_ *b, int id, struct fox_err *e) {
  if (b->depth == 0)
    return 0; /* the root: the document's first node */
  struct frame_ *f = &b->open[b->depth - 1];
  yaml_node_t *parent = yaml_document_get_node(b->doc, f->node);
  int ok = 1;
  if (parent->type == YAML_SEQUENCE_NODE) {
    ok = yaml_document_append_sequence_item(b->doc, f->node, id);
  } else if (f->key == 0) {
    f->key = id;
  } else {
    ok = yaml_document_append_mapping_pair(b->doc, f->node, f->key, id);
    f->key = 0;
  }
  return ok ? 0 : memory_(b, e);
}

static void mark_(struct builder_ *b, int id, const yaml_event_t *ev) {
  yaml_node_t *n = yaml_document_get_node(b->doc, id);
  n->start_mark = ev->start_mark;
  n->end_mark = ev->end_mark;
}

static int on_scalar_(struct builder_ *b, const yaml_event_t *ev, struct fox_err *e) {
  const char *value = (const char *)ev->data.scalar.value;
  size_t len = ev->data.scalar.length;
  /* A "\0" escape: the C string every reader of the value sees would end there. */
  if (strlen(value) != len)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: a NUL character (\"\\0\") in '%s...': a config's "
                                   "values are text", b->name, line_(ev), value);
  /* A "\x1b" escape in a name would reach the user's terminal through report, info and the
   * progress line: every key and value is one line of printable text. */
  const char *bad = text_bad_char(value);
  if (bad)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: '%.*s': byte 0x%02X after it is a control character "
                                   "or not UTF-8: a config's keys and values are one line of "
                                   "printable UTF-8 text", b->name, line_(ev), (int)(bad - value),
                    value, (unsigned)(unsigned char)*bad);
  FOX_TRY(count_(b, 1, ev, NULL, e));
  int id = yaml_document_add_scalar(b->doc, ev->data.scalar.tag, ev->data.scalar.value,
                                    (int)len, ev->data.scalar.style);
  if (!id)
    return memory_(b, e);
  mark_(b, id, ev);
  int anchor;
  FOX_TRY(anchor_add_(b, (const char *)ev->data.scalar.anchor, id, 1, ev, &anchor, e));
  return attach_(b, id, e);
}

static int on_open_(struct builder_ *b, const yaml_event_t *ev, struct fox_err *e) {
  if (b->depth == FOX_CONFIG_MAX_DEPTH)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: nested more than %d levels deep (a config has 4)",
                    b->name, line_(ev), FOX_CONFIG_MAX_DEPTH);
  size_t count0 = b->count;
  FOX_TRY(count_(b, 1, ev, NULL, e));
  int seq = ev->type == YAML_SEQUENCE_START_EVENT;
  int id = seq ? yaml_document_add_sequence(b->doc, ev->data.sequence_start.tag,
                                            ev->data.sequence_start.style)
               : yaml_document_add_mapping(b->doc, ev->data.mapping_start.tag,
                                           ev->data.mapping_start.style);
  if (!id)
    return memory_(b, e);
  mark_(b, id, ev);
  const yaml_char_t *name = seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
  int anchor;
  FOX_TRY(anchor_add_(b, (const char *)name, id, 0, ev, &anchor, e));
  FOX_TRY(attach_(b, id, e));
  b->open[b->depth++] = (struct frame_){id, 0, count0, anchor};
  return 0;
}

/* A mapping's scalar key, for finding repeats by sorting. */
struct key_ {
  const char *s;
  size_t line, i; /* i: its place in the mapping */
};

static int key_cmp_(const void *a, const void *b) {
  const struct key_ *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* YAML lets a mapping repeat a key and libyaml keeps both; a config where the last one would
 * silently win is refused instead, at any depth. Sorted, repeats are neighbours: n log n where
 * comparing each key with those before it took 39 s for 80,000 keys. The repeat named is the
 * earliest in the mapping, with the line of its first occurrence. */
static int unique_keys_(struct builder_ *b, yaml_node_t *m, struct fox_err *e) {
  size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start), nk = 0;
  if (n < 2)
    return 0;
  struct key_ *k = malloc(n * sizeof *k);
  if (!k)
    return memory_(b, e);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *kn = yaml_document_get_node(b->doc, m->data.mapping.pairs.start[i].key);
    if (kn->type == YAML_SCALAR_NODE)
      k[nk++] = (struct key_){(const char *)kn->data.scalar.value, kn->start_mark.line + 1, i};
  }
  qsort(k, nk, sizeof *k, key_cmp_);
  size_t rep = 0; /* the repeat earliest in the mapping, as an index into k + 1 */
  for (size_t j = 1; j < nk; j++)
    if (strcmp(k[j - 1].s, k[j].s) == 0 && (j == 1 || strcmp(k[j - 2].s, k[j].s) != 0) &&
        (!rep || k[j].i < k[rep - 1].i))
      rep = j + 1;
  int rc = 0;
  if (rep)
    rc = fox_errf(e, FOX_EUSAGE, "%s:%zu: key '%s' given twice in one mapping (first at line "
                                 "%zu)", b->name, k[rep - 1].line, k[rep - 1].s, k[rep - 2].line);
  free(k);
  return rc;
}

static int on_close_(struct builder_ *b, const yaml_event_t *ev, struct fox_err *e) {
  struct frame_ *f = &b->open[--b->depth];
  yaml_node_t *n = yaml_document_get_node(b->doc, f->node);
  n->end_mark = ev->end_mark;
  if (f->anchor >= 0)
    b->anchors[f->anchor].weight = b->count - f->count0;
  return n->type == YAML_MAPPING_NODE ? unique_keys_(b, n, e) : 0;
}

/* An alias is a reference to its node, as in libyaml's loader, but costs every value it
 * repeats: walking the document then visits at most FOX_CONFIG_MAX_VALUES nodes. */
static int on_alias_(struct builder_ *b, const yaml_event_t *ev, struct fox_err *e) {
  const char *name = (const char *)ev->data.alias.anchor;
  struct anchor_ *a = anchor_find_(b, name);
  if (!a)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: alias *%s: no anchor &%s before it", b->name,
                    line_(ev), name, name);
  if (a->weight == 0)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: alias *%s inside the node it names (a cycle)",
                    b->name, line_(ev), name);
  FOX_TRY(count_(b, a->weight, ev, name, e));
  return attach_(b, a->node, e);
}

/* libyaml's loader read the first document and ignored the rest: a config with a stray
 * `---` lost every section after it without a word. */
static int on_document_(struct builder_ *b, const yaml_event_t *ev, struct fox_err *e) {
  if (b->have_doc)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: a second YAML document: a config is one document "
                                   "(no '---' or '...' between its sections)", b->name,
                    line_(ev));
  if (!yaml_document_initialize(b->doc, NULL, NULL, NULL, 1, 1))
    return memory_(b, e);
  b->have_doc = 1;
  return 0;
}

static int on_event_(struct builder_ *b, const yaml_event_t *ev, struct fox_err *e) {
  switch (ev->type) {
  case YAML_DOCUMENT_START_EVENT: return on_document_(b, ev, e);
  case YAML_SCALAR_EVENT: return on_scalar_(b, ev, e);
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: return on_open_(b, ev, e);
  case YAML_SEQUENCE_END_EVENT:
  case YAML_MAPPING_END_EVENT: return on_close_(b, ev, e);
  case YAML_ALIAS_EVENT: return on_alias_(b, ev, e);
  case YAML_STREAM_END_EVENT:
    /* No document at all (an empty or comment-only text): an empty one, all defaults. */
    if (!b->have_doc && !yaml_document_initialize(b->doc, NULL, NULL, NULL, 1, 1))
      return memory_(b, e);
    b->have_doc = 1;
    return 0;
  default: return 0;
  }
}

/* The events until the stream's end; the parser asks the scanner for tokens only as
 * it needs them, so a refusal stops the reading where it arises. */
static int build_(struct builder_ *b, yaml_parser_t *parser, const char *text,
                  struct fox_err *e) {
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(parser, &ev))
      return parse_error_(parser, text, b->name, e);
    int rc = on_event_(b, &ev, e);
    int end = ev.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&ev);
    if (rc != 0 || end)
      return rc;
  }
}

int config_yaml_check(const char *text, size_t len, const char *name, struct fox_err *e) {
  size_t line, col;
  if (len > FOX_CONFIG_MAX_BYTES) {
    config_yaml_position(text, FOX_CONFIG_MAX_BYTES, &line, &col);
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: the config goes on past %d bytes (1 MiB): a config "
                                   "is a few KB", name, line, FOX_CONFIG_MAX_BYTES);
  }
  /* Every reader of the text stops at a NUL, so the rest of the file would be dropped. */
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    config_yaml_position(text, (size_t)(nul - text), &line, &col);
    return fox_errf(e, FOX_EUSAGE, "%s:%zu:%zu: a NUL byte: a config is UTF-8 text (not UTF-16 "
                                   "or binary), and the rest of it would be ignored", name, line,
                    col);
  }
  return 0;
}

int config_yaml_load(yaml_document_t *doc, const char *text, size_t len, const char *name,
                     struct fox_err *e) {
  /* A UTF-8 byte order mark (Windows editors write one) is not text: libyaml skips it only
   * when it guesses the encoding, which a config does not let it do. */
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    text += 3, len -= 3;
  FOX_TRY(config_yaml_check(text, len, name, e));
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return fox_errf(e, FOX_EFAIL, "libyaml: cannot initialise a parser");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  /* No guessing UTF-16 from the first bytes: a config is UTF-8. */
  yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
  memset(doc, 0, sizeof *doc);
  struct builder_ b = {.doc = doc, .name = name};
  int rc = build_(&b, &parser, text, e);
  for (size_t i = 0; i < b.n_anchors; i++)
    free(b.anchors[i].name);
  free(b.anchors);
  yaml_parser_delete(&parser);
  if (rc != 0 && b.have_doc)
    yaml_document_delete(doc);
  return rc;
}

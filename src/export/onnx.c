/* The greedy policy as an ONNX model (opset 13, IR version 7), written with protobuf-c from
 * src/export/onnx.proto: Gemm + Relu/Tanh per layer, as PyTorch exports nn.Linear, the dueling
 * head's Q = V + A - mean(A), and ArgMax, whose ties go to the lowest action as foxopt's. */
#include "export/onnx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act_step.h"
#include "dqn_step.h"
#include "onnx.pb-c.h"
#include "util/fsutil.h"

#define MAX_NODES_ 32
#define MAX_INITS_ 32
#define MAX_IO_ 6

/* Everything the model points at, in one place: protobuf-c takes pointers and owns nothing. */
struct graph_ {
  Onnx__NodeProto nodes[MAX_NODES_], *node_p[MAX_NODES_];
  Onnx__AttributeProto attrs[2 * MAX_NODES_], *attr_p[2 * MAX_NODES_];
  int n_attrs;
  char *io[MAX_NODES_][MAX_IO_]; /* a node's inputs, then its output */
  char names[2 * (MAX_NODES_ + MAX_INITS_)][40];
  int n_nodes, n_names;
  Onnx__TensorProto inits[MAX_INITS_], *init_p[MAX_INITS_];
  int64_t init_dims[MAX_INITS_][2];
  int64_t consts[MAX_INITS_];
  int n_inits;
};

static char *name_(struct graph_ *g, const char *fmt, int i) {
  char *s = g->names[g->n_names++];
  snprintf(s, sizeof g->names[0], fmt, i);
  return s;
}

/* A node's integer attribute, or its list of integers (ints != NULL). */
struct attr_ {
  const char *name;
  int64_t i;
  int64_t *ints;
  size_t n_ints;
};

/* op(in[0], in[1], ...) -> out with attributes at[0 .. n_at-1]. */
static char *node_(struct graph_ *g, const char *op, char *const *in, char *out,
                   const struct attr_ *at, int n_at) {
  int k = g->n_nodes++;
  Onnx__NodeProto *n = &g->nodes[k];
  *n = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
  int ni = 0;
  while (in[ni])
    g->io[k][ni] = in[ni], ni++;
  g->io[k][ni] = out;
  n->n_input = (size_t)ni;
  n->input = g->io[k];
  n->n_output = 1;
  n->output = g->io[k] + ni;
  n->op_type = (char *)op;
  n->name = name_(g, "node%d", k);
  n->n_attribute = (size_t)n_at;
  n->attribute = g->attr_p + g->n_attrs;
  for (int j = 0; j < n_at; j++) {
    Onnx__AttributeProto *a = &g->attrs[g->n_attrs];
    *a = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
    a->name = (char *)at[j].name;
    a->has_type = 1;
    if (at[j].ints) {
      a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
      a->n_ints = at[j].n_ints;
      a->ints = at[j].ints;
    } else {
      a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
      a->has_i = 1;
      a->i = at[j].i;
    }
    g->attr_p[g->n_attrs++] = a;
  }
  g->node_p[k] = n;
  return out;
}

/* An initialiser named fmt % i, shape [d0] (d1 = 0) or [d0, d1], little-endian raw data (the
 * byte order of every machine foxopt builds on). */
static char *init_(struct graph_ *g, const char *fmt, int i, const void *data, size_t bytes,
                   int type, int64_t d0, int64_t d1) {
  int k = g->n_inits++;
  Onnx__TensorProto *t = &g->inits[k];
  *t = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
  t->name = name_(g, fmt, i);
  g->init_dims[k][0] = d0;
  g->init_dims[k][1] = d1;
  t->n_dims = d1 ? 2 : 1;
  t->dims = g->init_dims[k];
  t->has_data_type = 1;
  t->data_type = type;
  t->has_raw_data = 1;
  t->raw_data.len = bytes;
  t->raw_data.data = (uint8_t *)data;
  g->init_p[k] = t;
  return t->name;
}

/* A one-element int64 tensor (Slice's starts, ends and axes are inputs since opset 10). */
static char *const_(struct graph_ *g, const char *name, int64_t v) {
  int k = g->n_inits;
  g->consts[k] = v;
  return init_(g, name, k, &g->consts[k], sizeof(int64_t), ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
               1, 0);
}

/* The layers from x (mlp.h's layout: W_l [out, in] then b_l per layer); the head's output. */
static char *layers_(struct graph_ *g, const struct export_net *net, char *x) {
  const float *w = net->w;
  for (int l = 0; l < net->n_layers; l++) {
    int in = net->dims[l], out = net->dims[l + 1];
    size_t nw = (size_t)out * (size_t)in;
    char *W = init_(g, "layers.%d.weight", l, w, nw * sizeof(float),
                    ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, out, in);
    char *b = init_(g, "layers.%d.bias", l, w + nw, (size_t)out * sizeof(float),
                    ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, out, 0);
    w += nw + (size_t)out;
    x = node_(g, "Gemm", (char *[]){x, W, b, NULL}, name_(g, "linear%d", l),
              &(struct attr_){"transB", 1, NULL, 0}, 1);
    if (l < net->n_layers - 1)
      x = node_(g, net->activation == FOX_ACT_TANH ? "Tanh" : "Relu", (char *[]){x, NULL},
                name_(g, "hidden%d", l), NULL, 0);
  }
  return x;
}

/* Q = V + A - mean(A) from the head's [N, 4] = [V, A0, A1, A2] (dqn_step.h dqn_dueling_row). */
static char *dueling_(struct graph_ *g, char *head, char *q) {
  static int64_t axes[1] = {1};
  char *zero = const_(g, "c%d", 0), *one = const_(g, "c%d", 1), *four = const_(g, "c%d", 4);
  char *axis = const_(g, "c%d", 1);
  char *v = node_(g, "Slice", (char *[]){head, zero, one, axis, NULL}, name_(g, "value%d", 0),
                  NULL, 0);
  char *a = node_(g, "Slice", (char *[]){head, one, four, axis, NULL},
                  name_(g, "advantage%d", 0), NULL, 0);
  /* ReduceMean's axes are an attribute until opset 18 */
  char *m = node_(g, "ReduceMean", (char *[]){a, NULL}, name_(g, "advantage_mean%d", 0),
                  (struct attr_[]){{"axes", 0, axes, 1}, {"keepdims", 1, NULL, 0}}, 2);
  char *c = node_(g, "Sub", (char *[]){a, m, NULL}, name_(g, "advantage_centred%d", 0), NULL, 0);
  return node_(g, "Add", (char *[]){v, c, NULL}, q, NULL, 0);
}

static Onnx__ValueInfoProto *value_(Onnx__ValueInfoProto *vi, Onnx__TypeProto *tp,
                                    Onnx__TypeProto__Tensor *tt, Onnx__TensorShapeProto *sp,
                                    Onnx__TensorShapeProto__Dimension *d,
                                    Onnx__TensorShapeProto__Dimension **dp, char *name,
                                    int elem, int width, const char *doc) {
  *d = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
  d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  d->dim_param = "batch";
  dp[0] = d;
  if (width) {
    d[1] = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
    d[1].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d[1].dim_value = width;
    dp[1] = &d[1];
  }
  *sp = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
  sp->n_dim = width ? 2 : 1;
  sp->dim = dp;
  *tt = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
  tt->has_elem_type = 1;
  tt->elem_type = elem;
  tt->shape = sp;
  *tp = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  *vi = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
  vi->name = name;
  vi->type = tp;
  vi->doc_string = (char *)doc;
  return vi;
}

int onnx_write(const struct policy_export *p, const char *path, struct fox_err *e) {
  struct graph_ *g = calloc(1, sizeof *g);
  mallocCheck(g, e);
  const struct export_net *net = &p->policy;
  char *out = p->algo == FOX_ALGO_DQN ? "q_values" : "logits";
  char *head = layers_(g, net, "state");
  if (p->dueling)
    dueling_(g, head, out);
  else
    g->io[g->n_nodes - 1][g->nodes[g->n_nodes - 1].n_input] = out; /* the head is the output */
  node_(g, "ArgMax", (char *[]){out, NULL}, "action",
        (struct attr_[]){{"axis", 1, NULL, 0}, {"keepdims", 0, NULL, 0}}, 2);

  Onnx__ValueInfoProto vi[3], *vi_in[1], *vi_out[2];
  Onnx__TypeProto tp[3];
  Onnx__TypeProto__Tensor tt[3];
  Onnx__TensorShapeProto sp[3];
  Onnx__TensorShapeProto__Dimension dim[3][2], *dim_p[3][2];
  vi_in[0] = value_(&vi[0], &tp[0], &tt[0], &sp[0], dim[0], dim_p[0], "state",
                    ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, net->dims[0],
                    "the state foxopt builds after a bar's close: the normalised features, then "
                    "the portfolio (the JSON sidecar says how)");
  vi_out[0] = value_(&vi[1], &tp[1], &tt[1], &sp[1], dim[1], dim_p[1], out,
                     ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, FOX_NACTIONS,
                     p->algo == FOX_ALGO_DQN ? "Q-values of hold, buy, sell"
                                             : "the policy's logits of hold, buy, sell");
  vi_out[1] = value_(&vi[2], &tp[2], &tt[2], &sp[2], dim[2], dim_p[2], "action",
                     ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 0,
                     "the greedy action: 0 hold, 1 buy, 2 sell (ties to the lowest)");

  Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
  graph.name = "foxopt_policy";
  graph.n_node = (size_t)g->n_nodes;
  graph.node = g->node_p;
  graph.n_initializer = (size_t)g->n_inits;
  graph.initializer = g->init_p;
  graph.n_input = 1;
  graph.input = vi_in;
  graph.n_output = 2;
  graph.output = vi_out;
  Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opset_p = &opset;
  opset.domain = "";
  opset.has_version = 1;
  opset.version = 13;
  Onnx__StringStringEntryProto meta = ONNX__STRING_STRING_ENTRY_PROTO__INIT, *meta_p = &meta;
  meta.key = "foxopt.source";
  meta.value = (char *)p->source;
  Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
  model.has_ir_version = 1;
  model.ir_version = 7;
  model.n_opset_import = 1;
  model.opset_import = &opset_p;
  model.producer_name = "foxopt";
  model.producer_version = FOXOPT_VERSION;
  model.graph = &graph;
  model.n_metadata_props = 1;
  model.metadata_props = &meta_p;

  size_t len = onnx__model_proto__get_packed_size(&model);
  uint8_t *buf = malloc(len ? len : 1);
  int rc = buf ? 0 : fox_errf(e, FOX_EFAIL, "out of memory for an ONNX model of %zu bytes", len);
  if (rc == 0 && onnx__model_proto__pack(&model, buf) != len)
    rc = fox_errf(e, FOX_EFAIL, "%s: protobuf-c packed a different size than it announced", path);
  if (rc == 0)
    rc = fs_write_bytes(path, buf, len, e);
  free(buf);
  free(g);
  return rc;
}

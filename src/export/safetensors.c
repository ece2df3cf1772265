/* safetensors by hand: the format is a JSON header and raw bytes (no C library is packaged),
 * and the header is written with jansson like every other JSON of the export. */
#include "export/safetensors.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "act_step.h"
#include "util/fsutil.h"

/* Adds net's tensors to the header at data offset *at. */
static int header_net_(json_t *h, const char *prefix, const struct export_net *net, size_t *at) {
  for (int l = 0; l < net->n_layers; l++) {
    int in = net->dims[l], out = net->dims[l + 1];
    for (int bias = 0; bias < 2; bias++) {
      char name[64];
      snprintf(name, sizeof name, "%s.%d.%s", prefix, 2 * l, bias ? "bias" : "weight");
      size_t bytes = (size_t)out * (bias ? 1 : (size_t)in) * sizeof(float);
      json_t *t = json_pack("{s:s, s:[I], s:[I, I]}", "dtype", "F32", "shape", (json_int_t)out,
                            "data_offsets", (json_int_t)*at, (json_int_t)(*at + bytes));
      if (t && !bias)
        json_array_append_new(json_object_get(t, "shape"), json_integer(in));
      if (!t || json_object_set_new(h, name, t) != 0)
        return -1;
      *at += bytes;
    }
  }
  return 0;
}

int safetensors_write(const struct policy_export *p, const char *path, struct fox_err *e) {
  json_t *h = json_object();
  size_t at = 0;
  int bad = !h || header_net_(h, "policy", &p->policy, &at) != 0 ||
            (p->critic.n_layers && header_net_(h, "critic", &p->critic, &at) != 0);
  json_t *meta = bad ? NULL
                     : json_pack("{s:s, s:s, s:s, s:s, s:s}", "format", "pt", "producer",
                                 "foxopt " FOXOPT_VERSION, "algo",
                                 p->algo == FOX_ALGO_PPO ? "ppo" : "dqn", "activation",
                                 fox_act_name(p->policy.activation), "source", p->source);
  bad = bad || !meta || json_object_set_new(h, "__metadata__", meta) != 0;
  char *text = bad ? NULL : json_dumps(h, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(h);
  if (!text)
    return fox_errf(e, FOX_EFAIL, "%s: cannot build the safetensors header", path);
  /* The header is padded with spaces so that the tensors start 8-byte aligned. */
  size_t hl = strlen(text), pad = (8 - hl % 8) % 8, total = 8 + hl + pad + at;
  uint8_t *buf = malloc(total);
  if (!buf) {
    free(text);
    return fox_errf(e, FOX_EFAIL, "out of memory for a safetensors file of %zu bytes", total);
  }
  uint64_t n = hl + pad;
  for (int i = 0; i < 8; i++)
    buf[i] = (uint8_t)(n >> (8 * i));
  memcpy(buf + 8, text, hl);
  memset(buf + 8 + hl, ' ', pad);
  free(text);
  /* mlp.h's layout is W_l then b_l per layer, the header's order too */
  memcpy(buf + 8 + n, p->policy.w, p->policy.n_params * sizeof(float));
  if (p->critic.n_layers)
    memcpy(buf + 8 + n + p->policy.n_params * sizeof(float), p->critic.w,
           p->critic.n_params * sizeof(float));
  int rc = fs_write_bytes(path, buf, total, e);
  free(buf);
  return rc;
}

/* The sidecar's JSON, written with jansson. */
#include "export/sidecar.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "act_step.h"
#include "norm_step.h"
#include "util/fsutil.h"

static json_t *dims_(const struct export_net *n) {
  json_t *a = json_array();
  for (int l = 0; a && l <= n->n_layers; l++)
    json_array_append_new(a, json_integer(n->dims[l]));
  return a;
}

static json_t *inputs_(const struct policy_export *p) {
  static const char *const formula[FOX_EXPORT_PORTFOLIO] = {
      "1 when the position is long after the bar's close, else 0",
      "log(close / entry price) when long, else 0 (the entry price paid, spread and fee "
      "included, as foxopt's market keeps it)",
      "(bar index - entry bar index) / barrier.horizon when long, else 0"};
  json_t *a = json_array();
  for (int i = 0; a && i < p->nfeat + FOX_EXPORT_PORTFOLIO; i++) {
    json_t *o = i < p->nfeat
                    ? json_pack("{s:i, s:s, s:s, s:f, s:f}", "index", i, "name",
                                policy_export_input(p, i), "kind", "feature", "mean",
                                (double)p->norm_mean[i], "std", (double)p->norm_std[i])
                    : json_pack("{s:i, s:s, s:s, s:s}", "index", i, "name",
                                policy_export_input(p, i), "kind", "portfolio", "formula",
                                formula[i - p->nfeat]);
    json_array_append_new(a, o);
  }
  return a;
}

int sidecar_write(const struct policy_export *p, const char *model, const char *format,
                  const char *path, struct fox_err *e) {
  const char *out = p->algo == FOX_ALGO_DQN ? "q_values" : "logits";
  json_t *net = json_pack("{s:o, s:s, s:b, s:s}", "dims", dims_(&p->policy), "activation",
                          fox_act_name(p->policy.activation), "dueling", p->dueling, "layout",
                          "per layer W [out, in] then b [out]; hidden layers activated, the "
                          "last linear");
  if (net && p->dueling)
    json_object_set_new(net, "dueling_head", json_string("the last layer's 4 outputs are V, "
                                                         "A0, A1, A2; Q = V + A - mean(A)"));
  if (net && p->critic.n_layers)
    json_object_set_new(net, "critic_dims", dims_(&p->critic));
  json_t *root = json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:{s:s, s:f, s:s}, s:{s:i, s:s}, s:[s,s,s], "
      "s:{s:s, s:s}}",
      "format", "foxopt policy", "foxopt_version", FOXOPT_VERSION, "source", p->source, "model",
      model, "model_format", format, "algo", p->algo == FOX_ALGO_PPO ? "ppo" : "dqn", "network",
      net, "inputs", inputs_(p), "normalisation", "formula",
      "a feature x enters as clamp((x - mean) / std, -clamp, clamp), and as 0 where std is 0 "
      "or x is NaN (the bars before the warm-up)",
      "clamp", (double)FOX_NORM_CLAMP, "dataset", p->data_path, "portfolio", "horizon",
      p->cfg.market.horizon, "when",
      "the state after bar t's close decides the action executed at bar t+1's open", "actions",
      "hold", "buy", "sell", "outputs", out,
      p->algo == FOX_ALGO_DQN ? "Q-values of the 3 actions, [batch, 3]"
                              : "the policy's logits of the 3 actions, [batch, 3]",
      "action", "argmax of the above, ties to the lowest action, int64 [batch]");
  char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9))
                    : NULL;
  json_decref(root);
  if (!text)
    return fox_errf(e, FOX_EFAIL, "%s: cannot build the sidecar's JSON", path);
  size_t len = strlen(text);
  text[len] = '\0';
  char *full = realloc(text, len + 2);
  if (full) {
    full[len] = '\n';
    text = full;
    len++;
  }
  int rc = fs_write_bytes(path, text, len, e);
  free(text);
  return rc;
}

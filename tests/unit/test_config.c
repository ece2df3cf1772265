/* Config: the defaults of DESIGN.md s8, YAML loading with --set overrides, every rejection
 * naming the file, line and key, and the dump reading back to the same configuration. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act_step.h"
#include "config/config.h"
#include "util/number.h"
#include "data/dataset.h"
#include "fox_check.h"
#include "ppo_step.h"

static char path_[64];

static int load_(struct config *c, const char *yaml, struct fox_err *e) {
  FILE *f = fopen(path_, "w");
  fputs(yaml, f);
  fclose(f);
  config_defaults(c);
  fox_err_clear(e);
  return config_load(c, path_, (const char *const[]){"study", "parameters", NULL}, e);
}

/* The YAML must be rejected with exit-2 status and a message holding each of `needles`. */
static void bad_(const char *yaml, const char *line, const char *what) {
  struct config c;
  struct fox_err e;
  int rc = load_(&c, yaml, &e);
  char where[96];
  snprintf(where, sizeof where, "%s:%s", path_, line);
  CHECK(rc == FOX_EUSAGE, "expected FOX_EUSAGE for [%s], got %d", yaml, rc);
  CHECK(strstr(e.msg, where) != NULL, "message '%s' should name '%s'", e.msg, where);
  CHECK(strstr(e.msg, what) != NULL, "message '%s' should say '%s'", e.msg, what);
}

/* A config with its study section read (load_ skips it). */
static int load_study_(struct config *c, const char *yaml, struct fox_err *e) {
  FILE *f = fopen(path_, "w");
  fputs(yaml, f);
  fclose(f);
  config_defaults(c);
  fox_err_clear(e);
  return config_load(c, path_, (const char *const[]){"parameters", NULL}, e);
}

static void bad_study_(const char *yaml, const char *line, const char *what) {
  struct config c;
  struct fox_err e;
  int rc = load_study_(&c, yaml, &e);
  char where[96];
  snprintf(where, sizeof where, "%s:%s:", path_, line);
  CHECK(rc == FOX_EUSAGE, "expected FOX_EUSAGE for [%s], got %d", yaml, rc);
  CHECK(strstr(e.msg, where) != NULL, "message '%s' should name '%s'", e.msg, where);
  CHECK(strstr(e.msg, what) != NULL, "message '%s' should say '%s'", e.msg, what);
}

/* Several objectives and constraints: read, dumped and read back to the same struct; every
 * bad entry refused naming its line. */
static void multi_objective_(void) {
  struct config c, d;
  struct fox_err e = {0};
  const char *yaml = "study:\n"
                     "  objective:\n"
                     "    - {metric: val.sharpe, direction: maximize}\n"
                     "    - {metric: val.max_drawdown, direction: maximize, aggregate: median}\n"
                     "    - {metric: val.trades, direction: minimize}\n"
                     "  constraints: [\"val.max_drawdown >= -0.2\", \"val.trades>=10\",\n"
                     "                \"val.sharpe < 3.5e0\", \" val.exposure <= 0.9 \"]\n"
                     "  sampler: {name: nsga2, population_size: 20, mutation_prob: 0.25}\n";
  CHECK(load_study_(&c, yaml, &e) == 0, "multi-objective config: %s", e.msg);
  const struct study_config *sc = &c.study;
  CHECK(sc->n_obj == 3 && strcmp(sc->metric, "val.sharpe") == 0 &&
            sc->direction == FOX_MAXIMIZE && strcmp(sc->more_metric[0], "val.max_drawdown") == 0 &&
            sc->more_dir[0] == FOX_MAXIMIZE && strcmp(sc->more_metric[1], "val.trades") == 0 &&
            sc->more_dir[1] == FOX_MINIMIZE && sc->aggregate == FOX_AGG_MEDIAN,
        "the objectives as listed");
  CHECK(sc->n_constraints == 4 && sc->constraints[0].op == FOX_OP_GE &&
            sc->constraints[0].bound == -0.2 && strcmp(sc->constraints[1].metric, "val.trades") == 0 &&
            sc->constraints[1].bound == 10 && sc->constraints[2].op == FOX_OP_LT &&
            sc->constraints[2].bound == 3.5 && sc->constraints[3].op == FOX_OP_LE &&
            strcmp(sc->constraints[3].metric, "val.exposure") == 0,
        "the constraints as listed");
  CHECK(sc->sampler == FOX_SAMPLER_NSGA2 && sc->tpe.population_size == 20 &&
            sc->tpe.mutation_prob == 0.25 && sc->tpe.crossover_prob == 0.9 &&
            sc->tpe.swapping_prob == 0.5,
        "nsga2's settings");
  FILE *f = fopen(path_, "w");
  config_dump(&c, f);
  fclose(f);
  config_defaults(&d);
  fox_err_clear(&e);
  CHECK(config_load(&d, path_, NULL, &e) == 0, "dump loads: %s", e.msg);
  CHECK(memcmp(&c, &d, offsetof(struct config, given)) == 0, "multi-objective dump round trip");
  CHECK(config_set(&c, "study.constraints=[f0 > 1, c1 <= -2]", NULL, &e) == 0 &&
            c.study.n_constraints == 2 && c.study.constraints[1].bound == -2 &&
            c.study.constraints[2].metric[0] == 0,
        "--set constraints: %s", e.msg);
  CHECK(config_set(&c, "study.constraints=[]", NULL, &e) == 0 && c.study.n_constraints == 0,
        "--set no constraints: %s", e.msg);
  CHECK(load_study_(&c, "study:\n  objective: [{metric: f0}]\n", &e) == 0 && c.study.n_obj == 1 &&
            strcmp(c.study.metric, "f0") == 0 && c.study.direction == FOX_MAXIMIZE,
        "a list of one is the mapping form: %s", e.msg);

  /* Issue 28, defect 6: a test function is minimised unless told otherwise (docs/studies.md),
   * an agent metric maximised; a written direction stays, in either form and from --set. */
  CHECK(load_study_(&c, "study:\n  objective: {function: branin}\n", &e) == 0, "%s", e.msg);
  config_default_directions(&c);
  CHECK(c.study.direction == FOX_MINIMIZE, "branin without a direction is minimised");
  CHECK(load_study_(&c, "study:\n  objective: {function: branin, direction: maximize}\n", &e) == 0,
        "%s", e.msg);
  config_default_directions(&c);
  CHECK(c.study.direction == FOX_MAXIMIZE, "branin told to maximize is maximised");
  CHECK(load_study_(&c, "study:\n  objective: {function: branin}\n", &e) == 0 &&
            config_set(&c, "study.objective.direction=maximize", NULL, &e) == 0,
        "%s", e.msg);
  config_default_directions(&c);
  CHECK(c.study.direction == FOX_MAXIMIZE, "--set direction=maximize on branin is kept");
  CHECK(load_study_(&c, "study:\n  objective:\n    - {metric: f0, function: zdt1}\n"
                        "    - {metric: f1, direction: maximize}\n", &e) == 0,
        "%s", e.msg);
  config_default_directions(&c);
  CHECK(c.study.direction == FOX_MINIMIZE && c.study.more_dir[0] == FOX_MAXIMIZE,
        "zdt1's list: f0 minimised by default, f1 as written");
  CHECK(load_study_(&c, "study:\n  objective: {metric: val.sharpe}\n", &e) == 0, "%s", e.msg);
  config_default_directions(&c);
  CHECK(c.study.direction == FOX_MAXIMIZE, "an agent metric is maximised by default");
  CHECK(load_study_(&c, "study:\n  objective: [{metric: val.sharpe}, {metric: val.trades}]\n", &e) ==
            0, "%s", e.msg);
  config_default_directions(&c);
  CHECK(c.study.direction == FOX_MAXIMIZE && c.study.more_dir[0] == FOX_MAXIMIZE,
        "agent metrics in a list are maximised by default");

  bad_study_("study:\n  objective:\n    - {metric: val.sharpe}\n    - {metric: val.sharp}\n", "4",
             "study.objective[1].metric = 'val.sharp': unknown metric");
  bad_study_("study:\n  objective:\n    - {metric: val.sharpe}\n    - {metric: val.sharpe, "
             "direction: minimize}\n", "4", "the objective is given twice");
  bad_study_("study:\n  objective:\n    - {metric: f0}\n    - {metric: f1}\n    - {metric: c0}\n"
             "    - {metric: c1}\n    - {metric: value}\n", "7", "more than 4 objectives");
  bad_study_("study:\n  objective:\n    - {metric: f0, direction: up}\n", "3",
             "expected maximize or minimize");
  bad_study_("study:\n  objective:\n    - {direction: minimize}\n", "3", "no metric");
  bad_study_("study:\n  objective:\n    - {metric: f0, weight: 2}\n", "3", "unknown key");
  bad_study_("study:\n  objective: [{metric: f0}]\n  objective.direction: minimize\n", "3",
             "given twice");
  bad_study_("study:\n  objective: []\n", "2", "an empty list");
  bad_study_("study:\n  objective:\n    - {metric: f0, function: zdt1}\n    - {metric: f1, "
             "function: zdt2}\n", "4", "study.objective.function: given twice");
  bad_study_("study:\n  constraints: [\"val.trades => 10\"]\n", "2", "bad operator");
  bad_study_("study:\n  constraints: [\"val.trades >= ten\"]\n", "2", "not a number");
  bad_study_("study:\n  constraints: [\"val.trade >= 10\"]\n", "2",
             "study.constraints[0] = 'val.trade': unknown metric");
  bad_study_("study:\n  constraints: [\">= 10\"]\n", "2", "expected METRIC OP NUMBER");
  bad_study_("study:\n  constraints: \"f0 < 1\"\n", "2", "a list of at most 16 constraints");
  bad_study_("study:\n  constraints: [f0<1, f0<1, f0<1, f0<1, f0<1, f0<1, f0<1, f0<1, f0<1, f0<1, "
             "f0<1, f0<1, f0<1, f0<1, f0<1, f0<1, f0<1]\n", "2", "17 constraints: at most 16");
}

int main(void) {
  snprintf(path_, sizeof path_, "/tmp/fox_test_config_%ld.yaml", (long)getpid());
  struct config c, d;
  struct fox_err e = {0};
  config_defaults(&c);
  CHECK(c.market.initial_capital == 10000 && c.market.spread == 0.0005 && c.market.fee == 0.0004,
        "market defaults");
  CHECK(c.market.horizon == 60 && c.market.enforce == 1 && c.num_envs == 64 &&
            c.episode_bars == 2048 && c.epochs == 3 && c.steps_per_epoch == 0,
        "barrier, env, train defaults");
  CHECK(c.dqn.n_hidden == 2 && c.dqn.hidden[0] == 128 && c.dqn.learning_starts == 10000 &&
            c.dqn.double_q && !c.dqn.dueling && c.dqn.max_grad_norm == 10,
        "dqn defaults");
  CHECK(c.ppo.n_hidden == 2 && c.ppo.hidden[1] == 64 && c.ppo.clip == 0.2 && c.ppo.anneal_lr &&
            c.ppo.max_grad_norm == 0.5,
        "ppo defaults");
  CHECK(c.eval_split == FOX_SPLIT_VAL && c.experience == FOX_EXP_SUMMARY, "eval/output");
  /* CleanRL's networks per algorithm, and rewards of order one (auto, stored as 0). */
  CHECK(c.dqn.activation == FOX_ACT_RELU && c.dqn.init == FOX_INIT_DEFAULT &&
            c.ppo.activation == FOX_ACT_TANH && c.ppo.init == FOX_INIT_ORTHOGONAL &&
            c.ppo.value_loss == FOX_VLOSS_UNCLIPPED,
        "activation, init and value loss defaults");
  CHECK(c.market.reward_scale == 0, "reward.scale defaults to auto");
  {
    struct config a;
    config_defaults(&a);
    CHECK(config_set(&a, "dqn.activation=tanh", NULL, &e) == 0 &&
              config_set(&a, "ppo.init=default", NULL, &e) == 0 &&
              config_set(&a, "reward.scale=2.5", NULL, &e) == 0,
          "%s", e.msg);
    CHECK(a.dqn.activation == FOX_ACT_TANH && a.ppo.init == FOX_INIT_DEFAULT &&
              a.market.reward_scale == 2.5,
          "--set activation, init, scale");
    CHECK(config_set(&a, "reward.scale=auto", NULL, &e) == 0 && a.market.reward_scale == 0,
          "--set reward.scale=auto");
    CHECK(config_set(&a, "ppo.activation=sigmoid", NULL, &e) == FOX_EUSAGE &&
              strstr(e.msg, "expected relu or tanh"),
          "a bad activation: %s", e.msg);
    fox_err_clear(&e);
    CHECK(config_set(&a, "dqn.init=xavier", NULL, &e) == FOX_EUSAGE &&
              strstr(e.msg, "expected default or orthogonal"),
          "a bad init: %s", e.msg);
    fox_err_clear(&e);
    CHECK(config_set(&a, "ppo.value_loss=clipped", NULL, &e) == 0 &&
              a.ppo.value_loss == FOX_VLOSS_CLIPPED &&
              config_set(&a, "ppo.value_loss=max", NULL, &e) == 0 &&
              a.ppo.value_loss == FOX_VLOSS_MAX,
          "--set ppo.value_loss: %s", e.msg);
    CHECK(config_set(&a, "ppo.value_loss=huber", NULL, &e) == FOX_EUSAGE &&
              strstr(e.msg, "expected max, clipped or unclipped"),
          "a bad value loss: %s", e.msg);
    fox_err_clear(&e);
    CHECK(config_set(&a, "reward.scale=0", NULL, &e) == FOX_EUSAGE &&
              strstr(e.msg, "auto or a number > 0"),
          "reward.scale 0: %s", e.msg);
    fox_err_clear(&e);
    CHECK(config_set(&a, "reward.scale=autox", NULL, &e) == FOX_EUSAGE, "reward.scale autox");
    CHECK(config_key_kind("dqn.activation") == FOX_KEY_CHOICE &&
              config_key_kind("reward.scale") == FOX_KEY_NUMBER,
          "searchable kinds");
  }

  int rc = load_(&c,
                 "# a trial\n"
                 "data: {path: /data/btc.h5}\n"
                 "market:\n  fee: 0.001\n  cash_reserve: 0\n"
                 "train: {algo: ppo, epochs: 5, steps_per_epoch: 4096, seed: 18446744073709551615}\n"
                 "ppo:\n  hidden: [32, 16, 8]\n  anneal_lr: false\n"
                 "study: {name: ignored here}\n",
                 &e);
  CHECK(rc == 0, "%s", e.msg);
  CHECK(strcmp(c.data_path, "/data/btc.h5") == 0 && c.market.fee == 0.001 &&
            c.market.cash_reserve == 0,
        "loaded data and market");
  CHECK(c.algo == FOX_ALGO_PPO && c.epochs == 5 && c.steps_per_epoch == 4096 &&
            c.seed == 18446744073709551615ULL,
        "loaded train");
  CHECK(c.ppo.n_hidden == 3 && c.ppo.hidden[2] == 8 && !c.ppo.anneal_lr, "loaded ppo");
  CHECK(config_set(&c, "dqn.hidden=[256,64]", NULL, &e) == 0 && c.dqn.n_hidden == 2 &&
            c.dqn.hidden[0] == 256 && c.dqn.hidden[1] == 64,
        "--set a list: %s", e.msg);
  CHECK(config_set(&c, "train.steps_per_epoch=auto", NULL, &e) == 0 && c.steps_per_epoch == 0,
        "--set auto");
  CHECK(config_set(&c, "eval.split=test", NULL, &e) == 0 && c.eval_split == FOX_SPLIT_TEST,
        "--set a choice");
  fox_err_clear(&e);
  CHECK(config_set(&c, "dqn.lr=-1", NULL, &e) == FOX_EUSAGE && strstr(e.msg, "dqn.lr"),
        "--set out of range: %s", e.msg);
  fox_err_clear(&e);
  CHECK(config_set(&c, "market.fee=0.1", (const char *const[]){"barrier.", NULL}, &e) ==
                FOX_EUSAGE && strstr(e.msg, "unknown key 'market.fee'"),
        "--set outside the allowed prefixes: %s", e.msg);

  /* Dump and load back: the same struct, field for field (a path needing escapes too). */
  snprintf(c.data_path, sizeof c.data_path, "C:\\new\\\"data\".h5");
  c.ppo.value_loss = FOX_VLOSS_CLIPPED; /* not the defaults: the dump must carry them */
  CHECK(c.dqn.eps_per_env && c.dqn.uniform_warmup, "exploration defaults");
  CHECK(config_set(&c, "dqn.eps_per_env=false", NULL, &e) == 0 &&
            config_set(&c, "dqn.uniform_warmup=false", NULL, &e) == 0 &&
            !c.dqn.eps_per_env && !c.dqn.uniform_warmup,
        "--set the exploration switches: %s", e.msg);
  FILE *f = fopen(path_, "w");
  config_dump(&c, f);
  fclose(f);
  config_defaults(&d);
  fox_err_clear(&e);
  CHECK(config_load(&d, path_, NULL, &e) == 0, "dump loads: %s", e.msg);
  CHECK(memcmp(&c, &d, offsetof(struct config, given)) == 0, "dump round trip");

  /* One number grammar everywhere (util/number.h): decimal only, as constraints already were. */
  static const char *const not_decimal[] = {"eval.folds=0x10", "dqn.lr=0x1p-10", "dqn.lr=inf",
                                            "dqn.lr=nan", "dqn.lr= 0.1", "dqn.lr=1e", "dqn.lr=.",
                                            "dqn.lr=0.1 ", "env.num_envs=+0x4", "dqn.lr=1e-3x"};
  for (size_t i = 0; i < sizeof not_decimal / sizeof *not_decimal; i++) {
    fox_err_clear(&e);
    CHECK(config_set(&c, not_decimal[i], NULL, &e) == FOX_EUSAGE, "--set %s accepted",
          not_decimal[i]);
  }
  static const char *const decimal[] = {"dqn.lr=.5e-3", "dqn.lr=5.E-4", "dqn.lr=+1e-4",
                                        "eval.folds=2", "eval.folds=4.0", "dqn.lr=1E-3"};
  for (size_t i = 0; i < sizeof decimal / sizeof *decimal; i++) {
    fox_err_clear(&e);
    CHECK(config_set(&c, decimal[i], NULL, &e) == 0, "--set %s: %s", decimal[i], e.msg);
  }
  CHECK(number_is_decimal("12") && number_is_decimal("-1.5e+3") && !number_is_decimal("") &&
            !number_is_decimal("-") && !number_is_decimal("0x1") && !number_is_decimal("1.5e+"),
        "number_is_decimal");
  config_defaults(&c);
  bad_("eval:\n  folds: 0x10\n", "2", "eval.folds = '0x10'");
  bad_("market:\n  fee: 0.001\n  feee: 2\n", "3", "unknown key 'market.feee'");
  bad_("dqn:\n  learning_starts: 3e9\n", "2", "out of range");
  bad_("markets:\n  fee: 0.001\n", "2", "unknown key 'markets.fee'");
  bad_("dqn:\n  lr: -0.001\n", "2", "dqn.lr = '-0.001': out of range");
  bad_("ppo:\n  gamma: 1.5\n", "2", "ppo.gamma = '1.5': out of range");
  bad_("ppo:\n  gamma: 0\n", "2", "a discount in (0, 1]");
  /* above the upper bound, the message says the upper bound */
  bad_("train:\n  epochs: 2000000\n", "2", "expected an integer in [1, 1e6]");
  bad_("train:\n  steps_per_epoch: 1e16\n", "2",
       "expected auto or an integer >= 1, at most 1000000000000000");
  bad_("env:\n  num_envs: many\n", "2", "env.num_envs = 'many'");
  bad_("env:\n  num_envs: 2.5\n", "2", "an integer");
  bad_("barrier:\n  enforce: perhaps\n", "2", "true or false");
  bad_("train:\n  algo: sac\n", "2", "dqn or ppo");
  bad_("dqn:\n  hidden: 64\n", "2", "e.g. [64, 64]");
  bad_("dqn:\n  hidden: [64, 0]\n", "2", "out of range");
  bad_("dqn:\n  hidden: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n", "2", "1 to 8 layer widths");
  bad_("dqn:\n  lr: [1]\n", "2", "got a list");
  bad_("market: 5\n", "1", "expected a mapping of keys");
  bad_("train: {epochs: 2}\nmarket: {fee: 0}\ntrain: {epochs: 3}\n", "3",
       "key 'train' given twice in one mapping (first at line 1)");
  bad_("market:\n  fee: 0.001\n  fee: 0.002\n", "3", "key 'fee' given twice");
  bad_("parameters:\n  x0: {distribution: uniform, min: 0, max: 1, max: 2}\n", "2",
       "key 'max' given twice");
  bad_("market:\n  fee: [0.1\n", "3", "YAML syntax");
  bad_("- a\n- b\n", "1", "expected a mapping of sections");
  /* An empty file would run its defaults into a dataset.h5 the user never named (issue 28);
   * an empty text built by a program is still all defaults. */
  CHECK(load_(&c, "", &e) == FOX_EUSAGE && strstr(e.msg, ": the config is empty"),
        "an empty file is refused: %s", e.msg);
  fox_err_clear(&e);
  CHECK(load_(&c, "# nothing\n", &e) == FOX_EUSAGE && strstr(e.msg, ": the config is empty"),
        "a file of comments is refused: %s", e.msg);
  fox_err_clear(&e);
  config_defaults(&c);
  CHECK(config_load_text(&c, "", "text", NULL, &e) == 0 && c.epochs == 3,
        "an empty text is all defaults: %s", e.msg);
  fox_err_clear(&e);
  CHECK(config_load(&c, "/nonexistent/x.yaml", NULL, &e) == FOX_EUSAGE &&
            strstr(e.msg, "/nonexistent/x.yaml: cannot open"),
        "missing file: %s", e.msg);
  multi_objective_();
  remove(path_);
  return fox_check_done("test_config");
}

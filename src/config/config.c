/* Config keys: one table row per key, so defaults, types, ranges and messages live together;
 * the YAML loader and --set both end in param_assign_. */
#include "config/config.h"
#include "util/nearest.h"
#include "util/fsutil.h"
#include "util/number.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "act_step.h"
#include "ppo_step.h"
#include "backtest/metrics.h"
#include "config/config_yaml.h"
#include "data/dataset.h"

/* P_STEPS and P_AUTO take `auto` as well, stored as 0 (an integer and a number > 0). */
/* P_CONSTRAINTS: study.constraints, a list of "METRIC OP BOUND" texts. */
enum ptype_ { P_DOUBLE, P_INT, P_BOOL, P_CHOICE, P_STRING, P_LAYERS, P_STEPS, P_SEED, P_NAME,
              P_AUTO, P_CONSTRAINTS, P_FACTORS, P_FEATURES };
/* P_FEATURES: data.features, a list of feature names. */
/* P_FACTORS: a list of numbers > 0 (study.scheduler.factors). */

struct param_ {
  const char *key;
  enum ptype_ type;
  size_t offset;
  double lo, hi;               /* inclusive bounds */
  int lo_open;                 /* 1: the lower bound itself is excluded */
  const char *const *choices;  /* P_CHOICE: names of 0, 1, 2, ... */
  const char *what;            /* the expected value, for messages */
  const char *doc;             /* what the key does, one or two sentences: --help, the man
                                  page and docs/config-keys.md are written from it */
};

static const char *const algo_names_[] = {"dqn", "ppo", NULL};
static const char *const backend_names_[] = {"auto", "cpu", "cuda", NULL};
static const char *const split_names_[] = {"train", "val", "test", NULL};
static const char *const exp_names_[] = {"none", "summary", "full", NULL};
static const char *const dir_names_[] = {"maximize", "minimize", NULL};
const char *const config_aggregate_names[] = {"mean", "median", "iqm", "lcb", NULL};
const char *const config_sampler_names[] = {"tpe", "random", "grid", "nsga2", NULL};
/* In the order of FOX_ACT_* and FOX_INIT_* (kernels/act_step.h). */
static const char *const act_names_[] = {"relu", "tanh", NULL};
static const char *const init_names_[] = {"default", "orthogonal", NULL};
/* ppo.value_loss by FOX_VLOSS_* (kernels/ppo_step.h) */
static const char *const vloss_names_[] = {"max", "clipped", "unclipped", NULL};
const char *const config_scheduler_names[] = {"none", "successive_halving", "hyperband", "pbt",
                                              NULL};
const char *const config_function_names[] = {"none",  "branin", "hartmann6", "mixed",
                                             "zdt1",  "zdt2",   "binh_korn", NULL};
const char *const config_function_metrics[] = {"value", "f0", "f1", "c0", "c1", NULL};

#define C_(f) offsetof(struct config, f)
#define M_(f) C_(market) + offsetof(struct market_params, f)
#define D_(f) C_(dqn) + offsetof(struct dqn_config, f)
#define PP_(f) C_(ppo) + offsetof(struct ppo_config, f)
#define S_(f) C_(study) + offsetof(struct study_config, f)
#define T_(f) S_(tpe) + offsetof(struct tpe_config, f)
static const struct param_ params_[] = {
    {"data.path", P_STRING, C_(data_path), 0, 0, 0, NULL, "a file name",
     "The dataset.h5 that `foxopt import` made, relative to the current directory; every trial "
     "of a study reads the same one."},
    {"data.features", P_FEATURES, C_(n_features), 0, FOX_FEATURES_MAX, 0, NULL,
     "a list of at most 307 feature names, e.g. [ret_1, rsi_14, my_signal]",
     "The features a state shows, in this order: any of the 51 built-in ones (FEATURES.md) and "
     "the dataset's user columns (the CSV's columns after the OHLCV ones, kept by `foxopt "
     "import`). Left out or []: the 51 built-in ones. A trial file records them, and `backtest "
     "--policy` refuses a dataset that lacks one."},
    {"market.initial_capital", P_DOUBLE, M_(initial_capital), 0, 1e15, 1, NULL, "a number > 0",
     "Cash every training episode, backtest and evaluation fold starts with, in the price's "
     "currency; a training episode whose equity falls below a hundredth of it ends as terminal."},
    {"market.spread", P_DOUBLE, M_(spread), 0, 0.5, 0, NULL, "a number in [0, 0.5]",
     "The full bid-ask spread as a fraction of the price: a buy pays half of it above the open, "
     "a sell or barrier exit gets half of it below the price."},
    {"market.fee", P_DOUBLE, M_(fee), 0, 0.5, 0, NULL, "a number in [0, 0.5]",
     "The fee of each fill as a fraction of the traded value, paid on every buy and on every "
     "sell or barrier exit."},
    {"market.cash_reserve", P_DOUBLE, M_(cash_reserve), 0, 0.99, 0, NULL, "a number in [0, 0.99]",
     "Fraction of the cash kept back when buying; the rest is spent on the position (0 spends "
     "all of it)."},
    {"barrier.pt", P_DOUBLE, M_(pt), 0, 1e6, 1, NULL, "a number > 0",
     "Take-profit barrier above the entry price, in multiples of sigma x sqrt(barrier.horizon), "
     "sigma being the ewm_vol feature of the bar before the entry."},
    {"barrier.sl", P_DOUBLE, M_(sl), 0, 1e6, 1, NULL, "a number > 0",
     "Stop-loss barrier below the entry price, in multiples of sigma x sqrt(barrier.horizon); "
     "within a bar the stop is checked before the take-profit."},
    {"barrier.horizon", P_INT, M_(horizon), 1, 1e7, 0, NULL, "an integer in [1, 1e7] (bars)",
     "Bars a position may be held before a time-out exit at the close. It also scales the pt and "
     "sl barriers and the state's bars-held feature (bars held / horizon)."},
    {"barrier.enforce", P_BOOL, M_(enforce), 0, 1, 0, NULL, "true or false",
     "On: the barriers close positions (take-profit, stop-loss, time-out). Off: a position's "
     "first barrier hit only writes its label, and the position stays open until a SELL."},
    {"barrier.bonus", P_DOUBLE, M_(bonus), 0, 1e6, 0, NULL, "a number in [0, 1e6]",
     "Added to the training reward on a take-profit exit and taken off on a stop-loss exit, in "
     "log-return units (before reward.scale); only with barrier.enforce. Equity is unchanged."},
    {"reward.normalize", P_BOOL, M_(reward_normalize), 0, 1, 0, NULL, "true or false",
     "Divides each training environment's rewards (after reward.scale) by the running standard "
     "deviation of its own reward stream, without a mean shift."},
    {"reward.scale", P_AUTO, M_(reward_scale), 0, 1e9, 1, NULL, "auto or a number > 0",
     "Multiplies every training reward (a bar's log return, plus any bonus); auto is 1 / the std "
     "of the train split's one-bar log returns, resolved when a trial starts and recorded."},
    {"env.num_envs", P_INT, C_(num_envs), 1, 1 << 20, 0, NULL, "an integer in [1, 1048576]",
     "Training environments stepped together: a vector step is num_envs transitions. DQN then "
     "makes num_envs / dqn.train_freq updates a step; a PPO rollout is ppo.n_steps x num_envs."},
    {"env.episode_bars", P_INT, C_(episode_bars), 1, 1e9, 0, NULL, "an integer in [1, 1e9]",
     "Bars of a training episode, from a uniformly random start in the train split (fewer at the "
     "split's end); that end is a truncation, bootstrapped, not a terminal state."},
    {"train.algo", P_CHOICE, C_(algo), 0, 0, 0, algo_names_, "dqn or ppo",
     "The agent to train. In a study, parameters under dqn. or ppo. are active only in the "
     "trials where train.algo selects that agent."},
    {"train.epochs", P_INT, C_(epochs), 1, 1e6, 0, NULL, "an integer in [1, 1e6]",
     "Epochs to train, each of train.steps_per_epoch environment steps and then a greedy "
     "backtest on eval.split; epsilon and learning-rate schedules span them all."},
    {"train.steps_per_epoch", P_STEPS, C_(steps_per_epoch), 1, 1e15, 0, NULL,
     "auto or an integer >= 1",
     "Environment steps of an epoch, all environments together, rounded up to whole vector steps "
     "of env.num_envs; auto is the number of bars in the train split."},
    {"train.seed", P_SEED, C_(seed), 0, 0, 0, NULL, "an integer >= 0",
     "Seed of every random stream of a `foxopt train` run (initialisation, exploration, "
     "episodes, replay); in a study each trial's seed comes from study.seed instead."},
    {"train.backend", P_CHOICE, C_(backend), 0, 0, 0, backend_names_, "auto, cpu or cuda",
     "Where the market and the networks run: auto takes CUDA when foxopt was built with it and a "
     "device is usable, else the CPU. `foxopt run --backend` overrides it."},
    {"train.graphs", P_BOOL, C_(graphs), 0, 1, 0, NULL, "true or false",
     "CUDA only: capture each repeated chunk of vector steps as a CUDA graph and replay it (one "
     "host call for thousands of kernels); false launches every kernel. The results are the "
     "same."},
    {"dqn.hidden", P_LAYERS, D_(hidden), 1, 65536, 0, NULL, "a list of 1 to 8 layer widths",
     "Widths (units) of the Q network's hidden layers, between the state (its features and 3 "
     "portfolio ones) and the 3 action values; the target network has the same shape."},
    {"dqn.lr", P_DOUBLE, D_(lr), 0, 1, 1, NULL, "a learning rate in (0, 1]",
     "Adam's learning rate for the Q network, constant over the run."},
    {"dqn.gamma", P_DOUBLE, D_(gamma), 0, 1, 1, NULL, "a discount in (0, 1]",
     "Discount per bar (one environment step) in the TD target."},
    {"dqn.batch_size", P_INT, D_(batch_size), 1, 1 << 20, 0, NULL, "an integer in [1, 1048576]",
     "Transitions sampled uniformly from the replay buffer for each gradient update."},
    {"dqn.buffer_size", P_INT, D_(buffer_size), 1, 1e9, 0, NULL, "an integer in [1, 1e9]",
     "Capacity of the replay buffer in transitions, all environments together; the oldest are "
     "overwritten. A transition takes 34 bytes."},
    {"dqn.learning_starts", P_INT, D_(learning_starts), 0, 2e9, 0, NULL,
     "an integer in [0, 2e9]",
     "Transitions (all environments together) collected before the first gradient update; it "
     "must be below the run's transitions (train.epochs x steps_per_epoch)."},
    {"dqn.train_freq", P_INT, D_(train_freq), 1, 1e9, 0, NULL, "an integer in [1, 1e9]",
     "Transitions (all environments together) per gradient update: 64 environments with "
     "train_freq 4 make 16 updates per vector step."},
    {"dqn.target_update", P_INT, D_(target_update), 1, 1e9, 0, NULL, "an integer in [1, 1e9]",
     "Gradient updates between target-network updates: a copy of the online network, or a blend "
     "when dqn.tau is below 1."},
    {"dqn.eps_start", P_DOUBLE, D_(eps_start), 0, 1, 0, NULL, "a probability in [0, 1]",
     "The exploration rate epsilon at the start of the run; it falls linearly to dqn.eps_end "
     "over dqn.eps_fraction of the run's transitions."},
    {"dqn.eps_end", P_DOUBLE, D_(eps_end), 0, 1, 0, NULL, "a probability in [0, 1]",
     "Epsilon once its decay is over, kept for the rest of the run."},
    {"dqn.eps_fraction", P_DOUBLE, D_(eps_fraction), 0, 1, 1, NULL, "a fraction in (0, 1]",
     "Fraction of the run's transitions (train.epochs x steps_per_epoch) over which epsilon "
     "falls linearly from dqn.eps_start to dqn.eps_end."},
    {"dqn.double", P_BOOL, D_(double_q), 0, 1, 0, NULL, "true or false",
     "Double DQN: the online network chooses the next action and the target network values it, "
     "which curbs overestimation; false takes the target network's maximum."},
    {"dqn.dueling", P_BOOL, D_(dueling), 0, 1, 0, NULL, "true or false",
     "A dueling head: the network outputs a state value V and 3 advantages A, and the Q values "
     "are V + A - mean(A)."},
    {"dqn.eps_per_env", P_BOOL, D_(eps_per_env), 0, 1, 0, NULL, "true or false",
     "Each environment tosses its own explore-or-exploit coin every step; false tosses one a "
     "vector step for all of them (SB3, CleanRL), the random actions still drawn per "
     "environment."},
    {"dqn.uniform_warmup", P_BOOL, D_(uniform_warmup), 0, 1, 0, NULL, "true or false",
     "Actions are uniformly random until dqn.learning_starts transitions, as SB3; false follows "
     "the epsilon schedule from the start, as CleanRL."},
    {"dqn.max_grad_norm", P_DOUBLE, D_(max_grad_norm), 0, 1e9, 1, NULL, "a number > 0",
     "The gradient's global L2 norm is clipped to this before each Adam step (as torch's "
     "clip_grad_norm_)."},
    {"dqn.tau", P_DOUBLE, D_(tau), 0, 1, 1, NULL, "a number in (0, 1]",
     "Weight of the online network in each target update (target = tau online + (1 - tau) "
     "target): 1 is a hard copy, below 1 soft (Polyak) updates every dqn.target_update updates."},
    {"dqn.activation", P_CHOICE, D_(activation), 0, 0, 0, act_names_, "relu or tanh",
     "Activation of the Q network's hidden layers."},
    {"dqn.init", P_CHOICE, D_(init), 0, 0, 0, init_names_, "default or orthogonal",
     "Weight initialisation: default is torch's nn.Linear (uniform in +-1/sqrt(fan_in)); "
     "orthogonal is CleanRL's layer_init (gain sqrt 2, Q head 1, zero biases)."},
    {"ppo.hidden", P_LAYERS, PP_(hidden), 1, 65536, 0, NULL, "a list of 1 to 8 layer widths",
     "Widths (units) of the hidden layers of the actor and of the critic, two separate networks "
     "of this shape on the state (its features and 3 portfolio ones)."},
    {"ppo.lr", P_DOUBLE, PP_(lr), 0, 1, 1, NULL, "a learning rate in (0, 1]",
     "Adam's learning rate for the actor and the critic; with ppo.anneal_lr it falls linearly to "
     "0 over the run."},
    {"ppo.n_steps", P_INT, PP_(n_steps), 1, 1e7, 0, NULL, "an integer in [1, 1e7]",
     "Vector steps per rollout: each update learns from n_steps x env.num_envs transitions. A "
     "run shorter than one rollout cannot train."},
    {"ppo.gamma", P_DOUBLE, PP_(gamma), 0, 1, 1, NULL, "a discount in (0, 1]",
     "Discount per bar (one environment step) in the returns and advantages."},
    {"ppo.gae_lambda", P_DOUBLE, PP_(gae_lambda), 0, 1, 0, NULL, "a number in [0, 1]",
     "GAE's lambda: 0 gives one-step TD advantages, 1 the discounted return minus the value."},
    {"ppo.clip", P_DOUBLE, PP_(clip), 0, 10, 1, NULL, "a number > 0",
     "Clip range of the probability ratio in the surrogate objective; with ppo.value_loss "
     "clipped or max it also bounds the critic's move from the rollout's value."},
    {"ppo.epochs", P_INT, PP_(epochs), 1, 1e4, 0, NULL, "an integer in [1, 1e4]",
     "Passes over each rollout in an update (not train.epochs), each in a fresh random order."},
    {"ppo.minibatches", P_INT, PP_(minibatches), 1, 1e6, 0, NULL, "an integer in [1, 1e6]",
     "Minibatches each pass over a rollout is cut into, one gradient step each; advantages are "
     "normalised per minibatch."},
    {"ppo.ent_coef", P_DOUBLE, PP_(ent_coef), 0, 1e3, 0, NULL, "a number in [0, 1000]",
     "Weight of the entropy bonus in the loss, which rewards a less certain policy."},
    {"ppo.vf_coef", P_DOUBLE, PP_(vf_coef), 0, 1e3, 0, NULL, "a number in [0, 1000]",
     "Weight of the critic's value loss beside the policy loss in the combined loss: the "
     "critic's gradients scale with it."},
    {"ppo.max_grad_norm", P_DOUBLE, PP_(max_grad_norm), 0, 1e9, 1, NULL, "a number > 0",
     "The global L2 norm of the actor's and the critic's gradients together is clipped to this "
     "before each Adam step."},
    {"ppo.anneal_lr", P_BOOL, PP_(anneal_lr), 0, 1, 0, NULL, "true or false",
     "Lowers the learning rate linearly from ppo.lr towards 0 over the run's rollouts, as "
     "CleanRL; false keeps it constant."},
    {"ppo.activation", P_CHOICE, PP_(activation), 0, 0, 0, act_names_, "relu or tanh",
     "Activation of the actor's and the critic's hidden layers."},
    {"ppo.init", P_CHOICE, PP_(init), 0, 0, 0, init_names_, "default or orthogonal",
     "Weight initialisation: orthogonal is CleanRL's layer_init (gain sqrt 2, policy head 0.01, "
     "value head 1, zero biases); default is torch's nn.Linear."},
    {"ppo.value_loss", P_CHOICE, PP_(value_loss), 0, 0, 0, vloss_names_,
     "max, clipped or unclipped",
     "The critic's squared error: unclipped (SB3's default), clipped (the prediction held to the "
     "rollout's value +- ppo.clip, SB3's clip_range_vf) or the max of the two (CleanRL)."},
    {"eval.split", P_CHOICE, C_(eval_split), 0, 0, 0, split_names_, "train, val or test",
     "The split the greedy policy is backtested on after each epoch; a study's metrics are named "
     "after it (val.sharpe needs val). A study cannot search it."},
    {"eval.folds", P_INT, C_(eval_folds), 1, FOX_FOLDS_MAX, 0, NULL, "an integer in [1, 16]",
     "Consecutive walk-forward folds of eval.split, each backtested from flat with the initial "
     "capital; the metrics are their mean, or study.objective.aggregate in a study."},
    {"output.experience", P_CHOICE, C_(experience), 0, 0, 0, exp_names_,
     "none, summary or full",
     "Per-bar output of the evaluation in a study's trial files and `backtest --output`: summary "
     "has actions, rewards and barrier labels, full adds the states, none writes none."},
    {"output.tensorboard", P_BOOL, C_(tensorboard), 0, 1, 0, NULL, "true or false",
     "A study also writes every trial's epochs as TensorBoard events under OUTDIR/tb/ "
     "(trial-ID, or member-M under pbt), readable while it runs; OUTDIR/metrics.jsonl has them "
     "always."},
    {"study.name", P_NAME, S_(name), 0, 0, 0, NULL, "a name",
     "The study's name: without -o, `foxopt run` writes the study to a directory of that name in "
     "the current directory."},
    {"study.seed", P_SEED, S_(seed), 0, 0, 0, NULL, "an integer >= 0",
     "Seed of the whole study: trial k's seed is a hash of (seed, k), and the sampler's, the "
     "repeats' and PBT's draws follow from it, whatever the number of ranks."},
    {"study.trials", P_INT, S_(trials), 1, 1e7, 0, NULL, "an integer in [1, 1e7]",
     "Trials (configurations) to run. The grid sampler stops at the grid's size; under pbt it "
     "does not apply (the table has population x generations rows)."},
    {"study.timeout", P_DOUBLE, S_(timeout), 0, 1e9, 0, NULL,
     "seconds in [0, 1e9] (0: no limit)",
     "A run starts no work after this many seconds of its own, once its first step is done (each "
     "--resume gets them anew, as Optuna's optimize(timeout=)): the work in flight finishes, the study is written and the "
     "run exits 75; --resume continues to the table an uninterrupted run makes. It may change "
     "on --resume, as study.trials may."},
    {"study.round_size", P_INT, S_(round_size), 1, 1e5, 0, NULL, "an integer in [1, 100000]",
     "Trials proposed together from the finished ones and run in parallel: a larger round keeps "
     "more devices busy, but each proposal sees fewer results. Hyperband's later brackets may "
     "run fewer."},
    {"study.trials_per_device", P_INT, S_(trials_per_device), 1, 256, 0, NULL,
     "an integer in [1, 256]",
     "Trials each rank runs at once: threads on the CPU, members of one population on a GPU (at "
     "most 64 a population). The results do not depend on it."},
    {"study.objective.metric", P_NAME, S_(metric), 0, 0, 0, NULL, "a metric such as val.sharpe",
     "The metric to optimise: SPLIT.METRIC with SPLIT the eval.split (val.sharpe), or a test "
     "function's output. In YAML, study.objective may list several objectives."},
    {"study.objective.direction", P_CHOICE, S_(direction), 0, 0, 0, dir_names_,
     "maximize or minimize",
     "Whether larger (maximize) or smaller (minimize) values of the objective are better; "
     "unwritten, maximize, or minimize for a test function (study.objective.function)."},
    {"study.objective.aggregate", P_CHOICE, S_(aggregate), 0, 0, 0, config_aggregate_names,
     "mean, median, iqm or lcb",
     "How a configuration's study.repeats x eval.folds values become one: iqm is the "
     "interquartile mean, lcb the mean - std / sqrt(n) (+ when minimising)."},
    {"study.objective.function", P_CHOICE, S_(function), 0, 0, 0, config_function_names,
     "none, branin, hartmann6, mixed, zdt1, zdt2 or binh_korn",
     "A built-in test function of the parameters x0, x1, ... evaluated instead of training "
     "agents, to check samplers and the machinery; none trains agents."},
    {"study.objective.seconds", P_DOUBLE, S_(seconds), 0, 86400, 0, NULL,
     "seconds in [0, 86400]",
     "Test functions only: each epoch of a trial takes this long, standing in for training; 0 "
     "adds no wait."},
    {"study.constraints", P_CONSTRAINTS, S_(n_constraints), 0, FOX_CONSTRAINTS_MAX, 0, NULL,
     "a list of at most 16 constraints METRIC OP NUMBER (OP one of >=, <=, >, <), e.g. "
     "[\"val.max_drawdown >= -0.2\"]",
     "A complete trial that breaks one is infeasible: it stays in the table but ranks after "
     "every feasible trial, by its total violation, and is never the best or on the Pareto "
     "front."},
    {"study.repeats", P_INT, S_(repeats), 1, FOX_REPEATS_MAX, 0, NULL, "an integer in [1, 64]",
     "Seeds each configuration is trained with, the same seeds for every configuration (paired); "
     "the objective aggregates over repeats x eval.folds."},
    {"study.sampler.name", P_CHOICE, S_(sampler), 0, 0, 0, config_sampler_names,
     "tpe, random, grid or nsga2",
     "How trials are proposed: tpe (Optuna's TPE), random, grid (every combination of values, "
     "int_uniform and q_uniform points in turn) or nsga2 (NSGA-II, a genetic algorithm)."},
    {"study.sampler.n_startup_trials", P_INT, T_(n_startup_trials), 0, 1e6, 0, NULL,
     "an integer in [0, 1e6]",
     "TPE: proposals are random until this many trials are complete or pruned (failed ones do "
     "not count)."},
    {"study.sampler.n_ei_candidates", P_INT, T_(n_ei_candidates), 1, 1e5, 0, NULL,
     "an integer in [1, 100000]",
     "TPE: candidates drawn from the good trials' estimator l(x) for each proposal; the one with "
     "the largest l(x) / g(x) is proposed."},
    {"study.sampler.multivariate", P_BOOL, T_(multivariate), 0, 1, 0, NULL, "true or false",
     "TPE: models the always-active parameters jointly, then the chosen agent's dqn.* or ppo.* "
     "group (Optuna's multivariate with group); false models each parameter alone."},
    {"study.sampler.constant_liar", P_BOOL, T_(constant_liar), 0, 1, 0, NULL, "true or false",
     "TPE: counts the round's still-running trials among the bad ones, so that one round's "
     "proposals spread out; false leaves them out."},
    {"study.sampler.prior_weight", P_DOUBLE, T_(prior_weight), 0, 1e6, 1, NULL, "a number > 0",
     "TPE: weight of the prior kernel, spread over each parameter's whole range, in the Parzen "
     "estimators."},
    {"study.sampler.gamma", P_DOUBLE, T_(gamma), 0, 1, 1, NULL, "a fraction in (0, 1]",
     "TPE: fraction of the finished trials in the good group, ceil(gamma n): at most 25 trials "
     "with one objective, no cap with several."},
    {"study.sampler.population_size", P_INT, T_(population_size), 2, 1e5, 0, NULL,
     "an integer in [2, 100000]",
     "NSGA-II: trials per generation; generation 0 is random. A study.round_size equal to it "
     "makes each round one generation."},
    {"study.sampler.crossover_prob", P_DOUBLE, T_(crossover_prob), 0, 1, 0, NULL,
     "a probability in [0, 1]",
     "NSGA-II: chance that a child is a uniform crossover of two parents chosen by tournament; "
     "otherwise it copies one parent."},
    {"study.sampler.swapping_prob", P_DOUBLE, T_(swapping_prob), 0, 1, 0, NULL,
     "a probability in [0, 1]",
     "NSGA-II: in a crossover, the chance for each parameter to come from one parent rather than "
     "the other."},
    {"study.sampler.mutation_prob", P_AUTO, T_(mutation_prob), 0, 1, 1, NULL,
     "auto (1 / the number of parameters) or a probability in (0, 1]",
     "NSGA-II: chance that each of a child's parameters is drawn anew from its distribution "
     "instead of inherited."},
    {"study.scheduler.name", P_CHOICE, S_(scheduler), 0, 0, 0, config_scheduler_names,
     "none, successive_halving, hyperband or pbt",
     "How epochs are spent: none trains every trial train.epochs; successive_halving and "
     "hyperband prune at rungs and go on from checkpoints; pbt is population-based training."},
    {"study.scheduler.min_epochs", P_INT, S_(min_epochs), 1, 1e6, 0, NULL,
     "an integer in [1, 1e6]",
     "Successive halving and Hyperband: epochs of the first rung; the next rungs are at "
     "min_epochs x eta^k, below max_epochs. Setting it under pbt is refused."},
    {"study.scheduler.max_epochs", P_INT, S_(max_epochs), 0, 1e6, 0, NULL,
     "an integer in [0, 1e6] (0: train.epochs)",
     "Successive halving and Hyperband: epochs of the last rung, the full budget every trial's "
     "schedules are planned for, in place of train.epochs."},
    {"study.scheduler.eta", P_INT, S_(eta), 2, 100, 0, NULL, "an integer in [2, 100]",
     "Successive halving and Hyperband: rungs grow by this factor, and the best floor(n / eta) "
     "(at least 1) of a rung's n trials go on."},
    {"study.scheduler.brackets", P_INT, S_(brackets), 0, 100, 0, NULL,
     "an integer in [0, 100] (0: all)",
     "Hyperband: how many brackets the rounds cycle through; bracket b starts its trials at rung "
     "b, with fewer trials a round."},
    {"study.scheduler.population", P_INT, S_(population), 2, 4096, 0, NULL,
     "an integer in [2, 4096]",
     "PBT: members trained in synchronous generations, generation 0 proposed by study.sampler; "
     "the table has population x generations rows."},
    {"study.scheduler.interval", P_INT, S_(interval), 1, 1e6, 0, NULL,
     "an integer in [1, 1e6] (epochs)",
     "PBT: epochs per generation, which makes train.epochs / interval generations (rounded up; "
     "at least 2). Members are ranked and exploited at each generation's end."},
    {"study.scheduler.quantile", P_DOUBLE, S_(quantile), 0, 0.5, 1, NULL,
     "a fraction in (0, 0.5]",
     "PBT: the bottom fraction of members (ceil(population x quantile), at most half) that copy "
     "a top-fraction member's state and explore; failed members always do."},
    {"study.scheduler.resample_probability", P_DOUBLE, S_(resample_probability), 0, 1, 0, NULL,
     "a probability in [0, 1]",
     "PBT: chance that an exploring member redraws each searched parameter from its distribution "
     "rather than multiplying it by one of study.scheduler.factors."},
    {"study.scheduler.factors", P_FACTORS, S_(factors), 0, 1e6, 1, NULL,
     "a list of 1 to 8 numbers > 0, e.g. [0.8, 1.2]",
     "PBT: multipliers, one drawn for each searched parameter not resampled; the result is "
     "clamped to its range, an integer rounded. A categorical one moves to a neighbouring "
     "choice."},
    {"study.scheduler.copy_buffers", P_BOOL, S_(copy_buffers), 0, 1, 0, NULL, "true or false",
     "PBT: an exploiting member copies the donor's replay buffer or partial rollout with its "
     "networks; false keeps its own experience (a failed member still takes the donor's)."},
};
#undef S_
#undef T_
#undef C_
#undef M_
#undef D_
#undef PP_
#define NPARAMS_ (sizeof params_ / sizeof *params_)

static const struct param_ *find_(const char *key);

void config_defaults(struct config *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->data_path, sizeof c->data_path, "dataset.h5");
  c->market = (struct market_params){.initial_capital = 10000,
                                     .spread = 0.0005,
                                     .fee = 0.0004,
                                     .cash_reserve = 0.05,
                                     .pt = 2.0,
                                     .sl = 2.0,
                                     .bonus = 0.0,
                                     .horizon = 60,
                                     .enforce = 1,
                                     .reward_normalize = 0,
                                     .reward_scale = 0 /* auto */,
                                     .nfeat = FOX_NFEAT /* the dataset's selection sets it */};
  c->num_envs = 64;
  c->episode_bars = 2048;
  c->algo = FOX_ALGO_DQN;
  c->epochs = 3;
  c->steps_per_epoch = 0;
  c->seed = 1;
  c->backend = FOX_BACKEND_AUTO;
  c->graphs = 1;
  c->dqn = (struct dqn_config){.hidden = {128, 128},
                               .n_hidden = 2,
                               .lr = 2.5e-4,
                               .gamma = 0.99,
                               .batch_size = 128,
                               .buffer_size = 100000,
                               .learning_starts = 10000,
                               .train_freq = 4,
                               .target_update = 1000,
                               .eps_start = 1.0,
                               .eps_end = 0.05,
                               .eps_fraction = 0.5,
                               .double_q = 1,
                               .dueling = 0,
                               .eps_per_env = 1,
                               /* SB3's uniform warm-up: bench_learn's OU DQN, 20 seeds,
                                * 0.166 (all learn) against 0.118 without, level with SB3's
                                * 0.17 where without it was short */
                               .uniform_warmup = 1,
                               .max_grad_norm = 10,
                               .tau = 1.0,
                               /* CleanRL's dqn.py: nn.Linear's own initialisation, ReLU */
                               .activation = FOX_ACT_RELU,
                               .init = FOX_INIT_DEFAULT};
  c->ppo = (struct ppo_config){.hidden = {64, 64},
                               .n_hidden = 2,
                               .lr = 2.5e-4,
                               .n_steps = 128,
                               .gamma = 0.99,
                               .gae_lambda = 0.95,
                               .clip = 0.2,
                               .epochs = 4,
                               .minibatches = 4,
                               .ent_coef = 0.01,
                               .vf_coef = 0.5,
                               .max_grad_norm = 0.5,
                               .anneal_lr = 1,
                               /* CleanRL's ppo.py and SB3: tanh, orthogonal layer_init */
                               .activation = FOX_ACT_TANH,
                               .init = FOX_INIT_ORTHOGONAL,
                               /* SB3's default: bench_learn's wave market at 20 seeds, 0.080
                                * against CleanRL's max 0.073 (docs/testing.md) */
                               .value_loss = FOX_VLOSS_UNCLIPPED};
  c->eval_split = FOX_SPLIT_VAL;
  c->eval_folds = 1;
  c->experience = FOX_EXP_SUMMARY;
  c->study = (struct study_config){.seed = 0,
                                   .trials = 20,
                                   .round_size = 4,
                                   .trials_per_device = 1,
                                   .direction = FOX_MAXIMIZE,
                                   .n_obj = 1,
                                   .aggregate = FOX_AGG_MEAN,
                                   .repeats = 1,
                                   .function = 0,
                                   .seconds = 0,
                                   .sampler = FOX_SAMPLER_TPE,
                                   .tpe = {.n_startup_trials = 10,
                                           .n_ei_candidates = 24,
                                           .multivariate = 1,
                                           .constant_liar = 1,
                                           .prior_weight = 1.0,
                                           .population_size = 50,
                                           .crossover_prob = 0.9,
                                           .swapping_prob = 0.5,
                                           .mutation_prob = 0,
                                           .gamma = 0.1},
                                   .scheduler = FOX_SCHED_NONE,
                                   .min_epochs = 1,
                                   .max_epochs = 0,
                                   .eta = 3,
                                   .brackets = 0,
                                   /* Ray Tune's PopulationBasedTraining defaults */
                                   .population = 8,
                                   .interval = 1,
                                   .quantile = 0.25,
                                   .resample_probability = 0.25,
                                   .factors = {0.8, 1.2},
                                   .n_factors = 2,
                                   .copy_buffers = 1};
  snprintf(c->study.name, sizeof c->study.name, "study");
  snprintf(c->study.metric, sizeof c->study.metric, "val.sharpe");
}

int config_key_kind(const char *key) {
  const struct param_ *p = find_(key);
  if (!p)
    return -1;
  switch (p->type) {
  case P_DOUBLE:
  case P_AUTO: return FOX_KEY_NUMBER;
  case P_INT:
  case P_STEPS:
  case P_SEED: return FOX_KEY_INTEGER;
  case P_BOOL: return FOX_KEY_BOOL;
  case P_CHOICE: return FOX_KEY_CHOICE;
  case P_LAYERS:
  case P_FACTORS:
  case P_FEATURES: return FOX_KEY_LIST;
  case P_STRING:
  case P_NAME:
  case P_CONSTRAINTS: return FOX_KEY_TEXT;
  }
  return -1;
}

static int parse_bool_(const char *v, int *out) {
  if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
    *out = 1;
  else if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "no") ||
           !strcasecmp(v, "off"))
    *out = 0;
  else
    return -1;
  return 0;
}

static const struct param_ *find_(const char *key) {
  for (size_t i = 0; i < NPARAMS_; i++)
    if (strcmp(params_[i].key, key) == 0)
      return &params_[i];
  return NULL;
}

static int allowed_(const char *key, const char *const *only) {
  if (!only)
    return 1;
  for (; *only; only++)
    if (strncmp(key, *only, strlen(*only)) == 0)
      return 1;
  return 0;
}

/* A metric a study may name: SPLIT.METRIC (val.sharpe) or a test function's output (f0). Which
 * split and which function the study has is checked when the study is made (study.c). */
static int metric_known_(const char *m) {
  for (const char *const *f = config_function_metrics; *f; f++)
    if (strcmp(m, *f) == 0)
      return 1;
  const char *dot = strchr(m, '.');
  if (!dot)
    return 0;
  int split = 0;
  for (int i = 0; split_names_[i]; i++)
    split |= strlen(split_names_[i]) == (size_t)(dot - m) &&
             strncmp(m, split_names_[i], (size_t)(dot - m)) == 0;
  return split && metrics_find(dot + 1) >= 0;
}

static int bad_metric_(struct fox_err *e, const char *where, const char *what, const char *m) {
  return fox_errf(e, FOX_EUSAGE, "%s%s = '%s': unknown metric: expected SPLIT.METRIC (SPLIT "
                                 "train, val or test; METRIC total_return, sharpe, sortino, "
                                 "max_drawdown, annual_return, calmar, trades, win_rate, "
                                 "profit_factor, exposure, final_equity, bars) or a test "
                                 "function's output (value, f0, f1, c0, c1)",
                  where, what, m);
}

static const char *const op_names_[] = {">=", "<=", ">", "<"};

int config_parse_constraint(const char *text, struct study_constraint *c) {
  struct study_constraint k;
  memset(&k, 0, sizeof k);
  const char *p = text + strspn(text, " ");
  size_t len = strcspn(p, " <>=");
  if (len == 0 || len >= sizeof k.metric)
    return -1;
  memcpy(k.metric, p, len);
  p += len;
  p += strspn(p, " ");
  if (p[0] == '>' || p[0] == '<') {
    int eq = p[1] == '=';
    k.op = p[0] == '>' ? (eq ? FOX_OP_GE : FOX_OP_GT) : (eq ? FOX_OP_LE : FOX_OP_LT);
    p += 1 + eq;
  } else {
    return -2;
  }
  /* The bound between blanks, in the one number grammar (util/number.h). */
  p += strspn(p, " \t");
  size_t blen = strcspn(p, " \t");
  char num[64];
  if (blen >= sizeof num || p[blen + strspn(p + blen, " \t")] != '\0')
    return -3;
  memcpy(num, p, blen);
  num[blen] = '\0';
  if (number_parse(num, &k.bound) != 0)
    return -3;
  *c = k;
  return 0;
}

void config_format_constraint(const struct study_constraint *c, char *buf, size_t n) {
  char num[32];
  snprintf(num, sizeof num, "%.15g", c->bound); /* the shortest that reads back the same */
  if (strtod(num, NULL) != c->bound)
    snprintf(num, sizeof num, "%.17g", c->bound);
  snprintf(buf, n, "%s %s %s", c->metric, op_names_[c->op], num);
}

/* A number from a whole string, in range; ints must be integral. */
static int parse_number_(const struct param_ *p, const char *val, double *x) {
  if (number_parse(val, x) != 0 ||
      (p->type != P_DOUBLE && p->type != P_AUTO && p->type != P_FACTORS && *x != floor(*x)))
    return -1;
  if (*x < p->lo || *x > p->hi || (p->lo_open && *x == p->lo))
    return -2;
  return 0;
}

/* `where` is "FILE:LINE: " or "--set " and prefixes every message. */
static int bad_(struct fox_err *e, const char *where, const struct param_ *p, const char *val,
                int range) {
  /* a row's words may give the lower bound only ("an integer >= 1"): above the table's upper
   * one, that is said too */
  double x;
  char most[64] = "";
  if (range && number_parse(val, &x) == 0 && x > p->hi && !strchr(p->what, ']'))
    snprintf(most, sizeof most, ", at most %.17g", p->hi);
  return fox_errf(e, FOX_EUSAGE, "%s%s = '%s': %sexpected %s%s", where, p->key, val,
                  range ? "out of range, " : "", p->what, most);
}

/* Assigns a scalar value (or, for P_LAYERS, a list given as items). */
static int param_assign_(struct config *c, const struct param_ *p, const char *val,
                         const char *const *items, int nitems, const char *where,
                         struct fox_err *e) {
  char *dst = (char *)c + p->offset;
  c->given[p - params_] = 1;
  if (strcmp(p->key, "study.objective.direction") == 0)
    c->dir_given[0] = 1;
  double x;
  int rc;
  switch (p->type) {
  case P_STRING:
  case P_NAME: {
    size_t cap = p->type == P_STRING ? sizeof c->data_path : FOX_NAME_LEN, len = strlen(val);
    if (len == 0 || len >= cap)
      return bad_(e, where, p, val, 0);
    /* The whole field, so that equal configs are equal bytes (a shorter value after a longer
     * one left the longer one's tail). */
    memset(dst, 0, cap);
    memcpy(dst, val, len);
    return 0;
  }
  case P_BOOL:
    if (parse_bool_(val, (int *)dst) != 0)
      return bad_(e, where, p, val, 0);
    return 0;
  case P_CHOICE:
    for (int i = 0; p->choices[i]; i++)
      if (strcmp(val, p->choices[i]) == 0) {
        *(int *)dst = i;
        return 0;
      }
    return bad_(e, where, p, val, 0);
  case P_STEPS:
    if (strcmp(val, "auto") == 0) {
      *(int64_t *)dst = 0;
      return 0;
    }
    if ((rc = parse_number_(p, val, &x)) != 0)
      return bad_(e, where, p, val, rc == -2);
    *(int64_t *)dst = (int64_t)x;
    return 0;
  case P_SEED: {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(val, &end, 10);
    if (errno || end == val || *end != '\0' || !isdigit((unsigned char)val[0]))
      return bad_(e, where, p, val, 0);
    *(uint64_t *)dst = s;
    return 0;
  }
  case P_LAYERS: {
    if (nitems < 1 || nitems > FOX_MAX_LAYERS)
      return bad_(e, where, p, val, 0);
    /* Built aside, so that a refused list leaves the old one whole, and zero past its end, so
     * that equal configs are equal bytes. */
    int layers[FOX_MAX_LAYERS] = {0};
    for (int i = 0; i < nitems; i++) {
      if ((rc = parse_number_(p, items[i], &x)) != 0)
        return bad_(e, where, p, items[i], rc == -2);
      layers[i] = (int)x;
    }
    memcpy(dst, layers, sizeof layers);
    /* n_hidden follows the hidden array in both agent structs. */
    *(int *)(dst + FOX_MAX_LAYERS * sizeof(int)) = nitems;
    return 0;
  }
  case P_FACTORS: {
    if (nitems < 1 || nitems > FOX_FACTORS_MAX)
      return bad_(e, where, p, val, 0);
    double f[FOX_FACTORS_MAX] = {0}; /* built aside and zero past the end, as the layers are */
    for (int i = 0; i < nitems; i++) {
      if ((rc = parse_number_(p, items[i], &f[i])) != 0)
        return bad_(e, where, p, items[i], rc == -2);
    }
    memcpy(dst, f, sizeof f);
    c->study.n_factors = nitems;
    return 0;
  }
  case P_FEATURES: {
    if (nitems < 0 || nitems > FOX_FEATURES_MAX)
      return bad_(e, where, p, val, 0);
    /* Built aside and zero past the end, as the layers are. */
    char text[FOX_FEATURES_TEXT] = {0};
    size_t at = 0;
    for (int i = 0; i < nitems; i++) {
      const char *s = items[i];
      size_t len = strlen(s);
      int ok = len > 0 && len < 64;
      for (size_t k = 0; ok && k < len; k++)
        ok = isalnum((unsigned char)s[k]) || strchr("_.-", s[k]) != NULL;
      if (!ok)
        return fox_errf(e, FOX_EUSAGE, "%s%s[%d] = '%s': expected a feature name (1 to 63 of "
                                       "A-Z a-z 0-9 _ . -)", where, p->key, i, s);
      for (int j = 0; j < i; j++)
        if (strcmp(items[j], s) == 0)
          return fox_errf(e, FOX_EUSAGE, "%s%s[%d] = '%s': given twice (item %d)", where,
                          p->key, i, s, j);
      if (at + len + 1 >= sizeof text)
        return fox_errf(e, FOX_EUSAGE, "%s%s: the names are too long together (%zu bytes at "
                                       "most)", where, p->key, sizeof text - 1);
      at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", i ? "," : "", s);
    }
    memcpy(c->features, text, sizeof text);
    c->n_features = nitems;
    return 0;
  }
  case P_CONSTRAINTS: {
    if (nitems > FOX_CONSTRAINTS_MAX)
      return fox_errf(e, FOX_EUSAGE, "%s%s: %d constraints: at most %d", where, p->key, nitems,
                      FOX_CONSTRAINTS_MAX);
    /* Built aside and zero past the end, as the layers are. */
    struct study_constraint k[FOX_CONSTRAINTS_MAX];
    memset(k, 0, sizeof k);
    for (int i = 0; i < nitems; i++) {
      rc = config_parse_constraint(items[i], &k[i]);
      if (rc == -1)
        return fox_errf(e, FOX_EUSAGE, "%s%s[%d] = '%s': expected METRIC OP NUMBER, e.g. "
                                       "\"val.max_drawdown >= -0.2\"", where, p->key, i, items[i]);
      if (rc == -2)
        return fox_errf(e, FOX_EUSAGE, "%s%s[%d] = '%s': bad operator: expected one of >=, <=, "
                                       ">, <", where, p->key, i, items[i]);
      if (rc == -3)
        return fox_errf(e, FOX_EUSAGE, "%s%s[%d] = '%s': the bound is not a number", where,
                        p->key, i, items[i]);
      if (!metric_known_(k[i].metric)) {
        char what[96];
        snprintf(what, sizeof what, "%s[%d]", p->key, i);
        return bad_metric_(e, where, what, k[i].metric);
      }
    }
    c->study.n_constraints = nitems;
    memcpy(c->study.constraints, k, sizeof k);
    return 0;
  }
  case P_AUTO:
    if (strcmp(val, "auto") == 0) {
      *(double *)dst = 0;
      return 0;
    }
    /* fall through */
  case P_INT:
  case P_DOUBLE:
    if ((rc = parse_number_(p, val, &x)) != 0)
      return bad_(e, where, p, val, rc == -2);
    if (p->type == P_INT)
      *(int *)dst = (int)x;
    else if (p->type == P_AUTO)
      *(double *)dst = x;
    else
      *(double *)dst = x;
    return 0;
  }
  return fox_errf(e, FOX_EFAIL, "config: unhandled type of %s", p->key);
}

static int unknown_(struct fox_err *e, const char *where, const char *key,
                    const char *const *only) {
  const char *names[NPARAMS_];
  int n = 0;
  for (size_t i = 0; i < NPARAMS_; i++)
    if (allowed_(params_[i].key, only))
      names[n++] = params_[i].key;
  char near[600];
  nearest_names(key, names, n, near, sizeof near);
  if (only) { /* a command that takes a few keys: all of them */
    char known[1200] = "";
    for (int i = 0; i < n && strlen(known) + strlen(names[i]) + 3 < sizeof known; i++)
      strcat(strcat(known, i ? ", " : ""), names[i]);
    return fox_errf(e, FOX_EUSAGE, "%sunknown key '%s'%s%s (known here: %s)", where, key,
                    near[0] ? ": " : "", near, known);
  }
  return fox_errf(e, FOX_EUSAGE, "%sunknown key '%s'%s%s (every key: man foxopt, or "
                  "docs/config-keys.md)", where, key, near[0] ? ": " : "", near);
}

/* `[64, 64]` or `64,64` into items (at most max + 1, enough to refuse too many): a bracket
 * must open and close the list and no item may be empty. -1 when the list is malformed (`[1,2`
 * once read as [1, 2]). An empty bracket pair is an empty list. */
static int split_list_(char *s, char **items, int *n, int max) {
  size_t len = strlen(s);
  if (s[0] == '[') {
    if (len < 2 || s[len - 1] != ']')
      return -1;
    s[len - 1] = '\0';
    s++;
  }
  if (strpbrk(s, "[]"))
    return -1;
  *n = 0;
  if (s[strspn(s, " ")] == '\0' && len >= 2 &&
      (max == FOX_CONSTRAINTS_MAX || max == FOX_FEATURES_MAX))
    return 0;
  for (char *item = s; item && *n <= max;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    item += strspn(item, " ");
    for (char *end = item + strlen(item); end > item && end[-1] == ' ';)
      *--end = '\0';
    if (*item == '\0')
      return -1;
    items[(*n)++] = item;
    item = comma ? comma + 1 : NULL;
  }
  return 0;
}

/* Command-line values become YAML (config_dump, trial.h5) and lines (study.h5's config_sets,
 * replayed on --resume: a newline would split one --set into two), so they are held to what a
 * config's value may be: UTF-8 text without control characters. */
int config_set(struct config *c, const char *kv, const char *const *only, struct fox_err *e) {
  const char *bad = text_bad_char(kv);
  if (bad)
    return fox_errf(e, FOX_EUSAGE, "--set '%.*s': byte 0x%02X after it is a control character "
                                   "or not UTF-8: expected one line of UTF-8 text", (int)(bad - kv),
                    kv, (unsigned)(unsigned char)*bad);
  const char *eq = strchr(kv, '=');
  if (!eq || eq == kv)
    return fox_errf(e, FOX_EUSAGE, "--set '%s': expected key=value", kv);
  char key[128];
  size_t klen = (size_t)(eq - kv);
  if (klen >= sizeof key)
    return fox_errf(e, FOX_EUSAGE, "--set: key too long");
  memcpy(key, kv, klen);
  key[klen] = '\0';
  const char *val = eq + 1;
  const struct param_ *p = find_(key);
  if (!p || !allowed_(key, only))
    return unknown_(e, "--set: ", key, only);
  if (p->type != P_LAYERS && p->type != P_CONSTRAINTS && p->type != P_FACTORS &&
      p->type != P_FEATURES)
    return param_assign_(c, p, val, NULL, 0, "--set ", e);
  char buf[FOX_FEATURES_TEXT], *items[FOX_FEATURES_MAX + 1];
  int n, max = p->type == P_LAYERS     ? FOX_MAX_LAYERS
               : p->type == P_FACTORS  ? FOX_FACTORS_MAX
               : p->type == P_FEATURES ? FOX_FEATURES_MAX
                                       : FOX_CONSTRAINTS_MAX;
  if (strlen(val) >= sizeof buf)
    return bad_(e, "--set ", p, "...", 0);
  memcpy(buf, val, strlen(val) + 1);
  if (split_list_(buf, items, &n, max) != 0)
    return bad_(e, "--set ", p, val, 0);
  return param_assign_(c, p, val, (const char *const *)items, n, "--set ", e);
}

static const char *scalar_(yaml_node_t *n) { return (const char *)n->data.scalar.value; }

/* A value for `key` from a YAML node: a scalar, or a list for P_LAYERS. */
static int load_value_(struct config *c, yaml_document_t *doc, const struct param_ *p,
                       yaml_node_t *v, const char *where, struct fox_err *e) {
  const char *key = p->key;
  if (p->type == P_LAYERS || p->type == P_CONSTRAINTS || p->type == P_FACTORS ||
      p->type == P_FEATURES) {
    int layers = p->type != P_CONSTRAINTS && p->type != P_FEATURES;
    int max = p->type == P_LAYERS     ? FOX_MAX_LAYERS
              : p->type == P_FACTORS  ? FOX_FACTORS_MAX
              : p->type == P_FEATURES ? FOX_FEATURES_MAX
                                      : FOX_CONSTRAINTS_MAX;
    if (v->type != YAML_SEQUENCE_NODE)
      return fox_errf(e, FOX_EUSAGE, "%s%s: expected %s%s", where, key, p->what,
                      p->type == P_LAYERS ? ", e.g. [64, 64]" : "");
    const char *items[FOX_FEATURES_MAX + 1];
    int n = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start;
         it < v->data.sequence.items.top && n <= max; it++) {
      yaml_node_t *in = yaml_document_get_node(doc, *it);
      if (in->type != YAML_SCALAR_NODE)
        return fox_errf(e, FOX_EUSAGE, "%s%s: expected %s in the list", where, key,
                        layers                    ? "numbers"
                        : p->type == P_FEATURES ? "feature names"
                                                : "texts such as \"val.trades >= 10\"");
      items[n++] = scalar_(in);
    }
    return param_assign_(c, p, "[...]", items, n, where, e);
  }
  if (v->type != YAML_SCALAR_NODE)
    return fox_errf(e, FOX_EUSAGE, "%s%s: expected %s, got a %s", where, key, p->what,
                    v->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
  return param_assign_(c, p, scalar_(v), NULL, 0, where, e);
}

static int load_map_(struct config *c, yaml_document_t *doc, yaml_node_t *m, const char *prefix,
                     const char *path, size_t *seen, struct fox_err *e);

/* study.objective as a list: [{metric: val.sharpe, direction: maximize}, ...]. Each item names
 * a metric (and its direction, maximize by default); the keys every objective shares
 * (aggregate, function, seconds) may stand in any one item. */
static int load_objectives_(struct config *c, yaml_document_t *doc, yaml_node_t *v,
                            const char *path, size_t *seen, struct fox_err *e) {
  struct study_config *sc = &c->study;
  const struct param_ *pm = find_("study.objective.metric"), *pd = find_("study.objective.direction");
  char where[1200];
  int n = 0;
  char metric[FOX_OBJ_MAX][FOX_NAME_LEN];
  int dir[FOX_OBJ_MAX];
  unsigned char given_dir[FOX_OBJ_MAX] = {0};
  memset(metric, 0, sizeof metric);
  snprintf(where, sizeof where, "%s:%zu: ", path, v->start_mark.line + 1);
  size_t *sm = &seen[pm - params_], *sd = &seen[pd - params_];
  if (*sm || *sd)
    return fox_errf(e, FOX_EUSAGE, "%sstudy.objective: given twice (first at line %zu)", where,
                    *sm ? *sm : *sd);
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
       it++) {
    yaml_node_t *in = yaml_document_get_node(doc, *it);
    snprintf(where, sizeof where, "%s:%zu: ", path, in->start_mark.line + 1);
    if (n == FOX_OBJ_MAX)
      return fox_errf(e, FOX_EUSAGE, "%sstudy.objective: more than %d objectives", where,
                      FOX_OBJ_MAX);
    if (in->type != YAML_MAPPING_NODE)
      return fox_errf(e, FOX_EUSAGE, "%sstudy.objective[%d]: expected a mapping such as "
                                     "{metric: val.sharpe, direction: maximize}", where, n);
    dir[n] = FOX_MAXIMIZE;
    int have_metric = 0;
    for (yaml_node_pair_t *kp = in->data.mapping.pairs.start; kp < in->data.mapping.pairs.top;
         kp++) {
      yaml_node_t *k = yaml_document_get_node(doc, kp->key);
      yaml_node_t *iv = yaml_document_get_node(doc, kp->value);
      snprintf(where, sizeof where, "%s:%zu: ", path, k->start_mark.line + 1);
      if (k->type != YAML_SCALAR_NODE)
        return fox_errf(e, FOX_EUSAGE, "%sexpected a key in study.objective[%d]", where, n);
      const char *name = scalar_(k);
      char what[64];
      snprintf(what, sizeof what, "study.objective[%d].%s", n, name);
      if (strcmp(name, "metric") == 0 || strcmp(name, "direction") == 0) {
        if (iv->type != YAML_SCALAR_NODE)
          return fox_errf(e, FOX_EUSAGE, "%s%s: expected a %s", where, what,
                          name[0] == 'm' ? "metric such as val.sharpe" : "direction");
        const char *val = scalar_(iv);
        if (name[0] == 'd') {
          int d = -1;
          for (int j = 0; dir_names_[j]; j++)
            if (strcmp(val, dir_names_[j]) == 0)
              d = j;
          if (d < 0)
            return fox_errf(e, FOX_EUSAGE, "%s%s = '%s': expected maximize or minimize", where,
                            what, val);
          dir[n] = d;
          given_dir[n] = 1;
          continue;
        }
        if (strlen(val) == 0 || strlen(val) >= FOX_NAME_LEN || !metric_known_(val))
          return bad_metric_(e, where, what, val);
        for (int j = 0; j < n; j++)
          if (strcmp(metric[j], val) == 0)
            return fox_errf(e, FOX_EUSAGE, "%s%s = '%s': the objective is given twice (as "
                                           "study.objective[%d])", where, what, val, j);
        memcpy(metric[n], val, strlen(val));
        have_metric = 1;
        continue;
      }
      char key[160];
      snprintf(key, sizeof key, "study.objective.%s", name);
      const struct param_ *p = find_(key);
      if (!p || p == pm || p == pd)
        return fox_errf(e, FOX_EUSAGE, "%sunknown key '%s' (known: metric, direction, "
                                       "aggregate, function, seconds)", where, what);
      size_t i = (size_t)(p - params_), line = k->start_mark.line + 1;
      if (seen[i])
        return fox_errf(e, FOX_EUSAGE, "%s%s: given twice (first at line %zu)", where, p->key,
                        seen[i]);
      seen[i] = line;
      FOX_TRY(load_value_(c, doc, p, iv, where, e));
    }
    if (!have_metric) {
      snprintf(where, sizeof where, "%s:%zu: ", path, in->start_mark.line + 1);
      return fox_errf(e, FOX_EUSAGE, "%sstudy.objective[%d]: no metric", where, n);
    }
    n++;
  }
  if (n == 0)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: study.objective: an empty list", path,
                    v->start_mark.line + 1);
  *sm = *sd = v->start_mark.line + 1;
  memcpy(sc->metric, metric[0], FOX_NAME_LEN);
  sc->direction = dir[0];
  memcpy(c->dir_given, given_dir, sizeof given_dir);
  sc->n_obj = n;
  memset(sc->more_metric, 0, sizeof sc->more_metric);
  memset(sc->more_dir, 0, sizeof sc->more_dir);
  for (int k = 1; k < n; k++) {
    memcpy(sc->more_metric[k - 1], metric[k], FOX_NAME_LEN);
    sc->more_dir[k - 1] = dir[k];
  }
  return 0;
}

/* The keys of mapping `m` under `prefix` ("market", "study.sampler"): nested mappings become
 * dotted keys, and a scalar where a group is expected names it (`sampler: tpe` is
 * `sampler.name: tpe`). seen[i]: the line that set params_[i] (0: none yet), so that one key
 * written two ways (`sampler: {name: grid}` and `sampler.name: random`) is refused, not
 * silently the last. */
static int load_map_(struct config *c, yaml_document_t *doc, yaml_node_t *m, const char *prefix,
                     const char *path, size_t *seen, struct fox_err *e) {
  char where[1200];
  for (yaml_node_pair_t *kp = m->data.mapping.pairs.start; kp < m->data.mapping.pairs.top; kp++) {
    yaml_node_t *k = yaml_document_get_node(doc, kp->key);
    yaml_node_t *v = yaml_document_get_node(doc, kp->value);
    snprintf(where, sizeof where, "%s:%zu: ", path, k->start_mark.line + 1);
    if (k->type != YAML_SCALAR_NODE)
      return fox_errf(e, FOX_EUSAGE, "%sexpected a key in section '%s'", where, prefix);
    char key[160], named[168];
    snprintf(key, sizeof key, "%s.%s", prefix, scalar_(k));
    snprintf(named, sizeof named, "%s.name", key);
    const struct param_ *p = find_(key);
    if (!p && v->type == YAML_MAPPING_NODE) {
      FOX_TRY(load_map_(c, doc, v, key, path, seen, e));
      continue;
    }
    if (!p && v->type == YAML_SEQUENCE_NODE && strcmp(key, "study.objective") == 0) {
      FOX_TRY(load_objectives_(c, doc, v, path, seen, e));
      continue;
    }
    if (!p && v->type == YAML_SCALAR_NODE)
      p = find_(named);
    if (!p)
      return unknown_(e, where, key, NULL);
    size_t i = (size_t)(p - params_), line = k->start_mark.line + 1;
    if (seen[i])
      return fox_errf(e, FOX_EUSAGE, "%s%s: given twice (first at line %zu)", where, p->key,
                      seen[i]);
    seen[i] = line;
    FOX_TRY(load_value_(c, doc, p, v, where, e));
  }
  return 0;
}

static int load_doc_(struct config *c, yaml_document_t *doc, const char *path,
                     const char *const *extra, struct fox_err *e) {
  size_t seen[NPARAMS_] = {0};
  yaml_node_t *root = yaml_document_get_root_node(doc);
  if (!root)
    return 0; /* an empty file: all defaults */
  char where[1200];
  if (root->type != YAML_MAPPING_NODE)
    return fox_errf(e, FOX_EUSAGE, "%s:%zu: expected a mapping of sections (data:, market:, ...)",
                    path, root->start_mark.line + 1);
  for (yaml_node_pair_t *sp = root->data.mapping.pairs.start; sp < root->data.mapping.pairs.top;
       sp++) {
    yaml_node_t *sk = yaml_document_get_node(doc, sp->key);
    yaml_node_t *sv = yaml_document_get_node(doc, sp->value);
    snprintf(where, sizeof where, "%s:%zu: ", path, sk->start_mark.line + 1);
    if (sk->type != YAML_SCALAR_NODE)
      return fox_errf(e, FOX_EUSAGE, "%sexpected a section name", where);
    const char *section = scalar_(sk);
    int skip = 0;
    for (const char *const *x = extra; x && *x; x++)
      skip |= strcmp(*x, section) == 0;
    if (skip)
      continue;
    if (sv->type != YAML_MAPPING_NODE)
      return fox_errf(e, FOX_EUSAGE, "%ssection '%s': expected a mapping of keys", where, section);
    FOX_TRY(load_map_(c, doc, sv, section, path, seen, e));
  }
  return 0;
}

/* Parses `len` bytes of YAML named `name` in messages. */
static int load_text_(struct config *c, const char *text, size_t len, const char *name,
                      const char *const *extra, struct fox_err *e) {
  yaml_document_t doc;
  FOX_TRY(config_yaml_load(&doc, text, len, name, e));
  int rc = load_doc_(c, &doc, name, extra, e);
  yaml_document_delete(&doc);
  return rc;
}

int config_load_text(struct config *c, const char *text, const char *name,
                     const char *const *extra, struct fox_err *e) {
  return load_text_(c, text, strlen(text), name, extra, e);
}

/* A file the user gave must say something: its defaults would run and fail later, on a
 * dataset.h5 the user never named (an empty text is all defaults only where a program
 * builds it). */
static int nonempty_(const char *text, size_t len, const char *name, struct fox_err *e) {
  yaml_document_t doc;
  FOX_TRY(config_yaml_load(&doc, text, len, name, e));
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  int empty = !root || (root->type == YAML_MAPPING_NODE &&
                        root->data.mapping.pairs.start == root->data.mapping.pairs.top);
  yaml_document_delete(&doc);
  return empty ? fox_errf(e, FOX_EUSAGE, "%s: the config is empty: expected YAML sections such "
                                         "as data: {path: DATA.h5} (configs/trial.yaml and "
                                         "configs/demo.yaml are examples)", name)
               : 0;
}

/* Reads one byte past the bound at most, so that a huge file (or /dev/zero) costs 1 MiB and
 * a clear refusal rather than its size in memory. */
int config_read_file(const char *path, char **text, struct fox_err *e) {
  FOX_TRY(fs_input_check(path, "a YAML config", FOX_EUSAGE, e));
  FILE *f = fopen(path, "rb");
  if (!f)
    return fox_errf(e, FOX_EUSAGE, "%s: cannot open config: %s", path, strerror(errno));
  size_t cap = 4096, len = 0, got;
  char *buf = malloc(cap);
  while (buf && len <= FOX_CONFIG_MAX_BYTES && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (len == cap - 1 && len <= FOX_CONFIG_MAX_BYTES) {
      size_t ncap = 2 * cap < FOX_CONFIG_MAX_BYTES + 2 ? 2 * cap : FOX_CONFIG_MAX_BYTES + 2;
      char *nb = realloc(buf, ncap);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap = ncap;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return fox_errf(e, FOX_EUSAGE, "%s: cannot read config: %s", path, strerror(errno));
  }
  if (!buf)
    return fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  buf[len] = '\0';
  int rc = config_yaml_check(buf, len, path, e);
  if (rc == 0)
    rc = nonempty_(buf, len, path, e);
  if (rc != 0) {
    free(buf);
    return rc;
  }
  *text = buf;
  return 0;
}

int config_load(struct config *c, const char *path, const char *const *extra, struct fox_err *e) {
  char *text;
  FOX_TRY(config_read_file(path, &text, e));
  int rc = config_load_text(c, text, path, extra, e);
  free(text);
  return rc;
}

/* Opens the groups of `key` that the previous key did not share ("study:", "  sampler:") and
 * returns the indentation of its leaf. */
static int dump_groups_(const char *prev, const char *key, FILE *f) {
  int depth = 0;
  const char *k = key, *q = prev;
  for (const char *dot; (dot = strchr(k, '.')); k = dot + 1, depth++) {
    size_t len = (size_t)(dot - k);
    int shared = q && strncmp(q, k, len) == 0 && q[len] == '.';
    if (!shared) {
      fprintf(f, "%*s%.*s:\n", 2 * depth, "", (int)len, k);
      q = NULL;
    } else {
      q += len + 1;
    }
  }
  return 2 * depth;
}

/* A text value double-quoted. A YAML file may give any character through an escape, and the
 * line breaks among them (LF, CR, NEL, LS, PS) would be folded into spaces if written as they
 * are: every control character and line break is written as an escape, so that the dump reads
 * back to the same bytes. */
static void dump_text_(const char *s, FILE *f) {
  fputc('"', f);
  for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
    if (*q == '"' || *q == '\\') {
      fprintf(f, "\\%c", *q);
    } else if (*q < 0x20 || *q == 0x7F) {
      fprintf(f, "\\x%02X", *q);
    } else if (q[0] == 0xC2 && q[1] >= 0x80 && q[1] <= 0x9F) { /* C1, NEL among them */
      fprintf(f, "\\x%02X", q[1]);
      q += 1;
    } else if (q[0] == 0xE2 && q[1] == 0x80 && (q[2] == 0xA8 || q[2] == 0xA9)) { /* LS, PS */
      fprintf(f, "\\u%04X", q[2] == 0xA8 ? 0x2028u : 0x2029u);
      q += 2;
    } else {
      fputc(*q, f);
    }
  }
  fputc('"', f);
}

/* study.objective as a list: the keys every objective shares go in the first item. The table
 * keeps them together: study.objective.* from `first` on. Returns the index past them. */
static size_t dump_objectives_(const struct config *c, size_t first, FILE *f) {
  const struct study_config *sc = &c->study;
  fprintf(f, "  objective:\n");
  for (int k = 0; k < sc->n_obj; k++) {
    fprintf(f, "    - metric: ");
    dump_text_(k ? sc->more_metric[k - 1] : sc->metric, f);
    fputc('\n', f);
    fprintf(f, "      direction: %s\n", dir_names_[k ? sc->more_dir[k - 1] : sc->direction]);
  }
  size_t i = first;
  for (; i < NPARAMS_ && strncmp(params_[i].key, "study.objective.", 16) == 0; i++) {
    const struct param_ *p = &params_[i];
    const char *dst = (const char *)c + p->offset;
    if (strcmp(p->key, "study.objective.metric") == 0 ||
        strcmp(p->key, "study.objective.direction") == 0)
      continue;
    fprintf(f, "      %s: ", p->key + 16);
    if (p->type == P_CHOICE)
      fprintf(f, "%s\n", p->choices[*(const int *)dst]);
    else
      fprintf(f, "%.17g\n", *(const double *)dst);
  }
  return i;
}

/* A double in the fewest digits that read back the same (docs), or in 17 (the dump: exact
 * whatever the reader's rounding). */
static void put_double_(double x, int shortest, FILE *f) {
  char buf[40];
  if (shortest && x == floor(x) && fabs(x) < 1e15) { /* 10000, not 1e+04 */
    fprintf(f, "%.0f", x);
    return;
  }
  for (int prec = shortest ? 1 : 17; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, x);
    if (strtod(buf, NULL) == x)
      break;
  }
  fputs(buf, f);
}

/* Key p's value in c as YAML, without the line break. */
static void put_value_(const struct config *c, const struct param_ *p, int shortest, FILE *f) {
  const char *dst = (const char *)c + p->offset;
  switch (p->type) {
  case P_STRING:
  case P_NAME: dump_text_(dst, f); break;
  case P_BOOL: fputs(*(const int *)dst ? "true" : "false", f); break;
  case P_CHOICE: fputs(p->choices[*(const int *)dst], f); break;
  case P_STEPS:
    if (*(const int64_t *)dst == 0)
      fputs("auto", f);
    else
      fprintf(f, "%lld", (long long)*(const int64_t *)dst);
    break;
  case P_SEED: fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)dst); break;
  case P_LAYERS: {
    const int *l = (const int *)dst, n = l[FOX_MAX_LAYERS];
    fputc('[', f);
    for (int j = 0; j < n; j++)
      fprintf(f, "%s%d", j ? ", " : "", l[j]);
    fputc(']', f);
    break;
  }
  case P_FACTORS:
    fputc('[', f);
    for (int j = 0; j < c->study.n_factors; j++) {
      fputs(j ? ", " : "", f);
      put_double_(((const double *)dst)[j], shortest, f);
    }
    fputc(']', f);
    break;
  case P_INT: fprintf(f, "%d", *(const int *)dst); break;
  case P_AUTO:
    if (*(const double *)dst == 0)
      fputs("auto", f);
    else
      put_double_(*(const double *)dst, shortest, f);
    break;
  case P_DOUBLE: put_double_(*(const double *)dst, shortest, f); break;
  case P_FEATURES:
    fputc('[', f);
    for (const char *s = c->features; *s; s++)
      fputs(*s == ',' ? ", " : (char[2]){*s, 0}, f);
    fputc(']', f);
    break;
  case P_CONSTRAINTS:
    fputc('[', f);
    for (int j = 0; j < c->study.n_constraints; j++) {
      char text[FOX_NAME_LEN + 40];
      config_format_constraint(&c->study.constraints[j], text, sizeof text);
      fputs(j ? ", \"" : "\"", f);
      fputs(text, f); /* a metric name holds no quote: metric_known_ */
      fputc('"', f);
    }
    fputc(']', f);
    break;
  }
}

/* A scheduler's key that the config's scheduler does not use and that holds its default: left
 * out of a dump, so that a dumped config (trial.h5's) still starts a study under another
 * scheduler, where a key of the first one would be refused by its presence (study.c). */
static int dump_skips_(const struct config *c, const struct param_ *p) {
  if (p->type == P_FEATURES) /* the default, the 51 built-in ones, has no list to write */
    return c->n_features == 0;
  static const char *const sh[] = {"min_epochs", "max_epochs", "eta", "brackets", NULL};
  static const char *const pbt[] = {"population", "interval", "quantile", "resample_probability",
                                    "factors", "copy_buffers", NULL};
  if (strncmp(p->key, "study.scheduler.", 16) != 0 || strcmp(p->key + 16, "name") == 0)
    return 0;
  int sched = c->study.scheduler;
  const char *const *uses = sched == FOX_SCHED_PBT ? pbt
                            : sched == FOX_SCHED_NONE ? NULL
                                                      : sh;
  for (const char *const *k = uses; k && *k; k++)
    if (strcmp(p->key + 16, *k) == 0)
      return 0;
  struct config d;
  config_defaults(&d);
  char a[256] = "", b[256] = "";
  FILE *fa = fmemopen(a, sizeof a - 1, "w"), *fb = fmemopen(b, sizeof b - 1, "w");
  if (fa)
    put_value_(c, p, 0, fa), fclose(fa);
  if (fb)
    put_value_(&d, p, 0, fb), fclose(fb);
  return fa && fb && strcmp(a, b) == 0;
}

void config_dump(const struct config *c, FILE *f) {
  const char *prev = NULL;
  for (size_t i = 0; i < NPARAMS_; i++) {
    const struct param_ *p = &params_[i];
    if (dump_skips_(c, p))
      continue;
    if (strcmp(p->key, "study.objective.metric") == 0 && c->study.n_obj > 1) {
      dump_groups_(prev, "study.x", f);
      size_t next = dump_objectives_(c, i, f);
      prev = params_[next - 1].key;
      i = next - 1;
      continue;
    }
    int indent = dump_groups_(prev, p->key, f);
    prev = p->key;
    fprintf(f, "%*s%s: ", indent, "", strrchr(p->key, '.') + 1);
    put_value_(c, p, 0, f);
    fputc('\n', f);
  }
}

int config_key_count(void) { return (int)NPARAMS_; }

_Static_assert(sizeof params_ / sizeof *params_ <= FOX_CONFIG_KEYS_MAX,
               "struct config's given[] holds a flag per key");

void config_default_directions(struct config *c) {
  struct study_config *sc = &c->study;
  for (int k = 0; sc->function && k < sc->n_obj; k++)
    if (!c->dir_given[k])
      *(k ? &sc->more_dir[k - 1] : &sc->direction) = FOX_MINIMIZE;
}

int config_given(const struct config *c, const char *key) {
  const struct param_ *p = find_(key);
  return p && c->given[p - params_];
}

void config_key_nearest(const char *key, char *buf, size_t n) {
  const char *names[NPARAMS_];
  for (size_t i = 0; i < NPARAMS_; i++)
    names[i] = params_[i].key;
  nearest_names(key, names, (int)NPARAMS_, buf, n);
}

int config_key_describe(int i, struct config_key_doc *out) {
  if (i < 0 || i >= (int)NPARAMS_)
    return -1;
  const struct param_ *p = &params_[i];
  static const int kinds[] = {[P_DOUBLE] = FOX_KEY_NUMBER, [P_INT] = FOX_KEY_INTEGER,
                              [P_BOOL] = FOX_KEY_BOOL,     [P_CHOICE] = FOX_KEY_CHOICE,
                              [P_STRING] = FOX_KEY_TEXT,   [P_LAYERS] = FOX_KEY_LIST,
                              [P_STEPS] = FOX_KEY_INTEGER, [P_SEED] = FOX_KEY_INTEGER,
                              [P_NAME] = FOX_KEY_TEXT,     [P_AUTO] = FOX_KEY_NUMBER,
                              [P_CONSTRAINTS] = FOX_KEY_LIST, [P_FACTORS] = FOX_KEY_LIST,
                              [P_FEATURES] = FOX_KEY_LIST};
  *out = (struct config_key_doc){p->key, p->what, p->doc ? p->doc : "", p->choices,
                                 kinds[p->type], ""};
  struct config c;
  config_defaults(&c);
  FILE *f = fmemopen(out->def, sizeof out->def, "w");
  if (!f)
    return -1;
  put_value_(&c, p, 1, f);
  return fclose(f) == 0 ? 0 : -1;
}

int config_feature_names(const struct config *c, char (*out)[64], int max) {
  int n = 0;
  for (const char *s = c->features; *s && n < max;) {
    size_t len = strcspn(s, ",");
    snprintf(out[n++], 64, "%.*s", (int)len, s);
    s += len + (s[len] == ',');
  }
  return n;
}

/* Built-in test functions (`study.objective.function`), so that samplers and the study machinery
 * can be checked and benchmarked without training agents. Each is minimised; its variables are
 * the parameter names the study's space must use. */
#ifndef FOX_OBJECTIVE_H
#define FOX_OBJECTIVE_H

struct test_function {
  const char *name;
  int dims;
  const char *const *vars; /* parameter names, e.g. "x0", "x1" */
  double (*f)(const double *x); /* a single-objective function's value */
  double minimum; /* the global minimum, for regret */
  /* A multi-objective one (f NULL): n_out values named outs[] ("f0", "f1", then constraint
   * values "c0", ...), each objective minimised. */
  int n_out;
  const char *const *outs;
  void (*fm)(const double *x, double *out);
};

/* The function's outputs at x: out[0] = f(x) for a single-objective one (named "value"). */
void objective_eval(const struct test_function *tf, const double *x, double *out);
/* How many outputs and their names ("value" alone for a single-objective one). */
int objective_outputs(const struct test_function *tf, const char *const **names);

/* The entry for a config_function_names index (>= 1); NULL for 0 (train agents). */
const struct test_function *objective_function(int which);

#endif

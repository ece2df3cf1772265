/* Built-in test functions (`study.objective.function`), so that samplers and the study machinery
 * can be checked and benchmarked without training agents. Each is minimised; its variables are
 * the parameter names the study's space must use. */
#ifndef FOX_OBJECTIVE_H
#define FOX_OBJECTIVE_H

struct test_function {
  const char *name;
  int dims;
  const char *const *vars; /* parameter names, e.g. "x0", "x1" */
  double (*f)(const double *x);
  double minimum; /* the global minimum, for regret */
};

/* The entry for a config_function_names index (>= 1); NULL for 0 (train agents). */
const struct test_function *objective_function(int which);

#endif

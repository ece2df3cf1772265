/* The search spaces of the test functions (src/study/objective.c) as a study's `parameters:`
 * section, shared by the sampler tests and benchmarks; tests/bench/bench_tpe.py declares the
 * same bounds and distributions to Optuna. Index k - 1 for config_function_names index k. */
#ifndef FOX_STUDY_SPACES_H
#define FOX_STUDY_SPACES_H

static const char *const study_space_yaml[3] = {
    /* branin */
    "parameters:\n"
    "  x0: {distribution: uniform, min: -5, max: 10}\n"
    "  x1: {distribution: uniform, min: 0, max: 15}\n",
    /* hartmann6 */
    "parameters:\n"
    "  x0: {distribution: uniform, min: 0, max: 1}\n"
    "  x1: {distribution: uniform, min: 0, max: 1}\n"
    "  x2: {distribution: uniform, min: 0, max: 1}\n"
    "  x3: {distribution: uniform, min: 0, max: 1}\n"
    "  x4: {distribution: uniform, min: 0, max: 1}\n"
    "  x5: {distribution: uniform, min: 0, max: 1}\n",
    /* mixed */
    "parameters:\n"
    "  x0: {distribution: uniform, min: -5, max: 10}\n"
    "  x1: {distribution: uniform, min: 0, max: 15}\n"
    "  x2: {values: [0, 1, 2, 3]}\n"
    "  x3: {distribution: log_uniform, min: 1e-6, max: 1}\n"
    "  x4: {distribution: int_uniform, min: 0, max: 20}\n",
};

#endif

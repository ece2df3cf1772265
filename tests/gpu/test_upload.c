/* CUDA vs CPU twin for the dataset upload: the prices read back from the device equal the host
 * arrays bit for bit, and the device-normalised states equal the CPU backend's; the raw
 * features pass through the device in slabs of 16 MiB (2 slabs and a part here: 200,000 bars
 * of 51 columns), are not kept (reading them back is refused), and dataset_take's sums of what
 * the device received are the host arrays' crc32. Skips (77) without a CUDA build or device. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "data/synth.h"
#include "fox_check.h"

static int same_bits_(const float *a, const float *b, size_t n) {
  return memcmp(a, b, n * sizeof *a) == 0;
}

int main(void) {
  char name[256];
  const struct backend *cuda = backend_cuda();
  if (!cuda || backend_cuda_devices(name, sizeof name) == 0) {
    printf("skipped: %s\n", cuda ? "no CUDA device" : "built without CUDA");
    return 77;
  }
  printf("device 0: %s\n", name);
  struct fox_err e = {0};
  struct dataset ds;
  CHECK(synth_dataset(&ds, 200000, 3, &e) == 0, "%s", e.msg);
  size_t n = ds.n, nf = n * FOX_NFEAT;
  struct device_dataset dc, dg;
  CHECK(backend_cpu()->dataset_upload(&ds, &dc, &e) == 0, "%s", e.msg);
  CHECK(cuda->dataset_upload(&ds, &dg, &e) == 0, "%s", e.msg);
  float *feat = malloc(nf * sizeof *feat), *prices = malloc(n * 4 * sizeof *prices);
  float *sg = malloc(nf * sizeof *sg), *sc = malloc(nf * sizeof *sc);
  CHECK(cuda->dataset_download(&dg, feat, NULL, NULL, &e) != 0 && strstr(e.msg, "not kept"),
        "the raw features read back from a device that does not keep them: %s", e.msg);
  fox_err_clear(&e);
  CHECK(cuda->dataset_download(&dg, NULL, prices, sg, &e) == 0, "%s", e.msg);
  CHECK(backend_cpu()->dataset_download(&dc, NULL, NULL, sc, &e) == 0, "%s", e.msg);
  CHECK(!dg.features, "the device keeps no raw features");
  CHECK(same_bits_(prices, ds.prices, n * 4), "device prices equal the host f32 bit for bit");
  /* sigma, the barrier's column, made slab by slab: every bar's ewm_vol bit for bit. */
  CHECK(cuda->mem_d2h(feat, dg.sigma, n * sizeof(float), &e) == 0, "%s", e.msg);
  size_t off = 0;
  for (size_t t = 0; t < n; t++)
    off += memcmp(&feat[t], &ds.features[t * FOX_NFEAT + FOX_EWM_VOL_COL], sizeof(float)) != 0;
  CHECK(off == 0, "%zu of %zu bars' sigma differ from their ewm_vol column", off, n);
  size_t bad = 0;
  for (size_t i = 0; i < nf; i++)
    bad += !(fabsf(sg[i] - sc[i]) <= 1e-6f + 1e-6f * fabsf(sc[i]));
  CHECK(bad == 0, "%zu normalised values differ between CUDA and CPU", bad);
  /* dataset_take (a study's ranks): the sums of the device's read-back are those of the host
   * arrays, which it frees; the states it hands back (the experience's) are the CPU's bits. */
  uint32_t crc_f = dataset_crc32(0, ds.features, nf * sizeof(float));
  uint32_t crc_p = dataset_crc32(0, ds.prices, n * 4 * sizeof(float));
  struct device_dataset dt;
  CHECK(cuda->dataset_take(&ds, &dt, &e) == 0, "%s", e.msg);
  CHECK(!ds.features && !ds.prices, "the host arrays were freed");
  CHECK(dt.summed && dt.crc_features == crc_f && dt.crc_prices == crc_p,
        "device sums %08x %08x, host %08x %08x", dt.crc_features, dt.crc_prices, crc_f, crc_p);
  CHECK(cuda->dataset_states(&dt, 0, n, sg, &e) == 0, "%s", e.msg);
  CHECK(same_bits_(sg, sc, nf), "the device's states equal the CPU's bit for bit");
  fox_err_clear(&e);
  CHECK(cuda->dataset_states(&dt, n - 1, 2, sg, &e) != 0, "rows past the end accepted");
  cuda->dataset_release(&dt);
  cuda->dataset_release(&dg);
  backend_cpu()->dataset_release(&dc);
  free(feat), free(prices), free(sg), free(sc);
  dataset_free(&ds);
  return fox_check_done("test_upload");
}

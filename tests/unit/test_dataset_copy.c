/* One copy of the dataset per study rank (issue 28, item 11): dataset_take hands the host arrays
 * to the CPU backend, whose states (normalised in place) and sigma must be bit for bit those of
 * dataset_upload, with the crc32 of the raw arrays; the host's stored copy and a rank file's
 * sums agree, and rankfile_verify names the rank file whose device sums differ from its copy;
 * the lean read keeps the arrays and the close. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/synth.h"
#include "fox_check.h"
#include "study/rankfile.h"
#include "util/fsutil.h"

static void take_matches_upload_(const struct dataset *ds0, struct dataset *ds) {
  const struct backend *be = backend_cpu();
  struct device_dataset up, tk;
  struct fox_err e = {0};
  size_t n = ds0->n, fb = n * FOX_NFEAT * sizeof(float);
  uint32_t crc_f = dataset_crc32(0, ds0->features, fb);
  uint32_t crc_p = dataset_crc32(0, ds0->prices, n * 4 * sizeof(float));
  CHECK(be->dataset_upload(ds0, &up, &e) == 0, "%s", e.msg);
  CHECK(be->dataset_take(ds, &tk, &e) == 0, "%s", e.msg);
  CHECK(!ds->features && !ds->prices, "the host arrays were handed over");
  CHECK(tk.summed && tk.crc_features == crc_f && tk.crc_prices == crc_p,
        "take's sums %08x %08x, the host arrays' %08x %08x", tk.crc_features, tk.crc_prices,
        crc_f, crc_p);
  CHECK(memcmp(up.states, tk.states, fb) == 0, "states normalised in place differ");
  CHECK(memcmp(up.sigma, tk.sigma, n * sizeof(float)) == 0, "sigma differs");
  CHECK(memcmp(up.prices, tk.prices, n * 4 * sizeof(float)) == 0, "prices differ");
  CHECK(memcmp(up.norm, tk.norm, 2 * FOX_NFEAT * sizeof(float)) == 0, "norm differs");
  /* The backtest's experience states come back through dataset_states. */
  float *rows = malloc(10 * FOX_NFEAT * sizeof *rows);
  CHECK(be->dataset_states(&tk, n - 10, 10, rows, &e) == 0, "%s", e.msg);
  CHECK(memcmp(rows, up.states + (n - 10) * FOX_NFEAT, 10 * FOX_NFEAT * sizeof *rows) == 0,
        "dataset_states rows differ");
  fox_err_clear(&e);
  CHECK(be->dataset_states(&tk, n - 5, 10, rows, &e) != 0, "rows past the end accepted");
  fox_err_clear(&e);
  CHECK(be->dataset_download(&tk, rows, NULL, NULL, &e) != 0 && strstr(e.msg, "in place"),
        "raw features downloaded after take: %s", e.msg);
  free(rows);
  be->dataset_release(&up);
  be->dataset_release(&tk);
}

/* A rank file over a stored copy; rankfile_verify passes, then fails naming the rank file when
 * the device's sums are not the copy's. */
static void copy_and_verify_(const struct dataset *ds0, const char *dir) {
  struct fox_err e = {0};
  char copy[64], path[4200];
  dataset_copy_name(0, copy, sizeof copy);
  snprintf(path, sizeof path, "%s/%s", dir, copy);
  uint32_t sums[2];
  dataset_sums(ds0, sums);
  CHECK(dataset_copy_write(path, ds0, sums, "h", "d.h5", &e) == 0, "%s", e.msg);
  size_t bars = 0;
  uint32_t crc[2];
  CHECK(dataset_copy_verify(path, &bars, crc, NULL, &e) == 0, "%s", e.msg);
  CHECK(bars == ds0->n && crc[0] == dataset_crc32(0, ds0->features,
                                                   ds0->n * FOX_NFEAT * sizeof(float)),
        "copy records %zu bars crc %08x", bars, crc[0]);
  struct device_dataset dev = {.n = ds0->n, .summed = 1, .crc_features = crc[0],
                               .crc_prices = crc[1]};
  CHECK(rankfile_create(dir, 0, 0, 1, backend_cpu(), &dev, "d.h5", copy, "h", "cpu", &e) == 0,
        "%s", e.msg);
  CHECK(rankfile_verify(dir, 0, &e) == 0, "%s", e.msg);
  dev.crc_prices ^= 0x10;
  CHECK(rankfile_create(dir, 1, 1, 2, backend_cpu(), &dev, "d.h5", copy, "h", "cpu", &e) == 0,
        "%s", e.msg);
  int rc = rankfile_verify(dir, 1, &e);
  CHECK(rc == FOX_EDATA && strstr(e.msg, "rank-0001.h5: /dataset: the device's prices"),
        "rc %d: %s", rc, e.msg);
  /* A resume whose device holds other sums writes the rank file anew. */
  fox_err_clear(&e);
  dev.crc_prices ^= 0x10;
  CHECK(rankfile_create(dir, 1, 1, 2, backend_cpu(), &dev, "d.h5", copy, "h", "cpu", &e) == 0,
        "%s", e.msg);
  CHECK(rankfile_verify(dir, 1, &e) == 0, "%s", e.msg);
}

/* A study's ranks read the dataset lean: the same arrays, of /bars the close alone. */
static void lean_read_(const struct dataset *ds0, const char *dir) {
  struct fox_err e = {0};
  char path[4200];
  snprintf(path, sizeof path, "%s/d.h5", dir);
  CHECK(dataset_write_h5(ds0, path, &e) == 0, "%s", e.msg);
  struct dataset full, lean;
  CHECK(dataset_read_h5(&full, path, &e) == 0, "%s", e.msg);
  CHECK(dataset_read_h5_lean(&lean, path, &e) == 0, "%s", e.msg);
  size_t n = full.n;
  CHECK(lean.n == n && lean.bars.n == n, "lean: %zu bars", lean.n);
  CHECK(!lean.bars.ts && !lean.bars.open && !lean.bars.high && !lean.bars.low &&
            !lean.bars.volume && lean.bars.close,
        "lean keeps the close alone");
  CHECK(memcmp(lean.bars.close, full.bars.close, n * sizeof(double)) == 0, "close differs");
  CHECK(memcmp(lean.features, full.features, n * FOX_NFEAT * sizeof(float)) == 0,
        "features differ");
  CHECK(memcmp(lean.prices, full.prices, n * 4 * sizeof(float)) == 0, "prices differ");
  CHECK(memcmp(lean.norm_std, full.norm_std, (size_t)full.ncol * sizeof(float)) == 0 &&
            memcmp(lean.split, full.split, sizeof lean.split) == 0 &&
            lean.bars_per_year == full.bars_per_year,
        "metadata differs");
  double a, b;
  CHECK(dataset_return_std(&lean, FOX_SPLIT_TRAIN, &a, &e) == 0 &&
            dataset_return_std(&full, FOX_SPLIT_TRAIN, &b, &e) == 0 && a == b,
        "reward scale %g vs %g", a, b);
  dataset_free(&full);
  dataset_free(&lean);
}

int main(void) {
  struct fox_err e = {0};
  /* zlib's crc32 of "123456789" (the check value of CRC-32/ISO-HDLC), in pieces too. */
  CHECK(dataset_crc32(0, "123456789", 9) == 0xCBF43926u, "crc32 check value");
  CHECK(dataset_crc32(dataset_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u, "continued");
  struct dataset ds0, ds;
  CHECK(synth_dataset(&ds0, 3000, 5, &e) == 0, "%s", e.msg);
  CHECK(synth_dataset(&ds, 3000, 5, &e) == 0, "%s", e.msg);
  take_matches_upload_(&ds0, &ds);
  char dir[] = "/tmp/fox_dscopy_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  copy_and_verify_(&ds0, dir);
  lean_read_(&ds0, dir);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0, "%s", cmd);
  dataset_free(&ds0);
  dataset_free(&ds);
  return fox_check_done("test_dataset_copy");
}

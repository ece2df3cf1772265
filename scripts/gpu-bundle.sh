#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on the device machine, which has CUDA but no package
# registry: the CUDA-built test and benchmark binaries and every shared library they load that
# is neither glibc nor CUDA's, into build/gpu-bundle, and the device-time model's prediction of
# the headline, computed here on the CUDA emulation from this tree (model.json: gpu-check prints
# it beside the measured headline); then the folder packed into build/gpu-bundle.tar.xz, which
# must stay under what a device call carries (64 MiB with the working tree: the folder itself is
# about 160 MiB, librsvg's ICU and OpenBLAS the most of it). Then:
#   device run:  carry build/gpu-bundle.tar.xz,
#                command  bash scripts/gpu-check.sh --bundle build/gpu-bundle.tar.xz
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --preset default --preset cuda-emu >/dev/null
out=build/gpu-bundle
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
cp build/default/tests/gpu/test_gpu_* build/default/tests/bench/bench_gpu build/default/tests/bench/bench_device \
  build/default/tests/bench/bench_device_model build/default/foxopt "$out/bin/"
# Populations on the device: the unit test's binary with its `cuda` argument (test_gpu_pop).
cp build/default/tests/unit/test_pop "$out/bin/"
build/cuda-emu/tests/bench/bench_device_model "$out/model.json" >"$out/model.txt"
ldd "$out"/bin/* | awk '/=> \// { print $3 }' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so|/usr/local/cuda|libcuda|libcudart|libcublas' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
# foxopt run initialises MPI (a singleton there): Open MPI's components are plugins it loads
# from its own directory; scripts/gpu-check.sh points OMPI_MCA_mca_base_component_path here.
mca=$(dirname "$(ldd build/default/foxopt | awk '/libmpi\.so/ {print $3}')")/openmpi/lib/openmpi3
[ -d "$mca" ] && cp -r "$mca" "$out/mca"
cp configs/l4-5trials.yaml "$out/"
du -sh "$out"
command -v xz >/dev/null || { echo "gpu-bundle: xz not found (apt-get install xz-utils)" >&2; exit 1; }
tar -C build -cf - gpu-bundle | xz -6 -T0 >"$out.tar.xz.part"
mv "$out.tar.xz.part" "$out.tar.xz"
size=$(stat -c %s "$out.tar.xz") limit=$((60 * 1024 * 1024))
echo "$out.tar.xz: $((size / 1048576)) MiB (a device call carries 64 MiB with the working tree)"
if [ "$size" -gt "$limit" ]; then
  echo "gpu-bundle: $out.tar.xz is over 60 MiB: it would not travel to the device" >&2
  exit 1
fi

#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on the device machine, which has CUDA but no package
# registry: the CUDA-built test and benchmark binaries and every shared library they load that
# is neither glibc nor CUDA's, into build/gpu-bundle (under the 64 MiB that travels). Then:
#   device run:  carry build/gpu-bundle,  command  bash scripts/gpu-check.sh --bundle build/gpu-bundle
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --preset default >/dev/null
out=build/gpu-bundle
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
cp build/default/tests/gpu/test_gpu_* build/default/tests/bench/bench_gpu build/default/foxopt \
  "$out/bin/"
ldd "$out"/bin/* | awk '/=> \// { print $3 }' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so|/usr/local/cuda|libcuda|libcudart|libcublas' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
du -sh "$out"

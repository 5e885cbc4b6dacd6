#!/bin/sh
# Packs what a run on a GPU machine that lacks the build dependencies needs into .devbundle/
# (git-ignored; copy it there beside the working tree): the binaries of BUILD (default build-cuda) and
# the shared libraries they use that are not the C library or the CUDA driver/toolkit, compressed,
# plus the RADARSAT-1 scene5 block if present.
set -eu
BUILD=${1:-build-cuda}
rm -rf .devbundle && mkdir -p .devbundle/stage/bin .devbundle/stage/lib
# TESTS="gpu unit" packs only those test binaries (default: all; TESTS=none: no test binary); NOCLI=1
# leaves the sarfuse CLI out (to keep the bundle small).
for t in ${TESTS:-unit integration cli gpu}; do
  [ "$t" = none ] || cp "$BUILD"/tests/sarfuse_${t}_tests .devbundle/stage/bin/
done
[ "${NOCLI:-0}" = 1 ] || cp "$BUILD"/sarfuse .devbundle/stage/bin/
[ -f "$BUILD"/libsarfuse_vkfft.so ] && cp "$BUILD"/libsarfuse_vkfft.so .devbundle/stage/bin/
if [ "${LEAN:-0}" != 1 ] && [ -d "$BUILD"/python/sarfuse ]; then  # the Python module, for the Python tests' GPU path
  mkdir -p .devbundle/stage/python && cp -r "$BUILD"/python/sarfuse .devbundle/stage/python/
fi
# What scripts/device_python.sh needs to rebuild the module for the device's own Python (LEAN=1 leaves
# it out, to keep the bundle small).
if [ "${LEAN:-0}" != 1 ]; then
  mkdir -p .devbundle/stage/devlib .devbundle/stage/devinclude
  cp "$BUILD"/libsarfuse.a "$BUILD"/libsarfuse_cli_lib.a "$BUILD"/libsarfuse_bench.a .devbundle/stage/devlib/
  cp -r /usr/include/pybind11 .devbundle/stage/devinclude/
fi
for b in .devbundle/stage/bin/* .devbundle/stage/python/sarfuse/*.so; do
  [ -f "$b" ] || continue
  ldd "$b" | awk '/=>/ && $3 ~ /^\// {print $3}' | grep -v -E 'libstdc\+\+|libgcc_s|libc\.so|libm\.so|ld-linux|libcuda\.so|libcufft|libcudart|libnvrtc|libnvJitLink|libdl\.so|libpthread|librt\.so' || true
done | sort -u | while read -r lib; do
  # SKIP_LIBS=FILE: names the GPU machine has itself (scripts/device_libs.txt, read off one), left out.
  [ -n "${SKIP_LIBS:-}" ] && grep -qx "$(basename "$lib")" "$SKIP_LIBS" && continue
  cp -L "$lib" .devbundle/stage/lib/
done
strip .devbundle/stage/bin/* .devbundle/stage/python/sarfuse/*.so 2>/dev/null || true
if [ "${NODATA:-0}" != 1 ] && [ -f ../shared/data/radarsat1/scene5/CDdata1.mat ]; then  # NODATA=1: leave it out
  mkdir -p .devbundle/stage/data/radarsat1/scene5
  cp ../shared/data/radarsat1/scene5/*.mat .devbundle/stage/data/radarsat1/scene5/
fi
tar -C .devbundle/stage -cJf .devbundle/bundle.tar.xz .
rm -rf .devbundle/stage
du -h .devbundle/bundle.tar.xz

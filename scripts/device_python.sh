#!/bin/sh
# On the GPU machine: builds the Python module for ITS python3 (the bundle's is built for this
# machine's Python) from the bundle's static libraries, then runs the Python API tests there, so the
# GPU path of the Python API is tested on the device. Needs .devbundle beside the tree, g++ and Python headers.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/sf && [ -d /tmp/sf/bin ] || tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
PY=python3
EXT=$($PY -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
INC=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
D=/tmp/sf/pydev && rm -rf $D && mkdir -p $D/sarfuse
L=/tmp/sf/lib
libs=""
for l in libfftw3f.so libfftw3.so libfftw3f_omp.so libfftw3_omp.so libmatio.so libpng16.so libz.so libgomp.so libtiff.so libpugixml.so libhdf5_serial.so; do
  f=$(ls $L/$l* 2>/dev/null | head -1)
  # Not in the bundle: the machine has it itself (SKIP_LIBS).
  if [ -n "$f" ]; then libs="$libs $f"; else n=${l#lib}; libs="$libs -l${n%.so}"; fi
done
g++ -O2 -std=c++20 -shared -fPIC -fvisibility=hidden -Iinclude -I/tmp/sf/devinclude -I"$INC" python/src/sarfuse_module.cpp \
  -o $D/sarfuse/_sarfuse$EXT -Wl,--whole-archive /tmp/sf/devlib/libsarfuse_cli_lib.a -Wl,--no-whole-archive /tmp/sf/devlib/libsarfuse_bench.a \
  /tmp/sf/devlib/libsarfuse.a /usr/local/cuda/lib64/libcudart_static.a $libs \
  -fopenmp -ldl -lrt -lpthread -Wl,-rpath,$L:/usr/local/cuda/lib64 > $OUT/python_build.log 2>&1 || { echo "python module build failed:"; tail -20 $OUT/python_build.log; exit 1; }
cp python/sarfuse/*.py $D/sarfuse/ && cp /tmp/sf/bin/libsarfuse_vkfft.so $D/sarfuse/ 2>/dev/null
SARFUSE_CLI=/tmp/sf/bin/sarfuse SARFUSE_TEST_SOURCE=$(pwd) PYTHONPATH=$D LD_LIBRARY_PATH=$L:/usr/local/cuda/lib64 \
  timeout ${PY_TIMEOUT:-150} $PY -X faulthandler -m pytest -v -rs -p no:cacheprovider -o faulthandler_timeout=60 \
  tests/python/test_api.py > $OUT/python_tests.log 2>&1
echo "python tests rc=$?"; grep -E "PASSED|FAILED|SKIPPED|ERROR|passed|failed" $OUT/python_tests.log | tail -15

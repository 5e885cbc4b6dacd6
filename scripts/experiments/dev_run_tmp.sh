set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
B=/tmp/sf/bin/sarfuse; D=$(pwd)/.e2e; mkdir -p $D
for spec in "big_int8_c32_cuda --sample-format complex32 --size 30000x6250 --input int8" "big_int8_c64_cuda --size 30000x6250 --input int8" "big_tif_cuda --size 30000x6250 --input int8 --output tif" "big_h5_fast_cuda --size 30000x6250 --input int8 --output h5 --compression fast"; do
  set -- $spec; name=$1; shift
  $B bench e2e --dir $D/$name --json $OUT/$name.json --backend cuda --repeats 5 "$@" > $OUT/$name.txt 2>&1
  rm -rf $D/$name
done
PY_TIMEOUT=300 sh scripts/device_python.sh > $OUT/python.txt 2>&1

set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
/tmp/sf/bin/sarfuse_gpu_tests > /tmp/gpu.log 2>&1; echo "gpu rc=$?" > $OUT/tests.txt; grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|FAILED" /tmp/gpu.log | head -30 >> $OUT/tests.txt
B=/tmp/sf/bin/sarfuse; D=$(pwd)/.e2e; mkdir -p $D
for spec in "c32 --sample-format complex32 --size 30000x6250 --input int8" "c64 --size 30000x6250 --input int8" "s4k --size 4096x4096 --input c64"; do
  set -- $spec; name=$1; shift
  $B bench e2e --dir $D/$name --json $D/$name.json --backend cuda --output npy --repeats ${R:-3} "$@" > $OUT/$name.txt 2>&1
  rm -rf $D/$name
done

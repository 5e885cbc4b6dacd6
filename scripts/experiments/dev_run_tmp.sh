set -u
OUT=${OUT:-/tmp/out}
sh scripts/device_run.sh tests > $OUT/tests_stdout.txt 2>&1
cp $OUT/results.txt $OUT/results_tests.txt 2>/dev/null
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
B=/tmp/sf/bin/sarfuse; D=$(pwd)/.e2e; mkdir -p $D
for spec in "c32 --sample-format complex32 --size 30000x6250 --input int8" "c64 --size 30000x6250 --input int8" "s4k --size 4096x4096 --input c64" "s4kcpu --size 4096x4096 --input c64"; do
  set -- $spec; name=$1; shift
  be=cuda; [ $name = s4kcpu ] && be=cpu
  $B bench e2e --dir $D/$name --json $OUT/$name.json --backend $be --output npy --repeats 3 "$@" > $OUT/$name.txt 2>&1
  rm -rf $D/$name
done

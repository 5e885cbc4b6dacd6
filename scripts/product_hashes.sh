#!/bin/sh
# Hashes of products focused from one simulated scene (examples/doppler_clutter_4096.json, cut to
# 2048 x 1024): to show that a change that should not move a byte does not. Usage:
#   scripts/product_hashes.sh SARFUSE WORKDIR "cpu cuda"
set -eu
B=$1
D=$2
mkdir -p "$D"
python3 -c "
import json; d = json.load(open('examples/doppler_clutter_4096.json'))
d['scene']['azimuth_lines'] = 2048; d['scene']['range_samples'] = 1024; d['scene']['targets'] = d['scene']['targets'][:4]
json.dump(d, open('$D/s.json', 'w'))"
"$B" simulate "$D/s.json" -o "$D/raw.npy" > /dev/null
for be in ${3:-cpu}; do
  "$B" focus "$D/raw.npy" --params "$D/s.json" --backend "$be" -o "$D/$be.npy" > /dev/null 2>&1
  "$B" focus "$D/raw.npy" --params "$D/s.json" --backend "$be" -o "$D/$be.h5" > /dev/null 2>&1
  "$B" focus "$D/raw.npy" --params "$D/s.json" --backend "$be" --azimuth circular --sample-format cint16 -o "$D/${be}_circular.npy" > /dev/null 2>&1
  "$B" focus "$D/raw.npy" --params "$D/s.json" --backend "$be" --doppler auto -o "$D/${be}_auto.npy" > /dev/null 2>&1
done
# The GPU's other kernel variants: FP16 storage and arithmetic, tensor cores, the unfused baseline.
case " ${3:-cpu} " in *" cuda "*)
  for v in "--azimuth circular --precision fp16-storage" "--azimuth circular --precision fp16" "--azimuth circular --range-fft-size 2048 --precision fp16-storage" "--precision tf32x3" "--pipeline cufft-unfused" "--range-fft-size 2048" "--range-fft-size 2048 --precision tf32x3"; do
    name=$(echo "$v" | tr -c 'a-z0-9\n' '_' | sed 's/^_*//')
    # shellcheck disable=SC2086
    "$B" focus "$D/raw.npy" --params "$D/s.json" --backend cuda $v -o "$D/cuda_$name.npy" > /dev/null 2> "$D/err.txt" || echo "cuda $v: failed: $(tail -1 "$D/err.txt")"
  done ;;
esac
cd "$D" && sha256sum raw.npy ./*.npy ./*.h5 | sort -k2 -u

#!/bin/bash
# Run on the lent GPU machine (see docs/performance.md): device listing,
# benchmark, tile sweep, and the test programs against NVIDIA's OpenCL.
# Usage there: . .device/prelude.sh; bash pipelines/device-bench.sh
# BUILD_DIR picks the build folder (default build); arguments go to clbench
# (by default every stage, the motion search included).
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
build=${BUILD_DIR:-$PWD/build}
export BUILD_DIR=$build
export GST_PLUGIN_PATH=$build/gst
clinfo -l 2>&1 | tee "$out/clinfo.txt"
echo "== benchmark"
./pipelines/bench.sh --device gpu "$@" 2>&1 | tee "$out/bench.txt"
if [ -n "${TILE_SWEEP:-}" ]; then
  echo "== tile sweep (8773x5352, gaussian-5x5 rows of the table)"
  for t in $TILE_SWEEP; do
    echo "tile $t"
    GST_CL_COLORLOWPASS_TILE=$t ./pipelines/bench.sh --device gpu \
      --sizes 8773x5352 --frames 12 2>&1 | grep -E 'Copy|clcolorlowpass'
  done 2>&1 | tee "$out/sweep.txt"
fi
if [ -n "${RUN_TESTS:-}" ]; then
  echo "== tests on the GPU"
  export GST_CL_DEVICE=gpu GST_REGISTRY=/tmp/test-registry.bin
  for t in "$build"/tests/test-*; do
    [ -f "$t" ] || continue
    [ -x "$t" ] || continue
    if "$t" >"$out/$(basename "$t").log" 2>&1; then
      echo "PASS $t"
    else
      echo "FAIL $t"; tail -20 "$out/$(basename "$t").log"
    fi
  done
fi

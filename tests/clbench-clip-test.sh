#!/usr/bin/env bash
# gst-clvideo: clbench --clip. The encode and density stages must code the
# clip's frames, not the synthetic pan: on noise the chain's bits a frame
# are several times the pan's at the same size. Files that cannot serve
# (not y4m, not 4:2:0, fewer than two whole frames) are refused with a
# message and a failing exit status.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: tests/clbench-clip-test.sh CLBENCH
set -euo pipefail

clbench="${1:?usage: $0 CLBENCH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
w=64 h=48

fail() {
  echo "clbench-clip-test: $*" >&2
  exit 1
}

# y4m of $3 frames of noise, header tag $2, into $1
noise_y4m() {
  local i
  printf 'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 %s\n' $w $h "$2" >"$1"
  for ((i = 0; i < $3; i++)); do
    printf 'FRAME\n' >>"$1"
    head -c $((w * h * 3 / 2)) /dev/urandom >>"$1"
  done
}

# the kbit a frame of the chain's "queues between" row of clbench's output
chain_kbit() {
  awk -F'|' '/queues between/ { gsub(/ /, "", $6); print $6; exit }' "$1"
}

noise_y4m "$work/noise.y4m" C420jpeg 6
"$clbench" --stages encode,density --streams 1 --frames 8 \
  --clip "$work/noise.y4m" >"$work/clip.txt" ||
  fail "clbench --clip failed: $(cat "$work/clip.txt")"
"$clbench" --stages encode --encode-sizes ${w}x$h --frames 8 \
  >"$work/pan.txt" || fail "clbench without --clip failed"
grep -q "Encode clip: $work/noise.y4m" "$work/clip.txt" ||
  fail "the output does not name the clip"
grep -q "^| *${w}x$h *| *1 | one context" "$work/clip.txt" ||
  fail "no density row at the clip's size"
clip_kbit=$(chain_kbit "$work/clip.txt")
pan_kbit=$(chain_kbit "$work/pan.txt")
awk -v c="$clip_kbit" -v p="$pan_kbit" 'BEGIN { exit !(c > 3 * p && p > 0) }' ||
  fail "noise took $clip_kbit kbit a frame, the pan $pan_kbit: not the clip"

# files that cannot serve
printf 'not a y4m file\n' >"$work/text.y4m"
noise_y4m "$work/444.y4m" C444 2
noise_y4m "$work/short.y4m" C420 1
head -c 100 "$work/noise.y4m" >"$work/cut.y4m"
for bad in text 444 short cut; do
  if "$clbench" --stages encode --frames 2 --clip "$work/$bad.y4m" \
    >"$work/bad.txt" 2>&1; then
    fail "$bad.y4m was accepted"
  fi
  grep -q "$work/$bad.y4m: " "$work/bad.txt" ||
    fail "no message naming $bad.y4m: $(cat "$work/bad.txt")"
done
echo "clbench-clip-test: noise $clip_kbit kbit a frame against the pan's" \
  "$pan_kbit; 4 bad files refused"

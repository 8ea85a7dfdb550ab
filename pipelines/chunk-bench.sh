#!/usr/bin/env bash
# gst-clvideo: the speed-up of the chunked encode (pipelines/chunk-encode.sh)
# with the number of jobs at once, against one encoder over the whole clip
# in the same run, as Markdown.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: pipelines/chunk-bench.sh CLIP [JOBS...]
#   CLIP   any file decodebin reads
#   JOBS   job counts to run [1 2 4]
# Environment (defaults in brackets):
#   CHUNK_BENCH_PROPS    clmpegenc properties [quantizer=5]
#   CHUNK_BENCH_CAPS     caps after the encoder [video/mpeg]
#   CHUNK_BENCH_FRAMES   frames a piece [48]
#   CHUNK_BENCH_DEVICES  OpenCL devices for the jobs (chunk-encode.sh -d),
#                        e.g. "0 1" for two GPUs []
# Each run codes the clip from the same decoded pieces (the cut is made
# once and timed apart), and the single encode from the same raw frames,
# so that the times are of the coding and the join alone; every joined
# stream must equal the single encode's. Each job starts a GStreamer
# pipeline and an OpenCL context of its own (most of a second with a
# GPU): pieces of a few seconds of video lose that much of their gain.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
clip="${1:?usage: $0 CLIP [JOBS...]}"
shift
jobs_list=("${@:-1 2 4}")
read -r -a jobs_list <<<"${jobs_list[*]}"
props="${CHUNK_BENCH_PROPS:-quantizer=5}"
caps="${CHUNK_BENCH_CAPS:-video/mpeg}"
frames="${CHUNK_BENCH_FRAMES:-48}"
devices="${CHUNK_BENCH_DEVICES:-}"
chunk="$root/pipelines/chunk-encode.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

now() {
  date +%s.%N
}

# the cuts first (timed apart): the whole clip as one piece, and as the
# pieces of the runs
t0="$(now)"
"$chunk" -p "$props" -c "$caps" -n "$frames" -m cut ${devices:+-d "$devices"} \
  -w "$work/cut" "$clip" "$work/unused.mpv" 2>"$work/cut.log"
t1="$(now)"
cut="$(python3 -c "print($t1 - $t0)")"
"$chunk" -p "$props" -c "$caps" -n 100000000 -m cut -w "$work/whole" \
  "$clip" "$work/unused.mpv" 2>"$work/whole.log"
# the first piece once, untimed: the kernels then come from the cache
"$chunk" piece "$work/cut" 0
# the single encode: the one piece of the whole clip
t0="$(now)"
"$chunk" piece "$work/whole" 0
t1="$(now)"
single="$(python3 -c "print($t1 - $t0)")"
# shellcheck disable=SC1091
. "$work/cut/params"

echo "### Chunked encode: $(basename "$clip"), ${width}x$height, $pieces pieces of up to $frames frames"
echo
echo "clmpegenc $props ! $caps; $(nproc) CPU threads; $(date -u +%Y-%m-%d)."
printf 'One encoder over the whole clip: %.2f s; the cut (decoding into raw pieces, once): %.2f s.\n' "$single" "$cut"
echo
echo "| jobs at once | coding and join, s | speed-up against the single encode |"
echo "|---|---|---|"
for j in "${jobs_list[@]}"; do
  rm -f "$work"/cut/piece-*.mpv
  t0="$(now)"
  seq 0 $((pieces - 1)) |
    parallel --will-cite --halt now,fail=1 -j "$j" \
      "$chunk" piece "$work/cut" '{}' '{%}'
  "$chunk" join "$work/cut" "$work/joined.mpv"
  t1="$(now)"
  cmp -s "$work/whole/piece-00000.mpv" "$work/joined.mpv" || {
    echo "chunk-bench: $j jobs: the joined stream differs" >&2
    exit 1
  }
  python3 -c "t = $t1 - $t0; print('| %d | %.2f | %.2f |' % ($j, t, $single / t))"
done

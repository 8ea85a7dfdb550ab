#!/usr/bin/env bash
# gst-clvideo: pipelines/chunk-encode.sh against a single encode. A clip
# coded whole and coded as pieces in parallel (GNU parallel, two jobs at
# once), then joined, must be the same bytes, at a constant quantiser:
# MPEG-1; MPEG-2 with B pictures; and the Slurm mode, its sbatch commands
# checked by a dry run and its array tasks run here one after the other
# (as Slurm would run them on nodes). At bit rates (constant: MPEG-1, and
# MPEG-2 with B pictures; variable: MPEG-2 with B pictures) the joined
# stream's VBV model must run on across the joins. Each joined stream also passes the stream checker,
# macroblocks included, and three decoders to its last frame.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: tests/chunk-encode-test.sh MPEGCHECK
# The clip: the real-content set's Foreman (pipelines/real-clips.sh) from
# $CLVIDEO_CLIPS_DIR or that script's default directory, its first 80
# frames; where it is not there, 80 frames of a moving test pattern.
# Exits 77 (skipped) without GNU parallel or FFmpeg.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mpegcheck="${1:?usage: $0 MPEGCHECK}"
chunk="$root/pipelines/chunk-encode.sh"
frames=80

for tool in parallel ffmpeg gst-launch-1.0; do
  if ! command -v "$tool" >/dev/null; then
    echo "chunk-encode-test: $tool is not installed: skipped"
    exit 77
  fi
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "chunk-encode-test: FAIL: $*" >&2
  exit 1
}

clips="${CLVIDEO_CLIPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gst-clvideo/clips}"
clip="$work/clip.y4m"
if [ -r "$clips/foreman_352x288.y4m" ]; then
  ffmpeg -nostdin -v error -i "$clips/foreman_352x288.y4m" \
    -frames:v "$frames" -f yuv4mpegpipe -y "$clip"
  echo "clip: Foreman, $frames frames"
else
  gst-launch-1.0 -q videotestsrc pattern=smpte horizontal-speed=3 \
    num-buffers="$frames" ! \
    video/x-raw,format=I420,width=352,height=288,framerate=25/1 ! \
    y4menc ! filesink location="$clip"
  echo "clip: a moving test pattern (no Foreman in $clips), $frames frames"
fi

# whole PROPS CAPS OUT: the clip coded by one encoder
whole() {
  # shellcheck disable=SC2086
  gst-launch-1.0 -q filesrc location="$clip" ! decodebin ! videoconvert ! \
    clmpegenc scene-cut=0 b-adapt=false ip-factor=1.4 $1 ! "$2" ! filesink location="$3"
}

# same NAME WHOLE JOINED PIECES: the joined stream is the whole one and
# passes the checks
same() {
  local name="$1" a="$2" b="$3" pieces="$4"
  cmp "$a" "$b" >/dev/null ||
    fail "$name: the joined stream ($(stat -c %s "$b") bytes) is not the" \
      "single encode's ($(stat -c %s "$a") bytes): $(cmp "$a" "$b" || true)"
  "$mpegcheck" -n "$frames" -s 352x288 --seq-header-per-gop --closed-gop \
    "$b" >"$work/check.log" || { cat "$work/check.log"; fail "$name: check"; }
  bash "$root/tests/mpeg-decode-check.sh" --frames "$frames" --size 352x288 \
    "$b" >"$work/decode.log" || { cat "$work/decode.log"; fail "$name: decode"; }
  echo "$name: $pieces pieces joined, the same $(stat -c %s "$a") bytes as" \
    "one encode; checked, and decoded to frame $frames"
}

# pieces WORKDIR: how many the cut made
pieces() {
  find "$1" -maxdepth 1 -name 'piece-*.mpv' | wc -l
}

# MPEG-1, four pieces (24 frames: two GOPs each; the last 8 frames),
# two jobs at once on device 0
whole "quantizer=5" video/mpeg "$work/whole.m1v"
"$chunk" -p "quantizer=5" -n 24 -j 2 -d 0 -w "$work/w1" "$clip" \
  "$work/joined.m1v"
same "MPEG-1" "$work/whole.m1v" "$work/joined.m1v" "$(pieces "$work/w1")"
[ "$(pieces "$work/w1")" -ge 3 ] || fail "MPEG-1: fewer than three pieces"

# MPEG-2 with two B pictures between anchors, GOPs of 9: -n 20 becomes 27
whole "quantizer=4 b-frames=2 gop-size=9" "video/mpeg,mpegversion=2" \
  "$work/whole.m2v"
"$chunk" -p "quantizer=4 b-frames=2 gop-size=9" \
  -c "video/mpeg,mpegversion=2" -n 20 -j 2 -w "$work/w2" "$clip" \
  "$work/joined.m2v"
same "MPEG-2, B pictures" "$work/whole.m2v" "$work/joined.m2v" \
  "$(pieces "$work/w2")"
[ "$(pieces "$work/w2")" -eq 3 ] || fail "MPEG-2: not three pieces of 27"

# bit rates: not the single encode's bytes (each piece's rate control
# starts afresh), but a buffer model that runs on across the joins: at a
# constant rate each vbv_delay within 2 ticks of it, at a variable rate
# (the buffer-full rule) no underflow
for case in "bitrate=1200|video/mpeg|24" \
  "bitrate=3000 b-frames=2|video/mpeg,mpegversion=2|20" \
  "bitrate=500 max-bitrate=900 b-frames=2|video/mpeg,mpegversion=2|24"; do
  IFS='|' read -r props caps n <<<"$case"
  "$chunk" -p "$props" -c "$caps" -n "$n" -j 2 -w "$work/w-cbr" "$clip" \
    "$work/joined-cbr.mpv"
  "$mpegcheck" -n "$frames" -s 352x288 --vbv-delay-tolerance=2 \
    "$work/joined-cbr.mpv" >"$work/check.log" ||
    { cat "$work/check.log"; fail "$props: the VBV across the joins"; }
  bash "$root/tests/mpeg-decode-check.sh" --frames "$frames" --size 352x288 \
    "$work/joined-cbr.mpv" >"$work/decode.log" ||
    { cat "$work/decode.log"; fail "$props: decode"; }
  echo "$props: $(pieces "$work/w-cbr") pieces joined; the VBV model runs" \
    "on across the joins"
done

# film shown by 3:2 pulldown with B pictures: each piece's cadence and
# time codes go on from its place in the whole; at a constant quantiser
# the single encode's bytes, at a constant rate a VBV model that runs on
# across the joins (a piece's first anchor is decoded a display time of
# the last anchor before it, shown for two or three fields)
film="videorate ! video/x-raw,framerate=24000/1001 ! videoconvert"
gst-launch-1.0 -q filesrc location="$clip" ! decodebin ! $film ! \
  clmpegenc scene-cut=0 b-adapt=false ip-factor=1.4 quantizer=4 b-frames=2 gop-size=9 pulldown=true ! \
  video/mpeg,mpegversion=2 ! filesink location="$work/whole-film.m2v"
"$chunk" -p "quantizer=4 b-frames=2 gop-size=9 pulldown=true" \
  -c "video/mpeg,mpegversion=2" -f "$film" -n 20 -j 2 -w "$work/w4" \
  "$clip" "$work/joined-film.m2v"
cmp "$work/whole-film.m2v" "$work/joined-film.m2v" >/dev/null ||
  fail "pulldown: the joined stream is not the single encode's"
rm -rf "$work/w-film"
"$chunk" -p "bitrate=3000 b-frames=2 pulldown=true" \
  -c "video/mpeg,mpegversion=2" -f "$film" -n 20 -j 2 -w "$work/w-film" \
  "$clip" "$work/joined-film-cbr.m2v"
for s in "$work/joined-film.m2v" "$work/joined-film-cbr.m2v"; do
  "$mpegcheck" -s 352x288 --vbv-delay-tolerance=2 --first-time-code=0 "$s" \
    >"$work/check.log" ||
    { cat "$work/check.log"; fail "pulldown: $(basename "$s"): check"; }
done
echo "pulldown with B pictures: $(pieces "$work/w4") pieces joined, the" \
  "single encode's bytes at a constant quantiser; at a constant rate the" \
  "VBV model runs on across $(pieces "$work/w-film") pieces"

# Slurm: the dry run's commands, then its array tasks and its join here
"$chunk" -m slurm -D -p "quantizer=5" -n 24 -w "$work/w3" "$clip" \
  "$work/joined-slurm.m1v" >"$work/sbatch.txt"
grep -q -- "--array=0-3 " "$work/sbatch.txt" ||
  fail "Slurm: no array of 4 tasks in: $(cat "$work/sbatch.txt")"
grep -q -- "--dependency=afterok:JOBID --wrap=" "$work/sbatch.txt" ||
  fail "Slurm: no join after the array in: $(cat "$work/sbatch.txt")"
for task in 0 1 2 3; do
  SLURM_ARRAY_TASK_ID=$task CHUNK_ENCODE="$chunk" \
    bash "$root/pipelines/chunk-encode.slurm" "$work/w3"
done
"$chunk" join "$work/w3" "$work/joined-slurm.m1v"
same "Slurm array" "$work/whole.m1v" "$work/joined-slurm.m1v" 4
echo "chunk-encode-test: ok"

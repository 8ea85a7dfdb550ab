#!/usr/bin/env bash
# gst-clvideo demo: run the OpenCL elements on built-in sample content and
# check that the result decodes.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: pipelines/demo.sh            (as root: installs missing packages)
# Environment: BUILD_DIR (default build), GST_CL_DEVICE (device choice).
#
# A moving test pattern (videotestsrc, 1280x720 RGBx, 60 frames) goes
# through clcolorlowpass into YCbCr, clmotionsearch and clmpegenc (frames
# stay on the device between them) into an MPEG-1 video stream in
# $BUILD_DIR/demo/; the file is then decoded with ffmpeg and its frames
# counted with ffprobe.
set -euo pipefail

# shellcheck source=pipelines/setup.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/setup.sh" || exit 1

WIDTH=1280
HEIGHT=720
FRAMES=60
FRAMERATE=30/1

# What the converted frames are written as: one word per element or "!"
# (for raw frames instead: ENCODE=(video/x-raw,format=I420 ! y4menc) and
# EXT=y4m); the checks below only need a file that ffmpeg can decode.
ENCODE=(clmotionsearch ! clmpegenc quantizer=4 gop-size=12)
EXT="m1v"

OUTDIR="$CLVIDEO_BUILD/demo"
OUTFILE="$OUTDIR/ball-${WIDTH}x${HEIGHT}.$EXT"
LOG="$OUTDIR/gst-launch.log"

fail() {
  echo "demo: FAILED: $*" >&2
  exit 1
}

mkdir -p "$OUTDIR"
rm -f "$OUTFILE"

export GST_PLUGIN_PATH="$CLVIDEO_BUILD/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY="$OUTDIR/registry.bin"

for element in clcolorlowpass clmotionsearch clmpegenc; do
  gst-inspect-1.0 "$element" >/dev/null 2>&1 ||
    fail "the $element element is not found in $CLVIDEO_BUILD/gst"
done

echo "== OpenCL devices"
if command -v clinfo >/dev/null 2>&1; then
  clinfo -l || true
fi

PIPELINE=(
  videotestsrc pattern=ball "num-buffers=$FRAMES"
  ! "video/x-raw,format=RGBx,width=$WIDTH,height=$HEIGHT,framerate=$FRAMERATE"
  ! clcolorlowpass ! "${ENCODE[@]}" ! filesink "location=$OUTFILE"
)

echo "== gst-launch-1.0 ${PIPELINE[*]}"
start=$(date +%s.%N)
# clcontext:4 logs the device the context was created on
if ! GST_DEBUG="${GST_DEBUG:+$GST_DEBUG,}clcontext:4" GST_DEBUG_NO_COLOR=1 \
  gst-launch-1.0 -q "${PIPELINE[@]}" >"$LOG" 2>&1; then
  cat "$LOG" >&2
  fail "gst-launch-1.0 returned an error (log: $LOG)"
fi
end=$(date +%s.%N)

device="$(sed -n 's/.*created context on \(.*\)$/\1/p' "$LOG" | head -n 1)"
[ -n "$device" ] || device="(unknown: no 'created context' line in $LOG)"
[ -s "$OUTFILE" ] || fail "no output written to $OUTFILE"

echo "== checking $OUTFILE"
ffmpeg -nostdin -v error -err_detect explode -i "$OUTFILE" -f null - ||
  fail "ffmpeg could not decode $OUTFILE"
probe="$(ffprobe -v error -count_frames -select_streams v:0 \
  -show_entries stream=width,height,nb_read_frames -of csv=p=0 "$OUTFILE")" ||
  fail "ffprobe could not read $OUTFILE"
IFS=, read -r got_w got_h got_frames <<<"$probe"
if [ "$got_w" != "$WIDTH" ] || [ "$got_h" != "$HEIGHT" ]; then
  fail "size is ${got_w}x${got_h}, expected ${WIDTH}x${HEIGHT}"
fi
[ "$got_frames" = "$FRAMES" ] ||
  fail "$got_frames frames decoded, expected $FRAMES"

fps="$(awk -v s="$start" -v e="$end" -v n="$FRAMES" \
  'BEGIN { t = e - s; if (t > 0) printf "%.1f", n / t; else print "n/a" }')"
secs="$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')"

echo "== demo summary"
echo "device:  $device"
echo "output:  $OUTFILE ($(stat -c %s "$OUTFILE") bytes)"
echo "frames:  $got_frames at ${got_w}x${got_h}, decoded without errors"
echo "speed:   $fps frames/s ($secs s for the whole pipeline, start-up included)"

#!/usr/bin/env bash
# gst-clvideo: draw the motion vectors clmotionsearch finds into PNG images.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: pipelines/motion-vectors.sh [CLIP]
#   CLIP: any file GStreamer can decode; without it, a built-in test
#   pattern (rings scrolling left by 4 samples a frame).
# Environment: BUILD_DIR (default build), OUTDIR (default
#   $BUILD_DIR/motion-vectors), FRAMES (default 30), BLOCK_SIZE (16 or 8,
#   default 16), SEARCH_RANGE (default 16), SUBPEL (true or false, default
#   false), GST_CL_DEVICE (device choice).
#
# Each frame after the first is written as OUTDIR/vectors-NNNN.png with its
# block vectors drawn on the luma: a line from where the block's content was
# in the previous frame to the block's centre, which carries a 2x2 dot.
set -euo pipefail

# shellcheck source=pipelines/setup.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/setup.sh" || exit 1

FRAMES="${FRAMES:-30}"
BLOCK_SIZE="${BLOCK_SIZE:-16}"
SEARCH_RANGE="${SEARCH_RANGE:-16}"
SUBPEL="${SUBPEL:-false}"
OUTDIR="${OUTDIR:-$CLVIDEO_BUILD/motion-vectors}"

fail() {
  echo "motion-vectors: FAILED: $*" >&2
  exit 1
}

mkdir -p "$OUTDIR"
rm -f "$OUTDIR"/vectors-*.png
export GST_PLUGIN_PATH="$CLVIDEO_BUILD/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY="$OUTDIR/registry.bin"
gst-inspect-1.0 clmotionsearch >/dev/null 2>&1 ||
  fail "the clmotionsearch element is not found in $CLVIDEO_BUILD/gst"

if [ $# -ge 1 ]; then
  [ -r "$1" ] || fail "cannot read $1"
  SOURCE=(filesrc "location=$1" ! decodebin ! videoconvert
    ! video/x-raw,format=I420 ! identity "eos-after=$FRAMES")
else
  SOURCE=(videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1
    horizontal-speed=4 "num-buffers=$FRAMES"
    ! "video/x-raw,format=I420,width=640,height=360,framerate=30/1")
fi

PIPELINE=(
  "${SOURCE[@]}"
  ! clmotionsearch "block-size=$BLOCK_SIZE" "search-range=$SEARCH_RANGE"
  "subpel=$SUBPEL" draw-vectors=true
  ! videoconvert ! pngenc ! multifilesink "location=$OUTDIR/vectors-%04d.png"
)

echo "== gst-launch-1.0 ${PIPELINE[*]}"
gst-launch-1.0 -q "${PIPELINE[@]}" || fail "gst-launch-1.0 returned an error"
# the first frame has no reference and so no vectors
rm -f "$OUTDIR/vectors-0000.png"
n=$(find "$OUTDIR" -name 'vectors-*.png' | wc -l)
[ "$n" -gt 0 ] || fail "no images written to $OUTDIR"
echo "== $n images with vectors in $OUTDIR"

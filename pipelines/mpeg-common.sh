# gst-clvideo: the MPEG-1 encoders and the quality measure that
# mpeg-bench.sh and real-bench.sh share (sourced by both).
# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash

# mpeg_encode ENCODER Q GOP SRC OUT [CLMPEGENC-PROPERTY...]
# Codes the y4m file SRC into the elementary stream OUT with I and P
# pictures only, GOP pictures a GOP, at quantiser Q. ENCODER is one of
#   clmpegenc          its defaults (one slice per macroblock row)
#   clmpegenc-2slices  slices=2, the slice count of ffmpeg -threads 2
#   ffmpeg             FFmpeg's mpeg1video, its defaults
#   ffmpeg-rd          with rate-distortion macroblock decisions and trellis
#   ffmpeg-best        its best quality: ffmpeg-rd, and rate-distortion
#                      comparisons in the motion search too
#   mpeg2enc           mjpegtools' mpeg2enc, Q its quantisation floor
# The properties go to clmpegenc after those above, and win over them.
mpeg_encode() {
  local enc="$1" q="$2" gop="$3" src="$4" out="$5"
  shift 5
  case "$enc" in
    clmpegenc | clmpegenc-2slices)
      local slices=()
      [ "$enc" = clmpegenc ] || slices=(slices=2)
      gst-launch-1.0 -q filesrc location="$src" ! y4mdec ! \
        clmpegenc quantizer="$q" gop-size="$gop" "${slices[@]}" "$@" ! \
        filesink location="$out" ;;
    ffmpeg) mpeg_ffmpeg "$q" "$gop" "$src" "$out" ;;
    ffmpeg-rd) mpeg_ffmpeg "$q" "$gop" "$src" "$out" -mbd rd -trellis 1 ;;
    ffmpeg-best)
      mpeg_ffmpeg "$q" "$gop" "$src" "$out" -mbd rd -trellis 1 -cmp rd \
        -subcmp rd -last_pred 3 -dia_size 2 ;;
    mpeg2enc)
      # -f 0 generic MPEG-1, -R 0 no B pictures, fixed GOP; -q is its
      # quantisation floor, with a bit rate and buffer high enough not to
      # limit it
      mpeg2enc -f 0 -q "$q" -R 0 -g "$gop" -G "$gop" -M 2 -b 50000 -V 1000 \
        -o "$out" <"$src" 2>"$out.log" ;;
    *)
      echo "mpeg_encode: unknown encoder $enc" >&2
      return 2 ;;
  esac
}

# mpeg_ffmpeg Q GOP SRC OUT [FFMPEG-OPTION...]: FFmpeg's mpeg1video, no B
# pictures, two threads
mpeg_ffmpeg() {
  local q="$1" gop="$2" src="$3" out="$4"
  shift 4
  ffmpeg -nostdin -v error -i "$src" -c:v mpeg1video -threads 2 -bf 0 \
    -g "$gop" -qscale:v "$q" "$@" -f mpeg1video -y "$out"
}

# mpeg_quality PSNR-TOOL SRC STREAM: decodes STREAM with FFmpeg and prints
# tests/psnr's line comparing it with SRC (frames=N y=.. u=.. v=.. ...)
mpeg_quality() {
  ffmpeg -nostdin -v error -i "$3" -fps_mode passthrough \
    -f yuv4mpegpipe -strict -1 - | "$1" "$2" -
}

# gst-clvideo: the MPEG-1 and MPEG-2 encoders and the quality measure that
# mpeg-bench.sh and real-bench.sh share (sourced by both).
# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash

# mpeg_dirs ROOT [DIR]: sets build, the build directory ($BUILD_DIR [build],
# relative to the project's ROOT unless absolute), and dir, the
# real-content clips (DIR [${XDG_CACHE_HOME:-~/.cache}/gst-clvideo/clips])
mpeg_dirs() {
  build="${BUILD_DIR:-build}"
  case "$build" in /*) ;; *) build="$1/$build" ;; esac
  dir="${2:-${XDG_CACHE_HOME:-$HOME/.cache}/gst-clvideo/clips}"
}

# mpeg_encode ENCODER Q GOP SRC OUT [CLMPEGENC-PROPERTY...]
# Codes the y4m file SRC into the elementary stream OUT with I and P
# pictures, and $MPEG_B_FRAMES B pictures between anchors [0], GOP
# pictures a GOP, at quantiser Q. ENCODER is one of
#   clmpegenc          its defaults (one slice per macroblock row)
#   clmpegenc-2slices  slices=2, the slice count of ffmpeg -threads 2
#   clmpegenc-open     closed-gop=false, open GOPs (as FFmpeg's default)
#   clmpegenc-fixedb   b-adapt=false: $MPEG_B_FRAMES B pictures between
#                      every two anchors, whether they pay or not
#   clmpegenc-PRESET   speed-preset=PRESET (ultrafast, veryfast, fast,
#                      medium, slow)
#   ffmpeg             FFmpeg's mpeg1video, its defaults
#   ffmpeg-rd          with rate-distortion macroblock decisions and trellis
#   ffmpeg-best        its best quality: ffmpeg-rd, and rate-distortion
#                      comparisons in the motion search too
#   mpeg2enc           mjpegtools' mpeg2enc, Q its quantisation floor
# The properties go to clmpegenc after those above, and win over them.
# With MPEG_VERSION=2 (default 1) clmpegenc writes MPEG-2 (its caps ask
# for it) and FFmpeg's encoders are mpeg2video, with the same options;
# with MPEG_INTERLACED=1 as well (interlaced clips, see mpeg_cut_clip),
# FFmpeg's codes them with its interlaced DCT and motion estimation
# (-flags +ildct+ilme -top 1), clmpegenc as its input caps say. With
# MPEG_UPSTREAM_SEARCH=1 clmpegenc codes the frames as they come out of
# clmotionsearch with its defaults, with its vectors (the chain).
mpeg_encode() {
  local enc="$1" q="$2" gop="$3" src="$4" out="$5"
  shift 5
  case "$enc" in
    clmpegenc | clmpegenc-*)
      local extra=()
      case "$enc" in
        clmpegenc) ;;
        clmpegenc-2slices) extra=(slices=2) ;;
        clmpegenc-open) extra=(closed-gop=false) ;;
        clmpegenc-fixedb) extra=(b-adapt=false) ;;
        *) extra=(speed-preset="${enc#clmpegenc-}") ;;
      esac
      # (filesrc reads 4 KiB a buffer unless told, which y4mdec then
      # joins into frames: a MiB a buffer, as FFmpeg's demuxer reads a
      # whole frame a packet)
      local upstream=()
      [ "${MPEG_UPSTREAM_SEARCH:-0}" = 1 ] && upstream=(clmotionsearch !)
      gst-launch-1.0 -q filesrc location="$src" blocksize=1048576 ! y4mdec ! \
        "${upstream[@]}" clmpegenc quantizer="$q" gop-size="$gop" \
        b-frames="${MPEG_B_FRAMES:-0}" "${extra[@]}" "$@" ! \
        "video/mpeg,mpegversion=${MPEG_VERSION:-1}" ! \
        filesink location="$out" ;;
    ffmpeg) mpeg_ffmpeg "$q" "$gop" "$src" "$out" ;;
    ffmpeg-rd) mpeg_ffmpeg "$q" "$gop" "$src" "$out" -mbd rd -trellis 1 ;;
    ffmpeg-best)
      mpeg_ffmpeg "$q" "$gop" "$src" "$out" -mbd rd -trellis 1 -cmp rd \
        -subcmp rd -last_pred 3 -dia_size 2 ;;
    mpeg2enc)
      # -f 0 generic MPEG-1, -R the B pictures, fixed GOP; -q is its
      # quantisation floor, with a bit rate and buffer high enough not to
      # limit it
      mpeg2enc -f 0 -q "$q" -R "${MPEG_B_FRAMES:-0}" -g "$gop" -G "$gop" -M 2 -b 50000 -V 1000 \
        -o "$out" <"$src" 2>"$out.log" ;;
    *)
      echo "mpeg_encode: unknown encoder $enc" >&2
      return 2 ;;
  esac
}

# mpeg_ffmpeg Q GOP SRC OUT [FFMPEG-OPTION...]: FFmpeg's mpeg1video (or
# mpeg2video with MPEG_VERSION=2), $MPEG_B_FRAMES B pictures [0],
# $MPEG_FFMPEG_THREADS threads [2]
mpeg_ffmpeg() {
  local q="$1" gop="$2" src="$3" out="$4" codec=mpeg1video
  shift 4
  [ "${MPEG_VERSION:-1}" = 2 ] && codec=mpeg2video
  [ "${MPEG_INTERLACED:-0}" = 1 ] && set -- -flags +ildct+ilme -top 1 "$@"
  ffmpeg -nostdin -v error -i "$src" -c:v "$codec" \
    -threads "${MPEG_FFMPEG_THREADS:-2}" -bf "${MPEG_B_FRAMES:-0}" \
    -g "$gop" -qscale:v "$q" "$@" -f "$codec" -y "$out"
}

# mpeg_quality PSNR-TOOL SRC STREAM: decodes STREAM with FFmpeg and prints
# tests/psnr's line comparing it with SRC (frames=N y=.. u=.. v=.. ...)
mpeg_quality() {
  ffmpeg -nostdin -v error -i "$3" -fps_mode passthrough \
    -f yuv4mpegpipe -strict -1 - | "$1" "$2" -
}

# the picture rates MPEG-1 codes, as ffmpeg writes them in y4m headers
mpeg1_rates=" 24000:1001 24:1 25:1 30000:1001 30:1 50:1 60000:1001 60:1 "

# mpeg_cut_clip CLIP FRAMES OUT: the first FRAMES frames of the y4m file
# CLIP into OUT, as every encoder reads them: relabelled 25 fps in the
# header where the clip's rate is not one MPEG-1 can signal (the same
# frames: ffmpeg's -r would drop and repeat some). Prints "W H FRAMES
# RATE", RATE the clip's rate where it was relabelled, else "-".
# With MPEG_INTERLACED=1, each frame of OUT is woven from two of CLIP, the
# top field from the first (interlaced, top field first: "It" in the
# header, at half the clip's rate): fields of real motion, as an
# interlaced camera at twice the rate would take them.
mpeg_cut_clip() {
  local clip="$1" frames="$2" out="$3" w="" h="" rate="" header field
  local relabelled=- weave=()
  [ "${MPEG_INTERLACED:-0}" = 1 ] &&
    weave=(-vf tinterlace=interleave_top,setfield=tff)
  ffmpeg -nostdin -v error -i "$clip" "${weave[@]}" -frames:v "$frames" \
    -color_range unspecified -f yuv4mpegpipe -y "$out" || return 1
  read -r header <"$out"
  for field in $header; do
    case "$field" in
      W*) w="${field#W}" ;;
      H*) h="${field#H}" ;;
      F*) rate="${field#F}" ;;
    esac
  done
  if [ -z "$w" ] || [ -z "$h" ]; then
    echo "mpeg_cut_clip: $out: no frame size in its y4m header" >&2
    return 1
  fi
  case "$mpeg1_rates" in
    *" $rate "*) ;;
    *)
      mv "$out" "$out.rate"
      { printf '%s\n' "${header/ F$rate / F25:1 }"
        tail -c +"$((${#header} + 2))" "$out.rate"; } >"$out"
      rm "$out.rate"
      relabelled="$rate"
      read -r header <"$out" ;;
  esac
  echo "$w $h $((($(stat -c %s "$out") - ${#header} - 1) /
    (w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2) + 6))) $relabelled"
}

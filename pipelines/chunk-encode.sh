#!/usr/bin/env bash
# gst-clvideo: chunk-parallel MPEG encoding. Cuts a video into pieces of
# whole GOPs, codes each piece with clmpegenc as a job of GNU parallel (on
# this host's devices, or on several hosts) or of a Slurm array, and joins
# the pieces into one elementary stream: at a constant quantiser the bytes
# a single encode of the whole video writes (every GOP is closed and
# depends on nothing before it; frame-offset gives each piece's GOP time
# codes their place in the whole); at a constant bit rate a stream whose
# VBV buffer runs on across the joins (each piece starts and ends at an
# agreed fullness).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: pipelines/chunk-encode.sh [OPTIONS] INPUT OUTPUT
#   -p PROPS    clmpegenc properties, e.g. "quantizer=4 b-frames=2"
#               [quantizer=4]; gop-size (or key-int-max) among them sets
#               the GOP [12]; scene-cut is 0, b-adapt false and
#               ip-factor 1.4 unless PROPS set them (the pieces are cut at
#               fixed GOPs, and each codes what the whole encode codes
#               there)
#   -c CAPS     caps after the encoder, e.g. video/mpeg,mpegversion=2
#               [video/mpeg]
#   -f CHAIN    elements between the decoder and the cut, in gst-launch
#               syntax [videoconvert], e.g. "videoconvert ! videorate !
#               video/x-raw,framerate=25/1"
#   -n FRAMES   frames a piece, rounded up to whole GOPs [10 GOPs]
#   -F LEVEL    with a constant bit rate (bitrate in PROPS, no
#               max-bitrate): the VBV buffer's fullness at each join, a
#               fraction of the buffer: every piece starts at it
#               (vbv-initial-fullness) and all but the last end at it
#               (vbv-final-fullness, stream-frames) [0.8, where the single
#               encode starts]. A variable rate (max-bitrate, or MPEG-2 at
#               a constant quantiser, under its level's peak) has pieces
#               end with the buffer full, where the next one's model
#               starts
#   -j JOBS     jobs at once on each host [the devices of -d, else 1]
#   -d DEVICES  OpenCL devices (clmpegenc's device: index, name or type),
#               space-separated: the job in slot s takes the ((s - 1) mod
#               count)-th, so that with -j as many as devices each device
#               codes one piece at a time [clmpegenc's default]
#   -S LOGINS   hosts for GNU parallel (--sshlogin, e.g. ":,gpu1,gpu2";
#               ":" is this host); each must see the work directory at the
#               same path and have gst-clvideo (GST_PLUGIN_PATH is passed
#               on where set)
#   -m MODE     parallel (GNU parallel, the default); slurm: an array
#               job of pipelines/chunk-encode.slurm, one task a piece, and
#               a join job after it (sbatch; the work directory must be on
#               a file system the nodes share); cut: the cut alone, for
#               jobs run by other means (OUTPUT is not written)
#   -D          slurm: print the sbatch commands instead of running them
#   -w DIR      work directory, kept [a temporary one, removed at the end;
#               with -m slurm, required]
#
# The steps, each also a subcommand (what the jobs run):
#   cut     INPUT is decoded once (filesrc ! decodebin ! CHAIN) into raw
#           I420 pieces of FRAMES frames each (multifilesink), and what
#           the pieces need is written to WORKDIR/params
#   piece   chunk-encode.sh piece WORKDIR INDEX [SLOT]: codes piece INDEX
#           (filesrc ! rawvideoparse ! clmpegenc frame-offset=FIRST ! CAPS
#           ! filesink) into WORKDIR/piece-INDEX.mpv
#   join    chunk-encode.sh join WORKDIR OUTPUT: the pieces' streams one
#           after the other, each but the last without its sequence end
#           code
#
# The raw pieces take the decoded video's size on disk (a 1080p frame is 3
# MB); the cut is one decoder, the coding is what runs in parallel.
set -euo pipefail

self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

die() {
  echo "chunk-encode: $*" >&2
  exit 1
}

# the value of property $2 in the properties $1, or $3
prop() {
  local p
  for p in $1; do
    case "$p" in "$2="*) echo "${p#*=}"; return ;; esac
  done
  echo "$3"
}

# piece_name WORKDIR INDEX SUFFIX
piece_name() {
  printf '%s/piece-%05d.%s' "$1" "$2" "$3"
}

# cut INPUT WORKDIR CHAIN FRAMES PROPS CAPS DEVICES START END: the raw
# pieces and WORKDIR/params (START, END: the VBV levels at the joins)
cut_input() {
  local input="$1" work="$2" chain="$3" frames="$4" props="$5" caps="$6"
  local devices="$7" start="$8" end="$9" gop log line width height rate par
  local colorimetry bytes
  local pieces i size

  gop="$(prop "$props" gop-size "$(prop "$props" key-int-max 12)")"
  [ "$gop" -ge 1 ] 2>/dev/null || die "gop-size $gop is not a number of frames"
  frames="${frames:-$((10 * gop))}"
  [ "$frames" -ge 1 ] 2>/dev/null || die "-n $frames is not a number of frames"
  frames=$(((frames + gop - 1) / gop * gop))
  # the decoded frames' caps, from the first frame (identity ends the
  # stream at once)
  log="$work/probe.log"
  # shellcheck disable=SC2086 # CHAIN is a gst-launch fragment
  gst-launch-1.0 -v filesrc location="$input" ! decodebin ! $chain ! \
    video/x-raw,format=I420 ! identity eos-after=2 ! \
    fakesink name=probe >"$log" 2>&1 ||
    die "cannot decode $input to I420 (see $log)"
  line="$(grep -m1 'probe.GstPad:sink: caps = ' "$log" || true)"
  [ -n "$line" ] || die "no caps for the decoded frames in $log"
  width="$(sed -n 's/.*width=(int)\([0-9]*\).*/\1/p' <<<"$line")"
  height="$(sed -n 's/.*height=(int)\([0-9]*\).*/\1/p' <<<"$line")"
  rate="$(sed -n 's/.*framerate=(fraction)\([0-9]*\/[0-9]*\).*/\1/p' <<<"$line")"
  par="$(sed -n 's/.*pixel-aspect-ratio=(fraction)\([0-9]*\/[0-9]*\).*/\1/p' <<<"$line")"
  colorimetry="$(sed -n 's/.*colorimetry=(string)\([^,]*\).*/\1/p' <<<"$line")"
  if [ -z "$width" ] || [ -z "$height" ] || [ -z "$rate" ]; then
    die "unreadable caps in $log: $line"
  fi
  # an I420 frame as GStreamer lays it out: rows of 4-byte multiples, an
  # even number of luma rows
  bytes=$((((width + 3) / 4 * 4) * ((height + 1) / 2 * 2) +
    2 * (((width + 1) / 2 + 3) / 4 * 4) * ((height + 1) / 2)))

  # one file of FRAMES frames after the other: the next begins where the
  # next frame would make this one larger than FRAMES frames
  # shellcheck disable=SC2086
  gst-launch-1.0 -q filesrc location="$input" ! decodebin ! $chain ! \
    video/x-raw,format=I420 ! multifilesink location="$work/piece-%05d.yuv" \
    next-file=max-size max-file-size=$((frames * bytes)) ||
    die "cannot cut $input into pieces"
  pieces="$(find "$work" -maxdepth 1 -name 'piece-*.yuv' | wc -l)"
  [ "$pieces" -ge 1 ] || die "$input decoded to no frames"
  # whole frames, and FRAMES in each piece but the last
  for ((i = 0; i < pieces; i++)); do
    size="$(stat -c %s "$(piece_name "$work" "$i" yuv)")"
    if [ $((size % bytes)) -ne 0 ] ||
      { [ "$i" -lt $((pieces - 1)) ] && [ "$size" -ne $((frames * bytes)) ]; }; then
      die "piece $i holds $size bytes: not whole frames of $bytes bytes"
    fi
  done
  {
    printf 'width=%q\nheight=%q\nrate=%q\npar=%q\ncolorimetry=%q\n' \
      "$width" "$height" "$rate" "${par:-1/1}" "$colorimetry"
    printf 'frames=%q\npieces=%q\nprops=%q\ncaps=%q\ndevices=%q\n' \
      "$frames" "$pieces" "$props" "$caps" "$devices"
    printf 'bytes=%q\nstart=%q\nend=%q\n' "$bytes" "$start" "$end"
  } >"$work/params"
  echo "chunk-encode: $input: ${width}x$height at $rate, $pieces pieces of" \
    "up to $frames frames (GOPs of $gop)" >&2
}

# piece WORKDIR INDEX [SLOT]: codes one piece
code_piece() {
  local work="$1" index="$2" slot="${3:-1}" device=() list vbv=() raw
  local width height rate par colorimetry frames pieces props caps devices
  local bytes start end
  # shellcheck disable=SC1091 # written by cut_input
  . "$work/params"
  [ "$index" -ge 0 ] && [ "$index" -lt "$pieces" ] 2>/dev/null ||
    die "piece $index: there are $pieces pieces"
  if [ -n "$devices" ]; then
    read -r -a list <<<"$devices"
    device=("device=${list[$(((slot - 1) % ${#list[@]}))]}")
  fi
  raw="$(piece_name "$work" "$index" yuv)"
  # the buffer's level agreed at each join
  [ -n "$start" ] && vbv=("vbv-initial-fullness=$start")
  if [ -n "$end" ] && [ "$index" -lt $((pieces - 1)) ]; then
    vbv+=("vbv-final-fullness=$end"
      "stream-frames=$(($(stat -c %s "$raw") / bytes))")
  fi
  # shellcheck disable=SC2086 # PROPS and CAPS are gst-launch fragments
  gst-launch-1.0 -q filesrc location="$raw" ! \
    rawvideoparse width="$width" height="$height" format=i420 \
    framerate="$rate" pixel-aspect-ratio="$par" \
    ${colorimetry:+colorimetry="$colorimetry"} ! \
    clmpegenc scene-cut=0 b-adapt=false ip-factor=1.4 $props "${device[@]}" "${vbv[@]}" \
    frame-offset=$((index * frames)) ! \
    $caps ! filesink location="$(piece_name "$work" "$index" mpv.part)"
  mv "$(piece_name "$work" "$index" mpv.part)" \
    "$(piece_name "$work" "$index" mpv)"
}

# join WORKDIR OUTPUT: the pieces' streams as one
join_pieces() {
  local work="$1" output="$2" i piece size pieces
  # shellcheck disable=SC1091
  . "$work/params"
  : >"$output.part"
  for ((i = 0; i < pieces; i++)); do
    piece="$(piece_name "$work" "$i" mpv)"
    [ -f "$piece" ] || die "piece $i was not coded ($piece)"
    size="$(stat -c %s "$piece")"
    # a sequence end code (00 00 01 B7) ends every piece: all but the
    # last lose it
    if [ "$i" -lt $((pieces - 1)) ] &&
      [ "$(tail -c 4 "$piece" | od -An -tx1 | tr -d ' \n')" = 000001b7 ]; then
      head -c $((size - 4)) "$piece" >>"$output.part"
    else
      cat "$piece" >>"$output.part"
    fi
  done
  mv "$output.part" "$output"
}

case "${1:-}" in
  piece)
    [ $# -ge 3 ] || die "usage: $0 piece WORKDIR INDEX [SLOT]"
    code_piece "$2" "$3" "${4:-1}"
    exit 0 ;;
  join)
    [ $# -eq 3 ] || die "usage: $0 join WORKDIR OUTPUT"
    join_pieces "$2" "$3"
    exit 0 ;;
esac

props="quantizer=4"
caps="video/mpeg"
level=""
chain="videoconvert"
frames=""
jobs=""
devices=""
logins=""
mode="parallel"
dry_run=""
work=""
while getopts "p:c:f:n:F:j:d:S:m:Dw:" opt; do
  case "$opt" in
    p) props="$OPTARG" ;;
    c) caps="$OPTARG" ;;
    f) chain="$OPTARG" ;;
    n) frames="$OPTARG" ;;
    F) level="$OPTARG" ;;
    j) jobs="$OPTARG" ;;
    d) devices="$OPTARG" ;;
    S) logins="$OPTARG" ;;
    m) mode="$OPTARG" ;;
    D) dry_run=1 ;;
    w) work="$OPTARG" ;;
    *) die "unknown option (see the usage at the top of $0)" ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || die "usage: $0 [OPTIONS] INPUT OUTPUT"
input="$1"
output="$2"
[ -r "$input" ] || die "cannot read $input"
case "$mode" in
  parallel | slurm | cut) ;;
  *) die "-m $mode: parallel, slurm or cut" ;;
esac
for tool in gst-launch-1.0 od; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done
gst-inspect-1.0 clmpegenc >/dev/null 2>&1 ||
  die "clmpegenc is not found (GST_PLUGIN_PATH=build/gst?)"

if [ -z "$work" ]; then
  [ "$mode" = parallel ] || die "-m $mode needs -w DIR"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work="$(cd "$work" && pwd)"
output="$(cd "$(dirname "$output")" && pwd)/$(basename "$output")"
rm -f "$work"/piece-*
# the VBV levels at the joins: a constant bit rate's agreed one; a
# variable rate's model (MPEG-2's at a constant quantiser too) starts full
start=""
end=""
if [ "$(prop "$props" max-bitrate 0)" != 0 ] ||
  { [ "$(prop "$props" bitrate 0)" = 0 ] && [[ "$caps" == *mpegversion=2* ]]; }; then
  end=1
elif [ "$(prop "$props" bitrate 0)" != 0 ]; then
  start="${level:-0.8}"
  end="$start"
fi
cut_input "$input" "$work" "$chain" "$frames" "$props" "$caps" "$devices" \
  "$start" "$end"
# shellcheck disable=SC1091
. "$work/params"
[ "$mode" != cut ] || exit 0

if [ "$mode" = slurm ]; then
  slurm_script="$(dirname "$self")/chunk-encode.slurm"
  array=(sbatch --parsable --array="0-$((pieces - 1))"
    --export="ALL,CHUNK_ENCODE=$self" "$slurm_script" "$work")
  if [ -n "$dry_run" ]; then
    printf '%q ' "${array[@]}"
    echo
    printf '%q ' sbatch --dependency=afterok:JOBID \
      --wrap="$(printf '%q ' "$self" join "$work" "$output")"
    echo
    exit 0
  fi
  command -v sbatch >/dev/null || die "sbatch is not installed (Slurm)"
  jobid="$("${array[@]}")"
  sbatch --dependency="afterok:$jobid" \
    --wrap="$(printf '%q ' "$self" join "$work" "$output")"
  echo "chunk-encode: array job $jobid codes $pieces pieces; the join" \
    "follows it into $output" >&2
  exit 0
fi

command -v parallel >/dev/null ||
  die "GNU parallel is not installed (apt-get install parallel)"
if [ -z "$jobs" ]; then
  read -r -a device_list <<<"$devices"
  jobs="${#device_list[@]}"
  [ "$jobs" -ge 1 ] || jobs=1
fi
remote=()
if [ -n "$logins" ]; then
  remote=(--sshlogin "$logins")
  for var in GST_PLUGIN_PATH GST_CL_DEVICE; do
    [ -n "${!var:-}" ] && remote+=(--env "$var")
  done
fi
seq 0 $((pieces - 1)) |
  parallel --will-cite --halt now,fail=1 -j "$jobs" "${remote[@]}" \
    "$(printf '%q' "$self")" piece "$(printf '%q' "$work")" '{}' '{%}'
join_pieces "$work" "$output"
echo "chunk-encode: $output from $pieces pieces" >&2

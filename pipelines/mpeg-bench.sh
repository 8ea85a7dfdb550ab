#!/usr/bin/env bash
# gst-clvideo: MPEG-1 encoder benchmark. clmpegenc against FFmpeg's
# mpeg1video (its default and its best-quality mode) and mjpegtools'
# mpeg2enc, over a sweep of quantisers on natural-looking raw input, in one
# run: frames per second, bits, PSNR-Y and the Bjontegaard delta rate of
# clmpegenc against each. Prints Markdown for docs/performance.md.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Environment (defaults in brackets):
#   BUILD_DIR               build directory with the plugin and tests/psnr [build]
#   MPEG_BENCH_SIZES        frame sizes [1920x1080 2048x2048]
#   MPEG_BENCH_FRAMES       frames per clip [12]
#   MPEG_BENCH_QUANTS       quantisers: clmpegenc quantizer, ffmpeg -qscale:v,
#                           mpeg2enc -q [3 5 8 12 20]
#   MPEG_BENCH_MPEG2ENC_QUANTS  mpeg2enc's own -q sweep [10 14 20 31]: its
#                           -q is a floor on another scale, and its bit
#                           rate tops out at 50 Mbit/s (the largest whose
#                           VBV buffer MPEG-1 can signal), which caps its
#                           low quantisers on large frames
#   MPEG_BENCH_GOP          GOP length, I and P pictures only [12]
#   MPEG_BENCH_ENCODERS     which to run [clmpegenc clmpegenc-2slices ffmpeg
#                           ffmpeg-rd mpeg2enc]; clmpegenc-2slices is
#                           clmpegenc with slices=2, the slice count of
#                           ffmpeg -threads 2 (clmpegenc's default is one
#                           slice per macroblock row)
#   MPEG_BENCH_CLMPEGENC    extra clmpegenc properties, e.g. "device=0" []
#   MPEG_BENCH_STAGE_DEBUG  GST_DEBUG for the run that collects clmpegenc's
#                           per-stage times [clmpegenc:4]
#   MPEG_BENCH_ROUNDS       rounds of the timing once started [5]
#   MPEG_BENCH_WORK         work directory, kept when given [a temporary one]
#
# Every encoder reads the same y4m file (from the page cache after the first
# run) and writes an elementary stream; time is wall time of the whole
# command. clmpegenc codes the clip once, untimed, before its timed runs:
# the kernels are then built and in the caches, as on any machine that
# has run it before. Streams are decoded with ffmpeg and compared with the source by
# tests/psnr (mean of per-frame PSNR-Y), and checked by tests/mpegcheck
# (structure, and the VBV model when the stream has a bit rate). Each
# encoder also codes the clip played four times at the middle quantiser:
# the three extra plays over the extra time give its rate once started,
# without the start-up that weighs on short clips. That is timed in
# rounds, each encoder's clip and long clip one after the other in every
# round, the encoders in turn: a machine whose speed drifts (a shared
# virtual one) then weighs on every encoder of a round alike. Reported:
# the median over the rounds of each encoder's rate, and of its ratio to
# FFmpeg's default in the same round, with the least and the most.
# The per-stage lines are clmpegenc's own: every debug line of the element
# that contains "stage" is printed as it is.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=pipelines/mpeg-common.sh
. "$root/pipelines/mpeg-common.sh"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
sizes="${MPEG_BENCH_SIZES:-1920x1080 2048x2048}"
frames="${MPEG_BENCH_FRAMES:-12}"
quants="${MPEG_BENCH_QUANTS:-3 5 8 12 20}"
m2quants="${MPEG_BENCH_MPEG2ENC_QUANTS:-10 14 20 31}"
gop="${MPEG_BENCH_GOP:-12}"
rounds="${MPEG_BENCH_ROUNDS:-5}"
encoders="${MPEG_BENCH_ENCODERS:-clmpegenc clmpegenc-2slices ffmpeg ffmpeg-rd mpeg2enc}"
clprops="${MPEG_BENCH_CLMPEGENC:-}"
stage_debug="${MPEG_BENCH_STAGE_DEBUG:-clmpegenc:4}"
psnr="$build/tests/psnr"
mpegcheck="$build/tests/mpegcheck"

die() {
  echo "mpeg-bench: $*" >&2
  exit 1
}

for tool in ffmpeg python3; do
  command -v "$tool" >/dev/null || die "$tool is not installed (pipelines/setup.sh installs it)"
done
[ -x "$psnr" ] && [ -x "$mpegcheck" ] ||
  die "no $psnr or $mpegcheck: build $build with tests enabled (ninja -C $build)"

export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
run_list=""
for enc in $encoders; do
  case "$enc" in
    clmpegenc | clmpegenc-2slices)
      if ! gst-inspect-1.0 clmpegenc >/dev/null 2>&1; then
        echo "mpeg-bench: clmpegenc is not in $build/gst: left out" >&2
        continue
      fi ;;
    ffmpeg | ffmpeg-rd) ;;
    mpeg2enc)
      if ! command -v mpeg2enc >/dev/null; then
        echo "mpeg-bench: mpeg2enc (mjpegtools) is not installed: left out" >&2
        continue
      fi ;;
    *) die "unknown encoder $enc" ;;
  esac
  run_list="$run_list $enc"
done
[ -n "$run_list" ] || die "no encoder to run"

if [ -n "${MPEG_BENCH_WORK:-}" ]; then
  work="$MPEG_BENCH_WORK"
  mkdir -p "$work"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
results="$work/results.tsv"
printf 'size encoder q frames seconds fps bits psnr_y psnr_u psnr_v check\n' >"$results"
steadyruns="$work/steadyruns.tsv"
: >"$steadyruns"
# the quantisers encoder $1 sweeps, and the middle one of a list
sweep_of() {
  if [ "$1" = mpeg2enc ]; then echo "$m2quants"; else echo "$quants"; fi
}
middle_of() {
  # shellcheck disable=SC2086
  set -- $1
  eval echo "\${$((($# + 1) / 2))}"
}
mid="$(middle_of "$quants")"

now() { date +%s.%N; }

# Encodes $src with encoder $1 at quantiser $2 into $3.
encode() {
  # shellcheck disable=SC2086
  mpeg_encode "$1" "$2" "$gop" "$src" "$3" $clprops
}

for size in $sizes; do
  w="${size%x*}"
  h="${size#*x}"
  src="$work/src-$size.y4m"
  if [ ! -s "$src" ]; then
    # natural-looking motion: a zooming fractal averaged with a moving test
    # pattern, and film-like noise; no long header fields (y4mdec takes
    # header lines of at most 80 bytes)
    ffmpeg -nostdin -v error -f lavfi -i "mandelbrot=size=$size:rate=25" \
      -f lavfi -i "testsrc2=size=$size:rate=25" -filter_complex \
      "[0:v][1:v]blend=all_mode=average,noise=alls=5:allf=t,format=yuv420p" \
      -frames:v "$frames" -color_range unspecified -f yuv4mpegpipe -y "$src" ||
      die "cannot make the $size source"
  fi
  # the clip played four times, for the rate once started
  long_clip="$work/long-$size.y4m"
  [ -s "$long_clip" ] || ffmpeg -nostdin -v error -stream_loop 3 -i "$src" \
    -color_range unspecified -f yuv4mpegpipe -y "$long_clip"
  for enc in $run_list; do
    # not timed: a first run builds what later ones find in the kernel
    # caches (POCL's and clmpegenc's binaries, gst/cl/gstclbinarycache-private.h),
    # which on a fresh machine takes seconds
    case "$enc" in
      clmpegenc*) encode "$enc" "$mid" "$work/warm-up.m1v" >/dev/null 2>&1 ||
        die "$enc failed on the $size clip" ;;
    esac
    for q in $(sweep_of "$enc"); do
      out="$work/$enc-$size-q$q.m1v"
      t0="$(now)"
      encode "$enc" "$q" "$out" || die "$enc failed at q=$q on $size"
      t1="$(now)"
      bits=$(($(stat -c %s "$out") * 8))
      quality="$(mpeg_quality "$psnr" "$src" "$out")" ||
        die "$enc at q=$q on $size: decoding or PSNR failed: $quality"
      if "$mpegcheck" --quiet --no-end-code --pictures "$frames" \
        --size "$size" "$out" >"$out.check"; then
        check=pass
      else
        check=FAIL
      fi
      python3 - "$size" "$enc" "$q" "$frames" "$t0" "$t1" "$bits" \
        "$quality" "$check" >>"$results" <<'EOF'
import sys
size, enc, q, frames, t0, t1, bits, quality, check = sys.argv[1:]
f = dict(kv.split("=") for kv in quality.split())
secs = float(t1) - float(t0)
print(size, enc, q, frames, "%.3f" % secs, "%.2f" % (int(frames) / secs),
      bits, f["y"], f["u"], f["v"], check)
EOF
    done
  done
  # the rate once started, at each sweep's middle quantiser: what the long
  # clip takes more than the clip is the time of the extra frames alone
  for round in $(seq "$rounds"); do
    for enc in $run_list; do
      q="$(middle_of "$(sweep_of "$enc")")"
      t0="$(now)"
      encode "$enc" "$q" "$work/short.m1v" || die "$enc failed on $size"
      t1="$(now)"
      src="$long_clip" encode "$enc" "$q" "$work/long.m1v" ||
        die "$enc failed on the long $size clip"
      t2="$(now)"
      echo "$size $enc $q $round $t0 $t1 $t2" >>"$steadyruns"
    done
  done
done

# the tables
device="$(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: *//p' | head -n 1)"
echo "### MPEG-1 encoders: $frames frames per clip, GOP $gop (I and P), $(nproc) CPU threads${device:+, OpenCL device: $device}"
echo
python3 - "$results" "$steadyruns" "$frames" <<'EOF'
import statistics
import sys
rows = [l.split() for l in open(sys.argv[1])][1:]
frames = int(sys.argv[3])
# per size and round, each encoder's rate once started: the three extra
# plays over the extra time
rates, steady_q = {}, {}
for line in open(sys.argv[2]):
    size, enc, q, rnd, t0, t1, t2 = line.split()
    extra = (float(t2) - float(t1)) - (float(t1) - float(t0))
    steady_q[(size, enc)] = q
    rates.setdefault((size, rnd), {})[enc] = (
        3 * frames / extra if extra > 0 else None)
print("| size | encoder | q | fps | kbit/picture | PSNR-Y dB | PSNR-U/V dB | mpegcheck |")
print("|---|---|---|---|---|---|---|---|")
for size, enc, q, frames, secs, fps, bits, y, u, v, check in rows:
    print("| %s | %s | %s | %s | %.0f | %.2f | %.2f / %.2f | %s |" % (
        size, enc, q, fps, int(bits) / int(frames) / 1000, float(y),
        float(u), float(v), check))
print()
# speed at equal settings, against FFmpeg's default in the same run
speed = {}
for size, enc, q, frames, secs, fps, *_ in rows:
    s = speed.setdefault((size, enc), [0, 0.0])
    s[0] += int(frames)
    s[1] += float(secs)
# medians over the rounds: of the rate, and of the ratio to FFmpeg's
# default in the same round (with the least and the most)
steady, ratio = {}, {}
for (size, rnd), by_enc in rates.items():
    ref = by_enc.get("ffmpeg")
    for enc, r in by_enc.items():
        if r is None:
            continue
        steady.setdefault((size, enc), []).append(r)
        if ref:
            ratio.setdefault((size, enc), []).append(r / ref)
print("| size | encoder | fps, whole runs | fps once started (q) | "
      "once started / ffmpeg default (least - most) |")
print("|---|---|---|---|---|")
for (size, enc), (n, secs) in sorted(speed.items()):
    st, rt = steady.get((size, enc)), ratio.get((size, enc))
    print("| %s | %s | %.2f | %s | %s |" % (
        size, enc, n / secs,
        "%.2f (%s)" % (statistics.median(st), steady_q[(size, enc)])
        if st else "n/a",
        "%.2f (%.2f - %.2f)" % (statistics.median(rt), min(rt), max(rt))
        if rt else "n/a"))
print()
print("(once started: medians over %d rounds, in each the clip and the clip "
      "played four times by every encoder in turn)" % len(
          {rnd for (_, rnd) in rates}))
EOF
# what mpegcheck found, first error of each encoder and size
for size in $sizes; do
  for enc in $run_list; do
    for q in $quants $m2quants; do
      f="$work/$enc-$size-q$q.m1v.check"
      if [ -s "$f" ]; then
        echo "mpegcheck on $enc, $size, q=$q: $(head -n 1 "$f")"
        break
      fi
    done
  done
done
echo
test_enc=clmpegenc
case " $run_list " in
  *" clmpegenc "*) ;;
  *)
    test_enc=ffmpeg
    echo "(clmpegenc not run: BD-rate of FFmpeg's default against the others instead)"
    echo ;;
esac
python3 "$root/pipelines/bdrate.py" "$results" --test "$test_enc"
case " $run_list " in
  *" clmpegenc-2slices "*)
    anchors=""
    for enc in $run_list; do
      case "$enc" in clmpegenc*) ;; *) anchors="$anchors --anchor $enc" ;; esac
    done
    if [ -n "$anchors" ]; then
      echo
      # shellcheck disable=SC2086
      python3 "$root/pipelines/bdrate.py" "$results" \
        --test clmpegenc-2slices $anchors
    fi ;;
esac

# clmpegenc's per-stage times, from one more run at the middle quantiser
case " $run_list " in
  *" clmpegenc "*)
    for size in $sizes; do
      src="$work/src-$size.y4m"
      echo
      echo "clmpegenc per-stage times, $size, quantizer $mid:"
      GST_DEBUG="$stage_debug" GST_DEBUG_NO_COLOR=1 \
        encode clmpegenc "$mid" "$work/stages.m1v" 2>&1 |
        grep -i 'stage' | sed 's/^/    /' ||
        echo "    (no debug line with \"stage\" in it)"
    done ;;
esac
if [ -n "${MPEG_BENCH_WORK:-}" ]; then
  echo
  echo "results: $results"
fi

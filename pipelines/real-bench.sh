#!/usr/bin/env bash
# gst-clvideo: MPEG-1 (or MPEG-2) quality on real content. clmpegenc
# against FFmpeg's mpeg1video (mpeg2video), its default and its best
# settings, on every clip of the real-content set (pipelines/real-clips.sh),
# over a sweep of quantisers: the Bjontegaard delta rate of clmpegenc per
# clip and the mean, as Markdown.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: pipelines/real-bench.sh [DIR]
#   DIR  the clips [${XDG_CACHE_HOME:-~/.cache}/gst-clvideo/clips]; the
#        missing ones of the set are made first (real-clips.sh DIR)
#
# Environment (defaults in brackets):
#   BUILD_DIR             build directory with the plugin and the tests [build]
#   REAL_BENCH_CLIPS      names of the clips to run, without .y4m [every
#                         .y4m file of DIR, smallest frame size first]
#   REAL_BENCH_FRAMES     frames of each clip, from its start [60]
#   REAL_BENCH_QUANTS     quantisers: clmpegenc quantizer, ffmpeg -qscale:v
#                         [3 5 8 12]
#   REAL_BENCH_GOP        GOP length [12]
#   REAL_BENCH_CLMPEGENC  extra clmpegenc properties, e.g. "slices=2" []
#   REAL_BENCH_ENCODERS   the clmpegenc variants to run (mpeg-common.sh),
#                         e.g. "clmpegenc-ultrafast clmpegenc-slow"
#                         [clmpegenc]; each gets its table, and with more
#                         than one a summary follows
#   REAL_BENCH_WORK       work directory, kept when given [a temporary one]
#   MPEG_VERSION          2: MPEG-2, clmpegenc's and FFmpeg's mpeg2video [1]
#   MPEG_B_FRAMES         B pictures between anchors, every encoder [0]
#   MPEG_UPSTREAM_SEARCH  1: clmpegenc behind clmotionsearch, taking its
#                         vectors (the chain) [0]
#   MPEG_INTERLACED       1: interlaced clips, each frame woven from two of
#                         the clip's (mpeg-common.sh), with MPEG_VERSION=2 [0]
#
# Encoders (pipelines/mpeg-common.sh): clmpegenc with its defaults;
# "ffmpeg", FFmpeg's mpeg1video with its defaults (-bf 0 -g GOP -qscale:v
# Q -threads 2); "ffmpeg-best", the same with -mbd rd -trellis 1 -cmp rd
# -subcmp rd -last_pred 3 -dia_size 2. Every encoder reads the same y4m
# file: the clip's first frames, relabelled to 25 fps where the clip's
# rate is not one MPEG-1 can signal (the frames are the same; with a
# constant quantiser the rate changes nothing else). Streams are decoded
# with FFmpeg and compared with the source by tests/psnr (mean of the
# per-frame PSNR-Y); every clmpegenc stream must pass tests/mpegcheck,
# macroblocks included, else the script fails after the tables. Speed is
# not its aim (see mpeg-bench.sh): each encoder's total time over the
# sweep is given against FFmpeg's default in the same run, the encoders
# taking turns at each quantiser. clmpegenc codes two frames of each
# clip, untimed, first (its kernels then come from the caches).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=pipelines/mpeg-common.sh
. "$root/pipelines/mpeg-common.sh"
mpeg_dirs "$root" "${1:-}"
frames="${REAL_BENCH_FRAMES:-60}"
quants="${REAL_BENCH_QUANTS:-3 5 8 12}"
gop="${REAL_BENCH_GOP:-12}"
clprops="${REAL_BENCH_CLMPEGENC:-}"
variants="${REAL_BENCH_ENCODERS:-clmpegenc}"
for enc in $variants; do
  case "$enc" in
    clmpegenc | clmpegenc-*) ;;
    *) die "REAL_BENCH_ENCODERS: $enc is not a clmpegenc variant" ;;
  esac
done
encoders="$variants ffmpeg ffmpeg-best"
psnr="$build/tests/psnr"
mpegcheck="$build/tests/mpegcheck"

die() {
  echo "real-bench: $*" >&2
  exit 1
}

for tool in ffmpeg python3 gst-launch-1.0; do
  command -v "$tool" >/dev/null || die "$tool is not installed (pipelines/setup.sh installs it)"
done
if [ ! -x "$psnr" ] || [ ! -x "$mpegcheck" ]; then
  die "no $psnr or $mpegcheck: build $build with tests enabled (ninja -C $build)"
fi
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-inspect-1.0 clmpegenc >/dev/null 2>&1 || die "clmpegenc is not in $build/gst"
"$root/pipelines/real-clips.sh" "$dir" ||
  die "cannot make the clips in $dir (pipelines/real-clips.sh)"

if [ -n "${REAL_BENCH_WORK:-}" ]; then
  work="$REAL_BENCH_WORK"
  mkdir -p "$work"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi

# the clips, smallest frame size first
if [ -n "${REAL_BENCH_CLIPS:-}" ]; then
  names="$REAL_BENCH_CLIPS"
else
  names="$(for f in "$dir"/*.y4m; do
    [ -e "$f" ] || continue
    read -r magic w h _ <"$f"
    if [ "$magic" = YUV4MPEG2 ]; then
      echo "$((${w#W} * ${h#H})) $(basename "$f" .y4m)"
    fi
  done | sort -k1,1n -k2 | cut -d' ' -f2)"
fi
[ -n "$names" ] || die "no y4m clips in $dir"

now() { date +%s.%N; }

results="$work/results.tsv"
printf 'clip wxh encoder q frames seconds bits psnr_y psnr_u psnr_v\n' >"$results"
failed="$work/mpegcheck-failures.txt"
: >"$failed"
relabelled=""
for name in $names; do
  clip="$dir/$name.y4m"
  [ -s "$clip" ] || die "no clip $clip"
  # the clip's first frames, as every encoder reads them
  src="$work/$name.y4m"
  read -r w h n rate < <(mpeg_cut_clip "$clip" "$frames" "$src") ||
    die "cannot cut $clip"
  [ "$rate" = - ] || relabelled="$relabelled $name ($rate)"
  ffmpeg -nostdin -v error -i "$src" -frames:v 2 -f yuv4mpegpipe \
    -y "$work/warm-up.y4m" || die "cannot cut $src"
  # shellcheck disable=SC2086
  mpeg_encode clmpegenc 5 "$gop" "$work/warm-up.y4m" "$work/warm-up.m1v" \
    $clprops >/dev/null 2>&1 || die "clmpegenc failed on $name"
  echo "real-bench: $name, $n frames of ${w}x$h" >&2
  for q in $quants; do
    for enc in $encoders; do
      out="$work/$name-$enc-q$q.m1v"
      props=""
      case "$enc" in clmpegenc*) props="$clprops" ;; esac
      t0="$(now)"
      # shellcheck disable=SC2086
      mpeg_encode "$enc" "$q" "$gop" "$src" "$out" $props ||
        die "$enc failed at q=$q on $name"
      t1="$(now)"
      quality="$(mpeg_quality "$psnr" "$src" "$out")" ||
        die "$enc at q=$q on $name: decoding or PSNR failed: $quality"
      if [ "${enc#clmpegenc}" != "$enc" ] && ! "$mpegcheck" --quiet \
        --pictures "$n" --size "${w}x$h" "$out" >"$out.check" 2>&1; then
        echo "$enc, $name q=$q: $(head -n 1 "$out.check")" >>"$failed"
        echo "real-bench: MPEGCHECK FAILED on $enc, $name, q=$q:" >&2
        head -n 5 "$out.check" >&2
      fi
      y="" u="" v=""
      for kv in $quality; do
        case "$kv" in
          y=*) y="${kv#y=}" ;;
          u=*) u="${kv#u=}" ;;
          v=*) v="${kv#v=}" ;;
        esac
      done
      secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
      echo "$name ${w}x$h $enc $q $n $secs $(($(stat -c %s "$out") * 8))" \
        "$y $u $v" >>"$results"
    done
  done
  # the cut clip is large (up to 3 MB a 1080p frame); keep it only in a
  # work directory that was asked for
  [ -n "${REAL_BENCH_WORK:-}" ] || rm -f "$src" "$work/$name"-*.m1v
done

# the tables
device="$(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: *//p' | head -n 1)"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || true)"
codec=mpeg1video
[ "${MPEG_VERSION:-1}" = 2 ] && codec=mpeg2video
structure="I and P"
[ "${MPEG_B_FRAMES:-0}" -gt 0 ] && structure="I, P and ${MPEG_B_FRAMES} B pictures between anchors, every encoder"
[ "${MPEG_UPSTREAM_SEARCH:-0}" = 1 ] && structure="$structure; clmpegenc behind clmotionsearch"
[ "${MPEG_INTERLACED:-0}" = 1 ] && structure="$structure; interlaced frames, each woven from two of the clip, FFmpeg with -flags +ildct+ilme -top 1"
echo "### Real-content set, MPEG-${MPEG_VERSION:-1}: up to $frames frames a clip, GOP $gop ($structure), quantisers ${quants// /, }"
echo
echo "clmpegenc${clprops:+ ($clprops)}${commit:+ as of commit $commit}${device:+, OpenCL device: $device};" \
  "$(ffmpeg -version | head -n 1 | cut -d' ' -f1-3)'s $codec; $(nproc) CPU threads, $(date -u +%Y-%m-%d)."
[ -z "$relabelled" ] || echo "Relabelled to 25 fps:$relabelled."
echo
python3 - "$root/pipelines" "$results" "$failed" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import bdrate  # noqa: E402  (pipelines/bdrate.py)

rows = bdrate.read_results(sys.argv[2])
failures = [l for l in open(sys.argv[3]) if l.strip()]
anchors = ["ffmpeg", "ffmpeg-best"]
tests = []
clips, info, curves, secs, points = [], {}, {}, {}, {}
for r in rows:
    c, enc = r["clip"], r["encoder"]
    if c not in info:
        clips.append(c)
        info[c] = (r["wxh"], r["frames"])
    if enc.startswith("clmpegenc") and enc not in tests:
        tests.append(enc)
    curves.setdefault(c, {}).setdefault(enc, []).append(
        (float(r["bits"]), float(r["psnr_y"])))
    secs[(c, enc)] = secs.get((c, enc), 0.0) + float(r["seconds"])
    points.setdefault((c, enc), []).append(
        (int(r["q"]), float(r["bits"]) / int(r["frames"]) / 1000,
         float(r["psnr_y"])))


def fmt(v):
    return "n/a" if v is None else "%+.1f%%" % v


bd = {}
for test in tests:
    for c in clips:
        for a in anchors:
            for m in ("pchip", "cubic"):
                bd[(test, c, a, m)] = bdrate.bd_rate(curves[c][a],
                                                     curves[c][test], m)


def mean(test, a, m):
    vals = [bd[(test, c, a, m)] for c in clips]
    return None if None in vals else sum(vals) / len(vals)


def total(e):
    return sum(secs[(c, e)] for c in clips)


def verdict(ok):
    return "met" if ok else "NOT met"


def below_best(test):
    best = [bd[(test, c, "ffmpeg-best", "pchip")] for c in clips]
    return sum(1 for v in best if v is not None and v < 0)


for test in tests:
    if len(tests) > 1:
        print("#### %s" % test)
        print()
    print("| clip | size | frames | BD-rate against ffmpeg default "
          "(pchip / cubic) | against ffmpeg-best | encode time / ffmpeg "
          "default: %s | ffmpeg-best |" % test)
    print("|---|---|---|---|---|---|---|")
    for c in clips:
        print("| %s | %s | %s | %s | %s | %.2f | %.2f |" % (
            c, info[c][0], info[c][1],
            *("%s / %s" % (fmt(bd[(test, c, a, "pchip")]),
                           fmt(bd[(test, c, a, "cubic")]))
              for a in anchors),
            *(secs[(c, e)] / secs[(c, "ffmpeg")]
              for e in (test, "ffmpeg-best"))))
    print("| **mean** (%d clip%s) | | | **%s / %s** | **%s / %s** | %.2f | "
          "%.2f |" % (
              len(clips), "s"[:len(clips) - 1],
              *(fmt(mean(test, a, m)) for a in anchors
                for m in ("pchip", "cubic")),
              total(test) / total("ffmpeg"),
              total("ffmpeg-best") / total("ffmpeg")))
    print()
    print("(times: the whole sweep of each clip; the mean row: all clips' "
          "total)")
    print()
    mb, md = mean(test, "ffmpeg-best", "pchip"), mean(test, "ffmpeg", "pchip")
    negative = below_best(test)
    print("Goals (pchip): against ffmpeg-best negative on every clip (%d of "
          "%d) and at most -5%% on the mean (%s): %s; against ffmpeg default "
          "at most -15%% on the mean (%s): %s." % (
              negative, len(clips), fmt(mb),
              verdict(negative == len(clips) and mb is not None and mb <= -5),
              fmt(md), verdict(md is not None and md <= -15)))
    print()
if len(tests) > 1:
    print("| encoder | mean BD-rate against ffmpeg default (pchip) | against "
          "ffmpeg-best | clips below ffmpeg-best | encode time / ffmpeg "
          "default |")
    print("|---|---|---|---|---|")
    for test in tests:
        print("| %s | %s | %s | %d of %d | %.2f |" % (
            test, fmt(mean(test, "ffmpeg", "pchip")),
            fmt(mean(test, "ffmpeg-best", "pchip")), below_best(test),
            len(clips), total(test) / total("ffmpeg")))
    print()
n_streams = sum(len(curves[c][t]) for c in clips for t in tests)
if failures:
    print("mpegcheck: **%d of %d clmpegenc streams FAIL**: %s" % (
        len(failures), n_streams, "; ".join(l.strip() for l in failures)))
else:
    print("mpegcheck (macroblocks included): all %d clmpegenc streams "
          "pass." % n_streams)
print()
quants = sorted({q for pts in points.values() for q, _, _ in pts})
print("Points, kbit/picture @ PSNR-Y dB:")
print()
print("| clip | encoder | %s |" % " | ".join("q=%d" % q for q in quants))
print("|---|---|%s" % ("---|" * len(quants)))
for c in clips:
    for e in tests + anchors:
        by_q = {q: (k, p) for q, k, p in points[(c, e)]}
        print("| %s | %s | %s |" % (c, e, " | ".join(
            "%.1f @ %.2f" % by_q[q] if q in by_q else "" for q in quants)))
EOF
if [ -s "$failed" ]; then
  echo >&2
  echo "real-bench: $(wc -l <"$failed") clmpegenc stream(s) FAILED mpegcheck:" >&2
  cat "$failed" >&2
  exit 1
fi

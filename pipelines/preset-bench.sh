#!/usr/bin/env bash
# gst-clvideo: the speed of clmpegenc's speed presets against FFmpeg's
# mpeg1video with its defaults, on real footage, in one run: each
# encoder's rate once started and its ratio to FFmpeg's in the same round,
# on all the CPUs and on one. Prints Markdown for docs/performance.md.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: pipelines/preset-bench.sh [DIR]
#   DIR  the real-content clips [${XDG_CACHE_HOME:-~/.cache}/gst-clvideo/clips];
#        the missing ones are made first (real-clips.sh DIR)
#
# Environment (defaults in brackets):
#   BUILD_DIR             build directory with the plugin [build]
#   PRESET_BENCH_CLIPS    clips of DIR, without .y4m [driving_1920x1080
#                         jellyfish_1920x1080]
#   PRESET_BENCH_FRAMES   frames of each clip, from its start [48]
#   PRESET_BENCH_PRESETS  [ultrafast veryfast fast medium slow]
#   PRESET_BENCH_PEERS    FFmpeg's other settings of mpeg-common.sh timed
#                         beside its defaults, each with a column of ratios
#                         (ffmpeg-rd, ffmpeg-best) [none]
#   PRESET_BENCH_QUANT    quantiser of every encoder [8]
#   PRESET_BENCH_GOP      GOP length [12]
#   MPEG_B_FRAMES         B pictures between anchors, in every encoder
#                         (FFmpeg -bf) [0: I and P pictures only]
#   MPEG_VERSION          2: MPEG-2, FFmpeg's mpeg2video [1]
#   PRESET_BENCH_ROUNDS   rounds [5]
#   PRESET_BENCH_CPUS     CPU sets: "all" (every CPU; FFmpeg with as many
#                         threads) and N (CPUs 0 to N-1, taskset, for every
#                         encoder; FFmpeg with N threads) ["all 1"]
#   PRESET_BENCH_PROFILE  1: after the rounds, each encoder once more on
#                         every CPU under perf (linux-perf), and a table of
#                         its CPU time a frame once started, by part: the
#                         kernels (search, macroblocks, the others), the
#                         encoder's host code (FFmpeg: libavcodec), the
#                         OS and libc, the rest; and the CPU time a frame
#                         that FFmpeg's rate and twice it leave on every
#                         CPU [0]
#
# The rate once started: each encoder codes the clip, then the clip played
# four times; the three extra plays over the extra time give its rate
# without the start-up (pipeline, device context, kernels from the
# caches). Each round runs every encoder in turn, so that a machine whose
# speed drifts (a shared virtual one) weighs on all of them alike; the
# tables give the median over the rounds of each rate and of its ratio to
# FFmpeg's default in the same round, with the least and the most. Every
# encoder reads the same y4m file through the page cache; clmpegenc reads
# it with filesrc (a MiB a buffer) and y4mdec, FFmpeg with its own
# demuxer. Compression of the same presets: real-bench.sh with
# REAL_BENCH_ENCODERS.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=pipelines/mpeg-common.sh
. "$root/pipelines/mpeg-common.sh"
mpeg_dirs "$root" "${1:-}"
clips="${PRESET_BENCH_CLIPS:-driving_1920x1080 jellyfish_1920x1080}"
frames="${PRESET_BENCH_FRAMES:-48}"
presets="${PRESET_BENCH_PRESETS:-ultrafast veryfast fast medium slow}"
peers="${PRESET_BENCH_PEERS:-}"
q="${PRESET_BENCH_QUANT:-8}"
gop="${PRESET_BENCH_GOP:-12}"
rounds="${PRESET_BENCH_ROUNDS:-5}"
cpu_sets="${PRESET_BENCH_CPUS:-all 1}"

die() {
  echo "preset-bench: $*" >&2
  exit 1
}

for tool in ffmpeg python3 gst-launch-1.0 taskset; do
  command -v "$tool" >/dev/null || die "$tool is not installed (pipelines/setup.sh installs it)"
done
profile="${PRESET_BENCH_PROFILE:-0}"
if [ "$profile" = 1 ]; then
  perf record -q -o /dev/null -- true 2>/dev/null ||
    die "PRESET_BENCH_PROFILE=1 needs perf, allowed to record this user's processes (apt-get install linux-perf; kernel.perf_event_paranoid at most 2)"
fi
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-inspect-1.0 clmpegenc >/dev/null 2>&1 || die "clmpegenc is not in $build/gst"
"$root/pipelines/real-clips.sh" "$dir" ||
  die "cannot make the clips in $dir (pipelines/real-clips.sh)"
for peer in $peers; do
  case "$peer" in
    ffmpeg-rd | ffmpeg-best) ;;
    *) die "PRESET_BENCH_PEERS: $peer is not one of ffmpeg-rd, ffmpeg-best" ;;
  esac
done
encoders="ffmpeg $peers"
for p in $presets; do
  encoders="$encoders clmpegenc-$p"
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
runs="$work/runs.tsv"
parts="$work/parts.tsv"
: >"$runs"
: >"$parts"
# samples a second of perf's CPU clock
perf_rate=2000
now() { date +%s.%N; }

# encode ENCODER CPUS SRC OUT: ENCODER (mpeg-common.sh) on CPU set CPUS
# (prof: every CPU, under perf, its samples into OUT.perf)
encode() {
  local enc="$1" cpus="$2" src="$3" out="$4" threads wrap
  case "$cpus" in
    all)
      MPEG_FFMPEG_THREADS="$(nproc)" mpeg_encode "$enc" "$q" "$gop" "$src" \
        "$out"
      return ;;
    prof) threads="$(nproc)" wrap=(perf record -q -F "$perf_rate" -o "$out.perf" --) ;;
    *) threads="$cpus" wrap=(taskset -c "0-$((cpus - 1))") ;;
  esac
  MPEG_FFMPEG_THREADS="$threads" "${wrap[@]}" bash -c '. "$0"; mpeg_encode "$@"' \
    "$root/pipelines/mpeg-common.sh" "$enc" "$q" "$gop" "$src" "$out"
}

sizes=""
for name in $clips; do
  [ -s "$dir/$name.y4m" ] || die "no clip $dir/$name.y4m"
  src="$work/$name.y4m"
  read -r w h n _ < <(mpeg_cut_clip "$dir/$name.y4m" "$frames" "$src") ||
    die "cannot cut $dir/$name.y4m"
  sizes="$sizes $name=${w}x$h:$n"
  long="$work/$name-long.y4m"
  ffmpeg -nostdin -v error -stream_loop 3 -i "$src" -color_range unspecified \
    -f yuv4mpegpipe -y "$long" || die "cannot loop $src"
  # not timed: the kernels are then in the caches, as on any machine that
  # has run clmpegenc before
  encode clmpegenc all "$src" "$work/warm-up.m1v" >/dev/null 2>&1 ||
    die "clmpegenc failed on $name"
  for cpus in $cpu_sets; do
    for round in $(seq "$rounds"); do
      echo "preset-bench: $name, ${w}x$h, $n frames, CPUs $cpus, round $round" >&2
      for enc in $encoders; do
        t0="$(now)"
        encode "$enc" "$cpus" "$src" "$work/short.m1v" ||
          die "$enc failed on $name"
        t1="$(now)"
        encode "$enc" "$cpus" "$long" "$work/long.m1v" ||
          die "$enc failed on the long $name"
        t2="$(now)"
        echo "$name $cpus $enc $round $n $t0 $t1 $t2" >>"$runs"
      done
    done
  done
  if [ "$profile" = 1 ]; then
    echo "preset-bench: $name, ${w}x$h, $n frames, under perf" >&2
    for enc in $encoders; do
      for play in short long; do
        from="$src"
        [ "$play" = long ] && from="$long"
        encode "$enc" prof "$from" "$work/$play.m1v" ||
          die "$enc failed on $name under perf"
        # samples by shared object: lines "CLIP ENCODER PLAY FRAMES SAMPLES
        # OBJECT"
        perf report -i "$work/$play.m1v.perf" --no-children --sort dso \
          -F sample,dso --stdio 2>/dev/null | grep -v '^#' |
          awk -v k="$name $enc $play $n" 'NF >= 2 { print k, $1, $2 }' \
          >>"$parts"
      done
    done
  fi
  rm -f "$src" "$long"
done

b_frames="${MPEG_B_FRAMES:-0}"
codec=mpeg1video
[ "${MPEG_VERSION:-1}" = 2 ] && codec=mpeg2video
if [ "$b_frames" = 0 ]; then
  pictures="I and P"
else
  pictures="$b_frames B pictures between anchors"
fi
echo "### Speed presets: $frames frames a clip (played once and four times), quantiser $q, GOP $gop ($pictures)"
echo
echo "clmpegenc as of commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')," \
  "OpenCL device: $(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: *//p' | head -n 1);" \
  "$(ffmpeg -version | head -n 1 | cut -d' ' -f1-3)'s $codec; $(nproc) CPU threads, $(date -u +%Y-%m-%d)," \
  "$rounds rounds."
echo
# shellcheck disable=SC2086 # one argument a peer
python3 - "$runs" "$sizes" $peers <<'EOF'
import statistics
import sys

sizes = dict(s.split("=", 1) for s in sys.argv[2].split())
anchors = ["ffmpeg"] + sys.argv[3:]
names = {"ffmpeg": "FFmpeg default", "ffmpeg-rd": "FFmpeg rd",
         "ffmpeg-best": "FFmpeg best"}
rates, order = {}, []
for line in open(sys.argv[1]):
    name, cpus, enc, rnd, n, t0, t1, t2 = line.split()
    extra = (float(t2) - float(t1)) - (float(t1) - float(t0))
    rates.setdefault((name, cpus, rnd), {})[enc] = (
        3 * int(n) / extra if extra > 0 else None)
    if (name, cpus, enc) not in order:
        order.append((name, cpus, enc))
print("| clip | CPUs | encoder | fps once started | " + " | ".join(
    "/ %s (least - most)" % names[a] for a in anchors) + " |")
print("|---|---|---|---|" + "---|" * len(anchors))
for name, cpus, enc in order:
    fps, ratios = [], {a: [] for a in anchors}
    for (c, k, _), by_enc in rates.items():
        if (c, k) != (name, cpus) or by_enc.get(enc) is None:
            continue
        fps.append(by_enc[enc])
        for a in anchors:
            if by_enc.get(a):
                ratios[a].append(by_enc[enc] / by_enc[a])
    print("| %s (%s) | %s | %s | %s | %s |" % (
        name, sizes[name].split(":")[0], cpus, enc,
        "%.1f" % statistics.median(fps) if fps else "n/a",
        " | ".join("%.2f (%.2f - %.2f)" % (
            statistics.median(ratios[a]), min(ratios[a]), max(ratios[a]))
            if ratios[a] else "n/a" for a in anchors)))
EOF

[ "$profile" = 1 ] || exit 0
echo
echo "CPU time a frame once started (ms; the clip played four times less once, under perf at $perf_rate samples a second), by part; FFmpeg's rate: its median above on every CPU:"
echo
python3 - "$parts" "$runs" "$(nproc)" "$perf_rate" <<'EOF'
import collections
import statistics
import sys

cpus, rate = int(sys.argv[3]), int(sys.argv[4])
PARTS = ["search kernels", "macroblock kernel", "other kernels",
         "encoder's host code", "OS and libc", "the rest"]


def part(obj):
    name = obj.rsplit("/", 1)[-1]
    # POCL names the object of a kernel's build after the kernel
    if name.startswith("motion_"):
        return PARTS[0]
    if name.startswith(("mpeg_encode_mb", "mpeg_transform_mb",
                        "mpeg_trellis")):
        return PARTS[1]
    if name.startswith("mpeg_"):
        return PARTS[2]
    if name.startswith(("libgstclvideo", "libgstcl-", "libavcodec")):
        return PARTS[3]
    if name in ("[kernel.kallsyms]", "[vdso]") or name.startswith("libc."):
        return PARTS[4]
    return PARTS[5]


samples = collections.defaultdict(collections.Counter)
frames = {}
order = []
for line in open(sys.argv[1]):
    name, enc, play, n, count, obj = line.split(None, 5)
    samples[(name, enc, play)][part(obj.strip())] += int(count)
    frames[name] = int(n)
    if (name, enc) not in order:
        order.append((name, enc))
ff_rates = collections.defaultdict(list)
for line in open(sys.argv[2]):
    name, c, enc, rnd, n, t0, t1, t2 = line.split()
    extra = (float(t2) - float(t1)) - (float(t1) - float(t0))
    if enc == "ffmpeg" and c == "all" and extra > 0:
        ff_rates[name].append(3 * int(n) / extra)
print("| clip | encoder | CPU ms a frame | " + " | ".join(PARTS) + " |")
print("|---|---|---|" + "---|" * len(PARTS))
for name, enc in order:
    extra = samples[(name, enc, "long")].copy()
    extra.subtract(samples[(name, enc, "short")])
    ms = {p: 1000.0 * extra[p] / rate / (3 * frames[name]) for p in PARTS}
    print("| %s | %s | %.2f | %s |" % (
        name, enc, sum(ms.values()),
        " | ".join("%.2f" % ms[p] for p in PARTS)))
print()
for name in sorted(ff_rates):
    fps = statistics.median(ff_rates[name])
    print("%s: FFmpeg's default at %.1f fps on %d CPUs; its rate leaves "
          "%.2f ms of CPU time a frame on them, twice its rate %.2f" % (
              name, fps, cpus, 1000.0 * cpus / fps, 500.0 * cpus / fps))
EOF

#!/usr/bin/env bash
# gst-clvideo: pipelines/cltimeline.c and its reader. Preloaded into an
# encode, the module must leave the stream as it is, byte for byte; its
# timeline must hold every command with times in order (queued, submitted,
# started, ended), the commands of each in-order queue one after another,
# the encoder's launch of each frame and its host waits; and the reader
# must find the encoder's queue and its frames in it. With
# CL_TIMELINE_DETAIL the names tell the programs and global sizes apart:
# the motion search's steps, one function in programs of their own.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: tests/cltimeline-test.sh MODULE READER
set -euo pipefail

module="${1:?usage: $0 MODULE READER}"
reader="${2:?usage: $0 MODULE READER}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
frames=30

fail() {
  echo "cltimeline-test: $*" >&2
  exit 1
}

encode() {
  gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=ball \
    motion=sweep ! video/x-raw,format=I420,width=176,height=144 ! \
    clmpegenc gop-size=12 ! filesink location="$1"
}

encode "$work/plain.mpv" || fail "the encode failed"
CL_TIMELINE_OUT="$work/timeline.txt" LD_PRELOAD="$module" \
  encode "$work/timed.mpv" || fail "the encode failed with the module"
cmp -s "$work/plain.mpv" "$work/timed.mpv" ||
  fail "the stream differs with the module preloaded"

python3 - "$work/timeline.txt" "$frames" <<'EOF' || fail "timeline"
import collections, sys

path, frames = sys.argv[1], int(sys.argv[2])
by_queue = collections.defaultdict(list)
launches = collections.Counter()
waits = 0
for n, line in enumerate(open(path), 1):
    p = line.split()
    if p[0] == "W":
        assert len(p) == 5 and int(p[3]) <= int(p[4]), "line %d: %s" % (n, line)
        waits += 1
        continue
    assert len(p) == 8, "line %d: %s" % (n, line)
    queued, submit, start, end = map(int, p[3:7])
    assert 0 < queued <= submit <= start <= end, "line %d: times out of order: %s" % (n, line)
    by_queue[int(p[0])].append((start, end, p[2]))
    launches[(int(p[0]), p[2])] += 1
for q, commands in by_queue.items():
    commands.sort()
    for a, b in zip(commands, commands[1:]):
        assert b[0] >= a[1], "queue %d: %s overlaps %s" % (q, b, a)
encodes = [n for (q, name), n in launches.items() if name.startswith("mpeg_encode_mb")]
assert encodes and max(encodes) >= frames, "encoder launches: %s" % launches
assert waits > 0, "no host waits"
print("%d commands on %d queues, %d host waits" % (sum(launches.values()), len(by_queue), waits))
EOF

CL_TIMELINE_DETAIL=1 CL_TIMELINE_OUT="$work/detail.txt" LD_PRELOAD="$module" \
  encode "$work/detailed.mpv" || fail "the encode failed with the details"
cmp -s "$work/plain.mpv" "$work/detailed.mpv" ||
  fail "the stream differs with the details"
python3 - "$work/detail.txt" <<'EOF' || fail "details"
import re, sys

steps, encodes = set(), set()
for line in open(sys.argv[1]):
    p = line.split()
    m = re.fullmatch(r"([a-z_0-9]+)#(\d+):(\d+)x(\d+)", p[2]) if p[0] != "W" else None
    if m and m.group(1) == "motion_search_level":
        steps.add(m.group(2))
    if m and m.group(1).startswith("mpeg_encode_mb"):
        encodes.add(p[2])
# levels 2 and 1 and the passes at full resolution
assert len(steps) >= 3, "motion_search_level programs: %s" % steps
assert len(encodes) == 1, "mpeg_encode_mb names: %s" % encodes
print("motion_search_level in %d programs" % len(steps))
EOF

"$reader" "$work/detail.txt" >"$work/report.md" || fail "the reader failed"
grep -Eq "^## queue [0-9]+: ([2-9][0-9]|[0-9]{3,}) frames" "$work/report.md" ||
  fail "the reader found no encoder's queue: $(cat "$work/report.md")"
grep -q "mpeg_encode_mb" "$work/report.md" ||
  fail "the reader's table lacks the encoder's kernel: $(cat "$work/report.md")"
echo "cltimeline-test: the same stream; the timeline, its details and its report hold"

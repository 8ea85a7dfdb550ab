#!/usr/bin/env python3
# gst-clvideo: reads a device timeline written by libcltimeline.so
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where the device's time goes, from a timeline of pipelines/cltimeline.c.

Usage: cltimeline.py [--frame-kernel NAME] [--top N] FILE[.gz]

For each queue that runs NAME (default mpeg_encode_mb, once a frame in
clmpegenc; NAME_cpu, its CPU layout's, counts too) at least 20 times,
the time from its launch at the first tenth of those frames to its
launch at the last tenth (past the start-up and the drain) is a window;
in it, over all queues:

- the device's busy time a frame (the union of all commands' start..end,
  transfers included), and its idle time, of which the part where the
  command that ended the idle was not even submitted yet: time the device
  waited for the host;
- each command's count, time a frame and time each, by queue ("own" is
  the window's queue);
- the idle time with nothing submitted, by the command that ended it and
  the thread that enqueued it: which thread the device waited for.
"""
import argparse
import collections
import gzip
import sys


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    commands = []
    with opener(path, "rt") as f:
        for line in f:
            p = line.split()
            if not p or p[0] == "W" or len(p) < 8:
                continue
            queue, thread, name = int(p[0]), int(p[1]), p[2]
            _queued, submit, start, end, _host = map(int, p[3:8])
            if start == 0 or end < start:
                continue
            commands.append((start, end, submit, queue, thread, name))
    commands.sort()
    return commands


def is_frame_kernel(name, frame_kernel):
    # (CL_TIMELINE_DETAIL appends #program:size to a kernel's name)
    return name.split("#")[0] in (frame_kernel, frame_kernel + "_cpu")


def queue_label(q, queue):
    """The column of queue @q in the report of @queue's window."""
    return "own" if q == queue else "q%d" % q


def window_report(commands, queue, frame_kernel, top):
    # (by the frames, not the time: a first frame that waits for the
    # kernels' build would leave few in the middle of the span)
    starts = [c[0] for c in commands
              if c[3] == queue and is_frame_kernel(c[5], frame_kernel)]
    skip = len(starts) // 10
    lo, hi = starts[skip], starts[len(starts) - 1 - skip]
    frames = len(starts) - 1 - 2 * skip
    window = [c for c in commands if lo <= c[0] < hi]
    span = hi - lo
    busy, until, host_late = 0, lo, 0
    late_by = collections.Counter()
    for start, end, submit, q, thread, name in window:
        if start > until:
            late = max(0, min(submit, start) - until)
            host_late += late
            late_by["%s %s (thread %d)" % (queue_label(q, queue), name,
                                            thread)] += late
            busy += end - start
            until = end
        elif end > until:
            busy += end - until
            until = end
    us = 1e3 * frames
    print("## queue %d: %d frames" % (queue, frames))
    print()
    print("| wall | device busy | idle | idle, next command not submitted |")
    print("|---|---|---|---|")
    print("| %.1f us | %.1f us (%.0f%%) | %.1f us | %.1f us |" % (
        span / us, busy / us, 100.0 * busy / span, (span - busy) / us,
        host_late / us))
    print()
    per = collections.defaultdict(lambda: [0, 0])
    for start, end, _submit, q, _thread, name in window:
        key = (queue_label(q, queue), name)
        per[key][0] += 1
        per[key][1] += end - start
    print("| queue | command | a frame | us a frame | us each |")
    print("|---|---|---|---|---|")
    for (q, name), (n, t) in sorted(per.items(), key=lambda kv: -kv[1][1])[:top]:
        print("| %s | %s | %.2f | %.1f | %.1f |" % (q, name, n / frames,
                                                    t / us, t / n / 1e3))
    print()
    print("| idle, next command not submitted, ended by | us a frame |")
    print("|---|---|")
    for who, t in late_by.most_common(min(top, 8)):
        print("| %s | %.1f |" % (who, t / us))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--frame-kernel", default="mpeg_encode_mb",
                    help="the kernel launched once a frame [%(default)s]")
    ap.add_argument("--top", type=int, default=20,
                    help="rows of the command table [%(default)s]")
    args = ap.parse_args()
    commands = read(args.file)
    if not commands:
        sys.exit("cltimeline: no timed commands in %s" % args.file)
    runs = collections.Counter(c[3] for c in commands
                               if is_frame_kernel(c[5], args.frame_kernel))
    queues = sorted(q for q, n in runs.items() if n >= 20)
    if not queues:
        sys.exit("cltimeline: no queue runs %s 20 times" % args.frame_kernel)
    for q in queues:
        window_report(commands, q, args.frame_kernel, args.top)


if __name__ == "__main__":
    main()

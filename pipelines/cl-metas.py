#!/usr/bin/env python3
# gst-clvideo: the histogram and motion metas read from Python
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs videotestsrc ! clcolorlowpass ! clhistogram ! clmotionsearch !
fakesink and prints, for every frame, a summary of its luma histogram
(GstClHistogramMeta) and its mean motion (GstClMotionMeta), read by a pad
probe through the GstCl-1.0 typelib of libgstcl-1.0. A motion vector
points from a block to where its content was in the previous frame; the
mean motion printed is their mean negated, in pixels: where the content
went (right and down positive).

  cl-metas.py [--frames N] [--width W] [--height H] [--pattern P]

One line a frame:
  frame N: luma S samples (bins sum B), mean M, peak V; motion K blocks,
  moved (X, Y) px
or "motion none" for a frame without a motion meta (the first). Exits
with 77 where PyGObject or the typelibs are missing.

Uninstalled: GI_TYPELIB_PATH and LD_LIBRARY_PATH=BUILD/gst/cl,
GST_PLUGIN_PATH=BUILD/gst.
"""

import argparse
import sys

SKIP = 77

try:
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstCl', '1.0')
    from gi.repository import Gst, GstCl
except (ImportError, ValueError) as e:
    print('SKIP: %s (needs python3-gi, gir1.2-gstreamer-1.0 and the '
          'GstCl-1.0 typelib on GI_TYPELIB_PATH)' % e)
    sys.exit(SKIP)


def on_buffer(pad, info, lines):
    buf = info.get_buffer()
    hist = GstCl.buffer_get_cl_histogram_meta(buf)
    motion = GstCl.buffer_get_cl_motion_meta(buf)
    line = 'frame %d:' % len(lines)
    if hist:
        y = GstCl.HistogramChannel.Y
        bins = hist.get_bins(y)               # 256 counts, read from device
        total = sum(bins)
        mean = sum(v * n for v, n in enumerate(bins)) / max(total, 1)
        peak = max(range(len(bins)), key=lambda v: bins[v])
        line += ' luma %d samples (bins sum %d), mean %.1f, peak %d;' % (
            hist.get_pixels(y), total, mean, peak)
    else:
        line += ' luma none;'
    if motion:
        # per-block components in half-pel units, raster order
        dx, dy, _sad = motion.read_components()
        n = len(dx)
        line += ' motion %d blocks, moved (%+.3f, %+.3f) px' % (
            n, -sum(dx) / (2.0 * n), -sum(dy) / (2.0 * n))
    else:
        line += ' motion none'
    lines.append(line)
    print(line, flush=True)
    return Gst.PadProbeReturn.OK


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--frames', type=int, default=10)
    parser.add_argument('--width', type=int, default=320)
    parser.add_argument('--height', type=int, default=240)
    parser.add_argument('--pattern', default='ball')
    args = parser.parse_args()

    Gst.init(None)
    pipeline = Gst.parse_launch(
        'videotestsrc pattern=%s num-buffers=%d ! '
        'video/x-raw,format=RGBx,width=%d,height=%d ! clcolorlowpass ! '
        'video/x-raw(memory:OpenCL),format=I420 ! clhistogram name=hist ! '
        'clmotionsearch ! fakesink name=sink'
        % (args.pattern, args.frames, args.width, args.height))
    lines = []
    pad = pipeline.get_by_name('sink').get_static_pad('sink')
    pad.add_probe(Gst.PadProbeType.BUFFER, on_buffer, lines)

    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    status = 0
    if msg.type == Gst.MessageType.ERROR:
        err, debug = msg.parse_error()
        print('error from %s: %s (%s)' % (msg.src.get_name(), err.message,
                                          debug), file=sys.stderr)
        status = 1
    else:
        # the device context the elements shared, asked of one of them
        query = Gst.Query.new_context(GstCl.CONTEXT_TYPE)
        if pipeline.get_by_name('hist').get_static_pad('src').query(query):
            found, ctx = GstCl.Context.get_cl_context(query.parse_context())
            if found:
                print('device: %s (%s, %s)' % (ctx.props.device_name,
                                               ctx.props.platform_name,
                                               ctx.props.device_type))
    pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == '__main__':
    sys.exit(main())

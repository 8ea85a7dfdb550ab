#!/usr/bin/env python3
# gst-clvideo: runs pipelines/cl-metas.py and checks what it prints
# SPDX-License-Identifier: LGPL-2.1-or-later
"""check-cl-metas.py EXAMPLE BUILDDIR

Runs the Python example of the metas with this interpreter against the
build tree's typelib and library, on two inputs whose answers are known
without OpenCL: videotestsrc's ball, which moves right and down over the
first frames (its position is a sine of the frame number starting at
phase 0), and the colour bars (pattern=colors), which stand still. Every
frame's luma histogram must count width x height samples; every frame but
the first must carry motion: right and down for the ball, exactly none
for the bars. Exit 77 (a skip) where the example skips.
"""

import os
import re
import subprocess
import sys

SKIP = 77
WIDTH, HEIGHT, FRAMES = 160, 128, 6
LINE = re.compile(r'^frame (\d+): luma (\d+) samples \(bins sum (\d+)\), '
                  r'mean [\d.]+, peak \d+; motion (?:none|(\d+) blocks, '
                  r'moved \(([-+][\d.]+), ([-+][\d.]+)\) px)$')


def run(example, builddir, pattern):
    env = dict(os.environ)
    libdir = os.path.join(builddir, 'gst', 'cl')
    for var in ('GI_TYPELIB_PATH', 'LD_LIBRARY_PATH'):
        env[var] = os.pathsep.join(p for p in (libdir, env.get(var)) if p)
    res = subprocess.run([sys.executable, example, '--frames', str(FRAMES),
                          '--width', str(WIDTH), '--height', str(HEIGHT),
                          '--pattern', pattern], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=240)
    output = res.stdout.decode('utf-8', 'replace')
    print(output)
    return res.returncode, output


def check(output, pattern):
    errors = []
    frames = [LINE.match(l) for l in output.split('\n')
              if l.startswith('frame ')]
    if len(frames) != FRAMES or not all(frames):
        return ['%s: expected %d frame lines in the documented form'
                % (pattern, FRAMES)]
    blocks = ((WIDTH + 15) // 16) * ((HEIGHT + 15) // 16)
    for m in frames:
        n = int(m.group(1))
        if int(m.group(2)) != WIDTH * HEIGHT or \
                int(m.group(3)) != WIDTH * HEIGHT:
            errors.append('%s frame %d: the luma histogram does not count '
                          '%d samples' % (pattern, n, WIDTH * HEIGHT))
        if n == 0:
            if m.group(4):
                errors.append('%s: the first frame has motion' % pattern)
            continue
        if not m.group(4) or int(m.group(4)) != blocks:
            errors.append('%s frame %d: no motion meta of %d blocks'
                          % (pattern, n, blocks))
            continue
        x, y = float(m.group(5)), float(m.group(6))
        if pattern == 'ball' and not (x > 0 and y > 0):
            errors.append('ball frame %d: moved (%g, %g), not right and down'
                          % (n, x, y))
        if pattern == 'colors' and (x != 0 or y != 0):
            errors.append('colors frame %d: moved (%g, %g), not still'
                          % (n, x, y))
    return errors


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    errors = []
    for pattern in ('ball', 'colors'):
        status, output = run(sys.argv[1], sys.argv[2], pattern)
        if status == SKIP:
            return SKIP
        if status != 0:
            errors.append('%s: the example failed (exit %d)'
                          % (pattern, status))
            continue
        errors += check(output, pattern)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())

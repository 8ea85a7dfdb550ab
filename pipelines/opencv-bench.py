#!/usr/bin/python3
# Times OpenCV's counterparts of clhistogram, clcontrast (equalize) and
# clsmooth on one GRAY8 frame, for pipelines/clbench.c to compare with in the
# same run. Usage: opencv-bench.py FILE WIDTH HEIGHT REPEATS
# Prints "name median_ms" lines.
import sys
import time

import cv2
import numpy as np


def median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    path, width, height, repeats = sys.argv[1], int(sys.argv[2]), \
        int(sys.argv[3]), int(sys.argv[4])
    img = np.fromfile(path, dtype=np.uint8).reshape(height, width)
    cv2.setNumThreads(0)  # all cores, as the OpenCL device has
    cases = {
        'calcHist': lambda: cv2.calcHist([img], [0], None, [256], [0, 256]),
        'equalizeHist': lambda: cv2.equalizeHist(img),
        'boxFilter': lambda: cv2.boxFilter(img, -1, (5, 5),
                                           borderType=cv2.BORDER_REPLICATE),
    }
    for name, fn in cases.items():
        fn()  # warm up
        print(name, '%.4f' % median_ms(fn, repeats))


if __name__ == '__main__':
    main()

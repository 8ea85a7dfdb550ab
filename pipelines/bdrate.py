#!/usr/bin/env python3
# gst-clvideo: Bjontegaard delta rate between rate-distortion curves.
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bjontegaard delta rate (BD-rate) of one encoder against others.

Each curve is a set of (rate, PSNR) points. log10(rate) is fitted as a
function of PSNR, integrated over the PSNR interval both curves cover, and
the mean difference d gives BD-rate = 10^d - 1: the average change in rate
at equal quality (negative: the test encoder needs fewer bits). Two fits:

  cubic  the classic one (VCEG-M33): a least-squares cubic polynomial
         (exact through 4 points); needs at least 4 points per curve
  pchip  piecewise cubic Hermite interpolation with monotone slopes
         (Fritsch-Carlson, as later JVET tools use); needs 2 points; it
         does not overshoot between points

Points dominated by another of the same curve (no higher PSNR for no
fewer bits, as an encoder whose rate is capped produces) are dropped
first, so that log-rate is a function of PSNR.

Input (for the command line): a whitespace-separated table with a header
line naming at least the columns encoder, bits and psnr_y; an optional
"size" column groups the rows (one BD-rate per size). Lines starting with
'#' are skipped.

Usage: bdrate.py RESULTS --test NAME [--anchor NAME ...]
       bdrate.py --self-test
"""

import argparse
import math
import sys


def _solve(a, b):
    """Solves the square system a x = b by Gaussian elimination."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-300:
            raise ValueError("singular fit (repeated PSNR values?)")
        m[col], m[piv] = m[piv], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def _points(curve):
    """(psnr, log10 rate) sorted by PSNR; PSNRs must differ."""
    pts = sorted((float(q), math.log10(float(r))) for r, q in curve)
    for i in range(1, len(pts)):
        if pts[i][0] == pts[i - 1][0]:
            raise ValueError("two points with the same PSNR %.4f" % pts[i][0])
    return pts


def _cubic_integral(pts, lo, hi):
    """Integral over [lo, hi] of the least-squares cubic through pts."""
    xs = [p[0] for p in pts]
    # centre and scale PSNR so that the normal equations stay well conditioned
    mid = (max(xs) + min(xs)) / 2
    half = max((max(xs) - min(xs)) / 2, 1e-9)
    u = [(x - mid) / half for x in xs]
    ys = [p[1] for p in pts]
    ata = [[sum(ui ** (i + j) for ui in u) for j in range(4)] for i in range(4)]
    aty = [sum(ui ** i * yi for ui, yi in zip(u, ys)) for i in range(4)]
    c = _solve(ata, aty)

    def prim(x):
        t = (x - mid) / half
        return half * sum(c[i] * t ** (i + 1) / (i + 1) for i in range(4))

    return prim(hi) - prim(lo)


def _pchip_slopes(xs, ys):
    n = len(xs)
    h = [xs[i + 1] - xs[i] for i in range(n - 1)]
    delta = [(ys[i + 1] - ys[i]) / h[i] for i in range(n - 1)]
    if n == 2:
        return [delta[0], delta[0]]
    d = [0.0] * n
    for k in range(1, n - 1):
        if delta[k - 1] * delta[k] > 0:
            w1 = 2 * h[k] + h[k - 1]
            w2 = h[k] + 2 * h[k - 1]
            d[k] = (w1 + w2) / (w1 / delta[k - 1] + w2 / delta[k])

    def end(h0, h1, d0, d1):
        s = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
        if s * d0 <= 0:
            return 0.0
        if d0 * d1 < 0 and abs(s) > 3 * abs(d0):
            return 3 * d0
        return s

    d[0] = end(h[0], h[1], delta[0], delta[1])
    d[-1] = end(h[-1], h[-2], delta[-1], delta[-2])
    return d


def _pchip_integral(pts, lo, hi):
    """Integral over [lo, hi] (inside the points' range) of the PCHIP."""
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    d = _pchip_slopes(xs, ys)

    def partial(k, s):
        # integral of the Hermite cubic of interval k from its start to
        # the fraction s of it
        h = xs[k + 1] - xs[k]
        return h * (ys[k] * (s ** 4 / 2 - s ** 3 + s) +
                    h * d[k] * (s ** 4 / 4 - 2 * s ** 3 / 3 + s ** 2 / 2) +
                    ys[k + 1] * (-s ** 4 / 2 + s ** 3) +
                    h * d[k + 1] * (s ** 4 / 4 - s ** 3 / 3))

    total = 0.0
    for k in range(len(xs) - 1):
        a, b = max(lo, xs[k]), min(hi, xs[k + 1])
        if a >= b:
            continue
        h = xs[k + 1] - xs[k]
        total += partial(k, (b - xs[k]) / h) - partial(k, (a - xs[k]) / h)
    return total


def pareto(curve):
    """The points of @curve no other point beats on both rate and PSNR."""
    kept, best = [], -math.inf
    for r, q in sorted(curve, key=lambda p: (p[0], -p[1])):
        if q > best:
            kept.append((r, q))
            best = q
    return kept


def bd_rate(anchor, test, method="pchip"):
    """BD-rate in percent of @test against @anchor, lists of (rate, psnr);
    None when the PSNR ranges do not overlap or there are too few points."""
    anchor, test = pareto(anchor), pareto(test)
    need = 4 if method == "cubic" else 2
    if len(anchor) < need or len(test) < need:
        return None
    pa, pt = _points(anchor), _points(test)
    lo = max(pa[0][0], pt[0][0])
    hi = min(pa[-1][0], pt[-1][0])
    if hi <= lo:
        return None
    integral = _cubic_integral if method == "cubic" else _pchip_integral
    diff = (integral(pt, lo, hi) - integral(pa, lo, hi)) / (hi - lo)
    return (10 ** diff - 1) * 100


def self_test():
    """Cases with a known answer; raises AssertionError on a wrong one."""
    base = [(1000, 30.0), (1800, 33.0), (3000, 36.0), (5200, 39.0),
            (9000, 42.0)]

    def close(a, b, tol=1e-6):
        assert a is not None and abs(a - b) < tol, (a, b)

    for method in ("cubic", "pchip"):
        close(bd_rate(base, base, method), 0.0)
        # the same quality for twice / 0.8 times the bits
        close(bd_rate(base, [(r * 2, q) for r, q in base], method), 100.0)
        close(bd_rate(base, [(r * 0.8, q) for r, q in base], method), -20.0)
        # log-rate linear in PSNR, the test curve 1 dB better at equal rate:
        # exact for both fits
        lin = [(10 ** (q / 10), q) for q in (30.0, 32.0, 35.0, 37.0, 40.0)]
        better = [(r, q + 1) for r, q in lin]
        close(bd_rate(lin, better, method), (10 ** -0.1 - 1) * 100)
        # no common PSNR interval
        assert bd_rate(base, [(r, q + 20) for r, q in base], method) is None
    # the fit does not depend on the order of the points
    close(bd_rate(base, list(reversed([(r * 0.8, q) for r, q in base])),
                  "cubic"), -20.0)
    # a capped point (more bits, less quality) does not change the answer
    capped = base + [(9500, 41.0)]
    close(bd_rate(capped, [(r * 2, q) for r, q in base], "pchip"), 100.0)
    assert len(pareto(capped)) == len(base)
    # too few points for a cubic
    assert bd_rate(base[:3], base[:3], "cubic") is None
    close(bd_rate(base[:2], [(r * 2, q) for r, q in base[:2]], "pchip"), 100.0)
    # PCHIP is monotone between the points: a curve with a kink keeps its
    # interpolant within the data range, the cubic may not
    kink = [(1000, 30.0), (1100, 31.0), (5000, 32.0), (5100, 40.0)]
    xs = [q for _, q in kink]
    ys = [math.log10(r) for r, _ in kink]
    d = _pchip_slopes(xs, ys)
    assert all(s >= 0 for s in d), d
    print("bdrate: self-test passed")


def read_results(path):
    rows = []
    header = None
    with (sys.stdin if path == "-" else open(path)) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if header is None:
                header = fields
                for col in ("encoder", "bits", "psnr_y"):
                    if col not in header:
                        raise SystemExit("bdrate: no column %s in %s" % (col, path))
                continue
            rows.append(dict(zip(header, fields)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?")
    ap.add_argument("--test", help="encoder whose BD-rate is wanted")
    ap.add_argument("--anchor", action="append",
                    help="encoder to compare with (default: all others)")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return 0
    if not args.results or not args.test:
        ap.error("give RESULTS and --test")
    rows = read_results(args.results)
    groups = {}
    for row in rows:
        key = row.get("size", "")
        groups.setdefault(key, {}).setdefault(row["encoder"], []).append(
            (float(row["bits"]), float(row["psnr_y"])))
    print("| size | %s against | points used | BD-rate (pchip) | BD-rate (cubic) |"
          % args.test)
    print("|---|---|---|---|---|")

    def fmt(v):
        return "n/a" if v is None else "%+.1f%%" % v

    for key in sorted(groups):
        curves = groups[key]
        if args.test not in curves:
            continue
        anchors = args.anchor or sorted(k for k in curves if k != args.test)
        for a in anchors:
            if a not in curves:
                continue
            print("| %s | %s | %d / %d | %s | %s |" % (
                key or "-", a, len(pareto(curves[args.test])),
                len(pareto(curves[a])),
                fmt(bd_rate(curves[a], curves[args.test], "pchip")),
                fmt(bd_rate(curves[a], curves[args.test], "cubic"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks hlo-run's printed result against an expected literal within an error bound.

XLA's evaluator tests compare floating-point results with LiteralTestUtil::Near and an
ErrorSpec (abs, rel): an element passes when |actual - expected| <= abs or when that error
divided by |expected| is <= rel; complex elements are compared part by part. FileCheck can
only match text, so the translated tests of those comparisons pipe `hlo-run --print-all`
into this script:

  hlo-run X.hlo --inputs=X.inputs --print-all | python3 near.py X.expected --abs=1e-4 --rel=1e-5

The expected file holds one line, `SHAPE LITERAL` as hlo-run prints it (shape without layout,
complex elements as (re, im)). The shapes must be equal and every number within the bound.
"""
import argparse
import math
import re
import sys

NUMBER = re.compile(r"[-+]?(?:nan|inf|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def split(text, what):
    text = text.strip()
    if not text:
        sys.exit(f"near.py: {what} is empty")
    shape, _, literal = text.partition(" ")
    return shape, [float(x) for x in NUMBER.findall(literal)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("expected")
    parser.add_argument("--abs", type=float, required=True)
    parser.add_argument("--rel", type=float, required=True)
    args = parser.parse_args()
    with open(args.expected) as f:
        want_shape, want = split(f.read(), args.expected)
    got_shape, got = split(sys.stdin.read(), "hlo-run's output")
    if got_shape != want_shape:
        sys.exit(f"near.py: shape {got_shape}, expected {want_shape}")
    if len(got) != len(want):
        sys.exit(f"near.py: {len(got)} numbers, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if math.isnan(w) and math.isnan(g):
            continue
        err = abs(g - w)
        if err <= args.abs or (w != 0 and err / abs(w) <= args.rel):
            continue
        sys.exit(f"near.py: number {i}: {g}, expected {w} (error {err:g} > abs {args.abs:g}, "
                 f"rel {args.rel:g})")
    print(f"near.py: {got_shape}: {len(got)} numbers within abs {args.abs:g} or rel {args.rel:g}")


if __name__ == "__main__":
    main()

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
A tuple result, which hlo-run prints as one `{INDEX}: SHAPE LITERAL` line per element, is
expected as one `SHAPE LITERAL` line per element, in order (XLA's ComputeAndCompareTuple).
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


ELEMENT = re.compile(r"^\{[\d,]*\}: ")


def elements(text):
    """The printed arrays: the whole text, or each `{INDEX}: ` line of a tuple result."""
    lines = [l for l in text.splitlines() if l.strip()]
    if lines and all(ELEMENT.match(l) for l in lines):
        return [ELEMENT.sub("", l) for l in lines]
    return [text]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("expected")
    parser.add_argument("--abs", type=float, required=True)
    parser.add_argument("--rel", type=float, required=True)
    args = parser.parse_args()
    with open(args.expected) as f:
        expected_text = f.read()
    got_parts = elements(sys.stdin.read())
    want_parts = [expected_text]
    if len(got_parts) > 1:
        want_parts = [l for l in expected_text.splitlines() if l.strip()]
        if len(want_parts) != len(got_parts):
            sys.exit(f"near.py: {len(got_parts)} tuple elements, expected {len(want_parts)}")
    shapes, count = [], 0
    for k, (got_text, want_text) in enumerate(zip(got_parts, want_parts)):
        want_shape, want = split(want_text, args.expected)
        got_shape, got = split(got_text, "hlo-run's output")
        where = f"element {k}: " if len(got_parts) > 1 else ""
        if got_shape != want_shape:
            sys.exit(f"near.py: {where}shape {got_shape}, expected {want_shape}")
        if len(got) != len(want):
            sys.exit(f"near.py: {where}{len(got)} numbers, expected {len(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            if math.isnan(w) and math.isnan(g):
                continue
            err = abs(g - w)
            if err <= args.abs or (w != 0 and err / abs(w) <= args.rel):
                continue
            sys.exit(f"near.py: {where}number {i}: {g}, expected {w} (error {err:g} > abs "
                     f"{args.abs:g}, rel {args.rel:g})")
        shapes.append(got_shape)
        count += len(got)
    shape_text = shapes[0] if len(shapes) == 1 else "(" + ", ".join(shapes) + ")"
    print(f"near.py: {shape_text}: {count} numbers within abs {args.abs:g} or rel {args.rel:g}")


if __name__ == "__main__":
    main()

"""Makes an XLA copy-insertion test module whose while loop never ends run exactly once.

XLA's region-analysis tests loop on a pred that the body passes through unchanged (the loop
state element the condition returns), so the module runs forever when that pred is true and
not at all when it is false. Reads the module on stdin and writes it on stdout with:
  - the entry's pred parameter or-ed with true (the loop is entered);
  - the body's pass-through of that pred negated (the loop ends after one trip).
The corpus file itself is never changed or copied (used by newer_tests.test).
"""
import re
import sys

text = sys.stdin.read()
# The body's non-root read of a pred loop state element, which its root passes on.
text, body = re.subn(r"^  ([\w.-]+) = pred\[\] get-tuple-element\(input_tuple\), index=(\d+)$",
                     r"  \1.in = pred[] get-tuple-element(input_tuple), index=\2\n"
                     r"  \1 = pred[] not(\1.in)", text, count=1, flags=re.M)
text, entry = re.subn(r"^  ([\w.-]+) = pred\[\] parameter\((\d+)\)$",
                      r"  \1.in = pred[] parameter(\2)\n  \1.true = pred[] constant(true)\n"
                      r"  \1 = pred[] or(\1.in, \1.true)", text, count=1, flags=re.M)
if body != 1 or entry != 1:
    sys.exit("one_trip_loop.py: no pred loop state element or entry pred parameter found")
sys.stdout.write(text)

"""Makes XLA's PartiallyPipelinedAsyncSendRecvPipelineParallelism module runnable on replicas.

Reads the module on stdin, writes it on stdout with these corrections (used by
partially_pipelined_send_recv.test; the corpus file itself is never changed or copied):
  - send-done is token[] (XLA's test gives it (f32[16], token[]), which verifiers reject);
  - the frontend attribute is XLA's _xla_send_recv_source_target_pairs (the test spells it
    _xla_send_send_..., which XLA:GPU would not read: no pairs, so nothing would be sent);
  - after the loop, recv-done finishes the receive (loop state {1}) and send-done the send
    ({0}); the test's recv-done reads the send's context;
  - the endless loop (condition constant(true), "to keep IR small") runs TRIPS times: a u32[]
    counter is added as loop state element {4}.
"""
import re
import sys

TRIPS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
text = sys.stdin.read()
text = re.sub(r"(send_done[_a-z]* = )\(f32\[16\]\{0\}, token\[\]\) send-done", r"\1token[] send-done", text)
text = text.replace("_xla_send_send_source_target_pairs", "_xla_send_recv_source_target_pairs")
text = re.sub(r"(recv_ctx = \(f32\[16\]\{0\}, u32\[\], token\[\]\) get-tuple-element\(while\)), index=0",
              r"\1, index=1", text)
state_end = re.compile(r"f32\[16\]\{0\},\s+f32\[16\]\{0\}\)")
text = state_end.sub("f32[16]{0}, f32[16]{0}, u32[])", text)
text = text.replace(
    "  ROOT infinite_loop = pred[] constant(true)",
    "  i = u32[] get-tuple-element(param), index=4\n"
    f"  trips = u32[] constant({TRIPS})\n"
    "  ROOT more = pred[] compare(i, trips), direction=LT")
text = re.sub(r"tuple\(send, recv, prev_fwd, fwd\)",
              "tuple(send, recv, prev_fwd, fwd, i_)", text)
text = text.replace(
    "  prev_fwd = f32[16]{0} get-tuple-element(param), index=3\n",
    "  prev_fwd = f32[16]{0} get-tuple-element(param), index=3\n"
    "  i = u32[] get-tuple-element(param), index=4\n"
    "  one = u32[] constant(1)\n"
    "  i_ = u32[] add(i, one)\n")
text = re.sub(r"tuple\(send, recv, data, data\)", "tuple(send, recv, data, data, zero)", text)
text = text.replace("  after_all = token[] after-all()\n  recv =",
                    "  after_all = token[] after-all()\n  zero = u32[] constant(0)\n  recv =")
sys.stdout.write(text)

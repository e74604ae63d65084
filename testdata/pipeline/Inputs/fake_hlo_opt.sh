#!/bin/sh
# A stand-in for hlo-opt, for stage_costs.test: hlo-pipeline --from-hlo runs it through
# HLOSCOPE_HLO_OPT, and FAKE_HLO_OPT says how it behaves.
case "$FAKE_HLO_OPT" in
  usage-error)  # as hlo-opt reports a bad flag: its prefix, then its usage hint
    echo "hlo-opt: error: option '--frobnicate' is not known" >&2
    echo "Run 'hlo-opt --help' for usage." >&2
    exit 2 ;;
  silent) exit 3 ;;
  killed) kill -KILL $$ ;;
  not-json) echo "per-stage costs from HLO"; exit 0 ;;
  one-stage)
    echo '{"device_tflops":400,"stages":[{"path":"a.hlo","forward_flops":1,"backward_input_flops":1,"backward_weight_flops":1,"forward_us":1,"backward_input_us":1,"backward_weight_us":1,"activation_bytes":1,"activation_source":"none"}]}'
    exit 0 ;;
  echo-args)  # a warning on stderr (passed through) naming the arguments, then real costs
    echo "fake-hlo-opt: note: $*" >&2
    cat "$FAKE_HLO_OPT_JSON"
    exit 0 ;;
esac
echo "fake_hlo_opt.sh: FAKE_HLO_OPT='$FAKE_HLO_OPT' is not a mode" >&2
exit 9

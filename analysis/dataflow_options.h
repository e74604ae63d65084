// The options of the dataflow analysis (dataflow.h) and of everything built on it: the alias
// analysis, in-place pairs, live ranges, copy-elision, the memory profiler, the printers of
// --print-dataflow / --print-buffers and the interpreter's buffer mode. One struct, set once
// (hlo-opt's --bitcast-defines-value, hlo-run's) and passed along, so the analyses of one run
// never disagree about what a bitcast is.
#pragma once

namespace hloscope {

struct DataflowOptions {
  // With false (default) a bitcast is an alias: its result holds its operand's values, so a
  // buffer seen through bitcasts is still one buffer, and an in-place update inside a fusion
  // may be reached through bitcasts (XLA's GPU and TPU backends). With true a bitcast defines a
  // new value with a buffer of its own.
  bool bitcast_defines_value = false;
  // With true (default) the walk from a fusion's root to the parameter it updates in place
  // passes through bitcasts (when bitcasts are aliases), as XLA:GPU's emitter finds an in-place
  // dynamic-update-slice. False is XLA's dataflow itself (GetInPlaceInputOutputPairs follows
  // only tuples and get-tuple-elements): the buffer assignment model (xla_assignment_model.h)
  // sets it, as XLA's alias analysis keeps such a fusion and its operand in two buffers.
  bool in_place_through_bitcast = true;
  // Phi values at merge points (dataflow.h); false gives the union form. The alias analysis
  // always builds from the SSA form and ignores it.
  bool ssa_form = true;

  // Every field: an analysis built with equal options gives the same answer (the analysis cache
  // keys on this, so a new field takes part without another edit).
  bool operator==(const DataflowOptions&) const = default;
};

}  // namespace hloscope

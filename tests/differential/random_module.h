// Random HLO modules for differential testing of passes: small, valid (they parse and pass
// VerifyModule), made only of ops the interpreter (eval) supports, and buffer-safe as
// given: like XLA's output after copy insertion, every copy needed for buffer sharing is
// already there, so the module computes the same result in value mode and in buffer mode.
//
//   RandomModule m = GenerateRandomModule(/*seed=*/42);
//   auto module = ParseModule(m.text);   // always parses and verifies
//
// What a module holds: a DAG of elementwise ops, broadcast, reshape, transpose, slice,
// dynamic-slice, dot, reduce, concatenate, reverse, pad, iota, convert, bitcasts that change
// the layout (physical reinterpretations), kLoop fusions and conditionals; usually a while
// loop (sometimes a second one starting from its results) whose tuple state is a counter plus
// 1-3 arrays. Each array of the state is updated in one of these ways:
//  - passed through unchanged;
//  - dynamic-update-slice at the loop index, in place, sometimes inside a kLoop fusion between
//    two bitcasts (the paxml stash pattern, testdata/examples/pipelined_stash.hlo);
//  - in place on a copy, with the old value read after the update in the same iteration (the
//    copy is NEEDED);
//  - swapped with another element of the same dims (the copies are NEEDED);
//  - replaced by a new value, through a root copy or written directly.
// Loop init elements are copies of entry values, and some of those values are read again
// after the loop (those copies are NEEDED too). Entry-value copies and the body's copies are
// placed so that the module is correct when instructions run in text order, which is the
// order the interpreter runs them in; half the modules say so (is_scheduled=true), which lets
// passes rely on that order.
#pragma once

#include <cstdint>
#include <string>

namespace hloscope::differential {

struct RandomModuleOptions {
  // Upper bound on the elements of any array the module computes (keeps evaluation in the
  // millisecond range).
  int64_t max_elements = 256;
  // Ops in the entry DAG before the loop, and in each phase of the loop body (at most).
  int max_entry_ops = 6;
  int max_body_ops = 4;
  // Chance (percent) that the module has a while loop.
  int loop_percent = 85;
};

struct RandomModule {
  std::string text;
  // How many of the module's copies the generator placed because buffer sharing needs them
  // (entry values read after the loop updated their copy, old state read after an in-place
  // update, swaps). A pass that removes every copy should change the result of a module with
  // needed_copies > 0 (unless the random inputs happen to make the values equal).
  int needed_copies = 0;
};

RandomModule GenerateRandomModule(uint64_t seed, const RandomModuleOptions& options = {});
std::string RandomModuleText(uint64_t seed, const RandomModuleOptions& options = {});

}  // namespace hloscope::differential

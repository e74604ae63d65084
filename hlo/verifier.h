// Structural checks on a module: operand counts and shapes for the ops analyses rely on,
// parameter numbering, operand/user consistency, one root per computation, no cycles.
// Returns the first problem as an error naming the computation and instruction.
//
//   absl::Status s = VerifyModule(*module);
//   // s.message(): "computation 'body': instruction 'tuple.3': while body root shape
//   //               (f32[2], s32[]) does not match while shape (f32[2])"
//
// Every message has the form `computation 'C': instruction 'I': <what is wrong>` (or
// `computation 'C': ...` / `module 'M': ...` when no single instruction is at fault) and is
// stable: tests compare them exactly. The status code is InvalidArgument for every problem.
//
// What is checked, in this order (the first failure is reported):
//  1. Structure of every computation: a root that belongs to it; each instruction listed
//     once, with a shape and this computation as parent; unique instruction names (options);
//     operand count from the opcode table; operands and control edges inside the same
//     computation and mirrored on the other side (operand ↔ user, predecessor ↔
//     successor); called computations belong to the module; parameters numbered 0..n-1
//     without gaps or duplicates; no cycle through operands and control predecessors.
//  2. No computation calls itself, directly or through others.
//  3. Per-opcode shape rules (option check_shapes): tuple, get-tuple-element, while,
//     conditional, call, fusion, dynamic-slice, dynamic-update-slice, bitcast, copy, and the
//     output_to_operand_aliasing of fusion and custom-call (verifier_shape_rules.cc); every elementwise op, broadcast, reshape, transpose, slice,
//     concatenate, pad, reduce, iota, convolution, reduce-window
//     (verifier_array_rules.cc, which lists where it is lenient); dot, ragged-dot, scaled-dot
//     (verifier_dot_rules.cc); scan (verifier_scan_rule.cc); constant's literal against its shape
//     (verifier_constant_rule.cc); reverse, sort, opt-barrier,
//     add-dependency, domain, scatter, select-and-scatter, set-dimension-size, bitcast-convert,
//     get-dimension-size, partition-id, replica-id, after-all (verifier_same_shape_rules.cc);
//     gather (verifier_gather_rule.cc); all-reduce, all-gather, reduce-scatter, all-to-all,
//     collective-permute, collective-broadcast and their -start forms, with replica groups
//     (verifier_collective_rules.cc); async-start/-update/-done, copy-start/-done and every
//     collective -done (verifier_async_rules.cc); send, recv, infeed, outfeed and their -done
//     forms (verifier_token_rules.cc); batch-norm-*, cholesky, triangular-solve, fft,
//     rng, rng-bit-generator, reduce-precision, topk (verifier_numeric_rules.cc); also
//     dynamic-reshape (array rules), ragged-all-to-all (collective rules) and
//     rng-get-and-update-state (same-shape rules). Each file's header says where it is lenient.
//     Shapes are compared ignoring layouts, as XLA's layout-insensitive verifier does (the
//     array and same-shape rules also ignore dynamic flags and, with allow_mixed_precision,
//     floating-point precision); bitcast compares Shape::ByteSize, where layouts (E(n)) matter.
//     Mismatches between a caller and a called computation's signature are reported at the callee's
//     parameter or root, where the fix usually goes.
//  4. With check_shapes, XLA's rules on b(...) buffer values (verifier_buffer_rules.cc):
//     buffers only where XLA allows them, Pin/Unpin/CreateBuffer's shapes, every buffer
//     operand and output of a custom-call named by one alias, and one writer per buffer value.
//  5. With check_shapes, XLA's module-wide async rules (verifier_async_pair_rules.cc): every
//     async-done traces back to one async-start, starts and updates reach a done or a while
//     loop, and a wrapped computation on the main thread holds only parameters and its root.
#pragma once

#include "absl/status/status.h"
#include "hlo/module.h"

namespace hloscope {

struct VerifierOptions {
  // Check that instruction names are unique within each computation (operands are looked up
  // by name there, so a repeated name makes the text ambiguous).
  bool check_unique_names = true;
  // Also require names to be unique across the whole module, as XLA does for modules it
  // builds. Off by default: hand-written HLO (XLA's own tests, much of the corpus) reuses
  // names such as `p0` in different computations, and XLA's parser accepts that by renaming,
  // which hloscope does not do so that printing reproduces the input.
  bool check_module_unique_names = false;
  // Run the per-opcode operand and shape rules (step 3 above). Off, only the graph structure
  // is checked.
  bool check_shapes = true;
  // In the shape rules, let floating-point element types differ where XLA's rules want equal
  // types (add(bf16, f32) -> f32, a bf16 pad of an f32 operand), as XLA's verifier does with
  // its option of the same name. On by default here, unlike XLA: backends run XLA's
  // verifier with it on after precision-changing passes, so dumps contain such instructions.
  bool allow_mixed_precision = true;
  // The text the module was parsed from (ParseModule's `text`: with --split-input-file, that
  // module's part). When given, an error about an instruction is formatted as parse errors
  // are: `file:line:col: error: computation 'c': instruction 'i': ...`, then the instruction's
  // source line and a caret under its name (file and first line as ParseOptions gave them).
  // Without it, or for an instruction a pass created, the message has no position.
  std::string_view source_text;
};

absl::Status VerifyModule(const Module& module, const VerifierOptions& options = {});

}  // namespace hloscope

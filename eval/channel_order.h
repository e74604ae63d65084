// The interpreter's order for a computation with send and recv on one channel: a recv takes
// what a send of the same channel_id sent, so it must run after that send. On a device the
// value comes from another device's send and the text may list the recv first; here the send
// is moved before the recv, keeping operands (and control predecessors) first and the given
// order otherwise, unless the send depends on the recv (then the order stays, and the recv
// finds nothing sent).
#pragma once

#include <vector>

#include "hlo/instruction.h"

namespace hloscope::eval {

std::vector<const Instruction*> OrderSendsBeforeRecvs(std::vector<const Instruction*> order);

}  // namespace hloscope::eval

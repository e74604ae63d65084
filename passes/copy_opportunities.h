// What copy-elision's decisions say the user could change (issue 33's "opportunities"), found
// once and printed by both the copy report (`hlo-opt --passes=copy-elision --report
// --opportunities`, tools/hlo-opt/hlo_opt_copy_report.h) and the memory report (`hlo-opt
// --opportunities`, tools/hlo-opt/hlo_opt_memory_opportunities.h):
//  - Donation: the copies copy-elision keeps only because an entry parameter is not donated
//    (its reason says "entry parameter N, not donated"), grouped into one what-if: donating
//    those parameters lets copy-elision remove them all, saving their bytes per step ("at
//    least" when a loop's trip count is unknown).
//  - The bitcast-hidden stash copy (google/paxml issue 17): a copy that looks needed while a
//    bitcast is taken to define a new value (a dynamic-update-slice behind a bitcast inside a
//    fusion), and that copy-elision removes with bitcasts as aliases, which is what storage is.
//
//   CopyElisionReport default_run;
//   CopyOpportunities found;
//   found.bitcast_hidden = FindBitcastHiddenCopies(module, &default_run);  // changes `module`
//   found.donation = FindDonationOpportunity(default_run);
//   for (const std::string& line : OpportunityLines(found, "...")) ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/module.h"
#include "passes/copy_elision.h"
#include "support/option_spelling.h"

namespace hloscope {

struct DonationOpportunity {
  std::vector<int64_t> parameters;  // the entry parameters to donate, ascending
  std::vector<std::string> copies;  // the copies that donating them lets copy-elision remove
  int64_t bytes_per_step = 0;       // their bytes x executions per step (saturates)
  bool known = true;                // false: some trip count is unknown, the bytes are a floor
};

struct BitcastHiddenCopy {
  CopyDecision copy;   // the decision with bitcasts as aliases (removed), its bytes and runs
  std::string reason;  // why it stays with bitcasts as new values, naming the bitcast
  int64_t bytes_per_step = 0;
};

struct CopyOpportunities {
  std::optional<DonationOpportunity> donation;
  std::vector<BitcastHiddenCopy> bitcast_hidden;

  // One for the donation what-if, one per bitcast-hidden copy.
  int64_t count() const;
  // The copy traffic per step they would save together (saturates).
  int64_t bytes_per_step() const;
  // False when some figure is a floor (a trip count is unknown).
  bool known() const;
};

// The entry parameter that copy-elision's reason names as not donated, if it names one.
std::optional<int64_t> NotDonatedParameter(std::string_view reason);

// The kept copies of `report` whose only obstacle is a parameter that is not donated; nullopt
// when there are none (or the module was not buffer-safe, so nothing was decided).
std::optional<DonationOpportunity> FindDonationOpportunity(const CopyElisionReport& report);

// Whether `module` has a bitcast anywhere (fusions included): without one, bitcasts as new
// values change nothing and no copy can be bitcast-hidden.
bool HasBitcast(const Module& module);

// Runs copy-elision on `module` with bitcasts as new values, then again with bitcasts as
// aliases (the default). The first removes a subset of what the second removes; the copies
// the first keeps because a bitcast defines a new value and the second removes are returned.
// Without a bitcast in `module` (HasBitcast) only the second runs. `module` is changed by the
// runs: pass a copy. `default_run`, when set, receives the second
// run's report (where the donation opportunity is read); empty when the module is not
// buffer-safe.
std::vector<BitcastHiddenCopy> FindBitcastHiddenCopies(Module& module,
                                                       CopyElisionReport* default_run);

// The text of one opportunity, as both reports print it (no indentation, no newline).
// `then`: what follows the donation what-if, e.g. how to see its effect.
std::string DonationOpportunityText(const DonationOpportunity& donation, std::string_view then);
// `option_spelling` (support/option_spelling.h): how the caller names the options the text
// points at ("passes", "opportunities"), e.g. as its flags.
std::string BitcastHiddenCopyText(const BitcastHiddenCopy& copy,
                                  const OptionSpelling& option_spelling = {});

// A report's one-line hint when the list is off: "1 opportunity (7.2 GiB of copies per step):
// --opportunities lists it" (hlo-opt's spelling of "opportunities"; no indentation, no
// newline); empty when there are none.
std::string OpportunitiesHintText(const CopyOpportunities& found,
                                  const OptionSpelling& option_spelling = {});

// "28,29" for --assume-donated.
std::string ParameterList(const std::vector<int64_t>& parameters);

}  // namespace hloscope

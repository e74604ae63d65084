// Instances of the template modules in the xla_cc_test_modules archive.
//
// Many of XLA's C++ tests hold their HLO as a template: the text has placeholders (`$dtype`,
// `<<F8E4M3>>`, `TYPE`, `%1$s`, `${m}`) that the test replaces before it parses the module
// (absl::StrReplaceAll, absl::Substitute, absl::StrFormat). The corpus extraction kept the
// text before that step, so the raw file is not HLO and our parser rightly rejects it; the
// module that XLA's parser actually reads is the instance. tests/corpus/template_instances.tsv
// records, per archive file, the values its XLA test substitutes, read off the test's source,
// so the corpus test can parse what XLA parses. The raw text is still checked as well: it must
// fail cleanly with the error listed in bulk_expectations.tsv.
//
// File format: one row per (file, placeholder), tab-separated:
//   <file name in INDEX.tsv> TAB <placeholder text> TAB <value> TAB <where the value comes from>
// A placeholder written `text#N` (N >= 1) stands for the N-th occurrence of `text` only:
// absl::StrFormat's sequential `%s`/`%d` take the test's arguments in order, so one `%s` can
// have a different value at each place. Lines that are empty or start with '#' are comments. The
// value is written with the C-style escapes of HLO strings (support/escapes.h: `\n` for a newline,
// `\t` for a tab, `\\` for a backslash) and may be empty. The fourth column is free text for the
// reader and is required, so that every value says where it was read.
#ifndef HLOSCOPE_TESTS_CORPUS_TEMPLATE_INSTANCES_H_
#define HLOSCOPE_TESTS_CORPUS_TEMPLATE_INSTANCES_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hloscope {

struct TemplateSubstitution {
  std::string placeholder;  // the text replaced (without a `#N` suffix)
  std::string value;
  std::string source;  // where the value was read (the table's fourth column)
  int line = 0;        // line in the table, for messages
  int occurrence = 0;  // N of `placeholder#N`: only the N-th occurrence; 0: every occurrence
};

// file name -> its substitutions, in table order.
using TemplateInstanceTable = std::map<std::string, std::vector<TemplateSubstitution>>;

// Parses the table text. `name` prefixes error messages (`name:line: error: ...`). Errors: a
// row without four columns, an empty file name, placeholder or source, an occurrence `#0`, the
// same (file, placeholder, occurrence) twice.
absl::StatusOr<TemplateInstanceTable> ParseTemplateInstances(std::string_view text,
                                                             std::string_view name);

// One left-to-right pass over `text`: at each position the longest placeholder that starts
// there is replaced by its value and scanning goes on after it; text a value put in is never
// scanned again. This is what absl::StrReplaceAll does with the same pairs, and it lets `$d0`
// and `$d0_x` coexist. Each match counts as one occurrence of its text; a substitution for
// that occurrence number wins over one for every occurrence, and with neither the text stays.
// An empty placeholder never matches.
std::string InstantiateTemplate(std::string_view text,
                                const std::vector<TemplateSubstitution>& substitutions);

}  // namespace hloscope

#endif  // HLOSCOPE_TESTS_CORPUS_TEMPLATE_INSTANCES_H_

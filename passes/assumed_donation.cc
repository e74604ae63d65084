#include "passes/assumed_donation.h"

#include <set>
#include <utility>

#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "support/str_util.h"

namespace hloscope {

namespace {

absl::Status ListError(const std::string& what) { return absl::InvalidArgumentError(what); }

// The list's entries: split at commas that are not inside a shape index's braces.
std::vector<std::string_view> SplitEntries(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}') --depth;
    if (text[i] == ',' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

// `{}` or `{1,0}`: the digits between commas, nothing else.
bool ParseIndex(std::string_view text, ShapeIndex* out) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  text = text.substr(1, text.size() - 2);
  if (text.empty()) return true;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    int64_t v = 0;
    if (!ParseInteger(text.substr(start, comma - start), &v) || v < 0) return false;
    out->push_back(v);
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

std::string ElementName(int64_t parameter, const std::optional<ShapeIndex>& index) {
  return index ? fmt::format("{}{}", parameter, ShapeIndexToString(*index))
               : std::to_string(parameter);
}

}  // namespace

absl::StatusOr<DonationAssumption> ParseDonationAssumption(std::string_view text) {
  DonationAssumption out;
  if (text == "all") {
    out.all = true;
    return out;
  }
  if (text.empty()) return ListError("needs 'all' or entry parameter numbers such as 3,8");
  std::set<int64_t> whole, by_element;
  std::set<std::pair<int64_t, ShapeIndex>> elements;
  for (std::string_view entry : SplitEntries(text)) {
    if (entry.empty()) {
      return ListError(fmt::format("empty entry in the list '{}'", text));
    }
    if (entry == "all") {
      return ListError("'all' names every entry parameter: give it alone, without numbers");
    }
    const size_t brace = entry.find('{');
    DonatedParameter p;
    if (!ParseInteger(entry.substr(0, brace), &p.parameter) || p.parameter < 0) {
      return ListError(fmt::format(
          "'{}' is not an entry parameter number (expected 'all' or numbers such as 3,8 or "
          "3{{0,1}})",
          entry));
    }
    if (brace != std::string_view::npos) {
      ShapeIndex index;
      if (!ParseIndex(entry.substr(brace), &index)) {
        return ListError(fmt::format(
            "'{}' is not an entry parameter number with a shape index (expected e.g. 3{{0,1}})",
            entry));
      }
      p.index = std::move(index);
    }
    const bool repeated =
        p.index ? whole.contains(p.parameter) || !elements.insert({p.parameter, *p.index}).second
                : whole.contains(p.parameter) || by_element.contains(p.parameter);
    if (repeated) {
      return ListError(
          fmt::format("entry parameter {} is named twice", ElementName(p.parameter, p.index)));
    }
    (p.index ? by_element : whole).insert(p.parameter);
    out.parameters.push_back(std::move(p));
  }
  return out;
}

std::string InputOutputAliasText(absl::Span<const InputOutputAlias> aliases) {
  std::string out = "{ ";
  for (size_t i = 0; i < aliases.size(); ++i) {
    const InputOutputAlias& a = aliases[i];
    out += fmt::format("{}{}: ({}, {}, {})", i == 0 ? "" : ", ", ShapeIndexToString(a.output_index),
                       a.parameter, ShapeIndexToString(a.parameter_index),
                       a.must_alias ? "must-alias" : "may-alias");
  }
  return out + " }";
}

absl::StatusOr<DonationResult> AssumeDonated(Module& module, const DonationAssumption& assumption) {
  const Computation* entry = module.entry();
  if (entry == nullptr || entry->root() == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("module '{}' has no entry computation to donate to", module.name()));
  }
  // The donated elements, in parameter order.
  std::vector<DonatedParameter> donated;
  if (assumption.all) {
    for (int64_t p = 0; p < entry->parameter_count(); ++p) donated.push_back({p, std::nullopt});
  } else {
    for (const DonatedParameter& p : assumption.parameters) {
      if (p.parameter >= entry->parameter_count()) {
        return absl::InvalidArgumentError(fmt::format(
            "entry parameter {} is out of range: the entry computation of module '{}' has {}",
            p.parameter, module.name(),
            entry->parameter_count() == 0
                ? std::string("no parameters")
                : fmt::format("{} parameter{} (0 to {})", entry->parameter_count(),
                              entry->parameter_count() == 1 ? "" : "s",
                              entry->parameter_count() - 1)));
      }
      const Shape& shape = entry->parameter(p.parameter)->shape();
      if (p.index && Subshape(shape, *p.index) == nullptr) {
        return absl::InvalidArgumentError(fmt::format(
            "entry parameter {} of module '{}' has no element {} (its shape is {})", p.parameter,
            module.name(), ShapeIndexToString(*p.index), shape.ToString()));
      }
      donated.push_back(p);
    }
  }
  std::vector<InputOutputAlias> aliases(module.input_output_aliases().begin(),
                                        module.input_output_aliases().end());
  std::set<std::pair<int64_t, ShapeIndex>> donors;
  std::set<ShapeIndex> taken;
  for (const InputOutputAlias& a : aliases) {
    donors.insert({a.parameter, a.parameter_index});
    taken.insert(a.output_index);
  }
  // The entry result's array elements, in order, each taken at most once.
  std::vector<std::pair<ShapeIndex, const Shape*>> outputs;
  ForEachSubshape(entry->root()->shape(), [&](const Shape& s, const ShapeIndex& index) {
    if (s.IsArray() && !taken.contains(index)) outputs.push_back({index, &s});
  });
  DonationResult result;
  for (const DonatedParameter& p : donated) {
    const Shape& whole = entry->parameter(p.parameter)->shape();
    const ShapeIndex root_index = p.index.value_or(ShapeIndex());
    const Shape* below = Subshape(whole, root_index);
    ShapeIndex index = root_index;
    ForEachSubshape(
        *below,
        [&](const Shape& s, const ShapeIndex& at) {
          if (!s.IsArray() || donors.contains({p.parameter, at})) return;
          for (auto it = outputs.begin(); it != outputs.end(); ++it) {
            if (!it->second->Compatible(s)) continue;
            result.added.push_back({.output_index = it->first,
                                    .parameter = p.parameter,
                                    .parameter_index = at,
                                    .must_alias = false});
            outputs.erase(it);
            return;
          }
          result.unused.push_back(fmt::format("parameter {}{} {}", p.parameter,
                                              ShapeIndexToString(at), s.ToString(false)));
        },
        index);
  }
  if (!result.added.empty()) {
    aliases.insert(aliases.end(), result.added.begin(), result.added.end());
    module.SetAttribute("input_output_alias", InputOutputAliasText(aliases));
    module.set_input_output_aliases(std::move(aliases));
  }
  return result;
}

}  // namespace hloscope

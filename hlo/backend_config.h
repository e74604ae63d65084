// Reading fields of a custom-call's backend_config, the JSON text XLA:GPU writes there
// (gemm_backend_config, cudnn_conv_backend_config). Dumps write it bare, as a quoted string with
// escaped quotes, or (older ones) with unquoted keys; fields are found by name wherever they
// are nested, which is enough for the flat configs these custom-calls carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/instruction.h"

namespace hloscope {

// The backend_config text with escaped quotes unescaped ("" when there is none).
std::string BackendConfigText(const Instruction& instr);

// The text right after `key`'s colon (quoted or bare key), or nullopt when the key is absent.
std::optional<std::string_view> ConfigField(std::string_view json, std::string_view key);

// A number, written bare or quoted ("2"); nullopt when absent or not a number.
std::optional<double> ConfigNumber(std::string_view json, std::string_view key);

// A string or bare word (an enum name: "kRelu", "BIAS_RELU"), without its quotes.
std::optional<std::string_view> ConfigWord(std::string_view json, std::string_view key);

// A list of integers written as strings or numbers: ["1","0"] or [1, 0].
std::optional<std::vector<int64_t>> ConfigIntList(std::string_view json, std::string_view key);

}  // namespace hloscope

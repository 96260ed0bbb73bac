// Reads per-kernel resources out of ptxas's verbose report in the NVRTC log.
// It must never invent a number: a kernel whose lines are missing is simply not reported.
#pragma once

#include <string_view>
#include <vector>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

std::vector<KernelResources> parse_ptxas_report(std::string_view log);

}  // namespace kseek

// The run report printed after `iputrain train`: real and simulated time, per-IPU utilisation,
// the pipeline bubble and memory against the planner's estimate, in at most ten lines.
#pragma once

#include <string>

#include "iputrain/session.hpp"

namespace iputrain::cli {

std::string run_report_text(const RunReport& report);

}  // namespace iputrain::cli

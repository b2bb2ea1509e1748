// The run report printed after `iputrain train`: real and simulated time, per-IPU utilisation,
// the pipeline bubble and memory against the planner's estimate, in at most ten lines.
#pragma once

#include <string>

#include "iputrain/session.hpp"

namespace iputrain::cli {

//! `verbose`: the bubble measured, on the simulated clocks, planned and analytic; otherwise the
//! measured one alone.
std::string run_report_text(const RunReport& report, bool verbose = false);

}  // namespace iputrain::cli

// What changed between two plans, in the figures a user re-plans for: the shape of the cluster,
// where each stage runs, the memory peak of every IPU and the predicted throughput.
#pragma once

#include <string>

#include "iputrain/plan.hpp"

namespace iputrain::repl {

//! Lines of "  FIELD  OLD -> NEW", one per field; unchanged fields are listed as such so the
//! reader sees everything that was compared. Ends with a newline.
std::string plan_diff(const Plan& before, const Plan& after);

}  // namespace iputrain::repl

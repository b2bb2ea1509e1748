// `sweep KEY=v1,v2 [KEY=...]`: plans every combination of the listed values (on top of the
// current config, which stays as it is) and tabulates predicted throughput against peak memory,
// marking the Pareto-optimal rows.
#pragma once

#include <string>
#include <vector>

#include "cli/repl/state.hpp"

namespace iputrain::repl {

//! One swept key with its values as typed.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

//! Parses "KEY=v1,v2" arguments; commas inside [] or {} belong to the value ("[0,1],[1,0]").
//! Throws Error(Usage) for a malformed argument or more than `max_rows` combinations.
std::vector<SweepAxis> parse_sweep(const std::vector<std::string>& args, size_t max_rows = 64);

//! The table: one row per combination (in odometer order, last key fastest).
std::string run_sweep(const State& state, const std::vector<SweepAxis>& axes);

}  // namespace iputrain::repl

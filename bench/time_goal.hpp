// The command line of a benchmark with a time goal: its positional arguments (a budget first, then
// whatever else the benchmark takes) and `--no-time-goal`, with which CTest runs it: no CTest test
// is decided by the clock (issue 43), so the benchmark then prints its times and fails only on a
// wrong result.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace iputrain::bench {

struct TimeGoalArgs {
  bool time_goal = true;
  std::vector<std::string> positional;

  //! The first positional argument as a number (a budget in seconds, a share), or `fallback`.
  double number(double fallback) const { return positional.empty() ? fallback : std::atof(positional[0].c_str()); }
};

inline TimeGoalArgs time_goal_args(int argc, char** argv) {
  TimeGoalArgs args;
  for (int k = 1; k < argc; ++k) {
    if (std::string(argv[k]) == "--no-time-goal") {
      args.time_goal = false;
    } else {
      args.positional.emplace_back(argv[k]);
    }
  }
  return args;
}

}  // namespace iputrain::bench

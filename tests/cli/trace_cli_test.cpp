// `iputrain train --trace`: the Chrome trace of a real pipelined run shows the pipeline at work.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::iputrain;
using cli_test::Run;

struct Interval {
  double begin = 0;
  double end = 0;
};

// Compute slices (forward, recompute, backward) of one process, per thread, sorted by begin.
std::map<int, std::vector<Interval>> compute_slices(const nlohmann::json& trace, int pid) {
  static const std::set<std::string> compute = {"forward", "recompute", "backward"};
  std::map<int, std::vector<Interval>> out;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == pid && compute.count(e["cat"].get<std::string>()) > 0) {
      const double ts = e["ts"];
      out[e["tid"].get<int>()].push_back({ts, ts + e["dur"].get<double>()});
    }
  }
  for (auto& [tid, v] : out) {
    std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  }
  return out;
}

double overlap(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  double sum = 0;
  for (const Interval& a : x) {
    for (const Interval& b : y) {
      sum += std::max(0.0, std::min(a.end, b.end) - std::max(a.begin, b.begin));
    }
  }
  return sum;
}

// The largest compute overlap between two different threads of `pid`, and how many thread pairs
// overlap at all.
std::pair<double, int> best_overlap(const nlohmann::json& trace, int pid) {
  const auto slices = compute_slices(trace, pid);
  double best = 0;
  int pairs = 0;
  for (auto a = slices.begin(); a != slices.end(); ++a) {
    for (auto b = std::next(a); b != slices.end(); ++b) {
      const double o = overlap(a->second, b->second);
      best = std::max(best, o);
      pairs += o > 0 ? 1 : 0;
    }
  }
  return {best, pairs};
}

}  // namespace

TEST_CASE("the trace of a 4-stage grouped run shows stage work overlapping on different IPU tracks") {
  const auto dir = iputrain_tests::scratch_dir("cli_test");
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "four_stage_trace.json").string();
  std::filesystem::remove(path);

  const Run r = iputrain("train cases/four_stage.ipu cases/four_stage_grouped.toml -q --no-eval --trace " + path);
  INFO(r.out);
  REQUIRE(r.status == 0);
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json trace = nlohmann::json::parse(text.str());

  // Every stage ran on its own IPU track, in both clocks.
  for (const int pid : {1, 2}) {
    std::map<int, std::set<int64_t>> stages_per_tid;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "X" && e["pid"] == pid && e["cat"] == "forward") {
        stages_per_tid[e["tid"].get<int>()].insert(e["args"]["stage"].get<int64_t>());
      }
    }
    CHECK(stages_per_tid.size() == 4);
    for (const auto& [tid, stages] : stages_per_tid) {
      CHECK(stages.size() == 1);
    }
  }

  // Real time: the worker threads of different IPUs were inside stage kernels at the same time.
  const auto [real_best, real_pairs] = best_overlap(trace, 1);
  MESSAGE("largest real-time compute overlap between two IPU tracks: " << real_best << " us over " << real_pairs
                                                                       << " pairs");
  CHECK(real_best > 0);
  CHECK(real_pairs >= 1);
  // The simulated clock follows the schedule, where neighbouring stages work on different
  // micro-batches at once.
  const auto [sim_best, sim_pairs] = best_overlap(trace, 2);
  CHECK(sim_best > 0);
  CHECK(sim_pairs >= 3);
}

// How long the planner takes on the configurations Graphcore published (examples/ipu_scale), what
// it predicts for them, and the published figure where there is one; end to end (config and model
// parsed, planned, the JSON report written) beside the planning time. Each is planned three times
// (best time kept). Times are the planning thread's CPU time (the planner is single-threaded), so
// other work sharing the machine does not count; the wall time of the planning is printed beside.
// The ones already planned within the budget (1 s end to end; `ipu_scale_plan SECONDS` to change
// it) must stay there; the others are printed as not yet within it, with their time.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"
#include "planner/plan.hpp"
#include "planner/report.hpp"

using namespace iputrain;

namespace {

struct Example {
  const char* model;
  const char* config;
  bool within_budget;  // planned under the budget today: a regression fails the benchmark
  double published;    // samples/s Graphcore published for this configuration; 0 = none here
};

// BERT-Base: Graphcore's performance results, PopART SDK 3.1, Bow Pod16, global batch 65,536.
const std::vector<Example> kExamples = {
    {"bert.ipu", "bert_base_128.toml", true, 16391},   {"bert.ipu", "bert_tiny.toml", true, 0},
    {"resnet50.ipu", "resnet50.toml", true, 0},        {"resnet50.ipu", "resnet50_pod16.toml", true, 0},
    {"resnet50.ipu", "resnet50_pod64.toml", true, 0},   // published figure held back (issue 31)
    {"resnet50.ipu", "resnet50_pod256.toml", true, 0},  // published figure held back (issue 31)
    {"bert.ipu", "bert_large_128.toml", true, 0},      {"gpt2_small.ipu", "gpt2_small.toml", true, 0},
    {"gpt2_medium.ipu", "gpt2_medium.toml", true, 0},  {"vit.ipu", "vit_b16.toml", true, 0},
    {"resnext101.ipu", "resnext101.toml", true, 0},    {"efficientnet_b4.ipu", "efficientnet_b4_pod16.toml", true, 0},
    {"conformer.ipu", "conformer.toml", true, 0},
};

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Timed {
  planner::Plan plan;
  std::string verdict;  //!< "fits" or "does not fit"
  double best = 1e30;   //!< CPU seconds of the fastest run
  double wall = 1e30;   //!< wall seconds of the fastest run
};

// Plans `runs` times; the last plan and the fastest time.
Timed plan_timed(const Model& model, const Config& config, int runs) {
  Timed t;
  for (int run = 0; run < runs; ++run) {
    const double cpu_start = thread_cpu_seconds();
    const double wall_start = wall_seconds();
    try {
      t.plan = planner::make_plan(graph_of(model), config);
      t.verdict = "fits";
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Plan) {
        throw;
      }
      t.verdict = "does not fit";
    }
    t.best = std::min(t.best, thread_cpu_seconds() - cpu_start);
    t.wall = std::min(t.wall, wall_seconds() - wall_start);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const double budget = argc > 1 ? std::atof(argv[1]) : 1.0;
  const std::string dir = std::string(IPUTRAIN_SOURCE_DIR) + "/examples/ipu_scale/";
  int failures = 0;
  for (const Example& ex : kExamples) {
    try {
      // End to end as `iputrain plan MODEL CONFIG --format json` runs it: parse, plan, report.
      const double start = thread_cpu_seconds();
      const Config config = config::load(dir + ex.config);
      const Model model = Model::load(dir + ex.model, config);
      const double parse = thread_cpu_seconds() - start;
      const auto [plan, verdict, best, wall] = plan_timed(model, config, ex.within_budget ? 3 : 1);
      const double report_start = thread_cpu_seconds();
      const size_t json_bytes = verdict == "fits" ? planner::plan_json(plan, ex.model).size() : 0;
      const double end_to_end = parse + best + thread_cpu_seconds() - report_start;
      std::string peaks;
      for (const planner::IpuMemory& m : plan.memory) {
        peaks += fmt::format("{}{:.0f}", peaks.empty() ? "" : " ", static_cast<double>(m.total_peak) / (1 << 20));
      }
      fmt::print("{:<26} {:>6.3f} s ({:.3f} s end to end, {:.3f} s wall; {} KiB of JSON)  {:<13}", ex.config, best,
                 end_to_end, wall, json_bytes / 1024, verdict);
      if (verdict == "fits") {
        fmt::print("  peak MiB per IPU [{}]  predicted {:.0f} samples/s", peaks, plan.cost.samples_per_second);
        if (ex.published > 0) {
          fmt::print(" (published {:.0f}, ratio {:.2f})", ex.published, plan.cost.samples_per_second / ex.published);
        }
      }
      if (!ex.within_budget && verdict != "fits") {
        fmt::print("  FAIL: no longer fits");
        ++failures;
      } else if (!ex.within_budget) {
        fmt::print("  [not yet within the {:.1f} s budget]", budget);
      } else if (end_to_end >= budget || verdict != "fits") {
        fmt::print("  FAIL: over the {:.1f} s budget or no longer fits", budget);
        ++failures;
      }
      fmt::print("\n");
    } catch (const Error& e) {
      fmt::print("{}: error: {}\n", ex.config, e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

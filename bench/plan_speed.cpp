// How long the planner takes on a deep model: a 1,000-layer MLP (written with `for` loops in the
// model language) in 4 pipeline stages on 4 IPUs, grouped schedule, 8 micro-batches per update.
// Prints the time of every pass of make_plan, best of a few runs, and fails above the budget
// (1 s by default; `plan_speed SECONDS` to change it). A second run splits the same layers
// without declared stages by `pipeline.auto_stages = 4`. `--no-time-goal` (CTest's: no CTest test
// is decided by the clock, issue 43) prints the same figures and fails only on an error.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <string>

#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"
#include "planner/plan.hpp"
#include "time_goal.hpp"

using namespace iputrain;

namespace {

constexpr int kLayers = 1000;
constexpr int kStages = 4;

// `stages` stages of dense layers (the last one's final layer makes the logits), or one
// stage-less body when `stages` is 0.
std::string model_text(int stages) {
  const int per_stage = kLayers / std::max(stages, 1);
  std::string body;
  auto layers = [](int n) {
    return fmt::format("    for i in 0..{} {{ h = nn.dense(h, width, activation = relu) }}\n", n);
  };
  const std::string head = "    h = x\n";
  const std::string tail =
      "    logits = nn.dense(h, 10)\n"
      "    loss = mean(softmax_cross_entropy(logits, y))\n";
  if (stages == 0) {
    body = head + layers(kLayers - 1) + tail;
  } else {
    for (int s = 0; s < stages; ++s) {
      const bool first = s == 0;
      const bool last = s + 1 == stages;
      body += fmt::format("  stage s{} {{\n{}{}{}  }}\n", s, first ? head : "", layers(last ? per_stage - 1 : per_stage),
                          last ? tail : "");
    }
  }
  return fmt::format(
      "import nn\n"
      "model deep_mlp(batch: int = 32, width: int = 256) {{\n"
      "  input x: f32[batch, width]\n"
      "  input y: i32[batch]\n"
      "{}"
      "  minimize loss\n"
      "  output loss\n"
      "}}\n",
      body);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Plans `runs` times; returns the best total and the pass timings of that run.
double time_plan(const std::string& title, const Model& model, const Config& config, int runs) {
  double best = 1e30;
  planner::Plan best_plan;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    planner::Plan plan = planner::make_plan(graph_of(model), config::resolve(config));
    const double total = seconds_since(start);
    if (total < best) {
      best = total;
      best_plan = std::move(plan);
    }
  }
  fmt::print("{}: {} IR nodes after autodiff, {} stages on {} IPUs, {} instructions per cycle\n", title,
             best_plan.graph.size(), best_plan.graph.stages.size(), best_plan.placement.pipeline.ipus_per_replica,
             [&] {
               size_t n = 0;
               for (const auto& p : best_plan.programs.ipus) {
                 n += p.size();
               }
               return n;
             }());
  for (const auto& t : best_plan.timings) {
    fmt::print("  {:<12} {:9.2f} ms\n", t.pass, t.ms);
  }
  fmt::print("  {:<12} {:9.2f} ms  (best of {})\n", "total", best * 1e3, runs);
  fmt::print("  predicted: {:.0f} samples/s, bubble {:.3f} (analytic {:.3f}), peak memory of IPU 0 {:.1f} MiB\n",
             best_plan.cost.samples_per_second, best_plan.cost.bubble_fraction,
             best_plan.cost.analytic_bubble_fraction,
             best_plan.memory.empty() ? 0.0 : static_cast<double>(best_plan.memory[0].total_peak) / (1 << 20));
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::TimeGoalArgs args = bench::time_goal_args(argc, argv);
  const double budget = args.number(1.0);
  const bool time_goal = args.time_goal;
  try {
    // The [pipeline] table comes last so that the auto-staged run can append to it.
    const std::string config_text = fmt::format(
        "[ipu]\nauto_select_ipus = {}\n[pipeline]\nschedule = \"grouped\"\ngradient_accumulation_count = 8\n", kStages);
    auto start = std::chrono::steady_clock::now();
    const Model staged = Model::parse(model_text(kStages), "deep_mlp.ipu");
    fmt::print("model text to IR (frontend, not part of the plan): {:.0f} ms\n", seconds_since(start) * 1e3);
    const double declared =
        time_plan(fmt::format("{}-layer MLP, declared stages", kLayers), staged, config::parse(config_text), 3);

    start = std::chrono::steady_clock::now();
    const Model flat = Model::parse(model_text(0), "deep_mlp.ipu");
    fmt::print("model text to IR (frontend): {:.0f} ms\n", seconds_since(start) * 1e3);
    const double automatic = time_plan(fmt::format("{}-layer MLP, pipeline.auto_stages = {}", kLayers, kStages), flat,
                                       config::parse(config_text + fmt::format("auto_stages = {}\n", kStages)), 3);

    const double worst = std::max(declared, automatic);
    if (!time_goal) {
      fmt::print("{:.3f} s against the {:.3f} s budget: not checked (--no-time-goal)\n", worst, budget);
    } else if (worst >= budget) {
      fmt::print("FAIL: planning took {:.3f} s, the budget is {:.3f} s\n", worst, budget);
      return 1;
    } else {
      fmt::print("ok: within the {:.3f} s budget\n", budget);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
  return 0;
}

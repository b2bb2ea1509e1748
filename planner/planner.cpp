// The pass list. Every pass runs through run_pass(), which times it, verifies the IR after it and
// dumps the IR when asked (`--dump-after=PASS`).
#include <chrono>
#include <functional>

#include <fmt/format.h>

#include "planner/autodiff.hpp"
#include "planner/plan.hpp"
#include "planner/program.hpp"

namespace iputrain::planner {

namespace {

class PassRunner {
 public:
  PassRunner(Plan& plan, const PlanOptions& options) : plan_(plan), options_(options) {}

  void run(const char* name, const std::function<void()>& pass) {
    const auto start = std::chrono::steady_clock::now();
    pass();
    const auto end = std::chrono::steady_clock::now();
    plan_.timings.push_back({name, std::chrono::duration<double, std::milli>(end - start).count()});
    plan_.graph.verify();
    if (options_.dumps != nullptr) {
      for (const auto& want : options_.dump_after) {
        if (want == name) {
          *options_.dumps += fmt::format("// IR after {}\n{}", name, plan_.graph.str());
        }
      }
    }
  }

 private:
  Plan& plan_;
  const PlanOptions& options_;
};

std::vector<ir::ValueId> output_roots(const ir::Graph& g) {
  std::vector<ir::ValueId> roots{g.loss};
  for (const auto& o : g.outputs) {
    roots.push_back(o.value);
  }
  return roots;
}

}  // namespace

Plan make_plan(const ir::Graph& forward, const PlanOptions& options) {
  Plan plan;
  plan.graph = forward;
  PassRunner passes(plan, options);

  // The frontend's graph must already be well-formed; checking here localises frontend bugs.
  passes.run("verify", [] {});
  // Reverse-mode autodiff appends the backward graph, stage by stage, when there is an objective.
  passes.run("autodiff", [&] {
    if (plan.graph.loss != ir::kNoValue) {
      plan.grads = differentiate(plan.graph);
    }
  });
  // The programs keep only the nodes their results need (dead backward branches are dropped).
  passes.run("programs", [&] {
    plan.eval_program = live_program(plan.graph, output_roots(plan.graph));
    if (plan.graph.loss != ir::kNoValue) {
      std::vector<ir::ValueId> roots = output_roots(plan.graph);
      roots.insert(roots.end(), plan.grads.begin(), plan.grads.end());
      plan.train_program = live_program(plan.graph, roots);
    }
  });
  return plan;
}

}  // namespace iputrain::planner

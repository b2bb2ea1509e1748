// pipeline.batch_serialization_iterations = N: each stage computes its micro-batch of B samples as N
// slices of B / N, one after another, every slice accumulated like a micro-batch of its own. That is
// the computation of the run with micro-batch B / N and N times the accumulation count, so the
// weights must be bitwise those of that run; only the order of the tasks (a stage's N slices back to
// back) and so the memory differ, and the cluster must measure what the plan says.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../scratch_dir.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/iputrain.hpp"
#include "planner/plan.hpp"
#include "test_models.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;

namespace {

struct Run {
  std::vector<WeightInfo> weights;
  RunReport report;
  planner::Plan plan;
};

Run train(const std::string& optimizer, int64_t batch, int64_t accumulation, int64_t slices, int32_t replicas) {
  const std::string text = "[optimizer]\ntype = \"" + optimizer +
                           "\"\nlearning_rate = 0.01\n[data]\ntrain = \"synthetic:samples=1024,classes=10\"\n"
                           "batch_size = " + std::to_string(batch) +
                           "\n[training]\nsteps = 5\nseed = 11\n[ipu]\nauto_select_ipus = " + std::to_string(replicas) +
                           "\n[pipeline]\ndevice_mapping = [0, 0, 0, 0]\nschedule = \"sequential\"\n"
                           "gradient_accumulation_count = " + std::to_string(accumulation) +
                           "\nbatch_serialization_iterations = " + std::to_string(slices) + "\n";
  const Config config = config::parse(text, "bs.toml");
  // Loaded as the CLI does, so that data.batch_size builds the model at the slice size.
  const auto path = iputrain_tests::scratch_dir("batch_serialization") / "model.ipu";
  std::ofstream(path) << testing::kMlp4;
  const Model model = Model::load(path.string(), config);
  Run r{{}, {}, planner::make_plan(graph_of(model), config)};
  Session session(model, config);
  session.train();
  r.weights = session.weights();
  r.report = session.run_report();
  return r;
}

}  // namespace

TEST_CASE("batch serialization computes the slices as micro-batches: the same bits, stage by stage") {
  for (const char* optimizer : {"sgd", "adam"}) {
    for (int64_t slices : {2, 4}) {
      for (int32_t replicas : {1, 2}) {
        CAPTURE(optimizer);
        CAPTURE(slices);
        CAPTURE(replicas);
        const Run serialized = train(optimizer, 8, 2, slices, replicas);
        const Run reference = train(optimizer, 8 / slices, 2 * slices, 1, replicas);
        CHECK(testing::same_bits(serialized.weights, reference.weights));
        // Same samples per update, the model built at the slice size.
        CHECK(serialized.plan.micro_batch() == 8 / slices);
        CHECK(serialized.plan.decided.accumulation_count == 2 * slices);
        CHECK(serialized.plan.global_batch() == 16 * replicas);
        // Each stage runs its slices back to back: the first timesteps are stage 0's forwards.
        const auto& steps = serialized.plan.timeline.steps;
        for (int64_t k = 0; k < slices; ++k) {
          REQUIRE(steps.at(static_cast<size_t>(k)).at(0).size() == 1);
          const planner::Task& t = steps[static_cast<size_t>(k)][0][0];
          CHECK(t.position == 0);
          CHECK(t.phase == planner::Work::Forward);
          CHECK(t.micro_batch == k);
        }
        // Every slice of a stage is live at once until its backward: more activation memory than
        // the slices one by one, measured as planned.
        CHECK(serialized.plan.memory[0].activations_peak > reference.plan.memory[0].activations_peak);
        for (const IpuReport& ipu : serialized.report.ipus) {
          CHECK(ipu.memory_peak == ipu.memory_estimate);
        }
      }
    }
  }
}

TEST_CASE("batch serialization: the micro-batch must split evenly and the model's batch is the slice") {
  const std::string base = "[pipeline]\nbatch_serialization_iterations = 4\n[data]\ntrain = \"synthetic:samples=64,classes=10\"\n";
  CHECK_THROWS_WITH_AS(config::parse(base + "batch_size = 6\n", "b.toml"),
                       doctest::Contains("cannot be split into 4 equal slices"), Error);
  CHECK_THROWS_WITH_AS(config::parse(base, "b.toml"), doctest::Contains("`data.batch_size`"), Error);
  CHECK_THROWS_WITH_AS(config::parse(base + "batch_size = 8\n[model]\nbatch = 2\n", "b.toml"),
                       doctest::Contains("slice size"), Error);
  // The default, written out, changes nothing.
  const Config one = config::parse("[pipeline]\nbatch_serialization_iterations = 1\n", "b.toml");
  CHECK(one.plain.pipeline_batch_serialization_iterations == 1);
}

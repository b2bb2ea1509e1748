#include <doctest/doctest.h>
#include <fmt/format.h>

#include "core/ir/graph.hpp"
#include "iputrain/config_loader.hpp"
#include "planner/cost_model.hpp"
#include "planner/plan.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;

namespace {

// x[32, 256] -> relu(x @ w1[256, 512]) (stage a) -> mean(h @ w2[512, outputs]) (stage b). With
// outputs = 256, stage b is as costly as stage a (the bubble then comes from the schedule alone,
// not from one stage outweighing the other).
Graph mlp(int64_t outputs = 10) {
  Graph g;
  g.stages = {{"a", {}, -1}, {"b", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {32, 256}});
  const ValueId w1 = g.add_param("a/w1", {DType::F32, {256, 512}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h = g.add(OpKind::Relu, {g.add(OpKind::MatMul, {x, w1})});
  g.set_cursor(1, Phase::Forward);
  const ValueId w2 = g.add_param("b/w2", {DType::F32, {512, outputs}}, Attrs{{"init", std::string("zeros")}});
  g.loss = g.add(OpKind::Mean, {g.add(OpKind::MatMul, {h, w2})}, Attrs{{"axes", std::vector<int64_t>{}}});
  return g;
}

}  // namespace

TEST_CASE("a matmul costs its FLOPs over the tiles' throughput, plus the step overhead") {
  const Graph g = mlp();
  const DeviceModel d = DeviceModel::ipu2();
  ValueId mm = kNoValue;
  for (ValueId id = 0; id < g.size(); ++id) {
    if (g.node(id).op == OpKind::MatMul) {
      mm = id;
      break;
    }
  }
  const double flops = 2.0 * 32 * 256 * 512;
  // At the calibrated share of the peak rate (device.compute_efficiency = 0.39).
  CHECK(d.compute_efficiency == 0.39);
  CHECK(op_cycles(g, mm, d) == doctest::Approx(flops / (1472 * 32.0 * 0.39) + 200));
  DeviceModel peak = d;
  peak.compute_efficiency = 1.0;
  CHECK(op_cycles(g, mm, peak) == doctest::Approx(flops / (1472 * 32.0) + 200));
  CHECK(op_cycles(g, 0, d) == 0);  // an input costs nothing
  CHECK(op_cycles(g, mm, DeviceModel::ipu1()) > op_cycles(g, mm, d));
}

TEST_CASE("the activation crossing a stage boundary is what the link carries") {
  const Plan plan = make_plan(mlp());
  const Pipeline p = make_pipeline(plan.graph, {}, false);
  // Forward: h = f32[32, 512]; backward: its gradient, same size.
  CHECK(boundary_bytes(plan.graph, p, 0, plan.train_program) == 2 * 32 * 512 * 4);
}

TEST_CASE("the simulated bubble falls with more micro-batches, sequential keeps one IPU busy at a time") {
  auto plan_with = [](const std::string& schedule, int64_t micro_batches) {
    return make_plan(mlp(256), config::parse(fmt::format("[ipu]\nauto_select_ipus = 2\n[pipeline]\nschedule = \"{}\"\n"
                                                         "gradient_accumulation_count = {}\n",
                                                         schedule, micro_batches)));
  };
  const CostReport few = plan_with("grouped", 4).cost;
  const CostReport many = plan_with("grouped", 64).cost;
  CHECK(few.bubble_fraction > many.bubble_fraction);
  CHECK(many.bubble_fraction > 0.0);
  CHECK(few.cycles_per_update < many.cycles_per_update);
  // 16 times the micro-batches: the update costs more, but less than 16 times as much.
  CHECK(many.cycles_per_update < 16 * few.cycles_per_update);
  const CostReport seq = plan_with("sequential", 4).cost;
  // Two IPUs, one computing at a time: idle about half the time (less the links, which count as
  // the tasks' work).
  CHECK(seq.bubble_fraction > 0.4);
  CHECK(seq.bubble_fraction < 0.5);
  CHECK(seq.cycles_per_update > few.cycles_per_update);
}

TEST_CASE(
    "device presets: bow runs the ipu2's cycles faster in the same memory, the tile count sets capacity") {
  auto plan_on = [](const std::string& device) {
    return make_plan(
        mlp(), config::parse("[ipu]\nauto_select_ipus = 2\n[pipeline]\ngradient_accumulation_count = 4\n" + device));
  };
  const Plan mk2 = plan_on("");
  const Plan bow = plan_on("[device]\nversion = \"bow\"\n");
  CHECK(mk2.settings.device.name == "ipu2");
  CHECK(bow.settings.device.name == "bow");
  CHECK(bow.settings.device.clock_hz == 1.85e9);
  // Same tiles and memory: the same capacity and the same bytes.
  for (size_t i = 0; i < 2; ++i) {
    CHECK(bow.memory[i].capacity == mk2.memory[i].capacity);
    CHECK(bow.memory[i].capacity == 1472LL * 624 * 1024);
    CHECK(bow.memory[i].total_peak == mk2.memory[i].total_peak);
  }
  // Kernels take the same cycles, which pass faster; transfers at the same bandwidth take more
  // cycles of the faster clock. Every update still takes less time.
  CHECK(bow.cost.cycles_per_update >= mk2.cost.cycles_per_update);
  const double mk2_seconds = mk2.cost.cycles_per_update / mk2.settings.device.clock_hz;
  const double bow_seconds = bow.cost.cycles_per_update / bow.settings.device.clock_hz;
  CHECK(bow_seconds < mk2_seconds);
  CHECK(bow_seconds > mk2_seconds * 1.33 / 1.85 * 0.999);
  CHECK(bow.cost.samples_per_second > mk2.cost.samples_per_second);
  // `ipu.ipu_model.version` picks the same preset.
  CHECK(plan_on("[ipu.ipu_model]\nversion = \"bow\"\n").cost.cycles_per_update == bow.cost.cycles_per_update);

  // The IPU Model's tile count changes the device: capacity = tiles x bytes per tile, and a
  // kernel spread over fewer tiles takes more cycles.
  const Plan small = plan_on("[ipu.ipu_model]\ntiles_per_ipu = 736\n");
  CHECK(small.settings.device.tiles == 736);
  CHECK(small.memory[0].capacity == 736LL * 624 * 1024);
  CHECK(small.memory[0].capacity * 2 == mk2.memory[0].capacity);
  CHECK(small.cost.cycles_per_update > mk2.cost.cycles_per_update);
  const Plan ipu1 = plan_on("[ipu.ipu_model]\nversion = \"ipu1\"\ntiles_per_ipu = 100\n");
  CHECK(ipu1.memory[0].capacity == 100LL * 256 * 1024);
}

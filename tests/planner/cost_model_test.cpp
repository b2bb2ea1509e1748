#include <doctest/doctest.h>

#include "core/ir/graph.hpp"
#include "planner/cost_model.hpp"
#include "planner/plan.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;

namespace {

// x[32, 256] -> relu(x @ w1[256, 512]) (stage a) -> mean(h @ w2[512, 10]) (stage b).
Graph mlp() {
  Graph g;
  g.stages = {{"a", {}, -1}, {"b", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {32, 256}});
  const ValueId w1 = g.add_param("a/w1", {DType::F32, {256, 512}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h = g.add(OpKind::Relu, {g.add(OpKind::MatMul, {x, w1})});
  g.set_cursor(1, Phase::Forward);
  const ValueId w2 = g.add_param("b/w2", {DType::F32, {512, 10}}, Attrs{{"init", std::string("zeros")}});
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
  CHECK(op_cycles(g, mm, d) == doctest::Approx(flops / (1472 * 32.0) + 200));
  CHECK(op_cycles(g, 0, d) == 0);  // an input costs nothing
  CHECK(op_cycles(g, mm, DeviceModel::ipu1()) > op_cycles(g, mm, d));
}

TEST_CASE("the activation crossing a stage boundary is what the link carries") {
  const Plan plan = make_plan(mlp());
  const Pipeline p = make_pipeline(plan.graph, {}, false);
  // Forward: h = f32[32, 512]; backward: its gradient, same size.
  CHECK(boundary_bytes(plan.graph, p, 0, plan.train_program) == 2 * 32 * 512 * 4);
}

TEST_CASE("the simulated bubble falls with more micro-batches and follows the analytic trend") {
  const Plan plan = make_plan(mlp());
  const Pipeline p = make_pipeline(plan.graph, {}, false);
  const DeviceModel d = DeviceModel::ipu2();
  const TimelineCost few = simulate(plan.graph, p, make_timeline(p, ScheduleKind::Grouped, 4, true),
                                    plan.train_program, d);
  const TimelineCost many = simulate(plan.graph, p, make_timeline(p, ScheduleKind::Grouped, 64, true),
                                     plan.train_program, d);
  CHECK(few.bubble > many.bubble);
  CHECK(many.bubble > 0.0);
  // Work is conserved: the IPUs are busy for 64 micro-batches' worth of both stages' cycles.
  const double per_micro_batch = few.busy_cycles[0] / 4 + few.busy_cycles[1] / 4;
  CHECK(many.busy_cycles[0] + many.busy_cycles[1] == doctest::Approx(64 * per_micro_batch));
  CHECK(few.cycles < many.cycles);
  const TimelineCost seq = simulate(plan.graph, p, make_timeline(p, ScheduleKind::Sequential, 4, true),
                                    plan.train_program, d);
  CHECK(seq.bubble >= 0.45);  // two IPUs, one busy at a time
  CHECK(seq.cycles > few.cycles);
}

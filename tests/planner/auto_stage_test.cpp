// Automatic staging: balanced stages, cut where few bytes cross, parameters with their users,
// values flowing only to later stages.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "iputrain/config_loader.hpp"
#include "planner/auto_stage.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;

namespace {

const Attrs kZeros{{"init", std::string("zeros")}};

// `layers` dense layers relu(h @ w + b) of one width, one stage; the loss is the mean.
Graph mlp(int32_t layers, int64_t batch = 32, int64_t width = 256) {
  Graph g;
  ValueId h = g.add_input("x", {DType::F32, {batch, width}});
  for (int32_t l = 0; l < layers; ++l) {
    const ValueId w = g.add_param(fmt::format("dense_{}/kernel", l), {DType::F32, {width, width}}, kZeros);
    const ValueId b = g.add_param(fmt::format("dense_{}/bias", l), {DType::F32, {width}}, kZeros);
    h = g.add(OpKind::Relu, {g.add(OpKind::Add, {g.add(OpKind::MatMul, {h, w}), b})});
  }
  g.loss = g.add(OpKind::Mean, {h}, Attrs{{"axes", std::vector<int64_t>{}}});
  g.outputs.push_back({"loss", g.loss, {}});
  return g;
}

// The estimate auto_stage balances: forward cycles, three times for nodes with a backward pass
// (every compute node of these models).
std::vector<double> stage_costs(const Graph& g, const DeviceModel& d) {
  std::vector<double> cost(g.stages.size(), 0.0);
  for (ValueId id = 0; id < g.size(); ++id) {
    cost[static_cast<size_t>(g.node(id).stage)] += op_cycles(g, id, d);
  }
  return cost;
}

// Values flow only to the same or later stages; parameters sit with every user; inputs in stage 0.
void check_stage_rule(const Graph& g) {
  for (ValueId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    if (n.op == OpKind::Input) {
      CHECK(n.stage == 0);
    }
    for (ValueId in : n.inputs) {
      CHECK(g.node(in).stage <= n.stage);
      if (g.node(in).op == OpKind::Param) {
        CHECK(g.node(in).stage == n.stage);
      }
    }
  }
}

}  // namespace

TEST_CASE("a 12-layer MLP splits into balanced stages") {
  const DeviceModel d = DeviceModel::ipu2();
  for (int32_t stages : {3, 4}) {
    Graph g = mlp(12);
    auto_stage(g, stages, d);
    REQUIRE(g.stages.size() == static_cast<size_t>(stages));
    CHECK(g.stages.front().name == "auto0");
    CHECK(g.stages.back().name == fmt::format("auto{}", stages - 1));
    check_stage_rule(g);
    const std::vector<double> cost = stage_costs(g, d);
    const double mean = std::accumulate(cost.begin(), cost.end(), 0.0) / stages;
    INFO("stages ", stages, ": ", fmt::format("{}", fmt::join(cost, ", ")));
    for (double c : cost) {
      CHECK(c > 0);  // every stage computes something
      CHECK(c <= 1.15 * mean);
      CHECK(c >= 0.85 * mean);
    }
  }
}

TEST_CASE("cuts go where one value crosses, not two") {
  // Residual blocks h = h + relu(h @ w): inside a block both h and the branch are live.
  Graph g;
  ValueId h = g.add_input("x", {DType::F32, {32, 256}});
  for (int32_t l = 0; l < 8; ++l) {
    const ValueId w = g.add_param(fmt::format("block_{}/w", l), {DType::F32, {256, 256}}, kZeros);
    h = g.add(OpKind::Add, {h, g.add(OpKind::Relu, {g.add(OpKind::MatMul, {h, w})})});
  }
  g.loss = g.add(OpKind::Mean, {h}, Attrs{{"axes", std::vector<int64_t>{}}});
  auto_stage(g, 4, DeviceModel::ipu2());
  check_stage_rule(g);
  // The last compute node of every stage but the last is a block's closing add.
  std::vector<ValueId> compute;
  for (ValueId id = 0; id < g.size(); ++id) {
    if (g.node(id).op != OpKind::Input && g.node(id).op != OpKind::Param) {
      compute.push_back(id);
    }
  }
  int32_t cuts = 0;
  for (size_t k = 0; k + 1 < compute.size(); ++k) {
    if (g.node(compute[k]).stage != g.node(compute[k + 1]).stage) {
      CHECK(g.node(compute[k]).op == OpKind::Add);
      ++cuts;
    }
  }
  CHECK(cuts == 3);
}

TEST_CASE("a parameter shared by every layer leaves only the cuts after its last user") {
  Graph g;
  ValueId h = g.add_input("x", {DType::F32, {4, 8}});
  const ValueId w = g.add_param("shared", {DType::F32, {8, 8}}, kZeros);
  for (int32_t l = 0; l < 4; ++l) {
    h = g.add(OpKind::Relu, {g.add(OpKind::MatMul, {h, w})});
  }
  g.loss = g.add(OpKind::Mean, {h}, Attrs{{"axes", std::vector<int64_t>{}}});
  // Cuttable: after the last matmul and after the last relu, so at most 3 stages.
  try {
    Graph four = g;
    auto_stage(four, 4, DeviceModel::ipu2());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Plan);
    CHECK(std::string(e.what()).find("4 stages: only 2 places") != std::string::npos);
    CHECK(e.hint().find("at most 3") != std::string::npos);
  }
  auto_stage(g, 3, DeviceModel::ipu2());
  check_stage_rule(g);
  Graph tiny = mlp(1);
  CHECK_THROWS_AS(auto_stage(tiny, 9, DeviceModel::ipu2()), Error);
}

TEST_CASE("pipeline.auto_stages stages a model for make_plan") {
  const Plan plan = make_plan(mlp(12), config::parse("[ipu]\nauto_select_ipus = 4\n[pipeline]\nauto_stages = 4\n"
                                                     "gradient_accumulation_count = 8\n"));
  CHECK(plan.graph.stages.size() == 4);
  CHECK(plan.placement.pipeline.ipus_per_replica == 4);
  CHECK(plan.memory.size() == 4);
  CHECK(plan.cost.bubble_fraction > 0);
}

TEST_CASE("auto_stage keeps every stage's weights, gradients and optimizer state within one IPU") {
  // 8 layers of 256 x 256 weights (256 KiB + bias each); an IPU of 1 MiB holds 4 layers' weights
  // but only one layer with its gradient and two optimizer copies (4 x 257 KiB).
  DeviceModel small = DeviceModel::ipu2();
  small.tiles = 4;
  small.bytes_per_tile = 256 * 1024 + 4096;
  const Graph ref = mlp(8);
  {
    Graph g = ref;
    auto_stage(g, 8, small, 4.0);  // one layer per stage fits
    check_stage_rule(g);
    std::vector<int64_t> weights(g.stages.size(), 0);
    for (ValueId p : g.params) {
      weights[static_cast<size_t>(g.node(p).stage)] += static_cast<int64_t>(g.type(p).bytes());
    }
    for (int64_t w : weights) {
      CHECK(4 * w <= small.memory_bytes());
    }
  }
  {
    Graph g = ref;
    try {
      auto_stage(g, 4, small, 4.0);  // two layers per stage would be needed: too big
      FAIL("a split that cannot fit was accepted");
    } catch (const iputrain::Error& e) {
      CHECK(std::string(e.what()).find("fit") != std::string::npos);
      CHECK(e.hint().find("at least 8") != std::string::npos);
    }
  }
  Graph g = ref;
  auto_stage(g, 4, small, 0.0);  // without the memory limit the same split is balanced by cost alone
  CHECK(g.stages.size() == 4);
}

#include <doctest/doctest.h>

#include "core/ir/graph.hpp"
#include "planner/autodiff.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
using namespace iputrain::ir;

namespace {

// Two stages: h = relu(x @ w1) in stage 0, loss = mean(h @ w2) in stage 1; `unused` is a param
// the loss does not depend on.
Graph two_stage_graph() {
  Graph g;
  g.stages = {{"a", {}, -1}, {"b", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {4, 3}});
  const ValueId w1 = g.add_param("a/w1", {DType::F32, {3, 5}}, Attrs{{"init", std::string("zeros")}});
  g.add_param("a/unused", {DType::F32, {2}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h = g.add(OpKind::Relu, {g.add(OpKind::MatMul, {x, w1})});
  g.set_cursor(1, Phase::Forward);
  const ValueId w2 = g.add_param("b/w2", {DType::F32, {5, 2}}, Attrs{{"init", std::string("zeros")}});
  g.loss = g.add(OpKind::Mean, {g.add(OpKind::MatMul, {h, w2})}, Attrs{{"axes", std::vector<int64_t>{}}});
  g.outputs.push_back({"loss", g.loss, {}});
  return g;
}

}  // namespace

TEST_CASE("autodiff gives a gradient per used parameter, shaped like it") {
  Graph g = two_stage_graph();
  const auto grads = planner::differentiate(g);
  g.verify();
  REQUIRE(grads.size() == 3);
  REQUIRE(grads[0].size() == 1);
  CHECK(g.type(grads[0][0]) == g.type(g.params[0]));
  CHECK(grads[1].empty());
  REQUIRE(grads[2].size() == 1);
  CHECK(g.type(grads[2][0]) == g.type(g.params[2]));
}

TEST_CASE("backward nodes run in the stage of the forward node they differentiate") {
  Graph g = two_stage_graph();
  const auto grads = planner::differentiate(g);
  CHECK(g.node(grads[0].at(0)).stage == 0);
  CHECK(g.node(grads[0].at(0)).phase == Phase::Backward);
  CHECK(g.node(grads[2].at(0)).stage == 1);
}

TEST_CASE("the training program leaves out gradients nobody needs") {
  const planner::Plan plan = planner::make_plan(two_stage_graph());
  // No gradient flows to the input x, so no node computes one: the only matmuls are the two
  // forward products, dh = dy @ w2^T and the two weight gradients.
  int matmuls = 0;
  for (ValueId id : plan.train_program) {
    matmuls += plan.graph.node(id).op == OpKind::MatMul ? 1 : 0;
  }
  CHECK(matmuls == 5);
  CHECK(plan.eval_program.size() < plan.train_program.size());
  std::vector<std::string> passes;
  for (const auto& t : plan.timings) {
    passes.push_back(t.pass);
  }
  CHECK(passes == planner::pass_names());
}

TEST_CASE("the pass list can dump the IR after a pass") {
  std::string dumps;
  planner::PlanOptions options;
  options.dump_after = {"autodiff"};
  options.dumps = &dumps;
  planner::make_plan(two_stage_graph(), options);
  CHECK(dumps.find("// after autodiff") != std::string::npos);
  CHECK(dumps.find("[bwd]") != std::string::npos);
}

TEST_CASE("a parameter read by two stages has one gradient part per stage, in stage order") {
  Graph g;
  g.stages = {{"a", {}, -1}, {"b", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {4, 3}});
  const ValueId w = g.add_param("a/w", {DType::F32, {3, 3}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h = g.add(OpKind::Relu, {g.add(OpKind::MatMul, {x, w})});
  g.set_cursor(1, Phase::Forward);
  // Stage b reads the same weight twice: one part, summed in stage b.
  const ValueId y = g.add(OpKind::MatMul, {g.add(OpKind::MatMul, {h, w}), w});
  g.loss = g.add(OpKind::Mean, {y}, Attrs{{"axes", std::vector<int64_t>{}}});
  const auto grads = planner::differentiate(g);
  g.verify();
  REQUIRE(grads.size() == 1);
  REQUIRE(grads[0].size() == 2);
  CHECK(g.node(grads[0][0]).stage == 0);
  CHECK(g.node(grads[0][1]).stage == 1);
  CHECK(g.node(grads[0][1]).op == OpKind::Add);
  CHECK(g.type(grads[0][1]) == g.type(w));

}

TEST_CASE("gradient parts follow the declared stages when automatic staging merged them") {
  Graph g;
  g.stages = {{"auto0", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {4, 3}});
  const ValueId w = g.add_param("w", {DType::F32, {3, 3}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h = g.add(OpKind::MatMul, {x, w});
  const ValueId y = g.add(OpKind::MatMul, {h, w});
  g.loss = g.add(OpKind::Mean, {y}, Attrs{{"axes", std::vector<int64_t>{}}});
  for (ValueId id = 0; id < g.size(); ++id) {
    g.node(id).model_stage = id >= y ? 1 : 0;  // the model declared y and the loss in a second stage
  }
  const auto grads = planner::differentiate(g);
  REQUIRE(grads[0].size() == 2);
  CHECK(g.node(grads[0][0]).stage == 0);
  CHECK(g.node(grads[0][1]).stage == 0);
}

TEST_CASE("a weight read in slices that tile it gets its gradient joined, not padded and added") {
  Graph g;
  g.stages = {{"a", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {2, 3}});
  const ValueId w = g.add_param("w", {DType::F32, {4, 3}}, Attrs{{"init", std::string("zeros")}});
  auto rows = [&](int64_t begin, int64_t end) {
    return g.add(OpKind::Slice, {w}, Attrs{{"begin", std::vector<int64_t>{begin, 0}}, {"end", std::vector<int64_t>{end, 3}}});
  };
  auto logits = [&](ValueId slice) {
    return g.add(OpKind::MatMul, {x, g.add(OpKind::Transpose, {slice}, Attrs{{"perm", std::vector<int64_t>{1, 0}}})});
  };
  // Rows 0-1 are read twice (summed first), rows 2-3 once: the windows tile w.
  const ValueId y = g.add(OpKind::Concat, {g.add(OpKind::Add, {logits(rows(0, 2)), logits(rows(0, 2))}), logits(rows(2, 4))},
                          Attrs{{"axis", int64_t{1}}});
  g.loss = g.add(OpKind::Mean, {y}, Attrs{{"axes", std::vector<int64_t>{}}});
  const auto grads = planner::differentiate(g);
  g.verify();
  REQUIRE(grads[0].size() == 1);
  const Node& joined = g.node(grads[0][0]);
  CHECK(joined.op == OpKind::Concat);
  REQUIRE(joined.inputs.size() == 2);
  CHECK(g.node(joined.inputs[0]).op == OpKind::Add);  // the two reads of rows 0-1
  CHECK(g.type(joined.inputs[0]).shape == Shape{2, 3});
  CHECK(g.type(joined.inputs[1]).shape == Shape{2, 3});
}

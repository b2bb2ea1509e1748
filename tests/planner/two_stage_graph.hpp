// The two-stage graph the memory-model and precision tests work out by hand.
#pragma once

#include <string>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner_test {

// x f32[4, 8] -> stage a: h = relu(x @ w1[8, 16]) -> stage b: loss = mean(h @ w2[16, 2]).
inline ir::Graph two_stage() {
  using namespace ir;
  Graph g;
  g.stages = {{"a", {}, -1}, {"b", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {4, 8}});
  const ValueId w1 = g.add_param("a/w1", {DType::F32, {8, 16}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h = g.add(OpKind::Relu, {g.add(OpKind::MatMul, {x, w1})});
  g.set_cursor(1, Phase::Forward);
  const ValueId w2 = g.add_param("b/w2", {DType::F32, {16, 2}}, Attrs{{"init", std::string("zeros")}});
  g.loss = g.add(OpKind::Mean, {g.add(OpKind::MatMul, {h, w2})}, Attrs{{"axes", std::vector<int64_t>{}}});
  g.outputs.push_back({"loss", g.loss, {}});
  return g;
}

}  // namespace iputrain::planner_test

// The fuse pass (planner/fusion.hpp): which consecutive kernels of a task run as one bias + relu
// kernel, decided from the op table's flags (fuse_bias_head, fuse_relu_tail), the types and the
// task's order, and recorded in the plan's stage programs for the engine.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"
#include "planner/fusion.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;

namespace {

const Attrs kFusionZeros{{"init", std::string("zeros")}};

// x [4, 3] and a bias [3]: the values of one dense layer's add and relu, by hand.
struct FusionCase {
  Graph g;
  ValueId x = kNoValue;
  ValueId w = kNoValue;
  ValueId b = kNoValue;
  ValueId mm = kNoValue;

  FusionCase() {
    x = g.add_input("x", {DType::F32, {4, 3}});
    w = g.add_param("w", {DType::F32, {3, 3}}, kFusionZeros);
    b = g.add_param("b", {DType::F32, {3}}, kFusionZeros);
    mm = g.add(OpKind::MatMul, {x, w});
  }
  Plan plan() const {
    Plan p;
    p.graph = g;
    return p;
  }
};

bool fusion_pairs_equal(const std::vector<FusedPair>& got, const std::vector<FusedPair>& want) {
  if (got.size() != want.size()) {
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].head != want[i].head || got[i].tail != want[i].tail) {
      return false;
    }
  }
  return true;
}

// The op table's flags without the two fusion bits: no op may head or end a fused kernel.
OpFlags fusion_flags_cleared(OpKind kind) {
  return op_flags_of(kind) & ~(op_flags::fuse_bias_head | op_flags::fuse_relu_tail);
}

// The op table's flags, and mul may head a fused kernel too (as a row that said so would).
OpFlags fusion_flags_mul_heads(OpKind kind) {
  return op_flags_of(kind) | (kind == OpKind::Mul ? op_flags::fuse_bias_head : op_flags::none);
}

int64_t fusion_count(const Plan& plan) {
  int64_t n = 0;
  for (const StagePrograms& sp : plan.programs.stages) {
    for (InstrKind kind : {InstrKind::Forward, InstrKind::Recompute, InstrKind::Backward, InstrKind::BackwardWeights}) {
      n += static_cast<int64_t>(sp.fused(kind).size());
    }
  }
  return n;
}

const char* kFusionDenseModel = R"(import nn
model dense_relu(batch: int = 4) {
  input x: f32[batch, 8]
  input y: i32[batch]
  h = nn.dense(x, 6, activation = relu)
  logits = nn.dense(h, 3)
  loss = mean(softmax_cross_entropy(logits, y))
  minimize loss
  output loss
}
)";

}  // namespace

TEST_CASE("fuse: a bias add and the relu right after it, reading only its sum, are one pair") {
  FusionCase c;
  const ValueId sum = c.g.add(OpKind::Add, {c.mm, c.b});
  const ValueId y = c.g.add(OpKind::Relu, {sum});
  const Plan plan = c.plan();
  CHECK(fusion_pairs_equal(fused_pairs(plan, {c.mm, sum, y}), {{sum, y}}));
  // Leaves have no kernel: a parameter listed between them does not separate the pair.
  CHECK(fusion_pairs_equal(fused_pairs(plan, {c.mm, sum, c.w, y}), {{sum, y}}));
  // Not in a row: another kernel (here the matmul) runs between them.
  CHECK(fused_pairs(plan, {sum, c.mm, y}).empty());
  // The relu before the add: a tail does not head.
  CHECK(fused_pairs(plan, {c.mm, y, sum}).empty());
}

TEST_CASE("fuse: no pair where a condition fails") {
  SUBCASE("the sum read by another op between the add and the relu") {
    FusionCase c;
    const ValueId sum = c.g.add(OpKind::Add, {c.mm, c.b});
    const ValueId twice = c.g.add(OpKind::Mul, {sum, sum});
    const ValueId y = c.g.add(OpKind::Relu, {sum});
    CHECK(fused_pairs(c.plan(), {c.mm, sum, twice, y}).empty());
    // Read after the relu, the sum is still written by the fused kernel: the pair stands.
    CHECK(fusion_pairs_equal(fused_pairs(c.plan(), {c.mm, sum, y, twice}), {{sum, y}}));
  }
  SUBCASE("an add of two full operands, not of a bias") {
    FusionCase c;
    const ValueId sum = c.g.add(OpKind::Add, {c.mm, c.x});
    const ValueId y = c.g.add(OpKind::Relu, {sum});
    CHECK(fused_pairs(c.plan(), {c.mm, sum, y}).empty());
  }
  SUBCASE("a bias along another dimension than the last") {
    FusionCase c;
    const ValueId col = c.g.add_param("col", {DType::F32, {4, 1}}, kFusionZeros);
    const ValueId sum = c.g.add(OpKind::Add, {c.mm, col});
    const ValueId y = c.g.add(OpKind::Relu, {sum});
    CHECK(fused_pairs(c.plan(), {c.mm, sum, y}).empty());
  }
  SUBCASE("the bias first") {
    FusionCase c;
    const ValueId sum = c.g.add(OpKind::Add, {c.b, c.mm});
    const ValueId y = c.g.add(OpKind::Relu, {sum});
    CHECK(fused_pairs(c.plan(), {c.mm, sum, y}).empty());
  }
  SUBCASE("the relu of another value") {
    FusionCase c;
    const ValueId sum = c.g.add(OpKind::Add, {c.mm, c.b});
    const ValueId y = c.g.add(OpKind::Relu, {c.mm});
    CHECK(fused_pairs(c.plan(), {c.mm, sum, y}).empty());
  }
  SUBCASE("a value the task hands on right after its kernel: a gradient part, a moving statistic") {
    FusionCase c;
    const ValueId sum = c.g.add(OpKind::Add, {c.mm, c.b});
    const ValueId y = c.g.add(OpKind::Relu, {sum});
    Plan plan = c.plan();
    plan.grads = {{sum}};
    CHECK(fused_pairs(plan, {c.mm, sum, y}).empty());
    plan.grads = {{y}};
    CHECK(fused_pairs(plan, {c.mm, sum, y}).empty());
    plan.grads.clear();
    plan.moving_statistics = {MovingStatistic{c.b, sum, 0.9}};
    CHECK(fused_pairs(plan, {c.mm, sum, y}).empty());
  }
}

TEST_CASE("fuse: the pairs come from the op flags alone") {
  FusionCase c;
  const ValueId sum = c.g.add(OpKind::Add, {c.mm, c.b});
  const ValueId y = c.g.add(OpKind::Relu, {sum});
  const ValueId scaled = c.g.add(OpKind::Mul, {c.mm, c.b});
  const ValueId z = c.g.add(OpKind::Relu, {scaled});
  const Plan plan = c.plan();
  const std::vector<ValueId> order = {c.mm, sum, y, scaled, z};
  CHECK(fusion_pairs_equal(fused_pairs(plan, order), {{sum, y}}));
  // The same graph and order with the two bits cleared from every row: nothing pairs.
  CHECK(fused_pairs(plan, order, fusion_flags_cleared).empty());
  // A row that gives mul the head's bit makes its pair with the relu after it.
  CHECK(fusion_pairs_equal(fused_pairs(plan, order, fusion_flags_mul_heads), {{sum, y}, {scaled, z}}));
}

TEST_CASE("fuse: the pass marks the dense relu layer of a planned model, in every task that runs it") {
  const Model m = Model::parse(kFusionDenseModel);
  const Plan plan = make_plan(graph_of(m));
  REQUIRE(plan.programs.stages.size() == 1);
  const StagePrograms& sp = plan.programs.stages[0];
  REQUIRE(sp.fused(InstrKind::Forward).size() == 1);
  const FusedPair pair = sp.fused(InstrKind::Forward)[0];
  CHECK(op_has(plan.graph.node(pair.head).op, op_flags::fuse_bias_head));
  CHECK(op_has(plan.graph.node(pair.tail).op, op_flags::fuse_relu_tail));
  CHECK(plan.graph.node(pair.tail).inputs == std::vector<ValueId>{pair.head});
  // The pair is consecutive among the forward task's kernels.
  const auto& fwd = sp.forward;
  const auto at = std::find(fwd.begin(), fwd.end(), pair.head);
  REQUIRE(at != fwd.end());
  REQUIRE(at + 1 != fwd.end());
  CHECK(*(at + 1) == pair.tail);
  // The backward has no bias add read by a relu: nothing there.
  CHECK(sp.fused(InstrKind::Backward).empty());
  CHECK(fusion_count(plan) == 1);
  // `--dump-after fuse` says it.
  CHECK(fused_str(plan).find("stage 0 forward: %") != std::string::npos);
  // Asked with the bits cleared, the pass marks nothing.
  Plan cleared = plan;
  fuse_kernels(cleared, fusion_flags_cleared);
  CHECK(fusion_count(cleared) == 0);
  // Planned without the activation, the model has no pair.
  std::string linear = kFusionDenseModel;
  linear.replace(linear.find(", activation = relu"), std::string(", activation = relu").size(), "");
  CHECK(fusion_count(make_plan(graph_of(Model::parse(linear)))) == 0);
}

// A model's repeated blocks (planner/blocks.hpp) and the stages cut at them: found whatever feeds
// the first block, with a head tied to the embedding seen as such, cut per pipeline.auto_stage_blocks,
// and preferred by automatic staging over cuts between ops that send fewer bytes.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "planner/auto_stage.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;

namespace blocks_test {

const Attrs kZeros{{"init", std::string("zeros")}};

ValueId dense(Graph& g, ValueId h, int64_t in, int64_t out, const std::string& name) {
  const ValueId w = g.add_param(name + "/kernel", {DType::F32, {in, out}}, kZeros);
  const ValueId b = g.add_param(name + "/bias", {DType::F32, {out}}, kZeros);
  return g.add(OpKind::Relu, {g.add(OpKind::Add, {g.add(OpKind::MatMul, {h, w}), b})});
}

// `layers` blocks of a narrow middle: width -> `narrow` -> width, so that the fewest bytes cross in
// the middle of a block, not between blocks. With `tied`, the input is an embedding lookup and the
// loss reads the table again (a tied head).
Graph bottlenecks(int32_t layers, bool tied, int64_t narrow = 16) {
  Graph g;
  const int64_t width = 128;
  ValueId h = kNoValue;
  ValueId table = kNoValue;
  if (tied) {
    table = g.add_param("table", {DType::F32, {64, width}}, kZeros);
    h = g.add(OpKind::Gather, {table, g.add_input("ids", {DType::I32, {32}})}, Attrs{{"axis", int64_t{0}}});
  } else {
    h = g.add_input("x", {DType::F32, {32, width}});
  }
  for (int32_t l = 0; l < layers; ++l) {
    h = dense(g, dense(g, h, width, narrow, fmt::format("down_{}", l)), narrow, width, fmt::format("up_{}", l));
  }
  if (tied) {
    h = g.add(OpKind::MatMul, {h, g.add(OpKind::Transpose, {table}, Attrs{{"perm", std::vector<int64_t>{1, 0}}})});
  }
  g.loss = g.add(OpKind::Mean, {h}, Attrs{{"axes", std::vector<int64_t>{}}});
  g.outputs.push_back({"loss", g.loss, {}});
  return g;
}

// The forward compute nodes in order, and each stage's last one.
std::vector<ValueId> stage_ends(const Graph& g) {
  std::vector<ValueId> ends(g.stages.size(), kNoValue);
  for (ValueId id = 0; id < g.size(); ++id) {
    if (!is_leaf(g.node(id))) {
      ends[static_cast<size_t>(g.node(id).stage)] = id;
    }
  }
  return ends;
}

// How many of the blocks' second dense layers (the up projections) each stage runs.
std::vector<int64_t> blocks_per_stage(const Graph& g) {
  std::vector<int64_t> out(g.stages.size(), 0);
  for (ValueId p : g.params) {
    if (g.node(p).name.rfind("up_", 0) == 0 && g.node(p).name.find("/kernel") != std::string::npos) {
      out[static_cast<size_t>(g.node(p).stage)] += 1;
    }
  }
  return out;
}

}  // namespace blocks_test

using namespace blocks_test;

TEST_CASE("a model's repeated blocks are found whatever feeds the first one") {
  for (bool tied : {false, true}) {
    CAPTURE(tied);
    const ModelBlocks b = model_blocks(bottlenecks(6, tied));
    CHECK(b.count == 6);
    CHECK(b.ops_per_block == 6);  // two of matmul, add, relu
    CHECK(b.tied_tail == tied);
  }
  CHECK(model_blocks(bottlenecks(1, false)).count == 0);  // one block repeats nothing
}

TEST_CASE("pipeline.auto_stage_blocks cuts at the blocks, the ends with the first and last stages") {
  Graph g = bottlenecks(6, true);
  auto_stage_blocks(g, {1, 3, 2, 0});
  REQUIRE(g.stages.size() == 4);
  CHECK(blocks_per_stage(g) == std::vector<int64_t>{1, 3, 2, 0});
  const std::vector<ValueId> ends = stage_ends(g);
  for (size_t s = 0; s + 1 < ends.size(); ++s) {
    CHECK(g.node(ends[s]).op == OpKind::Relu);  // each stage but the last ends with a block
  }
  CHECK(g.node(ends.back()).op == OpKind::Mean);  // the tied head alone in the last stage
  CHECK(g.node(g.params.front()).stage == 0);     // the table with its first reader

  Graph wrong = bottlenecks(6, true);
  try {
    auto_stage_blocks(wrong, {2, 2, 1});
    FAIL("5 blocks of 6 were accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("places 5 blocks, but the model repeats 6 blocks of 6 ops") != std::string::npos);
    CHECK(e.hint() == "give the stages 6 blocks in all");
  }
  Graph untied = bottlenecks(6, false);
  CHECK_THROWS_WITH_AS(auto_stage_blocks(untied, {0, 3, 3}), doctest::Contains("leaves stage 0 without an op"), Error);
  Graph middle = bottlenecks(6, false);
  CHECK_THROWS_AS(auto_stage_blocks(middle, {3, 0, 3}), Error);
}

TEST_CASE("automatic staging cuts between blocks before it cuts inside them") {
  // Inside a block 16 columns cross the narrow middle, between blocks 128: the cheapest cuts in
  // bytes are inside the blocks, and the balanced ones between them.
  Graph g = bottlenecks(8, false);
  auto_stage(g, 4, DeviceModel::ipu2());
  CHECK(blocks_per_stage(g) == std::vector<int64_t>{2, 2, 2, 2});
  const std::vector<ValueId> ends = stage_ends(g);
  for (size_t s = 0; s + 1 < ends.size(); ++s) {
    CHECK(g.node(ends[s]).type.shape.back() == 128);  // a block's output, not its narrow middle
  }
  // Too few blocks for the stages asked: cut between ops.
  Graph few = bottlenecks(2, false);
  auto_stage(few, 4, DeviceModel::ipu2());
  CHECK(few.stages.size() == 4);
}

TEST_CASE("pipeline.auto_stage_blocks plans a tied head back on IPU 0, and is checked against the model") {
  const std::string keys =
      "[ipu]\nauto_select_ipus = 4\n[pipeline]\nauto_stages = 5\nauto_stage_blocks = [2, 2, 1, 1, 0]\n"
      "device_mapping = [0, 1, 2, 3, 0]\ngradient_accumulation_count = 10\n";
  const Plan plan = make_plan(bottlenecks(6, true), config::parse(keys));
  CHECK(plan.graph.stages.size() == 5);
  CHECK(plan.placement.pipeline.ipus_per_replica == 4);
  try {
    make_plan(bottlenecks(6, true), config::parse("[ipu]\nauto_select_ipus = 4\n[pipeline]\nauto_stages = 4\n"
                                                  "auto_stage_blocks = [2, 2, 1, 0]\n"));
    FAIL("5 of 6 blocks were accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("the model repeats 6 blocks") != std::string::npos);
    CHECK(e.span().line == 5);  // at the key
  }
  CHECK_THROWS_WITH_AS(config::parse("[pipeline]\nauto_stages = 3\nauto_stage_blocks = [2, 2]\n"),
                       doctest::Contains("has 2 entries but `pipeline.auto_stages` asks for 3 stages"), Error);
}

TEST_CASE("a model without stages sums a tied weight's gradient per segment, in every plan") {
  const std::vector<std::string> configs = {
      "",
      "[ipu]\nauto_select_ipus = 2\n[pipeline]\nauto_stages = 3\nauto_stage_blocks = [3, 3, 0]\n"
      "device_mapping = [0, 1, 0]\ngradient_accumulation_count = 6\n"};
  for (const std::string& keys : configs) {
    CAPTURE(keys);
    const Plan plan = make_plan(bottlenecks(6, true), config::parse(keys));
    REQUIRE(plan.grads.size() == plan.graph.params.size());
    for (size_t k = 0; k < plan.graph.params.size(); ++k) {
      const std::string& name = plan.graph.node(plan.graph.params[k]).name;
      CAPTURE(name);
      // The table: one part from the lookup before the blocks, one from the head after them.
      CHECK(plan.grads[k].size() == (name == "table" ? 2U : 1U));
    }
  }
}

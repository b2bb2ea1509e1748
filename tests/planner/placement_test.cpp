// Placement: stage -> IPU mapping, replicas, physical IPU order, the one-IPU-per-variable rule and
// the accumulation-count rule of every schedule.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"
#include "planner/placement.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
using namespace iputrain::planner;

namespace {

const char* kThreeStages = R"(import nn
model three(batch: int = 2) {
  input x: f32[batch, 8]
  input y: i32[batch]
  stage a { h = nn.dense(x, 8, activation = relu) }
  stage b { k = nn.dense(h, 8, activation = relu) }
  stage c {
    logits = nn.dense(k, 4)
    loss = mean(softmax_cross_entropy(logits, y))
  }
  minimize loss
  output loss
}
)";

// Stage a's weight `w` is used again in stage c (tied weights).
const char* kTied = R"(model tied(batch: int = 2) {
  input x: f32[batch, 8]
  param w: f32[8, 8] = glorot_uniform()
  stage a { h = relu(x @ w) }
  stage b { k = relu(h) }
  stage c { loss = mean(k @ w) }
  minimize loss
}
)";

Plan plan_for(const char* model, const std::string& config) {
  return make_plan(graph_of(Model::parse(model)), config::parse(config));
}

std::string plan_error(const char* model, const std::string& config) {
  try {
    (void)plan_for(model, config);
  } catch (const Error& e) {
    return std::string(e.what()) + "\nhint: " + e.hint();
  }
  return "";
}

}  // namespace

TEST_CASE("placement: default mapping, replicas and physical order") {
  const Plan p = plan_for(kThreeStages, "[ipu]\nauto_select_ipus = 6\nselection_order = \"zigzag\"\n");
  CHECK(p.placement.replicas == 2);
  CHECK(p.placement.pipeline.ipus_per_replica == 3);
  CHECK(p.placement.pipeline.stage_ipu == std::vector<int32_t>{0, 1, 2});
  CHECK(p.placement.physical == std::vector<std::vector<int32_t>>{{0, 1, 2}, {3, 4, 5}});
  CHECK(p.decided.accumulation_count == 6);  // grouped training: 2 x 3 stages
  CHECK(p.global_batch() == 2 * 6 * 2);
}

// The loader refuses a system smaller than the config's IPUs (config::check_hardware); a Config built in
// code that names one is refused by the planner, not given a larger system.
TEST_CASE("placement: a Config built in code whose system cannot hold the plan is refused at system.preset") {
  Config c;
  c.plain.ipu_auto_select_ipus = 6;
  c.plain.system_preset = SystemPreset::Pod4;
  try {
    (void)make_plan(graph_of(Model::parse(kThreeStages)), c);
    FAIL("a plan on 6 IPUs was placed on a POD4");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("the system holds 4 IPUs, fewer than the plan's 6") != std::string::npos);
    CHECK(e.hint().find("system.preset") != std::string::npos);
  }
  c.plain.system_preset = SystemPreset::Pod16;
  CHECK(make_plan(graph_of(Model::parse(kThreeStages)), c).placement.replicas == 2);
}

TEST_CASE("placement: device_mapping may put several stages on one IPU") {
  const Plan p = plan_for(kThreeStages, "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1, 0]\n");
  CHECK(p.placement.pipeline.stage_ipu == std::vector<int32_t>{0, 1, 0});
  CHECK(p.placement.replicas == 1);
  CHECK(p.programs.ipus.size() == 2);
}

TEST_CASE("placement: selection orders on the C2 topology") {
  CHECK(selection_order(SelectionOrder::Zigzag, 8, 8) == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(selection_order(SelectionOrder::Snake, 8, 8) == std::vector<int32_t>{0, 1, 3, 2, 4, 5, 7, 6});
  CHECK(selection_order(SelectionOrder::Hoof, 8, 8) == std::vector<int32_t>{0, 2, 4, 6, 7, 5, 3, 1});
  CHECK(selection_order(SelectionOrder::Snake, 16, 4) ==
        std::vector<int32_t>{0, 1, 3, 2, 4, 5, 7, 6, 8, 9, 11, 10, 12, 13, 15, 14});
  CHECK(selection_order(SelectionOrder::Hoof, 16, 16) ==
        std::vector<int32_t>{0, 2, 4, 6, 8, 10, 12, 14, 15, 13, 11, 9, 7, 5, 3, 1});
  CHECK(selection_order(SelectionOrder::Auto, 4, 2) == selection_order(SelectionOrder::Snake, 4, 2));
  CHECK(selection_order(SelectionOrder::Auto, 4, 1) == selection_order(SelectionOrder::Zigzag, 4, 1));
  // Consecutive IPUs of a snake or a hoof are always neighbours.
  for (const SelectionOrder order : {SelectionOrder::Snake, SelectionOrder::Hoof}) {
    const auto o = selection_order(order, 16, 16);
    for (size_t i = 0; i + 1 < o.size(); ++i) {
      CHECK(link_hops(o[i], o[i + 1]) == 1);
    }
  }
  CHECK(link_hops(0, 15) == 8);
}

TEST_CASE("placement: a variable used by stages on two IPUs is an error naming both") {
  const std::string err = plan_error(kTied, "[ipu]\nauto_select_ipus = 3\n");
  CHECK(err.find("parameter 'w' is used by stage 'a' (IPU 0) and stage 'c' (IPU 2)") != std::string::npos);
  CHECK(err.find("device_mapping") != std::string::npos);
  // On one IPU the two stages may share it.
  const Plan p = plan_for(kTied, "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1, 0]\n");
  CHECK(p.placement.param_ipu == std::vector<int32_t>{0});
}

TEST_CASE("placement: every schedule's accumulation rule names itself and a valid count") {
  const std::string grouped =
      plan_error(kThreeStages, "[ipu]\nauto_select_ipus = 3\n[pipeline]\ngradient_accumulation_count = 4\n");
  CHECK(grouped.find("grouped training with 3 stages needs a multiple of 6") != std::string::npos);
  CHECK(grouped.find("use 6") != std::string::npos);
  const std::string interleaved = plan_error(
      kThreeStages,
      "[ipu]\nauto_select_ipus = 3\n[pipeline]\nschedule = \"interleaved\"\ngradient_accumulation_count = 4\n");
  CHECK(interleaved.find("interleaved with 3 IPUs per replica needs a multiple of 3") != std::string::npos);
  CHECK(interleaved.find("use 6") != std::string::npos);
  // Sequential takes any count.
  const Plan seq = plan_for(
      kThreeStages, "[ipu]\nauto_select_ipus = 3\n[pipeline]\nschedule = \"sequential\"\ngradient_accumulation_count = 5\n");
  CHECK(seq.decided.accumulation_count == 5);
}

TEST_CASE("placement: a one-position-per-IPU schedule trains a parallel block whose stages share its IPU") {
  // One position per IPU, checked per position (core/pipeline_schedules/layout_rules.hpp): the
  // block's stages run as one task of their position.
  const char* parallel = R"(model branches(batch: int = 2) {
  input x: f32[batch, 8]
  param w: f32[8, 8] = glorot_uniform()
  stage a { h = relu(x @ w) }
  parallel {
    stage b1 { p = relu(h) }
    stage b2 { q = relu(h) }
  }
  stage c { loss = mean(p + q) }
  minimize loss
}
)";
  for (const char* schedule : {"interleaved", "zero_bubble"}) {
    CAPTURE(schedule);
    const Plan p = plan_for(parallel, fmt::format("[ipu]\nauto_select_ipus = 3\n[pipeline]\nschedule = \"{}\"\n"
                                                  "device_mapping = [0, [1], 2]\ngradient_accumulation_count = 6\n",
                                                  schedule));
    CHECK(p.placement.pipeline.stage_ipu == std::vector<int32_t>{0, 1, 1, 2});
    CHECK(p.placement.pipeline.positions.size() == 3);
  }
  // Two positions on one IPU stay refused, at the mapping.
  const std::string err = plan_error(parallel,
                                     "[ipu]\nauto_select_ipus = 2\n[pipeline]\nschedule = \"interleaved\"\n"
                                     "device_mapping = [0, [1], 1]\ngradient_accumulation_count = 6\n");
  CHECK(err.find("the interleaved schedule cannot train two stages on one IPU: stages 1 and 2 are both on IPU 1") !=
        std::string::npos);
}

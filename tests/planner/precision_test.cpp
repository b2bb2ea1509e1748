// What training.precision changes in the planner's models: with f16/bf16 compute the values the
// passes compute take 2 bytes, weights keep their f32 master plus a half copy, and float ops run
// at the f16 FLOP rate. The figures are worked out by hand on memory_model_test's graph.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "iputrain/config_loader.hpp"
#include "planner/cost_model.hpp"
#include "planner/plan.hpp"
#include "planner/precision.hpp"
#include "planner/vertex_estimates.hpp"
#include "tests/planner/plan_from_config.hpp"
#include "two_stage_graph.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;
using iputrain::planner_test::two_stage;

namespace {

Plan plan_in(const std::string& precision) {
  return make_plan(two_stage(),
                   config::parse(fmt::format("[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\n"
                                             "schedule = \"grouped\"\ngradient_accumulation_count = 4\n"
                                             "[optimizer]\ntype = \"adam\"\n[training]\nprecision = \"{}\"\n",
                                             precision)));
}

}  // namespace

TEST_CASE("device bytes of each kind of value under half compute") {
  const Plan plan = plan_in("f16");
  const Graph& g = plan.graph;
  const ValueId x = g.inputs.at(0);
  const ValueId w1 = g.params.at(0);
  CHECK(device_bytes(g, x, DType::F16) == 128);         // inputs arrive as they are: 32 f32
  CHECK(device_bytes(g, w1, DType::F16) == 512 + 256);  // f32 master + half copy of 128 weights
  CHECK(device_bytes(g, w1, DType::F32) == 512);
  CHECK(device_bytes(g, g.loss, DType::BF16) == 2);             // a computed scalar
  CHECK(device_bytes(g, plan.grads.at(0).at(0), DType::F16) == 256);  // the gradient of w1
  CHECK(device_bytes(g, g.loss_seed, DType::F16) == 4);         // constants keep their type
}

TEST_CASE("the memory model counts half activations, links and weight copies") {
  const Plan f32 = plan_in("f32");
  const Plan f16 = plan_in("f16");
  const Plan bf16 = plan_in("bf16");
  REQUIRE(f16.memory.size() == 2);
  const IpuMemory& a = f16.memory[0];
  CHECK(a.weights == 768);
  CHECK(a.optimizer_state == 2 * 512);  // the optimizer keeps f32 state of the f32 master
  CHECK(a.accumulators == 1024);        // gradient_accumulation_dtype "same": f32
  // Channel 1 -> 0 carries dh = [4, 16] in half: 128 bytes, room for 2; the infeed prefetches 2
  // micro-batches of x = f32[4, 8] = 128 bytes: 2 x 128 + 2 x 128.
  CHECK(a.io_buffers == 512);
  CHECK(f32.memory[0].io_buffers == 768);
  for (size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(f16.memory[i].activations_peak < f32.memory[i].activations_peak);
    CHECK(f16.memory[i].total_peak == bf16.memory[i].total_peak);
  }
}

TEST_CASE("half compute runs float ops at the f16 rate") {
  Graph g;
  const ValueId a = g.add_input("a", {DType::F32, {512, 512}});
  const ValueId b = g.add_input("b", {DType::F32, {512, 512}});
  const ValueId c = g.add(OpKind::MatMul, {a, b});
  const ValueId i = g.add(OpKind::Argmax, {c}, Attrs{{"axis", int64_t{-1}}});
  DeviceModel d;
  const double f32 = op_cost(g, c, d).compute;
  d.compute = DType::F16;
  const double f16 = op_cost(g, c, d).compute;
  // PopLibs' AMP estimate of the same product with f32 or f16 operands (f32 partial sums, the
  // default, so 8 units in f16: half the f16 peak), at the calibrated scale.
  const ir::Contraction shape{
      .groups = 1, .field = 512, .in_channels = 512, .out_channels = 512, .row = 512, .matmul = true};
  CHECK(f32 == doctest::Approx(contraction_estimate(shape, false, false, 1472).cycles / d.compute_efficiency));
  CHECK(f16 == doctest::Approx(contraction_estimate(shape, true, false, 1472).cycles / d.compute_efficiency));
  CHECK(f16 < f32 / 1.5);
  d.half_partials_matmul = true;
  CHECK(op_cost(g, c, d).compute < f16 / 1.5);
  d.half_partials_matmul = false;
  d.compute = DType::BF16;
  CHECK(op_cost(g, c, d).compute == doctest::Approx(f16));
  // An integer result is not float work.
  const double int_f16 = op_cycles(g, i, d);
  d.compute = DType::F32;
  CHECK(op_cycles(g, i, d) == int_f16);
}

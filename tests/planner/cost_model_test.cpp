#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>

#include "core/ir/graph.hpp"
#include "iputrain/config_loader.hpp"
#include "planner/cost_model.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"

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

TEST_CASE("a matmul costs its FLOPs, the exchange of its operand blocks and two supersteps") {
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
  // x[32, 256] @ w1[256, 512] -> [32, 512] over 1472 tiles: the split that balances the three
  // operands moves P = (8192 x 131072 x 16384 x 1472)^(1/3) elements of each, f32, at 4 bytes per
  // tile and cycle (GC200: 8 TB/s on-chip exchange).
  const double p = std::cbrt(8192.0 * 131072 * 16384 * 1472);
  const double exchange = 3 * p * 4 / (1472 * 4.0);
  // PopLibs' AMP vertex in f32 (16 units of 8 weights, 8 cycles per output and pass): 32 input
  // groups of 8 channels x 32 output groups of 16 = 1024 passes over 32 rows, each tile holding
  // 32 x 1024 / 1472 = 22.26 rows per pass and paying 6 (20 + 16) + 94 = 310 cycles per pass; then
  // the calibrated scale (device.compute_efficiency = 0.606).
  CHECK(d.compute_efficiency == 0.606);
  const OpCost c = op_cost(g, mm, d);
  const double rows = 32.0 * 1024 / 1472;
  CHECK(c.compute == doctest::Approx((8 * rows + 310) / 0.606));
  CHECK(flops / (1472 * 32.0) < c.compute);  // under the peak rate
  CHECK(c.exchange == doctest::Approx(exchange));
  CHECK(c.sync == 2 * (100 + 100));  // two supersteps: a sync and a compute set each
  CHECK(op_cycles(g, mm, d) == doctest::Approx(c.compute + exchange + 400));
  DeviceModel peak = d;
  peak.compute_efficiency = 1.0;
  CHECK(op_cost(g, mm, peak).compute == doctest::Approx(8 * rows + 310));
  CHECK(op_cycles(g, 0, d) == 0);  // an input costs nothing
  CHECK(op_cycles(g, mm, DeviceModel::ipu1()) > op_cycles(g, mm, d));
  // The relu after it runs where the matmul left its result: one superstep, nothing exchanged.
  const OpCost relu = op_cost(g, g.node(mm + 1).op == OpKind::Relu ? mm + 1 : mm, d);
  CHECK(relu.exchange == 0);
  CHECK(relu.sync == 200);
}

TEST_CASE("a contraction's exchange against hand-computed splits") {
  // One tile: every operand moves once.
  CHECK(contraction_exchange_elements(10, 20, 30, 1) == 60);
  // Three equal operands over 8 tiles: a 2 x 2 x 2 split, each block read by two tiles.
  CHECK(contraction_exchange_elements(1000, 1000, 1000, 8) == doctest::Approx(6000));
  // A small A and large B and C over 100 tiles: B and C are split (each moves once), A goes to
  // every tile.
  CHECK(contraction_exchange_elements(10, 1e6, 1e6, 100) == doctest::Approx(10 * 100 + 2e6));
  // A large C alone: it is split (its partials never leave their tiles twice) and A and B are
  // broadcast along the 2-D grid: 2 sqrt(a b tiles) + c.
  CHECK(contraction_exchange_elements(100, 100, 1e8, 64) == doctest::Approx(2 * std::sqrt(100.0 * 100 * 64) + 1e8));
}

namespace {

// Attention's core for `batch` sequences of `seq` tokens, 4 heads of 64:
// softmax(q k^T) v with q, k^T, v of [batch, 4, seq, 64] (k^T as [batch, 4, 64, seq]).
Graph attention(int64_t batch, int64_t seq) {
  Graph g;
  g.stages = {{"a", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId q = g.add_input("q", {DType::F32, {batch, 4, seq, 64}});
  const ValueId kt = g.add_input("kt", {DType::F32, {batch, 4, 64, seq}});
  const ValueId v = g.add_input("v", {DType::F32, {batch, 4, seq, 64}});
  const ValueId scores = g.add(OpKind::MatMul, {q, kt});
  const ValueId probs = g.add(OpKind::Softmax, {scores}, Attrs{{"axis", int64_t{-1}}});
  g.loss = g.add(OpKind::Mean, {g.add(OpKind::MatMul, {probs, v})}, Attrs{{"axes", std::vector<int64_t>{}}});
  return g;
}

OpCost graph_cost(const Graph& g, const DeviceModel& d) {
  OpCost sum;
  for (ValueId id = 0; id < g.size(); ++id) {
    const OpCost c = op_cost(g, id, d);
    sum.compute += c.compute;
    sum.exchange += c.exchange;
    sum.sync += c.sync;
  }
  return sum;
}

}  // namespace

TEST_CASE("attention's cost per token grows with the sequence, and a larger batch amortises the fixed costs") {
  const DeviceModel d = DeviceModel::bow();
  // The FLOPs per token of the two products grow linearly with the sequence (4 x 2 x seq x 64 x 2),
  // and so do the bytes per token of the scores and probabilities: the cost per token grows too.
  const OpCost s128 = graph_cost(attention(8, 128), d);
  const OpCost s512 = graph_cost(attention(8, 512), d);
  const double per_token_128 = s128.total() / (8 * 128);
  const double per_token_512 = s512.total() / (8 * 512);
  CHECK(per_token_512 > 2.5 * per_token_128);
  // The seq x seq scores move between tiles: the exchange per token grows with the sequence too.
  CHECK(s512.exchange / (8 * 512) > 1.5 * s128.exchange / (8 * 128));
  // The same number of ops: the fixed costs do not depend on the shapes.
  CHECK(s512.sync == s128.sync);
  // Micro-batch 1 against 16 at sequence 128: the fixed costs and the exchange weigh more per sample
  // on the small batch, so a sample costs more.
  const OpCost b1 = graph_cost(attention(1, 128), d);
  const OpCost b16 = graph_cost(attention(16, 128), d);
  CHECK(b1.total() > b16.total() / 16 * 1.2);
  CHECK(b1.sync == b16.sync);
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
  CHECK(mk2.decided.device.name == "ipu2");
  CHECK(bow.decided.device.name == "bow");
  CHECK(bow.decided.device.clock_hz == 1.85e9);
  // Same tiles and memory: the same capacity and the same bytes.
  for (size_t i = 0; i < 2; ++i) {
    CHECK(bow.memory[i].capacity == mk2.memory[i].capacity);
    CHECK(bow.memory[i].capacity == 1472LL * 624 * 1024);
    CHECK(bow.memory[i].total_peak == mk2.memory[i].total_peak);
  }
  // Kernels take the same cycles, which pass faster; transfers at the same bandwidth take more
  // cycles of the faster clock. Every update still takes less time.
  CHECK(bow.cost.cycles_per_update >= mk2.cost.cycles_per_update);
  const double mk2_seconds = mk2.cost.cycles_per_update / mk2.decided.device.clock_hz;
  const double bow_seconds = bow.cost.cycles_per_update / bow.decided.device.clock_hz;
  CHECK(bow_seconds < mk2_seconds);
  CHECK(bow_seconds > mk2_seconds * 1.33 / 1.85 * 0.999);
  CHECK(bow.cost.samples_per_second > mk2.cost.samples_per_second);
  // `ipu.ipu_model.version` picks the same preset.
  CHECK(plan_on("[ipu.ipu_model]\nversion = \"bow\"\n").cost.cycles_per_update == bow.cost.cycles_per_update);

  // The IPU Model's tile count changes the device: capacity = tiles x bytes per tile, and a
  // kernel spread over fewer tiles takes more cycles.
  const Plan small = plan_on("[ipu.ipu_model]\ntiles_per_ipu = 736\n");
  CHECK(small.decided.device.tiles == 736);
  CHECK(small.memory[0].capacity == 736LL * 624 * 1024);
  CHECK(small.memory[0].capacity * 2 == mk2.memory[0].capacity);
  CHECK(small.cost.cycles_per_update > mk2.cost.cycles_per_update);
  const Plan ipu1 = plan_on("[ipu.ipu_model]\nversion = \"ipu1\"\ntiles_per_ipu = 100\n");
  CHECK(ipu1.memory[0].capacity == 100LL * 256 * 1024);
}

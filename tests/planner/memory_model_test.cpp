// The memory model against figures worked out by hand for a two-stage model small enough to
// follow value by value, and the fit check's message and suggestions.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <set>

#include "core/optim_table.hpp"
#include "iputrain/config_loader.hpp"
#include "planner/memory_model.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"
#include "two_stage_graph.hpp"

using namespace iputrain;
using namespace iputrain::ir;
using namespace iputrain::planner;
using iputrain::planner_test::two_stage;

namespace {

// `extra` holds more tables; `ipu` more keys of [ipu].
Plan plan_with(const std::string& pipeline, const std::string& optimizer = "adam", const std::string& extra = "",
               const std::string& ipu = "") {
  return make_plan(two_stage(), config::parse(fmt::format("[ipu]\nauto_select_ipus = 2\n{}\n[pipeline]\n{}\n"
                                                          "[optimizer]\ntype = \"{}\"\n{}",
                                                          ipu, pipeline, optimizer, extra)));
}

const char* kGrouped = "device_mapping = [0, 1]\nschedule = \"grouped\"\ngradient_accumulation_count = 4";
const char* kInterleaved = "device_mapping = [0, 1]\nschedule = \"interleaved\"\ngradient_accumulation_count = 4";

}  // namespace

TEST_CASE("memory of a two-stage grouped pipeline, worked out by hand") {
  const Plan plan = plan_with(kGrouped);
  REQUIRE(plan.memory.size() == 2);
  const IpuMemory& a = plan.memory[0];
  // IPU 0 holds w1 = 8 x 16 f32 = 512 bytes.
  CHECK(a.weights == 512);
  // Adam keeps two copies of every weight.
  CHECK(a.optimizer_state == 2 * 512);
  CHECK(a.optimizer_state_offloaded == 0);
  // A = 4 micro-batches summed in the canonical pairwise tree: leaves 0, 1 merge before leaf 2
  // arrives, so at most 2 partial sums of w1 (128 f32) are held: 2 x 128 x 4 = 1024.
  CHECK(a.accumulators == 1024);
  // Channel 1 -> 0 carries dh = f32[4, 16] = 256 bytes; room for 2 messages (one received and
  // one sent in the same timestep); the infeed prefetches 2 micro-batches of x = f32[4, 8] = 128
  // bytes: 2 x 256 + 2 x 128 = 768.
  CHECK(a.io_buffers == 768);
  // The arena, value by value (every size is a multiple of the 64-byte grain). A forward keeps
  // x (128) and z = x @ w1 (256) for its backward and sends h = relu(z) (256) at once. Micro-batch
  // m runs F at timestep m and B at m + 3, so when B0 runs, x and z of m0, m1, m2 are held
  // (1152). B0 receives dh (256), makes dz (256; z is read for the last time) and then
  // dw1 = x^T dz (512; x is read for the last time), which goes into its accumulator at once.
  // Each matmul also holds its temporaries while it runs (planner/op_temporaries.hpp): its
  // operands and its result again, in f32. For z = x @ w1: (32 + 128) x 4 + 64 x 4 = 896; for
  // dw1 = x^T dz: (32 + 64) x 4 + 128 x 4 = 896. At dz: 1152 + 256 + 256 = 1664; at dw1:
  // 128 + 768 + 256 + 512 + 896 = 2560, the most.
  CHECK(a.activations_live == 2560);
  // Placed largest first, the temporaries and dw1 take the bottom of every backward and the
  // 256-byte stashes cannot all tile around them: the arena is one 256-byte slot larger than what
  // is ever live.
  CHECK(a.activations_peak == 2816);
  CHECK(a.total_peak == 512 + 1024 + 1024 + 768 + 2816);
  CHECK(a.capacity == 1472LL * 638976);
  // Timesteps 0..6: F0 peaks at its matmul with x, z and the temporaries (1280); F1 and F2 add
  // the 384 of each micro-batch kept; B0F3 and B1 peak at 2560; B2 holds x, z of m2, m3 besides
  // B2's own dw1 (2176); B3 one micro-batch (1792).
  const int64_t fixed = 512 + 1024 + 1024 + 768;
  CHECK(a.per_timestep == std::vector<int64_t>{fixed + 1280, fixed + 1664, fixed + 2048, fixed + 2560, fixed + 2560,
                                               fixed + 2176, fixed + 1792});
  REQUIRE(a.contributors.size() == 6);
  // At the first tick of the peak (dw1 of B0): the temporaries, then x, z of m1, m2 and x of m0.
  CHECK(a.contributors[2] == std::pair<std::string, int64_t>{
                                 "matmul and convolution temporaries (availableMemoryProportion)", 896});
  CHECK(a.contributors[3] == std::pair<std::string, int64_t>{"activations of 3 micro-batches of stage 'a'", 896});

  const IpuMemory& b = plan.memory[1];
  // w2 = 16 x 2 f32 = 128; adam 256; accumulators 2 x 128 = 256.
  CHECK(b.weights == 128);
  CHECK(b.optimizer_state == 256);
  CHECK(b.accumulators == 256);
  // Channel 0 -> 1 carries h (256), room for 2; the outfeed stages one loss (4).
  CHECK(b.io_buffers == 2 * 256 + 4);
  // The loss gradient's two constants (64 each) live throughout. At dw2 (128), the last node of
  // B1, the received h (256), the broadcast loss gradient (64) and dh (256, sent next) are live:
  // 128 + 128 + 256 + 64 + 256 = 832, with dw2 = h^T dy's temporaries, (64 + 8) x 4 + 32 x 4 =
  // 416, rounded up to 448: 1280, and the arena packs into exactly that.
  CHECK(b.activations_live == 1280);
  CHECK(b.activations_peak == 1280);
  CHECK(b.total_peak == 128 + 256 + 256 + 516 + 1280);
}

TEST_CASE("grouped stashes more micro-batches than interleaved for the same model") {
  const Plan grouped = plan_with(kGrouped);
  const Plan interleaved = plan_with(kInterleaved);
  // Interleaved runs m's forward at 2m and its backward at 2m + 3 on IPU 0: B0 finds x, z of
  // m0 and m1 (768) instead of three micro-batches: 2560 - 384 live at the worst.
  CHECK(interleaved.memory[0].activations_live == 2176);
  CHECK(grouped.memory[0].activations_live - interleaved.memory[0].activations_live == 384);
  CHECK(grouped.memory[0].total_peak > interleaved.memory[0].total_peak);
  // Everything else is the same.
  CHECK(grouped.memory[0].weights == interleaved.memory[0].weights);
  CHECK(grouped.memory[0].accumulators == interleaved.memory[0].accumulators);
}

TEST_CASE("recomputation stashes only what a stage received") {
  const Plan plan = plan_with(kGrouped, "adam", "", "allow_recompute = true");
  REQUIRE(!plan.programs.stages[0].recompute.empty());
  // Stage a keeps x (128) for 3 micro-batches and rebuilds z = x @ w1 (256) before its backward:
  // at dz, 384 + z 256 + dh 256 + dz 256 = 1152; at dw1, 384 + dz 256 + dw1 512 and dw1's 896 of
  // temporaries = 2048 (rebuilding z holds 384 + dh 256 + z 256 + 896 = 1792), and the arena
  // packs into exactly that.
  CHECK(plan.memory[0].activations_live == 2048);
  CHECK(plan.memory[0].activations_peak == 2048);
  CHECK(plan.memory[0].activations_peak < plan_with(kGrouped).memory[0].activations_peak);
}

TEST_CASE("values share memory when their lives do not overlap") {
  const Plan plan = plan_with(kGrouped);
  for (const Arena& arena : plan.programs.arenas) {
    for (size_t i = 0; i < arena.lives.size(); ++i) {
      for (size_t j = i + 1; j < arena.lives.size(); ++j) {
        const Life& x = arena.lives[i];
        const Life& y = arena.lives[j];
        const bool in_time = x.first_tick <= y.last_tick && y.first_tick <= x.last_tick;
        const bool in_space = x.offset < y.offset + y.size && y.offset < x.offset + x.size;
        CHECK_FALSE((in_time && in_space));
      }
    }
  }
  // Four micro-batches of dw1 (512 bytes each) go through IPU 0, one after the other, each for
  // one tick: the gradient is added to its accumulator as soon as it is made.
  int dw1 = 0;
  for (const Life& life : plan.programs.arenas[0].lives) {
    if (life.value == plan.grads[0].at(0) && !life.temporary) {
      CHECK(life.first_tick == life.last_tick);
      ++dw1;
    }
  }
  CHECK(dw1 == 4);
}

TEST_CASE("accumulators follow the accumulation count, replicas and dtype") {
  SUBCASE("one micro-batch on one replica: the optimizer reads the gradient itself") {
    const Plan plan = plan_with("device_mapping = [0, 1]\nschedule = \"sequential\"\ngradient_accumulation_count = 1");
    CHECK(plan.memory[0].accumulators == 0);
    CHECK(plan.memory[1].accumulators == 0);
  }
  SUBCASE("seven micro-batches: blocks of 4 and 2 and a leaf pending at once") {
    const Plan plan = plan_with("device_mapping = [0, 1]\nschedule = \"sequential\"\ngradient_accumulation_count = 7");
    CHECK(plan.memory[0].accumulators == 3 * 128 * 4);
  }
  SUBCASE("two replicas of one micro-batch still sum across replicas") {
    const Plan plan = plan_with("device_mapping = [0, 0]\nschedule = \"sequential\"\ngradient_accumulation_count = 1");
    REQUIRE(plan.placement.replicas == 2);
    // One IPU per replica holds both weights: (128 + 32) f32, one partial sum each.
    CHECK(plan.memory[0].weights == 640);
    CHECK(plan.memory[0].accumulators == 640);
  }
  SUBCASE("fp16 accumulation halves them") {
    const Plan plan = plan_with(std::string(kGrouped) + "\ngradient_accumulation_dtype = \"fp16\"");
    CHECK(plan.memory[0].accumulators == 2 * 128 * 2);
  }
  SUBCASE("the sequential order keeps one per weight, whatever the count") {
    const char* seven =
        "device_mapping = [0, 1]\nschedule = \"sequential\"\ngradient_accumulation_count = 7\n";
    const Plan canonical = plan_with(seven);
    const Plan sequential = plan_with(std::string(seven) + "gradient_accumulation_order = \"sequential\"");
    CHECK(accumulator_buffers(canonical) == 3);
    CHECK(accumulator_buffers(sequential) == 1);
    CHECK(accumulator_buffers(sequential, GradientAccumulationOrder::Canonical) == 3);
    CHECK(sequential.memory[0].accumulators == 128 * 4);
    CHECK(sequential.memory[1].accumulators == 32 * 4);
    CHECK(canonical.memory[0].total_peak - sequential.memory[0].total_peak == 2 * 128 * 4);
    // Two replicas of one micro-batch: one buffer either way.
    const Plan replicas = plan_with(
        "device_mapping = [0, 0]\nschedule = \"sequential\"\ngradient_accumulation_count = 1\n"
        "gradient_accumulation_order = \"sequential\"");
    CHECK(replicas.memory[0].accumulators == 640);
    // One micro-batch on one replica: none.
    CHECK(accumulator_buffers(plan_with(
              "device_mapping = [0, 1]\nschedule = \"sequential\"\n"
              "gradient_accumulation_count = 1\ngradient_accumulation_order = \"sequential\"")) == 0);
  }
}

TEST_CASE("offloaded optimizer state leaves the IPU, sgd keeps none") {
  const Plan offloaded = plan_with(std::string(kGrouped) + "\noffload_weight_update_variables = true");
  CHECK(offloaded.memory[0].optimizer_state == 0);
  CHECK(offloaded.memory[0].optimizer_state_offloaded == 1024);
  CHECK(offloaded.memory[0].total_peak == plan_with(kGrouped).memory[0].total_peak - 1024);
  const Plan sgd = plan_with(kGrouped, "sgd");
  CHECK(sgd.memory[0].optimizer_state == 0);
}

TEST_CASE("adafactor's factored state: the rows plus the columns of each matrix") {
  // IPU 0's weight w1 is 8 x 16: 8 row and 16 column averages, 24 floats where adam keeps 2 x 128.
  CHECK(plan_with(kGrouped, "adafactor").memory[0].optimizer_state == (8 + 16) * 4);
  // With beta1, the first moment is a whole copy of the weight.
  CHECK(plan_with(kGrouped, "adafactor", "beta1 = 0.9").memory[0].optimizer_state == (8 + 16 + 128) * 4);
}

TEST_CASE("every optimizer keeps the state its definition declares for each weight's shape") {
  for (const auto* def : iputrain::optimizer_table()) {
    INFO(def->name);
    const Plan plan = plan_with(kGrouped, std::string(def->name));
    int64_t floats = 0;
    for (size_t k = 0; k < plan.graph.params.size(); ++k) {
      if (plan.placement.param_ipu[k] == 0) {
        floats +=
            iputrain::optimizer_state_floats(plan.settings.optimizer, plan.graph.type(plan.graph.params[k]).shape);
      }
    }
    CHECK(plan.memory[0].optimizer_state == floats * 4);
    if (def->shardable) {
      // IPU 0's weights are 512 bytes; each array is one more copy of them.
      CHECK(plan.memory[0].optimizer_state == iputrain::optimizer_state_slots(plan.settings.optimizer) * 512);
    }
  }
  CHECK(plan_with(kGrouped, "rmsprop", "centered = true").memory[0].optimizer_state == 2 * 512);
  CHECK(plan_with(kGrouped, "lion").memory[0].optimizer_state == 512);  // its momentum only
}

TEST_CASE("a plan that does not fit names the IPU, the bytes and what would fit") {
  Plan plan = plan_with(kGrouped);
  // Shrink IPU memory to 5888 bytes: IPU 0 needs 6144.
  plan.decided.device.tiles = 1;
  plan.decided.device.bytes_per_tile = 5888;
  plan.memory = estimate_memory(plan);
  CHECK(plan.memory[0].capacity == 5888);
  try {
    check_fits(plan);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Plan);
    const std::string msg = e.what();
    CHECK(msg.find("IPU 0 (physical IPU") != std::string::npos);
    CHECK(msg.find("6144 bytes") != std::string::npos);
    CHECK(msg.find("5888 bytes") != std::string::npos);
    CHECK(msg.find("activations of 3 micro-batches of stage 'a'") != std::string::npos);
    CHECK(msg.find("gradient accumulators (2 per weight, f32, canonical order)") != std::string::npos);
    CHECK(msg.find("matmul and convolution temporaries (availableMemoryProportion)") != std::string::npos);
    CHECK(msg.find("IPU 1") == std::string::npos);  // IPU 1 fits
    const std::string& hint = e.hint();
    // Offloading saves the 1024 bytes of adam state: 5120 fits.
    CHECK(hint.find("offload_weight_update_variables = true") != std::string::npos);
    // Interleaved stashes 2 micro-batches of stage a instead of 3: of the 896 bytes stashed at
    // the peak a third goes, 6144 - 299 = 5845 fits.
    CHECK(hint.find("stage 'a' 2 micro-batches instead of 3: peak about 5.7 KiB (fits)") != std::string::npos);
    // Fixed 2560 bytes (weights, adam, accumulators); the rest (3584) scales with the batch of 4:
    // (5888 - 2560) / 3584 x 4 = 3.71, so a micro-batch of 3.
    CHECK(hint.find("a micro-batch of 3 instead of 4") != std::string::npos);
    CHECK(hint.find("allow_recompute") != std::string::npos);
    CHECK(hint.find("pipeline.auto_stages") != std::string::npos);
    // The sequential order keeps 1 of the 2 canonical partial sums of w1: 6144 - 512 = 5632 fits.
    CHECK_MESSAGE(
        hint.find("pipeline.gradient_accumulation_order = \"sequential\" keeps 1 gradient accumulator per "
                  "weight instead of 2 (512 B instead of 1.0 KiB): peak about 5.5 KiB (fits)") !=
            std::string::npos,
        hint);
  }
  // Once sequential, nothing is left to suggest about the order.
  Plan sequential =
      plan_with(std::string(kGrouped) + "\ngradient_accumulation_order = \"sequential\"", "sgd");
  sequential.decided.device.tiles = 1;
  sequential.decided.device.bytes_per_tile = sequential.memory[0].total_peak - 128;  // 128 bytes short
  sequential.memory = estimate_memory(sequential);
  try {
    check_fits(sequential);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(sequential.memory[0].accumulators == 512);  // one buffer of w1
    CHECK(e.hint().find("gradient_accumulation_order") == std::string::npos);
  }
  // Within capacity nothing is thrown.
  plan.decided.device.bytes_per_tile = 6144;
  plan.memory = estimate_memory(plan);
  CHECK_NOTHROW(check_fits(plan));
}

TEST_CASE("make_plan stops at a plan that does not fit") {
  CHECK_THROWS_AS(plan_with(kGrouped, "adam", "[device]\ntiles_per_ipu = 1\nmemory_per_tile = 4096\n"), Error);
}

TEST_CASE("replicated optimizer state sharding keeps 1/R of the state per replica") {
  auto plan = [](bool sharded, bool offloaded) {
    return make_plan(two_stage(), config::parse(fmt::format("[ipu]\nauto_select_ipus = 4\n[pipeline]\n{}\n"
                                                            "replicated_optimizer_state_sharding = {}\n"
                                                            "offload_weight_update_variables = {}\n"
                                                            "[optimizer]\ntype = \"adam\"\n"
                                                            "[device]\nhost_bandwidth = 1.0e6\n",
                                                            kGrouped, sharded, offloaded)));
  };
  const Plan whole = plan(false, false);
  const Plan sharded = plan(true, false);
  REQUIRE(sharded.placement.replicas == 2);
  // Adam on IPU 0: 2 copies of w1 (512 bytes), half of it on each of the two replicas.
  CHECK(whole.memory[0].optimizer_state == 1024);
  CHECK(sharded.memory[0].optimizer_state == 512);
  CHECK(sharded.memory[0].total_peak == whole.memory[0].total_peak - 512);
  // Traffic: the reduce-scatter half of the ring all-reduce, then the new weights all-gathered
  // ((R - 1) / R of every trained weight's bytes per replica).
  CHECK(sharded.cost.reduce_bytes_per_update == doctest::Approx(whole.cost.reduce_bytes_per_update / 2));
  CHECK(whole.cost.gather_bytes_per_update == 0);
  CHECK(sharded.cost.gather_bytes_per_update > 0);
  CHECK(sharded.cost.gather_bytes_per_update <= whole.cost.reduce_bytes_per_update / 2 + 1e-9);
  // Offloaded, each replica streams only its share across the (here slow) host link: the update
  // is cheaper despite the all-gather of the new weights.
  const Plan offloaded = plan(false, true);
  const Plan both = plan(true, true);
  CHECK(both.memory[0].optimizer_state_offloaded == 512);
  CHECK(both.cost.cycles_per_update < offloaded.cost.cycles_per_update);
}

TEST_CASE("a weight tied across two stages of one IPU: a part and an accumulator per stage, none held") {
  // table [12, 8] read by stage a (h = x @ table) and by stage c (logits = h2 @ table^T), both on IPU 0.
  Graph g;
  g.stages = {{"a", {}, -1}, {"b", {}, -1}, {"c", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {4, 12}});
  const ValueId table = g.add_param("a/table", {DType::F32, {12, 8}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h = g.add(OpKind::MatMul, {x, table});
  g.set_cursor(1, Phase::Forward);
  const ValueId w = g.add_param("b/w", {DType::F32, {8, 8}}, Attrs{{"init", std::string("zeros")}});
  const ValueId h2 = g.add(OpKind::Tanh, {g.add(OpKind::MatMul, {h, w})});
  g.set_cursor(2, Phase::Forward);
  const ValueId logits = g.add(OpKind::MatMul, {h2, g.add(OpKind::Transpose, {table}, Attrs{{"perm", std::vector<int64_t>{1, 0}}})});
  g.loss = g.add(OpKind::Mean, {logits}, Attrs{{"axes", std::vector<int64_t>{}}});
  g.outputs.push_back({"loss", g.loss, {}});
  const Plan plan = make_plan(g, config::parse("[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1, 0]\n"
                                               "schedule = \"grouped\"\ngradient_accumulation_count = 6\n"
                                               "gradient_accumulation_order = \"sequential\"\n"));
  REQUIRE(plan.grads[0].size() == 2);
  // One f32 accumulator per part: 2 x 384 bytes, and w's 256 on IPU 1.
  CHECK(plan.memory[0].accumulators == 2 * 384);
  CHECK(plan.memory[1].accumulators == 256);
  // Each part of every micro-batch goes into its accumulator as its backward makes it.
  int parts_seen = 0;
  for (const Life& life : plan.programs.arenas[0].lives) {
    if ((life.value == plan.grads[0][0] || life.value == plan.grads[0][1]) && !life.temporary) {
      CHECK(life.to_accumulator);
      CHECK(life.first_instr == life.last_instr);
      ++parts_seen;
    }
  }
  CHECK(parts_seen == 2 * 6);
}

TEST_CASE("I/O tiles: reserved tiles shrink capacity and compute, the feeds' staging moves onto them") {
  const std::string device = "[device]\ntiles_per_ipu = 64\nhost_bandwidth = 1.0e6\n";
  const Plan base = plan_with(kGrouped, "sgd", device);
  const Plan reserved = plan_with(kGrouped, "sgd", device, "[ipu.io_tiles]\nnum_io_tiles = 16\n");
  // 48 compute tiles of 64: three quarters of the memory, and every compute step slower.
  CHECK(reserved.memory[0].capacity * 4 == base.memory[0].capacity * 3);
  CHECK(reserved.memory[0].total_peak == base.memory[0].total_peak);
  CHECK(reserved.cost.cycles_per_update > base.cost.cycles_per_update);
  CHECK(reserved.memory[0].io_tiles_capacity == 0);

  const Plan feeds = plan_with(kGrouped, "sgd", device,
                               "[ipu.io_tiles]\nnum_io_tiles = 16\nplace_ops_on_io_tiles = true\n");
  const IpuMemory& m = feeds.memory[0];
  REQUIRE(m.feed_staging > 0);
  CHECK(m.io_tiles_capacity == static_cast<int64_t>(0.9 * 16 * 638976));
  // The staging no longer takes compute-tile memory, and the slow host link overlaps compute.
  CHECK(m.capacity == reserved.memory[0].capacity + m.feed_staging);
  CHECK(feeds.cost.cycles_per_update < reserved.cost.cycles_per_update);

  // Staging larger than the I/O tiles' data memory is refused where the tiles are reserved.
  try {
    (void)plan_with(kGrouped, "sgd", device,
                    "[ipu.io_tiles]\nnum_io_tiles = 2\nplace_ops_on_io_tiles = true\navailable_memory_proportion = "
                    "0.0001\n");
    FAIL("staging that does not fit was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("I/O tiles hold") != std::string::npos);
    CHECK(e.render().find("num_io_tiles") != std::string::npos);
  }
}

TEST_CASE("offloaded gradient accumulators leave the IPU and cross the host link at each accumulation") {
  const std::string slow = "[device]\nhost_bandwidth = 1.0e6\n";
  const Plan kept = plan_with(kGrouped, "sgd", slow);
  const Plan offloaded = plan_with(std::string(kGrouped) + "\noffload_gradient_accumulation_buffers = true", "sgd", slow);
  REQUIRE(kept.memory[0].accumulators > 0);
  CHECK(offloaded.memory[0].accumulators == 0);
  CHECK(offloaded.memory[0].accumulators_offloaded == kept.memory[0].accumulators);
  CHECK(offloaded.memory[0].total_peak == kept.memory[0].total_peak - kept.memory[0].accumulators);
  CHECK(offloaded.cost.cycles_per_update > kept.cost.cycles_per_update);
}

// pipeline.replicated_optimizer_state_sharding: each replica keeps and updates one block of every
// optimizer-state tensor (planner/sharding.hpp), reduce-scatters the gradients and all-gathers the
// weights. The weights must be bitwise those of the unsharded run (and of the one-IPU run), for
// every optimizer, with clipping, loss scaling, pipelining and cross-replica buckets; the memory the
// cluster measures must be the planner's, 1/R of the state per IPU; checkpoints hold whole tensors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/iputrain.hpp"
#include "planner/plan.hpp"
#include "planner/sharding.hpp"
#include "test_models.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;

namespace {

constexpr int kUpdates = 12;
const std::string kSharded = "replicated_optimizer_state_sharding = true\n";

// kMlp4 on `ipus` IPUs per replica x `replicas`, 16 micro-batches of 4 per update.
std::string config_toml(const std::string& optimizer, int ipus, int replicas, const std::string& pipeline = "",
                        const std::string& sections = "") {
  std::string t = "[optimizer]\n" + optimizer +
                  "[data]\ntrain = \"synthetic:samples=2048,classes=10\"\n"
                  "[training]\nsteps = " + std::to_string(kUpdates) + "\nsteps_per_execution = 3\nseed = 7\n" +
                  sections + "[ipu]\nauto_select_ipus = " + std::to_string(ipus * replicas) + "\n[pipeline]\n";
  if (ipus == 1) {
    t += "auto_stages = 1\n";
  } else if (ipus == 2) {
    t += "auto_stages = 2\ndevice_mapping = [0, 1]\n";
  } else {
    t += "device_mapping = [0, 1, 2, 3]\n";
  }
  t += "schedule = \"" + std::string(ipus == 1 ? "sequential" : "grouped") +
       "\"\ngradient_accumulation_count = " + std::to_string(16 / replicas) + "\nreduction_method = \"mean\"\n" +
       pipeline;
  return t;
}

std::vector<WeightInfo> train(const std::string& text) {
  Config c = config::parse(text, "sharding.toml");
  Session session(Model::parse(testing::kMlp4, "sharding.ipu", c.model), c);
  session.train();
  return session.weights();
}

void check_same(const std::vector<WeightInfo>& got, const std::vector<WeightInfo>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(got[i].name);
    REQUIRE(got[i].values.size() == want[i].values.size());
    CHECK(std::memcmp(got[i].values.data(), want[i].values.data(), got[i].values.size() * sizeof(float)) == 0);
  }
}

const std::vector<std::string> kOptimizers = {
    "type = \"sgd\"\nlearning_rate = 0.05\n",
    "type = \"momentum\"\nlearning_rate = 0.05\nmomentum = 0.9\nweight_decay = 0.01\n",
    "type = \"momentum\"\nlearning_rate = 0.05\nmomentum = 0.9\nuse_nesterov = true\n",
    "type = \"adam\"\nlearning_rate = 0.01\nweight_decay = 0.01\n",
    "type = \"adamw\"\nlearning_rate = 0.01\nweight_decay = 0.05\n",
    "type = \"lamb\"\nlearning_rate = 0.01\nweight_decay = 0.01\n",
    "type = \"rmsprop\"\nlearning_rate = 0.01\ncentered = true\n",
    "type = \"adagrad\"\nlearning_rate = 0.05\n",
    "type = \"lion\"\nlearning_rate = 0.003\nweight_decay = 0.1\n",
    "type = \"lars\"\nlearning_rate = 0.5\nweight_decay = 0.01\n",
};

}  // namespace

TEST_CASE("the shard rule: grain-aligned blocks that cover the tensor, the largest reserved by all") {
  using planner::kShardGrain;
  for (int64_t n : {1, 10, 64, 65, 320, 1000, 4096}) {
    for (int32_t r : {1, 2, 3, 4, 16}) {
      CAPTURE(n);
      CAPTURE(r);
      int64_t next = 0;
      int64_t largest = 0;
      for (int32_t k = 0; k < r; ++k) {
        const planner::ShardRange b = planner::shard_range(n, r, k);
        CHECK(b.begin == next);
        CHECK((b.size() == 0 || b.begin % kShardGrain == 0));
        largest = std::max(largest, b.size());
        next = b.end;
      }
      CHECK(next == n);
      CHECK(planner::shard_capacity(n, r) == largest);
    }
  }
  CHECK(planner::shard_capacity(320, 2) == 192);  // 5 grains: 3 and 2
  CHECK(planner::shard_capacity(4096, 4) == 1024);
}

TEST_CASE("sharded optimizer state trains the same bits as unsharded, for every optimizer") {
  for (const std::string& o : kOptimizers) {
    CAPTURE(o);
    const auto one_ipu = train(config_toml(o, 1, 1));
    // Two IPUs x two replicas, and one IPU x four replicas (blocks of a 320-element weight: 128,
    // 128, 64 and none).
    check_same(train(config_toml(o, 2, 2, kSharded)), one_ipu);
    check_same(train(config_toml(o, 1, 4, kSharded)), one_ipu);
  }
}

TEST_CASE("sharding with clipping, loss scaling, pipelining and cross-replica buckets changes no bits") {
  const std::string adam = "type = \"adam\"\nlearning_rate = 0.01\n";
  const std::string lamb = "type = \"lamb\"\nlearning_rate = 0.01\n";
  SUBCASE("gradient clipping by global norm, across IPUs and replicas") {
    for (const std::string& o : {adam, lamb}) {
      const std::string clip = o + "gradient_clip_norm = 0.05\n";
      const auto reference = train(config_toml(clip, 1, 1));
      check_same(train(config_toml(clip, 4, 2, kSharded)), reference);
      check_same(train(config_toml(clip, 1, 4, kSharded)), reference);
      // The clip must bite, or this proves nothing.
      CHECK_FALSE(testing::same_bits(train(config_toml(o, 1, 1)), reference));
    }
  }
  SUBCASE("dynamic loss scaling under f16 compute") {
    const std::string dynamic = adam + "loss_scaling_mode = \"dynamic\"\nloss_scaling = 65536.0\n";
    const std::string half = "precision = \"f16\"\n";
    auto with_half = [&](std::string text) {
      text.replace(text.find("seed = 7\n"), 9, "seed = 7\n" + half);
      return text;
    };
    const auto unsharded = train(with_half(config_toml(dynamic, 2, 2)));
    check_same(train(with_half(config_toml(dynamic, 2, 2, kSharded))), unsharded);
    check_same(train(with_half(config_toml(dynamic, 1, 4, kSharded))), unsharded);
  }
  SUBCASE("pipelined replicas and small cross-replica buckets") {
    const auto reference = train(config_toml(lamb, 1, 1));
    check_same(train(config_toml(lamb, 4, 2, kSharded)), reference);
    std::string interleaved = config_toml(lamb, 2, 2, kSharded);
    interleaved.replace(interleaved.find("\"grouped\""), 9, "\"interleaved\"");
    check_same(train(interleaved), reference);
    check_same(
        train(config_toml(adam, 4, 2, kSharded, "[ipu.optimizations]\nmaximum_cross_replica_sum_buffer_size = 300\n")),
        train(config_toml(adam, 1, 1)));
  }
  SUBCASE("half weights and moments, rounded stochastically block by block") {
    std::string text = config_toml(adam + "state_dtype = \"f16\"\n", 2, 2);
    text.replace(text.find("seed = 7\n"), 9, "seed = 7\nprecision = \"f16\"\nmaster_weights = \"none\"\n");
    text.replace(text.find("[ipu]\n"), 6, "[ipu.floating_point_behaviour]\nesr = true\n[ipu]\n");
    std::string sharded = text + kSharded;
    check_same(train(sharded), train(text));
  }
  SUBCASE("f16 gradient accumulators") {
    const std::string fp16 = "gradient_accumulation_dtype = \"fp16\"\n";
    check_same(train(config_toml(adam, 2, 2, kSharded + fp16)), train(config_toml(adam, 2, 2, fp16)));
  }
}

TEST_CASE("sharded state: the measured memory is the planner's, 1/R of the state per IPU") {
  const std::string adam = "type = \"adam\"\nlearning_rate = 0.01\n";
  auto run = [&](const std::string& text) {
    Config c = config::parse(text, "m.toml");
    Model model = Model::parse(testing::kMlp4, "m.ipu", c.model);
    const planner::Plan plan = planner::make_plan(graph_of(model), c);
    Session session(std::move(model), c);
    session.train();
    return std::make_pair(session.run_report(), plan.memory);
  };
  const auto [whole, whole_memory] = run(config_toml(adam, 2, 2));
  const auto [sharded, sharded_memory] = run(config_toml(adam, 2, 2, kSharded));
  for (const IpuReport& ipu : sharded.ipus) {
    CAPTURE(ipu.physical);
    CHECK(ipu.memory_peak == ipu.memory_estimate);
  }
  // auto_stages = 2 puts s0, s1 (16 x 32 + 32, 32 x 32 + 32) on IPU 0 and s2, s3 (32 x 32 + 32,
  // 32 x 10 + 10) on IPU 1. Per replica: 512 -> 256, 32 -> 32 (one grain), 1024 -> 512,
  // 320 -> 192 (grains 3 + 2), 10 -> 10. Adam keeps 2 f32 slots.
  REQUIRE(sharded_memory.size() == 2);
  CHECK(whole_memory[0].optimizer_state == 2 * 4 * (512 + 32 + 1024 + 32));
  CHECK(sharded_memory[0].optimizer_state == 2 * 4 * (256 + 32 + 512 + 32));
  CHECK(whole_memory[1].optimizer_state == 2 * 4 * (1024 + 32 + 320 + 10));
  CHECK(sharded_memory[1].optimizer_state == 2 * 4 * (512 + 32 + 192 + 10));
  for (size_t i = 0; i < sharded.ipus.size(); ++i) {
    CHECK(whole.ipus[i].memory_estimate - sharded.ipus[i].memory_estimate ==
          whole_memory[static_cast<size_t>(whole.ipus[i].ipu)].optimizer_state -
              sharded_memory[static_cast<size_t>(sharded.ipus[i].ipu)].optimizer_state);
  }
  // The simulated clocks still run the plan's cycle model.
  CHECK(sharded.simulated_cycles_per_update == doctest::Approx(sharded.planned_cycles_per_update).epsilon(1e-9));
}

TEST_CASE("a checkpoint of sharded state holds whole tensors and resumes under any plan") {
  const std::string adam = "type = \"adam\"\nlearning_rate = 0.01\n";
  const std::filesystem::path dir = iputrain_tests::scratch_dir("sharding_ckpt");
  std::filesystem::remove_all(dir);
  const auto straight = train(config_toml(adam, 2, 2));
  {
    std::string text = config_toml(adam, 2, 2, kSharded);
    text.replace(text.find("steps = 12"), 10, "steps = 6");
    Config c = config::parse(text, "c.toml");
    Session session(Model::parse(testing::kMlp4, "c.ipu", c.model), c);
    session.train();
    session.save_checkpoint(dir.string());
  }
  for (const std::string& pipeline : {kSharded, std::string()}) {
    CAPTURE(pipeline);
    Config c = config::parse(config_toml(adam, 1, 4, pipeline), "c.toml");
    Session session(Model::parse(testing::kMlp4, "c.ipu", c.model), c);
    session.resume(dir.string());
    session.train();
    check_same(session.weights(), straight);
  }
  std::filesystem::remove_all(dir);
}

// --- pipeline.replicated_weight_sharding ---------------------------------------------------------

namespace {

const std::string kWeights = "replicated_weight_sharding = true\n";

}  // namespace

TEST_CASE("sharded weights train the same bits as one IPU, for every optimizer") {
  for (const std::string& o : kOptimizers) {
    CAPTURE(o);
    const auto one_ipu = train(config_toml(o, 1, 1));
    check_same(train(config_toml(o, 2, 2, kWeights)), one_ipu);
    check_same(train(config_toml(o, 1, 4, kWeights)), one_ipu);
    check_same(train(config_toml(o, 4, 2, kWeights)), one_ipu);
  }
}

TEST_CASE("sharded weights with clipping, loss scaling, half weights, buckets and recomputation") {
  const std::string adam = "type = \"adam\"\nlearning_rate = 0.01\n";
  const std::string lamb = "type = \"lamb\"\nlearning_rate = 0.01\ngradient_clip_norm = 0.05\n";
  check_same(train(config_toml(lamb, 4, 2, kWeights)), train(config_toml(lamb, 1, 1)));
  check_same(
      train(config_toml(adam, 4, 2, kWeights, "[ipu.optimizations]\nmaximum_cross_replica_sum_buffer_size = 300\n")),
      train(config_toml(adam, 1, 1)));
  {
    std::string text = config_toml(adam, 4, 2, kWeights);
    text.replace(text.find("[pipeline]"), 10, "allow_recompute = true\n[pipeline]");
    check_same(train(text), train(config_toml(adam, 1, 1)));
  }
  for (const std::string& storage : {std::string("master_weights = \"none\"\n"), std::string()}) {
    CAPTURE(storage);
    std::string text = config_toml(adam + "state_dtype = \"f16\"\nloss_scaling_mode = \"dynamic\"\n", 2, 2);
    text.replace(text.find("seed = 7\n"), 9, "seed = 7\nprecision = \"f16\"\n" + storage);
    text.replace(text.find("[ipu]\n"), 6, "[ipu.floating_point_behaviour]\nesr = true\n[ipu]\n");
    check_same(train(text + kWeights), train(text));
  }
}

TEST_CASE("sharded weights: each replica keeps its shards and one gather buffer, measured = planned") {
  const std::string adam = "type = \"adam\"\nlearning_rate = 0.01\n";
  // The four stages one after another on one IPU per replica, two replicas.
  auto text = [&](const std::string& pipeline) {
    return "[optimizer]\n" + adam +
           "[data]\ntrain = \"synthetic:samples=2048,classes=10\"\n[training]\nsteps = 6\nseed = 7\n"
           "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 0, 0, 0]\nschedule = \"sequential\"\n"
           "gradient_accumulation_count = 8\nreduction_method = \"mean\"\n" + pipeline;
  };
  auto run = [&](const std::string& t) {
    Config c = config::parse(t, "w.toml");
    Model model = Model::parse(testing::kMlp4, "w.ipu", c.model);
    const planner::Plan plan = planner::make_plan(graph_of(model), c);
    Session session(std::move(model), c);
    session.train();
    return std::make_tuple(session.run_report(), plan, session.weights());
  };
  const auto [whole, whole_plan, whole_weights] = run(text(""));
  const auto [sharded, sharded_plan, sharded_weights] = run(text(std::string(kWeights) + "offload_weights = false\n"));
  // By default (as in the seed) the blocks live in remote memory between uses.
  const auto [offloaded, offloaded_plan, offloaded_weights] = run(text(kWeights));
  check_same(sharded_weights, whole_weights);
  check_same(offloaded_weights, whole_weights);
  for (const auto* report : {&sharded, &offloaded}) {
    for (const IpuReport& ipu : report->ipus) {
      CAPTURE(ipu.physical);
      CHECK(ipu.memory_peak == ipu.memory_estimate);
    }
  }
  CHECK(offloaded.simulated_cycles_per_update == doctest::Approx(offloaded.planned_cycles_per_update).epsilon(1e-9));
  CHECK(sharded.simulated_cycles_per_update == doctest::Approx(sharded.planned_cycles_per_update).epsilon(1e-9));
  // Shards per replica (f32): 512 -> 256, 1024 -> 512 twice, 320 -> 192, the biases (32, 10) whole
  // on replica 0 and reserved by both. The largest task reads a 32 x 32 kernel and its bias.
  const int64_t shards = 4 * (256 + 32 + 512 + 32 + 512 + 32 + 192 + 10);
  const int64_t gather = 4 * (1024 + 32);
  CHECK(whole_plan.memory[0].weights == 4 * (512 + 32 + 1024 + 32 + 1024 + 32 + 320 + 10));
  CHECK(sharded_plan.memory[0].weights == shards + gather);
  CHECK(offloaded_plan.memory[0].weights == gather);
  CHECK(offloaded_plan.memory[0].weights_offloaded == shards);
  CHECK(offloaded_plan.cost.cycles_per_update > sharded_plan.cost.cycles_per_update);
  CHECK(sharded_plan.memory[0].optimizer_state == 2 * shards);
  CHECK(sharded_plan.decided.shard_optimizer_state);
  // Each task gathers what it reads; the update all-gathers nothing.
  CHECK(sharded_plan.cost.gather_bytes_per_update > 0);
  CHECK(sharded_plan.cost.cycles_per_update > whole_plan.cost.cycles_per_update);
}

TEST_CASE("replicated_weight_sharding = auto: on for the sequential schedule with batch serialization") {
  auto plan = [](const std::string& pipeline) {
    std::string text = testing::synthetic_config(2) + "[ipu]\nauto_select_ipus = 2\n[pipeline]\n" + pipeline;
    text.replace(text.find("[data]\n"), 7, "[data]\nbatch_size = 16\n");
    Config c = config::parse(text, "a.toml");
    // Loaded as the CLI does: under batch serialization the model is built at the slice size.
    const auto path = iputrain_tests::scratch_dir("sharding_auto") / "model.ipu";
    std::ofstream(path) << testing::kMlp;
    return planner::make_plan(graph_of(Model::load(path.string(), c)), c).decided;
  };
  CHECK_FALSE(plan("").shard_weights);
  CHECK(plan("batch_serialization_iterations = 2\n").shard_weights);
  CHECK_FALSE(plan("batch_serialization_iterations = 2\nreplicated_weight_sharding = false\n").shard_weights);
  // Batch serialization needs the sequential schedule (a rule), so "auto" never meets another one.
  CHECK(plan("replicated_weight_sharding = true\n").shard_weights);
  // offload_weights stores the shards: refused where "auto" leaves sharding off, with the key's place.
  CHECK(plan("batch_serialization_iterations = 2\noffload_weights = true\n").shard_weights);
  try {
    plan("offload_weights = true\n");
    FAIL("offload_weights without weight sharding was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("`pipeline.offload_weights` stores the shards") != std::string::npos);
  }
}

TEST_CASE("a checkpoint of sharded weights holds whole tensors") {
  const std::string adam = "type = \"adam\"\nlearning_rate = 0.01\n";
  const std::filesystem::path dir = iputrain_tests::scratch_dir("weight_sharding_ckpt");
  std::filesystem::remove_all(dir);
  const auto straight = train(config_toml(adam, 1, 1));
  {
    std::string text = config_toml(adam, 2, 2, kWeights);
    text.replace(text.find("steps = 12"), 10, "steps = 6");
    Config c = config::parse(text, "c.toml");
    Session session(Model::parse(testing::kMlp4, "c.ipu", c.model), c);
    session.train();
    session.save_checkpoint(dir.string());
  }
  for (const std::string& pipeline : {kWeights, std::string()}) {
    CAPTURE(pipeline);
    Config c = config::parse(config_toml(adam, 1, 4, pipeline), "c.toml");
    Session session(Model::parse(testing::kMlp4, "c.ipu", c.model), c);
    session.resume(dir.string());
    session.train();
    check_same(session.weights(), straight);
  }
  std::filesystem::remove_all(dir);
}

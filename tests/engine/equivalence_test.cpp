// The determinism contract (planner/device_program.hpp): at equal micro-batch and global batch,
// every plan (stages, IPUs, schedule, replicas, device mapping, recomputation) gives the same
// weights, bit for bit, as the one-IPU run. The model has dropout and the optimizer has state,
// so sample order, RNG keys, the gradient sum order and the update all have to agree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api/plan_access.hpp"
#include "core/pipeline_schedules/schedule_def.hpp"
#include "iputrain/iputrain.hpp"
#include "planner/plan.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {


constexpr int kGlobalMicroBatches = 16;  // N = replicas x accumulation count, fixed
constexpr int kUpdates = 20;

std::string base(const std::string& extra_optimizer = "") {
  return "[optimizer]\ntype = \"momentum\"\nlearning_rate = 0.05\n" + extra_optimizer +
         "[data]\ntrain = \"synthetic:samples=2048,classes=10\"\n"
         "[training]\nsteps = " + std::to_string(kUpdates) + "\nsteps_per_execution = 3\nseed = 7\n";
}

struct PlanCase {
  std::string name;
  int ipus_per_replica;  // 1 and 2: the model re-staged by auto_stages; 4: its own stages
  std::string schedule;
  int replicas;
};

// `accumulation` 0: the count that makes kGlobalMicroBatches with the case's replicas.
std::string config_for(const PlanCase& c, const std::string& extra_pipeline = "",
                       const std::string& extra_optimizer = "", int accumulation = 0) {
  const int a = accumulation > 0 ? accumulation : kGlobalMicroBatches / c.replicas;
  std::string t = base(extra_optimizer) + "[ipu]\nauto_select_ipus = " +
                  std::to_string(c.ipus_per_replica * c.replicas) + "\n[pipeline]\n";
  if (c.ipus_per_replica == 1) {
    t += "auto_stages = 1\n";
  } else if (c.ipus_per_replica == 2) {
    t += "auto_stages = 2\ndevice_mapping = [0, 1]\n";
  } else {
    t += "device_mapping = [0, 1, 2, 3]\n";
  }
  t += "schedule = \"" + c.schedule + "\"\ngradient_accumulation_count = " + std::to_string(a) +
       "\nreduction_method = \"mean\"\n" + extra_pipeline;
  return t;
}

std::vector<WeightInfo> train(const std::string& config_text, const std::string& model = testing::kMlp4) {
  Config config = config::parse(config_text, "equivalence.toml");
  Session session(Model::parse(model, "equivalence.ipu", config.model), config);
  session.train();
  return session.weights();
}

// A word table read by the first stage (a lookup) and by the last (the tied decoder), as BERT's
// and GPT-2's MLM heads read the embeddings.
const std::string kTied = R"(import nn

model tied(batch: int = 4, vocab: int = 24, width: int = 16) {
  input ids: i32[batch]
  input label: i32[batch]

  stage embed {
    param table: f32[vocab, width] = normal(stddev = 0.3)
    h0 = gather(table, ids)
  }
  stage body {
    h1 = nn.dropout(nn.dense(h0, width, activation = tanh), 0.25)
  }
  stage head {
    logits = h1 @ transpose(table)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

// The one-IPU run: the model's four stages on IPU 0, no replication, all 16 micro-batches.
std::string reference_config(const std::string& extra_pipeline = "", const std::string& extra_optimizer = "") {
  return base(extra_optimizer) +
         "[pipeline]\ngradient_accumulation_count = 16\nreduction_method = \"mean\"\n" + extra_pipeline;
}

void check_same(const std::vector<WeightInfo>& got, const std::vector<WeightInfo>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].name == want[i].name);
    REQUIRE(got[i].values.size() == want[i].values.size());
    CHECK_MESSAGE(std::memcmp(got[i].values.data(), want[i].values.data(), got[i].values.size() * sizeof(float)) == 0,
                  got[i].name << " differs");
  }
}

// The schedule's accumulation rule (ops_and_optimizers.md §1.3, its ScheduleDef) with one stage per IPU.
bool valid(const PlanCase& c) {
  const int64_t a = kGlobalMicroBatches / c.replicas;
  const pipeline_schedules::ScheduleDef* def = pipeline_schedules::find_schedule(c.schedule);
  REQUIRE(def != nullptr);
  const pipeline_schedules::AccumulationRule rule = def->accumulation(c.ipus_per_replica, c.ipus_per_replica, true);
  return a >= rule.minimum && a % rule.multiple == 0;
}

}  // namespace

TEST_CASE("every plan of the matrix trains the same weights as one IPU") {
  const std::vector<WeightInfo> reference = train(reference_config());
  int checked = 0;
  for (int ipus : {1, 2, 4}) {
    for (const std::string& schedule : pipeline_schedules::schedule_names()) {  // every schedule, a new one too
      for (int replicas : {1, 2, 4}) {
        const PlanCase c{std::to_string(ipus) + " IPU(s) x " + std::to_string(replicas) + " replicas, " + schedule,
                         ipus, schedule, replicas};
        if (!valid(c)) {
          continue;
        }
        CAPTURE(c.name);
        check_same(train(config_for(c)), reference);
        ++checked;
      }
    }
  }
  MESSAGE(checked << " plans agree with the one-IPU run");
  CHECK(checked == 44);  // 35 for the first four schedules, 9 for zero_bubble_h2
}

TEST_CASE("two stages sharing an IPU change no bits") {
  const std::vector<WeightInfo> reference = train(reference_config());
  for (int replicas : {1, 2}) {
    CAPTURE(replicas);
    const int a = kGlobalMicroBatches / replicas;
    check_same(train(base() + "[ipu]\nauto_select_ipus = " + std::to_string(2 * replicas) +
                     "\n[pipeline]\ndevice_mapping = [0, 0, 1, 1]\nschedule = \"grouped\"\n"
                     "gradient_accumulation_count = " + std::to_string(a) + "\nreduction_method = \"mean\"\n"),
               reference);
  }
}

TEST_CASE("cross-replica buckets and recomputation change no bits") {
  const std::vector<WeightInfo> reference = train(reference_config());
  SUBCASE("16 replicas of one micro-batch each") {
    check_same(train(config_for({"", 1, "sequential", 16})), reference);
  }
  SUBCASE("small cross-replica buckets") {
    std::string text = config_for({"", 4, "grouped", 2});
    text.replace(text.find("[pipeline]"), 10,
                 "[ipu.optimizations]\nmaximum_cross_replica_sum_buffer_size = 300\n[pipeline]");
    check_same(train(text), reference);
  }
  SUBCASE("ipu.allow_recompute") {
    // Each mode with every schedule that runs it (ops_and_optimizers.md §1.4, its ScheduleDef).
    std::vector<std::pair<std::string, std::string>> combos;
    for (const char* mode : {"recompute_then_backpropagate", "recompute_and_backpropagate_interleaved"}) {
      for (const pipeline_schedules::ScheduleDef* def : pipeline_schedules::schedule_table()) {
        if (pipeline_schedules::runs_recomputation(*def, mode)) {
          combos.emplace_back(mode, def->name);
        }
      }
    }
    REQUIRE(combos.size() >= 6);
    for (const auto& [mode, schedule] : combos) {
      CAPTURE(mode);
      CAPTURE(schedule);
      const PlanCase c{"recompute", 4, schedule, 2};
      std::string text = config_for(c, "recomputation_mode = \"" + mode + "\"\n");
      text.replace(text.find("[pipeline]"), 10, "allow_recompute = true\n[pipeline]");
      check_same(train(text), reference);
    }
  }
}

TEST_CASE("fp16 accumulation and gradient clipping are plan-independent too") {
  SUBCASE("gradient_accumulation_dtype = fp16") {
    const std::string fp16 = "gradient_accumulation_dtype = \"fp16\"\n";
    const auto reference = train(reference_config(fp16));
    check_same(train(config_for({"", 4, "grouped", 2}, fp16)), reference);
    check_same(train(config_for({"", 2, "interleaved", 4}, fp16)), reference);
    // Rounding every partial sum to half must actually change the result.
    const auto f32 = train(reference_config());
    CHECK(std::memcmp(f32[0].values.data(), reference[0].values.data(), f32[0].values.size() * 4) != 0);
  }
  SUBCASE("gradient_clip_norm over parameters on different IPUs") {
    const std::string clip = "gradient_clip_norm = 0.05\n";
    const auto reference = train(reference_config("", clip));
    check_same(train(config_for({"", 4, "interleaved", 2}, "", clip)), reference);
    const auto unclipped = train(reference_config());
    CHECK(std::memcmp(unclipped[0].values.data(), reference[0].values.data(), unclipped[0].values.size() * 4) != 0);
  }
  SUBCASE("reduction sum scales by 1 / replicas only") {
    const std::string sum = "reduction_method = \"sum\"\n";
    // With sum, the update depends on the split (the gradient is A times larger), so compare two
    // plans with the same accumulation count instead of the one-IPU run.
    PlanCase one{"", 1, "sequential", 2};
    PlanCase four{"", 4, "interleaved", 2};
    std::string a = config_for(one);
    std::string b = config_for(four);
    a.replace(a.find("reduction_method = \"mean\"\n"), 26, sum);
    b.replace(b.find("reduction_method = \"mean\"\n"), 26, sum);
    check_same(train(a), train(b));
  }
}

TEST_CASE("adafactor: replicas, pipeline stages and accumulation train the one-IPU weights") {
  // Its factored moments and whole-tensor norms read the reduced gradient only, so the plan
  // changes no bits, as for the element-wise optimizers.
  auto adafactor = [](std::string text) {
    const std::string momentum = "type = \"momentum\"";
    text.replace(text.find(momentum), momentum.size(), "type = \"adafactor\"");
    return text;
  };
  const auto reference = train(adafactor(reference_config()));
  check_same(train(adafactor(config_for({"", 4, "grouped", 2}))), reference);
  check_same(train(adafactor(config_for({"", 2, "interleaved", 4}))), reference);
  check_same(train(adafactor(config_for({"", 1, "sequential", 2}))), reference);
  check_same(train(adafactor(config_for({"", 4, "interleaved", 1}))), reference);
  CHECK_FALSE(testing::same_bits(train(reference_config()), reference));  // not momentum's weights
}

TEST_CASE(
    "the sequential accumulation order: the same bits for every schedule and placement at R = 2, A = 4") {
  const std::string sequential = "gradient_accumulation_order = \"sequential\"\n";
  const std::vector<PlanCase> cases = {
      {"1 IPU, sequential", 1, "sequential", 2},    {"1 IPU, grouped", 1, "grouped", 2},
      {"1 IPU, interleaved", 1, "interleaved", 2},  {"2 IPUs, grouped", 2, "grouped", 2},
      {"2 IPUs, interleaved", 2, "interleaved", 2}, {"2 IPUs, sequential", 2, "sequential", 2},
      {"4 IPUs, interleaved", 4, "interleaved", 2}, {"4 IPUs, sequential", 4, "sequential", 2},
  };
  const std::vector<WeightInfo> reference = train(config_for(cases[0], sequential, "", 4));
  for (size_t i = 1; i < cases.size(); ++i) {
    CAPTURE(cases[i].name);
    check_same(train(config_for(cases[i], sequential, "", 4)), reference);
  }
  // Four stages on two IPUs of each replica, and small cross-replica buckets.
  check_same(
      train(base() +
            "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 0, 1, 1]\n"
            "schedule = \"sequential\"\ngradient_accumulation_count = 4\nreduction_method = \"mean\"\n" +
            sequential),
      reference);
  std::string buckets = config_for(cases[7], sequential, "", 4);
  buckets.replace(buckets.find("[pipeline]"), 10,
                  "[ipu.optimizations]\nmaximum_cross_replica_sum_buffer_size = 300\n[pipeline]");
  check_same(train(buckets), reference);

  SUBCASE("fp16 accumulators round at the same places in every plan") {
    const std::string fp16 = sequential + "gradient_accumulation_dtype = \"fp16\"\n";
    const auto half = train(config_for(cases[0], fp16, "", 4));
    check_same(train(config_for(cases[4], fp16, "", 4)), half);
    CHECK_FALSE(testing::same_bits(half, reference));
  }
  SUBCASE("the canonical order agrees to rounding, but not bit for bit") {
    const auto canonical = train(config_for(cases[0], "", "", 4));
    CHECK_FALSE(testing::same_bits(canonical, reference));
    REQUIRE(canonical.size() == reference.size());
    for (size_t i = 0; i < canonical.size(); ++i) {
      CAPTURE(reference[i].name);
      float largest = 0;
      float diff = 0;
      for (size_t k = 0; k < reference[i].values.size(); ++k) {
        largest = std::max(largest, std::abs(reference[i].values[k]));
        diff = std::max(diff, std::abs(reference[i].values[k] - canonical[i].values[k]));
      }
      CHECK(diff <= 1e-5f * largest);
    }
  }
}

TEST_CASE("a weight tied across stages: every plan sums its gradient parts the same way") {
  // 12 global micro-batches: grouped with three stages needs a multiple of 6 per replica.
  auto config = [](const std::string& ipu, const std::string& pipeline, int accumulation) {
    return base() + ipu + "[pipeline]\n" + pipeline + "gradient_accumulation_count = " +
           std::to_string(accumulation) + "\nreduction_method = \"mean\"\n";
  };
  const std::vector<WeightInfo> reference = train(config("", "", 12), kTied);
  // Automatic staging merges the three stages into one; the parts still follow the model's stages.
  check_same(train(config("", "auto_stages = 1\n", 12), kTied), reference);
  for (int replicas : {1, 2}) {
    CAPTURE(replicas);
    const std::string ipus = "[ipu]\nauto_select_ipus = " + std::to_string(2 * replicas) + "\n";
    // The head back on IPU 0 with the table it reads: its part goes into its own accumulator.
    check_same(train(config(ipus, "device_mapping = [0, 1, 0]\nschedule = \"grouped\"\n", 12 / replicas), kTied),
               reference);
    check_same(train(config(ipus + "allow_recompute = true\n",
                            "device_mapping = [0, 1, 0]\nschedule = \"grouped\"\n"
                            "recomputation_mode = \"recompute_and_backpropagate_interleaved\"\n",
                            12 / replicas),
                     kTied),
               reference);
  }
}

TEST_CASE("a tied weight in a model without stages: cut at its blocks, every plan trains the same bits") {
  // The stages of kTied removed and its body a loop of two blocks: the table's gradient is summed
  // per segment (the lookup before the blocks, the head after them) whatever the plan.
  const std::string flat = R"(import nn

model flat_tied(batch: int = 4, vocab: int = 24, width: int = 16) {
  input ids: i32[batch]
  input label: i32[batch]
  param table: f32[vocab, width] = normal(stddev = 0.3)
  h = gather(table, ids)
  for i in 0..2 {
    h = nn.dropout(nn.dense(h, width, activation = tanh), 0.25)
  }
  loss = mean(softmax_cross_entropy(h @ transpose(table), label))
  minimize loss
  output loss
}
)";
  auto config = [](const std::string& ipu, const std::string& pipeline, int accumulation) {
    return base() + ipu + "[pipeline]\n" + pipeline + "gradient_accumulation_count = " + std::to_string(accumulation) +
           "\nreduction_method = \"mean\"\n";
  };
  const std::vector<WeightInfo> reference = train(config("", "", 12), flat);
  for (int replicas : {1, 2}) {
    CAPTURE(replicas);
    const std::string ipus = "[ipu]\nauto_select_ipus = " + std::to_string(2 * replicas) + "\n";
    check_same(train(config(ipus,
                            "auto_stages = 3\nauto_stage_blocks = [1, 1, 0]\ndevice_mapping = [0, 1, 0]\n"
                            "schedule = \"grouped\"\n",
                            12 / replicas),
                     flat),
               reference);
  }
}

namespace {

// GPT-2 as Graphcore places it, in small: the first stage's embedding table is read again by the
// head, which goes back on IPU 0, and a value of the first stage (GPT-2's attention mask) is read
// by a far stage. The link from IPU 0 to that stage's IPU then carries the value and, later sent
// but sooner read, the head's input gradients.
const std::string kSkipHead = R"(import nn

model skip_head(batch: int = 4, vocab: int = 24, width: int = 16) {
  input ids: i32[batch]
  input label: i32[batch]

  stage embed {
    param table: f32[vocab, width] = normal(stddev = 0.3)
    h = gather(table, ids)
    gate = sigmoid(h)
  }
  stage s1 { h = nn.dense(h, width, activation = tanh) }
  stage s2 { h = nn.dropout(nn.dense(h, width, activation = tanh), 0.25) }
  stage s3 { h = nn.dense(h, width, activation = tanh) }
  stage s4 { h = nn.dense(h, width, activation = tanh) }
  stage s5 { h = nn.dense(h, width, activation = tanh) * gate }
  stage head {
    logits = h @ transpose(table)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

}  // namespace

TEST_CASE("the head back on IPU 0 and a far-read value: the plan trains, as planned, the one-IPU weights") {
  // 14 micro-batches a cycle: grouped with seven stages needs a multiple of 14. The planner's cycle
  // model used to find these programs deadlocked.
  // Five calls of four updates: the host's share of a call is the planned one.
  auto config = [](const std::string& ipu, const std::string& pipeline) {
    std::string text =
        base() + ipu + "[pipeline]\n" + pipeline + "gradient_accumulation_count = 14\nreduction_method = \"mean\"\n";
    return text.replace(text.find("steps_per_execution = 3"), 23, "steps_per_execution = 4");
  };
  const std::vector<WeightInfo> reference = train(config("", ""), kSkipHead);
  for (const auto& [ipus, mapping] : {std::pair{6, "[0, 1, 2, 3, 4, 5, 0]"}, std::pair{3, "[0, 1, 2, 2, 2, 2, 0]"}}) {
    for (const std::string schedule : {"grouped", "sequential"}) {
      const std::string text =
          config("[ipu]\nauto_select_ipus = " + std::to_string(ipus) + "\n",
                 std::string("device_mapping = ") + mapping + "\nschedule = \"" + schedule + "\"\n");
      CAPTURE(text);
      Config c = config::parse(text, "skip_head.toml");
      Session session(Model::parse(kSkipHead, "skip_head.ipu", c.model), c);
      session.train();
      check_same(session.weights(), reference);
      // The engine's simulated clocks, links included, run the planner's cycle model.
      const RunReport report = session.run_report();
      CHECK(report.simulated_cycles_per_update == doctest::Approx(report.planned_cycles_per_update).epsilon(1e-9));
    }
  }
}

TEST_CASE("a long accumulation, its steady state folded by the buffer assignment, changes no bits") {
  // 256 micro-batches a cycle: each IPU's program repeats one block of instructions, walked a few
  // times only; the engine runs every micro-batch at the offsets of the block it copies.
  auto config = [](const std::string& ipu, const std::string& pipeline) {
    return std::string("[optimizer]\ntype = \"momentum\"\nlearning_rate = 0.05\n"
                       "[data]\ntrain = \"synthetic:samples=4096,classes=10\"\n"
                       "[training]\nsteps = 2\nseed = 7\n") +
           ipu + "[pipeline]\n" + pipeline + "gradient_accumulation_count = 256\nreduction_method = \"mean\"\n";
  };
  const std::string pipelined =
      config("[ipu]\nauto_select_ipus = 4\n", "device_mapping = [0, 1, 2, 3]\nschedule = \"grouped\"\n");
  {
    const Config c = config::parse(pipelined, "fold.toml");
    const Plan plan = Plan::make(Model::parse(testing::kMlp4, "mlp4.ipu", c.model), c);
    for (const auto& arena : plan_of(plan).programs.arenas) {
      CHECK(arena.fold.copies > 0);
    }
  }
  Config c = config::parse(pipelined, "fold.toml");
  Session session(Model::parse(testing::kMlp4, "mlp4.ipu", c.model), c);
  session.train();
  for (const IpuReport& ipu : session.run_report().ipus) {
    CHECK(ipu.memory_peak == ipu.memory_estimate);
  }
  check_same(session.weights(), train(config("", "auto_stages = 1\n")));
}

namespace {

// Batch norms in both stages: their moving statistics follow each micro-batch's statistics, so
// the plans must also agree on which micro-batches a state sees and the order it sums them in.
const std::string kBatchNorm = R"(import nn

model bn2(batch: int = 4, width: int = 16) {
  input x: f32[batch, 16]
  input label: i32[batch]

  stage s0 {
    h0 = relu(nn.batch_norm(nn.dense(x, width, use_bias = false), momentum = 0.8))
  }
  stage s1 {
    h1 = nn.dropout(relu(nn.batch_norm(nn.dense(h0, width), momentum = 0.9)), 0.25)
    logits = nn.dense(h1, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

}  // namespace

TEST_CASE("batch-norm moving statistics: every plan gives the same weights and statistics as one IPU") {
  auto config = [](int ipus, const std::string& pipeline, int accumulation, const std::string& ipu = "") {
    return base() + "[ipu]\nauto_select_ipus = " + std::to_string(ipus) + "\n" + ipu + "[pipeline]\n" +
           pipeline + "gradient_accumulation_count = " + std::to_string(accumulation) +
           "\nreduction_method = \"mean\"\n";
  };
  // Both stages on IPU 0, all 16 micro-batches accumulated there.
  const std::vector<WeightInfo> reference = train(config(1, "", 16), kBatchNorm);
  int states = 0;
  for (const WeightInfo& w : reference) {
    if (!w.trainable) {
      ++states;
      // Moved away from the initial zeros and ones by 20 updates.
      CHECK(std::any_of(w.values.begin(), w.values.end(), [](float v) { return v != 0.0f && v != 1.0f; }));
    }
  }
  CHECK(states == 4);
  const std::vector<std::pair<std::string, std::string>> plans = {
      {"2 stages on 2 IPUs, grouped", config(2, "device_mapping = [0, 1]\nschedule = \"grouped\"\n", 16)},
      {"2 replicas of 1 IPU", config(2, "device_mapping = [0, 0]\n", 8)},
      {"4 replicas of 1 IPU, sequential schedule",
       config(4, "device_mapping = [0, 0]\nschedule = \"sequential\"\n", 4)},
      {"2 stages x 2 replicas, interleaved",
       config(4, "device_mapping = [0, 1]\nschedule = \"interleaved\"\n", 8)},
      {"both stages cut again by auto_stages = 2, 2 replicas",
       config(4, "auto_stages = 2\ndevice_mapping = [0, 1]\nschedule = \"grouped\"\n", 8)},
      {"2 stages x 2 replicas, recomputation",
       config(4,
              "device_mapping = [0, 1]\nschedule = \"grouped\"\n"
              "recomputation_mode = \"recompute_and_backpropagate_interleaved\"\n",
              8, "allow_recompute = true\n")},
  };
  for (const auto& [name, text] : plans) {
    CAPTURE(name);
    check_same(train(text, kBatchNorm), reference);
  }
  // Emulated f16 with half weights only: the statistics are stored in the compute type too.
  auto half = [](std::string text) {
    return text.replace(text.find("seed = 7\n"), 9,
                        "seed = 7\nprecision = \"f16\"\nmaster_weights = \"none\"\n");
  };
  const std::vector<WeightInfo> half_reference = train(half(config(1, "", 16)), kBatchNorm);
  CHECK_FALSE(testing::same_bits(half_reference, reference));
  check_same(train(half(config(4, "device_mapping = [0, 1]\nschedule = \"interleaved\"\n", 8)), kBatchNorm),
             half_reference);
}

namespace {

// Recurrent layers (an LSTM, then a GRU over lengths taken from the data) and a depthwise
// convolution: their fused kernels and the grouped convolution kernels must keep every plan's bits too.
const std::string kRecurrentDepthwise = R"(import nn

model rnn_dw(batch: int = 4) {
  input x: f32[batch, 16]
  input label: i32[batch]

  stage s0 {
    seq = nn.lstm(reshape(x, [batch, 4, 4]), 6, return_sequences = true)
    h = nn.gru(seq, 5, lengths = cast(x[:, 0] > 0.0, "i32") + 3)
  }
  stage s1 {
    img = nn.conv2d(reshape(x, [batch, 4, 4, 1]), 4, kernel_size = 2, padding = "same")
    d = nn.depthwise_conv2d(img, 3, padding = "same", depth_multiplier = 2, activation = relu)
    logits = nn.dense(concat([h, flatten(d)], axis = 1), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

}  // namespace

TEST_CASE("a recurrent and a depthwise model: every plan gives the same weights as one IPU") {
  auto config = [](int ipus, const std::string& pipeline, int accumulation, const std::string& ipu = "") {
    return base() + "[ipu]\nauto_select_ipus = " + std::to_string(ipus) + "\n" + ipu + "[pipeline]\n" + pipeline +
           "gradient_accumulation_count = " + std::to_string(accumulation) + "\nreduction_method = \"mean\"\n";
  };
  const std::vector<WeightInfo> reference = train(config(1, "", 16), kRecurrentDepthwise);
  const std::vector<std::pair<std::string, std::string>> plans = {
      {"2 stages on 2 IPUs, grouped", config(2, "device_mapping = [0, 1]\nschedule = \"grouped\"\n", 16)},
      {"2 replicas of 1 IPU", config(2, "device_mapping = [0, 0]\n", 8)},
      {"2 stages x 2 replicas, interleaved", config(4, "device_mapping = [0, 1]\nschedule = \"interleaved\"\n", 8)},
      {"4 replicas, sequential", config(4, "device_mapping = [0, 0]\nschedule = \"sequential\"\n", 4)},
      {"2 stages x 2 replicas, recomputation",
       config(4,
              "device_mapping = [0, 1]\nschedule = \"grouped\"\n"
              "recomputation_mode = \"recompute_and_backpropagate_interleaved\"\n",
              8, "allow_recompute = true\n")},
  };
  for (const auto& [name, text] : plans) {
    CAPTURE(name);
    check_same(train(text, kRecurrentDepthwise), reference);
  }
}

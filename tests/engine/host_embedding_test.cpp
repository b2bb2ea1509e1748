// Host tables (nn.host_embedding, `param ..., host = true`; planner/host_tables.hpp): the table
// lives in host memory, the host gathers its rows per micro-batch and applies the run's optimizer
// to it. It trains to the bits of the same table held on the IPU, under every plan; the plan
// leaves it out of the IPUs' memory and shows its host bytes and host-link traffic; checkpoints
// hold it and resume to the same bits.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "../scratch_dir.hpp"
#include "api/plan_access.hpp"
#include "core/data/safetensors.hpp"
#include "iputrain/iputrain.hpp"
#include "planner/host_tables.hpp"
#include "planner/simulate.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

// The same table on the host or on the IPU: one path ("table"), so one initial value.
const std::string kModel = R"(import nn

model tagger(host: bool = false, batch: int = 4) {
  input ids: i32[batch, 3]
  input label: i32[batch, 3]
  param table: f32[12, 8] = uniform(minval = -0.5, maxval = 0.5), host = host
  e = gather(table, ids)
  h = nn.dense(e, 16, activation = tanh)
  param decoder: f32[12, 16] = normal(stddev = 0.3)
  loss = mean(softmax_cross_entropy(h @ transpose(decoder), label))
  minimize loss
  output loss
}
)";

// nn.host_embedding against nn.embedding.
const std::string kLayers = R"(import nn

model tagger(host: bool = false) {
  input ids: i32[4, 3]
  input label: i32[4, 3]
  if host {
    e = nn.host_embedding(ids, vocab = 12, dim = 8)
  } else {
    e = nn.embedding(ids, 12, 8)
  }
  param decoder: f32[12, 8] = normal(stddev = 0.3)
  loss = mean(softmax_cross_entropy(e @ transpose(decoder), label))
  minimize loss
  output loss
}
)";

const std::string kAdam = "type = \"adam\"\nlearning_rate = 0.02\n";
const std::string kMomentum = "type = \"momentum\"\nlearning_rate = 0.1\nmomentum = 0.9\n";

std::string config_text(bool host, const std::string& optimizer, const std::string& plan, int steps = 6,
                        const std::string& training = "") {
  return std::string("[model]\nhost = ") + (host ? "true" : "false") + "\n[optimizer]\n" + optimizer +
         "[data]\ntrain = \"synthetic:samples=512,classes=12\"\n[training]\nsteps = " + std::to_string(steps) +
         "\nsteps_per_execution = 2\nseed = 5\n" + training + plan + "reduction_method = \"mean\"\n";
}

// One IPU; two stages on two IPUs; two replicas of two stages; one micro-batch (no accumulators).
const std::string kOne = "[pipeline]\ngradient_accumulation_count = 4\n";
const std::string kPipelined =
    "[ipu]\nauto_select_ipus = 2\n[pipeline]\nauto_stages = 2\ndevice_mapping = [0, 1]\n"
    "gradient_accumulation_count = 4\n";
const std::string kReplicated =
    "[ipu]\nauto_select_ipus = 4\n[pipeline]\nauto_stages = 2\ndevice_mapping = [0, 1]\n"
    "schedule = \"interleaved\"\ngradient_accumulation_count = 2\n";
const std::string kSingle = "[pipeline]\ngradient_accumulation_count = 1\n";
// The split backward (the table's scatter in the weight-gradient half) and the sequential sum.
const std::string kZeroBubble =
    "[ipu]\nauto_select_ipus = 2\n[pipeline]\nauto_stages = 2\ndevice_mapping = [0, 1]\n"
    "schedule = \"zero_bubble\"\ngradient_accumulation_count = 4\n";
const std::string kSequentialSum =
    "[pipeline]\ngradient_accumulation_count = 4\ngradient_accumulation_order = \"sequential\"\n";

struct Run {
  Config config;
  Session session;
  Run(const std::string& text, const std::string& model = kModel)
      : config(config::parse(text, "host_embedding.toml")),
        session(Model::parse(model, "tagger.ipu", config.model), config) {}
};

std::vector<WeightInfo> train(const std::string& text, const std::string& model = kModel) {
  Run r(text, model);
  r.session.train();
  return r.session.weights();
}

double host_io_cycles(const Plan& plan, size_t ipu) {
  double cycles = 0;
  for (const planner::Instr& in : plan_of(plan).programs.ipus.at(ipu)) {
    cycles += planner::instr_cost(plan_of(plan), in).host_io;
  }
  return cycles;
}

const planner::IpuMemory& ipu_memory(const Plan& plan, size_t ipu) { return plan_of(plan).memory.at(ipu); }

}  // namespace

TEST_CASE("a host table trains to the bits of the same table on the IPU, under every plan") {
  for (const std::string& optimizer : {kMomentum, kAdam}) {
    CAPTURE(optimizer);
    const std::vector<WeightInfo> device = train(config_text(false, optimizer, kOne));
    for (const std::string& plan : {kOne, kPipelined, kReplicated, kZeroBubble}) {
      CAPTURE(plan);
      CHECK(testing::same_bits(train(config_text(true, optimizer, plan)), device));
    }
    // One micro-batch on one replica: the optimizer reads the host gradient itself.
    CHECK(testing::same_bits(train(config_text(true, optimizer, kSingle, 4)),
                             train(config_text(false, optimizer, kSingle, 4))));
  }
  // Summed in the sequential order, and computed in f16 (the table's half copy, the rounded rows).
  CHECK(testing::same_bits(train(config_text(true, kAdam, kSequentialSum)),
                           train(config_text(false, kAdam, kSequentialSum))));
  const std::string f16 = "precision = \"f16\"\n";
  CHECK(testing::same_bits(train(config_text(true, kAdam, kOne, 6, f16)),
                           train(config_text(false, kAdam, kOne, 6, f16))));
  // The check can fail: the table moves.
  Run r(config_text(true, kMomentum, kOne));
  const std::vector<WeightInfo> before = r.session.weights();
  r.session.train();
  CHECK_FALSE(testing::same_bits(r.session.weights(), before));
}

TEST_CASE("nn.host_embedding trains as nn.embedding from the same table") {
  const fs::path dir = iputrain_tests::scratch_dir("host_embedding_test");
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The host layer's initial weights, renamed for nn.embedding.
  Run host(config_text(true, kAdam, kPipelined), kLayers);
  host.session.save_weights((dir / "host.safetensors").string());
  data::SafetensorsFile file = data::read_safetensors((dir / "host.safetensors").string());
  bool renamed = false;
  for (data::NamedTensor& t : file.tensors) {
    if (t.name == "host_embedding/table") {
      t.name = "embedding/table";
      renamed = true;
    }
  }
  REQUIRE(renamed);
  data::write_safetensors((dir / "device.safetensors").string(), file.tensors, file.metadata);
  Run device(config_text(false, kAdam, kOne), kLayers);
  device.session.load_weights((dir / "device.safetensors").string());
  host.session.train();
  device.session.train();
  CHECK(testing::same_bits(host.session.weights(), device.session.weights()));
}

TEST_CASE("the plan keeps a host table out of the IPUs' memory and shows its host bytes and traffic") {
  for (const std::string& plan : {kOne, kPipelined}) {
    CAPTURE(plan);
    const Config host_config = config::parse(config_text(true, kAdam, plan), "host.toml");
    const Config device_config = config::parse(config_text(false, kAdam, plan), "device.toml");
    const Plan host = Plan::make(Model::parse(kModel, "tagger.ipu", host_config.model), host_config);
    const Plan device = Plan::make(Model::parse(kModel, "tagger.ipu", device_config.model), device_config);
    const planner::IpuMemory& h = ipu_memory(host, 0);
    const planner::IpuMemory& d = ipu_memory(device, 0);
    const int64_t table = 12 * 8 * 4;
    CHECK(h.weights == d.weights - table);
    CHECK(h.optimizer_state == d.optimizer_state - 2 * table);  // adam's two moments
    CHECK(h.accumulators < d.accumulators);
    CHECK(h.total_peak < d.total_peak);
    CHECK(h.host_tables >= table + 2 * table);  // the table, its moments, its gradient (and accumulators)
    CHECK(h.host_rows_in == 4 * 3 * 8 * 4);     // micro-batch 4 x 3 ids x 8 floats
    CHECK(h.host_grads_out == h.host_rows_in);
    CHECK(d.host_tables == 0);
    const planner::CostReport& cost = plan_of(host).cost;
    const int64_t micro_batches = plan_of(host).decided.accumulation_count;
    // Per micro-batch: the 4 x 3 ids out, their rows in, the rows' gradients out.
    CHECK(cost.host_table_bytes_per_update == doctest::Approx((4 * 3 * 4 + 2.0 * h.host_rows_in) * micro_batches));
    // Priced on the host link, on the clock of the IPU that looks the table up.
    CHECK(host_io_cycles(host, 0) > host_io_cycles(device, 0));
    // The engine allocates what the plan says: the table is not in the IPU's memory.
    Run hr(config_text(true, kAdam, plan));
    Run dr(config_text(false, kAdam, plan));
    hr.session.train();
    dr.session.train();
    CHECK(hr.session.memory_per_ipu().at(0) < dr.session.memory_per_ipu().at(0));
  }
}

TEST_CASE("checkpoints hold a host table and resume it to the same bits") {
  const fs::path dir = iputrain_tests::scratch_dir("host_embedding_ckpt");
  fs::remove_all(dir);
  fs::create_directories(dir);
  Run whole(config_text(true, kAdam, kPipelined, 8));
  whole.session.train();
  Run part(config_text(true, kAdam, kPipelined, 4));
  part.session.train();
  const std::string saved = part.session.save_checkpoint(dir.string());
  bool has_table = false;
  bool has_state = false;
  for (const data::NamedTensor& t : data::read_safetensors(saved).tensors) {
    has_table = has_table || t.name == "table";
    has_state = has_state || (t.name.rfind("optimizer/", 0) == 0 && t.name.find("table") != std::string::npos);
  }
  CHECK(has_table);
  CHECK(has_state);
  Run resumed(config_text(true, kAdam, kPipelined, 8));
  CHECK(resumed.session.resume(saved).step == 4);
  resumed.session.train();
  CHECK(testing::same_bits(resumed.session.weights(), whole.session.weights()));
}

TEST_CASE("a host table read otherwise than by one lookup is a located error") {
  const std::string model = R"(model m() {
  input ids: i32[4]
  input label: i32[4]
  param table: f32[12, 8] = zeros(), host = true
  loss = mean(softmax_cross_entropy(gather(table, ids) + table[0:4], label))
  minimize loss
}
)";
  const Config config = config::parse("[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.1\n", "m.toml");
  CHECK_THROWS_WITH_AS(Plan::make(Model::parse(model, "m.ipu", config.model), config),
                       doctest::Contains("only looked up by rows"), Error);
  const std::string vector_table = R"(model m() {
  input ids: i32[4]
  param table: f32[12] = zeros(), host = true
  minimize mean(table)
}
)";
  CHECK_THROWS_WITH_AS(Model::parse(vector_table, "m.ipu", config.model), doctest::Contains("f32 matrix"), Error);
}

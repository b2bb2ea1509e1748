// The model's own collectives on the cluster: the same bits on every layout of the same replicas
// (stages, IPUs, schedules, recomputation), distributed batch norm from the key or the layer alike,
// a model loaded without the config that sets the key refused, a group that does not divide the
// replicas refused at the call, and the collectives priced over the system's links. Across mpirun
// instances: tests/distributed/distributed_test.cpp.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "iputrain/iputrain.hpp"
#include "iputrain/tune.hpp"

using namespace iputrain;

namespace {
namespace replica_collectives_test {

// Every collective in a two-stage model, both passes: a mean over all replicas, a gather and an
// exchange in pairs, a reduce-scatter, a batch norm shared by pairs, and dropout keyed per sample.
const char* kModel = R"(import nn

model coll(batch: int = 4, bn_group: int = 2) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  stage features {
    h = nn.dense(flatten(image), 16, activation = relu)
    s = cross_replica_mean(h)
    g = mean(all_gather(h, group = 2), axis = [0])
    t = all_to_all(g, split_axis = 0, concat_axis = 1, group = 2)
    r = reshape(all_gather(reduce_scatter(reshape(t, [batch, 16]), group = 2), group = 2), [batch, 16])
  }
  stage classifier {
    z = nn.batch_norm(reshape(s + r, [batch, 4, 4]), replica_group = bn_group)
    logits = nn.dense(nn.dropout(flatten(z), 0.25), 10)
    loss = mean(softmax_cross_entropy(logits, label)) + 0.0 * cast(replication_index(), dtype = "f32")
  }
  minimize loss
  output loss
}
)";

std::string config_text(const std::string& layout, int replicas = 2, const std::string& ipu = "") {
  return "[ipu]\nauto_select_ipus = " +
         std::to_string(replicas * (layout.find("[0, 1]") != std::string::npos ? 2 : 1)) + "\n" + ipu +
         "[pipeline]\ngradient_accumulation_count = 4\n" + layout +
         "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.01\n"
         "[data]\ntrain = \"synthetic:samples=512,classes=10\"\nbatch_size = 4\n"
         "[training]\nsteps = 6\nsteps_per_execution = 2\nseed = 5\n";
}

std::vector<WeightInfo> train(const std::string& config_text, const std::string& model = kModel) {
  const Config c = config::parse(config_text, "collectives.toml");
  Session session(Model::parse(model, "collectives.ipu", c), c);
  session.train();
  return session.weights();
}

bool same_bits(const std::vector<WeightInfo>& a, const std::vector<WeightInfo>& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].values != b[i].values) {
      return false;
    }
  }
  return true;
}

}  // namespace replica_collectives_test
}  // namespace

using namespace replica_collectives_test;

TEST_CASE("a model's collectives train the same bits on every layout of its replicas") {
  const auto one_ipu_each = train(config_text("stages = [\"features\", \"classifier\"]\ndevice_mapping = [0, 0]\n"));
  for (const std::string schedule : {"grouped", "interleaved", "sequential"}) {
    CAPTURE(schedule);
    const auto two = train(config_text("device_mapping = [0, 1]\nschedule = \"" + schedule + "\"\n"));
    CHECK(same_bits(two, one_ipu_each));
  }
  const auto recomputed =
      train(config_text("device_mapping = [0, 1]\nrecomputation_mode = \"recompute_then_backpropagate\"\n", 2,
                        "allow_recompute = true\n"));
  CHECK(same_bits(recomputed, one_ipu_each));
  // The collectives act: pairs of replicas in groups of one (each its own) train other numbers.
  const auto alone = train(config_text("device_mapping = [0, 0]\n"),
                           std::string(kModel).replace(std::string(kModel).find("group = 2"), 9, "group = 1"));
  CHECK_FALSE(same_bits(alone, one_ipu_each));
}

TEST_CASE("distributed batch norm: the key and the layer's replica_group build the same model") {
  const std::string layout = "device_mapping = [0, 0]\n";
  const std::string by_key =
      config_text(layout) + "[ipu.norms.experimental]\ndistributed_batch_norm_replica_group_size = 2\n";
  const std::string model_default =
      std::string(kModel).replace(std::string(kModel).find("bn_group: int = 2"), 17, "bn_group: int = 0");
  const auto from_key = train(by_key, model_default);
  CHECK(same_bits(from_key, train(config_text(layout))));
  CHECK_FALSE(same_bits(from_key, train(config_text(layout), model_default)));  // group 1: each replica alone
  // Groups that do not divide the replicas (4 IPUs, 2 replicas of 2): said at the key, not inside
  // the standard library.
  const Config four = config::parse(config_text("device_mapping = [0, 1]\n") +
                                        "[ipu.norms.experimental]\ndistributed_batch_norm_replica_group_size = 4\n",
                                    "collectives.toml");
  CHECK_THROWS_WITH_AS(Plan::make(Model::parse(model_default, "collectives.ipu", four), four),
                       doctest::Contains("batch-norm groups of 4 replicas do not divide the plan's 2 replicas"), Error);
  // A model built without the config keeps groups of one: refused rather than ignored.
  const Config c = config::parse(by_key, "collectives.toml");
  CHECK_THROWS_WITH_AS(Session(Model::parse(model_default, "collectives.ipu"), c),
                       doctest::Contains("built for groups of 1 replica, not 2"), Error);
}

TEST_CASE("a collective's group must divide the replicas: refused at the call") {
  const Config c = config::parse(config_text("device_mapping = [0, 0]\n", 3), "collectives.toml");
  try {
    Plan::make(Model::parse(kModel, "collectives.ipu", c), c);
    FAIL("planned all_gather in pairs over 3 replicas");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("all_gather over groups of 2 replicas, but the plan has 3 replicas") !=
          std::string::npos);
    CHECK(e.span().line == 9);
  }
}

TEST_CASE("the model's collectives are priced over the system's links") {
  const std::string layout = "device_mapping = [0, 0]\n";
  const Config c = config::parse(config_text(layout, 4), "collectives.toml");
  const Plan with = Plan::make(Model::parse(kModel, "collectives.ipu", c), c);
  // The same model with groups of one: nothing crosses between replicas but the gradients.
  std::string alone_text = kModel;
  for (size_t at = alone_text.find("group = 2"); at != std::string::npos; at = alone_text.find("group = 2")) {
    alone_text.replace(at, 9, "group = 1");
  }
  alone_text.replace(alone_text.find("cross_replica_mean(h)"), 21, "cross_replica_mean(h, group = 1)");
  alone_text.replace(alone_text.find("bn_group: int = 2"), 17, "bn_group: int = 1");
  const Plan alone = Plan::make(Model::parse(alone_text, "collectives.ipu", c), c);
  CHECK(with.replica_dependent());
  CHECK(with.cycles_per_update() > alone.cycles_per_update());
  CHECK(with.json().find("\"model_collective_bytes_per_update\"") != std::string::npos);
  CHECK(with.text().find("the model's own collectives:") != std::string::npos);
}

// Tunes `model` on 4 IPUs from a config that fixes neither the layout nor the micro-batch.
TuneResult tune_model(const std::string& model) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("iputrain_tune_collectives_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/m.ipu") << model;
  std::ofstream(dir + "/c.toml")
      << "[ipu]\nauto_select_ipus = 4\n[data]\ntrain = \"synthetic:samples=512,classes=10\"\n";
  TuneRequest request;
  request.model_path = dir + "/m.ipu";
  request.config_path = dir + "/c.toml";
  request.plans = 60;
  request.top = 30;
  const TuneResult result = tune(request);
  std::filesystem::remove_all(dir);
  return result;
}

// The replica counts and micro-batches of the ranked plans.
std::set<std::pair<int32_t, int64_t>> shapes_of(const TuneResult& r) {
  std::set<std::pair<int32_t, int64_t>> out;
  for (const TunedPlan& p : r.ranked) {
    out.insert({p.replicas, p.micro_batch});
  }
  return out;
}

TEST_CASE("tune keeps the replicas and the micro-batch of a model computed across its replicas") {
  const std::string model = R"(import nn

model bn(batch: int = 4, group: int = 4) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  h = nn.batch_norm(nn.dense(flatten(image), 16, activation = relu), replica_group = group)
  loss = mean(softmax_cross_entropy(nn.dense(h, 10), label))
  minimize loss
  output loss
}
)";
  // The input: 4 replicas of micro-batch 4. A batch norm of its own replica's statistics tunes
  // to other replica counts and micro-batches; one that shares them with 4 replicas keeps both.
  std::string alone = model;
  alone.replace(alone.find("group: int = 4"), 14, "group: int = 1");
  CHECK(shapes_of(tune_model(alone)).size() > 1);
  const TuneResult shared = tune_model(model);
  REQUIRE(shared.input_fits);
  CHECK(shapes_of(shared) == std::set<std::pair<int32_t, int64_t>>{{4, 4}});
}

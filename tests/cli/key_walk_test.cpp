// Every key of the schema, set to a valid non-default value on a small pipelined, replicated plan,
// through the CLI as a user would, must do what its declared status says:
//   acts      -> the run changes (the plan JSON, the log, the saved weights or the files written);
//   modelled  -> the plan JSON changes and the trained weights do not;
//   refused   -> `check`, `plan` and `train` fail alike, saying why;
//   no effect -> `check` warns, naming the key.
// A key documented as acting that changes nothing fails here.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "core/optim_table.hpp"
#include "frontend/config/schema.hpp"
#include "run_cli.hpp"
#include "tests/regex_util.hpp"

namespace fs = std::filesystem;
namespace config = iputrain::config;
using iputrain::config::Effect;
using iputrain::config::KeySpec;
using iputrain::config::KeyType;
using iputrain::config::Value;
using iputrain::config::ValueList;

namespace {

// Two stages on two IPUs, two replicas, grouped accumulation of 4 micro-batches of 4; two equal
// dense layers in a loop are the model's repeated blocks (pipeline.auto_stage_blocks); a batch
// norm shares its statistics across the replicas under distributed batch norm.
const char* kModel = R"(import nn

model mlp(batch: int = 4, hidden: int = 32) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]

  stage features {
    x = nn.conv2d(reshape(image, [batch, 8, 8, 1]), 2, kernel_size = 3, padding = "same", activation = relu)
    h = nn.dense(flatten(x), hidden, activation = relu)
    for i in 0..2 {
      h = nn.dense(h, hidden, activation = relu)
    }
  }
  stage classifier {
    logits = nn.dense(nn.batch_norm(h), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
  output accuracy = mean(cast(argmax(logits, axis = -1) == label, dtype = "f32"))
}
)";

const char* kBase = R"([ipu]
auto_select_ipus = 4
[pipeline]
stages = ["features", "classifier"]
device_mapping = [0, 1]
gradient_accumulation_count = 4
[optimizer]
type = "sgd"
learning_rate = 0.05
[data]
train = "synthetic:samples=512,classes=10"
test = "synthetic:samples=256,classes=10"
batch_size = 4
[training]
steps = 3
seed = 7
)";

// A probe: the value to set, and the keys the value needs to be valid and active (applied to the
// base run too, so only the probed key differs). `{dir}` is replaced by the probe's directory.
struct Probe {
  std::string value;
  std::vector<std::string> context = {};
  std::string without = {};  //!< a line of the base config left out (an exclusive key it sets)
  std::vector<std::string> also = {};  //!< keys the value needs, set with it (not in the base run)
};

// Values the type alone cannot choose: keys already set by the base, keys that need another key,
// strings and lists.
const std::map<std::string, Probe>& probes() {
  // One probe per line, however long.
  // clang-format off
  static const std::map<std::string, Probe> all = {
      {"model", {"16"}},  // model.hidden
      {"ipu.auto_select_ipus", {"2"}},
      {"ipu.select_ipus", {"[26]", {"ipu.select_ipus=[24]"}, "auto_select_ipus = 4"}},
      {"ipu.selection_order", {"\"zigzag\""}},  // auto is snake with 2 IPUs per replica
      {"ipu.serialization_output_folder", {"\"{dir}/compiled\""}},
      {"ipu.compilation_poplar_options", {"{ \"debug.instrument\" = \"true\" }"}},
      {"ipu.gcl_poplar_options", {"{ \"maxBytesPerTile\" = \"1000\" }"}},
      {"ipu.convolutions.poplar_options", {"{ availableMemoryProportion = \"0.001\" }", {"ipu.ipu_model.tiles_per_ipu=4"}}},
      {"ipu.matmuls.poplar_options", {"{ availableMemoryProportion = \"0.001\" }", {"ipu.ipu_model.tiles_per_ipu=4"}}},
      {"ipu.pooling.poplar_options", {"{ \"poolUseIntrospectiveMapping\" = \"false\" }"}},
      {"ipu.device_connection.type", {"\"on_demand\""}},
      {"ipu.device_connection.version", {"\"ipu1\""}},
      {"ipu.floating_point_behaviour.esr", {"true", {"training.precision=\"f16\""}}},
      {"ipu.floating_point_behaviour.nanoo", {"true", {"training.precision=\"f16\""}}},
      {"ipu.io_tiles.place_ops_on_io_tiles", {"true", {"ipu.io_tiles.num_io_tiles=32"}}},
      {"ipu.io_tiles.available_memory_proportion", {"0.5", {"ipu.io_tiles.num_io_tiles=32", "ipu.io_tiles.place_ops_on_io_tiles=true"}}},
      {"ipu.io_tiles.num_io_tiles", {"32"}},
      {"ipu.ipu_model.tiles_per_ipu", {"736"}},
      {"ipu.norms.experimental.distributed_batch_norm_replica_group_size", {"2"}},
      {"ipu.scheduling.maximum_scheduler_lookahead_depth", {"1", {"ipu.scheduling.algorithm=\"look_ahead\""}}},
      {"ipu.scheduling.maximum_scheduler_search_space_size", {"1", {"ipu.scheduling.algorithm=\"look_ahead\""}}},
      {"pipeline.stages", {"[\"features\", \"classifier\"]"}},  // see kChecks
      // One process is one instance: the keys are checked against the launch (tests/distributed).
      {"ipu.experimental.multi_replica_distribution.process_count", {"1"}},  // see kChecks
      {"ipu.experimental.multi_replica_distribution.process_index", {"0"}},  // see kChecks
      {"pipeline.device_mapping", {"[1, 0]"}},
      {"pipeline.auto_stages", {"2", {"pipeline.stages=[]"}}},
      {"pipeline.auto_stage_blocks", {"[0, 2]", {"pipeline.stages=[]", "pipeline.auto_stages=2"}}},
      {"pipeline.gradient_accumulation_count", {"8"}},
      {"pipeline.gradient_accumulation_order", {"\"sequential\""}},
      {"pipeline.batch_serialization_iterations", {"2", {"pipeline.schedule=\"sequential\"", "pipeline.device_mapping=[0, 0]", "ipu.auto_select_ipus=2"}}},
      {"pipeline.schedule", {"\"interleaved\""}},
      {"pipeline.recomputation_mode", {"\"recompute_and_backpropagate_interleaved\"", {"ipu.allow_recompute=true"}}},
      {"pipeline.forward_propagation_stages_poplar_options", {"[{ matmul_options = { availableMemoryProportion = \"0.001\" } }, {}]", {"ipu.ipu_model.tiles_per_ipu=4"}}},
      {"pipeline.backward_propagation_stages_poplar_options", {"[{ matmul_options = { availableMemoryProportion = \"0.001\" } }, {}]", {"ipu.ipu_model.tiles_per_ipu=4"}}},
      {"pipeline.weight_update_poplar_options", {"{ matmul_options = { availableMemoryProportion = \"0.1\" } }"}},
      {"pipeline.offload_weights", {"false", {"pipeline.replicated_weight_sharding=true"}}},  // auto = on with sharding
      {"pipeline.offload_weight_update_variables", {"true", {"optimizer.type=\"adam\""}}},
      {"device.flops_per_tile_per_cycle_fp16", {"32", {"training.precision=\"f16\""}}},
      {"pipeline.outfeed_mask", {"[false, true]"}},
      {"pipeline.accumulate_outfeed_dtype", {"\"fp16\"", {"pipeline.accumulate_outfeed=true"}}},
      {"pipeline.name", {"\"walk\""}},
      {"optimizer.type", {"\"adam\""}},
      {"optimizer.momentum", {"0.5", {"optimizer.type=\"momentum\""}}},
      {"optimizer.use_nesterov", {"true", {"optimizer.type=\"momentum\""}}},
      {"optimizer.beta1", {"0.8", {"optimizer.type=\"adam\""}}},
      {"optimizer.beta2", {"0.9", {"optimizer.type=\"adam\""}}},
      {"optimizer.epsilon", {"0.001", {"optimizer.type=\"adam\""}}},
      {"optimizer.rho", {"0.5", {"optimizer.type=\"rmsprop\""}}},
      {"optimizer.centered", {"true", {"optimizer.type=\"rmsprop\""}}},
      {"optimizer.initial_accumulator_value", {"0.5", {"optimizer.type=\"adagrad\""}}},
      {"optimizer.beta2_decay", {"-0.5", {"optimizer.type=\"adafactor\""}}},
      {"optimizer.epsilon1", {"0.1", {"optimizer.type=\"adafactor\""}}},
      {"optimizer.epsilon2", {"0.1", {"optimizer.type=\"adafactor\""}}},
      {"optimizer.clip_threshold", {"0.01", {"optimizer.type=\"adafactor\""}}},
      {"optimizer.relative_step", {"false", {"optimizer.type=\"adafactor\""}}},
      {"optimizer.scale_parameter", {"false", {"optimizer.type=\"adafactor\""}}},
      {"optimizer.gradient_clip_norm", {"0.01"}},
      {"optimizer.state_dtype", {"\"f16\"", {"optimizer.type=\"adam\""}}},
      {"optimizer.loss_scaling", {"1024", {"training.precision=\"f16\""}}},
      {"optimizer.loss_scaling_mode", {"\"dynamic\"", {"training.precision=\"f16\""}}},
      {"optimizer.loss_scaling_growth_interval", {"1", {"training.precision=\"f16\"", "optimizer.loss_scaling_mode=\"dynamic\""}}},
      {"optimizer.loss_scaling_growth_factor", {"4.0", {"training.precision=\"f16\"", "optimizer.loss_scaling_mode=\"dynamic\"", "optimizer.loss_scaling_growth_interval=1"}}},
      {"optimizer.loss_scaling_backoff_factor", {"0.25", {"training.precision=\"f16\"", "optimizer.loss_scaling_mode=\"dynamic\"", "optimizer.loss_scaling=65536"}}},
      {"optimizer.lr_schedule", {"\"cosine\"", {}, {}, {"optimizer.decay_steps=2"}}},
      {"optimizer.warmup_steps", {"2"}},
      {"optimizer.decay_steps", {"1", {"optimizer.lr_schedule=\"step\"", "optimizer.decay_steps=2"}}},
      {"optimizer.decay_rate", {"0.1", {"optimizer.lr_schedule=\"step\"", "optimizer.decay_steps=1"}}},
      {"optimizer.min_learning_rate", {"0.04", {"optimizer.lr_schedule=\"cosine\"", "optimizer.decay_steps=2"}}},
      {"data.train", {"\"synthetic:samples=256,classes=10\""}},
      {"data.test", {"\"synthetic:samples=128,classes=10\""}},
      {"data.batch_size", {"8"}},
      {"data.seed", {"3", {"data.shuffle=true"}}},
      {"training.steps", {"2"}},
      {"training.epochs", {"0.25", {}, "steps = 3"}},
      {"training.steps_per_execution", {"2"}},
      {"training.log_every", {"2"}},
      {"training.precision", {"\"f16\""}},
      {"training.master_weights", {"\"none\"", {"training.precision=\"f16\""}}},
      {"training.outfeed_mode", {"\"last\"", {"training.steps_per_execution=3"}}},
      {"checkpoint.dir", {"\"{dir}/ckpt\""}},
      {"checkpoint.every", {"1", {"checkpoint.dir=\"{dir}/ckpt\""}}},
      {"checkpoint.keep", {"1", {"checkpoint.dir=\"{dir}/ckpt\"", "checkpoint.every=1"}}},
      {"data.validation", {"\"synthetic:samples=64,classes=10\""}},
      {"data.validation_split", {"0.25"}},
      {"training.validate_every", {"2", {"data.validation=\"synthetic:samples=64,classes=10\"", "training.validate_every_unit=\"steps\""}}},
      {"training.validate_every_unit", {"\"steps\"", {"data.validation=\"synthetic:samples=64,classes=10\""}}},
      {"checkpoint.keep_best", {"\"val_loss\"", {"data.validation=\"synthetic:samples=64,classes=10\"", "checkpoint.dir=\"{dir}/ckpt\""}}},
      {"checkpoint.keep_best_min_delta", {"1000000", {"data.validation=\"synthetic:samples=64,classes=10\"", "checkpoint.dir=\"{dir}/ckpt\"", "checkpoint.keep_best=\"val_loss\"", "training.validate_every_unit=\"steps\""}}},
      {"checkpoint.keep_best_mode", {"\"max\"", {"data.validation=\"synthetic:samples=64,classes=10\"", "checkpoint.dir=\"{dir}/ckpt\"", "checkpoint.keep_best=\"val_loss\"", "training.validate_every_unit=\"steps\""}}},
      {"profiling.enabled", {"true", {"profiling.report_directory=\"{dir}/profile\""}}},
      {"profiling.report_directory", {"\"{dir}/elsewhere\"", {"profiling.enabled=true", "profiling.report_directory=\"{dir}/profile\""}}},
      {"profiling.profile_execution", {"\"device_profile\"", {"profiling.enabled=true", "profiling.report_directory=\"{dir}/profile\""}}},
      {"profiling.enable_ipu_events", {"true", {"profiling.report_directory=\"{dir}/profile\""}}},
      {"profiling.report_every_nth_execution", {"1", {"profiling.enable_ipu_events=true", "profiling.report_directory=\"{dir}/profile\""}}},
      {"profiling.max_report_size", {"100", {"profiling.enabled=true", "profiling.report_directory=\"{dir}/profile\""}}},
      {"profiling.graph_options", {"{ \"x\" = \"y\" }"}},
      {"profiling.execution_options", {"{ \"x\" = \"y\" }"}},
      {"device.version", {"\"ipu1\""}},
      {"system.preset", {"\"pod16\""}},  // "auto" is pod4 for the walk's 4 IPUs
      // Not in the weights (bitwise the same for any thread count, tests/engine/threads_test.cpp):
      // the run shows it as the plan report's host_threads.
      {"engine.threads", {"3"}},
  };
  // clang-format on
  return all;
}

// Keys that check the config against the model rather than change it: their probe restates what
// the base already says, so the run must stay the same, and a contradicting value must fail.
const std::map<std::string, std::string> kChecks = {
    {"pipeline.stages", "[\"classifier\", \"features\"]"},
    {"ipu.experimental.multi_replica_distribution.process_count", "3"},  // 2 replicas for 3 instances
    {"ipu.experimental.multi_replica_distribution.process_index", "5"},  // past the count
};

std::string text(const Value& v) { return iputrain::config::toml_text(v); }

// A valid value other than the default, from the key's type and range.
std::string derived_value(const KeySpec& k) {
  const Value& d = k.default_value;
  switch (k.type) {
    case KeyType::Bool:
      return std::get<bool>(d) ? "false" : "true";
    case KeyType::AutoBool:
      return std::holds_alternative<std::string>(d) ? "true" : (std::get<bool>(d) ? "false" : "true");
    case KeyType::Int: {
      const int64_t v = std::get<int64_t>(d);
      for (int64_t c : {v + 1, v * 2, int64_t{2}, int64_t{1}}) {
        if (c != v && k.range.contains(static_cast<double>(c))) {
          return std::to_string(c);
        }
      }
      break;
    }
    case KeyType::Float: {
      const double v = std::get<double>(d);
      for (double c : {v * 0.5, v + 0.1, 0.5, 2.0}) {
        if (c != v && k.range.contains(c)) {
          return text(Value(c));
        }
      }
      break;
    }
    case KeyType::Enum:
      for (const std::string& a : k.allowed) {
        if (iputrain::config::enum_folded(a) != iputrain::config::enum_folded(std::get<std::string>(d))) {
          return text(Value(a));
        }
      }
      break;
    default:
      break;
  }
  FAIL("no probe value for `" << k.path << "`: add one to probes()");
  return {};
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// The log without what depends on the machine's speed.
std::string steady_log(const std::string& log) {
  return test_regex::replace(log, R"(\d+(\.\d+)? samples/s|in \d+\.\d+ s|\d+\.\d+ s |\d+% measured|\d+% / )", "#");
}

// The plan JSON without the planner's own timings.
std::string steady_plan(const std::string& json) {
  return test_regex::replace(json, R"("ms": [0-9.eE+-]+)", "\"ms\": #");
}

// Every file under `dir`, by name (digits masked: a profile directory's name carries the time)
// and, for a CSV table, its number of lines (other files' bytes carry timings).
std::string files_under(const fs::path& dir) {
  std::ostringstream out;
  if (!fs::exists(dir)) {
    return {};
  }
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    out << test_regex::replace(fs::relative(p, dir).string(), "[0-9]+", "#") << (fs::is_directory(p) ? "/" : "");
    if (p.extension() == ".csv") {
      std::ifstream in(p);
      out << " " << std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n') << " lines";
    }
    out << "\n";
  }
  return out.str();
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Outcome {
  int plan_status = -1;
  std::string plan;     //!< plan --format json (or its error)
  std::string log;      //!< train's output, timings removed
  std::string weights;  //!< the saved weights' bytes
  std::string files;    //!< files the run wrote besides the weights
};

class Walk {
 public:
  Walk() : root_(iputrain_tests::scratch_dir("key_walk")) {
    fs::remove_all(root_);
    fs::create_directories(root_);
    model_ = (root_ / "walk.ipu").string();
    std::ofstream(model_) << kModel;
  }

  //! The base config without the line `without` ("" = all of it) for the next runs.
  void use_base(const std::string& without) {
    config_ = (root_ / ("walk" + std::to_string(std::hash<std::string>{}(without)) + ".toml")).string();
    std::ofstream(config_) << (without.empty() ? std::string(kBase) : replace_all(kBase, without + "\n", ""));
  }

  // `sets` as `--set` arguments, `{dir}` replaced by a directory of this probe.
  std::string args(const std::vector<std::string>& sets, const fs::path& dir) const {
    std::string out = model_ + " " + config_;
    for (const std::string& s : sets) {
      out += " --set '" + replace_all(s, "{dir}", dir.string()) + "'";
    }
    return out;
  }

  fs::path fresh_dir(const std::string& name) const {
    const fs::path dir = root_ / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
  }

  Outcome run(const std::vector<std::string>& sets, const std::string& name) const {
    const fs::path dir = fresh_dir(name);
    Outcome o;
    const auto plan = cli_test::iputrain("plan " + args(sets, dir) + " --format json", "2>/dev/null");
    o.plan_status = plan.status;
    o.plan = steady_plan(plan.out);
    const fs::path weights = dir / "weights.safetensors";
    const auto train = cli_test::iputrain("train " + args(sets, dir) + " --save " + weights.string());
    o.log = steady_log(train.out);
    o.weights = file_bytes(weights);
    fs::remove(weights);
    o.files = files_under(dir);
    return o;
  }

  cli_test::Run command(const std::string& verb, const std::vector<std::string>& sets, const std::string& name) const {
    return cli_test::iputrain(verb + " " + args(sets, fresh_dir(name)));
  }

 private:
  fs::path root_;
  std::string model_;
  std::string config_;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

//! A key without an entry in probes(): a value other than its default, and an optimizer's own
//! hyper-parameter with that optimizer (the first the table lists as its reader), so a new
//! optimizer's keys are walked through its row alone.
Probe derived_probe(const KeySpec& k) {
  Probe probe{derived_value(k)};
  const std::string prefix = "optimizer.";
  if (k.path.rfind(prefix, 0) == 0) {
    const iputrain::HyperKey* hyper = iputrain::find_hyper_key(k.path.substr(prefix.size()));
    if (hyper != nullptr && !hyper->readers.empty()) {
      probe.context = {"optimizer.type=\"" + std::string(hyper->readers.front()->name) + "\""};
    }
  }
  return probe;
}

}  // namespace

TEST_CASE("every key does what its status says") {
  Walk walk;
  std::map<std::pair<std::string, std::vector<std::string>>, Outcome> bases;  // by base line left out and context
  auto base = [&](const Probe& probe) -> const Outcome& {
    const auto key = std::pair{probe.without, probe.context};
    auto it = bases.find(key);
    if (it == bases.end()) {
      it = bases.emplace(key, walk.run(probe.context, "base" + std::to_string(bases.size()))).first;
      CHECK_MESSAGE(it->second.plan_status == 0, "the base with " << probe.context.size() << " context keys does not plan: "
                                                                     << it->second.plan);
    }
    return it->second;
  };
  int walked = 0;
  int tune_keys = 0;
  for (const KeySpec& k : iputrain::config::schema()) {
    if (k.path == "extends") {
      continue;  // composition, tested in tests/config/extends_test.cpp
    }
    if (k.path.rfind("tune.", 0) == 0) {
      // [tune] steers `iputrain tune` only (train and plan read none of it): its keys are walked by
      // tests/cli/tune_cli_test.cpp and tests/planner/tune_test.cpp.
      ++tune_keys;
      continue;
    }
    const auto found = probes().find(k.path);
    const Probe probe = found != probes().end() ? found->second : derived_probe(k);
    std::vector<std::string> sets = probe.context;
    sets.push_back((k.path == "model" ? "model.hidden" : k.path) + "=" + probe.value);
    sets.insert(sets.end(), probe.also.begin(), probe.also.end());
    walk.use_base(probe.without);
    CAPTURE(k.path);
    CAPTURE(probe.value);
    ++walked;
    const std::string name = "probe" + std::to_string(walked);
    switch (k.effect) {
      case Effect::Refused: {
        const auto check = walk.command("check", sets, name);
        const auto plan = walk.command("plan", sets, name);
        const auto train = walk.command("train", sets, name);
        CHECK(check.status != 0);
        CHECK(plan.status == check.status);
        CHECK(train.status == check.status);
        CHECK(check.out.find("`" + k.path + "` is refused") != std::string::npos);
        CHECK(first_line(plan.out) == first_line(check.out));
        CHECK(first_line(train.out) == first_line(check.out));
        break;
      }
      case Effect::None: {
        const auto check = walk.command("check", sets, name);
        CHECK(check.status == 0);
        CHECK_MESSAGE(check.out.find("warning: `" + k.path + "` has no effect") != std::string::npos, check.out);
        break;
      }
      case Effect::Models: {
        const Outcome& b = base(probe);
        const Outcome o = walk.run(sets, name);
        CHECK_MESSAGE(o.plan_status == 0, o.plan);
        CHECK_MESSAGE(!o.weights.empty(), o.log);
        CHECK_MESSAGE(o.plan != b.plan, "the plan JSON does not change");
        CHECK_MESSAGE(o.weights == b.weights, "a modelled key changed the trained weights");
        break;
      }
      case Effect::Runs: {
        const Outcome& b = base(probe);
        const Outcome o = walk.run(sets, name);
        if (kChecks.count(k.path) != 0) {
          CHECK(o.weights == b.weights);
          std::vector<std::string> wrong = probe.context;
          wrong.push_back(k.path + "=" + kChecks.at(k.path));
          CHECK(walk.command("check", wrong, name).status != 0);
          break;
        }
        CHECK_MESSAGE(!o.weights.empty(), o.log);
        const bool changed = o.plan != b.plan || o.log != b.log || o.weights != b.weights || o.files != b.files;
        CHECK_MESSAGE(changed, "neither the plan, the log, the weights nor the files written change");
        break;
      }
    }
  }
  CHECK(tune_keys > 0);
  CHECK(walked + tune_keys + 1 == static_cast<int>(iputrain::config::schema().size()));
}

// A checkpoint records the registered ops its model calls (issue 48 follow-up): each op's declared
// registration (operands, attributes with their defaults, whether it has a gradient, its version)
// under the metadata key `registered_ops`. A resume under the same registration continues bit for
// bit; one under a registration that differs is refused naming the op and what differs; a
// checkpoint without the record (written before iputrain kept it) resumes with a note; a model that
// calls no registered op writes no record.
//
// One process cannot register an op twice under one name, so a checkpoint "written under another
// registration" is the checkpoint of this one with its record edited as that program would have
// written it; the record of the registration in effect is checked line by line first.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "core/data/safetensors.hpp"
#include "iputrain/iputrain.hpp"
#include "shrink_op.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {
namespace checkpoint_ops_test {

// x - alpha tanh(x) (shrink_op.hpp) at version "3".
void register_ckops_ops() {
  static const bool once = [] {
    CustomOp op = testing::tanh_shrink_op("ckops_shrink", 0.5);
    op.doc = "x - alpha tanh(x) (checkpoint_ops_test).";
    op.version = "3";
    register_op(std::move(op));
    return true;
  }();
  (void)once;
}

const std::string kCkopsRecord =
    "ckops_shrink.inputs = [\"x\"]\n"
    "ckops_shrink.attributes = {alpha = 0.5}\n"
    "ckops_shrink.differentiable = true\n"
    "ckops_shrink.version = \"3\"\n";

std::string ckops_config(int64_t steps, const std::string& extra = "") {
  return "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.02\n"
         "[data]\ntrain = \"synthetic:samples=256,classes=10\"\nshuffle = true\n"
         "[training]\nsteps = " +
         std::to_string(steps) + "\nseed = 5\n[pipeline]\ngradient_accumulation_count = 2\n" + extra;
}

struct CkopsRun {
  Config config;
  Session session;
  CkopsRun(const std::string& call, const std::string& text)
      : config(config::parse(text, "checkpoint_ops.toml")),
        session(Model::parse(testing::shrink_model(call), "tiny.ipu", config), config) {}
};

fs::path ckops_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("checkpoint_ops_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string ckops_every_step(const fs::path& dir) {
  return "[checkpoint]\ndir = \"" + dir.string() + "\"\nevery = 1\nkeep = 0\n";
}

// Trains 4 steps with a checkpoint after each; returns the step-2 checkpoint.
std::string ckops_checkpoints(const std::string& name, const std::string& call = "ckops_shrink(h)") {
  const fs::path dir = ckops_dir(name);
  CkopsRun run(call, ckops_config(4, ckops_every_step(dir)));
  REQUIRE(run.session.train().checkpoints.size() == 4);
  return (dir / "step-00000002.safetensors").string();
}

// A copy of checkpoint `from` at `to` whose `registered_ops` record is `record` (none: "").
void ckops_rewrite(const std::string& from, const std::string& to, const std::string& record) {
  data::SafetensorsFile file = data::read_safetensors(from);
  file.metadata.erase("registered_ops");
  if (!record.empty()) {
    file.metadata["registered_ops"] = record;
  }
  data::write_safetensors(to, file.tensors, file.metadata);
}

std::string ckops_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string ckops_replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace checkpoint_ops_test
}  // namespace

using namespace checkpoint_ops_test;

TEST_CASE("a checkpoint records the registered ops its model calls, and resumes under them bit for bit") {
  register_ckops_ops();
  CkopsRun straight("ckops_shrink(h)", ckops_config(4));
  straight.session.train();
  const std::string step2 = ckops_checkpoints("same");
  const data::SafetensorsFile file = data::read_safetensors(step2);
  CHECK(file.metadata.at("registered_ops") == kCkopsRecord);

  CkopsRun resumed("ckops_shrink(h)", ckops_config(4));
  const ResumeInfo info = resumed.session.resume(step2);
  CHECK(info.step == 2);
  for (const std::string& note : info.notes) {  // one: the config lost its [checkpoint] keys
    CHECK(note.find("registered op") == std::string::npos);
  }
  CHECK(resumed.session.train().steps == 2);
  CHECK(testing::same_bits(resumed.session.weights(), straight.session.weights()));
  // An attribute passed at the call is the model's, not the registration's: recorded the same.
  const std::string steep = ckops_checkpoints("steep", "ckops_shrink(h, alpha = 2.0)");
  CHECK(data::read_safetensors(steep).metadata.at("registered_ops") == kCkopsRecord);
}

TEST_CASE("a resume under another registration of an op the model calls is refused, naming the op and what differs") {
  register_ckops_ops();
  const std::string step2 = ckops_checkpoints("other");
  const std::string edited = (fs::path(step2).parent_path() / "edited.safetensors").string();
  auto refused = [&](const std::string& record, const std::string& needle, const std::string& count = "1 difference") {
    CAPTURE(needle);
    ckops_rewrite(step2, edited, record);
    CkopsRun r("ckops_shrink(h)", ckops_config(4));
    try {
      r.session.resume(edited);
      FAIL("resume accepted a checkpoint trained under another registration");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Data);
      const std::string& message = e.diagnostic().message;
      CHECK(message.find("cannot resume from `" + edited +
                         "`: it was trained under another registration of the "
                         "ops its model calls (" +
                         count + "):\n  ") != std::string::npos);
      CHECK(message.find(needle) != std::string::npos);
      CHECK(e.hint().find("register each op as it was") != std::string::npos);
    }
    CHECK(r.session.step() == 0);  // refused before anything changed
  };
  // As each line of the record read when the checkpoint was written.
  const struct {
    const char* was;
    const char* recorded;
    const char* needle;
  } edits[] = {
      {"version = \"3\"", "version = \"2\"", "`ckops_shrink`: its version was \"2\", is \"3\""},
      {"{alpha = 0.5}", "{alpha = 0.25}",
       "`ckops_shrink`: its attributes with their defaults were {alpha = 0.25}, are {alpha = 0.5}"},
      {"{alpha = 0.5}", "{alpha = 0.5, beta = 1}",
       "`ckops_shrink`: its attributes with their defaults were {alpha = 0.5, beta = 1}, are {alpha = 0.5}"},
      {"[\"x\"]", "[\"x\", \"y\"]", "`ckops_shrink`: its operands (inputs) were [\"x\", \"y\"], are [\"x\"]"},
      {"differentiable = true", "differentiable = false",
       "`ckops_shrink`: whether it has a gradient (backward) was false, is true"},
  };
  for (const auto& edit : edits) {
    refused(ckops_replaced(kCkopsRecord, edit.was, edit.recorded), edit.needle);
  }
  // Two differences, both named.
  refused(ckops_replaced(ckops_replaced(kCkopsRecord, "\"3\"", "\"1\""), "{alpha = 0.5}", "{alpha = 1}"),
          "`ckops_shrink`: its attributes with their defaults were {alpha = 1}, are {alpha = 0.5}\n  "
          "`ckops_shrink`: its version was \"1\", is \"3\"",
          "2 differences");
}

TEST_CASE("a checkpoint without the record resumes a model that calls registered ops, with a note") {
  register_ckops_ops();
  CkopsRun straight("ckops_shrink(h)", ckops_config(4));
  straight.session.train();
  const std::string step2 = ckops_checkpoints("old");
  // As iputrain wrote it before it recorded registered ops: no `registered_ops` key.
  const std::string old = (fs::path(step2).parent_path() / "old.safetensors").string();
  ckops_rewrite(step2, old, "");
  CkopsRun resumed("ckops_shrink(h)", ckops_config(4));
  const ResumeInfo info = resumed.session.resume(old);
  REQUIRE(info.notes.size() == 2);
  CHECK(info.notes[0].find("the checkpoint records no registered op") != std::string::npos);
  CHECK(info.notes[0].find("the registration of `ckops_shrink` is not checked") != std::string::npos);
  CHECK(info.notes[1].find("the config differs") != std::string::npos);  // it lost its [checkpoint] keys
  resumed.session.train();
  CHECK(testing::same_bits(resumed.session.weights(), straight.session.weights()));
}

TEST_CASE("a model that calls no registered op writes no record: its checkpoint's metadata is as before") {
  register_ckops_ops();  // registered, but not called
  const fs::path dir = ckops_dir("plain");
  const std::string plain_model = testing::shrink_model("tanh(h)");
  const Config config = config::parse(ckops_config(2, ckops_every_step(dir)), "checkpoint_ops.toml");
  Session session(Model::parse(plain_model, "plain.ipu", config), config);
  session.train();
  const std::string path = (dir / "step-00000002.safetensors").string();
  const data::SafetensorsFile file = data::read_safetensors(path);
  std::vector<std::string> keys;
  for (const auto& [key, value] : file.metadata) {
    keys.push_back(key);
  }
  // The keys iputrain wrote before it recorded registered ops, and nothing else.
  CHECK(keys == std::vector<std::string>{"config_hash", "data_seed", "format", "format_version", "global_batch",
                                         "loss_scale", "loss_scale_good_steps", "loss_scale_skipped", "micro_batch",
                                         "model", "optimizer", "optimizer_state_slots", "run_config", "run_hash",
                                         "samples", "seed", "shuffle", "step"});
  // And the file is those keys and tensors as safetensors writes them, byte for byte.
  const std::string copy = (dir / "copy.safetensors").string();
  data::write_safetensors(copy, file.tensors, file.metadata);
  CHECK(ckops_bytes(copy) == ckops_bytes(path));
  // It resumes a model that calls none with no note.
  Session again(Model::parse(plain_model, "plain.ipu", config), config);
  CHECK(again.resume(path).notes.empty());
}

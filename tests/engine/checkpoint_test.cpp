// Checkpoints: a run interrupted and resumed equals the uninterrupted run byte for byte (weights
// and optimizer state), also when the resumed run uses another plan; the directory keeps the
// newest `keep` files; damaged files and checkpoints of other runs are refused with a hint.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "core/data/safetensors.hpp"
#include "iputrain/iputrain.hpp"
#include "iputrain/weight_file.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

// Dropout (keyed by step and sample) and two stages, so the cross-plan case can split them.
const std::string kModel = R"(import nn

model drop2(batch: int = 4, width: int = 24) {
  input x: f32[batch, 16]
  input label: i32[batch]

  stage s0 {
    h0 = nn.dropout(nn.dense(x, width, activation = relu), 0.25)
  }
  stage s1 {
    logits = nn.dense(nn.dense(h0, width, activation = tanh), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

// One IPU, four micro-batches per update; shuffled data, steps_per_execution 3 (so checkpoints
// at multiples of 5 cut executions).
std::string config_text(int steps, const std::string& optimizer, const std::string& extra = "") {
  return "[optimizer]\n" + optimizer +
         "[data]\ntrain = \"synthetic:samples=1024,classes=10\"\nshuffle = true\n"
         "[training]\nsteps = " + std::to_string(steps) + "\nsteps_per_execution = 3\nseed = 11\n"
         "[pipeline]\ngradient_accumulation_count = 4\nreduction_method = \"mean\"\n" + extra;
}

// The same global batch (16) as two stages on two IPUs, two replicas of two micro-batches each.
std::string two_by_two(int steps, const std::string& optimizer, const std::string& extra = "") {
  return "[optimizer]\n" + optimizer +
         "[data]\ntrain = \"synthetic:samples=1024,classes=10\"\nshuffle = true\n"
         "[training]\nsteps = " + std::to_string(steps) + "\nsteps_per_execution = 3\nseed = 11\n"
         "[ipu]\nauto_select_ipus = 4\n"
         "[pipeline]\ndevice_mapping = [0, 1]\nschedule = \"interleaved\"\ngradient_accumulation_count = 2\n"
         "reduction_method = \"mean\"\n" + extra;
}

const std::string kAdam = "type = \"adam\"\nlearning_rate = 0.01\n";
const std::string kMomentum = "type = \"momentum\"\nlearning_rate = 0.05\nmomentum = 0.9\nuse_nesterov = true\n";

struct Run {
  Config config;
  Session session;
  explicit Run(const std::string& text, const std::string& model = kModel)
      : config(config::parse(text, "checkpoint_test.toml")),
        session(Model::parse(model, "drop2.ipu", config.model), config) {}
};

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("checkpoint_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string checkpoint_dir_key(const fs::path& dir) { return "[checkpoint]\ndir = \"" + dir.string() + "\"\n"; }

// Every tensor (weights and optimizer state) of two checkpoint files, byte for byte.
void check_same_state(const std::string& a, const std::string& b) {
  const data::SafetensorsFile fa = data::read_safetensors(a);
  const data::SafetensorsFile fb = data::read_safetensors(b);
  REQUIRE(fa.tensors.size() == fb.tensors.size());
  int optimizer_tensors = 0;
  for (size_t i = 0; i < fa.tensors.size(); ++i) {
    CAPTURE(fa.tensors[i].name);
    REQUIRE(fa.tensors[i].name == fb.tensors[i].name);
    REQUIRE(fa.tensors[i].bytes.size() == fb.tensors[i].bytes.size());
    CHECK(std::memcmp(fa.tensors[i].bytes.data(), fb.tensors[i].bytes.data(), fa.tensors[i].bytes.size()) == 0);
    optimizer_tensors += fa.tensors[i].name.rfind("optimizer/", 0) == 0 ? 1 : 0;
  }
  CHECK(optimizer_tensors > 0);
  CHECK(fa.metadata.at("step") == fb.metadata.at("step"));
  CHECK(fa.metadata.at("loss_scale") == fb.metadata.at("loss_scale"));
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("an interrupted and resumed run equals the uninterrupted one, byte for byte") {
  for (const std::string& optimizer : {kAdam, kMomentum}) {
    CAPTURE(optimizer);
    const fs::path whole = fresh_dir("whole");
    const fs::path part = fresh_dir("part");
    const fs::path resumed = fresh_dir("resumed");

    Run u(config_text(12, optimizer));
    u.session.train();
    const std::string want = u.session.save_checkpoint(whole.string());

    // Interrupted after 5 updates (the run's config stops there and checkpoints at its end).
    Run a(config_text(5, optimizer, checkpoint_dir_key(part)));
    const TrainSummary first = a.session.train();
    REQUIRE(first.checkpoints.size() == 1);
    CHECK(fs::path(first.checkpoints[0]).filename() == "step-00000005.safetensors");

    Run b(config_text(12, optimizer));
    const ResumeInfo info = b.session.resume(part.string());
    CHECK(info.step == 5);
    CHECK(info.remaining == 7);
    CHECK(info.config_changed);  // training.steps differs
    const TrainSummary rest = b.session.train();
    CHECK(rest.steps == 7);
    CHECK(b.session.step() == 12);
    CHECK(testing::same_bits(b.session.weights(), u.session.weights()));
    check_same_state(b.session.save_checkpoint(resumed.string()), want);

    // The check can fail: the same weights without the optimizer state train differently.
    Run c(config_text(12, optimizer));
    const std::string weights_only = (part / "weights.safetensors").string();
    a.session.save_weights(weights_only);
    c.session.load_weights(weights_only);
    c.session.train();
    CHECK_FALSE(testing::same_bits(c.session.weights(), u.session.weights()));
  }
}

TEST_CASE("checkpoint.every cuts executions at its multiples and resumes from any of them") {
  const fs::path dir = fresh_dir("every");
  Run u(config_text(12, kAdam, checkpoint_dir_key(dir) + "every = 4\nkeep = 0\n"));
  std::vector<int64_t> ends;
  const TrainSummary s = u.session.train([&](const Progress& p) { ends.push_back(p.step); });
  // steps_per_execution 3, boundaries at 4, 8, 12.
  CHECK(ends == std::vector<int64_t>{3, 4, 7, 8, 11, 12});
  CHECK(s.checkpoints.size() == 3);
  CHECK(names_in(dir) ==
        std::vector<std::string>{"step-00000004.safetensors", "step-00000008.safetensors", "step-00000012.safetensors"});

  Run b(config_text(12, kAdam));
  CHECK(b.session.resume((dir / "step-00000008.safetensors").string()).remaining == 4);
  b.session.train();
  CHECK(testing::same_bits(b.session.weights(), u.session.weights()));

  // At the run's total already: nothing to do.
  Run done(config_text(12, kAdam));
  const ResumeInfo info = done.session.resume(dir.string());
  CHECK(info.step == 12);
  CHECK(info.remaining == 0);
  CHECK(done.session.train().steps == 0);
  CHECK(testing::same_bits(done.session.weights(), u.session.weights()));
}

TEST_CASE("a checkpoint saved under one IPU resumes under 2 stages x 2 replicas exactly") {
  const fs::path one = fresh_dir("one_ipu");
  const fs::path cross = fresh_dir("cross");
  const fs::path direct = fresh_dir("direct");

  Run a(config_text(5, kAdam, checkpoint_dir_key(one)));
  a.session.train();

  Run b(two_by_two(12, kAdam));
  REQUIRE(b.session.memory_per_ipu().size() == 4);
  const ResumeInfo info = b.session.resume(one.string());
  CHECK(info.config_changed);
  CHECK(info.remaining == 7);
  b.session.train();

  Run d(two_by_two(12, kAdam));
  d.session.train();
  CHECK(testing::same_bits(b.session.weights(), d.session.weights()));
  check_same_state(b.session.save_checkpoint(cross.string()), d.session.save_checkpoint(direct.string()));
}

TEST_CASE("checkpoint.keep deletes the oldest files after each write") {
  const fs::path dir = fresh_dir("keep");
  Run u(config_text(7, kMomentum, checkpoint_dir_key(dir) + "every = 2\nkeep = 2\n"));
  u.session.train();
  CHECK(names_in(dir) == std::vector<std::string>{"step-00000006.safetensors", "step-00000007.safetensors"});
}

TEST_CASE("a damaged newest checkpoint is named, with the previous one as the way out") {
  const fs::path dir = fresh_dir("damaged");
  Run u(config_text(4, kAdam, checkpoint_dir_key(dir) + "every = 2\n"));
  u.session.train();
  const fs::path newest = dir / "step-00000004.safetensors";
  fs::resize_file(newest, fs::file_size(newest) / 2);  // a torn write without the atomic rename

  Run b(config_text(6, kAdam));
  try {
    b.session.resume(dir.string());
    FAIL("a truncated checkpoint was accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(e.diagnostic().message.find("step-00000004.safetensors") != std::string::npos);
    CHECK(e.hint().find("step-00000002.safetensors") != std::string::npos);
  }
  CHECK(b.session.step() == 0);  // refused: the session is unchanged
  CHECK(b.session.resume((dir / "step-00000002.safetensors").string()).step == 2);

  // Not a checkpoint at all: plain weights.
  const std::string plain = (dir / "plain.safetensors").string();
  u.session.save_weights(plain);
  try {
    b.session.resume(plain);
    FAIL("plain weights were accepted as a checkpoint");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(e.diagnostic().message.find("not an iputrain checkpoint") != std::string::npos);
  }
}

TEST_CASE("checkpoints of another model, optimizer, seed or global batch are refused") {
  const fs::path dir = fresh_dir("other");
  Run a(config_text(2, kAdam, checkpoint_dir_key(dir)));
  a.session.train();
  auto refused = [&](Run& r, const std::string& needle) {
    CAPTURE(needle);
    try {
      r.session.resume(dir.string());
      FAIL("resume accepted a checkpoint of another run");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Data);
      CHECK(e.diagnostic().message.find(needle) != std::string::npos);
      CHECK_FALSE(e.hint().empty());
    }
    CHECK(r.session.step() == 0);
  };
  SUBCASE("a wider model") {
    Run wide(config_text(4, kAdam, "[model]\nwidth = 32\n"));
    refused(wide, "s0/dense/kernel");
  }
  SUBCASE("another optimizer") {
    Run sgd(config_text(4, kMomentum));
    refused(sgd, "optimizer.type");
  }
  SUBCASE("another seed") {
    std::string text = config_text(4, kAdam);
    text.replace(text.find("seed = 11"), 9, "seed = 12");
    Run seeded(text);
    refused(seeded, "training.seed");
  }
  SUBCASE("another global batch") {
    std::string text = config_text(4, kAdam);
    text.replace(text.find("gradient_accumulation_count = 4"), 31, "gradient_accumulation_count = 8");
    Run small(text);
    refused(small, "global batch");
  }
  SUBCASE("no checkpoint in the directory, or no directory") {
    const fs::path empty = fresh_dir("empty");
    Run r(config_text(4, kAdam));
    CHECK_THROWS_WITH_AS(r.session.resume(empty.string()), doctest::Contains("holds no checkpoint"), Error);
    CHECK_THROWS_WITH_AS(r.session.resume((empty / "missing").string()), doctest::Contains("does not exist"), Error);
  }
}

TEST_CASE("export writes a checkpoint's weights as a plain weight file") {
  const fs::path dir = fresh_dir("export");
  Run a(config_text(3, kAdam, checkpoint_dir_key(dir)));
  a.session.train();
  const std::string out = (dir / "exported.safetensors").string();
  const ExportInfo info = export_checkpoint_weights(Model::parse(kModel, "drop2.ipu", a.config.model), dir.string(), out);
  CHECK(info.step == 3);
  Run b(config_text(3, kAdam));
  b.session.load_weights(out);
  CHECK(testing::same_bits(b.session.weights(), a.session.weights()));
}

TEST_CASE("saved weights round-trip: load and save again gives the same bytes, and the same predictions, on any plan") {
  const fs::path dir = fresh_dir("weights_round_trip");
  // A test split of 37 samples: not a multiple of any micro-batch here.
  const auto with_test = [](std::string text) {
    const std::string key = "shuffle = true\n";
    return text.replace(text.find(key), key.size(), key + "test = \"synthetic:samples=37,classes=10\"\n");
  };
  Run a(with_test(config_text(3, kAdam)));
  a.session.train();
  const std::string first = (dir / "first.safetensors").string();
  a.session.save_weights(first);
  const std::vector<Prediction> trained = a.session.predict("test", {"logits"});
  // Loaded by a fresh session (as --init-from does), on one IPU and on 2 stages x 2 replicas.
  for (const std::string& text : {with_test(config_text(3, kAdam)), with_test(two_by_two(3, kAdam))}) {
    Run b(text);
    CHECK(b.session.load_weights(first).empty());
    const std::string second = (dir / "second.safetensors").string();
    b.session.save_weights(second);
    std::ifstream fa(first, std::ios::binary);
    std::ifstream fb(second, std::ios::binary);
    const std::string bytes_a((std::istreambuf_iterator<char>(fa)), std::istreambuf_iterator<char>());
    const std::string bytes_b((std::istreambuf_iterator<char>(fb)), std::istreambuf_iterator<char>());
    CHECK(!bytes_a.empty());
    CHECK(bytes_a == bytes_b);
    const std::vector<Prediction> loaded = b.session.predict("test", {"logits"});
    REQUIRE(loaded.size() == trained.size());
    CHECK(loaded[0].samples == 37);
    CHECK(loaded[0].values == trained[0].values);
  }
}

TEST_CASE("read_weight_file_contents: a checkpoint's weights and optimizer state, a weight file's tensors, bad paths") {
  const fs::path dir = fresh_dir("contents");
  Run a(config_text(4, kAdam, checkpoint_dir_key(dir) + "every = 2\n"));
  a.session.train();

  // A directory: its newest checkpoint, as resume() reads it, tensor for tensor as the reader sees them.
  const WeightFileContents c = read_weight_file_contents(dir.string());
  CHECK(c.path == (dir / "step-00000004.safetensors").string());
  CHECK(c.checkpoint);
  CHECK(c.file_bytes == fs::file_size(c.path));
  CHECK(c.metadata.at("step") == "4");
  CHECK(c.metadata.at("optimizer") == "adam");
  CHECK(c.metadata.at("samples") == "64");
  const data::SafetensorsFile f = data::read_safetensors(c.path);
  REQUIRE(c.tensors.size() == f.tensors.size());
  size_t state = 0;
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    CAPTURE(c.tensors[i].name);
    CHECK(c.tensors[i].name == f.tensors[i].name);
    CHECK(c.tensors[i].dtype == "F32");
    CHECK(c.tensors[i].shape == f.tensors[i].shape);
    CHECK(c.tensors[i].bytes == f.tensors[i].bytes.size());
    CHECK(c.tensors[i].optimizer_state == (f.tensors[i].name.rfind("optimizer/", 0) == 0));
    state += c.tensors[i].optimizer_state ? 1 : 0;
  }
  CHECK(state == 2 * (c.tensors.size() - state));  // adam: two arrays per weight
  CHECK(read_weight_file_contents((dir / "step-00000002.safetensors").string()).metadata.at("step") == "2");

  // A weight file: the weights alone, no state.
  const std::string plain = (dir.parent_path() / "contents.safetensors").string();
  a.session.save_weights(plain);
  const WeightFileContents w = read_weight_file_contents(plain);
  CHECK(!w.checkpoint);
  CHECK(w.metadata.at("format") == "iputrain");
  CHECK(w.tensors.size() == c.tensors.size() - state);
  CHECK(std::none_of(w.tensors.begin(), w.tensors.end(), [](const StoredTensor& t) { return t.optimizer_state; }));

  // A missing path, a directory without checkpoints, a truncated file.
  CHECK_THROWS_WITH_AS(read_weight_file_contents((dir / "nope").string()), doctest::Contains("does not exist"), Error);
  const fs::path empty = fresh_dir("contents_empty");
  CHECK_THROWS_WITH_AS(read_weight_file_contents(empty.string()), doctest::Contains("holds no checkpoint"), Error);
  fs::resize_file(plain, fs::file_size(plain) - 8);
  try {
    read_weight_file_contents(plain);
    FAIL("a truncated file was read");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(e.diagnostic().message.find(plain) != std::string::npos);
  }
}

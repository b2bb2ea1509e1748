#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::Run;

bool has(const Run& r, const std::string& text) {
  if (r.out.find(text) != std::string::npos) {
    return true;
  }
  MESSAGE("output was:\n" << r.out);
  return false;
}

std::string temp(const std::string& name) {
  const auto dir = iputrain_tests::scratch_dir("cli_test");
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace

TEST_CASE("check prints parameters and FLOPs of the seed's MNIST model") {
  const Run r = cli_test::iputrain("check ../../examples/mnist_mlp.ipu ../../configs/mnist.toml");
  CHECK(r.status == 0);
  CHECK(has(r, "features/dense/kernel"));
  CHECK(has(r, "f32[784, 128]"));
  CHECK(has(r, "classifier/dense/bias"));
  CHECK(has(r, "total parameters: 101770"));
  CHECK(has(r, "FLOPs per sample (forward):"));
}

TEST_CASE("check refuses what train refuses before its first step: a batch larger than the training data") {
  const std::string model = "../../examples/walkthrough/classifier.ipu ../../examples/walkthrough/config.toml";
  const Run ok = cli_test::iputrain("check " + model);
  CHECK(ok.status == 0);
  CHECK(has(ok, "training data: ok"));
  const Run big = cli_test::iputrain("check " + model + " --set data.batch_size=512");
  CHECK(big.status == 1);
  CHECK(has(big, "error: the dataset has 240 samples, fewer than one batch of 512"));
  const Run train = cli_test::iputrain("train " + model + " --set data.batch_size=512");
  CHECK(train.status == 1);
  CHECK(has(train, "error: the dataset has 240 samples, fewer than one batch of 512"));
}

TEST_CASE("train logs the outfeed and a summary, saves weights that eval reads back") {
  const std::string w = temp("tiny.safetensors");
  const Run t = cli_test::iputrain("train cases/tiny.ipu cases/tiny.toml --save " + w);
  CHECK(t.status == 0);
  CHECK(has(t, "step 40/40"));
  CHECK(has(t, "trained 40 steps (320 samples)"));
  CHECK(has(t, "samples/s"));
  CHECK(has(t, "test:  loss"));  // the step lines' order: the model's outputs, loss first
  const Run e = cli_test::iputrain("eval cases/tiny.ipu cases/tiny.toml --weights " + w);
  CHECK(e.status == 0);
  // eval after train and eval of the saved weights see the same numbers.
  const auto line_after = [](const std::string& out, const std::string& mark) {
    const size_t at = out.find(mark) + mark.size();
    return out.substr(at, out.find('\n', at) - at);
  };
  CHECK(line_after(t.out, "test:") == line_after(e.out, "test:"));
  // eval runs on the plan and says where.
  CHECK(has(e, "ran on 1 IPU (1 replica x 1): physical 0"));
}

TEST_CASE("eval and the test after training cover every sample, whatever the plan and the split's size") {
  // 61 test samples in batches of 8: seven whole and a last one of 5, run at its own size.
  const std::string w = temp("tail.safetensors");
  const std::string test61 = " --set data.test=synthetic:samples=61,classes=10";
  const Run t = cli_test::iputrain("train cases/tiny.ipu cases/tiny.toml -q --save " + w + test61);
  CHECK(t.status == 0);
  CHECK(has(t, "(61 samples, the last 5 as a batch of their own)\n"));
  const auto test_line = [](const Run& r) {
    const size_t at = r.out.find("test:");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  const Run one = cli_test::iputrain("eval cases/tiny.ipu cases/tiny.toml --weights " + w + test61);
  CHECK(test_line(one) == test_line(t));
  // Two stages on two IPUs, two replicas: the same figures, the last batch included.
  const Run pipelined = cli_test::iputrain("eval cases/tiny.ipu cases/tiny.toml --weights " + w + test61 +
                                           " --set ipu.auto_select_ipus=4 --set pipeline.device_mapping=[0,1]");
  CHECK(has(pipelined, "(2 replicas x 2)"));
  CHECK(test_line(pipelined) == test_line(t));
  // A test split smaller than one batch is evaluated whole, after training as by eval.
  const std::string test5 = " --set data.test=synthetic:samples=5,classes=10";
  const Run small = cli_test::iputrain("train cases/tiny.ipu cases/tiny.toml -q --no-checkpoint" + test5);
  CHECK(has(small, "(5 samples, fewer than a batch: run as one)\n"));
  const Run small_eval = cli_test::iputrain("eval cases/tiny.ipu cases/tiny.toml --weights " + w + test5);
  CHECK(has(small_eval, "(5 samples, fewer than a batch: run as one)\n"));
}

TEST_CASE("--set overrides config keys with typed values") {
  const Run r = cli_test::iputrain("train cases/tiny.ipu cases/tiny.toml -q --no-eval --set training.steps=7");
  CHECK(r.status == 0);
  CHECK(has(r, "trained 7 steps"));
  const Run bad = cli_test::iputrain("train cases/tiny.ipu cases/tiny.toml --set training.stepz=7");
  CHECK(bad.status == 2);
  CHECK(has(bad, "training.steps"));
}

TEST_CASE("a bad model is a located error with exit status 2") {
  const Run r = cli_test::iputrain("check cases/bad_shape.ipu cases/tiny.toml");
  CHECK(r.status == 2);
  CHECK(has(r, "cases/bad_shape.ipu:5:"));
  CHECK(has(r, "inner dimensions differ: f32[8, 16] @ f32[10, 10]"));
  CHECK(has(r, "^~~"));
}

TEST_CASE("an unknown model parameter in the config points at the config key") {
  const Run r = cli_test::iputrain("check cases/tiny.ipu cases/unknown_param.toml");
  CHECK(r.status == 2);
  CHECK(has(r, "cases/unknown_param.toml:5:1: error: the model has no compile-time parameter `hiden`"));
  CHECK(has(r, "did you mean `hidden`?"));
}

TEST_CASE("data.batch_size that contradicts the model batch is a located config error") {
  const Run r = cli_test::iputrain("train cases/tiny.ipu cases/bad_batch.toml");
  CHECK(r.status == 2);
  CHECK(has(r, "cases/bad_batch.toml:3:"));
  CHECK(has(r, "data.batch_size is 8 but the model's inputs have batch 4"));
}

TEST_CASE("missing data files are reported at the config key, exit status 1") {
  const Run r = cli_test::iputrain("train cases/tiny.ipu cases/missing_data.toml");
  CHECK(r.status == 1);
  CHECK(has(r, "cases/missing_data.toml:2:"));
  CHECK(has(r, "no/such/dir/train"));
}

TEST_CASE("a damaged weights file is refused with exit status 1") {
  const std::string w = temp("damaged.safetensors");
  std::ofstream(w, std::ios::binary) << "\x10\x00\x00\x00\x00\x00\x00\x00{not json}";
  const Run r = cli_test::iputrain("eval cases/tiny.ipu cases/tiny.toml --weights " + w);
  CHECK(r.status == 1);
  CHECK(has(r, "damaged.safetensors"));
}

TEST_CASE("bad command lines exit with status 2 and say why") {
  const Run none = cli_test::iputrain("");
  CHECK(none.status == 2);
  const Run unknown = cli_test::iputrain("fly cases/tiny.ipu");
  CHECK(unknown.status == 2);
  const Run missing = cli_test::iputrain("train no_such_model.ipu cases/tiny.toml");
  CHECK(missing.status == 2);
  CHECK(has(missing, "no_such_model.ipu"));
  const Run no_weights = cli_test::iputrain("eval cases/tiny.ipu cases/tiny.toml");
  CHECK(no_weights.status == 2);
  CHECK(has(no_weights, "--weights"));
}

TEST_CASE("a refused key fails check, plan and train alike, a no-effect key warns") {
  for (const char* verb : {"check", "plan", "train"}) {
    const Run r = cli_test::iputrain(std::string(verb) +
                                     " cases/tiny.ipu cases/tiny.toml --set pipeline.continuous_weight_updates=true");
    CHECK(r.status == 2);
    CHECK(has(r, "--set:1:1: error: `pipeline.continuous_weight_updates` is refused: the seeds' pipeline does not"));
    CHECK(has(r, "hint: remove the key"));
  }
  // The default, written out, is accepted.
  CHECK(cli_test::iputrain("check cases/tiny.ipu cases/tiny.toml --set pipeline.continuous_weight_updates=false")
            .status == 0);
  const Run w = cli_test::iputrain("check cases/tiny.ipu cases/tiny.toml --set transfers.use_verified_transfers=true");
  CHECK(w.status == 0);
  CHECK(has(w, "--set:1:1: warning: `transfers.use_verified_transfers` has no effect on a virtual IPU: host-to-IPU"));
}

// Every config shipped in configs/ trains a few steps of its example model, through the CLI as a
// user runs it: a shipped config that cannot train (a refused key, a broken rule) fails here.
// --no-checkpoint: a config's own checkpoint.dir lies in the source tree, and a second run would be
// refused there as another run's directory.
// Labelled `data`: the MNIST configs read Debian's Fashion-MNIST.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

#include "run_cli.hpp"

namespace fs = std::filesystem;

namespace {

// The example model of each config. The device presets carry no data of their own: they train
// the MNIST MLP on the data given with --set, as a config extending them would.
const std::map<std::string, std::string> kModels = {
    {"bow.toml", "mnist_mlp.ipu"},
    {"ipu1.toml", "mnist_mlp.ipu"},
    {"ipu2.toml", "mnist_mlp.ipu"},
    {"lenet.toml", "lenet.ipu"},
    {"mnist.toml", "mnist_mlp.ipu"},
    {"mnist_grouped.toml", "mnist_mlp.ipu"},
    {"mnist_interleaved.toml", "mnist_mlp.ipu"},
    {"mnist_pipeline.toml", "mnist_mlp.ipu"},
    {"mnist_pipelined_replicated.toml", "mnist_mlp.ipu"},
    {"mnist_sequential.toml", "mnist_mlp.ipu"},
    {"mnist_zero_bubble.toml", "mnist_mlp.ipu"},
    {"tiny_lm.toml", "tiny_lm.ipu"},
};

const char* kPresetData = " --set 'data.train=\"idx:/usr/share/datasets/fashion-mnist/train\"'";

}  // namespace

TEST_CASE("every config in configs/ trains a few steps") {
  const fs::path configs = fs::path(IPUTRAIN_SOURCE_DIR) / "configs";
  int trained = 0;
  for (const auto& entry : fs::directory_iterator(configs)) {
    if (entry.path().extension() != ".toml") {
      continue;
    }
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    const auto model = kModels.find(name);
    REQUIRE_MESSAGE(model != kModels.end(), "a new config: name its example model in kModels");
    const bool preset = name == "bow.toml" || name == "ipu1.toml" || name == "ipu2.toml";
    const std::string args = "train " + (fs::path(IPUTRAIN_SOURCE_DIR) / "examples" / model->second).string() + " " +
                             entry.path().string() + " --set training.steps=3 --no-eval --no-checkpoint" +
                             (preset ? kPresetData : "");
    const cli_test::Run r = cli_test::iputrain(args);
    CHECK_MESSAGE(r.status == 0, r.out);
    CHECK_MESSAGE(r.out.find("trained 3 steps") != std::string::npos, r.out);
    ++trained;
  }
  CHECK(trained == static_cast<int>(kModels.size()));
}

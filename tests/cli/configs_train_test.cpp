// Every config shipped in configs/ trains a few steps of its example model, through the CLI as a
// user runs it: a shipped config that cannot train (a refused key, a broken rule) fails here.
// --no-checkpoint: a config's own checkpoint.dir lies in the source tree, and a second run would be
// refused there as another run's directory.
// Labelled `data`: the MNIST configs read Debian's Fashion-MNIST.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "shipped_configs.hpp"

namespace fs = std::filesystem;

using cli_test::kModels;
using cli_test::kPresetData;

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
    const bool preset = cli_test::is_preset(name);
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

// Every config shipped in configs/ trains a few steps of its example model, through the CLI as a
// user runs it: a shipped config that cannot train (a refused key, a broken rule) fails here.
// --no-checkpoint: a config's own checkpoint.dir lies in the source tree, and a second run would be
// refused there as another run's directory.
// Labelled `data`: the MNIST configs read Debian's Fashion-MNIST.
#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// Every shipped config and its model, relative to the source tree: configs/, the zoo, the
// published configurations of examples/ipu_scale, the sharding tutorial and the walkthrough.
std::vector<std::pair<std::string, std::string>> shipped_configs() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [config, model] : kModels) {
    out.emplace_back("configs/" + config, "examples/" + model);
  }
  for (const auto& entry : fs::directory_iterator(fs::path(IPUTRAIN_SOURCE_DIR) / "examples/zoo")) {
    if (entry.path().extension() == ".toml") {
      out.emplace_back("examples/zoo/" + entry.path().filename().string(),
                       "examples/zoo/" + entry.path().stem().string() + ".ipu");
    }
  }
  for (const auto& [config, model] :
       std::vector<std::pair<std::string, std::string>>{{"bert_base_128", "bert"},
                                                        {"bert_large_128", "bert"},
                                                        {"bert_tiny", "bert"},
                                                        {"conformer", "conformer"},
                                                        {"efficientnet_b4_pod16", "efficientnet_b4"},
                                                        {"gpt2_medium", "gpt2_medium"},
                                                        {"gpt2_small", "gpt2_small"},
                                                        {"resnet50", "resnet50"},
                                                        {"resnet50_pod16", "resnet50"},
                                                        {"resnet50_pod64", "resnet50"},
                                                        {"resnet50_pod256", "resnet50"},
                                                        {"resnext101", "resnext101"},
                                                        {"vit_b16", "vit"}}) {
    out.emplace_back("examples/ipu_scale/" + config + ".toml", "examples/ipu_scale/" + model + ".ipu");
  }
  out.emplace_back("examples/sharding/sharding.toml", "examples/sharding/sharding.ipu");
  out.emplace_back("examples/walkthrough/config.toml", "examples/walkthrough/classifier.ipu");
  return out;
}

// The plan as JSON, without the passes' wall-clock times ("ms"), which differ between runs.
nlohmann::json plan_json(const std::string& model, const std::string& config, const std::string& sets) {
  const cli_test::Run r = cli_test::iputrain("plan " + model + " " + config + " --format json" + sets, "2>/dev/null");
  const std::string command = "plan " + model + " " + config + sets;
  REQUIRE_MESSAGE(r.status == 0, command);
  nlohmann::json j = nlohmann::json::parse(r.out);
  const auto strip = [](auto& self, nlohmann::json& node) -> void {
    if (node.is_object()) {
      node.erase("ms");
    }
    if (node.is_structured()) {
      for (auto& child : node) {
        self(self, child);
      }
    }
  };
  strip(strip, j);
  return j;
}

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

// A config written by `config show` plans as the config it came from (issue 44): the keys the
// original did not set stay unset (a written schedule made a one-IPU config pipelined, with 4x the
// global batch), and relative paths are rebased so the text means the same from another folder.
TEST_CASE("config show of every shipped config, read back from another folder, plans the same") {
  const fs::path dir = fs::temp_directory_path() / ("iputrain_show_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path src(IPUTRAIN_SOURCE_DIR);
  int checked = 0;
  for (const auto& [config, model] : shipped_configs()) {
    CAPTURE(config);
    const std::string name = fs::path(config).filename().string();
    const bool preset = name == "bow.toml" || name == "ipu1.toml" || name == "ipu2.toml";
    const std::string sets = preset ? kPresetData : "";
    const cli_test::Run shown = cli_test::iputrain("config show " + (src / config).string() + sets, "2>/dev/null");
    REQUIRE(shown.status == 0);
    const fs::path written = dir / fs::path(config).filename();
    std::ofstream(written) << shown.out;
    const nlohmann::json original = plan_json((src / model).string(), (src / config).string(), sets);
    const nlohmann::json again = plan_json((src / model).string(), written.string(), "");
    CHECK_MESSAGE(original == again, nlohmann::json::diff(original, again).dump(1));
    ++checked;
  }
  CHECK(checked >= 35);
  fs::remove_all(dir);
}

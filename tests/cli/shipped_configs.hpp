// The configs the project ships, each with its model, and a plan as JSON: what the round-trip
// tests (configs_train_test.cpp, round_trip_test.cpp) run over.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "run_cli.hpp"

namespace cli_test {

// The example model of each config. The device presets carry no data of their own: they train
// the MNIST MLP on the data given with --set, as a config extending them would.
inline const std::map<std::string, std::string> kModels = {
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

inline const char* const kPresetData = " --set 'data.train=\"idx:/usr/share/datasets/fashion-mnist/train\"'";

// Every shipped config and its model, relative to the source tree: configs/, the zoo, the
// published configurations of examples/ipu_scale, the sharding tutorial and the walkthrough.
inline std::vector<std::pair<std::string, std::string>> shipped_configs() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [config, model] : kModels) {
    out.emplace_back("configs/" + config, "examples/" + model);
  }
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(IPUTRAIN_SOURCE_DIR) / "examples/zoo")) {
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
inline nlohmann::json plan_json(const std::string& model, const std::string& config, const std::string& sets) {
  const Run r = iputrain("plan " + model + " " + config + " --format json" + sets, "2>/dev/null");
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

// The device presets carry no data: they are planned and trained on Fashion-MNIST given with --set.
inline bool is_preset(const std::string& config) {
  const std::string name = std::filesystem::path(config).filename().string();
  return name == "bow.toml" || name == "ipu1.toml" || name == "ipu2.toml";
}

}  // namespace cli_test

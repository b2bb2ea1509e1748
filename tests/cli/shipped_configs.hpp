// The configs the project ships, each with its model, and a plan as JSON: what the round-trip
// tests (configs_train_test.cpp, round_trip_test.cpp) run over.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
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

// A plan as `plan --format json` prints it (two-space indents, one member a line), with the
// passes' wall-clock times ("ms"), which differ between runs, set to 0. Compared as text: the
// published configurations' plans are megabytes of JSON (GPT-2 medium's 8 MB, its programs), which
// this -O0 test code took seconds a plan to parse; parsed only to show a difference.
inline std::string plan_text(const std::string& model, const std::string& config, const std::string& sets) {
  const Run r = iputrain("plan " + model + " " + config + " --format json" + sets, "2>/dev/null");
  const std::string command = "plan " + model + " " + config + sets;
  REQUIRE_MESSAGE(r.status == 0, command);
  std::string out;
  out.reserve(r.out.size());
  for (size_t at = 0; at < r.out.size();) {
    const size_t eol = std::min(r.out.find('\n', at), r.out.size());
    const std::string_view line(r.out.data() + at, eol - at);
    const size_t ms = line.find("\"ms\": ");
    const bool timed = ms != std::string_view::npos && line.find_first_not_of(' ') == ms;
    out.append(timed ? line.substr(0, ms + 6) : line);
    out.append(!timed ? "\n" : line.back() == ',' ? "0,\n" : "0\n");
    at = eol + 1;
  }
  return out;
}

// Where two plan texts differ, as a JSON patch.
inline std::string plan_difference(const std::string& a, const std::string& b) {
  return nlohmann::json::diff(nlohmann::json::parse(a), nlohmann::json::parse(b)).dump(1);
}

// A plan's summary as JSON: the text above without its programs (the bulk of a large plan's).
inline nlohmann::json plan_summary(const std::string& model, const std::string& config, const std::string& sets) {
  std::string text = plan_text(model, config, sets);
  const size_t begin = text.find("\n  \"programs\": [");
  if (begin != std::string::npos) {
    const size_t end = text.find("\n  ]", begin);
    REQUIRE(end != std::string::npos);
    text.replace(begin + 1, end + 4 - begin - 1, "  \"programs\": []");
  }
  return nlohmann::json::parse(text);
}

// The device presets carry no data: they are planned and trained on Fashion-MNIST given with --set.
inline bool is_preset(const std::string& config) {
  const std::string name = std::filesystem::path(config).filename().string();
  return name == "bow.toml" || name == "ipu1.toml" || name == "ipu2.toml";
}

}  // namespace cli_test

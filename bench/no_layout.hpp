// A published workload as someone else would write it (issue 45): the model's parameters that size
// its stages renamed (ipuN_layers -> blocks_N, layers -> depth), or its stages removed altogether
// (--no-stages), and its config without a layout:
// no stages, device mapping, micro-batch, accumulation, schedule, recomputation, memory
// proportions, offloading, sharding or stage sizes; the numerics (precision, master weights,
// optimizer, partials, the accumulators' type and order) and the IPUs as published.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace iputrain::bench {

inline std::string renamed_parameters(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\bipu(\d+)_layers\b)"), "blocks_$1");
  return std::regex_replace(text, std::regex(R"(\blayers\b)"), "depth");
}

//! `text` without its `stage NAME { ... }` blocks (their bodies kept, in order): the model as written
//! by someone who leaves the stages to the tool.
inline std::string without_stages(const std::string& text) {
  const std::regex one_line(R"((\s*)stage \w+\s*\{(.*)\}\s*(#.*)?)");
  const std::regex opener(R"((\s*)stage \w+\s*\{\s*(#.*)?)");
  std::istringstream in(text);
  std::string out;
  std::vector<std::string> closers;  // the closing line of each open stage block
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, one_line)) {
      out += m[1].str() + m[2].str() + "\n";
    } else if (std::regex_match(line, m, opener)) {
      closers.push_back(m[1].str() + "}");
    } else if (!closers.empty() && line == closers.back()) {
      closers.pop_back();
    } else {
      out += line + "\n";
    }
  }
  return out;
}

//! `toml` without its layout keys (a multi-line list value goes whole); `extends` made absolute.
inline std::string without_layout(const std::string& toml, const std::string& source_dir) {
  static const std::set<std::string> layout = {"stages",
                                               "device_mapping",
                                               "auto_stages",
                                               "schedule",
                                               "gradient_accumulation_count",
                                               "recomputation_mode",
                                               "allow_recompute",
                                               "offload_weight_update_variables",
                                               "offload_gradient_accumulation_buffers",
                                               "offload_weights",
                                               "replicated_optimizer_state_sharding",
                                               "replicated_weight_sharding",
                                               "forward_propagation_stages_poplar_options",
                                               "backward_propagation_stages_poplar_options",
                                               "batch_serialization_iterations",
                                               "batch_size"};
  const std::regex assignment(R"(\s*([A-Za-z0-9_]+)\s*=\s*(.*))");
  const std::regex sizes(R"(ipu\d+_(layers|first))");
  std::istringstream in(toml);
  std::string out;
  const auto depth = [](const std::string& text) {
    return std::count(text.begin(), text.end(), '[') - std::count(text.begin(), text.end(), ']');
  };
  int64_t open = 0;  // brackets still open in a list value being dropped
  for (std::string line; std::getline(in, line);) {
    if (open > 0) {
      open += depth(line);
      continue;
    }
    std::smatch m;
    if (line.rfind('#', 0) != 0 && std::regex_match(line, m, assignment) &&
        (layout.count(m[1].str()) > 0 || std::regex_match(m[1].str(), sizes))) {
      open = depth(m[2].str());
      continue;
    }
    line = std::regex_replace(line, std::regex(R"(availableMemoryProportion = "[0-9.]+",?\s*)"), "");
    out += line + "\n";
  }
  return std::regex_replace(out, std::regex(R"(extends = "(\.\./)+configs/)"),
                            "extends = \"" + source_dir + "/configs/");
}

//! Writes the renamed models (every one of the folder; without their stages when `no_stages`) and the config without a
//! layout of examples/ipu_scale/MODEL and CONFIG into a temporary folder; returns their paths.
inline std::pair<std::string, std::string> write_no_layout(const std::string& source_dir, const std::string& model,
                                                           const std::string& config, bool no_stages = false) {
  const auto dir = std::filesystem::temp_directory_path() / ("iputrain_no_layout." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  // The folder is the process's own: removed, with what every call wrote into it, when it exits.
  struct RemovedAtExit {
    std::filesystem::path path;
    ~RemovedAtExit() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const RemovedAtExit folder{dir};
  const auto read = [&](const std::string& name) {
    std::ifstream f(source_dir + "/examples/ipu_scale/" + name);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  // Every model of the folder, renamed: one may import another (gpt2_medium.ipu, gpt2_small.ipu).
  for (const auto& entry : std::filesystem::directory_iterator(source_dir + "/examples/ipu_scale")) {
    if (entry.path().extension() == ".ipu") {
      const std::string text = renamed_parameters(read(entry.path().filename().string()));
      std::ofstream(dir / entry.path().filename()) << (no_stages ? without_stages(text) : text);
    }
  }
  const std::string model_path = (dir / model).string();
  const std::string config_path = (dir / config).string();
  std::ofstream(config_path) << renamed_parameters(without_layout(read(config), source_dir));
  return {model_path, config_path};
}

}  // namespace iputrain::bench

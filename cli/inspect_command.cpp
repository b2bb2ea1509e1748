// `iputrain inspect FILE`: what a weight file or a checkpoint holds, before --init-from, --resume,
// eval or export read it: each tensor's name, dtype, shape, elements and bytes, and for a
// checkpoint (a step-*.safetensors file, or a checkpoint directory for its newest, as --resume
// reads it) the step and the run it records, and its optimizer state apart from the weights.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <utility>
#include <vector>

#include "cli/command.hpp"
#include "iputrain/iputrain.hpp"
#include "iputrain/weight_file.hpp"

namespace iputrain::cli {

namespace {

struct InspectArgs {
  std::string path;
  std::string format = "text";  //!< text | json
};

int64_t elements(const StoredTensor& t) {
  return std::accumulate(t.shape.begin(), t.shape.end(), int64_t{1}, std::multiplies<>());
}

// Tensors, elements and bytes of the weights (optimizer_state false) or the optimizer state.
struct Totals {
  size_t tensors = 0;
  int64_t elements = 0;
  uint64_t bytes = 0;
};

Totals totals(const WeightFileContents& c, bool optimizer_state) {
  Totals t;
  for (const StoredTensor& s : c.tensors) {
    if (s.optimizer_state == optimizer_state) {
      t.tensors += 1;
      t.elements += elements(s);
      t.bytes += s.bytes;
    }
  }
  return t;
}

std::string totals_text(const Totals& t) {
  return fmt::format("{} tensor{}, {} elements, {} bytes", t.tensors, t.tensors == 1 ? "" : "s", t.elements, t.bytes);
}

std::string meta(const WeightFileContents& c, const std::string& key) {
  const auto it = c.metadata.find(key);
  return it == c.metadata.end() ? std::string() : it->second;
}

// The headline: what the file is, whose, and how far it trained.
std::string headline(const WeightFileContents& c, const std::string& given) {
  std::string out = c.path;
  if (c.path != given) {
    out += fmt::format(" (the newest checkpoint of {})", given);
  }
  out += c.checkpoint ? ": a checkpoint" : ": a weight file";
  if (!meta(c, "model").empty()) {
    out += fmt::format(" of model `{}`", meta(c, "model"));
  }
  if (!meta(c, "step").empty()) {
    out += fmt::format(" at step {}", meta(c, "step"));
  }
  if (!meta(c, "samples").empty()) {
    out += fmt::format(" ({} samples trained, global batch {})", meta(c, "samples"), meta(c, "global_batch"));
  }
  return out + fmt::format(", {} bytes\n", c.file_bytes);
}

std::string tensor_table(const WeightFileContents& c, bool optimizer_state) {
  size_t name = 4;
  for (const StoredTensor& t : c.tensors) {
    name = t.optimizer_state == optimizer_state ? std::max(name, t.name.size()) : name;
  }
  std::string out =
      fmt::format("  {:<{}}  {:<5}  {:<16}  {:>10}  {:>12}\n", "name", name, "dtype", "shape", "elements", "bytes");
  for (const StoredTensor& t : c.tensors) {
    if (t.optimizer_state == optimizer_state) {
      out += fmt::format("  {:<{}}  {:<5}  {:<16}  {:>10}  {:>12}\n", t.name, name, t.dtype,
                         fmt::format("[{}]", fmt::join(t.shape, ", ")), elements(t), t.bytes);
    }
  }
  return out;
}

std::string text_report(const WeightFileContents& c, const std::string& given) {
  std::string out = headline(c, given);
  // The records of several `key = value` lines each are shown below the other metadata.
  const std::vector<std::pair<std::string, std::string>> sections = {
      {"run_config", "the run it continues (the keys --resume checks)"},
      {"registered_ops", "the registered ops its model calls (their registration, which a resume checks)"}};
  out += "metadata:\n";
  for (const auto& [key, value] : c.metadata) {
    if (std::none_of(sections.begin(), sections.end(), [&](const auto& s) { return s.first == key; })) {
      out += fmt::format("  {} = {}\n", key, value);
    }
  }
  for (const auto& [key, title] : sections) {
    const std::string record = meta(c, key);
    out += record.empty() ? "" : title + ":\n";
    for (size_t at = 0, end = 0; at < record.size(); at = end + 1) {
      end = std::min(record.find('\n', at), record.size());
      out += at == end ? "" : fmt::format("  {}\n", record.substr(at, end - at));
    }
  }
  const Totals weights = totals(c, false);
  out += fmt::format("weights: {}\n", totals_text(weights));
  out += tensor_table(c, false);
  const Totals state = totals(c, true);
  if (c.checkpoint || state.tensors > 0) {  // a checkpoint of sgd holds none: say so
    out += fmt::format("optimizer state ({}, {} array{} per weight): {}\n", meta(c, "optimizer"),
                       meta(c, "optimizer_state_slots"), meta(c, "optimizer_state_slots") == "1" ? "" : "s",
                       totals_text(state));
    out += state.tensors > 0 ? tensor_table(c, true) : "";
  }
  const Totals all{weights.tensors + state.tensors, weights.elements + state.elements, weights.bytes + state.bytes};
  return out + fmt::format("total: {}\n", totals_text(all));
}

nlohmann::ordered_json totals_json(const Totals& t) {
  return {{"tensors", t.tensors}, {"elements", t.elements}, {"bytes", t.bytes}};
}

std::string json_report(const WeightFileContents& c, const std::string& given) {
  nlohmann::ordered_json j;
  j["path"] = c.path;
  j["given"] = given;
  j["kind"] = c.checkpoint ? "checkpoint" : "weights";
  j["file_bytes"] = c.file_bytes;
  j["model"] = meta(c, "model").empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(meta(c, "model"));
  j["step"] = meta(c, "step").empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(std::stoll(meta(c, "step")));
  j["metadata"] = c.metadata;
  j["tensors"] = nlohmann::ordered_json::array();
  for (const StoredTensor& t : c.tensors) {
    j["tensors"].push_back({{"name", t.name},
                            {"dtype", t.dtype},
                            {"shape", t.shape},
                            {"elements", elements(t)},
                            {"bytes", t.bytes},
                            {"optimizer_state", t.optimizer_state}});
  }
  const Totals weights = totals(c, false);
  const Totals state = totals(c, true);
  j["weights"] = totals_json(weights);
  j["optimizer_state"] = totals_json(state);
  j["total"] =
      totals_json({weights.tensors + state.tensors, weights.elements + state.elements, weights.bytes + state.bytes});
  return j.dump(2) + "\n";
}

int run_inspect(const InspectArgs& args) {
  const WeightFileContents c = read_weight_file_contents(args.path);
  std::fputs((args.format == "json" ? json_report(c, args.path) : text_report(c, args.path)).c_str(), stdout);
  return 0;
}

Runner add_inspect(CLI::App& cmd) {
  auto a = std::make_shared<InspectArgs>();
  cmd.add_option("file", a->path,
                 "weight file (safetensors), checkpoint file (step-*.safetensors) or checkpoint directory (its newest)")
      ->required()
      ->check(CLI::ExistingPath)
      ->type_name("FILE|DIR");
  cmd.add_option("--format", a->format, "text (for people) or json (one object, for tools)")
      ->check(CLI::IsMember({"text", "json"}));
  return [a](const CommandLine&) { return run_inspect(*a); };
}

}  // namespace

const CommandDef kInspectCommand{
    "inspect", "what a weight file or checkpoint holds: tensors, dtypes, shapes, bytes; a checkpoint's step and run",
    add_inspect};

}  // namespace iputrain::cli

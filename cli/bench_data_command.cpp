// `iputrain bench-data MODEL CONFIG`: the host feed alone, measured per epoch (the seed's
// dataset_benchmark), beside the rate at which the plan's device would consume it.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

namespace {

struct BenchDataArgs : CommonArgs {
  int64_t epochs = 1;
  int64_t elements = 0;  //!< per epoch; 0 = the split's whole batches
  std::string split = "train";
  std::string format = "table";  //!< table | json
  bool no_memcpy = false;
};

std::string json_report(const DataBenchmark& b) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json epochs = nlohmann::ordered_json::array();
  for (const DataEpochStats& e : b.epochs) {
    epochs.push_back({{"elements_processed", e.elements_processed},
                      {"total_bytes_processed", e.total_bytes_processed},
                      {"time_elapsed", e.time_elapsed},
                      {"elements_per_second", e.elements_per_second},
                      {"bandwidth", e.bandwidth}});
  }
  j["epochs"] = epochs;
  j["split"] = b.split;
  j["element"] = {{"samples", b.element_samples}, {"bytes", b.element_bytes}, {"memcpy", b.memcpy}};
  j["device"] = {{"samples_per_second", b.device_samples_per_second},
                 {"replicas", b.replicas},
                 {"elements_per_second_per_feed", b.device_elements_per_second}};
  j["feed_bound"] = b.feed_bound;
  return j.dump(2) + "\n";
}

std::string table_report(const DataBenchmark& b) {
  std::string out = fmt::format("host feed over the {} split: elements of {} samples, {} bytes{}\n", b.split,
                                b.element_samples, b.element_bytes, b.memcpy ? ", each copied as a transfer" : "");
  out += fmt::format("{:>6}  {:>18}  {:>21}  {:>12}  {:>19}  {:>14}\n", "epoch", "elements_processed",
                     "total_bytes_processed", "time_elapsed", "elements_per_second", "bandwidth GB/s");
  for (size_t i = 0; i < b.epochs.size(); ++i) {
    const DataEpochStats& e = b.epochs[i];
    out += fmt::format("{:>6}  {:>18}  {:>21}  {:>12.4f}  {:>19.1f}  {:>14.3f}\n", i + 1, e.elements_processed,
                       e.total_bytes_processed, e.time_elapsed, e.elements_per_second, e.bandwidth);
  }
  out += fmt::format(
      "device: the plan consumes {:.0f} samples/s over {} replica{}, {:.1f} elements/s from each replica's feed: "
      "{}\n",
      b.device_samples_per_second, b.replicas, b.replicas == 1 ? "" : "s", b.device_elements_per_second,
      b.feed_bound ? "the feed is the bottleneck (slower than the device)" : "the feed keeps up");
  return out;
}

int run_bench_data(const BenchDataArgs& args) {
  auto [config, model, run] = load(args);
  Session session(model, run);
  const DataBenchmark b = session.benchmark_data(args.split, args.epochs, args.elements, !args.no_memcpy);
  std::fputs((args.format == "json" ? json_report(b) : table_report(b)).c_str(), stdout);
  return 0;
}

Runner add_bench_data(CLI::App& cmd) {
  auto a = std::make_shared<BenchDataArgs>();
  add_common(cmd, *a);
  cmd.add_option("--epochs", a->epochs, "epochs to run")->check(CLI::PositiveNumber);
  cmd.add_option("--elements", a->elements, "micro-batches per epoch (default: the split's whole batches)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--split", a->split, "train, test or validation")
      ->check(CLI::IsMember({"test", "train", "validation"}));
  cmd.add_option("--format", a->format, "table (for people) or json (the seed's fields per epoch)")
      ->check(CLI::IsMember({"table", "json"}));
  cmd.add_flag("--no-memcpy", a->no_memcpy, "do not copy each element as a host-to-device transfer");
  return [a](const CommandLine&) { return run_bench_data(*a); };
}

}  // namespace

const CommandDef kBenchDataCommand{"bench-data", "measure the host feed alone per epoch (the seed's dataset_benchmark)",
                                   add_bench_data};

}  // namespace iputrain::cli

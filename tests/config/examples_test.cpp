// The shipped configs: device presets and the example configs per schedule load, validate and fit
// the MNIST model (examples/mnist_mlp.ipu has stages `features` and `classifier`).
#include <doctest/doctest.h>

#include <string>

#include "frontend/config/rules.hpp"
#include "iputrain/config_loader.hpp"
#include "layout_check.hpp"

using iputrain::Config;
namespace config = iputrain::config;
using iputrain::config_test::check_against_model;

namespace {

Config load(const std::string& name) { return config::load(std::string(IPUTRAIN_SOURCE_DIR) + "/configs/" + name); }

const std::vector<std::string> kMnistStages = {"features", "classifier"};

// The plain keys a run under `c` uses, each settled by its line.
iputrain::PlainKeys settled(const Config& c) { return config::resolve(c).plain; }

}  // namespace

TEST_CASE("device presets carry the public figures") {
  Config one = load("ipu1.toml");
  CHECK(settled(one).device_version == iputrain::IpuVersion::Ipu1);
  CHECK(settled(one).ipu_ipu_model_version == iputrain::IpuVersion::Ipu1);
  CHECK(settled(one).device_tiles_per_ipu == 1216);
  CHECK(settled(one).device_memory_per_tile == 256 * 1024);
  CHECK(settled(one).device_clock_hz == 1.6e9);
  Config two = load("ipu2.toml");
  CHECK(settled(two).device_tiles_per_ipu == 1472);
  CHECK(settled(two).device_memory_per_tile == 624 * 1024);
  CHECK(settled(two).device_clock_hz == 1.33e9);
  CHECK(settled(two).device_flops_per_tile_per_cycle_fp16 == 128);
  // fp16 peak of a Mk2 IPU: ~250 TFLOPS.
  const double peak = settled(two).device_tiles_per_ipu * settled(two).device_clock_hz *
                      settled(two).device_flops_per_tile_per_cycle_fp16;
  CHECK(peak == doctest::Approx(250e12).epsilon(0.01));
  // Bow: the Mk2's tiles and memory at a faster clock, ~350 TFLOPS fp16.
  Config bow = load("bow.toml");
  CHECK(settled(bow).device_version == iputrain::IpuVersion::Bow);
  CHECK(settled(bow).ipu_ipu_model_version == iputrain::IpuVersion::Bow);
  CHECK(settled(bow).device_tiles_per_ipu == 1472);
  CHECK(settled(bow).device_memory_per_tile == 624 * 1024);
  CHECK(settled(bow).device_clock_hz == 1.85e9);
  CHECK(settled(bow).device_tiles_per_ipu * settled(bow).device_clock_hz *
            settled(bow).device_flops_per_tile_per_cycle_fp16 ==
        doctest::Approx(350e12).epsilon(0.01));
  // The struct defaults, the key defaults and the parsed empty config are the Mk2 figures.
  const iputrain::DeviceSection mk2 = iputrain::DeviceSection::preset("ipu2");
  for (const Config& d : {Config(), config::parse("")}) {
    CHECK(iputrain::key_spelling(settled(d).device_version) == mk2.version);
    CHECK(settled(d).device_tiles_per_ipu == mk2.tiles_per_ipu);
    CHECK(settled(d).device_memory_per_tile == mk2.memory_per_tile);
    CHECK(settled(d).device_clock_hz == mk2.clock_hz);
    CHECK(settled(d).device_flops_per_tile_per_cycle == mk2.flops_per_tile_per_cycle);
    CHECK(settled(d).device_flops_per_tile_per_cycle_fp16 == mk2.flops_per_tile_per_cycle_fp16);
    CHECK(settled(d).device_ipu_link_bandwidth == mk2.ipu_link_bandwidth);
    CHECK(settled(d).device_host_bandwidth == mk2.host_bandwidth);
  }
  CHECK(iputrain::DeviceSection::versions() == std::vector<std::string>{"ipu1", "ipu2", "bow"});
  // The keys' spellings are the presets' names (auto and custom name none).
  CHECK(iputrain::key_spellings<iputrain::IpuVersion>() == iputrain::DeviceSection::versions());
  std::vector<std::string> systems = iputrain::key_spellings<iputrain::SystemPreset>();
  CHECK(systems.front() == "auto");
  CHECK(systems.back() == "custom");
  CHECK(std::vector<std::string>(systems.begin() + 1, systems.end() - 1) == iputrain::SystemSection::presets());
}

TEST_CASE("a Config built in code settles its device and system from their presets too") {
  Config c;
  c.plain.device_version = iputrain::IpuVersion::Ipu1;
  c.plain.device_memory_per_tile = 1000;  // a figure changed in code is the user's
  c.plain.ipu_auto_select_ipus = 8;
  const iputrain::PlainKeys k = settled(c);
  CHECK(k.device_tiles_per_ipu == 1216);
  CHECK(k.device_clock_hz == 1.6e9);
  CHECK(k.device_memory_per_tile == 1000);
  CHECK(k.system_preset == iputrain::SystemPreset::Pod16);
  CHECK(k.system_machines_per_pod == 4);
  // Past the largest preset: its racks, as many as the IPUs need, and "custom" names it.
  c.plain.ipu_auto_select_ipus = 512;
  const iputrain::PlainKeys big = settled(c);
  CHECK(big.system_preset == iputrain::SystemPreset::Custom);
  CHECK(big.system_pods == 8);
  CHECK(big.system_hosts == 32);
  // "custom" written: the keys' defaults.
  c.plain.ipu_auto_select_ipus = 4;
  c.plain.system_preset = iputrain::SystemPreset::Custom;
  CHECK(settled(c).system_machines_per_pod == iputrain::SystemSection{}.machines_per_pod);
}

TEST_CASE("the design's example config loads") {
  Config c = load("mnist_pipeline.toml");
  CHECK(std::get<int64_t>(c.model.at("hidden")) == 256);
  CHECK(c.plain.ipu_auto_select_ipus == 4);
  CHECK(c.plain.ipu_selection_order == iputrain::SelectionOrder::Snake);
  CHECK(c.plain.ipu_optimizations_maximum_cross_replica_sum_buffer_size == 10000000);
  CHECK(c.plain.pipeline_schedule == "interleaved");
  CHECK(c.plain.optimizer_type == "momentum");
  CHECK(c.plain.checkpoint_dir == "runs/mnist");
  CHECK(c.plain.checkpoint_every == 500);
  CHECK(settled(c).device_tiles_per_ipu == 1472);  // from ipu2.toml
  auto shape = check_against_model(c, kMnistStages);
  CHECK(shape.replicas == 2);
  CHECK(shape.gradient_accumulation_count == 8);
}

TEST_CASE("example configs per schedule fit the MNIST model") {
  auto grouped = check_against_model(load("mnist_grouped.toml"), kMnistStages);
  CHECK(iputrain::pipeline_schedules::schedule_def(grouped.schedule).name == "grouped");
  CHECK(grouped.replicas == 1);
  auto interleaved = check_against_model(load("mnist_interleaved.toml"), kMnistStages);
  CHECK(iputrain::pipeline_schedules::schedule_def(interleaved.schedule).name == "interleaved");
  CHECK(interleaved.replicas == 2);
  auto zero_bubble = check_against_model(load("mnist_zero_bubble.toml"), kMnistStages);
  CHECK(iputrain::pipeline_schedules::schedule_def(zero_bubble.schedule).name == "zero_bubble");
  CHECK(zero_bubble.gradient_accumulation_count == 6);
  Config seq = load("mnist_sequential.toml");
  CHECK(settled(seq).device_version == iputrain::IpuVersion::Ipu1);
  auto sequential = check_against_model(seq, kMnistStages);
  CHECK(iputrain::pipeline_schedules::schedule_def(sequential.schedule).name == "sequential");
  CHECK(sequential.ipus_per_replica == 1);
  // No pipeline keys and one IPU: both stages run on it, one micro-batch per update.
  auto plain = check_against_model(load("mnist.toml"), kMnistStages);
  CHECK(plain.ipus_per_replica == 1);
  CHECK_FALSE(plain.pipelined);
  CHECK(plain.gradient_accumulation_count == 1);
  // The same model on 4 IPUs without a mapping: stage i on IPU i, 2 replicas, pipelined.
  auto wide = check_against_model(config::parse("[ipu]\nauto_select_ipus = 4\n"), kMnistStages);
  CHECK(wide.replicas == 2);
  CHECK(wide.pipelined);
  CHECK(wide.gradient_accumulation_count == 4);
}

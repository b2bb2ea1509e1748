// The device presets: the figures of each IPU version the planner can model, in one table. The
// `[device]` keys default to the preset their version names (rules.cpp resolves them after
// loading); configs/ipu1.toml, ipu2.toml and bow.toml only pick the version.
//
// Figures from Graphcore's public product briefs:
//   ipu1  Colossus Mk1 GC2: 1216 tiles x 256 KiB (304 MiB), 1.6 GHz, ~125 TFLOPS fp16, ~31 fp32
//   ipu2  Colossus Mk2 GC200: 1472 tiles x 624 KiB (897 MiB), 1.33 GHz, ~250 TFLOPS fp16, ~62.5 fp32
//   bow   the GC200 die of the Bow IPU: same tiles and memory at 1.85 GHz, ~350 TFLOPS fp16, ~87 fp32
// FLOPs per tile per cycle = peak / (tiles x clock). IPU-Links carry 320 GB/s per IPU and the host
// link (PCIe Gen4 x16) about 32 GB/s on all three.
#include <fmt/format.h>

#include "iputrain/config.hpp"

namespace iputrain {

namespace {

struct Preset {
  const char* version;
  DeviceSection figures;
};

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"ipu1", {"ipu1", 1216, 256 * 1024, 1.6e9, 16, 64, 320e9, 32e9}},
      {"ipu2", {"ipu2", 1472, 624 * 1024, 1.33e9, 32, 128, 320e9, 32e9}},
      {"bow", {"bow", 1472, 624 * 1024, 1.85e9, 32, 128, 320e9, 32e9}},
  };
  return table;
}

}  // namespace

DeviceSection DeviceSection::preset(const std::string& version) {
  for (const Preset& p : presets()) {
    if (version == p.version) {
      return p.figures;
    }
  }
  throw Error(ErrorKind::Internal, fmt::format("no device preset named \"{}\"", version));
}

const std::vector<std::string>& DeviceSection::versions() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Preset& p : presets()) {
      out.emplace_back(p.version);
    }
    return out;
  }();
  return names;
}

}  // namespace iputrain

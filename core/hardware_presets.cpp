// The hardware presets (core/public/iputrain/hardware.hpp): what the config's keys default to and what
// the planner sizes a system by, vocabulary below both.
//
// The device presets: the figures of each IPU version the planner can model, in one table. The
// `[device]` keys default to the preset their version names (their lines settle them when a
// run is resolved); configs/ipu1.toml, ipu2.toml and bow.toml only pick the version.
//
// Figures from Graphcore's public product briefs:
//   ipu1  Colossus Mk1 GC2: 1216 tiles x 256 KiB (304 MiB), 1.6 GHz, ~125 TFLOPS fp16, ~31 fp32
//   ipu2  Colossus Mk2 GC200: 1472 tiles x 624 KiB (897 MiB), 1.33 GHz, ~250 TFLOPS fp16, ~62.5 fp32
//   bow   the GC200 die of the Bow IPU: same tiles and memory at 1.85 GHz, ~350 TFLOPS fp16, ~87 fp32
// FLOPs per tile per cycle = peak / (tiles x clock). IPU-Links carry 320 GB/s per IPU and the host
// link (PCIe Gen4 x16) about 32 GB/s on all three.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "iputrain/error.hpp"
#include "iputrain/hardware.hpp"

namespace iputrain {

namespace {

struct Preset {
  const char* version;
  DeviceSection figures;
};

const std::vector<Preset>& device_presets() {
  static const std::vector<Preset> table = {
      {"ipu1", {"ipu1", 1216, 256 * 1024, 1.6e9, 16, 64, 320e9, 32e9}},
      {"ipu2", {"ipu2", 1472, 624 * 1024, 1.33e9, 32, 128, 320e9, 32e9}},
      {"bow", {"bow", 1472, 624 * 1024, 1.85e9, 32, 128, 320e9, 32e9}},
  };
  return table;
}

}  // namespace

DeviceSection DeviceSection::preset(const std::string& version) {
  for (const Preset& p : device_presets()) {
    if (version == p.version) {
      return p.figures;
    }
  }
  throw Error(ErrorKind::Internal, fmt::format("no device preset named \"{}\"", version));
}

const std::vector<std::string>& DeviceSection::versions() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Preset& p : device_presets()) {
      out.emplace_back(p.version);
    }
    return out;
  }();
  return names;
}

// The system presets: where the IPUs sit, in one table. The `[system]` keys default to the preset
// `system.preset` names ("auto": the smallest that holds the config's IPUs); configs/systems/*.toml
// pick one and restate its figures. Each figure's public source:
//
//   ipus_per_machine 4            IPU-M2000 and Bow-2000 datasheets (1U, four IPUs)
//   machines_per_pod 1/4/16       IPU-POD4 (one machine), POD16 and POD64 datasheets; POD128 and
//                                 POD256 are 2 and 4 POD64 racks (their datasheets)
//   links_in_machine 8            derived: 10 IPU-Links per GC200 (Graphcore's Colossus Mk2 brief)
//                                 less the 2 that leave the machine
//   links_between_machines 2      derived: 8 external IPU-Link ports per machine (IPU-M2000
//                                 datasheet, direct-attach build and test guide) over its 4 IPUs, one
//                                 to the machine above and one below in the ladder / torus
//   ipu_link_bandwidth 32 GB/s    derived: 320 GB/s over 10 links per Mk2 IPU; the Bow-2000
//                                 datasheet's 512 Gbps per link is 32 GB/s each way
//   gw_link_bandwidth 25 GB/s     IPU-M2000 / Bow-2000 datasheets: 2 x 100 Gbps GW-Links per machine
//                                 (used between POD64 racks: POD128 datasheet, Bow Pod256 datasheet)
//   hosts 1/1/4/8/16              Graphcore's MLPerf Training v1.1 ResNet-50 runs (poprun hosts:
//                                 POD16 1, POD64 4, POD128 8, POD256 16); datasheets allow 1-4 per POD64
//   host_link_bandwidth 25 GB/s   IPU-M2000 datasheet: one 100 GbE RoCEv2 NIC of 2 ports (12.5 GB/s
//                                 each) per machine; a host is taken to have the same
//   ipu_link_latency 4.44 us      derived: PopLibs' measured crossovers between its ring methods
//                                 (lib/popops/Collectives.cpp at 630b744177, ReplicatedCollectives.cpp
//                                 at 6e66d2b84a) at its own link figures (lib/poplibs_test/Util.cpp),
//                                 the median of four thresholds (docs/ipu_scale.md)
//   gw_link_latency 2.35 us       fitted, the one constant across racks: Graphcore's MLPerf Training
//                                 v1.1 ResNet-50 on a Mk2 POD128, 178,361 images/s (docs/ipu_scale.md)
//   host_sync_latency 15 us       not published (the Poplar and GCL guides give no sync latency):
//                                 assumed; each figure can be set.

namespace {

SystemSection pod(const char* name, int64_t machines, int64_t pods, int64_t hosts) {
  SystemSection s;
  s.preset = name;
  s.machines_per_pod = machines;
  s.pods = pods;
  s.hosts = hosts;
  return s;
}

const std::vector<SystemSection>& system_presets() {
  static const std::vector<SystemSection> all = {
      pod("pod4", 1, 1, 1),    pod("pod16", 4, 1, 1),    pod("pod64", 16, 1, 4),
      pod("pod128", 16, 2, 8), pod("pod256", 16, 4, 16),
  };
  return all;
}

}  // namespace

SystemSection SystemSection::figures(const std::string& preset) {
  for (const SystemSection& s : system_presets()) {
    if (s.preset == preset) {
      return s;
    }
  }
  throw Error(ErrorKind::Internal, fmt::format("no system preset named \"{}\"", preset));
}

const std::vector<std::string>& SystemSection::presets() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const SystemSection& s : system_presets()) {
      out.push_back(s.preset);
    }
    return out;
  }();
  return names;
}

}  // namespace iputrain

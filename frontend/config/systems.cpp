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
#include <fmt/format.h>

#include <algorithm>

#include "frontend/config/rules.hpp"
#include "iputrain/config.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain {

namespace {

SystemSection pod(const char* name, int64_t machines, int64_t pods, int64_t hosts) {
  SystemSection s;
  s.preset = name;
  s.machines_per_pod = machines;
  s.pods = pods;
  s.hosts = hosts;
  return s;
}

const std::vector<SystemSection>& table() {
  static const std::vector<SystemSection> all = {
      pod("pod4", 1, 1, 1),    pod("pod16", 4, 1, 1),    pod("pod64", 16, 1, 4),
      pod("pod128", 16, 2, 8), pod("pod256", 16, 4, 16),
  };
  return all;
}

}  // namespace

SystemSection SystemSection::figures(const std::string& preset) {
  for (const SystemSection& s : table()) {
    if (s.preset == preset) {
      return s;
    }
  }
  throw Error(ErrorKind::Internal, fmt::format("no system preset named \"{}\"", preset));
}

const std::vector<std::string>& SystemSection::presets() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const SystemSection& s : table()) {
      out.push_back(s.preset);
    }
    return out;
  }();
  return names;
}

}  // namespace iputrain

namespace iputrain::config {

void resolve_system(Config& c) {
  SystemSection& s = c.system;
  // `ipu.select_ipus` names IPUs of the emulated 16-IPU listing: the system holds the highest.
  int64_t ipus = num_ipus(c);
  for (int32_t id : selected_ipus(c.ipu.select_ipus)) {
    ipus = std::max<int64_t>(ipus, id + 1);
  }
  std::string name = s.preset;
  if (name == "auto") {
    for (const std::string& p : SystemSection::presets()) {
      if (SystemSection::figures(p).ipus() >= ipus) {
        name = p;
        break;
      }
    }
  }
  Config preset;
  if (name == "auto") {
    // Past the largest preset: as many of its POD64 racks as the IPUs need, joined by GW-Links.
    name = SystemSection::presets().back();
    preset.system = SystemSection::figures(name);
    SystemSection& big = preset.system;
    const int64_t rack = big.ipus() / big.pods;
    const int64_t hosts_per_rack = big.hosts / big.pods;
    big.pods = (ipus + rack - 1) / rack;
    big.hosts = hosts_per_rack * big.pods;
  } else {
    preset.system = SystemSection::figures(name);
  }
  for (const KeySpec& k : schema()) {
    if (k.path.starts_with("system.") && !c.is_set(k.path)) {
      k.access.set(c, k.access.get(preset));
    }
  }
  // `preset` stays as written ("auto" too), so that `config show` loads back as it was.
  if (s.ipus() < ipus) {
    const char* ipu_key = c.is_set("ipu.select_ipus") ? "ipu.select_ipus" : "ipu.auto_select_ipus";
    c.fail_at(c.is_set("system.preset") ? "system.preset" : ipu_key,
              fmt::format("the config needs {} IPUs but the system ({}: {} x {} machines of {} IPUs) has {}", ipus,
                          name, s.pods, s.machines_per_pod, s.ipus_per_machine, s.ipus()),
              "pick a larger `system.preset` (pod4, pod16, pod64, pod128, pod256) or fewer IPUs");
  }
}

}  // namespace iputrain::config

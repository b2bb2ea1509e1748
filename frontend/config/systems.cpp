// resolve_system: the `[system]` keys resolved against the presets (core/hardware_presets.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "frontend/config/rules.hpp"
#include "iputrain/config.hpp"
#include "iputrain/config_loader.hpp"

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

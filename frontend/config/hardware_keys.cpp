// The values the `[device]` and `[system]` keys settle to (iputrain/config_loader.hpp), and the
// rules between them (check_hardware, rules.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "frontend/config/rules.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain::config {

namespace {

// True when the config sets `key`, or (a Config built in code, which records no key) holds a value
// other than the key's default: either way the figure is the user's, not the preset's.
template <class T>
bool written(const Config& c, const char* key, const T& value, const T& fallback) {
  return c.is_set(key) || value != fallback;
}

// The IPUs the config uses: `ipu.select_ipus` names IPUs of the emulated 16-IPU listing, so the
// system holds the highest of them.
int64_t used_ipus(const Config& c) {
  int64_t ipus = num_ipus(c);
  for (int32_t id : selected_ipus(c.plain.ipu_select_ipus)) {
    ipus = std::max<int64_t>(ipus, id + 1);
  }
  return ipus;
}

// The figures the unset `[system]` keys take (system_figure's).
SystemSection preset_system(const Config& c) {
  const SystemPreset preset = c.plain.system_preset;
  if (preset == SystemPreset::Custom) {
    SystemSection custom;
    custom.preset = "custom";
    return custom;
  }
  if (preset != SystemPreset::Auto) {
    return SystemSection::figures(std::string(key_spelling(preset)));
  }
  const int64_t ipus = used_ipus(c);
  for (const std::string& name : SystemSection::presets()) {
    if (SystemSection::figures(name).ipus() >= ipus) {
      return SystemSection::figures(name);
    }
  }
  // Past the largest preset: as many of its POD64 racks as the IPUs need, joined by GW-Links.
  SystemSection big = SystemSection::figures(SystemSection::presets().back());
  const int64_t rack = big.ipus() / big.pods;
  const int64_t hosts_per_rack = big.hosts / big.pods;
  big.pods = (ipus + rack - 1) / rack;
  big.hosts = hosts_per_rack * big.pods;
  return big;
}

// The system's shape, each figure settled: IPUs per machine, machines per Pod, Pods.
struct Shape {
  int64_t per_machine, machines, pods;
  int64_t ipus() const { return per_machine * machines * pods; }
};
Shape system_shape(const Config& c) {
  return {
      system_figure(c, "system.ipus_per_machine", c.plain.system_ipus_per_machine, &SystemSection::ipus_per_machine),
      system_figure(c, "system.machines_per_pod", c.plain.system_machines_per_pod, &SystemSection::machines_per_pod),
      system_figure(c, "system.pods", c.plain.system_pods, &SystemSection::pods)};
}

}  // namespace

IpuVersion settled_device_version(const Config& cfg) {
  return written(cfg, "device.version", cfg.plain.device_version, IpuVersion::Ipu2) ? cfg.plain.device_version
                                                                                    : cfg.plain.ipu_ipu_model_version;
}

template <class T>
T device_figure(const Config& cfg, const char* key, T value, T DeviceSection::*figure) {
  if (written(cfg, key, value, DeviceSection{}.*figure)) {
    return value;
  }
  return DeviceSection::preset(std::string(key_spelling(settled_device_version(cfg)))).*figure;
}
template int64_t device_figure(const Config&, const char*, int64_t, int64_t DeviceSection::*);
template double device_figure(const Config&, const char*, double, double DeviceSection::*);

int64_t settled_tiles_per_ipu(const Config& cfg) {
  const int64_t model = cfg.plain.ipu_ipu_model_tiles_per_ipu;
  const int64_t value = cfg.plain.device_tiles_per_ipu;
  if (model > 0 && !written(cfg, "device.tiles_per_ipu", value, DeviceSection{}.tiles_per_ipu)) {
    return model;
  }
  return device_figure(cfg, "device.tiles_per_ipu", value, &DeviceSection::tiles_per_ipu);
}

template <class T>
T system_figure(const Config& cfg, const char* key, T value, T SystemSection::*figure) {
  if (written(cfg, key, value, SystemSection{}.*figure)) {
    return value;
  }
  return preset_system(cfg).*figure;
}
template int64_t system_figure(const Config&, const char*, int64_t, int64_t SystemSection::*);
template double system_figure(const Config&, const char*, double, double SystemSection::*);

SystemPreset settled_system_preset(const Config& cfg) {
  if (cfg.plain.system_preset != SystemPreset::Auto) {
    return cfg.plain.system_preset;
  }
  const int64_t ipus = system_shape(cfg).ipus();
  for (const std::string& name : SystemSection::presets()) {
    if (SystemSection::figures(name).ipus() >= ipus) {
      return static_cast<SystemPreset>(*spelling_index(key_spellings<SystemPreset>(), name));
    }
  }
  return SystemPreset::Custom;
}

void check_hardware(const Config& c) {
  const IpuVersion model_version = c.plain.ipu_ipu_model_version;
  if (c.is_set("ipu.ipu_model.version") && c.is_set("device.version") && model_version != c.plain.device_version) {
    c.fail_at("device.version",
              fmt::format("`device.version` = \"{}\" contradicts `ipu.ipu_model.version` = \"{}\"",
                          key_spelling(c.plain.device_version), key_spelling(model_version)),
              "both keys pick the device preset: set one of them (configs/ipu1.toml, ipu2.toml and bow.toml set "
              "`device.version`), or the same version in both");
  }
  const int64_t model_tiles = c.plain.ipu_ipu_model_tiles_per_ipu;
  if (model_tiles > 0 && c.is_set("device.tiles_per_ipu") && c.plain.device_tiles_per_ipu != model_tiles) {
    c.fail_at("ipu.ipu_model.tiles_per_ipu",
              fmt::format("`ipu.ipu_model.tiles_per_ipu` = {} contradicts `device.tiles_per_ipu` = {}", model_tiles,
                          c.plain.device_tiles_per_ipu),
              "both keys set the tiles of one IPU: set one of them");
  }
  const int64_t ipus = used_ipus(c);
  const Shape s = system_shape(c);
  if (s.ipus() < ipus) {
    const char* ipu_key = c.is_set("ipu.select_ipus") ? "ipu.select_ipus" : "ipu.auto_select_ipus";
    c.fail_at(c.is_set("system.preset") ? "system.preset" : ipu_key,
              fmt::format("the config needs {} IPUs but the system ({}: {} x {} machines of {} IPUs) has {}", ipus,
                          preset_system(c).preset, s.pods, s.machines, s.per_machine, s.ipus()),
              "pick a larger `system.preset` (pod4, pod16, pod64, pod128, pod256) or fewer IPUs");
  }
}

}  // namespace iputrain::config

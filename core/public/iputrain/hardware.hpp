// iputrain — the hardware a plan is made for: one IPU's figures (`[device]`) and the system the
// IPUs are built into (`[system]`). Plain data, read by the config (which loads and resolves
// them), the settings and the planner's cost and collective models.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iputrain {

//! Figures of one virtual IPU that the planner's cost and memory model reads (defaults: Mk2 GC200,
//! which are the `device.*` keys' defaults). A resolved run settles each key (its plain line's DERIVE,
//! frontend/config/hardware_keys.hpp): the figure written, else that of the preset of its version
//! (`device.version` or `ipu.ipu_model.version`, which must agree when both are set), the tile
//! count `ipu.ipu_model.tiles_per_ipu` when > 0. Presets: configs/ipu1.toml, ipu2.toml, bow.toml.
struct DeviceSection {
  std::string version = "ipu2";  //!< ipu1 | ipu2 | bow
  int64_t tiles_per_ipu = 1472;
  int64_t memory_per_tile = 638976;  //!< bytes (624 KiB)
  double clock_hz = 1.33e9;
  double flops_per_tile_per_cycle = 32;  //!< fp32
  double flops_per_tile_per_cycle_fp16 = 128;
  double ipu_link_bandwidth = 320e9;  //!< bytes/s, chip to chip, per IPU
  double host_bandwidth = 32e9;       //!< bytes/s, host <-> one IPU
  //! Share of the peak FLOP rate compute-bound ops reach; calibrated once (docs/ipu_scale.md).
  double compute_efficiency = 0.606;

  //! The figures of a named IPU: "ipu1" (Mk1 GC2), "ipu2" (Mk2 GC200) or "bow" (the GC200 at
  //! 1.85 GHz). Throws Error(Internal) for another name (the schema admits only these).
  static DeviceSection preset(const std::string& version);
  //! The names preset() knows, oldest first.
  static const std::vector<std::string>& versions();
};

//! The system the IPUs are built into, for the planner's collectives and host model: machines of
//! `ipus_per_machine` IPUs (IPU-M2000, Bow-2000), `machines_per_pod` machines joined by IPU-Links
//! (one IPU-Link domain: a Pod), `pods` Pods joined by GW-Links through their gateways, and
//! `hosts` host servers feeding them. Settled like `[device]`: each figure written, else that of
//! `preset` ("auto": the smallest preset holding the config's IPUs). Presets, each figure with its
//! public source: core/hardware_presets.cpp, configs/systems/*.toml. Bandwidths in bytes/s, latencies in seconds.
struct SystemSection {
  std::string preset = "auto";  //!< auto | pod4 | pod16 | pod64 | pod128 | pod256 | custom
  int64_t ipus_per_machine = 4;
  int64_t machines_per_pod = 1;        //!< machines in one IPU-Link domain
  int64_t pods = 1;                    //!< IPU-Link domains joined by GW-Links
  int64_t links_in_machine = 8;        //!< IPU-Links of one IPU to the other IPUs of its machine
  int64_t links_between_machines = 2;  //!< IPU-Links of one IPU to the machines above and below
  double ipu_link_bandwidth = 32e9;    //!< one IPU-Link, one direction
  double ipu_link_latency = 4.44e-6;   //!< one step of a ring over IPU-Links (PopLibs' crossovers)
  double gw_link_bandwidth = 25e9;     //!< GW-Links of one machine together, one direction
  double gw_link_latency = 2.35e-6;    //!< what a step across racks adds (fitted, docs/ipu_scale.md)
  int64_t hosts = 1;                   //!< host servers of the whole system
  double host_link_bandwidth = 25e9;   //!< network bandwidth of one host server to the machines
  double host_sync_latency = 15e-6;    //!< host round trip of one engine call (assumed)
  //! Samples one host server's CPUs prepare (decode, augment) per second; 0: not modelled.
  double host_samples_per_second = 0;

  //! IPUs of the whole system.
  int64_t ipus() const { return ipus_per_machine * machines_per_pod * pods; }
  //! The figures of a named preset ("pod4" .. "pod256"). Throws Error(Internal) for another name.
  static SystemSection figures(const std::string& preset);
  //! The names figures() knows, smallest first.
  static const std::vector<std::string>& presets();
};

}  // namespace iputrain

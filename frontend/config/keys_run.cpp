// The keys of the run itself: composition, model parameters, optimizer, data, loop, checkpoints,
// legacy profiling and transfer options, and the device figures the planner reads.
#include <fmt/format.h>

#include "core/optim/lr_schedule.hpp"
#include "core/optim_table.hpp"
#include "frontend/config/bind.hpp"
#include "iputrain/error.hpp"

namespace iputrain::config {

namespace {

std::vector<std::string> optimizer_names() {
  std::vector<std::string> out;
  for (const OptimizerDef* d : optimizer_table()) {
    out.emplace_back(d->name);
  }
  return out;
}

std::vector<std::string> lr_schedule_names() {
  std::vector<std::string> out;
  for (const optim::LrScheduleDef* d : optim::lr_schedule_table()) {
    out.emplace_back(d->name);
  }
  return out;
}

//! The keys of the optimizer table's hyper-parameters, in its order: kind, default, range and
//! doc (which names the optimizers that read it and their own defaults) from the declarations.
//! The value lives in OptimizerSection::hyper under the name; one never written reads as the
//! key's default.
std::vector<KeySpec> optimizer_keys() {
  std::vector<KeySpec> out;
  for (const HyperKey& k : optimizer_hyper_keys()) {
    const HyperParam& p = *k.first;
    const std::string name(k.name);
    const double fallback = p.default_value;
    const bool flag = p.flag;
    Accessor access{[name, flag](Config& c, const Value& v) {
                      c.optimizer.hyper[name] = flag ? (std::get<bool>(v) ? 1.0 : 0.0) : std::get<double>(v);
                    },
                    [name, flag, fallback](const Config& c) -> Value {
                      const auto it = c.optimizer.hyper.find(name);
                      const double v = it == c.optimizer.hyper.end() ? fallback : it->second;
                      return flag ? Value(v != 0) : Value(v);
                    }};
    const std::string path = "optimizer." + name;
    if (flag) {
      out.push_back(
          detail::key(path, std::move(access), KeyType::Bool, fallback != 0, Effect::Runs, k.doc()).defining());
    } else {
      const ParamRange& r = p.range;
      out.push_back(detail::key(path, std::move(access), KeyType::Float, fallback, Effect::Runs, k.doc(),
                                Range{r.min, r.min_open, r.max, r.max_open})
                        .defining());
    }
  }
  return out;
}

// "auto" and the presets of frontend/config/systems.cpp.
std::vector<std::string> system_presets() {
  std::vector<std::string> out = {"auto"};
  const auto& named = SystemSection::presets();
  out.insert(out.end(), named.begin(), named.end());
  return out;
}

}  // namespace

std::vector<KeySpec> run_keys() {
  using detail::key;
  using enum KeyType;
  using enum Effect;
  const Range positive = Range::at_least(0, true);

  KeySpec extends;
  extends.path = "extends";
  extends.type = String;
  extends.default_value = std::string{};
  extends.doc =
      "Base config loaded first (path relative to this file); this file's keys replace its keys one by "
      "one.";
  KeySpec model;
  model.path = "model";
  model.type = FreeTable;
  model.default_value = ValueTable{};
  model.doc = "Overrides of the model's compile-time parameters, by name (e.g. `hidden = 256`).";

  std::vector<KeySpec> out = {
      extends,
      model,

      key(IPUTRAIN_KEY(optimizer.type), Enum, "sgd", Runs, "Optimizer algorithm; update rules in docs/training.md.", {},
          optimizer_names())
          .defining(),
  };
  // The hyper-parameters, from the optimizer table (core/optim/).
  const std::vector<KeySpec> hyper = optimizer_keys();
  out.insert(out.end(), hyper.begin(), hyper.end());
  const std::vector<KeySpec> rest = {
      key(IPUTRAIN_KEY(optimizer.lr_schedule), Enum, "constant", Runs,
          "How the learning rate changes over the updates (after any warmup); formulas in "
          "docs/training.md.",
          {}, lr_schedule_names())
          .defining(),

      key(IPUTRAIN_KEY(device.version), Enum, "ipu2", Models,
          "The IPU modelled: ipu1 (Mk1: 1216 tiles x 256 KiB, 1.6 GHz), ipu2 (Mk2 GC200: 1472 tiles x "
          "624 KiB, 1.33 GHz) or bow (GC200 at 1.85 GHz); the other `device.*` keys default to its "
          "figures. Same choice as `ipu.ipu_model.version`; both set must agree.",
          {}, DeviceSection::versions()),
      key(IPUTRAIN_KEY(device.tiles_per_ipu), Int, 1472, Models,
          "Tiles of one IPU; unset = the version's count, or `ipu.ipu_model.tiles_per_ipu` when that is set.",
          Range::between(1, 1 << 20)),
      // Bounded so that tiles x bytes stays within int64 (config_values fuzz, issue 30).
      key(IPUTRAIN_KEY(device.memory_per_tile), Int, 638976, Models,
          "SRAM of one tile, in bytes; unset = the version's (capacity = tiles x this).",
          Range::between(1, double(int64_t{1} << 40))),
      key(IPUTRAIN_KEY(device.clock_hz), Float, 1.33e9, Models, "Tile clock, in Hz; unset = the version's.", positive),
      key(IPUTRAIN_KEY(device.flops_per_tile_per_cycle), Float, 32.0, Models,
          "Peak fp32 floating-point operations per tile per cycle; unset = the version's.", positive),
      key(IPUTRAIN_KEY(device.flops_per_tile_per_cycle_fp16), Float, 128.0, Models,
          "Peak fp16 floating-point operations per tile per cycle; unset = the version's.", positive),
      key(IPUTRAIN_KEY(device.ipu_link_bandwidth), Float, 320e9, Models,
          "IPU-to-IPU bandwidth of one IPU over its IPU-Links, in bytes/s; unset = the version's.", positive),
      key(IPUTRAIN_KEY(device.host_bandwidth), Float, 32e9, Models,
          "Host-to-IPU bandwidth of one IPU, in bytes/s; unset = the version's.", positive),
      key(IPUTRAIN_KEY(device.compute_efficiency), Float, 0.606, Models,
          "The one calibrated scale on top of PopLibs' vertex cycle estimates (matmuls, convolutions by "
          "vertex, elementwise ops by family, reductions): an op's kernels take the estimate divided by it. "
          "0.606 is calibrated once, on Graphcore's published BERT-Base phase 1 throughput (16,391 "
          "sequences/s on a Bow Pod16, docs/ipu_scale.md); 1 takes the estimates as they are.",
          Range{0, true, 1, false}),

      key(IPUTRAIN_KEY(system.preset), Enum, "auto", Models,
          "The system the IPUs sit in: pod4 (one IPU-M2000 / Bow-2000), pod16, pod64 (IPU-Links "
          "within a rack), pod128 or pod256 (2 or 4 POD64 racks joined by GW-Links); auto = the smallest "
          "that holds the config's IPUs. The other `system.*` keys default to its figures "
          "(configs/systems/*.toml cite their sources). Sets the levels of the cross-replica collectives "
          "and the hosts that feed the data.",
          {}, system_presets()),
      key(IPUTRAIN_KEY(system.ipus_per_machine), Int, 4, Models,
          "IPUs of one machine (IPU-M2000 / Bow-2000: 4); replicas' peers within one share its IPU-Links.",
          Range::between(1, 1 << 16)),
      key(IPUTRAIN_KEY(system.machines_per_pod), Int, 1, Models,
          "Machines joined by IPU-Links into one domain (a Pod: 1, 4 or 16).", Range::between(1, 1 << 16)),
      key(IPUTRAIN_KEY(system.pods), Int, 1, Models,
          "IPU-Link domains joined by GW-Links through their gateways (POD128: 2, POD256: 4).",
          Range::between(1, 1 << 16)),
      key(IPUTRAIN_KEY(system.links_in_machine), Int, 8, Models,
          "IPU-Links from one IPU to the other IPUs of its machine (the collective's machine level).",
          Range::between(1, 1024)),
      key(IPUTRAIN_KEY(system.links_between_machines), Int, 2, Models,
          "IPU-Links from one IPU to other machines of its Pod: the collective's IPU-Link level, and "
          "pipeline transfers between IPUs of a replica in different machines.",
          Range::between(1, 1024)),
      key(IPUTRAIN_KEY(system.ipu_link_bandwidth), Float, 32e9, Models,
          "Bandwidth of one IPU-Link in one direction, bytes/s (320 GB/s over 10 links per IPU).", positive),
      key(IPUTRAIN_KEY(system.ipu_link_latency), Float, 4.44e-6, Models,
          "Seconds per step of a ring over IPU-Links within a Pod: derived from PopLibs' measured "
          "crossovers between its ring methods (docs/ipu_scale.md).",
          Range::at_least(0)),
      key(IPUTRAIN_KEY(system.gw_link_bandwidth), Float, 25e9, Models,
          "GW-Link bandwidth of one machine in one direction, bytes/s (2 x 100 Gbps), shared by its IPUs.", positive),
      key(IPUTRAIN_KEY(system.gw_link_latency), Float, 2.35e-6, Models,
          "Seconds a synchronisation or a ring step across POD64 racks (through the gateways) adds to one "
          "within a Pod: the one constant fitted across racks, on Graphcore's MLPerf Training v1.1 ResNet-50 "
          "on a Mk2 POD128 (docs/ipu_scale.md).",
          Range::at_least(0)),
      key(IPUTRAIN_KEY(system.hosts), Int, 1, Models,
          "Host servers of the whole system; a config using part of it is fed by its share of them.",
          Range::between(1, 1 << 16)),
      key(IPUTRAIN_KEY(system.host_link_bandwidth), Float, 25e9, Models,
          "Network bandwidth of one host server to the machines, bytes/s: the infeed and outfeed of every "
          "replica it feeds share it.",
          positive),
      key(IPUTRAIN_KEY(system.host_sync_latency), Float, 15e-6, Models,
          "Seconds of the host round trip of one engine call (launch, sync, results), shared by the weight "
          "updates of the call; does not scale with the IPU clock (not published: assumed).",
          Range::at_least(0)),
      key(IPUTRAIN_KEY(system.host_samples_per_second), Float, 0.0, Models,
          "Samples one host server's CPUs prepare per second (decoding, cropping: the data's work before it "
          "is sent), declared by the user for their data and hosts; the hosts' feed takes the longer of this "
          "work and their network time. 0 (the default): the hosts' CPU work is not modelled.",
          Range::at_least(0)),
  };
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace iputrain::config

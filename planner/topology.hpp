// Where a plan's IPUs sit in the system (`[system]`: machines of four IPUs, IPU-Link domains,
// GW-Links between them, hosts), and what the cross-replica collectives cost over it.
//
// A collective among the R replicas' copies of one IPU runs as GCL runs it across POD64s, in
// phases, innermost level first: the peers within one machine, then across the machines of a Pod
// over IPU-Links, then across Pods over GW-Links. Each level sends over every link an IPU has at that
// level (bandwidth W) and pays a latency a per step. A reduce-scatter of D bytes per IPU among g
// members (D already divided by the groups below) takes the cheaper of PopLibs' two ring methods
// (lib/popops/Collectives.cpp, ReplicatedCollectives.cpp, graphcore/poplibs):
//   bidirectional pair:  (g - 1) / g x D / W + (g - 1) x a   (g - 1 steps of D / g, half each way)
//   meet in the middle:  D / W + ceil(g / 2) x a             (g / 2 steps of D / g each way)
// A quad-directional ring sends a quarter over each of four rings: over the same links it costs what
// the pair costs here. An all-gather costs the same, in the opposite order; an all-reduce is both,
// or, when that costs less over all the levels, one step per level that sends the whole tensor
// (B bytes) to every peer ((g - 1) x B / W + a; GCL broadcasts small tensors "so the network
// latency cost is paid only once"). The latency per step
// within a Pod is derived from PopLibs' measured crossovers between the methods (docs/ipu_scale.md).
// The replicas of a plan run one program: before each collective, a group's included, every IPU of
// the plan synchronises; a plan that spans several Pods does it through the gateways, at the
// GW-Link latency (`cross_rack_sync_seconds`): the one constant fitted across racks, which a ring step
// over GW-Links also pays on top of a step within a Pod.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iputrain/hardware.hpp"
#include "iputrain/plain_keys.hpp"

namespace iputrain::planner {

//! One level of the hierarchy, innermost first.
struct LinkLevel {
  std::string name;             //!< "machine", "ipu_links" or "gw_links"
  int32_t group = 1;            //!< replicas one ring of this level joins (1: the level is not used)
  double bytes_per_second = 0;  //!< what one IPU sends per second at this level
  double latency_seconds = 0;   //!< per ring step
};

//! The system of one plan, with the share of it the plan uses.
struct Topology {
  SystemSection system;  //!< the resolved figures (preset and keys)
  //! The preset named, or for "auto" the smallest preset with as many IPUs as the figures.
  std::string preset;
  int64_t ipus_used = 0;      //!< replicas x IPUs per replica
  int64_t machines_used = 0;  //!< machines holding at least one of them
  int64_t pods_used = 0;
  int64_t hosts_used = 1;         //!< the system's hosts in proportion to the IPUs used, at least one
  std::vector<LinkLevel> levels;  //!< machine, ipu_links, gw_links

  //! Seconds one host spends moving `bytes` (its share of the replicas' feeds) over its link.
  double host_seconds(double bytes) const {
    return bytes / static_cast<double>(hosts_used) / system.host_link_bandwidth;
  }
  //! Seconds the hosts' CPUs spend preparing `samples` (every replica's), 0 when not declared.
  double host_cpu_seconds(double samples) const {
    return system.host_samples_per_second > 0
               ? samples / static_cast<double>(hosts_used) / system.host_samples_per_second
               : 0.0;
  }
};

//! The system of a resolved run: its `system.*` lines, settled.
SystemSection system_of(const PlainKeys& plain);

//! The topology of replicas placed on `physical` ([replica][ipu] -> system IPU id; machine m holds
//! ids m x ipus_per_machine ..): the groups of each level are those of IPU 0's copies.
Topology make_topology(const SystemSection& system, const std::vector<std::vector<int32_t>>& physical);

enum class Collective { ReduceScatter, AllGather, AllReduce };

//! Seconds of a collective of `bytes` (the whole tensor on each IPU) per level, as the header says.
std::vector<double> collective_seconds(const Topology& t, Collective kind, double bytes);

//! The synchronisation of every IPU a plan uses before one collective, when they span several Pods
//! (`t` the plan's topology): one step at the GW-Link latency; 0 within one Pod (its hardware sync is
//! in the superstep's fixed cost).
double cross_rack_sync_seconds(const Topology& t);

//! Their sum.
double collective_total(const Topology& t, Collective kind, double bytes);

}  // namespace iputrain::planner

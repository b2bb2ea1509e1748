// Where a plan's IPUs sit in the system (`[system]`: machines of four IPUs, IPU-Link domains,
// GW-Links between them, hosts), and what the cross-replica collectives cost over it.
//
// A collective among the R replicas' copies of one IPU runs as GCL runs it across POD64s, in
// phases, innermost level first: the peers within one machine, then across the machines of a Pod
// over IPU-Links, then across Pods over GW-Links. Each level is a bidirectional ring of its
// `group` members over every link an IPU has at that level. A reduce-scatter of B bytes costs, per
// level i (g_i members, the data already divided by the groups below it, D_i = B / (g_1 ... g_i-1)):
//   (g_i - 1) / g_i x D_i / bandwidth_i  +  (g_i - 1) x latency_i
// An all-gather costs the same in the opposite order; an all-reduce is both. With one bandwidth
// at every level the bytes add up to the flat ring's (R - 1) / R x B.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iputrain/hardware.hpp"

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
};

//! The topology of replicas placed on `physical` ([replica][ipu] -> system IPU id; machine m holds
//! ids m x ipus_per_machine ..): the groups of each level are those of IPU 0's copies.
Topology make_topology(const SystemSection& system, const std::vector<std::vector<int32_t>>& physical);

enum class Collective { ReduceScatter, AllGather, AllReduce };

//! Seconds of a collective of `bytes` (the whole tensor on each IPU) per level, as the header says.
std::vector<double> collective_seconds(const Topology& t, Collective kind, double bytes);

//! Their sum.
double collective_total(const Topology& t, Collective kind, double bytes);

}  // namespace iputrain::planner

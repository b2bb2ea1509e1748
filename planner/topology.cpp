#include "planner/topology.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace iputrain::planner {

SystemSection system_of(const PlainKeys& plain) {
  SystemSection s;
  s.preset = std::string(key_spelling(plain.system_preset));
  s.ipus_per_machine = plain.system_ipus_per_machine;
  s.machines_per_pod = plain.system_machines_per_pod;
  s.pods = plain.system_pods;
  s.links_in_machine = plain.system_links_in_machine;
  s.links_between_machines = plain.system_links_between_machines;
  s.ipu_link_bandwidth = plain.system_ipu_link_bandwidth;
  s.ipu_link_latency = plain.system_ipu_link_latency;
  s.gw_link_bandwidth = plain.system_gw_link_bandwidth;
  s.gw_link_latency = plain.system_gw_link_latency;
  s.hosts = plain.system_hosts;
  s.host_link_bandwidth = plain.system_host_link_bandwidth;
  s.host_sync_latency = plain.system_host_sync_latency;
  s.host_samples_per_second = plain.system_host_samples_per_second;
  return s;
}

Topology make_topology(const SystemSection& system, const std::vector<std::vector<int32_t>>& physical) {
  Topology t;
  t.system = system;
  t.preset = system.preset;  // settled by its line (config::system_preset): never "auto" here
  const int64_t per_machine = std::max<int64_t>(1, system.ipus_per_machine);
  const int64_t per_pod = per_machine * std::max<int64_t>(1, system.machines_per_pod);
  std::set<int64_t> machines, pods;
  for (const auto& replica : physical) {
    for (int32_t id : replica) {
      ++t.ipus_used;
      machines.insert(id / per_machine);
      pods.insert(id / per_pod);
    }
  }
  t.machines_used = static_cast<int64_t>(machines.size());
  t.pods_used = static_cast<int64_t>(pods.size());
  const int64_t total = std::max<int64_t>(1, system.ipus());
  t.hosts_used = std::max<int64_t>(1, system.hosts * t.ipus_used / total);

  // IPU 0's copies, one per replica: how many share a machine, how many machines a Pod, how many Pods.
  std::set<int64_t> peer_machines, peer_pods;
  for (const auto& replica : physical) {
    if (!replica.empty()) {
      peer_machines.insert(replica[0] / per_machine);
      peer_pods.insert(replica[0] / per_pod);
    }
  }
  const auto replicas = static_cast<int64_t>(physical.size());
  const auto n_machines = std::max<int64_t>(1, static_cast<int64_t>(peer_machines.size()));
  const auto n_pods = std::max<int64_t>(1, static_cast<int64_t>(peer_pods.size()));
  const auto in_machine = static_cast<int32_t>(std::max<int64_t>(1, replicas / n_machines));
  const auto across_machines = static_cast<int32_t>(std::max<int64_t>(1, n_machines / n_pods));
  const double link = system.ipu_link_bandwidth;
  t.levels = {
      {"machine", in_machine, static_cast<double>(system.links_in_machine) * link, system.ipu_link_latency},
      {"ipu_links", across_machines, static_cast<double>(system.links_between_machines) * link,
       system.ipu_link_latency},
      // Every IPU of a machine reduces its own share at once, through the machine's gateway.
      // A step across racks is one within a Pod plus the crossing of the gateways.
      {"gw_links", static_cast<int32_t>(n_pods), system.gw_link_bandwidth / static_cast<double>(per_machine),
       system.ipu_link_latency + system.gw_link_latency},
  };
  return t;
}

namespace {

// One reduce-scatter (or all-gather) among `g` IPUs of one level, of `data` bytes per IPU, by the
// method that costs least (PopLibs' thresholds choose between the same two; see topology.hpp).
double phase_seconds(double g, double data, double bandwidth, double latency) {
  const double ring = (g - 1) / g * data / bandwidth + (g - 1) * latency;  // bidirectional
  const double middle = data / bandwidth + std::ceil(g / 2) * latency;     // meet in the middle
  return std::min(ring, middle);
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

}  // namespace

std::vector<double> collective_seconds(const Topology& t, Collective kind, double bytes) {
  std::vector<double> ring(t.levels.size(), 0.0);
  std::vector<double> broadcast(t.levels.size(), 0.0);
  double data = bytes;
  for (size_t i = 0; i < t.levels.size(); ++i) {
    const LinkLevel& l = t.levels[i];
    if (l.group <= 1) {
      continue;
    }
    const double g = l.group;
    const double phase = phase_seconds(g, data, l.bytes_per_second, l.latency_seconds);
    ring[i] = kind == Collective::AllReduce ? 2 * phase : phase;
    // A small tensor goes whole to every peer at once and each sums its copies: one step per level.
    broadcast[i] = (g - 1) * bytes / l.bytes_per_second + l.latency_seconds;
    data /= g;
  }
  return kind == Collective::AllReduce && sum(broadcast) < sum(ring) ? broadcast : ring;
}

double cross_rack_sync_seconds(const Topology& t) { return t.pods_used > 1 ? t.system.gw_link_latency : 0.0; }

double collective_total(const Topology& t, Collective kind, double bytes) {
  return sum(collective_seconds(t, kind, bytes));
}

}  // namespace iputrain::planner

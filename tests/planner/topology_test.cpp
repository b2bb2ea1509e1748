// The system around the IPUs: the groups of each level of the hierarchy for a placement, and the
// cost of every collective at every level against figures computed by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "iputrain/config.hpp"
#include "iputrain/config_loader.hpp"
#include "planner/topology.hpp"

using namespace iputrain;
using namespace iputrain::planner;

namespace {

// `replicas` replicas of `per_replica` IPUs, placed one after another (replica r on IPUs
// r x per_replica ..), as the planner places them without `ipu.select_ipus`.
// A preset's figures with the latencies of the hand-computed cases below: 1 us per step over
// IPU-Links, 10 us more to cross the racks (11 us a step over GW-Links).
SystemSection figures(const char* preset) {
  SystemSection s = SystemSection::figures(preset);
  s.ipu_link_latency = 1e-6;
  s.gw_link_latency = 10e-6;
  return s;
}

std::vector<std::vector<int32_t>> consecutive(int32_t replicas, int32_t per_replica) {
  std::vector<std::vector<int32_t>> out(static_cast<size_t>(replicas));
  for (int32_t r = 0; r < replicas; ++r) {
    for (int32_t i = 0; i < per_replica; ++i) {
      out[static_cast<size_t>(r)].push_back(r * per_replica + i);
    }
  }
  return out;
}

void check_groups(const Topology& t, int32_t machine, int32_t ipu_links, int32_t gw_links) {
  REQUIRE(t.levels.size() == 3);
  CHECK(t.levels[0].name == "machine");
  CHECK(t.levels[1].name == "ipu_links");
  CHECK(t.levels[2].name == "gw_links");
  CHECK(t.levels[0].group == machine);
  CHECK(t.levels[1].group == ipu_links);
  CHECK(t.levels[2].group == gw_links);
}

}  // namespace

TEST_CASE("the presets are the systems as built: 4-IPU machines, Pods of 1, 4 or 16, racks joined by GW-Links") {
  const std::vector<std::vector<int64_t>> expected = {// machines per Pod, Pods, hosts, IPUs
                                                      {1, 1, 1, 4},
                                                      {4, 1, 1, 16},
                                                      {16, 1, 4, 64},
                                                      {16, 2, 8, 128},
                                                      {16, 4, 16, 256}};
  REQUIRE(SystemSection::presets() == std::vector<std::string>{"pod4", "pod16", "pod64", "pod128", "pod256"});
  for (size_t i = 0; i < expected.size(); ++i) {
    const SystemSection s = SystemSection::figures(SystemSection::presets()[i]);
    CAPTURE(s.preset);
    CHECK(s.ipus_per_machine == 4);
    CHECK(s.machines_per_pod == expected[i][0]);
    CHECK(s.pods == expected[i][1]);
    CHECK(s.hosts == expected[i][2]);
    CHECK(s.ipus() == expected[i][3]);
    // Datasheet figures, the same in every preset: 32 GB/s per IPU-Link (320 GB/s over 10), 8 of
    // them within a machine and 2 to other machines; 2 x 100 Gbps GW-Links per machine; one
    // 100 GbE NIC of 2 ports per host.
    CHECK(s.ipu_link_bandwidth == 32e9);
    CHECK(s.links_in_machine + s.links_between_machines == 10);
    CHECK(s.gw_link_bandwidth == 2 * 100e9 / 8);
    CHECK(s.host_link_bandwidth == 2 * 100e9 / 8);
  }
}

TEST_CASE("each level's group follows the placement of the replicas") {
  // One IPU per replica: 4 share a machine, the machines of a Pod share IPU-Links, racks GW-Links.
  check_groups(make_topology(SystemSection::figures("pod16"), consecutive(16, 1)), 4, 4, 1);
  check_groups(make_topology(SystemSection::figures("pod64"), consecutive(64, 1)), 4, 16, 1);
  check_groups(make_topology(SystemSection::figures("pod128"), consecutive(128, 1)), 4, 16, 2);
  check_groups(make_topology(SystemSection::figures("pod256"), consecutive(256, 1)), 4, 16, 4);
  // Four IPUs per replica (BERT on a Pod16): each IPU's copies sit in four machines.
  check_groups(make_topology(SystemSection::figures("pod16"), consecutive(4, 4)), 1, 4, 1);
  // Eight per replica (GPT-2 medium on a Pod64): one copy every other machine.
  check_groups(make_topology(SystemSection::figures("pod64"), consecutive(8, 8)), 1, 8, 1);
  // Two per replica in a pod4: two copies in the one machine.
  check_groups(make_topology(SystemSection::figures("pod4"), consecutive(2, 2)), 2, 1, 1);
  // 16 IPUs of a Pod64: 4 machines of 16, one host of its 4.
  const Topology part = make_topology(SystemSection::figures("pod64"), consecutive(16, 1));
  check_groups(part, 4, 4, 1);
  CHECK(part.machines_used == 4);
  CHECK(part.hosts_used == 1);
  const Topology whole = make_topology(SystemSection::figures("pod256"), consecutive(256, 1));
  CHECK(whole.machines_used == 64);
  CHECK(whole.pods_used == 4);
  CHECK(whole.hosts_used == 16);
  // Per IPU: 8 links x 32 GB/s in a machine, 2 x 32 GB/s to other machines, a quarter of the
  // machine's 25 GB/s of GW-Links (its four IPUs reduce at once).
  CHECK(whole.levels[0].bytes_per_second == 256e9);
  CHECK(whole.levels[1].bytes_per_second == 64e9);
  CHECK(whole.levels[2].bytes_per_second == 6.25e9);
  CHECK(whole.levels[0].latency_seconds == 4.44e-6);
  CHECK(whole.levels[1].latency_seconds == 4.44e-6);
  CHECK(whole.levels[2].latency_seconds == 4.44e-6 + SystemSection{}.gw_link_latency);
}

TEST_CASE("collective costs at every level against hand-computed figures") {
  const Topology t = make_topology(figures("pod256"), consecutive(256, 1));
  const double bytes = 64e6;
  // Reduce-scatter, innermost level first, each level on what the one below left:
  //   machine:   3/4 x 64 MB / 256 GB/s + 3 x 1 us    = 187.5 us + 3 us
  //   IPU-Links: 15/16 x 16 MB / 64 GB/s + 15 x 1 us  = 234.375 us + 15 us
  //   GW-Links:  3/4 x 1 MB / 6.25 GB/s + 3 x 11 us   = 120 us + 33 us
  // (each the bidirectional pair: meeting in the middle would take 252, 258 and 182 us)
  const std::vector<double> rs = collective_seconds(t, Collective::ReduceScatter, bytes);
  REQUIRE(rs.size() == 3);
  CHECK(rs[0] == doctest::Approx(190.5e-6));
  CHECK(rs[1] == doctest::Approx(249.375e-6));
  CHECK(rs[2] == doctest::Approx(153e-6));
  // The all-gather retraces the same steps; the all-reduce is both.
  const std::vector<double> ag = collective_seconds(t, Collective::AllGather, bytes);
  const std::vector<double> ar = collective_seconds(t, Collective::AllReduce, bytes);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(ag[i] == doctest::Approx(rs[i]));
    CHECK(ar[i] == doctest::Approx(2 * rs[i]));
  }
  CHECK(collective_total(t, Collective::AllReduce, bytes) == doctest::Approx(2 * (190.5 + 249.375 + 153) * 1e-6));

  // A Pod16 of 4-IPU replicas: the IPU-Link level alone, 3/4 x B at 64 GB/s and 3 steps.
  const Topology bert = make_topology(figures("pod16"), consecutive(4, 4));
  const std::vector<double> b = collective_seconds(bert, Collective::ReduceScatter, bytes);
  CHECK(b[0] == 0);
  CHECK(b[1] == doctest::Approx(0.75 * 64e6 / 64e9 + 3e-6));
  CHECK(b[2] == 0);
  // One replica: nothing to reduce.
  CHECK(collective_total(make_topology(figures("pod4"), consecutive(1, 4)), Collective::AllReduce, bytes) == 0);
}

TEST_CASE("every preset's collectives, level by level, against hand-computed figures") {
  // One-IPU replicas filling each preset; 8 MB per IPU. Per level (group g, bytes D left by the
  // levels below, bandwidth per IPU, latency per ring step), a reduce-scatter or an all-gather is
  // the cheaper of the bidirectional pair, (g - 1) / g x D / bandwidth + (g - 1) x latency, and
  // meeting in the middle, D / bandwidth + ceil(g / 2) x latency; an all-reduce twice that:
  //   machine   g = 4,  D = 8 MB,    256 GB/s, 1 us:  23.4375 us + 3 us  = 26.4375 us
  //   IPU-Links g = 4,  D = 2 MB,    64 GB/s,  1 us:  23.4375 us + 3 us  = 26.4375 us   (pod16)
  //             g = 16, D = 2 MB,    64 GB/s,  1 us:  in the middle 31.25 us + 8 us = 39.25 us (the pair:
  //                                                   29.296875 us + 15 us = 44.296875 us) (pod64 and up)
  //   GW-Links  g = 2,  D = 125 kB,  6.25 GB/s, 11 us: 10 us + 11 us = 21 us  (pod128)
  //             g = 4,  D = 125 kB,  6.25 GB/s, 11 us: in the middle 20 us + 22 us = 42 us (the pair:
  //                                                   15 us + 33 us = 48 us) (pod256)
  struct Case {
    const char* preset;
    int32_t replicas;
    std::vector<double> one_way;  // microseconds per level
  };
  const std::vector<Case> cases = {{"pod4", 4, {26.4375, 0, 0}},
                                   {"pod16", 16, {26.4375, 26.4375, 0}},
                                   {"pod64", 64, {26.4375, 39.25, 0}},
                                   {"pod128", 128, {26.4375, 39.25, 21}},
                                   {"pod256", 256, {26.4375, 39.25, 42}}};
  for (const Case& c : cases) {
    CAPTURE(c.preset);
    const Topology t = make_topology(figures(c.preset), consecutive(c.replicas, 1));
    const std::vector<double> rs = collective_seconds(t, Collective::ReduceScatter, 8e6);
    const std::vector<double> ag = collective_seconds(t, Collective::AllGather, 8e6);
    const std::vector<double> ar = collective_seconds(t, Collective::AllReduce, 8e6);
    REQUIRE(rs.size() == 3);
    double total = 0;
    for (size_t level = 0; level < 3; ++level) {
      CAPTURE(level);
      CHECK(rs[level] == doctest::Approx(c.one_way[level] * 1e-6));
      CHECK(ag[level] == doctest::Approx(c.one_way[level] * 1e-6));
      CHECK(ar[level] == doctest::Approx(2 * c.one_way[level] * 1e-6));
      total += 2 * c.one_way[level] * 1e-6;
    }
    CHECK(collective_total(t, Collective::AllReduce, 8e6) == doctest::Approx(total));
  }
}

TEST_CASE("with one bandwidth at every level and no latency the hierarchy moves the flat ring's bytes") {
  SystemSection s = SystemSection::figures("pod256");
  s.links_in_machine = 1;
  s.links_between_machines = 1;
  s.gw_link_bandwidth = 4 * s.ipu_link_bandwidth;  // a quarter per IPU: one link's worth
  s.ipu_link_latency = 0;
  s.gw_link_latency = 0;
  for (int32_t replicas : {2, 4, 16, 64, 128, 256}) {
    CAPTURE(replicas);
    const Topology t = make_topology(s, consecutive(replicas, 1));
    const double r = replicas;
    CHECK(collective_total(t, Collective::AllReduce, 1e6) == doctest::Approx(2 * (r - 1) / r * 1e6 / 32e9));
  }
}

TEST_CASE("system.preset auto picks the smallest system that holds the IPUs, and every figure can be set") {
  CHECK(config::resolve(config::parse("[ipu]\nauto_select_ipus = 16\n")).plain.system_machines_per_pod == 4);
  CHECK(config::resolve(config::parse("[ipu]\nauto_select_ipus = 32\n")).plain.system_machines_per_pod == 16);
  const Config big = config::parse("[ipu]\nauto_select_ipus = 256\n");
  CHECK(config::resolve(big).plain.system_pods == 4);
  CHECK(config::resolve(big).plain.system_hosts == 16);
  // Past the largest preset: more of its racks.
  const Config huge = config::parse("[ipu]\nauto_select_ipus = 1024\n");
  CHECK(config::resolve(huge).plain.system_pods == 16);
  CHECK(config::resolve(huge).plain.system_hosts == 64);
  // A preset named keeps its figures but the ones set.
  const Config c = config::parse("[ipu]\nauto_select_ipus = 16\n[system]\npreset = \"pod64\"\nhosts = 2\n");
  CHECK(config::resolve(c).plain.system_machines_per_pod == 16);
  CHECK(config::resolve(c).plain.system_hosts == 2);
  // Too small for the IPUs: refused at the preset.
  try {
    (void)config::parse("[ipu]\nauto_select_ipus = 32\n[system]\npreset = \"pod16\"\n");
    FAIL("a Pod16 holds 32 IPUs");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("the config needs 32 IPUs but the system (pod16") != std::string::npos);
    CHECK(e.hint().find("larger `system.preset`") != std::string::npos);
  }
}

// PopLibs chose between its ring methods by size, at thresholds "determined experimentally by running
// the collectives tool" (graphcore/poplibs): a bidirectional ring pair beats meeting in the middle for
// a reduce-scatter of at least 1,245,184 / 4,980,736 / 39,845,888 bytes per IPU among 4 / 8 / 16 IPUs
// (lib/popops/Collectives.cpp at 630b744177, lines 416-418), and on a POD64 the quad-directional
// ring beats meeting in the middle from fragments of 196,608 bytes (ReplicatedCollectives.cpp at
// 6e66d2b84a, lines 399-411). At a crossover both take the same time. With its own link figures
// (lib/poplibs_test/Util.cpp: 128 Gibit/s per link at 85 %, two links per ring hop, beta = 29.21 GB/s
// per direction) the alpha-beta model of the methods' steps gives the latency of one ring step:
//   pair against middle, N IPUs:   alpha = B* / (N (N - 2) beta)
//   quad against middle, N = 64:   alpha = F* (N + 1) / (2 (N - 2) beta)
TEST_CASE("the latency per ring step within a Pod is derived from PopLibs' measured crossovers") {
  const double beta = 2 * 128.0 * 1024 * 1024 * 1024 / 8 * 0.85;
  CHECK(beta == doctest::Approx(29.21e9).epsilon(0.001));
  std::vector<double> alpha = {1245184 / (4.0 * 2 * beta), 4980736 / (8.0 * 6 * beta), 39845888 / (16.0 * 14 * beta),
                               196608.0 * 65 / (2 * 62 * beta)};
  CHECK(alpha[0] == doctest::Approx(5.33e-6).epsilon(0.01));
  CHECK(alpha[1] == doctest::Approx(3.55e-6).epsilon(0.01));
  CHECK(alpha[2] == doctest::Approx(6.09e-6).epsilon(0.01));
  CHECK(alpha[3] == doctest::Approx(3.53e-6).epsilon(0.01));
  std::sort(alpha.begin(), alpha.end());
  const double median = (alpha[1] + alpha[2]) / 2;
  CHECK(SystemSection{}.ipu_link_latency == doctest::Approx(median).epsilon(0.005));
  for (const std::string& preset : SystemSection::presets()) {
    CHECK(SystemSection::figures(preset).ipu_link_latency == SystemSection{}.ipu_link_latency);
  }

  // With that latency and PopLibs' links (a pair sends over both directions: 2 beta), the model picks
  // the methods PopLibs picked: among 8 IPUs, meeting in the middle below the crossover, the pair above.
  SystemSection s = SystemSection::figures("pod64");
  s.links_between_machines = 1;
  s.ipu_link_bandwidth = 2 * beta;
  const Topology t = make_topology(s, consecutive(8, 4));  // one copy in each of 8 machines
  REQUIRE(t.levels[1].group == 8);
  const double crossover = 8 * 6 * s.ipu_link_latency * beta;
  for (double bytes : {crossover / 2, crossover * 2}) {
    const double pair = 7.0 / 8 * bytes / (2 * beta) + 7 * s.ipu_link_latency;
    const double middle = bytes / (2 * beta) + 4 * s.ipu_link_latency;
    const double got = collective_seconds(t, Collective::ReduceScatter, bytes)[1];
    CHECK(got == doctest::Approx(bytes < crossover ? middle : pair));
    CHECK(got == doctest::Approx(std::min(pair, middle)));
  }
}

TEST_CASE("a small all-reduce goes whole to every peer in one step, and a plan across racks syncs them first") {
  const Topology pairs = make_topology(figures("pod4"), consecutive(2, 1));
  // 2 KB between two IPUs of a machine: one step at 1 us, instead of a reduce-scatter and an
  // all-gather of one step each.
  CHECK(collective_seconds(pairs, Collective::AllReduce, 2e3)[0] == doctest::Approx(1e-6 + 2e3 / 256e9));
  CHECK(collective_seconds(pairs, Collective::ReduceScatter, 2e3)[0] == doctest::Approx(1e-6 + 1e3 / 256e9));
  CHECK(cross_rack_sync_seconds(pairs) == 0);
  CHECK(cross_rack_sync_seconds(make_topology(figures("pod256"), consecutive(64, 1))) == 0);
  CHECK(cross_rack_sync_seconds(make_topology(figures("pod256"), consecutive(128, 1))) == 10e-6);
}

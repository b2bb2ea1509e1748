#include "planner/turn_tokens.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace iputrain::planner {

namespace {
namespace impl_turn_tokens {

// Per IPU: the micro-batch of its task at each timestep it runs one.
using Turns = std::vector<std::map<int32_t, int64_t>>;

Turns turns_of(const DevicePrograms& programs) {
  Turns turns(programs.ipus.size());
  for (size_t i = 0; i < programs.ipus.size(); ++i) {
    for (const Instr& in : programs.ipus[i]) {
      if (is_task(in.kind)) {
        turns[i].emplace(in.timestep, in.micro_batch);
      }
    }
  }
  return turns;
}

// (from, to, sent at, received at) of every message the programs already exchange.
std::set<std::tuple<int32_t, int32_t, int32_t, int32_t>> exchanges_of(const DevicePrograms& programs) {
  std::vector<int32_t> sent(programs.messages.size(), -1);
  std::vector<int32_t> received(programs.messages.size(), -1);
  for (const auto& program : programs.ipus) {
    for (const Instr& in : program) {
      if (in.kind == InstrKind::Send) {
        sent[static_cast<size_t>(in.message)] = in.timestep;
      } else if (in.kind == InstrKind::Recv) {
        received[static_cast<size_t>(in.message)] = in.timestep;
      }
    }
  }
  std::set<std::tuple<int32_t, int32_t, int32_t, int32_t>> out;
  for (size_t k = 0; k < programs.messages.size(); ++k) {
    const Message& m = programs.messages[k];
    out.emplace(m.from, m.to, sent[k], received[k]);
  }
  return out;
}

// Where an instruction of `timestep` goes in `program`: after its work of earlier timesteps (and,
// `after_own`, of this one too).
size_t position_of(const std::vector<Instr>& program, int32_t timestep, bool after_own) {
  const auto it = std::find_if(program.begin(), program.end(), [&](const Instr& in) {
    return after_own ? in.timestep > timestep : in.timestep >= timestep;
  });
  return static_cast<size_t>(it - program.begin());
}

}  // namespace impl_turn_tokens
}  // namespace

void add_turn_tokens(DevicePrograms& programs) {
  using namespace impl_turn_tokens;  // NOLINT(google-build-using-namespace)
  const Turns turns = turns_of(programs);
  std::set<int32_t> timesteps;
  for (const auto& ipu : turns) {
    for (const auto& [t, m] : ipu) {
      timesteps.insert(t);
    }
  }
  const auto exchanged = exchanges_of(programs);
  // Per IPU: (position, instruction) to insert, positions in the program as it was.
  std::vector<std::vector<std::pair<size_t, Instr>>> inserts(programs.ipus.size());
  for (auto it = timesteps.begin(); it != timesteps.end() && std::next(it) != timesteps.end(); ++it) {
    const int32_t earlier = *it;
    const int32_t later = *std::next(it);
    for (size_t a = 0; a < turns.size(); ++a) {
      for (size_t b = 0; b < turns.size(); ++b) {
        const auto next = turns[b].find(later);
        if (a == b || turns[a].count(earlier) == 0 || next == turns[b].end() ||
            exchanged.count({static_cast<int32_t>(a), static_cast<int32_t>(b), earlier, later}) != 0) {
          continue;
        }
        Message token;
        token.from = static_cast<int32_t>(a);
        token.to = static_cast<int32_t>(b);
        token.micro_batch = next->second;
        programs.messages.push_back(token);
        Instr send;
        send.kind = InstrKind::Send;
        send.micro_batch = next->second;
        send.timestep = earlier;
        send.message = static_cast<int32_t>(programs.messages.size() - 1);
        Instr recv = send;
        recv.kind = InstrKind::Recv;
        recv.timestep = later;
        inserts[a].emplace_back(position_of(programs.ipus[a], earlier, true), send);
        inserts[b].emplace_back(position_of(programs.ipus[b], later, false), recv);
      }
    }
  }
  for (size_t i = 0; i < inserts.size(); ++i) {
    // From the back, so that the positions found above still hold; at one position, the last found
    // first, so that they end up in the order found.
    std::vector<std::pair<size_t, Instr>>& list = inserts[i];
    std::vector<size_t> order(list.size());
    for (size_t k = 0; k < order.size(); ++k) {
      order[k] = k;
    }
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return list[x].first != list[y].first ? list[x].first > list[y].first : x > y;
    });
    std::vector<Instr>& program = programs.ipus[i];
    for (size_t k : order) {
      program.insert(program.begin() + static_cast<std::ptrdiff_t>(list[k].first), list[k].second);
    }
  }
}

}  // namespace iputrain::planner

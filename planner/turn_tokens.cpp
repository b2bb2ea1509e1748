#include "planner/turn_tokens.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace iputrain::planner {

namespace {
namespace impl_turn_tokens {

// Per timestep (index): the IPUs that run a task then, each with its task's micro-batch.
using Turns = std::vector<std::vector<std::pair<int32_t, int64_t>>>;

Turns turns_of(const DevicePrograms& programs) {
  Turns turns;
  for (size_t i = 0; i < programs.ipus.size(); ++i) {
    for (const Instr& in : programs.ipus[i]) {
      if (is_task(in.kind) && in.timestep >= 0) {
        const auto t = static_cast<size_t>(in.timestep);
        turns.resize(std::max(turns.size(), t + 1));
        if (turns[t].empty() || turns[t].back().first != static_cast<int32_t>(i)) {
          turns[t].emplace_back(static_cast<int32_t>(i), in.micro_batch);
        }
      }
    }
  }
  return turns;
}

// Per timestep (index): (to, received at) of each message an IPU sends then, by sending IPU.
using Exchanges = std::vector<std::vector<std::tuple<int32_t, int32_t, int32_t>>>;

Exchanges exchanges_of(const DevicePrograms& programs, size_t timesteps) {
  std::vector<int32_t> received(programs.messages.size(), -1);
  for (const auto& program : programs.ipus) {
    for (const Instr& in : program) {
      if (in.kind == InstrKind::Recv) {
        received[static_cast<size_t>(in.message)] = in.timestep;
      }
    }
  }
  Exchanges out(timesteps);
  for (const auto& program : programs.ipus) {
    for (const Instr& in : program) {
      if (in.kind == InstrKind::Send && in.timestep >= 0 && static_cast<size_t>(in.timestep) < timesteps) {
        const Message& m = programs.messages[static_cast<size_t>(in.message)];
        out[static_cast<size_t>(in.timestep)].emplace_back(m.from, m.to, received[static_cast<size_t>(in.message)]);
      }
    }
  }
  return out;
}

// The instructions to insert in one IPU's program: per timestep, the tokens received before its
// work there and those sent after it.
struct Inserts {
  std::map<int32_t, std::vector<Instr>> before, after;
};

// The program with its tokens, in one pass: an IPU's instructions come in timestep order (the
// lowering emits them so), so each timestep's work is one run of them.
std::vector<Instr> with_tokens(const std::vector<Instr>& program, const Inserts& inserts) {
  std::vector<Instr> out;
  out.reserve(program.size());
  const auto append = [&](const std::map<int32_t, std::vector<Instr>>& at, int32_t timestep) {
    const auto it = at.find(timestep);
    if (it != at.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  };
  for (size_t k = 0; k < program.size(); ++k) {
    const int32_t t = program[k].timestep;
    if (k == 0 || program[k - 1].timestep != t) {
      append(inserts.before, t);
    }
    out.push_back(program[k]);
    if (k + 1 == program.size() || program[k + 1].timestep != t) {
      append(inserts.after, t);
    }
  }
  return out;
}

}  // namespace impl_turn_tokens
}  // namespace

void add_turn_tokens(DevicePrograms& programs) {
  using namespace impl_turn_tokens;  // NOLINT(google-build-using-namespace)
  const Turns turns = turns_of(programs);
  const Exchanges exchanged = exchanges_of(programs, turns.size());
  std::vector<Inserts> inserts(programs.ipus.size());
  int32_t earlier = -1;  // the last timestep with a task before `later`
  for (size_t t = 0; t < turns.size(); ++t) {
    if (turns[t].empty()) {
      continue;
    }
    const auto later = static_cast<int32_t>(t);
    if (earlier < 0) {
      earlier = later;
      continue;
    }
    const auto& sent = exchanged[static_cast<size_t>(earlier)];
    for (const auto& [a, unused] : turns[static_cast<size_t>(earlier)]) {
      for (const auto& [b, m] : turns[t]) {
        if (a == b || std::find(sent.begin(), sent.end(), std::tuple{a, b, later}) != sent.end()) {
          continue;
        }
        Message token;
        token.from = a;
        token.to = b;
        token.micro_batch = m;
        programs.messages.push_back(token);
        Instr send;
        send.kind = InstrKind::Send;
        send.micro_batch = m;
        send.timestep = earlier;
        send.message = static_cast<int32_t>(programs.messages.size() - 1);
        Instr recv = send;
        recv.kind = InstrKind::Recv;
        recv.timestep = later;
        inserts[static_cast<size_t>(a)].after[earlier].push_back(send);
        inserts[static_cast<size_t>(b)].before[later].push_back(recv);
      }
    }
    earlier = later;
  }
  for (size_t i = 0; i < inserts.size(); ++i) {
    if (!inserts[i].before.empty() || !inserts[i].after.empty()) {
      programs.ipus[i] = with_tokens(programs.ipus[i], inserts[i]);
    }
  }
}

}  // namespace iputrain::planner

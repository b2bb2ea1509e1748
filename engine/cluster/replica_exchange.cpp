#include "engine/cluster/replica_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "engine/cluster/worker.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

ExchangeStaging::ExchangeStaging(int32_t local_replicas, int32_t replicas, size_t bytes) : meet(local_replicas) {
  for (auto& s : staging) {
    s.resize(static_cast<size_t>(replicas) * bytes);
  }
}

size_t largest_exchange(const planner::Plan& plan) {
  size_t most = 0;
  for (ir::ValueId id = 0; id < plan.graph.size(); ++id) {
    const ir::Node& n = plan.graph.node(id);
    if (ir::op_def(n.op).traffic != nullptr) {
      most = std::max(most, plan.graph.type(n.inputs[0]).bytes());
    }
  }
  return most;
}

ReplicaExchange::ReplicaExchange(ClusterShared& shared, int32_t replica, int32_t ipu, int32_t worker)
    : shared_(shared), replica_(replica), ipu_(ipu), worker_(worker), view_(static_cast<size_t>(shared.replicas)) {}

int32_t ReplicaExchange::replicas() const { return shared_.replicas; }

std::span<const std::byte* const> ReplicaExchange::exchange(const void* data, size_t bytes) {
  ExchangeStaging& st = *shared_.exchanges.at(static_cast<size_t>(ipu_));
  std::vector<std::byte>& buf = st.staging[static_cast<size_t>(generation_++ % 2)];
  if (static_cast<size_t>(shared_.replicas) * bytes > buf.size()) {
    throw Error(ErrorKind::Internal, fmt::format("a collective exchanges {} bytes per replica, more than the {} staged",
                                                 bytes, buf.size() / static_cast<size_t>(shared_.replicas)));
  }
  std::memcpy(buf.data() + static_cast<size_t>(replica_) * bytes, data, bytes);
  const int32_t local = shared_.local(replica_);
  const WaitContext wait{shared_.detector.get(), worker_, at_};
  st.meet.arrive(local, 0, 0, wait);  // every local replica has posted its operand
  if (shared_.link) {
    // Instance k holds replicas k L .. (k + 1) L - 1: its block of the staging goes to everyone.
    if (local == 0) {
      const size_t block = static_cast<size_t>(shared_.local_replicas) * bytes;
      const std::vector<Bytes>& in =
          shared_.link->all_gather(ipu_, buf.data() + static_cast<size_t>(shared_.first_replica) * bytes, block);
      for (int32_t q = 0; q < shared_.link->count(); ++q) {
        if (q == shared_.link->index()) {
          continue;
        }
        const Bytes& b = in[static_cast<size_t>(q)];
        if (b.size() != block) {
          throw Error(ErrorKind::Runtime,
                      fmt::format("instance {} sent {} bytes of a collective, {} expected", q, b.size(), block));
        }
        std::memcpy(buf.data() + static_cast<size_t>(q) * block, b.data(), block);
      }
    }
    st.meet.arrive(local, 0, 0, wait);  // the other instances' operands are in
  }
  for (size_t r = 0; r < view_.size(); ++r) {
    view_[r] = buf.data() + r * bytes;
  }
  return view_;
}

}  // namespace iputrain::engine

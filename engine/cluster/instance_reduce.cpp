#include "engine/cluster/instance_reduce.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

// Elements [a, b) of a part at `offset` of `n` elements that fall in [lo, hi) (a >= b: none).
struct Overlap {
  int64_t a, b;
};
Overlap overlap(int64_t lo, int64_t hi, int64_t offset, int64_t n) {
  return {std::max(lo, offset) - offset, std::min(hi, offset + n) - offset};
}

int64_t total_of(const ReduceParts& parts) {
  int64_t total = 0;
  for (const auto& part : parts) {
    total += part.second;
  }
  return total;
}

void put(Bytes& out, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  out.insert(out.end(), c, c + n);
}

class Reader {
 public:
  Reader(const Bytes& b, int32_t from) : b_(b), from_(from) {}
  void get(void* p, size_t n) {
    if (at_ + n > b_.size()) {
      throw Error(ErrorKind::Internal, fmt::format("instance {} sent {} bytes, fewer than its reduction needs",
                                                   from_, b_.size()));
    }
    std::memcpy(p, b_.data() + at_, n);
    at_ += n;
  }

 private:
  const Bytes& b_;
  int32_t from_;
  size_t at_ = 0;
};

}  // namespace

void make_remote_trees(ClusterShared& s) {
  for (auto& per_ipu : s.trees) {
    for (auto& [part, list] : per_ipu) {
      const GradTree& like = *list.at(static_cast<size_t>(s.first_replica));
      const size_t elem = dtype_size(like.dtype());
      for (int32_t r = 0; r < s.replicas; ++r) {
        if (s.local(r) >= 0 && s.local(r) < s.local_replicas) {
          continue;
        }
        std::vector<char>& storage = s.remote_storage.emplace_back(like.slot_count() * static_cast<size_t>(like.size()) * elem);
        std::vector<void*> slots;
        for (size_t k = 0; k < like.slot_count(); ++k) {
          slots.push_back(storage.data() + k * static_cast<size_t>(like.size()) * elem);
        }
        s.remote_trees.push_back(std::make_unique<GradTree>(like.dtype(), like.size(), std::move(slots), like.order()));
        list[static_cast<size_t>(r)] = s.remote_trees.back().get();
      }
    }
  }
}

void send_stacks(const InstanceSpan& s, int32_t channel, const ReduceParts& parts) {
  InstanceLink& link = s.link;
  const int64_t total = total_of(parts);
  std::vector<Bytes>& out = link.outbox(channel);
  for (int32_t q = 0; q < link.count(); ++q) {
    if (q == link.index()) {
      continue;
    }
    Bytes& msg = out[static_cast<size_t>(q)];
    int64_t offset = 0;
    for (const auto& [list, n] : parts) {
      const Overlap o = overlap(s.begin(total, q), s.begin(total, q + 1), offset, n);
      for (int32_t j = 0; j < s.local_replicas; ++j) {
        const GradTree& t = *(*list)[static_cast<size_t>(s.first_replica + j)];
        const auto blocks = static_cast<int64_t>(t.blocks().size());
        put(msg, &blocks, sizeof blocks);
        put(msg, t.blocks().data(), t.blocks().size() * sizeof(TreeBlock));
        if (o.a < o.b) {
          const size_t elem = dtype_size(t.dtype());
          for (size_t k = 0; k < t.blocks().size(); ++k) {
            put(msg, static_cast<const char*>(t.slot(k)) + static_cast<size_t>(o.a) * elem,
                static_cast<size_t>(o.b - o.a) * elem);
          }
        }
      }
      offset += n;
    }
  }
  const std::vector<Bytes>& in = link.exchange(channel);
  const int64_t lo = s.begin(total, link.index());
  const int64_t hi = s.begin(total, link.index() + 1);
  for (int32_t q = 0; q < link.count(); ++q) {
    if (q == link.index()) {
      continue;
    }
    Reader msg(in[static_cast<size_t>(q)], q);
    int64_t offset = 0;
    for (const auto& [list, n] : parts) {
      const Overlap o = overlap(lo, hi, offset, n);
      for (int32_t j = 0; j < s.local_replicas; ++j) {
        GradTree& t = *(*list)[static_cast<size_t>(q * s.local_replicas + j)];
        int64_t blocks = 0;
        msg.get(&blocks, sizeof blocks);
        if (blocks < 0 || static_cast<size_t>(blocks) > t.slot_count()) {
          throw Error(ErrorKind::Internal, fmt::format("instance {} sent {} partial sums for a tree of {}", q, blocks,
                                                       t.slot_count()));
        }
        std::vector<TreeBlock> stack(static_cast<size_t>(blocks));
        msg.get(stack.data(), stack.size() * sizeof(TreeBlock));
        if (o.a < o.b) {
          const size_t elem = dtype_size(t.dtype());
          for (size_t k = 0; k < stack.size(); ++k) {
            msg.get(static_cast<char*>(t.slot(k)) + static_cast<size_t>(o.a) * elem, static_cast<size_t>(o.b - o.a) * elem);
          }
        }
        t.set_blocks(std::move(stack));
      }
      offset += n;
    }
  }
}

void share_roots(const InstanceSpan& s, int32_t channel, const ReduceParts& parts) {
  InstanceLink& link = s.link;
  const int64_t total = total_of(parts);
  // This instance's elements of the root, packed once into the first other instance's message
  // and copied to the rest: the same message to everyone.
  std::vector<Bytes>& out = link.outbox(channel);
  const auto packed = static_cast<size_t>(link.index() == 0 ? 1 : 0);
  int64_t offset = 0;
  for (const auto& [list, n] : parts) {
    const Overlap o = overlap(s.begin(total, link.index()), s.begin(total, link.index() + 1), offset, n);
    const GradTree& t = *(*list)[static_cast<size_t>(s.first_replica)];
    if (o.a < o.b) {
      const size_t elem = dtype_size(t.dtype());
      put(out[packed], static_cast<const char*>(t.slot(0)) + static_cast<size_t>(o.a) * elem,
          static_cast<size_t>(o.b - o.a) * elem);
    }
    offset += n;
  }
  for (size_t q = packed + 1; q < out.size(); ++q) {
    if (static_cast<int32_t>(q) != link.index()) {
      out[q].assign(out[packed].begin(), out[packed].end());
    }
  }
  const std::vector<Bytes>& in = link.exchange(channel);
  for (int32_t q = 0; q < link.count(); ++q) {
    if (q == link.index()) {
      continue;
    }
    Reader msg(in[static_cast<size_t>(q)], q);
    offset = 0;
    for (const auto& [list, n] : parts) {
      const Overlap o = overlap(s.begin(total, q), s.begin(total, q + 1), offset, n);
      if (o.a < o.b) {
        const GradTree& first = *(*list)[static_cast<size_t>(s.first_replica)];
        const size_t elem = dtype_size(first.dtype());
        const size_t bytes = static_cast<size_t>(o.b - o.a) * elem;
        char* at = static_cast<char*>(first.slot(0)) + static_cast<size_t>(o.a) * elem;
        msg.get(at, bytes);
        for (int32_t j = 1; j < s.local_replicas; ++j) {
          std::memcpy(static_cast<char*>((*list)[static_cast<size_t>(s.first_replica + j)]->slot(0)) +
                          static_cast<size_t>(o.a) * elem,
                      at, bytes);
        }
      }
      offset += n;
    }
  }
}

bool any_instance(InstanceLink& link, int32_t channel, bool mine) {
  const char flag = mine ? '\1' : '\0';
  const std::vector<Bytes>& all = link.all_gather(channel, &flag, 1);
  bool any = mine;
  for (int32_t q = 0; q < link.count(); ++q) {
    any = any || (q != link.index() && !all[static_cast<size_t>(q)].empty() && all[static_cast<size_t>(q)][0] != 0);
  }
  return any;
}

}  // namespace iputrain::engine

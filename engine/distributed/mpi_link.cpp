// InstanceLink over MPI point-to-point messages. Receives are polled (MPI_Iprobe) against a
// deadline rather than blocked on, so an instance that died or hangs is named in an error instead
// of leaving the others asleep in the library for ever.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <string>
#include <thread>

#include "engine/cluster/mailbox.hpp"
#include "engine/distributed/instance_link.hpp"
#include "iputrain/error.hpp"
#include "iputrain/instances.hpp"

#if IPUTRAIN_WITH_MPI
#include <mpi.h>
#endif

namespace iputrain::engine {

InstanceLink::InstanceLink(int32_t count, int32_t index, int32_t channels)
    : count_(count),
      index_(index),
      outboxes_(static_cast<size_t>(channels), std::vector<Bytes>(static_cast<size_t>(count))),
      inboxes_(static_cast<size_t>(channels), std::vector<Bytes>(static_cast<size_t>(count))) {}

std::vector<Bytes>& InstanceLink::outbox(int32_t channel) {
  std::vector<Bytes>& out = outboxes_.at(static_cast<size_t>(channel));
  for (Bytes& b : out) {
    b.clear();
  }
  return out;
}

const std::vector<Bytes>& InstanceLink::all_gather(int32_t channel, const void* data, size_t n) {
  std::vector<Bytes>& out = outbox(channel);
  const char* c = static_cast<const char*>(data);
  for (int32_t q = 0; q < count_; ++q) {
    if (q != index_) {
      out[static_cast<size_t>(q)].assign(c, c + n);
    }
  }
  return exchange(channel);
}

double instance_timeout_seconds() {
  const char* v = std::getenv("IPUTRAIN_INSTANCE_TIMEOUT");
  if (v == nullptr || *v == '\0') {
    return 300;
  }
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(s > 0)) {
    throw Error(ErrorKind::Config, fmt::format("IPUTRAIN_INSTANCE_TIMEOUT = \"{}\" is not a positive number of seconds", v),
                {}, "set it to how long an instance may wait for the others, e.g. 60");
  }
  return s;
}

#if IPUTRAIN_WITH_MPI

namespace {

constexpr int kTag = 7;

class MpiLink final : public InstanceLink {
 public:
  MpiLink(int32_t count, int32_t index, int32_t channels, double timeout)
      : InstanceLink(count, index, channels), timeout_(timeout) {
    for (int32_t c = 0; c < channels; ++c) {
      MPI_Comm comm = MPI_COMM_NULL;
      MPI_Comm_dup(MPI_COMM_WORLD, &comm);
      comms_.push_back(comm);
      const auto n = static_cast<size_t>(count);
      pending_.push_back(Pending{std::vector<MPI_Request>(n, MPI_REQUEST_NULL),
                                 std::vector<MPI_Request>(n, MPI_REQUEST_NULL), std::vector<char>(n, 0),
                                 std::vector<char>(n, 0)});
    }
  }
  ~MpiLink() override {
    // A link that outlives leave_instances() (MPI_Finalize) has nothing left to free.
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized != 0) {
      return;
    }
    for (MPI_Comm& c : comms_) {
      MPI_Comm_free(&c);
    }
  }

  const std::vector<Bytes>& exchange(int32_t channel) override {
    MPI_Comm comm = comms_.at(static_cast<size_t>(channel));
    const std::vector<Bytes>& out = filled_outbox(channel);
    const auto n = static_cast<size_t>(count());
    // One send and one receive per other instance; an instance is waited for until both are done.
    // The channel's own request and flag arrays, kept from one exchange to the next (no allocation
    // per reduction once the link exists).
    Pending& p = pending_.at(static_cast<size_t>(channel));
    std::fill(p.sends.begin(), p.sends.end(), MPI_REQUEST_NULL);
    std::fill(p.receives.begin(), p.receives.end(), MPI_REQUEST_NULL);
    std::fill(p.received.begin(), p.received.end(), 0);
    std::fill(p.sent.begin(), p.sent.end(), 0);
    post_sends(comm, out, p);
    std::vector<Bytes>& in = inbox(channel);
    in[static_cast<size_t>(index())].clear();
    // A receive is posted once its message's envelope has arrived (its size known), then polled
    // like the sends: never a blocking MPI_Recv, which a sender stopped half-way through a large
    // message would leave waiting past any deadline.
    p.received[static_cast<size_t>(index())] = 1;
    p.sent[static_cast<size_t>(index())] = 1;
    size_t pending = 2 * (n - 1);
    const auto start = std::chrono::steady_clock::now();
    int idle = 0;
    while (pending > 0) {
      bool progress = false;
      for (size_t q = 0; q < n; ++q) {
        progress = poll(comm, q, in, p, pending) || progress;
      }
      if (progress) {
        idle = 0;
        continue;
      }
      wait_a_little(p, ++idle);
      if (aborted()) {
        throw Aborted{};  // the sends are left to MPI_Abort or the process's end
      }
      check_deadline(channel, p, start);
    }
    return in;
  }

 private:
  struct Pending {
    std::vector<MPI_Request> sends, receives;
    std::vector<char> received, sent;  // per instance: its message in / out is complete
  };

  void post_sends(MPI_Comm comm, const std::vector<Bytes>& out, Pending& p) {
    for (size_t q = 0; q < out.size(); ++q) {
      if (static_cast<int32_t>(q) == index()) {
        continue;
      }
      if (out[q].size() > static_cast<size_t>(INT_MAX)) {
        throw Error(ErrorKind::Internal, fmt::format("{} bytes in one message to instance {}", out[q].size(), q));
      }
      MPI_Isend(out[q].data(), static_cast<int>(out[q].size()), MPI_BYTE, static_cast<int>(q), kTag, comm, &p.sends[q]);
    }
  }

  // One look at instance q: post its receive once the envelope is there, test the receive and the
  // send. Returns whether anything moved; `pending` counts the transfers left.
  static bool poll(MPI_Comm comm, size_t q, std::vector<Bytes>& in, Pending& p, size_t& pending) {
    bool progress = false;
    if (!p.received[q] && p.receives[q] == MPI_REQUEST_NULL) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(static_cast<int>(q), kTag, comm, &flag, &status);
      if (flag != 0) {
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        in[q].resize(static_cast<size_t>(bytes));
        MPI_Irecv(in[q].data(), bytes, MPI_BYTE, static_cast<int>(q), kTag, comm, &p.receives[q]);
        progress = true;
      }
    }
    if (!p.received[q] && p.receives[q] != MPI_REQUEST_NULL) {
      int done = 0;
      MPI_Test(&p.receives[q], &done, MPI_STATUS_IGNORE);
      if (done != 0) {
        p.received[q] = 1;
        --pending;
        progress = true;
      }
    }
    if (!p.sent[q]) {
      int done = 0;
      MPI_Test(&p.sends[q], &done, MPI_STATUS_IGNORE);
      if (done != 0) {
        p.sent[q] = 1;
        --pending;
        progress = true;
      }
    }
    return progress;
  }

  // Spin a little (a reply is often on its way), then sleep so waiting threads leave the cores.
  // Not while a message is under way either way: a large one moves in fragments only as this
  // instance calls into MPI, so sleeping here would stall it.
  static void wait_a_little(const Pending& p, int idle) {
    bool moving = std::find(p.sent.begin(), p.sent.end(), 0) != p.sent.end();
    for (size_t q = 0; q < p.received.size() && !moving; ++q) {
      moving = !p.received[q] && p.receives[q] != MPI_REQUEST_NULL;
    }
    if (idle <= 64) {
      return;
    }
    if (moving) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(idle, 1000)));
    }
  }

  void check_deadline(int32_t channel, const Pending& p, std::chrono::steady_clock::time_point start) const {
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited <= timeout_) {
      return;
    }
    std::string names;
    for (size_t q = 0; q < p.received.size(); ++q) {
      if (!p.received[q] || !p.sent[q]) {
        names += fmt::format("{}{}", names.empty() ? "" : ", ", q);
      }
    }
    throw Error(ErrorKind::Runtime,
                fmt::format("instance {} waited {:.0f} s for instance {} on channel {}, which did not answer", index(),
                            waited, names, channel),
                {},
                "that instance died or hangs (see its own output); IPUTRAIN_INSTANCE_TIMEOUT sets how long to wait");
  }

  double timeout_;
  std::vector<MPI_Comm> comms_;
  std::vector<Pending> pending_;  // per channel
};

}  // namespace

std::unique_ptr<InstanceLink> make_instance_link(int32_t channels) {
  const Instances in = current_instances();
  if (in.count <= 1) {
    throw Error(ErrorKind::Internal, "an instance link needs two or more instances");
  }
  return std::make_unique<MpiLink>(in.count, in.index, channels, instance_timeout_seconds());
}

#else

std::unique_ptr<InstanceLink> make_instance_link(int32_t) {
  throw Error(ErrorKind::Config, "several instances need a build with MPI", {},
              "install `libopenmpi-dev` and `openmpi-bin` and configure with -DIPUTRAIN_WITH_MPI=ON");
}

#endif

}  // namespace iputrain::engine

#include "cli/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <cstring>

namespace iputrain::cli {

namespace {

// Read by the handler: lock-free atomics only (async-signal-safe).
std::atomic<Session*> g_session{nullptr};
std::atomic<int> g_signal{0};
std::atomic<bool> g_quiet{false};  // an instance other than the first: instance 0 tells the user
static_assert(std::atomic<Session*>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void say(const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); }

void on_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {
    // The second signal: the default action (the process ends at once, killed by that signal).
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  if (Session* s = g_session.load()) {
    s->request_stop();  // one atomic store
  }
  if (g_quiet.load()) {
    return;
  }
  say(sig == SIGINT ? "\ninterrupted (SIGINT): stopping after the execution under way; press Ctrl-C again to "
                      "stop at once\n"
                    : "\nterminated (SIGTERM): stopping after the execution under way; send it again to stop "
                      "at once\n");
}

}  // namespace

InterruptGuard::InterruptGuard(Session& session, bool quiet) {
  g_signal = 0;
  g_quiet = quiet;
  g_session = &session;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  g_session = nullptr;
}

int InterruptGuard::received() const { return g_signal.load(); }

void InterruptGuard::reapply() const {
  if (g_signal.load() != 0) {
    if (Session* s = g_session.load()) {
      s->request_stop();
    }
  }
}

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

}  // namespace iputrain::cli

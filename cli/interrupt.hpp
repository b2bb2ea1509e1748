// Ctrl-C and `kill` during `iputrain train`: the first SIGINT or SIGTERM asks the session to stop
// after the execution under way (Session::request_stop), which writes a checkpoint when
// checkpoint.dir is set; a second one ends the process at once (the signal's default action).
#pragma once

#include <csignal>

#include "iputrain/session.hpp"

namespace iputrain::cli {

//! Installs the handlers for the lifetime of the object (restoring the previous ones after).
class InterruptGuard {
 public:
  //! `quiet`: the handler prints nothing (an instance other than the first, under mpirun).
  explicit InterruptGuard(Session& session, bool quiet = false);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  //! The signal received (SIGINT or SIGTERM), or 0.
  int received() const;
  //! Asks the session to stop again if a signal came (a signal may arrive before train() starts,
  //! which clears earlier requests); call from the progress callback.
  void reapply() const;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

//! "SIGINT" / "SIGTERM".
const char* signal_name(int sig);

}  // namespace iputrain::cli

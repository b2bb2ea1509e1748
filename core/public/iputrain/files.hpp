// iputrain — writing output files the way the engine does: to a temporary file next to the
// target, flushed, then renamed over it, so an interrupted run never leaves a half-written file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace iputrain {

//! The one way the product writes a file: into a temporary file next to the target, renamed over
//! it once every byte is written and synced, and the rename made durable by syncing the folder. A
//! failure (or a destructor before commit()) removes the temporary file and leaves the target as
//! it was. Every file the engine and the command write goes through it. Errors are
//! iputrain::Error(Io) "cannot write {what}`PATH`: {step}: {reason}".
class AtomicFile {
 public:
  //! `what` names the content in messages ("weights to "), or "".
  explicit AtomicFile(std::string path, std::string what = "");
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();
  void write(const void* data, size_t n);
  //! Syncs, closes and renames over the target, then syncs its folder.
  void commit();

 private:
  [[noreturn]] void fail(const char* step, int err);

  std::string path_, what_, tmp_, dir_;
  int fd_ = -1;
  int fault_ = 0;  // IPUTRAIN_FAULT_WRITE_ERROR's errno for the first write
};

//! Writes `text` to `path` through an AtomicFile. Throws iputrain::Error(Io) naming the path on failure.
void write_file_atomically(const std::string& path, std::string_view text);

//! Makes `path` ready to be written when a long run ends, before the run starts: creates its
//! missing parent folders and checks that a file can be created there (a probe file, removed at
//! once). With `is_dir` the path is a folder to write files into, created if missing. `flag`
//! names where the path came from ("--save"). Throws iputrain::Error(Io) naming both on failure.
void prepare_output(const std::string& path, std::string_view flag, bool is_dir = false);

}  // namespace iputrain

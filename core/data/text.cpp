// Text data: a plain text file cut into fixed windows of character ids for language models.
//
// The vocabulary is fixed so that any file works without a vocabulary file and the same text
// always gives the same ids: printable ASCII 32..126 maps to 0..94, every other byte (newline,
// tab, UTF-8 continuation bytes, …) to 95, so models use vocab = 96.
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/data/dataset.hpp"
#include "core/data/source_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

const char* kTextHint =
    "a text source yields `tokens` and `targets` i32[seq]; declare e.g. `input tokens: i32[batch, 64]`";

class TextDataset final : public Dataset {
 public:
  TextDataset(std::vector<int32_t> ids, int64_t seq) : ids_(std::move(ids)), seq_(seq) {
    fields_ = {{"tokens", DType::I32, {seq}}, {"targets", DType::I32, {seq}}};
    // Non-overlapping windows; each needs one id past its end for the last target.
    windows_ = (static_cast<int64_t>(ids_.size()) - 1) / seq;
  }

  int64_t size() const override { return windows_; }
  const std::vector<Field>& fields() const override { return fields_; }

  void read(int64_t index, size_t field, void* dst) const override {
    const size_t start = static_cast<size_t>(index * seq_) + (field == 1 ? 1 : 0);
    std::memcpy(dst, ids_.data() + start, static_cast<size_t>(seq_) * sizeof(int32_t));
  }

 private:
  std::vector<int32_t> ids_;
  int64_t seq_;
  int64_t windows_ = 0;
  std::vector<Field> fields_;
};

// The window length comes from the model: whichever of `tokens`/`targets` it declares.
int64_t window_length(const std::string& path, const std::vector<Field>& wanted) {
  int64_t seq = -1;
  for (const Field& f : wanted) {
    if (f.name != "tokens" && f.name != "targets") {
      continue;
    }
    if (f.dtype != DType::I32 || f.shape.size() != 1) {
      throw Error(
          ErrorKind::Data,
          fmt::format("the model's input `{}` is {}, but text:{} yields i32[seq] windows", f.name, f.str(), path), {},
          kTextHint);
    }
    if (seq >= 0 && seq != f.shape[0]) {
      throw Error(
          ErrorKind::Data,
          fmt::format("the model's inputs `tokens` and `targets` have different lengths ({} and {})", seq, f.shape[0]),
          {}, "a text source gives both the same window length");
    }
    seq = f.shape[0];
  }
  if (seq < 0) {
    throw Error(ErrorKind::Data,
                fmt::format("text:{} has nothing to feed: the model has no input `tokens` or `targets`", path), {},
                kTextHint);
  }
  return seq;
}

std::unique_ptr<Dataset> open_text_source(const DataSourceRequest& r) {
  if (r.rest.empty()) {
    throw Error(ErrorKind::Data, fmt::format("data source \"{}\" names no file", r.spec), {},
                "write \"text:FILE\", e.g. \"text:/usr/share/common-licenses/GPL-3\"");
  }
  return open_text(r.resolved(r.rest), r.wanted);
}

}  // namespace

int32_t text_token_id(unsigned char byte) {
  return byte >= 32 && byte <= 126 ? static_cast<int32_t>(byte) - 32 : kTextOtherId;
}

std::unique_ptr<Dataset> open_text(const std::string& path, const std::vector<Field>& wanted) {
  const int64_t seq = window_length(path, wanted);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Io, fmt::format("cannot open text file {}", path), {},
                "check the path after \"text:\"; relative paths start at the config file's folder");
  }
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  if (static_cast<int64_t>(text.size()) < seq + 1) {
    throw Error(ErrorKind::Data,
                fmt::format("text file {} has {} bytes, too few for one window of {} tokens and its targets", path,
                            text.size(), seq),
                {}, fmt::format("use a text of at least {} bytes or a shorter sequence", seq + 1));
  }
  std::vector<int32_t> ids(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    ids[i] = text_token_id(static_cast<unsigned char>(text[i]));
  }
  return std::make_unique<TextDataset>(std::move(ids), seq);
}

const DataSourceDef kTextSource{"text", "FILE", "character windows of a text file: `tokens` and `targets`",
                                "text:/usr/share/common-licenses/GPL-3", open_text_source};

}  // namespace iputrain::data

#include "core/data/safetensors.hpp"
#include "core/write_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/data/mapped_file.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

// The reference implementation refuses headers above 100 MB; so do we, before allocating.
constexpr uint64_t kMaxHeader = 100'000'000;

const char* kFormatHint = "the file is not a valid safetensors weight file; it may be damaged or incomplete";

[[noreturn]] void bad_file(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::Data, fmt::format("`{}`: {}", path, what), {}, kFormatHint);
}

bool parse_safetensors_dtype(const std::string& s, DType& out) {
  for (DType t : kAllDTypes) {
    if (s == safetensors_dtype(t)) {
      out = t;
      return true;
    }
  }
  return false;
}

}  // namespace

uint64_t safetensors_element_size(const std::string& dtype) {
  static const std::map<std::string, uint64_t> kSizes = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                                                         {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U64", 8},  {"U32", 4},
                                                         {"U16", 2}, {"U8", 1},  {"BOOL", 1}};
  const auto it = kSizes.find(dtype);
  return it == kSizes.end() ? 0 : it->second;
}

const char* safetensors_dtype(DType t) {
  switch (t) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
    case DType::I32:
      return "I32";
    case DType::Bool:
      return "BOOL";
    case DType::U8:
      return "U8";
  }
  return "?";
}

void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata, const WriteProgress& on_write) {
  std::vector<const NamedTensor*> sorted;
  for (const NamedTensor& t : tensors) {
    const size_t want = static_cast<size_t>(numel(t.shape)) * dtype_size(t.dtype);
    if (t.name.empty() || t.name == "__metadata__") {
      throw Error(ErrorKind::Internal, fmt::format("invalid tensor name \"{}\" for a weight file", t.name));
    }
    if (t.bytes.size() != want) {
      throw Error(ErrorKind::Internal, fmt::format("tensor `{}` is {}{} ({} bytes) but holds {} bytes", t.name,
                                                   dtype_name(t.dtype), shape_str(t.shape), want, t.bytes.size()));
    }
    sorted.push_back(&t);
  }
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i]->name == sorted[i - 1]->name) {
      throw Error(ErrorKind::Internal, fmt::format("two tensors named `{}` in one weight file", sorted[i]->name));
    }
  }

  // ordered_json keeps "__metadata__" first and the tensors in name order: the same tensors
  // always give the same bytes.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    header["__metadata__"] = metadata;
  }
  uint64_t offset = 0;
  for (const NamedTensor* t : sorted) {
    header[t->name] = {{"dtype", safetensors_dtype(t->dtype)},
                       {"shape", t->shape},
                       {"data_offsets", {offset, offset + t->bytes.size()}}};
    offset += t->bytes.size();
  }
  std::string text = header.dump();
  // Pad with spaces so the tensor data starts 8-byte aligned, as the reference writer does.
  text.append((8 - text.size() % 8) % 8, ' ');
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) {
    len[i] = static_cast<uint8_t>(static_cast<uint64_t>(text.size()) >> (8 * i));
  }

  AtomicFile file(path, "weights to ");
  const uint64_t total = 8 + text.size() + offset;
  uint64_t written = 0;
  auto piece = [&](const void* data, size_t n) {
    file.write(data, n);
    written += n;
    if (on_write) {
      on_write(written, total);
    }
  };
  piece(len, 8);
  piece(text.data(), text.size());
  for (const NamedTensor* t : sorted) {
    piece(t->bytes.data(), t->bytes.size());
  }
  file.commit();
}

namespace {

// One tensor's header entry, checked against the data section's size.
SafetensorsEntry parse_entry(const std::string& path, const std::string& name, const nlohmann::json& v,
                             uint64_t data_size) {
  SafetensorsEntry t;
  t.name = name;
  const auto& dt = v["dtype"];
  if (!dt.is_string()) {
    bad_file(path, fmt::format("tensor `{}` has a non-string dtype", name));
  }
  t.dtype = dt.get<std::string>();
  const uint64_t elem = safetensors_element_size(t.dtype);
  if (elem == 0) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}`: tensor `{}` has dtype {}, which iputrain does not support", path, name, t.dtype), {},
                "supported dtypes: F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL");
  }
  const auto& shape = v["shape"];
  if (!shape.is_array()) {
    bad_file(path, fmt::format("tensor `{}` has a shape that is not an array", name));
  }
  uint64_t count = 1;
  for (const auto& d : shape) {
    if (!d.is_number_unsigned()) {
      bad_file(path, fmt::format("tensor `{}` has a shape entry that is not a non-negative integer", name));
    }
    const uint64_t dim = d.get<uint64_t>();
    if (dim != 0 && count > data_size / dim) {
      count = data_size + 1;  // larger than anything the file can hold
    } else {
      count *= dim;
    }
    t.shape.push_back(static_cast<int64_t>(std::min<uint64_t>(dim, INT64_MAX)));
  }
  const auto& offs = v["data_offsets"];
  if (!offs.is_array() || offs.size() != 2 || !offs[0].is_number_unsigned() || !offs[1].is_number_unsigned()) {
    bad_file(path, fmt::format("tensor `{}` has data_offsets that are not two non-negative integers", name));
  }
  t.begin = offs[0].get<uint64_t>();
  t.end = offs[1].get<uint64_t>();
  if (t.begin > t.end || t.end > data_size) {
    bad_file(path, fmt::format("tensor `{}` has data_offsets [{}, {}] outside the {} bytes of data", name, t.begin,
                               t.end, data_size));
  }
  if (count > data_size || count * elem != t.end - t.begin) {
    bad_file(path, fmt::format("tensor `{}` is {}{} but its data_offsets hold {} bytes", name, t.dtype,
                               shape_str(t.shape), t.end - t.begin));
  }
  return t;
}

// The data section must be covered exactly once, with no gaps and no overlaps.
void check_coverage(const std::string& path, const std::vector<SafetensorsEntry>& entries, uint64_t data_size) {
  std::vector<const SafetensorsEntry*> spans;
  for (const SafetensorsEntry& e : entries) {
    spans.push_back(&e);
  }
  std::sort(spans.begin(), spans.end(),
            [](const SafetensorsEntry* a, const SafetensorsEntry* b) { return a->begin < b->begin; });
  uint64_t at = 0;
  for (const SafetensorsEntry* s : spans) {
    if (s->begin != at) {
      bad_file(path, fmt::format("tensor `{}` starts at byte {} of the data, expected {} (tensors must be contiguous)",
                                 s->name, s->begin, at));
    }
    at = s->end;
  }
  if (at != data_size) {
    bad_file(path, fmt::format("the tensors cover {} bytes of data but the file holds {}", at, data_size));
  }
}

}  // namespace

SafetensorsIndex parse_safetensors_index(const uint8_t* bytes, uint64_t file_size, const std::string& path) {
  if (file_size < 8) {
    bad_file(path, fmt::format("the file has {} bytes, too few for a safetensors header", file_size));
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) {
    n = (n << 8) | bytes[i];
  }
  if (n > kMaxHeader || n > file_size - 8) {
    bad_file(path, fmt::format("the header length {} does not fit the file of {} bytes", n, file_size));
  }
  const std::string text(reinterpret_cast<const char*>(bytes + 8), n);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // parse_error for bad syntax, out_of_range for a number JSON allows but a double cannot hold.
    bad_file(path, fmt::format("the header is not valid JSON ({})", e.what()));
  }
  if (!header.is_object()) {
    bad_file(path, "the header is not a JSON object");
  }

  const uint64_t data_size = file_size - 8 - n;
  SafetensorsIndex out;
  out.data_start = 8 + n;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) {
        bad_file(path, "\"__metadata__\" is not an object");
      }
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) {
          bad_file(path, fmt::format("metadata value \"{}\" is not a string", m.key()));
        }
        out.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
      bad_file(path, fmt::format("tensor `{}` lacks \"dtype\", \"shape\" or \"data_offsets\"", name));
    }
    out.entries.push_back(parse_entry(path, name, v, data_size));
  }
  check_coverage(path, out.entries, data_size);
  std::sort(out.entries.begin(), out.entries.end(),
            [](const SafetensorsEntry& a, const SafetensorsEntry& b) { return a.name < b.name; });
  return out;
}

SafetensorsFile read_safetensors(const std::string& path) {
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      throw Error(ErrorKind::Io, fmt::format("cannot read weights `{}`: {}", path, std::strerror(errno)), {},
                  "check the path");
    }
  }
  const MappedFile file(path);
  const SafetensorsIndex index = parse_safetensors_index(file.data(), file.size(), path);
  SafetensorsFile out;
  out.metadata = index.metadata;
  for (const SafetensorsEntry& e : index.entries) {
    NamedTensor t;
    t.name = e.name;
    t.shape = e.shape;
    if (!parse_safetensors_dtype(e.dtype, t.dtype)) {
      throw Error(ErrorKind::Data,
                  fmt::format("`{}`: tensor `{}` has dtype {}, which iputrain does not support", path, e.name, e.dtype),
                  {}, "supported dtypes: F32, F16, BF16, I32, BOOL; convert the weights first");
    }
    const uint8_t* p = file.data() + index.data_start + e.begin;
    t.bytes.assign(p, p + (e.end - e.begin));
    out.tensors.push_back(std::move(t));
  }
  return out;
}

}  // namespace iputrain::data

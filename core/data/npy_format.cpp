#include "core/data/npy_format.hpp"

#include <fmt/format.h>

#include <cstring>
#include <string_view>

#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

const char* kNpyHint = "write the file with numpy.save (or numpy.savez for .npz); it may be damaged or incomplete";

[[noreturn]] void bad(const std::string& file, const std::string& what, const char* hint = kNpyHint) {
  throw Error(ErrorKind::Data, fmt::format("`{}` is not a valid .npy file: {}", file, what), {}, hint);
}

// The value text after 'key': in the header dict, or empty if the key is missing.
std::string_view value_of(std::string_view header, std::string_view key) {
  for (const char q : {'\'', '"'}) {
    const std::string quoted = fmt::format("{}{}{}", q, key, q);
    const size_t at = header.find(quoted);
    if (at == std::string_view::npos) {
      continue;
    }
    size_t p = header.find(':', at + quoted.size());
    if (p == std::string_view::npos) {
      return {};
    }
    ++p;
    while (p < header.size() && header[p] == ' ') {
      ++p;
    }
    return header.substr(p);
  }
  return {};
}

bool parse_descr(std::string_view d, StoredType& out) {
  if (d.size() != 3) {
    return false;
  }
  const char order = d[0];
  const std::string_view code = d.substr(1);
  const bool one_byte = code == "i1" || code == "u1" || code == "b1";
  if (one_byte ? (order != '|' && order != '<' && order != '=') : order != '<') {
    return false;
  }
  static const struct {
    const char* code;
    StoredType type;
  } kTable[] = {{"f8", StoredType::F64}, {"f4", StoredType::F32}, {"f2", StoredType::F16}, {"i1", StoredType::I8},
                {"i2", StoredType::I16}, {"i4", StoredType::I32}, {"i8", StoredType::I64}, {"u1", StoredType::U8},
                {"u2", StoredType::U16}, {"u4", StoredType::U32}, {"u8", StoredType::U64}, {"b1", StoredType::Bool}};
  for (const auto& e : kTable) {
    if (code == e.code) {
      out = e.type;
      return true;
    }
  }
  return false;
}

}  // namespace

namespace {

struct NpyHeader {
  std::string_view text;
  size_t data_at = 0;
};

// The magic, the version and the header's length: where the header text and the data start.
NpyHeader header_of(const uint8_t* bytes, size_t size, const std::string& file) {
  static const char kMagic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(bytes, kMagic, 6) != 0) {
    bad(file, size < 10 ? fmt::format("it has only {} bytes", size) : std::string("it lacks the magic \\x93NUMPY"));
  }
  const uint8_t major = bytes[6];
  size_t header_len = 0;
  size_t at = 0;
  if (major == 1) {
    header_len = size_t{bytes[8]} | (size_t{bytes[9]} << 8);
    at = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      bad(file, "it is truncated inside its header");
    }
    header_len = size_t{bytes[8]} | (size_t{bytes[9]} << 8) | (size_t{bytes[10]} << 16) | (size_t{bytes[11]} << 24);
    at = 12;
  } else {
    bad(file, fmt::format("format version {}.{} is not 1, 2 or 3", major, bytes[7]));
  }
  if (header_len > size - at) {
    bad(file, fmt::format("its header of {} bytes runs past the end of the file ({} bytes)", header_len, size));
  }
  return {std::string_view(reinterpret_cast<const char*>(bytes + at), header_len), at + header_len};
}

// The header's 'descr' (the stored dtype) and 'fortran_order' entries.
void read_descr(std::string_view header, const std::string& file, NpyArray& out) {
  const std::string_view descr = value_of(header, "descr");
  if (descr.empty() || (descr[0] != '\'' && descr[0] != '"')) {
    bad(file, "its header has no 'descr' string");
  }
  const size_t end = descr.find(descr[0], 1);
  if (end == std::string_view::npos) {
    bad(file, "its header's 'descr' string is not closed");
  }
  const std::string_view d = descr.substr(1, end - 1);
  if (!parse_descr(d, out.stored)) {
    const bool big = !d.empty() && d[0] == '>';
    throw Error(
        ErrorKind::Data,
        fmt::format("`{}` stores dtype '{}', which iputrain does not read{}", file, d, big ? " (big-endian)" : ""), {},
        big ? "convert it to little-endian: numpy.save(path, a.astype(a.dtype.newbyteorder('<')))"
            : "supported: little-endian <f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1; convert with "
              "a.astype(numpy.float32)");
  }
  const std::string_view fortran = value_of(header, "fortran_order");
  if (fortran.substr(0, 4) == "True") {
    throw Error(ErrorKind::Data, fmt::format("`{}` is stored in Fortran (column-major) order", file), {},
                "save a C-ordered array: numpy.save(path, numpy.ascontiguousarray(a))");
  }
  if (fortran.substr(0, 5) != "False") {
    bad(file, "its header has no 'fortran_order' True or False");
  }
}

// The header's 'shape' tuple into out.shape; returns the element count, capped at 2^64.
unsigned __int128 read_shape(std::string_view header, const std::string& file, NpyArray& out) {
  const std::string_view shape = value_of(header, "shape");
  const size_t close = shape.find(')');
  if (shape.empty() || shape[0] != '(' || close == std::string_view::npos) {
    bad(file, "its header has no 'shape' tuple");
  }
  // Counting in 128 bits: dimensions come from the file and may be absurd. A zero first dimension
  // makes the data empty, so the elements of one sample are bounded on their own too.
  constexpr unsigned __int128 kMaxSampleElements = (unsigned __int128)1 << 40;
  unsigned __int128 count = 1;
  unsigned __int128 per_sample = 1;
  size_t p = 1;
  const auto not_a_tuple = [&] {
    bad(file, fmt::format("its header's shape {} is not a tuple of whole numbers", shape.substr(0, close + 1)));
  };
  // Python's tuple syntax: numbers separated by single commas, blanks around them, an optional
  // trailing comma: "()", "(3,)", "(3, 4)".
  while (p < close) {
    while (p < close && shape[p] == ' ') {
      ++p;
    }
    if (p >= close) {
      break;
    }
    uint64_t dim = 0;
    size_t digits = 0;
    while (p < close && shape[p] >= '0' && shape[p] <= '9' && digits < 19) {
      dim = dim * 10 + static_cast<uint64_t>(shape[p] - '0');
      ++p;
      ++digits;
    }
    while (p < close && shape[p] == ' ') {
      ++p;
    }
    if (digits == 0 || (p < close && shape[p] != ',')) {
      not_a_tuple();
    }
    if (p < close) {
      ++p;  // the comma
    }
    out.shape.push_back(static_cast<int64_t>(dim));
    if (out.shape.size() > 1) {
      per_sample *= dim;
      if (per_sample > kMaxSampleElements) {
        bad(file,
            fmt::format("its header's shape {} has more than 2^40 elements per sample", shape.substr(0, close + 1)));
      }
    }
    count *= dim;
    if (count > (unsigned __int128)1 << 64) {
      count = (unsigned __int128)1 << 64;
    }
  }
  return count;
}

}  // namespace

NpyArray parse_npy(const uint8_t* bytes, size_t size, const std::string& file) {
  const NpyHeader h = header_of(bytes, size, file);
  const std::string_view header = h.text;
  const size_t data_at = h.data_at;
  NpyArray out;
  read_descr(header, file, out);
  const unsigned __int128 count = read_shape(header, file, out);
  const unsigned __int128 need = count * stored_size(out.stored);
  const size_t have = size - data_at;
  if (need > have) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` is truncated: its header promises {}{} ({} bytes of data) but it holds {}", file,
                            stored_name(out.stored), shape_str(out.shape),
                            need < ((unsigned __int128)1 << 64) ? std::to_string(static_cast<uint64_t>(need))
                                                                : std::string("more than 2^64"),
                            have),
                {}, "the file may be incomplete; write it again");
  }
  out.data = bytes + data_at;
  return out;
}

}  // namespace iputrain::data

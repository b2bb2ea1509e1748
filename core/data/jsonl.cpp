// "jsonl:FILE": JSON Lines, one sample per line: an object with a field NAME per model input, a
// number for a scalar input, nested arrays of the per-sample shape for a tensor (`{"x": [[1, 2],
// [3, 4]], "label": 3}` for x: f32[batch, 2, 2], label: i32[batch]); i32 and u8 take whole numbers
// in range, bool true, false, 0 or 1; other fields are ignored. Mapped and parsed once at open
// (nlohmann::json, a line at a time) into the inputs' dtypes; a bad line is an error at FILE:LINE.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/data/array_dataset.hpp"
#include "core/data/mapped_file.hpp"
#include "core/data/source_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace impl_jsonl {

// Not ordered_json: its members' vector copies them recursively as it grows (a deep line: a crash).
using Json = nlohmann::json;

const char* const kLineHint =
    "each line of a JSON Lines file is one object, e.g. {\"x\": [[1, 2], [3, 4]], \"label\": 3}";

constexpr size_t kMaxRank = 16;  // the deepest nesting read without a model to say the shape

// A line of the file, for messages: "`FILE`:LINE".
struct Where {
  const std::string& path;
  int64_t line;  // 1-based
  [[noreturn]] void fail(const std::string& what, const std::string& hint, size_t column = 0) const {
    const std::string col = column > 0 ? fmt::format(":{}", column) : std::string();
    throw Error(ErrorKind::Data, fmt::format("`{}`:{}{}: {}", path, line, col, what), {}, hint);
  }
};

// The shape of a value as nested arrays (a number is [], [[1, 2], [3, 4]] is [2, 2]); nullopt
// when the rows of some array differ in length or depth, or it nests deeper than `levels`.
std::optional<Shape> shape_of(const Json& v, size_t levels) {
  if (!v.is_array()) {
    return Shape{};
  }
  if (levels == 0) {
    return std::nullopt;
  }
  std::optional<Shape> inner = v.empty() ? Shape{} : shape_of(v[0], levels - 1);
  for (size_t i = 1; inner && i < v.size(); ++i) {
    if (shape_of(v[i], levels - 1) != inner) {
      return std::nullopt;
    }
  }
  if (inner) {
    inner->insert(inner->begin(), static_cast<int64_t>(v.size()));
  }
  return inner;
}

// How deep the first elements nest ([[1, 2], [3, 4]]: 2), without recursion.
size_t depth_of(const Json& v) {
  size_t depth = 0;
  for (const Json* p = &v; p->is_array() && !p->empty(); p = &(*p)[0]) {
    ++depth;
  }
  return depth;
}

// "a bare number", "a list of 4 numbers", "a list of 2 lists of 3 numbers".
std::string described(const Shape& s) {
  if (s.empty()) {
    return "a bare number";
  }
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    out += fmt::format("{}{} ", i == 0 ? "a list of " : "lists of ", s[i]);
  }
  return out + "numbers";
}

std::string expectation(DType t) {
  switch (t) {
    case DType::I32:
      return "a whole number in i32's range";
    case DType::Bool:
      return "true, false, 0 or 1";
    case DType::U8:
      return "a whole number from 0 to 255";
    default:
      return "a number";
  }
}

// A float stored as infinite although the JSON number is not: beyond the dtype's range.
bool overflowed(DType t, const uint8_t* dst) {
  if (t == DType::F32) {
    float f = 0;
    std::memcpy(&f, dst, 4);
    return std::isinf(f);
  }
  uint16_t h = 0;
  std::memcpy(&h, dst, 2);
  return (t == DType::F16 && (h & 0x7c00) == 0x7c00) || (t == DType::BF16 && (h & 0x7f80) == 0x7f80);
}

// Element `index` of field `f` for messages: "x[1][0]".
std::string element(const Field& f, const std::vector<size_t>& index) {
  std::string out = f.name;
  for (size_t i : index) {
    out += fmt::format("[{}]", i);
  }
  return out;
}

// Why a leaf cannot be stored, or empty: it is stored at dst as the input's dtype.
std::string store_leaf(const Json& v, DType t, uint8_t* dst) {
  if (v.is_boolean() && t == DType::Bool) {
    *dst = v.get<bool>() ? 1 : 0;
    return {};
  }
  if (!v.is_number()) {
    const std::string text = v.is_null()        ? "null"
                             : v.is_primitive() ? fmt::format("{} {}", v.type_name(), v.dump())
                                                : fmt::format("an {}", v.type_name());
    return fmt::format("{:.48}{}, not {}", text, text.size() > 48 ? " …" : "", expectation(t));
  }
  const double d = v.get<double>();
  if (!store_number(d, t, dst)) {
    return fmt::format("{}, not {}", v.dump(), expectation(t));
  }
  const bool is_float = t == DType::F32 || t == DType::F16 || t == DType::BF16;
  if (is_float && (!std::isfinite(d) || overflowed(t, dst))) {
    return fmt::format("{}, beyond {}'s range", d, dtype_name(t));
  }
  return {};
}

// The leaves of `v` in row-major order, appended to `store` (its shape was checked); `index` is
// where `v` is in the field.
void store_leaves(const Json& v, const Field& f, std::vector<uint8_t>& store, std::vector<size_t>& index,
                  const Where& w) {
  if (v.is_array()) {
    index.push_back(0);
    for (const Json& item : v) {
      store_leaves(item, f, store, index, w);
      ++index.back();
    }
    index.pop_back();
    return;
  }
  const size_t at = store.size();
  store.resize(at + dtype_size(f.dtype));
  const std::string wrong = store_leaf(v, f.dtype, store.data() + at);
  if (!wrong.empty()) {
    const std::string input = fmt::format("the model's input `{}` is {}", f.name, dtype_name(f.dtype));
    w.fail(fmt::format("`{}` is {}", element(f, index), wrong),
           f.dtype == DType::I32 && v.is_number() ? input +
                                                        "; write whole numbers, or declare it f32 and cast it in "
                                                        "the model"
                                                  : input);
  }
}

// One line's object: each field checked against its input and stored.
void store_sample(const Json& obj, const std::vector<Field>& fields,
                  std::vector<std::shared_ptr<std::vector<uint8_t>>>& stores, const Where& w) {
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    const auto it = obj.find(f.name);
    if (it == obj.end()) {
      std::vector<std::string> have;
      for (const auto& [key, value] : obj.items()) {
        have.push_back(key);
      }
      w.fail(fmt::format("the object has no field `{}` for the model's input `{}`", f.name, f.str()),
             have.empty()
                 ? std::string("every line needs a field per model input")
                 : fmt::format("its fields are {}; every line needs a field per model input", fmt::join(have, ", ")));
    }
    const size_t depth = depth_of(*it);
    const std::optional<Shape> got = depth > f.shape.size() ? std::nullopt : shape_of(*it, f.shape.size());
    if (got != f.shape) {
      const std::string is = got ? shape_str(*got)
                             : depth > f.shape.size()
                                 ? fmt::format("nested {} level{} deep", depth, depth == 1 ? "" : "s")
                                 : std::string("a ragged array (rows of different lengths)");
      w.fail(fmt::format("field `{}` is {} but the model's input `{}` takes {} per sample", f.name, is, f.str(),
                         shape_str(f.shape)),
             fmt::format("write `{}` as {} (nested arrays in row-major order)", f.name, described(f.shape)));
    }
    std::vector<size_t> index;
    store_leaves(*it, f, *stores[i], index, w);
  }
}

// Without a model: every field of the first object (by name), f32 (bool for true/false) of its own shape.
std::vector<Field> fields_of(const Json& obj, const Where& w) {
  std::vector<Field> out;
  for (const auto& [key, value] : obj.items()) {
    const std::optional<Shape> s = depth_of(value) > kMaxRank ? std::nullopt : shape_of(value, kMaxRank);
    if (!s) {
      w.fail(fmt::format("field `{}` is a ragged array (rows of different lengths) or nests deeper than {} levels", key,
                         kMaxRank),
             kLineHint);
    }
    const Json* leaf = &value;
    while (leaf->is_array() && !leaf->empty()) {
      leaf = &(*leaf)[0];
    }
    out.push_back(Field{key, leaf->is_boolean() ? DType::Bool : DType::F32, *s});
  }
  return out;
}

// One line parsed into an object; a syntax error is located at its column.
Json parse_line(std::string_view text, const Where& w) {
  Json v;
  std::set<std::string> keys;  // the object's, at depth 1: one given twice is ambiguous, not "the last"
  const Json::parser_callback_t twice = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key && !keys.insert(parsed.get<std::string>()).second) {
      w.fail(fmt::format("the field `{}` appears twice in the object", parsed.get<std::string>()),
             "give every field of a line its own name");
    }
    return true;
  };
  try {
    v = Json::parse(text.begin(), text.end(), twice);
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 6: syntax error …": the reason.
    const std::string what = e.what();
    const size_t column = what.find("column ");
    const size_t reason = column == std::string::npos ? column : what.find(": ", column);
    w.fail(fmt::format("not valid JSON: {}", reason == std::string::npos ? what : what.substr(reason + 2)), kLineHint,
           e.byte);
  } catch (const Json::exception& e) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e400'": a number beyond a double.
    const std::string what = e.what();
    w.fail(what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2),
           "a number must fit a double (magnitude below about 1.8e308)");
  }
  if (!v.is_object()) {
    w.fail(fmt::format("the line holds {} {}, not an object", v.is_array() ? "an" : "a", v.type_name()), kLineHint);
  }
  return v;
}

std::unique_ptr<Dataset> open_jsonl(const DataSourceRequest& r) {
  const std::string path = r.path("file");
  auto file = std::make_shared<MappedFile>(path);
  std::string_view text(reinterpret_cast<const char*>(file->data()), file->size());
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);  // a UTF-8 byte order mark
  }
  std::vector<Field> fields = r.wanted;
  std::vector<std::shared_ptr<std::vector<uint8_t>>> stores;
  int64_t samples = 0;
  int64_t line_no = 0;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      continue;
    }
    const Where w{path, line_no};
    const Json obj = parse_line(line, w);
    if (samples == 0) {
      fields = r.wanted.empty() ? fields_of(obj, w) : r.wanted;
      for (size_t f = 0; f < fields.size(); ++f) {
        stores.push_back(std::make_shared<std::vector<uint8_t>>());
      }
    }
    store_sample(obj, fields, stores, w);
    ++samples;
  }
  if (samples == 0) {
    throw Error(ErrorKind::Data, fmt::format("`{}` is empty: a JSON Lines source needs one object per line", path), {},
                kLineHint);
  }
  std::vector<ArrayColumn> columns;
  std::vector<std::shared_ptr<const void>> keep;
  for (size_t f = 0; f < fields.size(); ++f) {
    columns.push_back(ArrayColumn{fields[f], stored_of(fields[f].dtype), samples, stores[f]->data(), path});
    keep.push_back(stores[f]);
  }
  return make_array_dataset(std::move(columns), std::move(keep));
}

}  // namespace impl_jsonl

const DataSourceDef kJsonlSource{"jsonl", "FILE",
                                 "JSON Lines: one object per sample, a field NAME per input, nested arrays for tensors",
                                 "jsonl:data/train.jsonl", impl_jsonl::open_jsonl};

}  // namespace iputrain::data

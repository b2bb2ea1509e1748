// "csv:FILE": a header row, then one row per sample. An input NAME with one value per sample is the
// column NAME; an input of k values is the columns NAME.0 … NAME.(k-1), row-major. Parsed once at
// open into the inputs' dtypes (a text file has nothing to map), then read like arrays.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/data/array_dataset.hpp"
#include "core/data/source_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

struct Cell {
  std::string text;
  size_t col = 1;  // 1-based character column where the cell starts
};

// The cell in double quotes starting at line[i]: its text ("" is a quote) into `text`; returns
// the index of the comma (or the end) after it.
size_t quoted_cell(std::string_view line, size_t i, std::string& text) {
  ++i;
  while (i < line.size()) {
    if (line[i] == '"') {
      if (i + 1 < line.size() && line[i + 1] == '"') {
        text += '"';
        i += 2;
        continue;
      }
      ++i;
      break;
    }
    text += line[i++];
  }
  while (i < line.size() && line[i] != ',') {
    ++i;
  }
  return i;
}

// Splits one line at commas; a cell in double quotes may hold commas and "" for a quote.
std::vector<Cell> split_line(std::string_view line) {
  std::vector<Cell> cells;
  size_t i = 0;
  for (;;) {
    Cell c;
    c.col = i + 1;
    while (i < line.size() && line[i] == ' ') {
      ++i;
    }
    if (i < line.size() && line[i] == '"') {
      i = quoted_cell(line, i, c.text);
    } else {
      const size_t start = i;
      while (i < line.size() && line[i] != ',') {
        ++i;
      }
      c.text = std::string(line.substr(start, i - start));
      while (!c.text.empty() && (c.text.back() == ' ' || c.text.back() == '\t')) {
        c.text.pop_back();
      }
    }
    cells.push_back(std::move(c));
    if (i >= line.size()) {
      return cells;
    }
    ++i;  // the comma
  }
}

bool parse_cell(const std::string& text, DType to, void* dst) {
  if (to == DType::Bool && (text == "true" || text == "True" || text == "false" || text == "False")) {
    *static_cast<uint8_t*>(dst) = text[0] == 't' || text[0] == 'T' ? 1 : 0;
    return true;
  }
  double v = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') {
    ++begin;
  }
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return false;
  }
  return store_number(v, to, dst);
}

std::string expectation(DType t) {
  switch (t) {
    case DType::I32:
      return "a whole number in i32's range";
    case DType::Bool:
      return "0, 1, true or false";
    case DType::U8:
      return "a whole number from 0 to 255";
    default:
      return "a number";
  }
}

// The column names an input needs: NAME for one value per sample, else NAME.0 … NAME.(k-1).
std::vector<std::string> columns_for(const Field& f) {
  const int64_t k = numel(f.shape);
  if (f.shape.empty()) {
    return {f.name};
  }
  std::vector<std::string> names;
  for (int64_t i = 0; i < k; ++i) {
    names.push_back(fmt::format("{}.{}", f.name, i));
  }
  return names;
}

// Without a model, each column group NAME.i is an f32 vector and each other column an f32 scalar.
std::vector<Field> fields_of_header(const std::vector<Cell>& header) {
  std::vector<Field> out;
  std::map<std::string, int64_t> vectors;
  for (const Cell& c : header) {
    const size_t dot = c.text.rfind('.');
    const bool indexed = dot != std::string::npos && dot + 1 < c.text.size() &&
                         std::all_of(c.text.begin() + static_cast<long>(dot) + 1, c.text.end(),
                                     [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!indexed) {
      out.push_back(Field{c.text, DType::F32, {}});
      continue;
    }
    const std::string base = c.text.substr(0, dot);
    if (vectors.find(base) == vectors.end()) {
      out.push_back(Field{base, DType::F32, {0}});
    }
    ++vectors[base];
  }
  for (Field& f : out) {
    if (!f.shape.empty()) {
      f.shape = {vectors[f.name]};
    }
  }
  return out;
}

// Each header name's position; a name given twice is an error.
std::map<std::string, size_t> header_columns(const std::string& path, const std::vector<Cell>& header) {
  std::map<std::string, size_t> column_of;
  for (size_t i = 0; i < header.size(); ++i) {
    if (!column_of.emplace(header[i].text, i).second) {
      throw Error(
          ErrorKind::Data,
          fmt::format("`{}`:1:{}: the column `{}` appears twice in the header", path, header[i].col, header[i].text),
          {}, "give every column its own name");
    }
  }
  return column_of;
}

// The header positions of one input's values, or an error naming the missing columns.
std::vector<size_t> sources_of(const std::string& path, const Field& field,
                               const std::map<std::string, size_t>& column_of) {
  std::vector<size_t> sources;
  std::vector<std::string> names = columns_for(field);
  // A one-value input may also be written NAME.0.
  if (names.size() == 1 && field.shape.size() == 1 && column_of.count(names[0]) == 0 &&
      column_of.count(field.name) != 0) {
    names[0] = field.name;
  }
  std::vector<std::string> missing;
  for (const std::string& n : names) {
    const auto it = column_of.find(n);
    if (it == column_of.end()) {
      missing.push_back(n);
    } else {
      sources.push_back(it->second);
    }
  }
  if (!missing.empty()) {
    const size_t shown = std::min<size_t>(missing.size(), 8);
    throw Error(
        ErrorKind::Data,
        fmt::format("`{}` has no column{} {}{} for the model's input `{}`", path, missing.size() == 1 ? "" : "s",
                    fmt::join(missing.begin(), missing.begin() + static_cast<long>(shown), ", "),
                    missing.size() > shown ? fmt::format(" (and {} more)", missing.size() - shown) : "", field.str()),
        {},
        numel(field.shape) == 1 && field.shape.empty()
            ? fmt::format("an input of one value per sample is the column `{}`", field.name)
            : fmt::format("an input of {} values per sample is the columns {}.0 … {}.{} (row-major)",
                          numel(field.shape), field.name, field.name, numel(field.shape) - 1));
  }
  return sources;
}

// One row's cells parsed into the inputs' stores, at the dtypes the model declares.
void parse_row(const std::string& path, int64_t line_no, const std::vector<Cell>& cells,
               const std::vector<Cell>& header, const std::vector<Field>& fields,
               const std::vector<std::vector<size_t>>& sources,
               std::vector<std::shared_ptr<std::vector<uint8_t>>>& stores) {
  for (size_t f = 0; f < fields.size(); ++f) {
    const size_t elem = dtype_size(fields[f].dtype);
    std::vector<uint8_t>& store = *stores[f];
    const size_t at = store.size();
    store.resize(at + sources[f].size() * elem);
    for (size_t k = 0; k < sources[f].size(); ++k) {
      const Cell& c = cells[sources[f][k]];
      if (!parse_cell(c.text, fields[f].dtype, store.data() + at + k * elem)) {
        throw Error(ErrorKind::Data,
                    fmt::format("`{}`:{}:{}: the cell `{}` of column `{}` is not {}", path, line_no, c.col, c.text,
                                header[sources[f][k]].text, expectation(fields[f].dtype)),
                    {},
                    fields[f].dtype == DType::I32
                        ? fmt::format("the model's input `{}` is i32; write whole numbers, or declare it f32 "
                                      "and cast it in the model",
                                      fields[f].name)
                        : fmt::format("the model's input `{}` is {}", fields[f].name, dtype_name(fields[f].dtype)));
      }
    }
  }
}

}  // namespace

std::unique_ptr<Dataset> open_csv(const std::string& path, const std::vector<Field>& wanted) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Io, fmt::format("cannot open `{}`", path), {}, "check the path and permissions");
  }
  std::string line;
  int64_t line_no = 0;
  auto next_line = [&]() {
    while (std::getline(in, line)) {
      ++line_no;
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      if (line.find_first_not_of(" \t") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  if (!next_line()) {
    throw Error(ErrorKind::Data, fmt::format("`{}` is empty: a CSV source needs a header row", path), {},
                "the first line names the columns, e.g. \"x.0,x.1,label\"");
  }
  const std::vector<Cell> header = split_line(line);
  const std::vector<Field> fields = wanted.empty() ? fields_of_header(header) : wanted;
  const std::map<std::string, size_t> column_of = header_columns(path, header);
  // For each field, the header position of each of its values.
  std::vector<std::vector<size_t>> sources(fields.size());
  for (size_t f = 0; f < fields.size(); ++f) {
    sources[f] = sources_of(path, fields[f], column_of);
  }
  std::vector<std::shared_ptr<std::vector<uint8_t>>> stores;
  for (size_t f = 0; f < fields.size(); ++f) {
    stores.push_back(std::make_shared<std::vector<uint8_t>>());
  }
  int64_t samples = 0;
  while (next_line()) {
    const std::vector<Cell> cells = split_line(line);
    if (cells.size() != header.size()) {
      throw Error(ErrorKind::Data,
                  fmt::format("`{}`:{}: the row has {} cells but the header has {} columns", path, line_no,
                              cells.size(), header.size()),
                  {}, "every row needs one cell per column");
    }
    parse_row(path, line_no, cells, header, fields, sources, stores);
    ++samples;
  }
  if (samples == 0) {
    throw Error(ErrorKind::Data, fmt::format("`{}` has a header but no rows", path), {},
                "a CSV source needs one row per sample after the header");
  }
  std::vector<ArrayColumn> columns;
  std::vector<std::shared_ptr<const void>> keep;
  for (size_t f = 0; f < fields.size(); ++f) {
    ArrayColumn c;
    c.field = fields[f];
    c.stored = stored_of(fields[f].dtype);
    c.samples = samples;
    c.data = stores[f]->data();
    c.file = path;
    columns.push_back(std::move(c));
    keep.push_back(stores[f]);
  }
  return make_array_dataset(std::move(columns), std::move(keep));
}

const DataSourceDef kCsvSource{
    "csv", "FILE", "a header row, then a row per sample: column NAME or NAME.0 … NAME.k per input",
    "csv:data/train.csv", [](const DataSourceRequest& r) { return open_csv(r.path("file"), r.wanted); }};

}  // namespace iputrain::data

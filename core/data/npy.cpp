// "npy:DIR": one DIR/NAME.npy per model input, memory-mapped, so a file larger than memory is
// paged in as samples are read.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/data/array_dataset.hpp"
#include "core/data/mapped_file.hpp"
#include "core/data/npy_format.hpp"
#include "core/data/source_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

std::vector<std::string> npy_names(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".npy") {
      names.push_back(e.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::unique_ptr<Dataset> open_npy(const std::string& dir, const std::vector<Field>& wanted) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error(ErrorKind::Io, fmt::format("cannot find the directory `{}`", dir), {},
                "\"npy:DIR\" reads DIR/NAME.npy for each model input NAME");
  }
  const std::vector<std::string> present = npy_names(dir);
  std::vector<Field> fields = wanted;
  if (fields.empty()) {
    for (const std::string& n : present) {
      fields.push_back(Field{n, DType::F32, {}});
    }
  }
  std::vector<ArrayColumn> columns;
  std::vector<std::shared_ptr<const void>> keep;
  for (const Field& f : fields) {
    const std::string path = (std::filesystem::path(dir) / (f.name + ".npy")).string();
    if (!std::filesystem::is_regular_file(path, ec)) {
      throw Error(ErrorKind::Data, fmt::format("`{}` has no `{}.npy` for the model's input `{}`", dir, f.name, f.str()),
                  {},
                  present.empty() ? std::string("save one array per input: numpy.save(\"DIR/NAME.npy\", a)")
                                  : fmt::format("the directory holds {}.npy; name each file after a model input",
                                                fmt::join(present, ".npy, ")));
    }
    auto file = std::make_shared<MappedFile>(path);
    const NpyArray a = parse_npy(file->data(), file->size(), path);
    columns.push_back(array_column(path, f.name, a.stored, a.shape, a.data, wanted.empty() ? nullptr : &f));
    keep.push_back(file);
  }
  return make_array_dataset(std::move(columns), std::move(keep));
}

const DataSourceDef kNpySource{"npy", "DIR", "DIR/NAME.npy for each input NAME, memory-mapped", "npy:data/train",
                               [](const DataSourceRequest& r) { return open_npy(r.path("directory"), r.wanted); }};

}  // namespace iputrain::data

// "npz:FILE": a numpy.savez / savez_compressed archive with one member NAME.npy per model input.
// The archive is memory-mapped: stored members are read in place, deflated members are inflated
// once at open.
#include <fmt/format.h>

#include <algorithm>

#include "core/data/array_dataset.hpp"
#include "core/data/mapped_file.hpp"
#include "core/data/npy_format.hpp"
#include "core/data/source_table.hpp"
#include "core/data/zip_archive.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

std::unique_ptr<Dataset> open_npz(const std::string& path, const std::vector<Field>& wanted) {
  auto file = std::make_shared<MappedFile>(path);
  const std::vector<ZipMember> members = zip_members(file->data(), file->size(), path);
  std::vector<std::string> present;
  for (const ZipMember& m : members) {
    if (m.name.size() > 4 && m.name.ends_with(".npy")) {
      present.push_back(m.name.substr(0, m.name.size() - 4));
    }
  }
  std::sort(present.begin(), present.end());
  std::vector<Field> fields = wanted;
  if (fields.empty()) {
    for (const std::string& n : present) {
      fields.push_back(Field{n, DType::F32, {}});
    }
  }
  std::vector<ArrayColumn> columns;
  std::vector<std::shared_ptr<const void>> keep{file};
  for (const Field& f : fields) {
    const auto it =
        std::find_if(members.begin(), members.end(), [&](const ZipMember& m) { return m.name == f.name + ".npy"; });
    if (it == members.end()) {
      throw Error(ErrorKind::Data,
                  fmt::format("`{}` has no array `{}` for the model's input `{}`", path, f.name, f.str()), {},
                  present.empty() ? std::string("save one array per input: numpy.savez(FILE, NAME=a, …)")
                                  : fmt::format("the archive holds {}; name each array after a model input "
                                                "(numpy.savez(FILE, {}=a))",
                                                fmt::join(present, ", "), f.name));
    }
    auto owned = std::make_shared<std::vector<uint8_t>>();
    const uint8_t* bytes = zip_extract(file->data(), file->size(), *it, path, *owned);
    const std::string where = fmt::format("{}:{}", path, it->name);
    const NpyArray a = parse_npy(bytes, it->size, where);
    columns.push_back(array_column(where, f.name, a.stored, a.shape, a.data, wanted.empty() ? nullptr : &f));
    if (!owned->empty()) {
      keep.push_back(owned);
    }
  }
  return make_array_dataset(std::move(columns), std::move(keep));
}

const DataSourceDef kNpzSource{"npz", "FILE", "member NAME.npy of a numpy.savez archive for each input",
                               "npz:data/train.npz",
                               [](const DataSourceRequest& r) { return open_npz(r.path("file"), r.wanted); }};

}  // namespace iputrain::data

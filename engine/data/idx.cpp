// IDX files (the MNIST layout): a big-endian header (magic 0x0000 08 NDIMS, then NDIMS u32 sizes)
// followed by unsigned bytes. Read whole into memory; images stay uint8 and are converted on read to
// the input's dtype, values unchanged (0..255): scaling is the model's business.
#include <fmt/format.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>

#include "engine/data/convert.hpp"
#include "engine/data/dataset.hpp"
#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

const char* kIdxHint =
    "\"idx:PREFIX\" reads PREFIX-images-idx3-ubyte[.gz] and PREFIX-labels-idx1-ubyte[.gz] (MNIST layout)";

std::string find_file(const std::string& prefix, const std::string& suffix) {
  const std::string plain = prefix + suffix;
  std::error_code ec;
  if (std::filesystem::is_regular_file(plain, ec)) {
    return plain;
  }
  if (std::filesystem::is_regular_file(plain + ".gz", ec)) {
    return plain + ".gz";
  }
  throw Error(ErrorKind::Io, fmt::format("cannot find IDX file `{}` (or `{}.gz`)", plain, plain), {},
              kIdxHint);
}

// gzread passes plain files through unchanged, so one reader serves both forms.
std::vector<uint8_t> read_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    throw Error(ErrorKind::Io, fmt::format("cannot open `{}`", path), {}, "check the file's permissions");
  }
  gzbuffer(f, 1 << 20);
  std::vector<uint8_t> out;
  const size_t chunk = 1 << 22;
  for (;;) {
    const size_t old = out.size();
    out.resize(old + chunk);
    const int n = gzread(f, out.data() + old, static_cast<unsigned>(chunk));
    if (n < 0) {
      int code = 0;
      std::string what = gzerror(f, &code);
      gzclose(f);
      throw Error(ErrorKind::Data, fmt::format("`{}` is not a valid gzip file: {}", path, what), {},
                  "the download may be incomplete; fetch the file again");
    }
    out.resize(old + static_cast<size_t>(n));
    if (static_cast<size_t>(n) < chunk) {
      break;
    }
  }
  int code = 0;
  std::string what = gzerror(f, &code);
  gzclose(f);
  // A gzip stream cut short reads as a short file plus Z_BUF_ERROR.
  if (code != Z_OK && code != Z_STREAM_END) {
    throw Error(ErrorKind::Data, fmt::format("`{}` is a damaged gzip file: {}", path, what), {},
                "the download may be incomplete; fetch the file again");
  }
  return out;
}

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

//! The payload of an IDX file of unsigned bytes with `ndims` dimensions; `dims` gets the sizes.
const uint8_t* parse_idx(const std::string& path, const std::vector<uint8_t>& bytes, uint32_t ndims,
                         std::vector<uint64_t>& dims) {
  const size_t header = 4 + 4 * size_t{ndims};
  if (bytes.size() < 4) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` is too short to be an IDX file ({} bytes)", path, bytes.size()), {},
                kIdxHint);
  }
  const uint32_t magic = be32(bytes.data());
  const uint32_t expected = 0x0800u | ndims;
  if (magic != expected) {
    std::string what =
        (magic >> 16) != 0 ? "this is not an IDX file"
        : ((magic >> 8) & 0xff) != 0x08
            ? fmt::format("element type 0x{:02x} is not unsigned bytes (0x08)", (magic >> 8) & 0xff)
            : fmt::format("it has {} dimensions, expected {}", magic & 0xff, ndims);
    throw Error(ErrorKind::Data,
                fmt::format("`{}` has bad IDX magic number 0x{:08x} (expected 0x{:08x}): {}", path, magic,
                            expected, what),
                {},
                ndims == 3 ? "the images file must be an idx3-ubyte file"
                           : "the labels file must be an idx1-ubyte file");
  }
  if (bytes.size() < header) {
    throw Error(ErrorKind::Data, fmt::format("`{}` is truncated inside its IDX header", path), {},
                "the file may be incomplete; fetch it again");
  }
  dims.clear();
  // Sizes come from the file and may be garbage; 3 x 32 bits cannot overflow 128.
  unsigned __int128 total = 1;
  const uint64_t payload = bytes.size() - header;
  for (uint32_t d = 0; d < ndims; ++d) {
    const uint64_t n = be32(bytes.data() + 4 + 4 * d);
    if (n == 0) {
      throw Error(ErrorKind::Data, fmt::format("`{}` has an empty dimension {} in its IDX header", path, d),
                  {}, "an IDX dataset needs at least one sample of at least one pixel");
    }
    dims.push_back(n);
    total *= n;
  }
  if (total != payload) {
    const std::string shape = fmt::format("{}", fmt::join(dims, " x "));
    const std::string promised =
        total <= UINT64_MAX ? std::to_string(static_cast<uint64_t>(total)) : std::string("more than 2^64");
    throw Error(
        ErrorKind::Data,
        total > payload
            ? fmt::format("`{}` is truncated: its header ({}) promises {} bytes of data but it holds {}",
                          path, shape, promised, payload)
            : fmt::format("`{}` has {} bytes more than the {} bytes of data its header ({}) promises", path,
                          payload - static_cast<uint64_t>(total), promised, shape),
        {}, "the file may be incomplete or damaged; fetch it again");
  }
  return bytes.data() + header;
}

class IdxDataset : public Dataset {
 public:
  IdxDataset(const std::string& prefix, DType image_dtype) {
    const std::string images_path = find_file(prefix, "-images-idx3-ubyte");
    const std::string labels_path = find_file(prefix, "-labels-idx1-ubyte");
    std::vector<uint64_t> idims, ldims;
    images_ = read_all(images_path);
    const uint8_t* img = parse_idx(images_path, images_, 3, idims);
    offset_ = static_cast<size_t>(img - images_.data());
    labels_ = read_all(labels_path);
    const uint8_t* lab = parse_idx(labels_path, labels_, 1, ldims);
    label_offset_ = static_cast<size_t>(lab - labels_.data());
    if (idims[0] != ldims[0]) {
      throw Error(ErrorKind::Data,
                  fmt::format("`{}` has {} images but `{}` has {} labels", images_path, idims[0], labels_path,
                              ldims[0]),
                  {}, "the two files must come from the same split (e.g. both train or both t10k)");
    }
    size_ = static_cast<int64_t>(idims[0]);
    pixels_ = static_cast<size_t>(idims[1] * idims[2]);
    fields_ = {Field{"image", image_dtype, {static_cast<int64_t>(idims[1]), static_cast<int64_t>(idims[2])}},
               Field{"label", DType::I32, {}}};
    check_conversion(StoredType::U8, image_dtype, images_path, "image");
  }

  int64_t size() const override { return size_; }
  const std::vector<Field>& fields() const override { return fields_; }

  void read(int64_t index, size_t field, void* dst) const override {
    if (index < 0 || index >= size_ || field >= fields_.size()) {
      throw Error(ErrorKind::Internal,
                  fmt::format("IDX read of sample {} field {} out of range", index, field));
    }
    if (field == 0) {
      const uint8_t* src = images_.data() + offset_ + static_cast<size_t>(index) * pixels_;
      convert_values(src, StoredType::U8, dst, fields_[0].dtype, pixels_, images_path_for_errors_);
      return;
    }
    const int32_t label = labels_[label_offset_ + static_cast<size_t>(index)];
    std::memcpy(dst, &label, sizeof label);
  }

 private:
  std::vector<uint8_t> images_;
  std::vector<uint8_t> labels_;
  size_t offset_ = 0;
  size_t label_offset_ = 0;
  size_t pixels_ = 0;
  int64_t size_ = 0;
  std::vector<Field> fields_;
  std::string images_path_for_errors_ = "IDX images";
};

}  // namespace

std::unique_ptr<Dataset> open_idx(const std::string& prefix, DType image_dtype) {
  return std::make_unique<IdxDataset>(prefix, image_dtype);
}

}  // namespace iputrain::data

// IDX files (the MNIST layout): a big-endian header (magic 0x0000 08 NDIMS, then NDIMS u32 sizes)
// followed by unsigned bytes. Read whole into memory (the header first, then exactly the data it
// promises); images stay uint8 and are converted on read to
// the input's dtype, values unchanged (0..255): scaling is the model's business.
#include <fmt/format.h>
#include <zlib.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "core/data/convert.hpp"
#include "core/data/dataset.hpp"
#include "core/data/source_table.hpp"
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
  throw Error(ErrorKind::Io, fmt::format("cannot find IDX file `{}` (or `{}.gz`)", plain, plain), {}, kIdxHint);
}

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// An open IDX file; gzread passes plain files through unchanged, so one reader serves both forms.
class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), f_(gzopen(path.c_str(), "rb")) {
    if (f_ == nullptr) {
      throw Error(ErrorKind::Io, fmt::format("cannot open `{}`", path), {}, "check the file's permissions");
    }
    gzbuffer(f_, 1 << 20);
  }
  ~GzFile() { gzclose(f_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  //! Reads up to `n` bytes to dst; returns how many (fewer only at the end of the data).
  size_t read(uint8_t* dst, size_t n) {
    size_t done = 0;
    while (done < n) {
      const unsigned want = static_cast<unsigned>(std::min<size_t>(n - done, size_t{1} << 30));
      const int got = gzread(f_, dst + done, want);
      if (got < 0) {
        int code = 0;
        throw Error(ErrorKind::Data, fmt::format("`{}` is not a valid gzip file: {}", path_, gzerror(f_, &code)), {},
                    "the download may be incomplete; fetch the file again");
      }
      done += static_cast<size_t>(got);
      if (static_cast<unsigned>(got) < want) {
        break;
      }
    }
    int code = 0;
    const std::string what = gzerror(f_, &code);
    // A gzip stream cut short reads as a short file plus Z_BUF_ERROR.
    if (code != Z_OK && code != Z_STREAM_END) {
      throw Error(ErrorKind::Data, fmt::format("`{}` is a damaged gzip file: {}", path_, what), {},
                  "the download may be incomplete; fetch the file again");
    }
    return done;
  }

 private:
  std::string path_;
  gzFile f_;
};

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / double(1ull << 30)); }

uint64_t machine_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : UINT64_MAX;
}

//! Reads an IDX file of unsigned bytes with `ndims` dimensions: the header first, then the data it
//! promises and one byte more, in chunks (so a gzip bomb is never inflated past that, a truncated
//! file never allocates what it lacks, and a header promising more than half this machine's memory
//! is refused before anything is allocated). Returns header + data;
//! `dims` gets the sizes.
std::vector<uint8_t> load_idx(const std::string& path, uint32_t ndims, std::vector<uint64_t>& dims) {
  GzFile file(path);
  const size_t header = 4 + 4 * size_t{ndims};
  std::vector<uint8_t> bytes(header);
  const size_t got = file.read(bytes.data(), 4);
  if (got < 4) {
    throw Error(ErrorKind::Data, fmt::format("`{}` is too short to be an IDX file ({} bytes)", path, got), {},
                kIdxHint);
  }
  const uint32_t magic = be32(bytes.data());
  const uint32_t expected = 0x0800u | ndims;
  if (magic != expected) {
    std::string what = (magic >> 16) != 0 ? "this is not an IDX file"
                       : ((magic >> 8) & 0xff) != 0x08
                           ? fmt::format("element type 0x{:02x} is not unsigned bytes (0x08)", (magic >> 8) & 0xff)
                           : fmt::format("it has {} dimensions, expected {}", magic & 0xff, ndims);
    throw Error(
        ErrorKind::Data,
        fmt::format("`{}` has bad IDX magic number 0x{:08x} (expected 0x{:08x}): {}", path, magic, expected, what), {},
        ndims == 3 ? "the images file must be an idx3-ubyte file" : "the labels file must be an idx1-ubyte file");
  }
  if (file.read(bytes.data() + 4, header - 4) < header - 4) {
    throw Error(ErrorKind::Data, fmt::format("`{}` is truncated inside its IDX header", path), {},
                "the file may be incomplete; fetch it again");
  }
  dims.clear();
  // Sizes come from the file and may be garbage; 3 x 32 bits cannot overflow 128.
  unsigned __int128 total = 1;
  for (uint32_t d = 0; d < ndims; ++d) {
    const uint64_t n = be32(bytes.data() + 4 + 4 * d);
    if (n == 0) {
      throw Error(ErrorKind::Data, fmt::format("`{}` has an empty dimension {} in its IDX header", path, d), {},
                  "an IDX dataset needs at least one sample of at least one pixel");
    }
    dims.push_back(n);
    total *= n;
  }
  const std::string shape = fmt::format("{}", fmt::join(dims, " x "));
  const uint64_t memory = machine_memory();
  if (total > memory / 2) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}`: its header ({}) promises {} of data, more than half of this machine's {} "
                            "of memory",
                            path, shape, gib(static_cast<double>(total)), gib(static_cast<double>(memory))),
                {}, "the header may be damaged; a data set this large is better stored as .npy (memory-mapped)");
  }
  const size_t payload = static_cast<size_t>(total);
  // Grown as data arrives, so a short (or damaged) file costs what it holds, not what it promises:
  // 1 MiB first, then steps of 64 MiB (a first step of 64 MiB zero-filled that much for any file
  // promising more, however short: two thirds of the idx fuzz target's time). A real data set
  // costs one more step than before: a 1 MiB copy.
  size_t data = 0;
  size_t chunk = size_t{1} << 20;
  while (data < payload + 1) {
    const size_t want = std::min(chunk, payload + 1 - data);
    bytes.resize(header + data + want);
    const size_t got = file.read(bytes.data() + header + data, want);
    data += got;
    if (got < want) {
      break;
    }
    chunk = size_t{64} << 20;
  }
  if (data < payload) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` is truncated: its header ({}) promises {} bytes of data but it holds {}", path, shape,
                            payload, data),
                {}, "the file may be incomplete or damaged; fetch it again");
  }
  if (data > payload) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` holds more than the {} bytes of data its header ({}) promises", path, payload, shape),
                {}, "the file may be damaged, or another file was appended to it");
  }
  bytes.resize(header + payload);
  return bytes;
}

class IdxDataset : public Dataset {
 public:
  IdxDataset(const std::string& prefix, DType image_dtype) {
    const std::string images_path = find_file(prefix, "-images-idx3-ubyte");
    const std::string labels_path = find_file(prefix, "-labels-idx1-ubyte");
    std::vector<uint64_t> idims, ldims;
    images_ = load_idx(images_path, 3, idims);
    offset_ = 4 + 4 * 3;
    labels_ = load_idx(labels_path, 1, ldims);
    label_offset_ = 4 + 4 * 1;
    if (idims[0] != ldims[0]) {
      throw Error(
          ErrorKind::Data,
          fmt::format("`{}` has {} images but `{}` has {} labels", images_path, idims[0], labels_path, ldims[0]), {},
          "the two files must come from the same split (e.g. both train or both t10k)");
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
      throw Error(ErrorKind::Internal, fmt::format("IDX read of sample {} field {} out of range", index, field));
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

const DataSourceDef kIdxSource{
    "idx", "PREFIX", "an IDX image/label pair, the MNIST layout, plain or .gz", "idx:data/train",
    [](const DataSourceRequest& r) {
      if (r.rest.empty()) {
        throw Error(ErrorKind::Data, fmt::format("data source \"{}\" names no files", r.spec), {},
                    "write \"idx:DIR/train\" for DIR/train-images-idx3-ubyte[.gz] and "
                    "DIR/train-labels-idx1-ubyte[.gz]");
      }
      const auto image =
          std::find_if(r.wanted.begin(), r.wanted.end(), [](const Field& f) { return f.name == "image"; });
      return open_idx(r.resolved(r.rest), image != r.wanted.end() ? image->dtype : DType::F32);
    }};

}  // namespace iputrain::data

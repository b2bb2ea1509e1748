// iputrain — data sources: a dataset is a fixed number of samples, each a set of named fields.
//
// Sources are named by a spec string "KIND:WHERE" (config `data.train` / `data.test`; docs/data.md);
// the kinds are the rows of the data-source table (core/data_source_table.hpp), one file each,
// listed in core/data/source_list.hpp.
// Files map to the model's inputs by name; the first dimension of an array is the sample. A source
// delivers the values the file stores, converted to the input's dtype (core/data/convert.hpp),
// and nothing else: no source scales, normalises or shuffles. Pixels arrive as 0..255; a model
// that wants 0..1 divides by 255 itself, where the reader of the model sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace iputrain::data {

//! One field of every sample: a name, an element type and a per-sample shape (no batch dim).
struct Field {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;

  //! Bytes of one sample of this field.
  size_t bytes() const { return static_cast<size_t>(numel(shape)) * dtype_size(dtype); }
  //! "image: f32[28, 28]"
  std::string str() const;
};

//! A random-access, in-memory collection of samples.
class Dataset {
 public:
  virtual ~Dataset();
  //! Number of samples.
  virtual int64_t size() const = 0;
  virtual const std::vector<Field>& fields() const = 0;
  //! Copies sample `index` of field `field` to dst (Field::bytes() bytes); thread-safe for reads.
  virtual void read(int64_t index, size_t field, void* dst) const = 0;

  //! The names of the classes that integer labels index (an image folder's class folders, sorted);
  //! empty for sources without named classes.
  virtual std::vector<std::string> class_names() const;

  //! Index of the field called `name`, or -1.
  int64_t field_index(const std::string& name) const;
};

//! Opens the source named by `spec` (its kind looked up in the data-source table). Relative paths resolve
//! against `base_dir`. `wanted` are the model's inputs (name, dtype, per-sample shape): synthetic
//! sources generate exactly them, other sources are checked against them (see check_fields).
//! Throws Error(Data) or Error(Io) naming the file and what is wrong.
std::unique_ptr<Dataset> open_dataset(const std::string& spec, const std::string& base_dir,
                                      const std::vector<Field>& wanted, uint64_t seed);

//! Verifies that every wanted field exists in `ds` with the same dtype and shape. Throws
//! Error(Data) naming the field and both types; `spec` (if given) is quoted in the hint.
void check_fields(const Dataset& ds, const std::vector<Field>& wanted, const std::string& spec = {});

//! Reads an IDX image/label pair: PREFIX-images-idx3-ubyte[.gz] and PREFIX-labels-idx1-ubyte[.gz]
//! (the plain file is preferred when both exist). Fields: `image` [rows, cols] and `label` i32[]; the
//! image holds the stored bytes 0..255 as `image_dtype` (the model's input's dtype; f32 without one;
//! u8 converts to every dtype, see convert.hpp).
std::unique_ptr<Dataset> open_idx(const std::string& prefix, DType image_dtype = DType::F32);

//! "npy:DIR": DIR/NAME.npy for each wanted field (every .npy in DIR if `wanted` is empty).
std::unique_ptr<Dataset> open_npy(const std::string& dir, const std::vector<Field>& wanted);
//! "npz:FILE": member NAME.npy of the zip archive for each wanted field (stored or deflated).
std::unique_ptr<Dataset> open_npz(const std::string& path, const std::vector<Field>& wanted);
//! "csv:FILE": column NAME (one value per sample) or NAME.0 … NAME.(k-1) (k values, row-major) for
//! each wanted field, parsed at open; a bad cell is an Error(Data) at `FILE:LINE:COL`.
std::unique_ptr<Dataset> open_csv(const std::string& path, const std::vector<Field>& wanted);
//! "safetensors:FILE": tensor NAME (first dimension: samples) for each wanted field.
std::unique_ptr<Dataset> open_safetensors_data(const std::string& path, const std::vector<Field>& wanted);
//! "images:DIR[,OPTION]": the image is the wanted float or u8 field of shape [H, W] (grey) or
//! [H, W, C] (C = 1 grey, 3 RGB), the label the wanted i32 scalar (index of the sorted class
//! folder). Grey from RGB is the BT.601 luma 0.299 R + 0.587 G + 0.114 B; RGB from grey repeats the
//! value; alpha is dropped; pixel values stay 0..255 (a u8 image: the bytes, a blended value rounded
//! to nearest). `option` "resize=bilinear" or "resize=nearest" scales each image to H x W; without
//! it an image of another size is an Error(Data) at open.
std::unique_ptr<Dataset> open_images(const std::string& dir, const std::string& option,
                                     const std::vector<Field>& wanted);

//! Generates `wanted` (or `x` f32[16] and `label` i32[] if empty) from `seed`. `options` is the
//! text after "synthetic:": samples=N (1024), classes=C (10), dist=normal|uniform (normal).
//! Float fields are random, u8 fields random bytes 0..255; integer and bool fields are labels in
//! [0, C) (bool: [0, 2)) computed by a fixed random linear teacher from the float and u8 fields, so
//! a model can learn them.
std::unique_ptr<Dataset> open_synthetic(const std::string& options, const std::vector<Field>& wanted, uint64_t seed);

//! Id given to every byte outside printable ASCII (newline, tab, non-ASCII) by text sources.
inline constexpr int32_t kTextOtherId = 95;
//! The text vocabulary: printable ASCII 32..126 -> 0..94, any other byte -> kTextOtherId (95).
int32_t text_token_id(unsigned char byte);

//! Cuts the file at `path` into non-overlapping windows of `seq` ids (window k starts at byte
//! k*seq); fields `tokens` i32[seq] and `targets` i32[seq] (the same window shifted by one byte).
//! `seq` is the length of the model's `tokens` (or `targets`) input in `wanted`. Throws Error(Io)
//! if the file cannot be read and Error(Data) if it is shorter than one window or the model has
//! no such input.
std::unique_ptr<Dataset> open_text(const std::string& path, const std::vector<Field>& wanted);

}  // namespace iputrain::data

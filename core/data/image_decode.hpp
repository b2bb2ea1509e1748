// iputrain — decoding PNG (libpng) and JPEG (libjpeg-turbo) files to 8-bit pixels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iputrain::data {

//! Size and colour of an image file.
struct ImageInfo {
  int width = 0;
  int height = 0;
  int channels = 0;  //!< channels stored: 1 (grey, alpha dropped) or 3 (colour, alpha dropped)
};

//! Reads only the header of a PNG or JPEG file (told apart by their magic bytes). Throws
//! Error(Data) naming the file if it is neither or its header is damaged, Error(Io) if unreadable.
ImageInfo read_image_info(const std::string& path);

//! Decodes a PNG or JPEG file to row-major 8-bit pixels of `info.channels` channels (1 or 3): grey
//! stays grey, colour (RGB, palette, CMYK-free JPEG) becomes RGB; 16-bit PNG samples are reduced to
//! 8 bits and any alpha channel is dropped. Throws Error(Data) naming the file if it is damaged.
//! Thread-safe: each call has its own decoder.
std::vector<uint8_t> decode_image(const std::string& path, ImageInfo& info);

}  // namespace iputrain::data

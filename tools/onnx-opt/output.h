#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace onnxopt::cli {

// Writes `contents` to `path` atomically: into a temporary file in the same folder, renamed over
// `path` once complete. On failure `path` is untouched and no temporary file is left.
absl::Status writeFileAtomically(const std::string& path, absl::string_view contents);

// True if `path` exists and is neither a regular file nor a directory (a device such as
// /dev/null, a FIFO, a socket). Such outputs must be written in place: renaming a temporary file
// over them would replace the device node itself.
bool isSpecialFile(const std::string& path);

// Opens `path` for writing (without creating it) and writes `contents`; for special files.
absl::Status writeInPlace(const std::string& path, absl::string_view contents);

}  // namespace onnxopt::cli

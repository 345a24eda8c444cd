#include "external_data.h"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "onnxopt/ir/type.h"

namespace onnxopt::ir {
namespace {

absl::StatusOr<std::string> realPath(const std::string& path) {
  std::optional<std::string> resolved = realPathOf(path);
  if (!resolved) return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  return *std::move(resolved);
}

absl::Status invalid(const onnx::TensorProto& tensor, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("tensor '", tensor.name(), "': external data ", problem));
}

}  // namespace

const ExternalDataResolver::DataFile& ExternalDataResolver::dataFile(const std::string& location) {
  auto [it, inserted] = data_files_.try_emplace(location);
  DataFile& file = it->second;
  if (!inserted) return file;
  absl::StatusOr<std::string> path = realPath(absl::StrCat(base_dir_, "/", location));
  if (!path.ok()) {
    file.problem = absl::StrCat("file '", location, "' not found next to the model");
    return file;
  }
  const std::string& base = **real_base_dir_;
  if (path->compare(0, base.size() + 1, base + "/") != 0) {
    file.problem = absl::StrCat("location '", location,
                                "' resolves outside the model's folder (through a symlink)");
    return file;
  }
  struct stat info;
  if (stat(path->c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    file.problem = absl::StrCat("location '", location, "' is not a regular file");
    return file;
  }
  file.path = *std::move(path);
  file.size = info.st_size;
  return file;
}

absl::StatusOr<ExternalData> ExternalDataResolver::resolve(const onnx::TensorProto& tensor) {
  ExternalData external;
  for (const auto& entry : tensor.external_data()) {
    if (entry.key() == "location") {
      external.location = entry.value();
    } else if (entry.key() == "offset") {
      if (!absl::SimpleAtoi(entry.value(), &external.offset) || external.offset < 0) {
        return invalid(tensor, absl::StrCat("has an invalid offset '", entry.value(), "'"));
      }
    } else if (entry.key() == "length") {
      if (!absl::SimpleAtoi(entry.value(), &external.length) || external.length < 0) {
        return invalid(tensor, absl::StrCat("has an invalid length '", entry.value(), "'"));
      }
    }
  }
  if (external.location.empty()) return invalid(tensor, "has no location");
  if (external.location.front() == '/') {
    return invalid(tensor, absl::StrCat("location '", external.location,
                                        "' is absolute; it must be relative to the model"));
  }
  for (absl::string_view part : absl::StrSplit(external.location, absl::ByAnyChar("/\\"))) {
    if (part == "..") {
      return invalid(tensor, absl::StrCat("location '", external.location,
                                          "' leaves the model's folder ('..')"));
    }
  }
  if (base_dir_.empty()) {
    return invalid(tensor, "cannot be found: the model was not loaded from a file and no "
                           "external data folder was given");
  }
  if (!real_base_dir_) real_base_dir_ = realPath(base_dir_);
  if (!real_base_dir_->ok()) {
    return invalid(tensor, absl::StrCat("folder not found: ", real_base_dir_->status().message()));
  }
  const DataFile& file = dataFile(external.location);
  if (!file.problem.empty()) return invalid(tensor, file.problem);
  const int64_t file_size = file.size;
  if (external.offset > file_size) {
    return invalid(tensor, absl::StrCat("offset ", external.offset, " is past the end of '",
                                        external.location, "' (", file_size, " bytes)"));
  }
  if (external.length < 0) external.length = file_size - external.offset;
  if (external.length > file_size - external.offset) {
    return invalid(tensor, absl::StrCat("offset ", external.offset, " + length ", external.length,
                                        " runs past the end of '", external.location, "' (",
                                        file_size, " bytes)"));
  }
  const int64_t element_size = elemTypeSize(tensor.data_type());
  if (element_size > 0) {
    absl::StatusOr<int64_t> counted = tensorElementCount(tensor);
    if (!counted.ok()) return counted.status();
    const int64_t elements = *counted;
    if (elements > INT64_MAX / element_size || elements * element_size != external.length) {
      return invalid(tensor, absl::StrCat("holds ", external.length, " bytes but the dims and type need ",
                                          elements <= INT64_MAX / element_size
                                              ? absl::StrCat(elements * element_size)
                                              : std::string("more than int64 can count")));
    }
  }
  external.path = file.path;
  return external;
}

std::optional<std::string> realPathOf(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(realpath(path.c_str(), nullptr), &std::free);
  if (!resolved) return std::nullopt;
  return std::string(resolved.get());
}

absl::Status readFileRange(const std::string& path, int64_t offset, int64_t length,
                           std::string* out) {
  std::unique_ptr<FILE, decltype(&std::fclose)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  if (fseeko(file.get(), offset, SEEK_SET) != 0) {
    return absl::DataLossError(absl::StrCat(path, ": cannot seek to ", offset));
  }
  out->resize(static_cast<size_t>(length));
  if (length > 0 && std::fread(out->data(), 1, out->size(), file.get()) != out->size()) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot read ", length, " bytes at offset ", offset));
  }
  return absl::OkStatus();
}

}  // namespace onnxopt::ir

#pragma once

// What a fuzz target asserts: an invariant of onnx-opt that no input may break. A broken one
// prints what broke and aborts, which libFuzzer records as a crash with the input that caused it.

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"

namespace onnxopt::fuzz {

// External data never resolves while fuzzing: a model cannot make a target read the disk.
inline constexpr const char* kNoExternalDataDir = "/nonexistent-onnxopt-fuzz";

// The options every target loads with.
inline onnxopt::ir::LoadOptions loadOptions() {
  onnxopt::ir::LoadOptions options;
  options.external_data_dir = kNoExternalDataDir;
  return options;
}

// The model the bytes hold if they load and verify, else null: rejecting an input breaks nothing.
inline std::unique_ptr<onnxopt::ir::Model> loadVerified(const uint8_t* data, size_t size) {
  absl::StatusOr<std::unique_ptr<onnxopt::ir::Model>> model = onnxopt::ir::loadModelFromBytes(
      absl::string_view(reinterpret_cast<const char*>(data), size), loadOptions());
  if (!model.ok() || !onnxopt::ir::verify(**model).ok()) return nullptr;
  return *std::move(model);
}

[[noreturn]] inline void fail(absl::string_view invariant, absl::string_view detail) {
  std::fprintf(stderr, "onnx-opt fuzz invariant broken: %.*s: %.*s\n",
               static_cast<int>(invariant.size()), invariant.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void check(const absl::Status& status, absl::string_view invariant) {
  if (!status.ok()) fail(invariant, status.ToString());
}

template <typename T>
T checked(absl::StatusOr<T> value, absl::string_view invariant) {
  check(value.status(), invariant);
  return *std::move(value);
}

}  // namespace onnxopt::fuzz

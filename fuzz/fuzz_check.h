#pragma once

// What a fuzz target asserts: an invariant of onnx-opt that no input may break. A broken one
// prints what broke and aborts, which libFuzzer records as a crash with the input that caused it.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace onnxopt::fuzz {

// External data never resolves while fuzzing: a model cannot make a target read the disk.
inline constexpr const char* kNoExternalDataDir = "/nonexistent-onnxopt-fuzz";

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

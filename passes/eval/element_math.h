#pragma once

// Element-type helpers shared by the kernels that compute on elements: the type a kernel
// computes an element in (float for float16 and bfloat16, as ONNX Runtime's CPU kernels do),
// widening to it and rounding back once.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/tensor_util.h"
#include "kernel.h"

namespace onnxopt::eval {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool kIsFloating = kIsHalf<T> || std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type an element of T is computed in.
template <typename T>
using MathType = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
MathType<T> widen(T value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return halfToFloat(value.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return bfloat16ToFloat(value.bits);
  } else {
    return value;
  }
}

template <typename T>
T narrow(MathType<T> value) {
  if constexpr (std::is_same_v<T, Float16>) {
    return Float16{floatToHalf(value)};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{floatToBfloat16(value)};
  } else {
    return value;
  }
}

template <typename T>
double toDouble(T value) {
  return static_cast<double>(widen(value));
}

// A floating T from a double, through T's computing type (float for float16 and bfloat16).
template <typename T>
T floatResult(double value) {
  return narrow<T>(static_cast<MathType<T>>(value));
}

}  // namespace onnxopt::eval

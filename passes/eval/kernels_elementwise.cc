// Elementwise kernels: arithmetic, math functions, comparisons and logic. Binary operators
// broadcast numpy-style from opset 7; before it the `broadcast` attribute's form is computed
// only where it is exact (legacyOperandDims). Each element is computed the way ONNX Runtime's
// CPU kernels compute it; where that is not certain for some inputs, the kernel declines them.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/schema.h"
#include "element_math.h"
#include "kernel.h"

namespace onnxopt::eval {
namespace {

using onnx::TensorProto;

// The first reason an element could not be computed exactly; a kernel reports it after its loop.
class ElementError {
 public:
  // Inputs the operator rejects (integer division by zero).
  void reject(const char* why) {
    if (why_ != nullptr) return;
    why_ = why;
    invalid_ = true;
  }
  // Inputs whose result ONNX Runtime does not define or the kernel cannot reproduce.
  void decline(const char* why) {
    if (why_ == nullptr) why_ = why;
  }
  absl::Status status(const KernelContext& ctx) const {
    if (why_ == nullptr) return absl::OkStatus();
    return invalid_ ? ctx.invalid(why_) : ctx.unimplemented(why_);
  }

 private:
  const char* why_ = nullptr;
  bool invalid_ = false;
};

std::optional<std::vector<int32_t>> typesAfterLibonnx(absl::string_view op_type,
                                                      int64_t since_version,
                                                      absl::string_view param) {
  const std::vector<int32_t> floating = {TensorProto::FLOAT16, TensorProto::FLOAT,
                                         TensorProto::DOUBLE, TensorProto::BFLOAT16};
  if (op_type == "Round" && since_version == 22) return floating;
  // IsNaN-20 also takes the float8 types, which the evaluator does not compute on.
  if (op_type == "IsNaN" && since_version == 20) {
    return param == "T1" ? floating : std::vector<int32_t>{TensorProto::BOOL};
  }
  if (op_type == "Equal" && since_version == 19) {
    if (param != "T") return std::vector<int32_t>{TensorProto::BOOL};
    std::vector<int32_t> types = floating;
    for (const int32_t type :
         {TensorProto::INT8, TensorProto::INT16, TensorProto::INT32, TensorProto::INT64,
          TensorProto::UINT8, TensorProto::UINT16, TensorProto::UINT32, TensorProto::UINT64,
          TensorProto::BOOL, TensorProto::STRING}) {
      types.push_back(type);
    }
    return types;
  }
  return std::nullopt;
}

absl::Status checkType(const KernelContext& ctx, absl::string_view param, int32_t elem_type) {
  return checkElemType(ctx, param, elem_type, typesAfterLibonnx);
}

absl::Status checkSameType(const KernelContext& ctx, const EvalTensor& a, const EvalTensor& b) {
  if (a.elem_type == b.elem_type) return absl::OkStatus();
  return ctx.invalid(absl::StrCat("operands of different element types (",
                                  ir::elemTypeName(a.elem_type), ", ",
                                  ir::elemTypeName(b.elem_type), ")"));
}

// Two operands and the dims they broadcast with.
struct Operands {
  const EvalTensor* a;
  const EvalTensor* b;
  std::vector<int64_t> a_dims;
  std::vector<int64_t> b_dims;
};

// Before opset 7, binary operators broadcast by attribute: broadcast=0 requires equal shapes;
// broadcast=1 broadcasts B to A's shape with B's dims aligned to A's at `axis` (by default its
// trailing dims). The form is computed when B's dims equal that slice of A's dims, or B has one
// element; anything else declines.
absl::Status legacyOperandDims(const KernelContext& ctx, Operands& operands) {
  const ir::Node& node = ctx.node();
  const absl::StatusOr<int64_t> broadcast = getIntOr(node, "broadcast", 0);
  if (!broadcast.ok()) return broadcast.status();
  const std::vector<int64_t>& a_dims = operands.a->dims;
  const std::vector<int64_t>& b_dims = operands.b->dims;
  if (*broadcast == 0) {
    if (a_dims == b_dims) return absl::OkStatus();
    return ctx.invalid("operands of different shapes with broadcast=0");
  }
  if (*broadcast != 1) return ctx.invalid(absl::StrCat("broadcast=", *broadcast));
  if (operands.b->numElements() == 1) {
    operands.b_dims.clear();
    return absl::OkStatus();
  }
  const int64_t rank_a = static_cast<int64_t>(a_dims.size());
  const int64_t rank_b = static_cast<int64_t>(b_dims.size());
  const absl::StatusOr<std::optional<int64_t>> axis_attr = getInt(node, "axis");
  if (!axis_attr.ok()) return axis_attr.status();
  const int64_t axis = axis_attr->value_or(rank_a - rank_b);
  bool aligned = axis >= 0 && axis + rank_b <= rank_a;
  for (int64_t i = 0; aligned && i < rank_b; ++i) aligned = a_dims[axis + i] == b_dims[i];
  if (!aligned) {
    return ctx.unimplemented("broadcast=1 with B's dims not equal to A's at axis");
  }
  operands.b_dims.resize(rank_b + (rank_a - axis - rank_b), 1);
  return absl::OkStatus();
}

absl::StatusOr<Operands> binaryOperands(const KernelContext& ctx) {
  const absl::StatusOr<const EvalTensor*> a = ctx.requiredInput(0);
  if (!a.ok()) return a.status();
  const absl::StatusOr<const EvalTensor*> b = ctx.requiredInput(1);
  if (!b.ok()) return b.status();
  Operands operands{*a, *b, (*a)->dims, (*b)->dims};
  if (ctx.sinceVersion() < 7) {
    if (absl::Status status = legacyOperandDims(ctx, operands); !status.ok()) return status;
  }
  return operands;
}

// The operands of an operator whose two inputs are both of type parameter T.
absl::StatusOr<Operands> sameTypeOperands(const KernelContext& ctx) {
  absl::StatusOr<Operands> in = binaryOperands(ctx);
  if (!in.ok()) return in.status();
  if (absl::Status status = checkSameType(ctx, *in->a, *in->b); !status.ok()) return status;
  if (absl::Status status = checkType(ctx, "T", in->a->elem_type); !status.ok()) return status;
  return in;
}

// Input 0 of a unary operator, of a type its version takes for `param`.
absl::StatusOr<const EvalTensor*> typedInput(const KernelContext& ctx, absl::string_view param) {
  const absl::StatusOr<const EvalTensor*> x = ctx.requiredInput(0);
  if (!x.ok()) return x.status();
  if (absl::Status status = checkType(ctx, param, (*x)->elem_type); !status.ok()) return status;
  return x;
}

// dispatchType for a computation that gives a tensor: f(T{}) returns the tensor computed in T.
template <uint32_t Types, typename F>
absl::StatusOr<EvalTensor> dispatchTensor(const KernelContext& ctx, int32_t elem_type, F&& f) {
  absl::StatusOr<EvalTensor> out = absl::UnknownError("unset");
  const absl::Status status = dispatchType<Types>(ctx, elem_type, [&](auto tag) {
    out = f(tag);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

// Applies f(a, b, error) to each pair of broadcast elements.
template <typename A, typename B, typename Out, typename F>
absl::StatusOr<EvalTensor> mapBinary(const KernelContext& ctx, const Operands& in, int32_t out_type,
                                     F&& f) {
  const absl::StatusOr<std::vector<int64_t>> out_dims = broadcastDims(ctx, {in.a_dims, in.b_dims});
  if (!out_dims.ok()) return out_dims.status();
  absl::StatusOr<EvalTensor> out = ctx.allocate(out_type, *out_dims);
  if (!out.ok()) return out.status();
  const int64_t count = out->numElements();
  const A* a = in.a->data<A>();
  const B* b = in.b->data<B>();
  Out* o = out->template mutableData<Out>();
  ElementError error;
  if (in.a_dims == *out_dims && in.b_dims == *out_dims) {
    for (int64_t i = 0; i < count; ++i) o[i] = f(a[i], b[i], error);
  } else {
    const std::vector<int64_t> a_index = broadcastIndex(in.a_dims, *out_dims);
    const std::vector<int64_t> b_index = broadcastIndex(in.b_dims, *out_dims);
    for (int64_t i = 0; i < count; ++i) o[i] = f(a[a_index[i]], b[b_index[i]], error);
  }
  if (absl::Status status = error.status(ctx); !status.ok()) return status;
  return out;
}

// Applies f(x, error) to each element.
template <typename In, typename Out, typename F>
absl::StatusOr<EvalTensor> mapUnary(const KernelContext& ctx, const EvalTensor& x, int32_t out_type,
                                    F&& f) {
  absl::StatusOr<EvalTensor> out = ctx.allocate(out_type, x.dims);
  if (!out.ok()) return out.status();
  const int64_t count = out->numElements();
  const In* in = x.data<In>();
  Out* o = out->template mutableData<Out>();
  ElementError error;
  for (int64_t i = 0; i < count; ++i) o[i] = f(in[i], error);
  if (absl::Status status = error.status(ctx); !status.ok()) return status;
  return out;
}

// ---- float16 and bfloat16 results of float math ----

// How far ONNX Runtime's float math may be from the exact result where the kernels fold, in
// float ulps: its approximations within 4 (outsideOrtsAccurateRange), ours within half an ulp.
constexpr int kOrtFloatErrorUlps = 5;

// Whether floats within `ulps` ulps of `value` round to different values of T (float16 or
// bfloat16): `value` lies that close to a point halfway between two of them.
template <typename T>
bool nearHalfwayPoint(float value, int ulps) {
  if (std::isnan(value)) return false;
  float low = value;
  float high = value;
  for (int i = 0; i < ulps; ++i) {
    low = std::nextafter(low, -std::numeric_limits<float>::infinity());
    high = std::nextafter(high, std::numeric_limits<float>::infinity());
  }
  return widen(narrow<T>(low)) != widen(narrow<T>(high));
}

// A float16 or bfloat16 result of float math, `exact` computed in double. ONNX Runtime computes
// it in float, a few ulps off, and rounds that to T: where that float could round either way
// (Erf(0x1612) in float16), the element declines. A result that is a float (0.8125^3 lies on a
// halfway point) is ORT's too: its pow is within an ulp, where no other float is, and the
// transcendental functions give a float only at 0, 0.5 and 1.
template <typename T>
T halfResult(double exact, ElementError& error) {
  const float value = static_cast<float>(exact);
  if (value != exact && nearHalfwayPoint<T>(value, kOrtFloatErrorUlps)) {
    error.decline(
        "a float16 or bfloat16 result so near a point halfway between two values of its type "
        "that ONNX Runtime's float error may round it either way");
  }
  return narrow<T>(value);
}

// ---- arithmetic ----

enum class Arith { kAdd, kSub, kMul, kDiv };

template <Arith kOp, typename T>
T arith(T x, T y, ElementError& error) {
  if constexpr (kIsFloating<T>) {
    const MathType<T> a = widen(x);
    const MathType<T> b = widen(y);
    switch (kOp) {
      case Arith::kAdd: return narrow<T>(a + b);
      case Arith::kSub: return narrow<T>(a - b);
      case Arith::kMul: return narrow<T>(a * b);
      case Arith::kDiv: return narrow<T>(a / b);
    }
  } else {
    // Integers wrap around (two's complement), as ONNX Runtime's compiled kernels do; the
    // arithmetic is done unsigned, where wrapping is defined.
    const uint64_t a = static_cast<uint64_t>(x);
    const uint64_t b = static_cast<uint64_t>(y);
    switch (kOp) {
      case Arith::kAdd: return static_cast<T>(a + b);
      case Arith::kSub: return static_cast<T>(a - b);
      case Arith::kMul: return static_cast<T>(a * b);
      case Arith::kDiv:
        if (y == 0) {
          error.reject("integer division by zero");
          return 0;
        }
        if constexpr (std::is_signed_v<T>) {
          if (x == std::numeric_limits<T>::min() && y == -1) {
            error.decline("integer division overflows (the minimum divided by -1)");
            return 0;
          }
        }
        return static_cast<T>(x / y);  // truncates toward zero, as C++ and ONNX Runtime do
    }
  }
  return T{};
}

template <Arith kOp>
Outputs arithmeticKernel(const KernelContext& ctx) {
  const absl::StatusOr<Operands> in = sameTypeOperands(ctx);
  if (!in.ok()) return in.status();
  const int32_t type = in->a->elem_type;
  return singleOutput(dispatchTensor<kNumeric>(ctx, type, [&](auto tag) {
    using T = decltype(tag);
    return mapBinary<T, T, T>(
        ctx, *in, type, [](T x, T y, ElementError& error) { return arith<kOp>(x, y, error); });
  }));
}

// ---- Mod ----

// Integer operands beyond 2^53 are declined for fmod=1: ONNX Runtime computes std::fmod in
// double there, which rounds them.
constexpr double kExactIntegerDouble = 9007199254740992.0;  // 2^53

template <typename T>
bool exactInDouble(T value) {
  constexpr int64_t kLimit = int64_t{1} << 53;
  if constexpr (std::is_signed_v<T>) return value >= -kLimit && value <= kLimit;
  return static_cast<uint64_t>(value) <= static_cast<uint64_t>(kLimit);
}

template <typename T>
T modElement(T x, T y, bool fmod, ElementError& error) {
  if constexpr (kIsFloating<T>) {
    return narrow<T>(std::fmod(widen(x), widen(y)));  // exact; fmod=0 was rejected before
  } else {
    if (y == 0) {
      error.reject("integer modulo by zero");
      return 0;
    }
    if constexpr (std::is_signed_v<T>) {
      if (y == -1) {
        if (x == std::numeric_limits<T>::min()) {
          error.decline("integer modulo overflows (the minimum modulo -1)");
        }
        return 0;
      }
    }
    if (fmod && (!exactInDouble(x) || !exactInDouble(y))) {
      error.decline("fmod=1 of an integer beyond 2^53 (ONNX Runtime computes it in double)");
      return 0;
    }
    T result = static_cast<T>(x % y);  // C's remainder: the sign of the dividend (fmod=1)
    if constexpr (std::is_signed_v<T>) {
      // fmod=0: the sign of the divisor, as Python's %.
      if (!fmod && ((result < 0 && y > 0) || (result > 0 && y < 0)))
        result = static_cast<T>(result + y);
    }
    return result;
  }
}

Outputs modKernel(const KernelContext& ctx) {
  const absl::StatusOr<Operands> in = sameTypeOperands(ctx);
  if (!in.ok()) return in.status();
  const int32_t type = in->a->elem_type;
  const absl::StatusOr<int64_t> fmod = getIntOr(ctx.node(), "fmod", 0);
  if (!fmod.ok()) return fmod.status();
  if (*fmod != 0 && *fmod != 1) return ctx.invalid(absl::StrCat("fmod=", *fmod));
  return singleOutput(
      dispatchTensor<kNumeric>(ctx, type, [&](auto tag) -> absl::StatusOr<EvalTensor> {
        using T = decltype(tag);
        if constexpr (kIsFloating<T>) {
          if (*fmod == 0)
            return ctx.invalid("fmod=0 on floating-point operands (the spec requires 1)");
        }
        const bool c_fmod = *fmod == 1;
        return mapBinary<T, T, T>(ctx, *in, type, [c_fmod](T x, T y, ElementError& error) {
          return modElement(x, y, c_fmod, error);
        });
      }));
}

// ---- Pow ----

template <typename T, typename E>
T powElement(T x, E y, ElementError& error) {
  // ONNX Runtime computes std::pow: in double for integer operands and for a float base with a
  // double or integer exponent, in float (powf) for float ** float; powf is within an ulp of the
  // result rounded from double.
  const double result = std::pow(toDouble(x), toDouble(y));
  if constexpr (kIsHalf<T>) {
    return halfResult<T>(result, error);
  } else if constexpr (kIsFloating<T>) {
    return floatResult<T>(result);
  } else {
    // An integer result is the double truncated; beyond 2^53 the double itself is rounded, and
    // beyond T's range the conversion is undefined: both decline.
    if (!(std::fabs(result) <= kExactIntegerDouble) ||
        result < static_cast<double>(std::numeric_limits<T>::min()) ||
        result > static_cast<double>(std::numeric_limits<T>::max())) {
      error.decline("an integer Pow whose result is not an integer of the base's type below 2^53");
      return 0;
    }
    return static_cast<T>(result);
  }
}

Outputs powKernel(const KernelContext& ctx) {
  const absl::StatusOr<Operands> in = binaryOperands(ctx);
  if (!in.ok()) return in.status();
  const int32_t base_type = in->a->elem_type;
  const int32_t exponent_type = in->b->elem_type;
  if (ctx.sinceVersion() < 12) {
    if (absl::Status status = checkSameType(ctx, *in->a, *in->b); !status.ok()) return status;
  }
  if (absl::Status status = checkType(ctx, "T", base_type); !status.ok()) return status;
  if (absl::Status status = checkType(ctx, ctx.sinceVersion() < 12 ? "T" : "T1", exponent_type);
      !status.ok()) {
    return status;
  }
  // Bases are integers or floating point (the spec's T has int32 and int64).
  return singleOutput(dispatchTensor<kFloating | kSignedInt>(ctx, base_type, [&](auto base_tag) {
    using T = decltype(base_tag);
    return dispatchTensor<kNumeric>(ctx, exponent_type, [&](auto exponent_tag) {
      using E = decltype(exponent_tag);
      return mapBinary<T, E, T>(ctx, *in, base_type, powElement<T, E>);
    });
  }));
}

// ---- Min, Max ----

template <bool kMax, typename T>
T minMaxElement(T x, T y, ElementError& error) {
  if constexpr (kIsFloating<T>) {
    const MathType<T> a = widen(x);
    const MathType<T> b = widen(y);
    // NaN propagates, as in ONNX Runtime.
    if (std::isnan(a)) return x;
    if (std::isnan(b)) return y;
    if (a == 0 && b == 0 && std::signbit(a) != std::signbit(b)) {
      // ONNX Runtime returns one or the other depending on which operand its broadcast loop
      // holds as a scalar.
      error.decline("Min/Max of zeros of both signs");
      return x;
    }
    if constexpr (kMax) return a < b ? y : x;
    return b < a ? y : x;
  } else {
    if constexpr (kMax) return x < y ? y : x;
    return y < x ? y : x;
  }
}

template <bool kMax>
Outputs minMaxKernel(const KernelContext& ctx) {
  if (ctx.numInputs() == 0) return ctx.invalid("no inputs");
  std::vector<const EvalTensor*> inputs;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    const absl::StatusOr<const EvalTensor*> input = ctx.requiredInput(i);
    if (!input.ok()) return input.status();
    inputs.push_back(*input);
    const EvalTensor& first = *inputs.front();
    if (absl::Status status = checkSameType(ctx, first, **input); !status.ok()) return status;
    if (ctx.sinceVersion() < 8 && (*input)->dims != first.dims) {
      return ctx.invalid("inputs of different shapes (broadcasting came with opset 8)");
    }
  }
  const int32_t type = inputs.front()->elem_type;
  if (absl::Status status = checkType(ctx, "T", type); !status.ok()) return status;
  EvalTensor result = *inputs.front();
  const absl::Status status = dispatchType<kNumeric>(ctx, type, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    // Folded left to right, as ONNX Runtime does.
    for (size_t i = 1; i < inputs.size(); ++i) {
      absl::StatusOr<EvalTensor> next =
          mapBinary<T, T, T>(ctx, Operands{&result, inputs[i], result.dims, inputs[i]->dims}, type,
                             minMaxElement<kMax, T>);
      if (!next.ok()) return next.status();
      result = *std::move(next);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return singleOutput(std::move(result));
}

// ---- unary operators ----

enum class Unary {
  kNeg,
  kAbs,
  kSqrt,
  kReciprocal,
  kExp,
  kLog,
  kFloor,
  kCeil,
  kRound,
  kRelu,
  kSigmoid,
  kTanh,
  kErf,
  kSign,
};

// Transcendental functions: computed in double (long double for double elements) and rounded
// once, within an ulp of the exact result. ONNX Runtime's approximations are within 4 ulp of it
// except where outsideOrtsAccurateRange says.
template <Unary kOp>
long double transcendental(long double x) {
  switch (kOp) {
    case Unary::kExp: return std::exp(x);
    case Unary::kLog: return std::log(x);
    case Unary::kTanh: return std::tanh(x);
    case Unary::kErf: return std::erf(x);
    case Unary::kSigmoid: return 1.0L / (1.0L + std::exp(-x));
    default: return x;
  }
}

template <Unary kOp>
double transcendental(double x) {
  switch (kOp) {
    case Unary::kExp: return std::exp(x);
    case Unary::kLog: return std::log(x);
    case Unary::kTanh: return std::tanh(x);
    case Unary::kErf: return std::erf(x);
    case Unary::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
    default: return x;
  }
}

// Where ONNX Runtime's own approximations are more than 4 ulp from the exact result, measured
// on every 1021st float bit pattern and a dense sweep of [-30, 30] against ORT 1.30's CPU
// kernels (docs/evaluator.md has the figures): there the kernels decline.
template <Unary kOp, typename T>
const char* outsideOrtsAccurateRange(MathType<T> v) {
  if constexpr (kOp == Unary::kSigmoid) {
    // MLAS's logistic for float and ORT's 1 - 1/(1 + e^-|x|) for double cancel below -1.
    if (v < -1) return "Sigmoid below -1, where ONNX Runtime's result loses precision";
  } else if constexpr (kOp == Unary::kTanh && std::is_same_v<T, double>) {
    if (std::fabs(v) >= 2 && std::fabs(v) < 20) {
      return "a double Tanh of magnitude in [2, 20), where ONNX Runtime is up to 7 ulp off";
    }
  } else if constexpr (kOp == Unary::kTanh) {
    if (v != 0 && std::fabs(v) < std::numeric_limits<float>::min()) {
      return "Tanh of a subnormal float, where ONNX Runtime's MLAS tanh loses precision";
    }
  }
  return nullptr;
}

template <Unary kOp, typename T>
T floatingUnary(T x, ElementError& error) {
  const MathType<T> v = widen(x);
  if (const char* why = outsideOrtsAccurateRange<kOp, T>(v)) {
    error.decline(why);
    return x;
  }
  switch (kOp) {
    case Unary::kNeg: return narrow<T>(-v);
    case Unary::kAbs: return narrow<T>(std::fabs(v));
    case Unary::kSqrt: return narrow<T>(std::sqrt(v));
    case Unary::kReciprocal: return narrow<T>(MathType<T>{1} / v);
    case Unary::kFloor: return narrow<T>(std::floor(v));
    case Unary::kCeil: return narrow<T>(std::ceil(v));
    case Unary::kRound:
      return narrow<T>(std::nearbyint(v));  // ties to even
    // Relu keeps NaN and -0, as ONNX Runtime does.
    case Unary::kRelu: return v < 0 ? narrow<T>(0) : x;
    case Unary::kSign:
      // ORT's float and double Sign keep NaN, its float16 one gives 0; bfloat16 is not known.
      if (std::isnan(v)) {
        if constexpr (std::is_same_v<T, Float16>) return narrow<T>(0);
        if constexpr (std::is_same_v<T, BFloat16>) error.decline("Sign of a bfloat16 NaN");
        return x;
      }
      return narrow<T>(v > 0 ? 1 : v < 0 ? -1 : 0);
    default:
      if constexpr (std::is_same_v<T, double>) {
        return static_cast<double>(transcendental<kOp>(static_cast<long double>(v)));
      } else if constexpr (kIsHalf<T>) {
        return halfResult<T>(transcendental<kOp>(static_cast<double>(v)), error);
      } else {
        return floatResult<T>(transcendental<kOp>(static_cast<double>(v)));
      }
  }
}

template <Unary kOp, typename T>
T integerUnary(T x) {
  switch (kOp) {
    case Unary::kNeg: return static_cast<T>(0 - static_cast<uint64_t>(x));  // wraps, as ORT's
    case Unary::kAbs:
      if constexpr (std::is_signed_v<T>)
        return x < 0 ? static_cast<T>(0 - static_cast<uint64_t>(x)) : x;
      return x;
    case Unary::kRelu: return x < 0 ? T{0} : x;
    case Unary::kSign: return static_cast<T>((x > 0) - (x < 0));
    default: return x;
  }
}

constexpr bool takesIntegers(Unary op) {
  return op == Unary::kNeg || op == Unary::kAbs || op == Unary::kRelu || op == Unary::kSign;
}

template <Unary kOp>
Outputs unaryKernel(const KernelContext& ctx) {
  const absl::StatusOr<const EvalTensor*> x = typedInput(ctx, "T");
  if (!x.ok()) return x.status();
  const int32_t type = (*x)->elem_type;
  return singleOutput(
      dispatchTensor<kNumeric>(ctx, type, [&](auto tag) -> absl::StatusOr<EvalTensor> {
        using T = decltype(tag);
        if constexpr (kIsFloating<T>) {
          return mapUnary<T, T>(ctx, **x, type, [](T v, ElementError& error) {
            return floatingUnary<kOp>(v, error);
          });
        } else if constexpr (takesIntegers(kOp)) {
          return mapUnary<T, T>(ctx, **x, type,
                                [](T v, ElementError&) { return integerUnary<kOp>(v); });
        } else {
          // Erf-9 admits integers, but neither the spec nor ONNX Runtime says how they round.
          return ctx.unimplemented(
              absl::StrCat("no kernel for element type ", ir::elemTypeName(type)));
        }
      }));
}

Outputs isNaNKernel(const KernelContext& ctx) {
  const absl::StatusOr<const EvalTensor*> x = typedInput(ctx, "T1");
  if (!x.ok()) return x.status();
  return singleOutput(dispatchTensor<kFloating>(ctx, (*x)->elem_type, [&](auto tag) {
    using T = decltype(tag);
    return mapUnary<T, bool>(ctx, **x, TensorProto::BOOL,
                             [](T v, ElementError&) { return std::isnan(widen(v)); });
  }));
}

// ---- Clip ----

// The bounds of a Clip in the input's computing type; nullopt for an absent bound.
template <typename T>
struct ClipBounds {
  std::optional<MathType<T>> low;
  std::optional<MathType<T>> high;
};

template <typename T>
absl::StatusOr<ClipBounds<T>> clipBounds(const KernelContext& ctx) {
  ClipBounds<T> bounds;
  if (ctx.sinceVersion() < 11) {
    // Attributes, float; their defaults are float's extremes.
    const absl::StatusOr<float> low =
        getFloatOr(ctx.node(), "min", std::numeric_limits<float>::lowest());
    if (!low.ok()) return low.status();
    const absl::StatusOr<float> high =
        getFloatOr(ctx.node(), "max", std::numeric_limits<float>::max());
    if (!high.ok()) return high.status();
    // The spec gives min > max a meaning only from 11; ONNX Runtime refuses it before.
    if (*low > *high) return ctx.invalid(absl::StrCat("min ", *low, " is above max ", *high));
    bounds.low = static_cast<MathType<T>>(*low);
    bounds.high = static_cast<MathType<T>>(*high);
  } else {
    for (size_t i = 1; i <= 2; ++i) {
      const EvalTensor* bound = ctx.input(i);
      if (bound == nullptr) continue;
      if (bound->elem_type != ctx.input(0)->elem_type) {
        return ctx.invalid(absl::StrCat("input ", i, " is not of the input's element type"));
      }
      if (bound->numElements() != 1) {
        return ctx.invalid(absl::StrCat("input ", i, " is not a scalar"));
      }
      (i == 1 ? bounds.low : bounds.high) = widen(bound->data<T>()[0]);
    }
  }
  if constexpr (kIsFloating<T>) {
    if ((bounds.low && std::isnan(*bounds.low)) || (bounds.high && std::isnan(*bounds.high))) {
      return ctx.unimplemented("a NaN bound");
    }
  }
  return bounds;
}

Outputs clipKernel(const KernelContext& ctx) {
  const absl::StatusOr<const EvalTensor*> x = typedInput(ctx, "T");
  if (!x.ok()) return x.status();
  const int32_t type = (*x)->elem_type;
  return singleOutput(
      dispatchTensor<kNumeric>(ctx, type, [&](auto tag) -> absl::StatusOr<EvalTensor> {
        using T = decltype(tag);
        const absl::StatusOr<ClipBounds<T>> bounds = clipBounds<T>(ctx);
        if (!bounds.ok()) return bounds.status();
        const ClipBounds<T> b = *bounds;
        // max(x, low) then min(., high), as ONNX Runtime: NaN stays, -0 stays above a 0 bound, and
        // a low bound above the high one gives the high one (the spec's rule).
        return mapUnary<T, T>(ctx, **x, type, [b](T v, ElementError&) {
          T result = v;
          if (b.low && widen(result) < *b.low) result = narrow<T>(*b.low);
          if (b.high && *b.high < widen(result)) result = narrow<T>(*b.high);
          return result;
        });
      }));
}

// ---- comparisons and logic ----

enum class Compare { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual };

template <Compare kOp, typename V>
bool compare(const V& a, const V& b) {
  switch (kOp) {
    case Compare::kEqual: return a == b;
    case Compare::kLess: return a < b;
    case Compare::kGreater: return a > b;
    case Compare::kLessOrEqual: return a <= b;
    case Compare::kGreaterOrEqual: return a >= b;
  }
  return false;
}

absl::StatusOr<EvalTensor> equalStrings(const KernelContext& ctx, const Operands& in) {
  const absl::StatusOr<std::vector<int64_t>> out_dims = broadcastDims(ctx, {in.a_dims, in.b_dims});
  if (!out_dims.ok()) return out_dims.status();
  absl::StatusOr<EvalTensor> out = ctx.allocate(TensorProto::BOOL, *out_dims);
  if (!out.ok()) return out.status();
  const std::vector<int64_t> a_index = broadcastIndex(in.a_dims, *out_dims);
  const std::vector<int64_t> b_index = broadcastIndex(in.b_dims, *out_dims);
  bool* o = out->mutableData<bool>();
  for (size_t i = 0; i < a_index.size(); ++i) {
    o[i] = in.a->strings[a_index[i]] == in.b->strings[b_index[i]];
  }
  return out;
}

template <Compare kOp>
Outputs compareKernel(const KernelContext& ctx) {
  const absl::StatusOr<Operands> in = sameTypeOperands(ctx);
  if (!in.ok()) return in.status();
  const int32_t type = in->a->elem_type;
  return singleOutput(
      dispatchTensor<kAllTypes>(ctx, type, [&](auto tag) -> absl::StatusOr<EvalTensor> {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, std::string>) {
          if (kOp != Compare::kEqual) return ctx.invalid("strings are compared only by Equal");
          return equalStrings(ctx, *in);
        } else {
          return mapBinary<T, T, bool>(ctx, *in, TensorProto::BOOL, [](T x, T y, ElementError&) {
            return compare<kOp>(widen(x), widen(y));
          });
        }
      }));
}

enum class Logic { kAnd, kOr };

template <Logic kOp>
Outputs logicKernel(const KernelContext& ctx) {
  const absl::StatusOr<Operands> in = sameTypeOperands(ctx);
  if (!in.ok()) return in.status();
  return singleOutput(mapBinary<bool, bool, bool>(
      ctx, *in, TensorProto::BOOL,
      [](bool x, bool y, ElementError&) { return kOp == Logic::kAnd ? (x && y) : (x || y); }));
}

Outputs notKernel(const KernelContext& ctx) {
  const absl::StatusOr<const EvalTensor*> x = typedInput(ctx, "T");
  if (!x.ok()) return x.status();
  return singleOutput(
      mapUnary<bool, bool>(ctx, **x, TensorProto::BOOL, [](bool v, ElementError&) { return !v; }));
}

// Each entry spans the operator's versions from ONNX's docs/Changelog.md; the kernel tells the
// versions apart (types through checkType, forms through sinceVersion()).
constexpr KernelEntry kKernels[] = {
    {"Add", 1, 14, arithmeticKernel<Arith::kAdd>},
    {"Sub", 1, 14, arithmeticKernel<Arith::kSub>},
    {"Mul", 1, 14, arithmeticKernel<Arith::kMul>},
    {"Div", 1, 14, arithmeticKernel<Arith::kDiv>},
    {"Mod", 10, 13, modKernel},
    {"Pow", 1, 15, powKernel},
    {"Min", 1, 13, minMaxKernel<false>},
    {"Max", 1, 13, minMaxKernel<true>},
    {"Neg", 1, 13, unaryKernel<Unary::kNeg>},
    {"Abs", 1, 13, unaryKernel<Unary::kAbs>},
    {"Sqrt", 1, 13, unaryKernel<Unary::kSqrt>},
    {"Reciprocal", 1, 13, unaryKernel<Unary::kReciprocal>},
    {"Exp", 1, 13, unaryKernel<Unary::kExp>},
    {"Log", 1, 13, unaryKernel<Unary::kLog>},
    {"Floor", 1, 13, unaryKernel<Unary::kFloor>},
    {"Ceil", 1, 13, unaryKernel<Unary::kCeil>},
    {"Round", 11, 22, unaryKernel<Unary::kRound>},
    {"Relu", 1, 14, unaryKernel<Unary::kRelu>},
    {"Sigmoid", 1, 13, unaryKernel<Unary::kSigmoid>},
    {"Tanh", 1, 13, unaryKernel<Unary::kTanh>},
    {"Erf", 9, 13, unaryKernel<Unary::kErf>},
    {"Sign", 9, 13, unaryKernel<Unary::kSign>},
    {"IsNaN", 9, 20, isNaNKernel},
    {"Clip", 1, 13, clipKernel},
    {"Not", 1, 1, notKernel},
    {"And", 1, 7, logicKernel<Logic::kAnd>},
    {"Or", 1, 7, logicKernel<Logic::kOr>},
    {"Equal", 1, 19, compareKernel<Compare::kEqual>},
    {"Less", 1, 13, compareKernel<Compare::kLess>},
    {"Greater", 1, 13, compareKernel<Compare::kGreater>},
    {"LessOrEqual", 12, 16, compareKernel<Compare::kLessOrEqual>},
    {"GreaterOrEqual", 12, 16, compareKernel<Compare::kGreaterOrEqual>},
};

}  // namespace

absl::Span<const KernelEntry> elementwiseKernels() { return kKernels; }

}  // namespace onnxopt::eval

#pragma once

// Walking a row-major tensor by strides: the evaluator's data-movement kernels (Transpose,
// Slice, Expand, Tile, Where, ...) and tensor_util's transposeTensor read their sources this way.

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/types/span.h"

namespace onnxopt {

// The flat distance between neighbours along each axis of a row-major tensor of `dims`.
inline std::vector<int64_t> rowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

// Walks a tensor of `dims` in row-major order and gives, for each element, the offset it reads
// in a source tensor: `base` plus the coordinate along each axis times that axis' source stride.
// A coordinate wraps to 0 at the axis' period (Tile repeats the source that way).
class SourceWalker {
 public:
  static constexpr int64_t kNoWrap = std::numeric_limits<int64_t>::max();

  SourceWalker(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t base = 0,
               std::vector<int64_t> periods = {})
      : dims_(std::move(dims)),
        strides_(std::move(strides)),
        periods_(periods.empty() ? std::vector<int64_t>(dims_.size(), kNoWrap) : std::move(periods)),
        counter_(dims_.size(), 0),
        coord_(dims_.size(), 0),
        at_(base) {}

  int64_t next() {
    const int64_t current = at_;
    for (size_t axis = dims_.size(); axis-- > 0;) {
      if (++counter_[axis] < dims_[axis]) {
        if (++coord_[axis] == periods_[axis]) {
          at_ -= strides_[axis] * (periods_[axis] - 1);
          coord_[axis] = 0;
        } else {
          at_ += strides_[axis];
        }
        return current;
      }
      at_ -= strides_[axis] * coord_[axis];
      coord_[axis] = 0;
      counter_[axis] = 0;
    }
    return current;
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> periods_;
  std::vector<int64_t> counter_;
  std::vector<int64_t> coord_;
  int64_t at_;
};

}  // namespace onnxopt

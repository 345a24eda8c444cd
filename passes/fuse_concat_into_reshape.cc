// fuse-concat-into-reshape: Reshape(x, Concat(parts...)) reads a constant shape when every entry
// of the Concat is known exactly: an entry of a constant part, or a dim of some tensor read
// through Shape (whole, or its start/end range), Gather(Shape(t), i) or
// Unsqueeze(Gather(Shape(t), i)) that is known from the model's inputs (never from a
// declaration of an intermediate value), or, with allowzero = 0, a dim of x itself at the same
// position, which becomes 0 ("copy the input's dim"). One entry that is not known (a dim not
// known, or a one-element part computed at run time) becomes -1 when every other entry is a
// known size above 0: the Reshape then infers exactly the number the Concat computes. See
// docs/passes/fuse-concat-into-reshape.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

// One entry of the target shape: a number, dim `axis` (maybe negative) of `source`, or the one
// element of a part computed at run time.
struct Entry {
  const ir::Value* source = nullptr;
  int64_t value = 0;  // the number, or the axis
  bool computed = false;
};

// Whether `part` is known, from the model's inputs, to hold one element.
bool holdsOneElement(const ir::Value& part, PatternRewriter& rewriter) {
  const std::optional<ir::Shape>& dims = rewriter.shapes().inferredTypeOf(part).shape();
  return dims && dims->size() == 1 && (*dims)[0].isKnown() && (*dims)[0].value() == 1;
}

// The entries a Concat input gives, or nullopt when it is none of the forms above (reason in
// `why`). An error for a malformed node on the way.
absl::StatusOr<std::optional<std::vector<Entry>>> entriesOf(const ir::Value& part, PatternRewriter& rewriter,
                                                            std::string* why) {
  absl::StatusOr<std::optional<std::vector<int64_t>>> constant = readConstantInts(part);
  if (!constant.ok()) return constant.status();
  if (*constant) {
    std::vector<Entry> entries;
    for (int64_t v : **constant) entries.push_back({nullptr, v});
    return entries;
  }
  const ir::Value* value = &part;
  bool unsqueezed = false;
  if (const ir::Node* unsqueeze = producerOf(value, "Unsqueeze")) {
    // A scalar unsqueezed at axis 0 (or -1) is one entry: axes [0] or [-1], as an attribute
    // before opset 13, input 1 from 13.
    std::optional<std::vector<int64_t>> axes;
    if (rewriter.opsetVersion(*unsqueeze).value_or(0) < 13) {
      absl::StatusOr<std::optional<std::vector<int64_t>>> attribute = getInts(*unsqueeze, "axes");
      if (!attribute.ok()) return attribute.status();
      axes = *std::move(attribute);
    } else if (unsqueeze->numInputs() > 1 && unsqueeze->input(1) != nullptr) {
      absl::StatusOr<std::optional<std::vector<int64_t>>> operand = readConstantInts(*unsqueeze->input(1));
      if (!operand.ok()) return operand.status();
      axes = *std::move(operand);
    }
    if (!axes || axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1)) {
      *why = "an Unsqueeze whose axes are not [0]";
      return std::nullopt;
    }
    value = unsqueeze->input(0);
    unsqueezed = true;
    if (value == nullptr) {
      *why = "an Unsqueeze without data";
      return std::nullopt;
    }
    absl::StatusOr<std::optional<std::vector<int64_t>>> scalar = readConstantInts(*value);
    if (!scalar.ok()) return scalar.status();
    if (*scalar && (*scalar)->size() == 1) return std::vector<Entry>{{nullptr, (**scalar)[0]}};
  }
  if (const ir::Node* gather = producerOf(value, "Gather")) {
    absl::StatusOr<int64_t> axis = getIntOr(*gather, "axis", 0);
    if (!axis.ok()) return axis.status();
    const ir::Node* shape = producerOf(gather->input(0), "Shape");
    const ir::Value* indices_value = gather->numInputs() > 1 ? gather->input(1) : nullptr;
    if (*axis != 0 || shape == nullptr || shape->input(0) == nullptr || indices_value == nullptr ||
        shape->attr("start") != nullptr || shape->attr("end") != nullptr) {
      // Shape-15's start/end would shift the indices: only whole shapes are read through Gather.
      *why = "a Gather that is not of a whole Shape along axis 0";
      return std::nullopt;
    }
    absl::StatusOr<std::optional<ConstantView>> indices = readConstant(*indices_value);
    if (!indices.ok()) return indices.status();
    std::optional<std::vector<int64_t>> index_values;
    if (*indices) index_values = (*indices)->asInts();
    // A scalar index gives a scalar, which must be unsqueezed; a 1-D one gives a 1-D part.
    if (!index_values || (*indices)->rank() != (unsqueezed ? 0 : 1)) {
      *why = "a Gather whose indices are not a constant of the right rank";
      return std::nullopt;
    }
    std::vector<Entry> entries;
    for (int64_t i : *index_values) entries.push_back({shape->input(0), i});
    return entries;
  }
  const ir::Node* shape = unsqueezed ? nullptr : producerOf(value, "Shape");
  if (shape == nullptr || shape->input(0) == nullptr) {
    *why = "not a constant, a Shape, or a Gather of one";
    return std::nullopt;
  }
  const std::optional<ir::Shape>& dims = rewriter.shapes().inferredTypeOf(*shape->input(0)).shape();
  if (!dims) {
    *why = "a Shape of a tensor whose rank is not known";
    return std::nullopt;
  }
  const auto rank = static_cast<int64_t>(dims->size());
  int64_t start = 0, end = rank;
  if (rewriter.opsetVersion(*shape).value_or(0) >= 15) {
    absl::StatusOr<int64_t> start_attribute = getIntOr(*shape, "start", 0);
    if (!start_attribute.ok()) return start_attribute.status();
    absl::StatusOr<int64_t> end_attribute = getIntOr(*shape, "end", rank);
    if (!end_attribute.ok()) return end_attribute.status();
    auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    start = clamp(*start_attribute);
    end = std::max(start, clamp(*end_attribute));
  }
  std::vector<Entry> entries;
  for (int64_t i = start; i < end; ++i) entries.push_back({shape->input(0), i});
  return entries;
}

class FoldConcatShapeIntoReshape final : public RewritePattern {
 public:
  // Reshape 5, 13, 14 (allowzero), 19, 21, 23 read the shape from input 1: 0 copies the input's
  // dim at its position unless allowzero = 1, -1 is inferred. Reshape-1's shape is an attribute.
  FoldConcatShapeIntoReshape() : RewritePattern("fold-concat-shape-into-reshape", {"Reshape", 5}) {}

  LogicalResult matchAndRewrite(const ir::Node& reshape, PatternRewriter& rewriter) const override {
    const ir::Value* data = reshape.input(0);
    const ir::Node* concat = producerOf(reshape.numInputs() > 1 ? reshape.input(1) : nullptr, "Concat");
    if (data == nullptr || concat == nullptr) return failure();
    absl::StatusOr<int64_t> allow_zero = rewriter.opsetVersion(reshape).value_or(0) >= 14
                                             ? getIntOr(reshape, "allowzero", 0)
                                             : absl::StatusOr<int64_t>(0);
    if (!allow_zero.ok()) return rewriter.emitError(reshape, allow_zero.status());
    absl::StatusOr<int64_t> axis = getIntOr(*concat, "axis", 0);
    if (!axis.ok()) return rewriter.emitError(*concat, axis.status());
    if (*axis != 0 && *axis != -1) return rewriter.notifyMatchFailure(reshape, "the Concat is not along axis 0");

    std::vector<Entry> entries;
    for (size_t p = 0; p < concat->numInputs(); ++p) {
      const ir::Value* part = concat->input(p);
      if (part == nullptr) return rewriter.notifyMatchFailure(reshape, "the Concat has a missing input");
      std::string why;
      absl::StatusOr<std::optional<std::vector<Entry>>> part_entries = entriesOf(*part, rewriter, &why);
      if (!part_entries.ok()) return rewriter.emitError(reshape, part_entries.status());
      if (!*part_entries) {
        if (!holdsOneElement(*part, rewriter)) {
          return rewriter.notifyMatchFailure(reshape, [&] {
            return absl::StrCat("Concat input '", part->name(), "' is ", why,
                                ", and not known to hold one element");
          });
        }
        *part_entries = std::vector<Entry>{{part, 0, /*computed=*/true}};
      }
      entries.insert(entries.end(), (*part_entries)->begin(), (*part_entries)->end());
    }

    // The target, with -1 at each entry whose number is not known.
    std::vector<int64_t> target;
    std::optional<size_t> not_known;  // the first such entry
    for (size_t position = 0; position < entries.size(); ++position) {
      const Entry& entry = entries[position];
      if (entry.source == nullptr) {
        target.push_back(entry.value);
        continue;
      }
      if (!entry.computed) {
        const std::optional<ir::Shape>& dims = rewriter.shapes().inferredTypeOf(*entry.source).shape();
        const auto rank = dims ? static_cast<int64_t>(dims->size()) : int64_t{0};
        const int64_t axis_of_dim = entry.value < 0 && dims ? entry.value + rank : entry.value;
        if (dims && axis_of_dim >= 0 && axis_of_dim < rank && (*dims)[axis_of_dim].isKnown()) {
          target.push_back((*dims)[axis_of_dim].value());
          continue;
        }
        if (sameShapeByDefinition(entry.source, data) &&
            axis_of_dim == static_cast<int64_t>(position) && *allow_zero == 0) {
          target.push_back(0);
          continue;
        }
      }
      target.push_back(-1);
      if (!not_known) not_known = position;
    }
    // -1 infers the entry from the element count: exactly the Concat's number when it is the only
    // -1 and every other entry is a size above 0 (a 0 copy may be 0 at run time, and ONNX Runtime
    // refuses to infer a -1 next to a 0).
    const bool infers_exactly =
        std::count(target.begin(), target.end(), -1) == 1 &&
        std::all_of(target.begin(), target.end(), [](int64_t v) { return v > 0 || v == -1; });
    if (not_known && !infers_exactly) {
      const Entry& entry = entries[*not_known];
      return rewriter.notifyMatchFailure(reshape, [&] {
        const std::string what =
            entry.computed ? absl::StrCat("computed by '", entry.source->name(), "'")
                           : absl::StrCat("dim ", entry.value, " of '", entry.source->name(),
                                          "', not known",
                                          *allow_zero == 0 ? " nor the input's dim at that position" : "");
        return absl::StrCat("entry ", *not_known, " is ", what,
                            ", and a -1 there needs every other entry a known size above 0");
      });
    }
    if (failed(rewriter.match(reshape))) return failure();
    ir::Value* shape = rewriter.createInitializer(absl::StrCat(reshape.input(1)->name(), "_folded"),
                                                  makeInt64Tensor(target));
    rewriter.setInput(reshape, 1, shape);
    return success();
  }
};

class FuseConcatIntoReshape final : public PatternPass {
 public:
  FuseConcatIntoReshape() : PatternPass("fuse-concat-into-reshape") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldConcatShapeIntoReshape>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConcatIntoReshapePass() { return std::make_unique<FuseConcatIntoReshape>(); }

}  // namespace onnxopt

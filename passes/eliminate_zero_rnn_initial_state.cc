// eliminate-zero-rnn-initial-state: an RNN, GRU or LSTM whose initial_h (or LSTM's initial_c) is
// all +0.0 reads no initial state instead. Every version of the three specs (RNN 1 to 22, GRU 1
// to 22, LSTM 1 to 22) says an absent initial state is 0, and ONNX Runtime then starts from a
// state of zeros and computes exactly as with the given one. Exporters build that state as
// ConstantOfShape(0) of [num_directions, batch, hidden] from Shape(X) when the batch is dynamic
// (a stack of layers slices each layer's state out of one such tensor), or as a constant of
// zeros: the whole shape computation goes with it. -0.0 is not +0.0 (a product with it may flip
// a zero's sign), so such a state stays. The bias and LSTM's peepholes stay too: their absence
// skips an addition ONNX Runtime makes when they are given, and x + 0.0 is not x for x = -0.0.
// See docs/passes/eliminate-zero-rnn-initial-state.md.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

constexpr size_t kInitialH = 5;
constexpr size_t kInitialC = 6;  // LSTM only

bool allBitsZero(const onnx::TensorProto& tensor) {
  std::string scratch;
  const std::optional<absl::string_view> bytes = elementBytes(tensor, &scratch);
  return bytes && !bytes->empty() &&
         std::all_of(bytes->begin(), bytes->end(), [](char byte) { return byte == 0; });
}

// Exporters slice a multi-layer model's state out of one zeros tensor, or reshape it; a longer
// chain of data movement is not what they write.
constexpr int kMaxMovesFollowed = 8;

// Whether every element of `state` is +0.0: a constant of zero bits, or ConstantOfShape of a zero
// value (its default when the value attribute is absent: float 0), maybe through data movement.
// An error for a malformed ConstantOfShape.
absl::StatusOr<bool> holdsPositiveZeros(const ir::Value& state) {
  const ir::Value* source = &state;
  for (int moves = 0; moves < kMaxMovesFollowed; ++moves) {
    const ir::Node* producer = source->producer();
    if (producer == nullptr || !onlyMovesElements(*producer) || producer->input(0) == nullptr) break;
    source = producer->input(0);
  }
  if (const ir::Node* fill = producerOf(source, "ConstantOfShape")) {
    absl::StatusOr<const onnx::TensorProto*> value = getTensor(*fill, "value");
    if (!value.ok()) return value.status();
    return *value == nullptr || allBitsZero(**value);
  }
  absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*source);
  if (!constant.ok()) return constant.status();
  return *constant && allBitsZero((*constant)->proto());
}

class DropZeroInitialState final : public RewritePattern {
 public:
  DropZeroInitialState(const std::string& op_type, std::vector<size_t> state_inputs)
      : RewritePattern(absl::StrCat("drop-zero-initial-state-of-", op_type), {op_type, 1}),
        state_inputs_(std::move(state_inputs)) {}

  LogicalResult matchAndRewrite(const ir::Node& rnn, PatternRewriter& rewriter) const override {
    std::vector<size_t> zero_states;
    const ir::Value* kept = nullptr;  // the first state that is not all +0.0
    for (const size_t index : state_inputs_) {
      const ir::Value* state = rnn.input(index);
      if (state == nullptr) continue;
      absl::StatusOr<bool> zeros = holdsPositiveZeros(*state);
      if (!zeros.ok()) return rewriter.emitError(rnn, zeros.status());
      if (*zeros) {
        zero_states.push_back(index);
      } else if (kept == nullptr) {
        kept = state;
      }
    }
    if (zero_states.empty()) {
      if (kept == nullptr) return failure();
      return rewriter.notifyMatchFailure(rnn, [&] {
        return absl::StrCat("initial state '", kept->name(),
                            "' is not known to be all +0.0 (a constant or a ConstantOfShape)");
      });
    }
    if (failed(rewriter.match(rnn))) return failure();
    for (const size_t index : zero_states) rewriter.setInput(rnn, index, nullptr);
    return success();
  }

 private:
  std::vector<size_t> state_inputs_;
};

class EliminateZeroRnnInitialState final : public PatternPass {
 public:
  EliminateZeroRnnInitialState() : PatternPass("eliminate-zero-rnn-initial-state") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<DropZeroInitialState>("RNN", std::vector<size_t>{kInitialH});
    patterns.add<DropZeroInitialState>("GRU", std::vector<size_t>{kInitialH});
    patterns.add<DropZeroInitialState>("LSTM", std::vector<size_t>{kInitialH, kInitialC});
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateZeroRnnInitialStatePass() {
  return std::make_unique<EliminateZeroRnnInitialState>();
}

}  // namespace onnxopt

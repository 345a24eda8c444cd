#pragma once

// A rewrite pattern: a local transformation rooted at one node, applied by GreedyRewriteDriver.
//
// Contract (as in MLIR): matchAndRewrite changes the IR if and only if it returns success. Do
// every check first, declare the match with PatternRewriter::match() (which applies the
// framework's guards), then rewrite through the PatternRewriter only. The driver checks the
// contract (a change made other than through the rewriter is an error naming the pattern), gates
// on the declared root and opset range, and erases whatever the rewrite left dead.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/rewrite/schema.h"  // kNewestKnownOpset

namespace onnxopt {

class PatternRewriter;


class [[nodiscard]] LogicalResult {
 public:
  static LogicalResult success() { return LogicalResult(true); }
  static LogicalResult failure() { return LogicalResult(false); }
  bool succeeded() const { return succeeded_; }
  bool failed() const { return !succeeded_; }

 private:
  explicit LogicalResult(bool succeeded) : succeeded_(succeeded) {}
  bool succeeded_;
};

inline LogicalResult success() { return LogicalResult::success(); }
inline LogicalResult failure() { return LogicalResult::failure(); }
inline bool succeeded(LogicalResult result) { return result.succeeded(); }
inline bool failed(LogicalResult result) { return result.failed(); }

// Where a pattern applies, declared once so that the driver gates on it: nodes of `op_type` in
// `domain` ("" and "ai.onnx" are the default domain) in a model whose opset for that domain is
// in [min_opset, max_opset]. Read the operator's spec for every version in the range. Patterns
// of one root are tried in order of decreasing benefit.
struct PatternRoot {
  PatternRoot(std::string op_type, int64_t min_opset = 1, int64_t max_opset = kNewestKnownOpset,
              std::string domain = "", int benefit = 1)
      : op_type(std::move(op_type)),
        min_opset(min_opset),
        max_opset(max_opset),
        domain(std::move(domain)),
        benefit(benefit) {}

  std::string op_type;
  int64_t min_opset;
  int64_t max_opset;
  std::string domain;
  int benefit;
};

class ONNXOPT_API RewritePattern {
 public:
  // `name` shows in --debug output and errors.
  RewritePattern(std::string name, PatternRoot root);
  RewritePattern(const RewritePattern&) = delete;
  RewritePattern& operator=(const RewritePattern&) = delete;
  virtual ~RewritePattern();

  const std::string& name() const { return name_; }
  const PatternRoot& root() const { return root_; }
  // How many producers up from its root the pattern looks: 1 (the default) when it reads its
  // root's producers with their operands and attributes, n when it reads nodes n producers up
  // (fuse-gelu's final Mul reads the Mul four up, and that Mul's operands). A change that far up
  // offers the root again, in the driver's run and in later rounds; a pattern that looks further
  // than it declares misses rewrites (the tests' verify_fixed_point catches that).
  int matchDepth() const { return match_depth_; }

  // `root` is const: every change goes through `rewriter` (the driver checks it).
  virtual LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const = 0;

 protected:
  void setMatchDepth(int depth) { match_depth_ = depth; }

 private:
  std::string name_;
  PatternRoot root_;
  int match_depth_ = 1;
};

class RewritePatternSet {
 public:
  template <typename PatternT, typename... Args>
  RewritePatternSet& add(Args&&... args) {
    patterns_.push_back(std::make_unique<PatternT>(std::forward<Args>(args)...));
    return *this;
  }
  RewritePatternSet& add(std::unique_ptr<RewritePattern> pattern) {
    patterns_.push_back(std::move(pattern));
    return *this;
  }
  const std::vector<std::unique_ptr<RewritePattern>>& patterns() const { return patterns_; }

 private:
  std::vector<std::unique_ptr<RewritePattern>> patterns_;
};

}  // namespace onnxopt

#pragma once

// A pass: a named transformation of a whole model, with typed options that the pipeline text sets
// (`eliminate-dead-nodes{max-iterations=3}`).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/analysis.h"

namespace onnxopt {

class Pass;

// Counters one run of a pass keeps; --pass-statistics shows them.
struct ONNXOPT_API PassStatistics {
  int64_t nodes_visited = 0;    // nodes the pass looked at (a node revisited counts again)
  int64_t nodes_matched = 0;    // matches patterns declared, including those a guard blocked
  int64_t nodes_rewritten = 0;  // rewrites applied
  int64_t nodes_removed = 0;    // nodes erased, nodes of erased subgraphs included
  int64_t initializers_removed = 0;

  PassStatistics& operator+=(const PassStatistics& other);
};

// What a running pass may use besides the model.
class PassContext {
 public:
  // Receives one line (no trailing newline) per call.
  using DebugSink = std::function<void(absl::string_view line)>;

  PassStatistics& statistics() { return statistics_; }
  const PassStatistics& statistics() const { return statistics_; }

  // --debug: why patterns did not match, which rewrites were applied.
  bool debugEnabled() const { return static_cast<bool>(debug_sink_); }
  void debug(absl::string_view line) const {
    if (debug_sink_) debug_sink_(line);
  }
  void setDebugSink(DebugSink sink) { debug_sink_ = std::move(sink); }

  // Tests require every rewrite driver to reach a fixed point; otherwise not converging is a
  // warning, not an error.
  bool requireConvergence() const { return require_convergence_; }
  void setRequireConvergence(bool require) { require_convergence_ = require; }

  // Long loops (the rewrite driver's) call progress() every few thousand nodes so that a
  // progress display can follow a pass over a big model; the sink reads statistics().
  void progress() const {
    if (progress_sink_) progress_sink_();
  }
  void setProgressSink(std::function<void()> sink) { progress_sink_ = std::move(sink); }

  // Shared by the passes of one pipeline run (set by the PassManager); null when a pass runs
  // on its own, and PatternPass then makes its own for the run.
  AnalysisManager* analyses() const { return analyses_; }
  ChangeJournal* journal() const { return journal_; }
  void setShared(AnalysisManager* analyses, ChangeJournal* journal) {
    analyses_ = analyses;
    journal_ = journal;
  }

  // Where a pass reached a fixed point: the journal mark then, and whether its patterns' answers
  // have depended on types (the ShapeOracle), which a change anywhere upstream of a node can
  // make more known.
  struct FixedPoint {
    ChangeJournal::Mark mark = 0;
    bool reads_types = false;
  };
  // Set by the PassManager when this pass reached a fixed point before in this pipeline: a
  // pattern pass then offers its patterns only the nodes touched since (and their readers as far
  // as its patterns look), if the journal can say which and they are few; otherwise, and when its
  // patterns have read types (a change upstream may make a node's types better known), every
  // node of its root operators (GreedyRewriteDriver::run).
  const std::optional<FixedPoint>& revisitFrom() const { return revisit_from_; }
  void setRevisitFrom(std::optional<FixedPoint> from) { revisit_from_ = from; }
  // Set by a pass that reached a fixed point.
  const std::optional<FixedPoint>& fixedPoint() const { return fixed_point_; }
  void setFixedPoint(FixedPoint fixed_point) { fixed_point_ = fixed_point; }
  // Set when a pattern asked the ShapeOracle in this run.
  bool typesRead() const { return types_read_; }
  void noteTypesRead() { types_read_ = true; }

  // Tests: after a rewrite driver converges, offer every node once more; a rewrite then is an
  // error (the driver missed what a rewrite made possible, and so would production).
  bool verifyFixedPoint() const { return verify_fixed_point_; }
  void setVerifyFixedPoint(bool verify) { verify_fixed_point_ = verify; }

  // Tests: in a later round, walk from the touched nodes however many they are, unless the
  // patterns read types (PassManagerOptions::revisit_touched_only).
  bool revisitTouchedOnly() const { return revisit_touched_only_; }
  void setRevisitTouchedOnly(bool only) { revisit_touched_only_ = only; }

  // Set when the model's nodes were not checked when it was loaded (onnx-opt --no-check): a
  // node may then violate its operator's schema, and is left as it is (the rewrite drivers
  // offer none that fails checkNode to a pattern, nor let a match absorb one).
  bool skipMalformedNodes() const { return skip_malformed_nodes_; }
  void setSkipMalformedNodes(bool skip) { skip_malformed_nodes_ = skip; }

  // Something the user should hear about that does not fail the pass.
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  PassStatistics statistics_;
  DebugSink debug_sink_;
  std::function<void()> progress_sink_;
  bool require_convergence_ = false;
  bool verify_fixed_point_ = false;
  bool revisit_touched_only_ = false;
  bool skip_malformed_nodes_ = false;
  AnalysisManager* analyses_ = nullptr;
  ChangeJournal* journal_ = nullptr;
  std::optional<FixedPoint> revisit_from_;
  std::optional<FixedPoint> fixed_point_;
  bool types_read_ = false;
  std::vector<std::string> warnings_;
};

// For a pass that edits the IR without a rewriter: every reader of `from` reads `to` instead,
// and the journal and the analyses learn which nodes changed, so a later round revisits them.
// Graph outputs move too: the caller checks from.isGraphOutput() first where names matter.
ONNXOPT_API void replaceAllUsesRecorded(ir::Value& from, ir::Value& to, PassContext& context);
// For a pass that edits the IR without a rewriter: erases `node` (whose outputs nothing reads)
// and records that its operands lost a reader, as a rewriter's erase does: their producers, and
// the readers of an operand left with few, may match now, so a later round revisits them.
ONNXOPT_API void eraseNodeRecorded(ir::Node& node, PassContext& context);

// One option of a pass, as the pipeline text and --list-passes see it.
class ONNXOPT_API PassOptionBase {
 public:
  PassOptionBase(const PassOptionBase&) = delete;
  PassOptionBase& operator=(const PassOptionBase&) = delete;
  virtual ~PassOptionBase() = default;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  // "bool", "int" or "string".
  virtual const char* typeName() const = 0;
  virtual std::string valueText() const = 0;
  virtual std::string defaultText() const = 0;
  // Sets the value from pipeline text; the error says what form is expected.
  virtual absl::Status parse(absl::string_view text) = 0;

 protected:
  // Registers the option with `owner`, which must outlive it (options are members of the pass).
  PassOptionBase(Pass& owner, std::string name, std::string description);
  void markSet();

 private:
  Pass& owner_;
  std::string name_;
  std::string description_;
};

namespace detail {
ONNXOPT_API absl::Status parseOptionValue(absl::string_view text, bool* value);
ONNXOPT_API absl::Status parseOptionValue(absl::string_view text, int64_t* value);
ONNXOPT_API absl::Status parseOptionValue(absl::string_view text, std::string* value);
ONNXOPT_API std::string optionValueText(bool value);
ONNXOPT_API std::string optionValueText(int64_t value);
ONNXOPT_API std::string optionValueText(const std::string& value);
ONNXOPT_API const char* optionTypeName(bool*);
ONNXOPT_API const char* optionTypeName(int64_t*);
ONNXOPT_API const char* optionTypeName(std::string*);
}  // namespace detail

// A typed option, declared as a member of the pass:
//   PassOption<int64_t> max_iterations_{*this, "max-iterations", 10, "iteration cap", atLeast(1)};
// T is bool, int64_t or std::string. `check` refuses values the pass cannot run with, when the
// pipeline text is parsed: a usage error, before any model is read.
template <typename T>
class PassOption final : public PassOptionBase {
 public:
  using Check = std::function<absl::Status(const T&)>;

  PassOption(Pass& owner, std::string name, T default_value, std::string description,
             Check check = nullptr)
      : PassOptionBase(owner, std::move(name), std::move(description)),
        default_value_(default_value),
        value_(std::move(default_value)),
        check_(std::move(check)) {}

  const T& value() const { return value_; }
  const T& operator*() const { return value_; }
  // Setting from C++ counts as set: the pass's pipeline text shows it.
  void setValue(T value) {
    value_ = std::move(value);
    markSet();
  }

  const char* typeName() const override { return detail::optionTypeName(static_cast<T*>(nullptr)); }
  std::string valueText() const override { return detail::optionValueText(value_); }
  std::string defaultText() const override { return detail::optionValueText(default_value_); }
  absl::Status parse(absl::string_view text) override {
    T parsed;
    if (absl::Status status = detail::parseOptionValue(text, &parsed); !status.ok()) return status;
    if (check_) {
      if (absl::Status status = check_(parsed); !status.ok()) return status;
    }
    setValue(std::move(parsed));
    return absl::OkStatus();
  }

 private:
  T default_value_;
  T value_;
  Check check_;
};

// A PassOption check: the value must be at least `minimum`.
ONNXOPT_API PassOption<int64_t>::Check atLeast(int64_t minimum);

class ONNXOPT_API Pass {
 public:
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;
  virtual ~Pass();

  // The name the registry and the pipeline text use: `eliminate-dead-nodes`.
  const std::string& name() const { return name_; }

  // Returns whether the model changed. On error the model is still valid and equivalent to the
  // input: every rewrite applied is complete. Errors name the node (name and op type).
  virtual absl::StatusOr<bool> run(ir::Model& model, PassContext& context) = 0;

  // Options in declaration order.
  const std::vector<PassOptionBase*>& options() const { return options_; }
  PassOptionBase* findOption(absl::string_view name) const;
  // Parses `value` into option `name`; the error lists the valid options.
  absl::Status setOption(absl::string_view name, absl::string_view value);

  // `name{option=value,...}` with the options set (from text or C++), in the order they were set;
  // parsing it gives the same pass.
  std::string pipelineText() const;

 protected:
  explicit Pass(std::string name);

 private:
  friend class PassOptionBase;

  std::string name_;
  std::vector<PassOptionBase*> options_;
  std::vector<const PassOptionBase*> set_options_;  // in the order they were first set
};

}  // namespace onnxopt

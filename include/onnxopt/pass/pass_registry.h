#pragma once

// The passes a pipeline can name. Built-in passes come from passes/passes.def (an X-macro, so no
// static registration object exists for a linker to drop); out-of-tree passes register at run
// time with registerPass().

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/pass/pass.h"

namespace onnxopt {

struct PassInfo {
  std::string name;     // as the pipeline text spells it; the created pass must report it too
  std::string summary;  // one line, for --list-passes
  std::function<std::unique_ptr<Pass>()> create;
};

// A pipeline with a name: -O0, -O1, -O2 are "O0", "O1", "O2".
struct NamedPipeline {
  std::string name;
  std::string pipeline;  // pipeline text
  std::string summary;
};

// A family of passes, for --list-passes: every pass whose name starts with one of `prefixes`.
// Grouping by name keeps a pass's family where its name already says it ("eliminate-",
// "fuse-"), so registering a pass needs no group of its own.
struct PassGroup {
  std::string name;                   // "elimination"
  std::string title;                  // one line, for --list-passes
  std::vector<std::string> prefixes;  // "eliminate-"
};

class ONNXOPT_API PassRegistry {
 public:
  // An empty registry; withBuiltinPasses() is the usual start.
  PassRegistry() = default;
  static PassRegistry withBuiltinPasses();
  // The process-wide registry that the CLI and the one-call API use: the built-in passes plus
  // whatever was registered. Registration is not thread-safe; register before running passes.
  static PassRegistry& global();

  // Fails if the name is taken or is not a valid pass name (lower-case letters, digits, '-').
  absl::Status registerPass(PassInfo info);
  const PassInfo* lookup(absl::string_view name) const;
  // Sorted by name.
  std::vector<const PassInfo*> passes() const;

  absl::StatusOr<std::unique_ptr<Pass>> createPass(absl::string_view name) const;

  // Parses `pass{option=value,...},pass,...` (spaces around separators allowed; "" is the empty
  // pipeline). Errors give the column, and list the valid passes or the pass's valid options.
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> parsePipeline(absl::string_view text) const;

  // The groups of passes/passes.def, in its order.
  const std::vector<PassGroup>& groups() const { return groups_; }
  // The group whose prefix the pass name starts with (the first, in groups() order); null for a
  // pass of no group (an out-of-tree pass under a prefix of its own).
  const PassGroup* groupOf(absl::string_view pass_name) const;

  const std::vector<NamedPipeline>& namedPipelines() const { return named_pipelines_; }
  // The pipeline text of "O0", "O1", "O2"; the error lists the known names.
  absl::StatusOr<std::string> namedPipeline(absl::string_view name) const;

 private:
  std::map<std::string, PassInfo, std::less<>> passes_;
  std::vector<NamedPipeline> named_pipelines_;
  std::vector<PassGroup> groups_;
};

}  // namespace onnxopt

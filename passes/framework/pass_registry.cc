#include "onnxopt/pass/pass_registry.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace onnxopt {

// The factories the built-in passes define, one per pass file. Only this file reads passes.def:
// editing it recompiles the registry alone.
#define ONNXOPT_PASS(name, factory, summary) std::unique_ptr<Pass> factory();
#include "../passes.def"

namespace {

bool isValidPassName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '-') return false;
  }
  return true;
}

// Reads pipeline text: `pass{key=value,...},pass,...`, where `-O1` (a named pipeline, as on the
// command line) stands for its passes.
class PipelineParser {
 public:
  PipelineParser(const PassRegistry& registry, absl::string_view text)
      : registry_(registry), text_(text) {}

  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> parse() {
    std::vector<std::unique_ptr<Pass>> passes;
    skipSpaces();
    if (atEnd()) return passes;
    while (true) {
      if (position_ < text_.size() && text_[position_] == '-') {
        if (absl::Status status = parseNamedPipeline(&passes); !status.ok()) return status;
      } else {
        absl::StatusOr<std::unique_ptr<Pass>> pass = parsePass();
        if (!pass.ok()) return pass.status();
        passes.push_back(*std::move(pass));
      }
      skipSpaces();
      if (atEnd()) return passes;
      if (!consume(',')) return error("expected ',' between passes");
      skipSpaces();
    }
  }

 private:
  absl::StatusOr<std::unique_ptr<Pass>> parsePass() {
    const size_t name_column = position_;
    const absl::string_view name = word();
    if (name.empty()) return error("expected a pass name");
    if (registry_.lookup(name) == nullptr) {
      std::vector<std::string> names;
      for (const PassInfo* info : registry_.passes()) names.push_back(info->name);
      return error(absl::StrCat("unknown pass '", name, "'; valid passes: ",
                                names.empty() ? "(none)" : absl::StrJoin(names, ", ")),
                   name_column);
    }
    absl::StatusOr<std::unique_ptr<Pass>> pass = registry_.createPass(name);
    if (!pass.ok()) return pass.status();
    skipSpaces();
    if (!consume('{')) return pass;
    while (true) {
      skipSpaces();
      const size_t option_column = position_;
      const absl::string_view key = word();
      if (key.empty()) return error("expected an option name");
      skipSpaces();
      if (!consume('=')) return error(absl::StrCat("expected '=' after option '", key, "'"));
      skipSpaces();
      const absl::string_view value = word();
      if (value.empty()) return error(absl::StrCat("expected a value for option '", key, "'"));
      if (absl::Status status = (*pass)->setOption(key, value); !status.ok()) {
        return error(status.message(), option_column);
      }
      skipSpaces();
      if (consume('}')) return pass;
      if (!consume(',')) return error("expected ',' or '}' after an option");
    }
  }

  absl::Status parseNamedPipeline(std::vector<std::unique_ptr<Pass>>* passes) {
    const size_t column = position_;
    ++position_;  // the '-'
    const absl::string_view name = word();
    absl::StatusOr<std::string> pipeline = registry_.namedPipeline(name);
    if (!pipeline.ok()) return error(pipeline.status().message(), column);
    // Named pipelines hold pass names only, so this cannot recurse.
    absl::StatusOr<std::vector<std::unique_ptr<Pass>>> named = registry_.parsePipeline(*pipeline);
    if (!named.ok()) return named.status();
    for (std::unique_ptr<Pass>& pass : *named) passes->push_back(std::move(pass));
    return absl::OkStatus();
  }

  // A run of characters that are not separators.
  absl::string_view word() {
    const size_t start = position_;
    while (!atEnd() && !absl::ascii_isspace(text_[position_]) &&
           absl::string_view(",{}=").find(text_[position_]) == absl::string_view::npos) {
      ++position_;
    }
    return text_.substr(start, position_ - start);
  }
  void skipSpaces() {
    while (!atEnd() && absl::ascii_isspace(text_[position_])) ++position_;
  }
  bool consume(char c) {
    if (atEnd() || text_[position_] != c) return false;
    ++position_;
    return true;
  }
  bool atEnd() const { return position_ >= text_.size(); }

  absl::Status error(absl::string_view message) { return error(message, position_); }
  absl::Status error(absl::string_view message, size_t column) {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline '", text_, "', column ", column + 1, ": ", message));
  }

  const PassRegistry& registry_;
  absl::string_view text_;
  size_t position_ = 0;
};

}  // namespace

PassRegistry PassRegistry::withBuiltinPasses() {
  PassRegistry registry;
#define ONNXOPT_PASS(name, factory, summary) \
  registry.passes_.emplace(name, PassInfo{name, summary, &factory});
#define ONNXOPT_PIPELINE(name, pipeline, summary) \
  registry.named_pipelines_.push_back(NamedPipeline{name, pipeline, summary});
#define ONNXOPT_PASS_GROUP(name, prefixes, title) \
  registry.groups_.push_back(                     \
      PassGroup{name, title, absl::StrSplit(prefixes, ',', absl::SkipEmpty())});
#include "../passes.def"
  return registry;
}

PassRegistry& PassRegistry::global() {
  static PassRegistry* registry = new PassRegistry(withBuiltinPasses());
  return *registry;
}

absl::Status PassRegistry::registerPass(PassInfo info) {
  if (!isValidPassName(info.name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("pass name '", info.name, "' must be lower-case letters, digits and '-'"));
  }
  if (!info.create) {
    return absl::InvalidArgumentError(absl::StrCat("pass '", info.name, "' has no factory"));
  }
  if (passes_.count(info.name) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("a pass named '", info.name, "' is already registered"));
  }
  std::string name = info.name;
  passes_.emplace(std::move(name), std::move(info));
  return absl::OkStatus();
}

const PassGroup* PassRegistry::groupOf(absl::string_view pass_name) const {
  for (const PassGroup& group : groups_) {
    for (const std::string& prefix : group.prefixes) {
      if (absl::StartsWith(pass_name, prefix)) return &group;
    }
  }
  return nullptr;
}

const PassInfo* PassRegistry::lookup(absl::string_view name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

std::vector<const PassInfo*> PassRegistry::passes() const {
  std::vector<const PassInfo*> infos;
  infos.reserve(passes_.size());
  for (const auto& entry : passes_) infos.push_back(&entry.second);
  return infos;
}

absl::StatusOr<std::unique_ptr<Pass>> PassRegistry::createPass(absl::string_view name) const {
  const PassInfo* info = lookup(name);
  if (info == nullptr) return absl::NotFoundError(absl::StrCat("no pass named '", name, "'"));
  std::unique_ptr<Pass> pass = info->create();
  // The pipeline text prints pass->name(): a mismatch would not parse back.
  if (pass == nullptr || pass->name() != info->name) {
    return absl::InternalError(
        absl::StrCat("the factory of pass '", name, "' returned ",
                     pass ? "a pass named '" + pass->name() + "'" : std::string("nothing")));
  }
  return pass;
}

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> PassRegistry::parsePipeline(
    absl::string_view text) const {
  return PipelineParser(*this, text).parse();
}

absl::StatusOr<std::string> PassRegistry::namedPipeline(absl::string_view name) const {
  for (const NamedPipeline& pipeline : named_pipelines_) {
    if (pipeline.name == name) return pipeline.pipeline;
  }
  return absl::NotFoundError(absl::StrCat(
      "no pipeline named '", name, "'; known: ",
      absl::StrJoin(named_pipelines_, ", ",
                    [](std::string* out, const NamedPipeline& p) { out->append(p.name); })));
}

}  // namespace onnxopt

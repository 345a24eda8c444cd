#include "onnxopt/pass/pass.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace onnxopt {

PassStatistics& PassStatistics::operator+=(const PassStatistics& other) {
  nodes_visited += other.nodes_visited;
  nodes_matched += other.nodes_matched;
  nodes_rewritten += other.nodes_rewritten;
  nodes_removed += other.nodes_removed;
  initializers_removed += other.initializers_removed;
  return *this;
}

PassOptionBase::PassOptionBase(Pass& owner, std::string name, std::string description)
    : owner_(owner), name_(std::move(name)), description_(std::move(description)) {
  owner_.options_.push_back(this);
}

void PassOptionBase::markSet() {
  auto& set = owner_.set_options_;
  if (std::find(set.begin(), set.end(), this) == set.end()) set.push_back(this);
}

namespace detail {

// Only the spellings that print back are accepted, so pipeline text round-trips exactly.
absl::Status parseOptionValue(absl::string_view text, bool* value) {
  if (text == "true" || text == "false") {
    *value = text == "true";
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("expected true or false, got '", text, "'"));
}

absl::Status parseOptionValue(absl::string_view text, int64_t* value) {
  if (absl::SimpleAtoi(text, value) && optionValueText(*value) == text) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("expected an integer, got '", text, "'"));
}

absl::Status parseOptionValue(absl::string_view text, std::string* value) {
  *value = std::string(text);
  return absl::OkStatus();
}

std::string optionValueText(bool value) { return value ? "true" : "false"; }
std::string optionValueText(int64_t value) { return absl::StrCat(value); }
std::string optionValueText(const std::string& value) { return value; }
const char* optionTypeName(bool*) { return "bool"; }
const char* optionTypeName(int64_t*) { return "int"; }
const char* optionTypeName(std::string*) { return "string"; }

}  // namespace detail

Pass::Pass(std::string name) : name_(std::move(name)) {}
Pass::~Pass() = default;

PassOptionBase* Pass::findOption(absl::string_view name) const {
  for (PassOptionBase* option : options_) {
    if (option->name() == name) return option;
  }
  return nullptr;
}

absl::Status Pass::setOption(absl::string_view name, absl::string_view value) {
  PassOptionBase* option = findOption(name);
  if (option == nullptr) {
    if (options_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", name_, "' has no option '", name, "': it takes no options"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "pass '", name_, "' has no option '", name, "'; valid options: ",
        absl::StrJoin(options_, ", ", [](std::string* out, const PassOptionBase* o) {
          absl::StrAppend(out, o->name(), " (", o->typeName(), ", default ", o->defaultText(), ")");
        })));
  }
  if (absl::Status status = option->parse(value); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("option '", name, "' of pass '", name_, "': ", status.message()));
  }
  return absl::OkStatus();
}

std::string Pass::pipelineText() const {
  if (set_options_.empty()) return name_;
  return absl::StrCat(name_, "{",
                      absl::StrJoin(set_options_, ",",
                                    [](std::string* out, const PassOptionBase* option) {
                                      absl::StrAppend(out, option->name(), "=",
                                                      option->valueText());
                                    }),
                      "}");
}

PassOption<int64_t>::Check atLeast(int64_t minimum) {
  return [minimum](const int64_t& value) {
    if (value >= minimum) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("must be at least ", minimum, ", got ", value));
  };
}

void replaceAllUsesRecorded(ir::Value& from, ir::Value& to, PassContext& context) {
  for (const ir::Use& use : from.uses()) {
    if (use.user() == nullptr) continue;
    if (context.journal() != nullptr) context.journal()->touch(use.user());
    if (context.analyses() != nullptr) context.analyses()->nodeChanged(*use.user());
  }
  from.replaceAllUsesWith(&to);
}

void eraseNodeRecorded(ir::Node& node, PassContext& context) {
  const absl::InlinedVector<ir::Value*, 4> operands(node.inputs().begin(), node.inputs().end());
  node.graph()->eraseNode(&node);
  ChangeJournal* journal = context.journal();
  if (journal == nullptr) return;
  for (const ir::Value* operand : operands) {
    if (operand == nullptr) continue;
    if (operand->producer() != nullptr) journal->touch(operand->producer());
    if (operand->uses().size() > kFewReadersToRevisit) continue;
    for (const ir::Use& use : operand->uses()) {
      if (use.user() != nullptr) journal->touch(use.user());
    }
  }
}

}  // namespace onnxopt

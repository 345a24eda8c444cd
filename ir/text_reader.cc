#include "onnxopt/ir/text_reader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "onnx/defs/parser.h"

// A recursive-descent reader of what printer.cc writes. It is onnx-opt's own, not
// onnx::OnnxParser, because the 1.12 parser reads neither the names every torch export has
// ("0.weight", "/0/Gemm_output_0") nor many literals the printer must write to be exact;
// docs/ir.md has the syntax. Every error says where, and the first one ends the read.

namespace onnxopt::ir {
namespace {

#define RETURN_IF_ERROR(expr)                                     \
  do {                                                            \
    if (absl::Status status_ = (expr); !status_.ok()) return status_; \
  } while (false)

// Guards the recursion of subgraphs and nested types against hostile text: deeper than any
// model the printer prints (it stops at its own nesting limit).
constexpr int kMaxNesting = 256;

bool isIdentifierStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool isIdentifierChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

bool isTypeKeyword(absl::string_view word) {
  return word == "seq" || word == "map" || word == "optional" || word == "sparse_tensor";
}

bool isElementTypeName(absl::string_view word) {
  return word == "undefined" || onnx::PrimitiveTypeNameMap::IsTypeName(std::string(word));
}

int32_t elementTypeOf(absl::string_view word) {
  return onnx::PrimitiveTypeNameMap::Lookup(std::string(word));
}

template <typename T>
void appendRaw(std::string* raw, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // little-endian hosts, as ONNX's raw_data
  raw->append(bytes, sizeof(T));
}

class TextReader {
 public:
  explicit TextReader(absl::string_view text) : text_(text) {}

  absl::Status readModel(onnx::ModelProto* model) {
    skipSpace();
    if (peek() == '<') RETURN_IF_ERROR(readModelHeader(model));
    RETURN_IF_ERROR(readGraph(model->mutable_graph(), /*nesting=*/0));
    skipSpace();
    while (!atEnd()) {
      RETURN_IF_ERROR(readFunction(model->add_functions()));
      skipSpace();
    }
    return absl::OkStatus();
  }

 private:
  // --- Characters, positions, errors -----------------------------------------------------

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  char peekAt(size_t offset) const {
    return pos_ + offset < text_.size() ? text_[pos_ + offset] : '\0';
  }

  // Whitespace and '#' comments up to the end of their line.
  void skipSpace() {
    while (!atEnd()) {
      const char c = text_[pos_];
      if (c == '#') {
        while (!atEnd() && text_[pos_] != '\n') ++pos_;
      } else if (absl::ascii_isspace(c)) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  absl::Status errorAt(size_t pos, absl::string_view message) const {
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < pos && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat("line ", line, ", column ", pos - line_start + 1, ": ", message));
  }

  // What stands at the current position, for "expected X, found Y".
  std::string found() const {
    if (atEnd()) return "the end of the text";
    if (isIdentifierStart(peek())) {
      size_t end = pos_;
      while (end < text_.size() && isIdentifierChar(text_[end])) ++end;
      return absl::StrCat("'", text_.substr(pos_, end - pos_), "'");
    }
    return absl::StrCat("'", absl::CHexEscape(text_.substr(pos_, 1)), "'");
  }

  absl::Status error(absl::string_view message) const { return errorAt(pos_, message); }

  absl::Status expected(absl::string_view what) const {
    return error(absl::StrCat("expected ", what, ", found ", found()));
  }

  // Skips space, then consumes `token` if it is next.
  bool accept(absl::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  absl::Status expect(absl::string_view token, absl::string_view context) {
    if (accept(token)) return absl::OkStatus();
    return expected(absl::StrCat("'", token, "' ", context));
  }

  // The identifier at the current position, without consuming it ("" if none).
  absl::string_view peekIdentifier() {
    skipSpace();
    size_t end = pos_;
    if (end < text_.size() && isIdentifierStart(text_[end])) {
      while (end < text_.size() && isIdentifierChar(text_[end])) ++end;
    }
    return text_.substr(pos_, end - pos_);
  }

  // The first non-space character after the identifier at the current position.
  char peekAfterIdentifier() {
    size_t at = pos_ + peekIdentifier().size();
    while (at < text_.size() && absl::ascii_isspace(text_[at])) ++at;
    return at < text_.size() ? text_[at] : '\0';
  }

  // --- Tokens ---------------------------------------------------------------------------

  // "..." with the escapes printer.cc writes (\\, \", \n, \t, \r, octal).
  absl::Status readString(std::string* out) {
    skipSpace();
    if (peek() != '"') return expected("a string literal");
    const size_t start = pos_;
    ++pos_;
    const size_t body = pos_;
    bool escaped = false;
    while (!atEnd() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') {
        escaped = true;
        ++pos_;
      }
      ++pos_;
    }
    if (atEnd()) return errorAt(start, "unterminated string literal");
    const absl::string_view raw = text_.substr(body, pos_ - body);
    ++pos_;
    if (!escaped) {
      out->assign(raw.data(), raw.size());
      return absl::OkStatus();
    }
    std::string unescape_error;
    if (!absl::CUnescape(raw, out, &unescape_error)) {
      return errorAt(start, absl::StrCat("bad escape in string literal: ", unescape_error));
    }
    return absl::OkStatus();
  }

  // An identifier or a quoted name.
  absl::Status readName(std::string* out, absl::string_view what) {
    skipSpace();
    if (peek() == '"') return readString(out);
    const absl::string_view identifier = peekIdentifier();
    if (identifier.empty()) return expected(what);
    pos_ += identifier.size();
    out->assign(identifier.data(), identifier.size());
    return absl::OkStatus();
  }

  bool atName() {
    skipSpace();
    return peek() == '"' || isIdentifierStart(peek());
  }

  // A number's characters: an optional sign, then digits, '.', exponent, or nan / inf (with a
  // NaN's bit pattern in parentheses).
  absl::string_view numberToken() {
    skipSpace();
    const size_t start = pos_;
    size_t end = pos_;
    if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
    if (end < text_.size() && isIdentifierStart(text_[end])) {
      while (end < text_.size() && isIdentifierChar(text_[end])) ++end;
      if (end < text_.size() && text_[end] == '(') {
        while (end < text_.size() && text_[end] != ')') ++end;
        if (end < text_.size()) ++end;
      }
    } else {
      while (end < text_.size()) {
        const char c = text_[end];
        if (absl::ascii_isdigit(c) || c == '.' || c == 'e' || c == 'E' ||
            ((c == '-' || c == '+') && (text_[end - 1] == 'e' || text_[end - 1] == 'E'))) {
          ++end;
        } else {
          break;
        }
      }
    }
    return text_.substr(start, end - start);
  }

  static bool looksFloating(absl::string_view token) {
    return token.find_first_of(".eEni") != absl::string_view::npos;
  }

  template <typename Integer>
  absl::Status readInteger(Integer* out, absl::string_view what) {
    const absl::string_view token = numberToken();
    if (token.empty()) return expected(what);
    Integer value{};
    const char* begin = token.data();
    if (!token.empty() && token[0] == '+') ++begin;
    const auto [end, ec] = std::from_chars(begin, token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size()) {
      return error(absl::StrCat("'", token, "' is not ", what));
    }
    pos_ += token.size();
    *out = value;
    return absl::OkStatus();
  }

  // Floats are read exactly as the printer wrote them: the shortest decimal that converts back
  // to the same bits, "nan" (the default quiet NaN), "-nan", "nan(0x<bits>)", "inf", "-inf".
  template <typename Floating>
  absl::Status readFloating(Floating* out, absl::string_view what) {
    using Bits = std::conditional_t<std::is_same_v<Floating, float>, uint32_t, uint64_t>;
    const absl::string_view token = numberToken();
    if (token.empty()) return expected(what);
    absl::string_view rest = token;
    const bool negative = !rest.empty() && rest[0] == '-';
    if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) rest.remove_prefix(1);
    Floating value{};
    bool ok = true;
    if (rest == "inf") {
      value = std::numeric_limits<Floating>::infinity();
    } else if (rest == "nan") {
      value = std::numeric_limits<Floating>::quiet_NaN();
    } else if (absl::StartsWith(rest, "nan(0x") && absl::EndsWith(rest, ")")) {
      Bits bits = 0;
      const absl::string_view hex = rest.substr(6, rest.size() - 7);
      const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
      ok = ec == std::errc() && end == hex.data() + hex.size() && !negative;
      std::memcpy(&value, &bits, sizeof value);
      ok = ok && value != value;
    } else if (!rest.empty() && absl::ascii_isdigit(rest[0])) {
      const auto [end, ec] =
          std::from_chars(token.data() + (token[0] == '+'), token.data() + token.size(), value);
      ok = ec == std::errc() && end == token.data() + token.size();
    } else {
      ok = false;
    }
    if (!ok) return error(absl::StrCat("'", token, "' is not ", what));
    if (negative && (rest == "inf" || rest == "nan")) value = -value;
    pos_ += token.size();
    *out = value;
    return absl::OkStatus();
  }

  // --- Model, graph, functions ------------------------------------------------------------

  absl::Status readOpsetImports(
      google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>* opsets) {
    RETURN_IF_ERROR(expect("[", "to open the opset_import list"));
    if (accept("]")) return absl::OkStatus();
    do {
      onnx::OperatorSetIdProto* opset = opsets->Add();
      RETURN_IF_ERROR(readString(opset->mutable_domain()));
      RETURN_IF_ERROR(expect(":", "after an opset domain"));
      int64_t version = 0;
      RETURN_IF_ERROR(readInteger(&version, "an opset version"));
      opset->set_version(version);
    } while (accept(","));
    return expect("]", "to close the opset_import list");
  }

  absl::Status readModelHeader(onnx::ModelProto* model) {
    RETURN_IF_ERROR(expect("<", "to open the model header"));
    if (accept(">")) return absl::OkStatus();
    do {
      skipSpace();
      const size_t key_pos = pos_;
      std::string key;
      RETURN_IF_ERROR(readName(&key, "a model header key"));
      RETURN_IF_ERROR(expect(":", absl::StrCat("after '", key, "'")));
      if (key == "ir_version") {
        int64_t value = 0;
        RETURN_IF_ERROR(readInteger(&value, "an IR version"));
        model->set_ir_version(value);
      } else if (key == "opset_import") {
        RETURN_IF_ERROR(readOpsetImports(model->mutable_opset_import()));
      } else if (key == "producer_name") {
        RETURN_IF_ERROR(readString(model->mutable_producer_name()));
      } else if (key == "producer_version") {
        RETURN_IF_ERROR(readString(model->mutable_producer_version()));
      } else if (key == "domain") {
        RETURN_IF_ERROR(readString(model->mutable_domain()));
      } else if (key == "model_version") {
        int64_t value = 0;
        RETURN_IF_ERROR(readInteger(&value, "a model version"));
        model->set_model_version(value);
      } else if (key == "doc_string") {
        RETURN_IF_ERROR(readString(model->mutable_doc_string()));
      } else if (key == "metadata_props") {
        RETURN_IF_ERROR(expect("[", "to open the metadata_props list"));
        if (!accept("]")) {
          do {
            onnx::StringStringEntryProto* prop = model->add_metadata_props();
            RETURN_IF_ERROR(readString(prop->mutable_key()));
            RETURN_IF_ERROR(expect(":", "after a metadata key"));
            RETURN_IF_ERROR(readString(prop->mutable_value()));
          } while (accept(","));
          RETURN_IF_ERROR(expect("]", "to close the metadata_props list"));
        }
      } else {
        return errorAt(key_pos, absl::StrCat("unknown model header key '", key, "'"));
      }
    } while (accept(","));
    return expect(">", "to close the model header");
  }

  absl::Status readFunction(onnx::FunctionProto* function) {
    if (accept("<")) {
      if (!accept(">")) {
        do {
          skipSpace();
          const size_t key_pos = pos_;
          std::string key;
          RETURN_IF_ERROR(readName(&key, "a function header key"));
          RETURN_IF_ERROR(expect(":", absl::StrCat("after '", key, "'")));
          if (key == "domain") {
            RETURN_IF_ERROR(readString(function->mutable_domain()));
          } else if (key == "opset_import") {
            RETURN_IF_ERROR(readOpsetImports(function->mutable_opset_import()));
          } else if (key == "doc_string") {
            RETURN_IF_ERROR(readString(function->mutable_doc_string()));
          } else {
            return errorAt(key_pos, absl::StrCat("unknown function header key '", key, "'"));
          }
        } while (accept(","));
        RETURN_IF_ERROR(expect(">", "to close the function header"));
      }
    }
    RETURN_IF_ERROR(readName(function->mutable_name(), "a function name"));
    if (accept("<")) RETURN_IF_ERROR(readNameList(function->mutable_attribute(), ">"));
    RETURN_IF_ERROR(expect("(", "to open the function's inputs"));
    RETURN_IF_ERROR(readNameList(function->mutable_input(), ")"));
    RETURN_IF_ERROR(expect("=>", "between the function's inputs and outputs"));
    RETURN_IF_ERROR(expect("(", "to open the function's outputs"));
    RETURN_IF_ERROR(readNameList(function->mutable_output(), ")"));
    return readNodeBlock(function->mutable_node(), 0);
  }

  // Names up to `close` (consumed). An empty element ("X, , Z", a trailing "X, ") is an empty
  // name, as an omitted optional input or output is.
  absl::Status readNameList(google::protobuf::RepeatedPtrField<std::string>* names,
                            absl::string_view close) {
    if (accept(close)) return absl::OkStatus();
    while (true) {
      std::string* name = names->Add();
      skipSpace();
      if (peek() != ',' && text_.substr(pos_, close.size()) != close) {
        RETURN_IF_ERROR(readName(name, "a name"));
      }
      if (accept(",")) continue;
      return expect(close, "to close the list of names");
    }
  }

  absl::Status readGraph(onnx::GraphProto* graph, int nesting) {
    if (nesting > kMaxNesting) return error("graphs nested too deeply");
    skipSpace();
    if (peek() != '(') RETURN_IF_ERROR(readName(graph->mutable_name(), "a graph name or '('"));
    RETURN_IF_ERROR(expect("(", "to open the graph's inputs"));
    RETURN_IF_ERROR(readValueInfoList(graph->mutable_input()));
    RETURN_IF_ERROR(expect("=>", "between the graph's inputs and outputs"));
    RETURN_IF_ERROR(expect("(", "to open the graph's outputs"));
    RETURN_IF_ERROR(readValueInfoList(graph->mutable_output()));
    if (accept("<")) {
      if (!accept(">")) {
        do {
          RETURN_IF_ERROR(readGraphItem(graph));
        } while (accept(","));
        RETURN_IF_ERROR(expect(">", "to close the graph's initializers and value_info"));
      }
    }
    return readNodeBlock(graph->mutable_node(), nesting);
  }

  absl::Status readValueInfoList(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* values) {
    if (accept(")")) return absl::OkStatus();
    do {
      onnx::ValueInfoProto* value = values->Add();
      if (atType()) RETURN_IF_ERROR(readType(value->mutable_type(), 0));
      RETURN_IF_ERROR(readName(value->mutable_name(), "a value name"));
    } while (accept(","));
    return expect(")", "to close the list of values");
  }

  // An initializer ("float[2] w = {1.0, 2.0}") or a value_info entry ("float[2] t", "t").
  absl::Status readGraphItem(onnx::GraphProto* graph) {
    skipSpace();
    const size_t start = pos_;
    onnx::TypeProto type;
    const bool typed = atType();
    if (typed) RETURN_IF_ERROR(readType(&type, 0));
    std::string name;
    RETURN_IF_ERROR(readName(&name, "a value name"));
    if (!accept("=")) {
      onnx::ValueInfoProto* value = graph->add_value_info();
      value->set_name(std::move(name));
      if (typed) *value->mutable_type() = std::move(type);
      return absl::OkStatus();
    }
    onnx::TensorProto* tensor = graph->add_initializer();
    RETURN_IF_ERROR(tensorFromType(type, typed, start, tensor));
    tensor->set_name(std::move(name));
    return readTensorValues(tensor);
  }

  absl::Status readNodeBlock(google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes,
                             int nesting) {
    RETURN_IF_ERROR(expect("{", "to open the list of nodes"));
    while (!accept("}")) {
      if (atEnd()) return expected("'}' to close the list of nodes");
      RETURN_IF_ERROR(readNode(nodes->Add(), nesting));
    }
    return absl::OkStatus();
  }

  // "Y, Z = domain.Op<attributes>(X, W)  # node name"
  absl::Status readNode(onnx::NodeProto* node, int nesting) {
    RETURN_IF_ERROR(readNameList(node->mutable_output(), "="));
    skipSpace();
    const size_t op_pos = pos_;
    std::vector<std::string> segments;
    bool first_quoted = peek() == '"';
    while (true) {
      skipSpace();
      const bool quoted = peek() == '"';
      RETURN_IF_ERROR(readName(&segments.emplace_back(), "an operator name"));
      if (quoted && segments.size() > 1) break;
      if (peek() != '.') break;
      ++pos_;
    }
    if (segments.size() > 1) {
      if (first_quoted && segments.size() != 2) {
        return errorAt(op_pos, "a quoted domain is followed by one operator name");
      }
      node->set_domain(absl::StrJoin(segments.begin(), segments.end() - 1, "."));
    }
    node->set_op_type(std::move(segments.back()));
    if (accept("<")) {
      do {
        RETURN_IF_ERROR(readAttribute(node->add_attribute(), nesting));
      } while (accept(","));
      RETURN_IF_ERROR(expect(">", "to close the attributes"));
    }
    RETURN_IF_ERROR(expect("(", absl::StrCat("to open the inputs of ", node->op_type())));
    RETURN_IF_ERROR(readNameList(node->mutable_input(), ")"));
    return readNodeName(node);
  }

  // The printer writes a node's name as a comment after it, on its line, C-escaped.
  absl::Status readNodeName(onnx::NodeProto* node) {
    while (!atEnd() && (peek() == ' ' || peek() == '\t')) ++pos_;
    if (peek() != '#') return absl::OkStatus();
    const size_t start = pos_;
    ++pos_;
    if (peek() == ' ') ++pos_;
    const size_t end = std::min(text_.find('\n', pos_), text_.size());
    const absl::string_view escaped = text_.substr(pos_, end - pos_);
    pos_ = end;
    std::string unescape_error;
    if (!absl::CUnescape(escaped, node->mutable_name(), &unescape_error)) {
      return errorAt(start, absl::StrCat("bad escape in node name: ", unescape_error));
    }
    return absl::OkStatus();
  }

  // --- Types ----------------------------------------------------------------------------

  // Names spelled like types are quoted by the printer, so an unquoted type word is a type.
  bool atType() {
    const absl::string_view word = peekIdentifier();
    if (word.empty()) return false;
    if (isElementTypeName(word)) return true;
    return isTypeKeyword(word) && peekAfterIdentifier() == '(';
  }

  absl::Status readShape(onnx::TensorShapeProto* shape) {
    if (accept("]")) return absl::OkStatus();
    do {
      onnx::TensorShapeProto::Dimension* dim = shape->add_dim();
      skipSpace();
      if (accept("?")) continue;
      if (absl::ascii_isdigit(peek()) || peek() == '-') {
        int64_t value = 0;
        RETURN_IF_ERROR(readInteger(&value, "a dimension"));
        dim->set_dim_value(value);
      } else {
        RETURN_IF_ERROR(readName(dim->mutable_dim_param(), "a dimension"));
      }
    } while (accept(","));
    return expect("]", "to close the shape");
  }

  // "float[2,N]" (no dims: a scalar; "[]": unknown rank), "seq(T)", "optional(T)",
  // "map(K, V)", "sparse_tensor(float[2,3])"; empty parentheses hold a type of no kind.
  absl::Status readType(onnx::TypeProto* type, int nesting) {
    if (nesting > kMaxNesting) return error("types nested too deeply");
    const absl::string_view word = peekIdentifier();
    if (isElementTypeName(word)) {
      pos_ += word.size();
      onnx::TypeProto::Tensor* tensor = type->mutable_tensor_type();
      tensor->set_elem_type(elementTypeOf(word));
      if (peek() == '[') {
        ++pos_;
        skipSpace();
        if (peek() == ']') {
          ++pos_;
          return absl::OkStatus();
        }
        return readShape(tensor->mutable_shape());
      }
      tensor->mutable_shape();
      return absl::OkStatus();
    }
    if (!isTypeKeyword(word)) return expected("a type");
    pos_ += word.size();
    RETURN_IF_ERROR(expect("(", absl::StrCat("after '", word, "'")));
    if (word == "map") {
      const absl::string_view key = peekIdentifier();
      if (!isElementTypeName(key)) return expected("a map key type");
      pos_ += key.size();
      type->mutable_map_type()->set_key_type(elementTypeOf(key));
      RETURN_IF_ERROR(expect(",", "after the map key type"));
      onnx::TypeProto* value = type->mutable_map_type()->mutable_value_type();
      if (atType()) RETURN_IF_ERROR(readType(value, nesting + 1));
    } else if (word == "sparse_tensor") {
      const absl::string_view element = peekIdentifier();
      if (!isElementTypeName(element)) return expected("an element type");
      onnx::TypeProto dense;
      RETURN_IF_ERROR(readType(&dense, nesting + 1));
      onnx::TypeProto::SparseTensor* sparse = type->mutable_sparse_tensor_type();
      sparse->set_elem_type(dense.tensor_type().elem_type());
      if (dense.tensor_type().has_shape()) {
        *sparse->mutable_shape() = dense.tensor_type().shape();
      }
    } else {
      onnx::TypeProto* element = word == "seq"
                                     ? type->mutable_sequence_type()->mutable_elem_type()
                                     : type->mutable_optional_type()->mutable_elem_type();
      if (atType()) RETURN_IF_ERROR(readType(element, nesting + 1));
    }
    return expect(")", absl::StrCat("to close '", word, "('"));
  }

  // --- Tensors --------------------------------------------------------------------------

  // A tensor's type is an element type and known dims.
  absl::Status tensorFromType(const onnx::TypeProto& type, bool typed, size_t type_pos,
                              onnx::TensorProto* tensor) {
    if (!typed || !type.has_tensor_type() || !type.tensor_type().has_shape()) {
      return errorAt(type_pos, "a tensor needs an element type and a shape of known dims");
    }
    tensor->set_data_type(type.tensor_type().elem_type());
    for (const onnx::TensorShapeProto::Dimension& dim : type.tensor_type().shape().dim()) {
      if (!dim.has_dim_value()) {
        return errorAt(type_pos, "a tensor's dims must all be numbers");
      }
      tensor->add_dims(dim.dim_value());
    }
    return absl::OkStatus();
  }

  // "{1.0, 2.0}", or "external [\"location\" : \"w.bin\", ...]" for data in another file. The
  // printer's summary "{...}" holds no values: reading it is an error.
  absl::Status readTensorValues(onnx::TensorProto* tensor) {
    skipSpace();
    const size_t start = pos_;
    if (peekIdentifier() == "external") {
      pos_ += std::strlen("external");
      tensor->set_data_location(onnx::TensorProto::EXTERNAL);
      RETURN_IF_ERROR(expect("[", "to open the external data entries"));
      if (accept("]")) return absl::OkStatus();
      do {
        onnx::StringStringEntryProto* entry = tensor->add_external_data();
        RETURN_IF_ERROR(readString(entry->mutable_key()));
        RETURN_IF_ERROR(expect(":", "after an external data key"));
        RETURN_IF_ERROR(readString(entry->mutable_value()));
      } while (accept(","));
      return expect("]", "to close the external data entries");
    }
    RETURN_IF_ERROR(expect("{", "to open the tensor's values"));
    if (accept("...")) {
      return errorAt(start, absl::StrCat(
          "the values of tensor '", tensor->name(),
          "' were left out ('{...}'): the text was printed without full initializers; "
          "print it with --emit=text-full"));
    }
    int64_t expected_count = 1;
    for (int64_t dim : tensor->dims()) {
      if (dim < 0 || (dim > 0 && expected_count > std::numeric_limits<int64_t>::max() / dim)) {
        return errorAt(start, "the tensor's dims are negative or too large");
      }
      expected_count *= dim;
    }
    const int32_t type = tensor->data_type();
    if (type == onnx::TensorProto::COMPLEX64 || type == onnx::TensorProto::COMPLEX128) {
      expected_count *= 2;  // (real, imaginary) pairs
    }
    int64_t count = 0;
    if (!accept("}")) {
      do {
        RETURN_IF_ERROR(readElement(tensor));
        ++count;
      } while (accept(","));
      RETURN_IF_ERROR(expect("}", "to close the tensor's values"));
    }
    if (count != expected_count) {
      return errorAt(start, absl::StrCat("tensor '", tensor->name(), "' has ", count,
                                         " values where its type holds ", expected_count));
    }
    return absl::OkStatus();
  }

  template <typename Stored, typename Read = Stored>
  absl::Status readRawInteger(onnx::TensorProto* tensor) {
    Read value{};
    skipSpace();
    const size_t start = pos_;
    RETURN_IF_ERROR(readInteger(&value, "an integer of the tensor's element type"));
    if (value < static_cast<Read>(std::numeric_limits<Stored>::min()) ||
        value > static_cast<Read>(std::numeric_limits<Stored>::max())) {
      return errorAt(start, "the value is out of range for the tensor's element type");
    }
    appendRaw(tensor->mutable_raw_data(), static_cast<Stored>(value));
    return absl::OkStatus();
  }

  // Elements of fixed size go to raw_data, as exporters store weights.
  absl::Status readElement(onnx::TensorProto* tensor) {
    using onnx::TensorProto;
    switch (tensor->data_type()) {
      case TensorProto::FLOAT:
      case TensorProto::COMPLEX64: {
        float value = 0;
        RETURN_IF_ERROR(readFloating(&value, "a float"));
        appendRaw(tensor->mutable_raw_data(), value);
        return absl::OkStatus();
      }
      case TensorProto::DOUBLE:
      case TensorProto::COMPLEX128: {
        double value = 0;
        RETURN_IF_ERROR(readFloating(&value, "a double"));
        appendRaw(tensor->mutable_raw_data(), value);
        return absl::OkStatus();
      }
      case TensorProto::INT8: return readRawInteger<int8_t, int32_t>(tensor);
      case TensorProto::INT16: return readRawInteger<int16_t, int32_t>(tensor);
      case TensorProto::INT32: return readRawInteger<int32_t>(tensor);
      case TensorProto::INT64: return readRawInteger<int64_t>(tensor);
      case TensorProto::UINT8:
      case TensorProto::BOOL: return readRawInteger<uint8_t, uint32_t>(tensor);
      // float16 and bfloat16 elements are their bit patterns.
      case TensorProto::UINT16:
      case TensorProto::FLOAT16:
      case TensorProto::BFLOAT16: return readRawInteger<uint16_t, uint32_t>(tensor);
      case TensorProto::UINT32: return readRawInteger<uint32_t>(tensor);
      case TensorProto::UINT64: return readRawInteger<uint64_t>(tensor);
      case TensorProto::STRING: return readString(tensor->add_string_data());
      default:
        return error(absl::StrCat("no values can be read for element type ",
                                  tensor->data_type()));
    }
  }

  // --- Attributes -----------------------------------------------------------------------

  // "name = value", "name: ints = []" (the type of an empty list), "name: float = @ref".
  absl::Status readAttribute(onnx::AttributeProto* attribute, int nesting) {
    RETURN_IF_ERROR(readName(attribute->mutable_name(), "an attribute name"));
    int32_t declared = onnx::AttributeProto::UNDEFINED;
    if (accept(":")) {
      skipSpace();
      const absl::string_view word = peekIdentifier();
      declared = onnx::AttributeTypeNameMap::Lookup(std::string(word));
      if (declared == onnx::AttributeProto::UNDEFINED) return expected("an attribute type");
      pos_ += word.size();
    }
    RETURN_IF_ERROR(expect("=", absl::StrCat("after attribute '", attribute->name(), "'")));
    skipSpace();
    const size_t value_pos = pos_;
    if (accept("@")) {
      if (declared == onnx::AttributeProto::UNDEFINED) {
        return error("a reference to a function attribute needs its type ('name: type = @ref')");
      }
      attribute->set_type(static_cast<onnx::AttributeProto::AttributeType>(declared));
      return readName(attribute->mutable_ref_attr_name(), "a function attribute name");
    }
    if (accept("?")) return absl::OkStatus();  // an attribute without a type, as printed
    if (peek() == '[') {
      ++pos_;
      RETURN_IF_ERROR(readAttributeList(attribute, declared, value_pos, nesting));
    } else {
      RETURN_IF_ERROR(readAttributeValue(attribute, nesting));
    }
    if (declared != onnx::AttributeProto::UNDEFINED && declared != attribute->type()) {
      return errorAt(value_pos,
                     absl::StrCat("attribute '", attribute->name(), "' is declared ",
                                  onnx::AttributeTypeNameMap::ToString(declared),
                                  " but its value is ",
                                  onnx::AttributeTypeNameMap::ToString(attribute->type())));
    }
    return absl::OkStatus();
  }

  // One value, its kind told by its form: 1 (int), 1.0 / nan / inf (float), "s" (string),
  // float[2] {...} (tensor), float[2] (type), name (...) => (...) {...} (graph).
  absl::Status readAttributeValue(onnx::AttributeProto* attribute, int nesting) {
    using onnx::AttributeProto;
    skipSpace();
    const char c = peek();
    if (c == '"') {
      const size_t start = pos_;
      std::string text;
      RETURN_IF_ERROR(readString(&text));
      skipSpace();
      if (peek() == '(') {
        pos_ = start;
        attribute->set_type(AttributeProto::GRAPH);
        return readGraph(attribute->mutable_g(), nesting + 1);
      }
      attribute->set_type(AttributeProto::STRING);
      attribute->set_s(std::move(text));
      return absl::OkStatus();
    }
    if (c == '(') {
      attribute->set_type(AttributeProto::GRAPH);
      return readGraph(attribute->mutable_g(), nesting + 1);
    }
    const absl::string_view word = peekIdentifier();
    if (absl::ascii_isdigit(c) || c == '-' || c == '+' || word == "nan" || word == "inf") {
      if (looksFloating(numberToken())) {
        float value = 0;
        RETURN_IF_ERROR(readFloating(&value, "a float"));
        attribute->set_type(AttributeProto::FLOAT);
        attribute->set_f(value);
      } else {
        int64_t value = 0;
        RETURN_IF_ERROR(readInteger(&value, "an integer"));
        attribute->set_type(AttributeProto::INT);
        attribute->set_i(value);
      }
      return absl::OkStatus();
    }
    if (word.empty()) return expected("an attribute value");
    if (!atType()) {
      attribute->set_type(AttributeProto::GRAPH);
      return readGraph(attribute->mutable_g(), nesting + 1);
    }
    const size_t type_pos = pos_;
    onnx::TypeProto type;
    RETURN_IF_ERROR(readType(&type, 0));
    skipSpace();
    if (peek() != '{' && !atName()) {
      attribute->set_type(AttributeProto::TYPE_PROTO);
      *attribute->mutable_tp() = std::move(type);
      return absl::OkStatus();
    }
    if (type.has_sparse_tensor_type()) {
      return errorAt(type_pos, "the values of a sparse tensor attribute are not in the text");
    }
    attribute->set_type(AttributeProto::TENSOR);
    onnx::TensorProto* tensor = attribute->mutable_t();
    RETURN_IF_ERROR(tensorFromType(type, true, type_pos, tensor));
    if (peekIdentifier() != "external" && atName()) {
      RETURN_IF_ERROR(readName(tensor->mutable_name(), "a tensor name"));
    }
    return readTensorValues(tensor);
  }

  absl::Status readAttributeList(onnx::AttributeProto* attribute, int32_t declared,
                                 size_t list_pos, int nesting) {
    using onnx::AttributeProto;
    if (accept("]")) {
      if (declared == AttributeProto::UNDEFINED) {
        return errorAt(list_pos, "an empty list needs its type ('name: ints = []')");
      }
      attribute->set_type(static_cast<AttributeProto::AttributeType>(declared));
      return absl::OkStatus();
    }
    AttributeProto::AttributeType list_type = AttributeProto::UNDEFINED;
    do {
      skipSpace();
      const size_t element_pos = pos_;
      AttributeProto element;
      RETURN_IF_ERROR(readAttributeValue(&element, nesting));
      AttributeProto::AttributeType element_list_type = AttributeProto::UNDEFINED;
      switch (element.type()) {
        case AttributeProto::FLOAT:
          element_list_type = AttributeProto::FLOATS;
          break;
        case AttributeProto::INT: element_list_type = AttributeProto::INTS; break;
        case AttributeProto::STRING: element_list_type = AttributeProto::STRINGS; break;
        case AttributeProto::TENSOR: element_list_type = AttributeProto::TENSORS; break;
        case AttributeProto::GRAPH: element_list_type = AttributeProto::GRAPHS; break;
        case AttributeProto::TYPE_PROTO: element_list_type = AttributeProto::TYPE_PROTOS; break;
        default: break;
      }
      if (list_type == AttributeProto::UNDEFINED) list_type = element_list_type;
      if (element_list_type != list_type) {
        return errorAt(element_pos, "the elements of a list attribute must be of one kind");
      }
      switch (element.type()) {
        case AttributeProto::FLOAT: attribute->add_floats(element.f()); break;
        case AttributeProto::INT: attribute->add_ints(element.i()); break;
        case AttributeProto::STRING: attribute->add_strings(std::move(*element.mutable_s())); break;
        case AttributeProto::TENSOR: attribute->add_tensors()->Swap(element.mutable_t()); break;
        case AttributeProto::GRAPH: attribute->add_graphs()->Swap(element.mutable_g()); break;
        case AttributeProto::TYPE_PROTO:
          attribute->add_type_protos()->Swap(element.mutable_tp());
          break;
        default: return errorAt(element_pos, "not a list element");
      }
    } while (accept(","));
    attribute->set_type(list_type);
    return expect("]", "to close the list");
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

#undef RETURN_IF_ERROR

}  // namespace

absl::StatusOr<onnx::ModelProto> readModelText(absl::string_view text) {
  onnx::ModelProto model;
  TextReader reader(text);
  if (absl::Status status = reader.readModel(&model); !status.ok()) return status;
  return model;
}

absl::StatusOr<std::unique_ptr<Model>> loadModelFromTextFile(const std::string& path,
                                                             const LoadOptions& options) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a folder, not a model file"));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot open the model: ", std::strerror(errno)));
  }
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot read the model: ", std::strerror(errno)));
  }
  const int64_t size = static_cast<int64_t>(text.size());
  if (options.progress) options.progress(size, size);
  absl::StatusOr<onnx::ModelProto> proto = readModelText(text);
  if (!proto.ok()) {
    return absl::Status(proto.status().code(), absl::StrCat(path, ": ", proto.status().message()));
  }
  std::string().swap(text);
  LoadOptions import_options = options;
  const std::string folder = std::filesystem::path(path).parent_path().string();
  import_options.external_data_dir = folder.empty() ? "." : folder;
  absl::StatusOr<std::unique_ptr<Model>> model = importModel(*std::move(proto), import_options);
  if (!model.ok()) {
    return absl::Status(model.status().code(), absl::StrCat(path, ": ", model.status().message()));
  }
  return model;
}

}  // namespace onnxopt::ir

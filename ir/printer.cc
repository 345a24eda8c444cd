#include "onnxopt/ir/printer.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "onnx/defs/parser.h"
#include "onnxopt/ir/serialization.h"

// The syntax is the one onnx::OnnxParser of ONNX 1.12 reads. Where a model holds something that
// parser cannot read (names that are not identifiers, NaN, empty attribute lists, ...), the
// printer still shows it, in the form later ONNX parsers read where one exists, so that the
// text stays useful to a reader; only the round trip through the 1.12 parser is lost.
// onnx-opt's own reader (text_reader.cc) reads all of it back: every form written here must be
// one it reads to the same proto.

namespace onnxopt::ir {
namespace {

using google::protobuf::RepeatedField;
using google::protobuf::RepeatedPtrField;

bool isIdentifier(absl::string_view text) {
  if (text.empty() || !(absl::ascii_isalpha(text[0]) || text[0] == '_')) return false;
  for (char c : text) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

// Backslashes, quotes and control characters are escaped (\\, \", \n, \t, \r, octal), as
// later ONNX parsers and onnx-opt's reader (text_reader.h) read them; other bytes, UTF-8
// included, are written as they are. OnnxParser 1.12 knows no escapes: it reads a string verbatim
// up to the next '"', so it reads back only strings without any of these characters.
std::string stringLiteral(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          absl::StrAppendFormat(&out, "\\%03o", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

// Words the syntax reads as something other than a name where a name may stand: element types
// and type constructors (before a value name), float literals and "external" (in attribute
// and initializer values).
bool isReservedWord(absl::string_view text) {
  return onnx::PrimitiveTypeNameMap::IsTypeName(std::string(text)) || text == "undefined" ||
         text == "seq" || text == "map" || text == "optional" || text == "sparse_tensor" ||
         text == "nan" || text == "inf" || text == "external";
}

// Names that are not identifiers, or are reserved words, are quoted, as ONNX 1.14 and later
// read them; 1.12 reads only plain identifiers.
std::string nameText(absl::string_view name) {
  return isIdentifier(name) && !isReservedWord(name) ? std::string(name) : stringLiteral(name);
}

std::string domainText(absl::string_view domain) {
  for (absl::string_view segment : absl::StrSplit(domain, '.')) {
    if (!isIdentifier(segment)) return stringLiteral(domain);
  }
  return std::string(domain);
}

// An empty name is an omitted optional input or output. OnnxParser 1.12 reads one only after a
// comma ("Op(X, , Z)", "Op(X, )"); a leading one is written "" as later parsers read it.
std::string nameListText(const RepeatedPtrField<std::string>& names) {
  std::vector<std::string> texts;
  for (const std::string& name : names) {
    texts.push_back(name.empty() && !texts.empty() ? "" : nameText(name));
  }
  return absl::StrJoin(texts, ", ");
}

// The shortest "%g" form that reads back (std::stof / std::stod, as the parser does) to the
// same bits. It always holds a '.' or an exponent: the parser reads "1" as an integer, which
// would turn a float attribute into an int one. NaN and infinities are written as later ONNX
// parsers read them; 1.12 cannot read them.
template <typename Floating>
std::string floatText(Floating value) {
  if (std::isnan(value)) {
    // The default quiet NaN (what NAN and numpy's nan are) and its negation by name; any other
    // NaN by its bits, so that its payload survives.
    using Bits = std::conditional_t<std::is_same_v<Floating, float>, uint32_t, uint64_t>;
    Bits bits;
    std::memcpy(&bits, &value, sizeof bits);
    const Floating quiet = std::numeric_limits<Floating>::quiet_NaN();
    Bits quiet_bits;
    std::memcpy(&quiet_bits, &quiet, sizeof quiet_bits);
    if (bits == quiet_bits) return "nan";
    constexpr Bits kSign = Bits{1} << (sizeof(Bits) * 8 - 1);
    if (bits == (quiet_bits | kSign)) return "-nan";
    return absl::StrFormat("nan(0x%x)", bits);
  }
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  constexpr bool kIsFloat = std::is_same_v<Floating, float>;
  constexpr int kMaxDigits = std::numeric_limits<Floating>::max_digits10;
  std::string text;
  for (int digits = kIsFloat ? 6 : 15; digits <= kMaxDigits; ++digits) {
    text = absl::StrFormat("%.*g", digits, value);
    Floating parsed = kIsFloat ? std::strtof(text.c_str(), nullptr)
                               : std::strtod(text.c_str(), nullptr);
    if (std::memcmp(&parsed, &value, sizeof value) == 0) break;
  }
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string elementTypeText(int32_t element_type) {
  return onnx::PrimitiveTypeNameMap::ToString(element_type);
}

std::string shapeText(const onnx::TensorShapeProto& shape) {
  std::vector<std::string> dims;
  for (const onnx::TensorShapeProto::Dimension& dim : shape.dim()) {
    if (dim.has_dim_value()) {
      dims.push_back(absl::StrCat(dim.dim_value()));
    } else if (dim.has_dim_param()) {
      dims.push_back(nameText(dim.dim_param()));
    } else {
      dims.push_back("?");
    }
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// "float[2,N]" for a known rank, "float" for a scalar (a shape without dims), "float[]" for an
// unknown rank (no shape).
std::string tensorTypeText(int32_t element_type, const onnx::TensorShapeProto* shape) {
  if (shape == nullptr) return absl::StrCat(elementTypeText(element_type), "[]");
  if (shape->dim_size() == 0) return elementTypeText(element_type);
  return absl::StrCat(elementTypeText(element_type), shapeText(*shape));
}

// Empty for a type the syntax has no form for (opaque, or no type at all): the value is then
// shown untyped.
std::string typeText(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const auto& tensor = type.tensor_type();
      return tensorTypeText(tensor.elem_type(), tensor.has_shape() ? &tensor.shape() : nullptr);
    }
    case onnx::TypeProto::kSparseTensorType: {
      const auto& sparse = type.sparse_tensor_type();
      return absl::StrCat(
          "sparse_tensor(",
          tensorTypeText(sparse.elem_type(), sparse.has_shape() ? &sparse.shape() : nullptr), ")");
    }
    case onnx::TypeProto::kSequenceType:
      return absl::StrCat("seq(", typeText(type.sequence_type().elem_type()), ")");
    case onnx::TypeProto::kOptionalType:
      return absl::StrCat("optional(", typeText(type.optional_type().elem_type()), ")");
    case onnx::TypeProto::kMapType:
      return absl::StrCat("map(", elementTypeText(type.map_type().key_type()), ", ",
                          typeText(type.map_type().value_type()), ")");
    default:
      return "";
  }
}

std::string valueInfoText(const onnx::ValueInfoProto& value) {
  std::string type = typeText(value.type());
  return type.empty() ? nameText(value.name()) : absl::StrCat(type, " ", nameText(value.name()));
}

std::string valueInfoListText(const RepeatedPtrField<onnx::ValueInfoProto>& values) {
  return absl::StrJoin(values, ", ", [](std::string* out, const onnx::ValueInfoProto& value) {
    out->append(valueInfoText(value));
  });
}

std::string tensorTypeText(const onnx::TensorProto& tensor) {
  onnx::TensorShapeProto shape;
  for (int64_t dim : tensor.dims()) shape.add_dim()->set_dim_value(dim);
  return tensorTypeText(tensor.data_type(), &shape);
}

std::string integerText(int64_t value) { return absl::StrCat(value); }
std::string unsignedText(uint64_t value) { return absl::StrCat(value); }

// Elements come from raw_data (little-endian in ONNX files; the hosts we build for are
// little-endian too) or from the typed field the parser fills for this element type.
template <typename RawElement, typename TypedElement, typename Format>
std::vector<std::string> elementTexts(const onnx::TensorProto& tensor,
                                      const RepeatedField<TypedElement>& typed, Format format) {
  std::vector<std::string> texts;
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    for (size_t offset = 0; offset + sizeof(RawElement) <= raw.size();
         offset += sizeof(RawElement)) {
      RawElement element;
      std::memcpy(&element, raw.data() + offset, sizeof element);
      texts.push_back(format(element));
    }
  } else {
    for (TypedElement element : typed) texts.push_back(format(element));
  }
  return texts;
}

// float16 and bfloat16 elements are written as their 16-bit patterns, which is how later ONNX
// parsers read them (1.12 reads neither type). Complex elements are written as the flat list of
// (real, imaginary) parts that float_data / double_data hold.
std::vector<std::string> tensorElementTexts(const onnx::TensorProto& tensor) {
  using onnx::TensorProto;
  switch (tensor.data_type()) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64:
      return elementTexts<float>(tensor, tensor.float_data(), floatText<float>);
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128:
      return elementTexts<double>(tensor, tensor.double_data(), floatText<double>);
    case TensorProto::INT8:
      return elementTexts<int8_t>(tensor, tensor.int32_data(), integerText);
    case TensorProto::INT16:
      return elementTexts<int16_t>(tensor, tensor.int32_data(), integerText);
    case TensorProto::INT32:
      return elementTexts<int32_t>(tensor, tensor.int32_data(), integerText);
    case TensorProto::INT64:
      return elementTexts<int64_t>(tensor, tensor.int64_data(), integerText);
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return elementTexts<uint8_t>(tensor, tensor.int32_data(), integerText);
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      return elementTexts<uint16_t>(tensor, tensor.int32_data(), integerText);
    case TensorProto::UINT32:
      return elementTexts<uint32_t>(tensor, tensor.uint64_data(), unsignedText);
    case TensorProto::UINT64:
      return elementTexts<uint64_t>(tensor, tensor.uint64_data(), unsignedText);
    case TensorProto::STRING: {
      std::vector<std::string> texts;
      for (const std::string& element : tensor.string_data()) texts.push_back(stringLiteral(element));
      return texts;
    }
    default:
      return {};
  }
}

// The number of elements the dims promise, or -1 when they are malformed.
int64_t elementCount(const onnx::TensorProto& tensor) {
  int64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0 || (dim > 0 && count > std::numeric_limits<int64_t>::max() / dim)) return -1;
    count *= dim;
  }
  return count;
}

class TextPrinter {
 public:
  explicit TextPrinter(const PrintOptions& options) : options_(options) {}

  std::string release() && { return std::move(out_); }

  void printModel(const onnx::ModelProto& model) {
    std::vector<std::string> header;
    if (model.has_ir_version()) header.push_back(absl::StrCat("ir_version: ", model.ir_version()));
    if (model.opset_import_size() > 0) {
      header.push_back(absl::StrCat("opset_import: ", opsetImportText(model.opset_import())));
    }
    if (model.has_producer_name()) {
      header.push_back(absl::StrCat("producer_name: ", stringLiteral(model.producer_name())));
    }
    if (model.has_producer_version()) {
      header.push_back(absl::StrCat("producer_version: ", stringLiteral(model.producer_version())));
    }
    if (model.has_domain()) header.push_back(absl::StrCat("domain: ", stringLiteral(model.domain())));
    if (model.has_model_version()) {
      header.push_back(absl::StrCat("model_version: ", model.model_version()));
    }
    if (model.has_doc_string()) {
      header.push_back(absl::StrCat("doc_string: ", stringLiteral(model.doc_string())));
    }
    if (model.metadata_props_size() > 0) {
      std::vector<std::string> props;
      for (const onnx::StringStringEntryProto& prop : model.metadata_props()) {
        props.push_back(absl::StrCat(stringLiteral(prop.key()), " : ", stringLiteral(prop.value())));
      }
      header.push_back(absl::StrCat("metadata_props: [", absl::StrJoin(props, ", "), "]"));
    }
    if (!header.empty()) absl::StrAppend(&out_, "<", absl::StrJoin(header, ", "), ">\n");
    printGraph(model.graph());
    out_ += "\n";
    for (const onnx::FunctionProto& function : model.functions()) {
      out_ += "\n";
      printFunction(function);
      out_ += "\n";
    }
  }

  // Starts where the output stands (a graph may follow "then_branch = " on a node's line) and
  // indents its contents one level deeper than the current line.
  void printGraph(const onnx::GraphProto& graph) {
    // Only the main graph may be nameless: OnnxParser reads a subgraph only after its name.
    if (!graph.name().empty()) absl::StrAppend(&out_, nameText(graph.name()), " ");
    absl::StrAppend(&out_, "(", valueInfoListText(graph.input()), ") => (",
                    valueInfoListText(graph.output()), ")");
    // Every initializer goes in this list, not as "= value" after a graph input, so that their
    // order survives (the parser appends them in the order it reads them).
    if (graph.initializer_size() > 0 || graph.value_info_size() > 0) {
      out_ += " <";
      ++depth_;
      const char* separator = "";
      for (const onnx::TensorProto& initializer : graph.initializer()) {
        out_ += separator;
        newLine();
        absl::StrAppend(&out_, tensorTypeText(initializer), " ", nameText(initializer.name()),
                        " = ", tensorValuesText(initializer));
        separator = ",";
      }
      for (const onnx::ValueInfoProto& value : graph.value_info()) {
        out_ += separator;
        newLine();
        out_ += valueInfoText(value);
        separator = ",";
      }
      --depth_;
      newLine();
      out_ += ">";
    }
    printNodeBlock(graph.node());
  }

 private:
  // A subgraph one level deeper than the current graph; past kMaxGraphNesting, a comment.
  void printSubgraph(const onnx::GraphProto& graph) {
    if (graph_nesting_ == kMaxGraphNesting) {
      absl::StrAppend(&out_, "# graph '", graph.name(), "' is nested more than ",
                      kMaxGraphNesting, " levels deep: not printed");
      newLine();
      return;
    }
    ++graph_nesting_;
    printGraph(graph);
    --graph_nesting_;
  }

  void newLine() {
    out_ += "\n";
    for (int level = 0; level < depth_; ++level) out_ += "  ";
  }

  static std::string opsetImportText(const RepeatedPtrField<onnx::OperatorSetIdProto>& opsets) {
    std::vector<std::string> entries;
    for (const onnx::OperatorSetIdProto& opset : opsets) {
      entries.push_back(absl::StrCat(stringLiteral(opset.domain()), " : ", opset.version()));
    }
    return absl::StrCat("[", absl::StrJoin(entries, ", "), "]");
  }

  void printFunction(const onnx::FunctionProto& function) {
    std::vector<std::string> header;
    if (function.has_domain()) header.push_back(absl::StrCat("domain: ", stringLiteral(function.domain())));
    if (function.opset_import_size() > 0) {
      header.push_back(absl::StrCat("opset_import: ", opsetImportText(function.opset_import())));
    }
    if (function.has_doc_string()) {
      header.push_back(absl::StrCat("doc_string: ", stringLiteral(function.doc_string())));
    }
    if (!header.empty()) absl::StrAppend(&out_, "<", absl::StrJoin(header, ", "), ">\n");
    out_ += nameText(function.name());
    if (function.attribute_size() > 0) {
      absl::StrAppend(&out_, "<", nameListText(function.attribute()), ">");
    }
    absl::StrAppend(&out_, "(", nameListText(function.input()), ") => (",
                    nameListText(function.output()), ")");
    printNodeBlock(function.node());
  }

  void printNodeBlock(const RepeatedPtrField<onnx::NodeProto>& nodes) {
    out_ += " {";
    ++depth_;
    for (const onnx::NodeProto& node : nodes) {
      newLine();
      printNode(node);
    }
    --depth_;
    newLine();
    out_ += "}";
  }

  // "Y = com.example.Op<alpha = 1.0>(X, W)"; a node without outputs starts with "=".
  void printNode(const onnx::NodeProto& node) {
    if (node.output_size() > 0) {
      // A trailing empty output leaves "Z, " behind: one space before '=' is enough.
      absl::StrAppend(&out_, absl::StripTrailingAsciiWhitespace(nameListText(node.output())), " ");
    }
    out_ += "= ";
    if (!node.domain().empty()) absl::StrAppend(&out_, domainText(node.domain()), ".");
    out_ += nameText(node.op_type());
    if (node.attribute_size() > 0) {
      out_ += "<";
      const char* separator = "";
      for (const onnx::AttributeProto& attribute : node.attribute()) {
        out_ += separator;
        printAttribute(attribute);
        separator = ", ";
      }
      out_ += ">";
    }
    absl::StrAppend(&out_, "(", nameListText(node.input()), ")");
    if (options_.node_names && !node.name().empty()) {
      absl::StrAppend(&out_, "  # ", absl::CEscape(node.name()));
    }
  }

  void printAttribute(const onnx::AttributeProto& attribute) {
    out_ += nameText(attribute.name());
    // The parser infers an attribute's type from its value; an empty list and a reference to
    // a function attribute have none, so theirs is written out.
    const bool needs_type_annotation =
        (!attribute.ref_attr_name().empty() || isEmptyList(attribute)) &&
        attribute.type() != onnx::AttributeProto::UNDEFINED;
    if (needs_type_annotation) {
      absl::StrAppend(&out_, ": ", onnx::AttributeTypeNameMap::ToString(attribute.type()));
    }
    out_ += " = ";
    if (!attribute.ref_attr_name().empty()) {
      absl::StrAppend(&out_, "@", nameText(attribute.ref_attr_name()));
      return;
    }
    printAttributeValue(attribute);
  }

  static bool isEmptyList(const onnx::AttributeProto& attribute) {
    switch (attribute.type()) {
      case onnx::AttributeProto::FLOATS: return attribute.floats_size() == 0;
      case onnx::AttributeProto::INTS: return attribute.ints_size() == 0;
      case onnx::AttributeProto::STRINGS: return attribute.strings_size() == 0;
      case onnx::AttributeProto::TENSORS: return attribute.tensors_size() == 0;
      case onnx::AttributeProto::GRAPHS: return attribute.graphs_size() == 0;
      case onnx::AttributeProto::SPARSE_TENSORS: return attribute.sparse_tensors_size() == 0;
      case onnx::AttributeProto::TYPE_PROTOS: return attribute.type_protos_size() == 0;
      default: return false;
    }
  }

  void printAttributeValue(const onnx::AttributeProto& attribute) {
    switch (attribute.type()) {
      case onnx::AttributeProto::FLOAT:
        out_ += floatText(attribute.f());
        return;
      case onnx::AttributeProto::INT:
        absl::StrAppend(&out_, attribute.i());
        return;
      case onnx::AttributeProto::STRING:
        out_ += stringLiteral(attribute.s());
        return;
      case onnx::AttributeProto::TENSOR:
        printAttributeTensor(attribute.t());
        return;
      case onnx::AttributeProto::GRAPH:
        printSubgraph(attribute.g());
        return;
      case onnx::AttributeProto::SPARSE_TENSOR:
        out_ += sparseTensorText(attribute.sparse_tensor());
        return;
      case onnx::AttributeProto::TYPE_PROTO:
        out_ += typeText(attribute.tp());
        return;
      case onnx::AttributeProto::FLOATS:
        printList(attribute.floats(), [this](float value) { out_ += floatText(value); });
        return;
      case onnx::AttributeProto::INTS:
        printList(attribute.ints(), [this](int64_t value) { absl::StrAppend(&out_, value); });
        return;
      case onnx::AttributeProto::STRINGS:
        printList(attribute.strings(), [this](const std::string& value) { out_ += stringLiteral(value); });
        return;
      case onnx::AttributeProto::TENSORS:
        printList(attribute.tensors(),
                  [this](const onnx::TensorProto& tensor) { printAttributeTensor(tensor); });
        return;
      case onnx::AttributeProto::GRAPHS:
        printList(attribute.graphs(), [this](const onnx::GraphProto& graph) { printSubgraph(graph); });
        return;
      case onnx::AttributeProto::SPARSE_TENSORS:
        printList(attribute.sparse_tensors(), [this](const onnx::SparseTensorProto& tensor) {
          out_ += sparseTensorText(tensor);
        });
        return;
      case onnx::AttributeProto::TYPE_PROTOS:
        printList(attribute.type_protos(),
                  [this](const onnx::TypeProto& type) { out_ += typeText(type); });
        return;
      default:
        // An attribute without a type (nothing the parser could read): say so visibly.
        out_ += "?";
        return;
    }
  }

  template <typename List, typename PrintElement>
  void printList(const List& list, PrintElement print_element) {
    out_ += "[";
    const char* separator = "";
    for (const auto& element : list) {
      out_ += separator;
      print_element(element);
      separator = ", ";
    }
    out_ += "]";
  }

  // "float[2] {1.0, 2.0}", or "float[2] name {1.0, 2.0}" for a named tensor.
  void printAttributeTensor(const onnx::TensorProto& tensor) {
    out_ += tensorTypeText(tensor);
    if (!tensor.name().empty()) absl::StrAppend(&out_, " ", nameText(tensor.name()));
    absl::StrAppend(&out_, " ", tensorValuesText(tensor));
  }

  // The parser has no sparse tensor literal: the dense shape and "{...}" stand for it.
  static std::string sparseTensorText(const onnx::SparseTensorProto& tensor) {
    onnx::TensorShapeProto shape;
    for (int64_t dim : tensor.dims()) shape.add_dim()->set_dim_value(dim);
    return absl::StrCat("sparse_tensor(", tensorTypeText(tensor.values().data_type(), &shape),
                        ") {...}");
  }

  // "{1.0, 2.0}" in full. A tensor with more elements than PrintOptions allows (attribute values
  // included, since a Constant's can be as large as any initializer) is summarised as "{...}":
  // the type before it still says what it holds, and the readers reject it rather than read it
  // as something else. Data in an external file is its reference,
  // 'external ["location" : "w.bin", "offset" : "0"]' (the entries of external_data, in order).
  std::string tensorValuesText(const onnx::TensorProto& tensor) const {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
      std::vector<std::string> entries;
      for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
        entries.push_back(absl::StrCat(stringLiteral(entry.key()), " : ", stringLiteral(entry.value())));
      }
      return absl::StrCat("external [", absl::StrJoin(entries, ", "), "]");
    }
    if (elementCount(tensor) > options_.max_initializer_elements) return "{...}";
    return absl::StrCat("{", absl::StrJoin(tensorElementTexts(tensor), ", "), "}");
  }

  const PrintOptions& options_;
  std::string out_;
  int depth_ = 0;
  int graph_nesting_ = 0;  // of the graph being printed: 0 for the main graph
};

}  // namespace

std::string printModel(const onnx::ModelProto& model, const PrintOptions& options) {
  TextPrinter printer(options);
  printer.printModel(model);
  return std::move(printer).release();
}

std::string printModel(const Model& model, const PrintOptions& options) {
  absl::StatusOr<onnx::ModelProto> proto = exportModel(model);
  if (!proto.ok()) {
    return absl::StrCat("# cannot print the model: ",
                        absl::StrReplaceAll(proto.status().ToString(), {{"\n", "\n# "}}), "\n");
  }
  return printModel(*proto, options);
}

std::string printGraph(const onnx::GraphProto& graph, const PrintOptions& options) {
  TextPrinter printer(options);
  printer.printGraph(graph);
  return absl::StrCat(std::move(printer).release(), "\n");
}

}  // namespace onnxopt::ir

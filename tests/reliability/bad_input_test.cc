// The catalogue of bad inputs (docs/reliability.md, "Bad inputs and nothing lost"). Each case
// writes a malformed model, made here with ONNX's protos, and runs the real onnx-opt on it; the
// run must end with exit code 1 and exactly one line on stderr naming the file, the element (node
// name and op type, tensor, attribute) and the problem, with no crash, no output file and no
// temporary file left in the output folder, an existing output untouched and the input unchanged.

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"
#include "tool_run.h"

namespace onnxopt::testing {
namespace {

namespace fs = std::filesystem;

const std::string kTool = ONNXOPT_CLI_PATH;

// ---------------------------------------------------------------------------------------------
// Making models.

onnx::ModelProto parse(const char* text) {
  onnx::ModelProto proto;
  const onnx::Common::Status parsed = onnx::OnnxParser::Parse(proto, text);
  EXPECT_TRUE(parsed.IsOK()) << parsed.ErrorMessage();
  return proto;
}

// Node names, which the text syntax has no place for, in node order.
onnx::ModelProto named(onnx::ModelProto model, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) model.mutable_graph()->mutable_node(i)->set_name(names[i]);
  return model;
}

void appendVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void appendTag(std::string* out, int field, int wire_type) {
  appendVarint(out, (static_cast<uint64_t>(field) << 3) | wire_type);
}

void appendBytesField(std::string* out, int field, const std::string& bytes) {
  appendTag(out, field, 2);
  appendVarint(out, bytes.size());
  out->append(bytes);
}

constexpr int kModelGraphField = 7;

// The model with its graph as the last field on the wire, so that every prefix of the bytes is
// either a model without a graph or a graph cut short.
std::string serializeGraphLast(const onnx::ModelProto& model) {
  onnx::ModelProto rest = model;
  rest.clear_graph();
  std::string bytes = rest.SerializeAsString();
  appendBytesField(&bytes, kModelGraphField, model.graph().SerializeAsString());
  return bytes;
}

// A Relu model with an initializer: the base most cases break one thing in.
constexpr const char* kSmall = R"(
<ir_version: 8, opset_import: ["" : 13]>
small (float[3] X) => (float[3] Y)
<float[3] bias = {1.0, 2.0, 3.0}>
{
  A = Add(X, bias)
  Y = Relu(A)
}
)";

onnx::ModelProto small() { return named(parse(kSmall), {"add_bias", "relu"}); }

onnx::TensorProto& bias(onnx::ModelProto& model) {
  return *model.mutable_graph()->mutable_initializer(0);
}

// `depth` levels of Wrap nodes, each with a graph attribute holding the next, written directly
// on the wire: protobuf's own serializer would recurse once per level.
std::string deeplyNestedModel(int depth) {
  std::string graph_head;
  appendBytesField(&graph_head, 2, "g");  // GraphProto.name
  std::string node_head;
  appendBytesField(&node_head, 4, "Wrap");  // NodeProto.op_type
  std::string attribute_head;
  appendBytesField(&attribute_head, 1, "body");  // AttributeProto.name
  appendTag(&attribute_head, 20, 0);             // AttributeProto.type = GRAPH
  appendVarint(&attribute_head, onnx::AttributeProto::GRAPH);
  auto field_size = [](uint64_t size) {
    std::string prefix;
    appendVarint(&prefix, size);
    return 1 + prefix.size() + size;  // tag, length, contents
  };
  // Sizes from the innermost level out: graph k holds node k, which holds attribute k, which
  // holds graph k + 1.
  std::vector<uint64_t> graph_size(depth + 1), node_size(depth), attribute_size(depth);
  graph_size[depth] = graph_head.size();
  for (int k = depth - 1; k >= 0; --k) {
    attribute_size[k] = attribute_head.size() + field_size(graph_size[k + 1]);
    node_size[k] = node_head.size() + field_size(attribute_size[k]);
    graph_size[k] = graph_head.size() + field_size(node_size[k]);
  }
  onnx::ModelProto header = parse(kSmall);
  header.clear_graph();
  std::string bytes = header.SerializeAsString();
  appendTag(&bytes, kModelGraphField, 2);
  appendVarint(&bytes, graph_size[0]);
  for (int k = 0; k < depth; ++k) {
    bytes += graph_head;
    appendTag(&bytes, 1, 2);  // GraphProto.node
    appendVarint(&bytes, node_size[k]);
    bytes += node_head;
    appendTag(&bytes, 5, 2);  // NodeProto.attribute
    appendVarint(&bytes, attribute_size[k]);
    bytes += attribute_head;
    appendTag(&bytes, 6, 2);  // AttributeProto.g
    appendVarint(&bytes, graph_size[k + 1]);
  }
  bytes += graph_head;
  return bytes;
}

// An initializer `w` of 6 floats stored in `location` at `offset`.
onnx::ModelProto externalModel(const std::string& location, int64_t offset = 0) {
  onnx::ModelProto model = named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
ext (float[6] X) => (float[6] Y)
<float[6] w = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}>
{
  Y = Add(X, w)
}
)"), {"add_w"});
  onnx::TensorProto& w = *model.mutable_graph()->mutable_initializer(0);
  w.clear_float_data();
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto add_entry = [&w](const char* key, const std::string& value) {
    auto* entry = w.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add_entry("location", location);
  add_entry("offset", std::to_string(offset));
  add_entry("length", "24");
  return model;
}

// ---------------------------------------------------------------------------------------------
// The catalogue.

struct BadInput {
  const char* name;
  // Writes the model to `path` (and whatever it refers to, in the same folder or around it).
  std::function<void(const std::string& path)> write;
  std::vector<std::string> all_of;  // the message names each of these ("@" = the input path)
  std::vector<std::string> any_of;  // and says one of these (case-insensitively)
  bool via_stdin_too = true;        // also fed on stdin ("@" is then "<stdin>")
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

std::function<void(const std::string&)> writes(const onnx::ModelProto& model) {
  return [model](const std::string& path) { writeFile(path, model.SerializeAsString()); };
}

std::function<void(const std::string&)> writesBytes(const std::string& bytes) {
  return [bytes](const std::string& path) { writeFile(path, bytes); };
}

const std::vector<std::string> kParseWords = {"truncated", "corrupt", "not a valid onnx model"};

std::vector<BadInput> catalogue() {
  std::vector<BadInput> cases;
  cases.push_back({"NonexistentFile", [](const std::string&) {}, {"@"}, {"no such file"}, false});
  cases.push_back({"Directory", [](const std::string& path) { fs::create_directory(path); },
                   {"@"}, {"is a folder"}, false});
  cases.push_back({"EmptyFile", writesBytes(""), {"@"}, {"is empty"}});
  {
    std::mt19937 rng(12345);  // std::mt19937 is the same sequence everywhere
    std::string bytes(4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
    cases.push_back({"RandomBytes", writesBytes(bytes), {"@"}, kParseWords});
  }

  // Wrong wire types. protobuf fails on a wire type that does not exist, and keeps a known field
  // sent with another valid wire type as an unknown field, which the importer refuses.
  {
    onnx::ModelProto model = small();
    model.clear_graph();
    std::string bytes = model.SerializeAsString();
    appendTag(&bytes, kModelGraphField, 0);
    appendVarint(&bytes, 1);
    cases.push_back({"WireTypeOfModelGraph", writesBytes(bytes), {"@", "'graph'", "varint"},
                     {"wrong wire type"}});
  }
  {
    onnx::ModelProto model = small();
    onnx::NodeProto& relu = *model.mutable_graph()->mutable_node(1);
    relu.clear_op_type();
    relu.mutable_unknown_fields()->AddVarint(4, 7);  // NodeProto.op_type as a varint
    cases.push_back({"WireTypeOfNodeOpType", writes(model), {"@", "node 'relu'", "'op_type'"},
                     {"wrong wire type"}});
  }
  {
    onnx::ModelProto model = small();
    bias(model).clear_dims();
    bias(model).mutable_unknown_fields()->AddFixed64(1, 3);  // TensorProto.dims as fixed64
    cases.push_back({"WireTypeOfTensorDims", writes(model), {"@", "tensor 'bias'", "'dims'"},
                     {"wrong wire type"}});
  }
  {
    onnx::ModelProto model = small();
    auto* perm = model.mutable_graph()->mutable_node(1)->add_attribute();
    perm->set_name("extra");
    perm->set_type(onnx::AttributeProto::INT);
    perm->mutable_unknown_fields()->AddLengthDelimited(3, "1");  // AttributeProto.i as bytes
    cases.push_back({"WireTypeOfAttributeValue", writes(model),
                     {"@", "node 'relu' (Relu)", "attribute 'extra'", "'i'"}, {"wrong wire type"}});
  }
  {
    std::string bytes = small().SerializeAsString();
    appendTag(&bytes, 15, 7);  // wire type 7 does not exist
    cases.push_back({"NonexistentWireType", writesBytes(bytes), {"@"}, kParseWords});
  }

  // Graph structure.
  cases.push_back({"Cycle", writes(named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
cycle (float[3] X) => (float[3] Y) {
  a = Add(X, b)
  b = Relu(a)
  Y = Identity(a)
}
)"), {"cycle_a", "cycle_b", "out"})), {"@", "cycle"}, {"cycle_a", "cycle_b"}});
  cases.push_back({"UndefinedInput", writes(named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
dangling (float[3] X) => (float[3] Y) {
  Y = Add(X, ghost)
}
)"), {"use_ghost"})), {"@", "node 'use_ghost' (Add)", "'ghost'"}, {"not defined"}});
  cases.push_back({"TwoProducers", writes(named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
twice (float[3] X) => (float[3] Y) {
  dup = Relu(X)
  dup = Neg(X)
  Y = Identity(dup)
}
)"), {"first_dup", "second_dup", "out"})), {"@", "'dup'", "node 'second_dup' (Neg)"},
                   {"produced twice"}});
  {
    onnx::ModelProto model = small();
    auto* attribute = model.mutable_graph()->mutable_node(1)->add_attribute();
    attribute->set_name("weird_attr");
    attribute->set_i(7);
    attribute->mutable_unknown_fields()->AddVarint(20, 99);  // AttributeProto.type 99: no type
    cases.push_back({"UnknownAttributeType", writes(model),
                     {"@", "node 'relu' (Relu)", "'weird_attr'"}, {"unknown type"}});
  }

  // Attributes of the wrong kind, met by fuse-transpose-gemm (in -O1, the default).
  cases.push_back({"GemmTransBIsFloat", writes(named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
gemm (float[4,3] X, float[5,3] W) => (float[4,5] Y) {
  Wt = Transpose<perm = [1, 0]>(W)
  Y = Gemm<transB = 1.0>(X, Wt)
}
)"), {"flip", "fc"})), {"@", "node 'fc' (Gemm)", "'transB'", "FLOAT"}, {"defines it as INT"}});
  cases.push_back({"TransposePermIsString", writes(named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
gemm (float[4,3] X, float[5,3] W) => (float[4,5] Y) {
  Wt = Transpose<perm = "10">(W)
  Y = Gemm(X, Wt)
}
)"), {"flip", "fc"})), {"@", "node 'flip' (Transpose)", "'perm'", "STRING"},
                   {"defines it as INTS"}});

  // A required attribute missing, met by eliminate-nop-expand (in -O1) working out a target shape.
  cases.push_back({"ConcatWithoutAxis", writes(named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
concat (float[2,3] X) => (float[2,3] Y) {
  s = Shape(X)
  t = Concat(s)
  Y = Expand(X, t)
}
)"), {"shape_x", "cat", "expand"})), {"@", "node 'cat' (Concat)", "'axis'"}, {"missing"}});

  // Tensors whose data does not match their dims and type, or whose dims are impossible.
  {
    onnx::ModelProto model = small();
    bias(model).clear_float_data();
    bias(model).set_raw_data(std::string(5, '\0'));
    cases.push_back({"RawDataTooShort", writes(model), {"@", "tensor 'bias'", "raw_data", "5 bytes", "12"},
                     {"need"}});
  }
  {
    onnx::ModelProto model = small();
    bias(model).add_float_data(4.0f);
    cases.push_back({"TypedDataTooLong", writes(model), {"@", "tensor 'bias'", "float_data", "4 values"},
                     {"need"}});
  }
  {
    // ONNX keeps strings in string_data: bytes in raw_data leave the elements unaccounted for.
    onnx::ModelProto model = small();
    bias(model).clear_float_data();
    bias(model).set_data_type(onnx::TensorProto::STRING);
    bias(model).set_raw_data("abc");
    cases.push_back({"StringTensorInRawData", writes(model),
                     {"@", "tensor 'bias'", "raw_data", "3 bytes", "string_data"}, {"string tensor"}});
  }
  {
    // An empty raw_data does not excuse string_data from holding every element.
    onnx::ModelProto model = small();
    bias(model).clear_float_data();
    bias(model).set_data_type(onnx::TensorProto::STRING);
    bias(model).set_raw_data("");
    bias(model).add_string_data("a");
    cases.push_back({"StringTensorMissingElements", writes(model),
                     {"@", "tensor 'bias'", "string_data", "1 values"}, {"need"}});
  }
  {
    onnx::ModelProto model = named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
constant (float[3] X) => (float[3] Y) {
  C = Constant<value = float[3] {1.0, 2.0, 3.0}>()
  Y = Add(X, C)
}
)"), {"make_c", "add_c"});
    model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t()->add_dims(2);
    cases.push_back({"ConstantAttributeDataMismatch", writes(model),
                     {"@", "node 'make_c' (Constant)", "attribute 'value'", "float_data"}, {"need"}});
  }
  {
    onnx::ModelProto model = small();
    bias(model).clear_dims();
    for (int64_t dim : {int64_t{1} << 32, int64_t{1} << 32, int64_t{4}}) bias(model).add_dims(dim);
    cases.push_back({"DimsProductOverflows", writes(model), {"@", "tensor 'bias'", "4294967296"},
                     {"overflows int64"}});
  }
  {
    onnx::ModelProto model = small();
    bias(model).set_dims(0, -3);
    cases.push_back({"NegativeDim", writes(model), {"@", "tensor 'bias'", "-3"}, {"negative"}});
  }
  {
    // 10^18 floats: nothing may try to allocate them.
    onnx::ModelProto model = small();
    bias(model).set_dims(0, 1000000000000000000);
    cases.push_back({"AbsurdDim", writes(model), {"@", "tensor 'bias'", "1000000000000000000"},
                     {"need"}});
  }

  // 10,000 levels of subgraphs: protobuf's parser stops at 100 levels of messages.
  cases.push_back({"SubgraphsNested10000Deep", writesBytes(deeplyNestedModel(10000)), {"@"},
                   {"nested too deeply"}});

  // External data.
  cases.push_back({"ExternalDataFileMissing", writes(externalModel("weights.bin")),
                   {"@", "tensor 'w'", "'weights.bin'"}, {"not found"}, false});
  cases.push_back({"ExternalDataPastTheEnd",
                   [](const std::string& path) {
                     writeFile(fs::path(path).parent_path() / "weights.bin", std::string(32, '\0'));
                     writeFile(path, externalModel("weights.bin", 16).SerializeAsString());
                   },
                   {"@", "tensor 'w'", "'weights.bin'"}, {"runs past the end"}, false});
  cases.push_back({"ExternalDataAbsolute",
                   [](const std::string& path) {
                     const std::string data = fs::path(path).parent_path() / "weights.bin";
                     writeFile(data, std::string(24, '\0'));
                     writeFile(path, externalModel(data).SerializeAsString());
                   },
                   {"@", "tensor 'w'"}, {"is absolute"}, false});
  cases.push_back({"ExternalDataDotDot",
                   [](const std::string& path) {
                     writeFile(fs::path(path).parent_path().parent_path() / "weights.bin",
                               std::string(24, '\0'));
                     writeFile(path, externalModel("../weights.bin").SerializeAsString());
                   },
                   {"@", "tensor 'w'", "'../weights.bin'"}, {"leaves the model's folder"}, false});
  cases.push_back({"ExternalDataSymlinkOut",
                   [](const std::string& path) {
                     const fs::path folder = fs::path(path).parent_path();
                     writeFile(folder.parent_path() / "outside.bin", std::string(24, '\0'));
                     fs::create_symlink(folder.parent_path() / "outside.bin", folder / "link.bin");
                     writeFile(path, externalModel("link.bin").SerializeAsString());
                   },
                   {"@", "tensor 'w'", "'link.bin'"}, {"outside the model's folder"}, false});
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Running.

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnx-opt-bad-input-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
    in_dir_ = dir_ + "/in";
    out_dir_ = dir_ + "/out";
    io_dir_ = dir_ + "/io";
    for (const std::string& d : {in_dir_, out_dir_, io_dir_}) fs::create_directory(d);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  // Runs onnx-opt on `input` three ways (a new output, an existing one, text into an existing
  // one) and checks each run against the catalogue's promise.
  void expectRefused(const std::string& input, const std::vector<std::string>& all_of,
                     const std::vector<std::string>& any_of) {
    const bool is_file = fs::is_regular_file(input);
    const std::string input_bytes = is_file ? readFile(input) : std::string();
    {
      SCOPED_TRACE("output to a new file");
      const std::string out = out_dir_ + "/new.onnx";
      expectCleanFailure(runTool(kTool, {input, "-o", out}, io_dir_), all_of, any_of);
      EXPECT_TRUE(listDir(out_dir_).empty()) << "left behind: " << join(listDir(out_dir_));
    }
    const std::string existing = out_dir_ + "/existing.onnx";
    writeFile(existing, "keep me");
    for (const char* emit : {"--emit=binary", "--emit=text"}) {
      SCOPED_TRACE(std::string("output to an existing file, ") + emit);
      expectCleanFailure(runTool(kTool, {input, emit, "-o", existing}, io_dir_), all_of, any_of);
      EXPECT_EQ(readFile(existing), "keep me") << "a failed run changed the existing output";
      EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"})
          << "left behind: " << join(listDir(out_dir_));
    }
    if (is_file) EXPECT_TRUE(readFile(input) == input_bytes) << "the input changed";
  }

  std::string dir_;
  std::string in_dir_;   // the bad model and what it refers to
  std::string out_dir_;  // where outputs go: must hold nothing unexpected afterwards
  std::string io_dir_;   // the tool's stdout and stderr
};

class CatalogueTest : public BadInputTest, public ::testing::WithParamInterface<BadInput> {};

TEST_P(CatalogueTest, FailsInOneLineAndWritesNothing) {
  const BadInput& c = GetParam();
  const std::string input = in_dir_ + "/" + c.name + ".onnx";
  c.write(input);
  std::vector<std::string> all_of;
  for (const std::string& s : c.all_of) all_of.push_back(s == "@" ? input : s);
  expectRefused(input, all_of, c.any_of);
  if (c.via_stdin_too) {
    SCOPED_TRACE("input on stdin, output on stdout");
    std::vector<std::string> stdin_all_of;
    for (const std::string& s : c.all_of) stdin_all_of.push_back(s == "@" ? "<stdin>" : s);
    expectCleanFailure(runTool(kTool, {"-", "-o", "-"}, io_dir_, input), stdin_all_of, c.any_of);
  }
}

INSTANTIATE_TEST_SUITE_P(Reliability, CatalogueTest, ::testing::ValuesIn(catalogue()),
                         [](const ::testing::TestParamInfo<BadInput>& info) {
                           return info.param.name;
                         });

// Every strict prefix of a small model: either no graph or a graph cut short.
TEST_F(BadInputTest, TruncatedAtEveryCutPoint) {
  const std::string bytes = serializeGraphLast(small());
  const std::string input = in_dir_ + "/truncated.onnx";
  const std::string existing = out_dir_ + "/existing.onnx";
  writeFile(existing, "keep me");
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut) + " of " + std::to_string(bytes.size()));
    writeFile(input, bytes.substr(0, cut));
    const ToolRun r = runTool(kTool, {"-q", input, "-o", existing}, io_dir_);
    expectCleanFailure(r, {input}, {"no graph", "truncated"});
    if (r.exit_code != 1) break;  // one report is enough
  }
  EXPECT_EQ(readFile(existing), "keep me");
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});
  writeFile(input, bytes);
  const ToolRun whole = runTool(kTool, {"-q", input, "-o", out_dir_ + "/whole.onnx"}, io_dir_);
  EXPECT_EQ(whole.exit_code, 0) << "the uncut model must load\n" << whole.describe();
}

// A valid model whose declared shapes hold 10^18-sized dims (and an Expand to such a shape) is
// optimized without allocating anything of that size: under a 1 GiB address-space limit.
TEST_F(BadInputTest, AbsurdDimsInShapesAreNeverAllocated) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve more address space than the limit allows";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  GTEST_SKIP() << "sanitizers reserve more address space than the limit allows";
#endif
#endif
  const std::string input = in_dir_ + "/absurd.onnx";
  writeFile(input, named(parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
absurd (float[1000000000000000000, 3] X, float[3,4] W) => (float[1000000000000000000, 4] Y)
<int64[2] shape = {1000000000000000000, 3}>
{
  E = Expand(X, shape)
  M = MatMul(E, W)
  Wt = Transpose<perm = [1, 0]>(W)
  Y = Identity(M)
}
)"), {"expand", "matmul", "flip", "out"}).SerializeAsString());
  struct rlimit old_limit;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old_limit), 0);
  struct rlimit limit = old_limit;
  limit.rlim_cur = rlim_t{1} << 30;
  if (old_limit.rlim_max != RLIM_INFINITY && old_limit.rlim_max < limit.rlim_cur) {
    limit.rlim_cur = old_limit.rlim_max;
  }
  // The child inherits the limit; this process only forks under it.
  ASSERT_EQ(setrlimit(RLIMIT_AS, &limit), 0) << std::strerror(errno);
  const pid_t pid = startTool(kTool, {"-q", input, "-o", out_dir_ + "/out.onnx"}, "/dev/null",
                              io_dir_ + "/stdout", io_dir_ + "/stderr");
  ASSERT_EQ(setrlimit(RLIMIT_AS, &old_limit), 0);
  ToolRun r;
  waitForTool(pid, &r);
  r.err = readFile(io_dir_ + "/stderr");
  EXPECT_EQ(r.exit_code, 0) << r.describe();
}

}  // namespace
}  // namespace onnxopt::testing

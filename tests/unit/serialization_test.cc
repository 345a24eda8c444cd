#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "test_models.h"

namespace onnxopt::ir {
namespace {

namespace fs = std::filesystem;
using onnxopt::testing::parseProto;

constexpr char kLinear[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
linear (float[N,4] X) => (float[N,3] Y) <float[3,4] W = {1,2,3,4,5,6,7,8,9,10,11,12}, float[3] B = {1,2,3}> {
  Y = Gemm<transB = 1>(X, W, B)
}
)";

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void writeFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "onnxopt_test_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string serialize(const onnx::ModelProto& proto) {
  std::string bytes;
  proto.SerializeToString(&bytes);
  return bytes;
}

std::string roundTrip(const std::string& bytes) {
  auto model = loadModelFromBytes(bytes);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return "";
  EXPECT_TRUE(verify(**model).ok());
  auto saved = saveModelToBytes(**model);
  EXPECT_TRUE(saved.ok()) << saved.status();
  return saved.ok() ? *saved : "";
}

TEST(SerializationTest, WhatTheIrDoesNotModelSurvives) {
  onnx::ModelProto proto = parseProto(R"(
<ir_version: 10, opset_import: ["" : 21, "custom.domain" : 1], producer_name: "exporter",
 producer_version: "9.9", domain: "ai.example", model_version: 3, doc_string: "model doc">
g (float[N,4] X) => (float[N,4] Y) <float[4] W = {1,2,3,4}> {
  A = Add(X, W)
  Y = custom.domain.Thing<note = "kept", alpha = 0.5, sizes = [1, 2]>(A)
}
)");
  auto* meta = proto.add_metadata_props();
  meta->set_key("author");
  meta->set_value("someone");
  proto.mutable_graph()->set_doc_string("graph doc");
  proto.mutable_graph()->mutable_node(0)->set_doc_string("node doc");
  auto* info = proto.mutable_graph()->add_value_info();
  info->set_name("A");
  info->set_doc_string("value doc");
  info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  proto.mutable_graph()->add_value_info()->set_name("no_such_value");
  auto* annotation = proto.mutable_graph()->add_quantization_annotation();
  annotation->set_tensor_name("A");
  auto* function = proto.add_functions();
  function->set_name("Thing");
  function->set_domain("custom.domain");
  function->add_input("x");
  function->add_output("y");
  auto* body = function->add_node();
  body->set_op_type("Identity");
  body->add_input("x");
  body->add_output("y");
  proto.add_training_info()->mutable_algorithm()->set_name("train");
  auto* sparse = proto.mutable_graph()->add_sparse_initializer();
  sparse->mutable_values()->set_name("S");
  sparse->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
  sparse->mutable_values()->add_dims(1);
  sparse->mutable_values()->add_float_data(2.5f);
  sparse->add_dims(4);
  // Fields from ONNX versions newer than 1.12 arrive as unknown fields, at every level.
  proto.mutable_unknown_fields()->AddVarint(99, 1);
  proto.mutable_graph()->mutable_unknown_fields()->AddLengthDelimited(98, "graph extra");
  proto.mutable_graph()->mutable_node(1)->mutable_unknown_fields()->AddVarint(97, 7);
  proto.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_unknown_fields()->AddVarint(
      96, 3);
  proto.mutable_graph()->mutable_input(0)->mutable_unknown_fields()->AddFixed32(95, 5);
  proto.mutable_graph()->mutable_initializer(0)->mutable_unknown_fields()->AddVarint(94, 4);

  const std::string bytes = serialize(proto);
  EXPECT_EQ(roundTrip(bytes), bytes);
}

TEST(SerializationTest, WeightsAreMovedNotCopied) {
  onnx::ModelProto proto = parseProto(kLinear);
  onnx::TensorProto* weight = proto.mutable_graph()->mutable_initializer(0);
  weight->set_raw_data(std::string(3 << 20, 'w'));  // float[3, 2^18]
  weight->clear_float_data();
  weight->set_dims(1, 1 << 18);
  const char* bytes_before = weight->raw_data().data();
  auto model = importModel(std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor& tensor = *(*model)->graph().initializers()[0]->initializer();
  EXPECT_EQ(tensor.proto().raw_data().data(), bytes_before) << "the import copied the weights";
  ASSERT_TRUE(saveModelToBytes(**model).ok());
  EXPECT_EQ(tensor.proto().raw_data().data(), bytes_before)
      << "saving must lend the weights and give the same buffer back";
}

TEST(SerializationTest, ConsumingExportMovesTheWeights) {
  onnx::ModelProto proto = parseProto(kLinear);
  onnx::TensorProto* weight = proto.mutable_graph()->mutable_initializer(0);
  weight->clear_float_data();
  weight->set_dims(1, 1 << 18);
  weight->set_raw_data(std::string(3 << 20, 'w'));  // float[3, 2^18]
  const std::string expected = serialize(proto);
  auto model = loadModelFromBytes(expected);
  ASSERT_TRUE(model.ok()) << model.status();
  const char* bytes_before = (*model)->graph().initializers()[0]->initializer()->proto().raw_data().data();
  auto exported = exportModel(*std::move(model));
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(exported->graph().initializer(0).raw_data().data(), bytes_before);
  EXPECT_EQ(serialize(*exported), expected);
}

TEST(SerializationTest, BadBytesAreErrorsNotCrashes) {
  auto empty = loadModelFromBytes("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "the model is empty (0 bytes)");

  auto garbage = loadModelFromBytes("\xff\xff\xff\xff garbage");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("not a valid ONNX model"), std::string::npos);

  const std::string good = serialize(parseProto(kLinear));
  for (size_t cut = 1; cut < good.size(); ++cut) {
    auto truncated = loadModelFromBytes(absl::string_view(good).substr(0, cut));
    if (truncated.ok()) EXPECT_TRUE(verify(**truncated).ok()) << "cut at " << cut;
  }
}

TEST(SerializationTest, TextLoadsAndBadTextIsAnErrorNotACrash) {
  auto model = loadModelFromText(kLinear);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->graph().name(), "linear");

  auto syntax = loadModelFromText("<ir_version: 8> linear (float[2] X) => (");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("not valid ONNX text syntax"), std::string::npos);

  // OnnxParser itself throws std::out_of_range from std::stof / std::stoll on these.
  for (const char* constant : {"float[1] c = {1e999}", "int64[1] c = {99999999999999999999}"}) {
    const std::string text = absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1] X) => (float[1] Y) <)", constant, R"(> {
  Y = Identity(X)
})");
    auto out_of_range = loadModelFromText(text);
    ASSERT_FALSE(out_of_range.ok()) << constant;
    EXPECT_NE(out_of_range.status().message().find("number literal cannot be converted"),
              std::string::npos)
        << out_of_range.status();
  }

  // A NUL byte would end the parser's C string early, dropping the rest without a word.
  const std::string with_nul = std::string(kLinear) + '\0' + "garbage";
  auto nul = loadModelFromText(with_nul);
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("NUL byte at offset"), std::string::npos);
}

TEST(SerializationTest, ErrorsNameTheElement) {
  onnx::ModelProto dangling = parseProto(kLinear);
  dangling.mutable_graph()->mutable_node(0)->set_name("fc");
  dangling.mutable_graph()->mutable_node(0)->set_input(1, "missing");
  auto status = loadModelFromBytes(serialize(dangling)).status();
  EXPECT_EQ(status.message(),
            "node 'fc' (Gemm): input 'missing' is not defined by any node, graph input or "
            "initializer");

  onnx::ModelProto twice = parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) { Y = Relu(X)  Y = Neg(X) }
)");
  twice.mutable_graph()->mutable_node(1)->set_name("second");
  status = loadModelFromBytes(serialize(twice)).status();
  EXPECT_EQ(status.message(), "value 'Y' is produced twice: by node 'second' (Neg) and by an earlier node");

  onnx::ModelProto output_named_as_initializer = parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) <float[2] W = {1, 2}> { W = Relu(X)  Y = Neg(W) }
)");
  output_named_as_initializer.mutable_graph()->mutable_node(0)->set_name("first");
  status = loadModelFromBytes(serialize(output_named_as_initializer)).status();
  EXPECT_EQ(status.message(),
            "value 'W' is produced twice: by node 'first' (Relu) and as a graph input or "
            "initializer");

  onnx::ModelProto two_initializers = parseProto(kLinear);
  *two_initializers.mutable_graph()->add_initializer() = two_initializers.graph().initializer(0);
  status = loadModelFromBytes(serialize(two_initializers)).status();
  EXPECT_EQ(status.message(), "initializer '" + two_initializers.graph().initializer(0).name() +
                                  "' is defined twice");

  onnx::ModelProto unknown_type = parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] X) => (float[3,2] Y) { Y = Transpose<perm = [1, 0]>(X) }
)");
  auto* attribute = unknown_type.mutable_graph()->mutable_node(0)->mutable_attribute(0);
  attribute->clear_type();
  attribute->mutable_unknown_fields()->AddVarint(20, 77);  // an enum value ONNX does not define
  status = loadModelFromBytes(serialize(unknown_type)).status();
  EXPECT_EQ(status.message(), "node with output 'Y' (Transpose): attribute 'perm' has an unknown type");

  onnx::ModelProto unknown_location = parseProto(kLinear);
  onnx::TensorProto* weight = unknown_location.mutable_graph()->mutable_initializer(0);
  weight->mutable_unknown_fields()->AddVarint(14, 7);  // data_location: neither DEFAULT nor EXTERNAL
  status = loadModelFromBytes(serialize(unknown_location)).status();
  EXPECT_EQ(status.message(), "tensor '" + weight->name() +
                                  "': field 'data_location' has the value 7, which is not a "
                                  "DataLocation");

  onnx::ModelProto input_twice = parseProto(kLinear);
  *input_twice.mutable_graph()->add_input() = input_twice.graph().input(0);
  status = loadModelFromBytes(serialize(input_twice)).status();
  EXPECT_EQ(status.message(),
            "graph input '" + input_twice.graph().input(0).name() + "' is declared twice");

  onnx::ModelProto two_imports = parseProto(kLinear);
  two_imports.add_opset_import()->set_version(21);
  status = loadModelFromBytes(serialize(two_imports)).status();
  EXPECT_EQ(status.message(),
            "the model imports the ONNX domain twice (opsets 13 and 21): which one its nodes "
            "follow is ambiguous");
  onnx::ModelProto many_domains = parseProto(kLinear);
  for (const char* domain :
       {"ai.onnx.ml", "com.microsoft", "com.microsoft.nchwc", "ai.onnx.training"}) {
    onnx::OperatorSetIdProto* opset = many_domains.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(1);
  }
  EXPECT_TRUE(loadModelFromBytes(serialize(many_domains)).ok()) << "each domain once";
  onnx::ModelProto custom_twice = parseProto(kLinear);
  for (int version : {1, 1}) {
    onnx::OperatorSetIdProto* opset = custom_twice.add_opset_import();
    opset->set_domain("com.example");
    opset->set_version(version);
  }
  status = loadModelFromBytes(serialize(custom_twice)).status();
  EXPECT_EQ(status.message(),
            "the model imports the domain 'com.example' twice (opsets 1 and 1): which one its "
            "nodes follow is ambiguous");

  onnx::ModelProto no_output = parseProto(kLinear);
  no_output.mutable_graph()->mutable_output(0)->set_name("nowhere");
  status = loadModelFromBytes(serialize(no_output)).status();
  EXPECT_EQ(status.message(),
            "graph output 'nowhere' is not defined by any node, graph input or initializer");
}

TEST(SerializationTest, FileErrorsNameTheFile) {
  TempDir dir;
  auto missing = loadModelFromFile((dir / "missing.onnx").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing.onnx: cannot open the model"),
            std::string::npos);
  auto folder = loadModelFromFile(dir.path().string());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("is a folder"), std::string::npos);
  writeFile(dir / "junk.onnx", "junk");
  auto junk = loadModelFromFile((dir / "junk.onnx").string());
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.status().message().find("junk.onnx: not a valid ONNX model"), std::string::npos);
  const std::string empty_path = (dir / "empty.onnx").string();
  writeFile(empty_path, "");
  auto empty = loadModelFromFile(empty_path);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), empty_path + ": the file is empty");
}

TEST(SerializationTest, AMissingOutputFolderIsNamed) {
  TempDir dir;
  auto model = importModel(parseProto(kLinear));
  ASSERT_TRUE(model.ok());
  const std::string folder = (dir / "no_such_dir").string();
  const std::string path = folder + "/out.onnx";
  const std::string expected = path + ": the folder '" + folder + "' does not exist";
  EXPECT_EQ(saveModelToFile(**model, path).message(), expected);
  EXPECT_EQ(writeFileAtomically(path, "text").message(), expected);
}

// The saver writes a new file and renames it over the old one: the old one's mode and owner
// must carry over, not those of a file created afresh.
TEST(SerializationTest, ReplacingAFileKeepsItsModeAndOwner) {
  TempDir dir;
  auto model = importModel(parseProto(kLinear));
  ASSERT_TRUE(model.ok());
  const std::string path = (dir / "out.onnx").string();
  for (const mode_t mode : {mode_t{0600}, mode_t{0755}}) {
    SCOPED_TRACE(::testing::Message() << "mode " << std::oct << mode);
    writeFile(path, "old");
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
    ASSERT_TRUE(saveModelToFile(**model, path).ok());
    struct stat info;
    ASSERT_EQ(stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, mode) << std::oct << (info.st_mode & 0777);
    ASSERT_TRUE(writeFileAtomically(path, "text").ok());
    ASSERT_EQ(stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, mode) << std::oct << (info.st_mode & 0777);
  }
  if (geteuid() != 0) GTEST_SKIP() << "giving a file to another owner needs root";
  constexpr uid_t kOtherUser = 12345;
  constexpr gid_t kOtherGroup = 23456;
  ASSERT_EQ(chown(path.c_str(), kOtherUser, kOtherGroup), 0);
  ASSERT_TRUE(saveModelToFile(**model, path).ok());
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, kOtherUser);
  EXPECT_EQ(info.st_gid, kOtherGroup);
}

// Writes kLinear with W in "weights.bin" next to the model.
fs::path writeExternalModel(const TempDir& dir, const std::string& location = "weights.bin",
                            int64_t length = 48, const std::string& offset = "16") {
  onnx::ModelProto proto = parseProto(kLinear);
  onnx::TensorProto* weight = proto.mutable_graph()->mutable_initializer(0);
  std::string bytes(reinterpret_cast<const char*>(weight->float_data().data()),
                    weight->float_data_size() * sizeof(float));
  weight->clear_float_data();
  weight->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [weight](const char* key, const std::string& value) {
    auto* entry = weight->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add("location", location);
  add("offset", offset);
  add("length", std::to_string(length));
  writeFile(dir / "weights.bin", std::string(16, '\0') + bytes);
  const fs::path model_path = dir / "model.onnx";
  writeFile(model_path, serialize(proto));
  return model_path;
}

TEST(SerializationTest, ExternalDataIsReadOnlyWhenNeeded) {
  TempDir dir;
  const fs::path model_path = writeExternalModel(dir);
  auto model = loadModelFromFile(model_path.string());
  ASSERT_TRUE(model.ok()) << model.status();
  std::shared_ptr<Tensor> weight = (*model)->graph().initializers()[0]->initializer();
  ASSERT_TRUE(weight->isExternal());
  EXPECT_FALSE(weight->proto().has_raw_data());
  // Bytes written after loading are the ones read: nothing was read at load time.
  std::string changed = readFile(dir / "weights.bin");
  changed[16] = 'Z';
  writeFile(dir / "weights.bin", changed);
  ASSERT_TRUE(weight->loadExternalData().ok());
  EXPECT_FALSE(weight->isExternal());
  EXPECT_EQ(weight->proto().raw_data().size(), 48u);
  EXPECT_EQ(weight->proto().raw_data()[0], 'Z');
}

// Saved in place, a model whose W lives in "model.onnx.data" must write that file anew when B
// is moved out of line (to fit a size limit): W is copied into the new file from the old one
// before it replaces it, rather than left pointing at bytes that are gone.
TEST(SerializationTest, RewritingTheDataFileKeepsTheTensorsItHeld) {
  TempDir dir;
  const fs::path model_path = writeExternalModel(dir, "model.onnx.data");
  fs::rename(dir / "weights.bin", dir / "model.onnx.data");
  auto model = loadModelFromFile(model_path.string());
  ASSERT_TRUE(model.ok()) << model.status();
  onnx::TensorProto& bias = (*model)->graph().initializers()[1]->initializer()->mutableProto();
  bias.set_raw_data(std::string(reinterpret_cast<const char*>(bias.float_data().data()),
                                bias.float_data_size() * sizeof(float)));
  bias.clear_float_data();
  auto inline_size = saveModelToBytes(**model);
  ASSERT_TRUE(inline_size.ok()) << inline_size.status();
  SaveOptions options;
  options.max_inline_bytes = static_cast<int64_t>(inline_size->size()) - 1;  // B must go out
  ASSERT_TRUE(saveModelToFile(**model, model_path.string(), options).ok());
  model->reset();

  auto saved = loadModelFromFile(model_path.string(), LoadOptions{"", /*load_external_data=*/true});
  ASSERT_TRUE(saved.ok()) << saved.status();
  const auto initializers = (*saved)->graph().initializers();
  const std::vector<float> expected_w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<float> expected_b = {1, 2, 3};
  EXPECT_EQ(initializers[0]->initializer()->proto().raw_data(),
            std::string(reinterpret_cast<const char*>(expected_w.data()), 48));
  EXPECT_EQ(initializers[1]->initializer()->proto().raw_data(),
            std::string(reinterpret_cast<const char*>(expected_b.data()), 12));
}

TEST(SerializationTest, ExternalDataStaysPutInTheSameFolder) {
  TempDir dir;
  const fs::path model_path = writeExternalModel(dir);
  const std::string original = readFile(model_path);
  auto model = loadModelFromFile(model_path.string());
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(saveModelToFile(**model, (dir / "copy.onnx").string()).ok());
  EXPECT_EQ(readFile(dir / "copy.onnx"), original);
  EXPECT_FALSE(fs::exists(dir / "copy.onnx.data"));
  // Saving over the input itself is safe too.
  ASSERT_TRUE(saveModelToFile(**model, model_path.string()).ok());
  EXPECT_EQ(readFile(model_path), original);
}

TEST(SerializationTest, ExternalDataIsCopiedNextToAnOutputElsewhere) {
  TempDir source, target;
  const fs::path model_path = writeExternalModel(source);
  auto model = loadModelFromFile(model_path.string());
  ASSERT_TRUE(model.ok()) << model.status();
  fs::create_directories(target / "sub");
  const fs::path output = target / "sub" / "out.onnx";
  ASSERT_TRUE(saveModelToFile(**model, output.string()).ok());
  ASSERT_TRUE(fs::exists(target / "sub" / "out.onnx.data"));
  fs::remove_all(source.path());  // the copy must stand on its own

  auto reloaded = loadModelFromFile(output.string(), LoadOptions{"", true});
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  const Tensor& weight = *(*reloaded)->graph().initializers()[0]->initializer();
  EXPECT_EQ(weight.proto().raw_data().size(), 48u);
  float first;
  std::memcpy(&first, weight.proto().raw_data().data(), sizeof first);
  EXPECT_EQ(first, 1.0f);
  for (const auto& entry : (*reloaded)->graph().initializers()[0]->initializer()->proto().external_data()) {
    if (entry.key() == "location") EXPECT_EQ(entry.value(), "out.onnx.data");
  }
}

TEST(SerializationTest, ExternalDataThatEscapesOrIsBrokenIsRefused) {
  struct Case {
    std::string location;
    int64_t length;
    std::string expected;
    std::string offset = "16";
  };
  TempDir outside;
  writeFile(outside / "secret.bin", std::string(64, 's'));
  const std::vector<Case> cases = {
      {"/etc/passwd", 48, "tensor 'W': external data location '/etc/passwd' is absolute"},
      {"../weights.bin", 48, "location '../weights.bin' leaves the model's folder ('..')"},
      {"sub/../../weights.bin", 48, "leaves the model's folder"},
      {"link.bin", 48, "resolves outside the model's folder (through a symlink)"},
      {"absent.bin", 48, "file 'absent.bin' not found next to the model"},
      {"weights.bin", 4096, "runs past the end of 'weights.bin' (64 bytes)"},
      {"weights.bin", 40, "holds 40 bytes but the dims and type need 48"},
      {"sub", 48, "location 'sub' is not a regular file"},
      {"weights.bin", -1, "has an invalid length '-1'"},
      {"weights.bin", 48, "has an invalid offset 'x16'", "x16"},
      {"weights.bin", 48, "has an invalid offset '-16'", "-16"},
      {"weights.bin", 0, "offset 100 is past the end of 'weights.bin' (64 bytes)", "100"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.location);
    TempDir dir;
    fs::create_symlink(outside / "secret.bin", dir / "link.bin");
    fs::create_directory(dir / "sub");
    const fs::path model_path = writeExternalModel(dir, c.location, c.length, c.offset);
    auto model = loadModelFromFile(model_path.string());
    ASSERT_FALSE(model.ok());
    EXPECT_NE(model.status().message().find(c.expected), std::string::npos) << model.status();
    EXPECT_EQ(model.status().message().rfind(model_path.string(), 0), 0u) << "names the file";
  }
}

TEST(SerializationTest, ModelsOverTheInlineLimitGetExternalData) {
  TempDir dir;
  onnx::ModelProto proto = parseProto(kLinear);
  onnx::TensorProto* weight = proto.mutable_graph()->mutable_initializer(0);
  weight->clear_float_data();
  weight->set_dims(1, 4096);
  std::string bytes(3 * 4096 * sizeof(float), '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  weight->set_raw_data(bytes);
  auto model = importModel(std::move(proto));
  ASSERT_TRUE(model.ok());
  SaveOptions options;
  options.max_inline_bytes = 4096;
  const fs::path output = dir / "big.onnx";
  ASSERT_TRUE(saveModelToFile(**model, output.string(), options).ok());
  EXPECT_LT(fs::file_size(output), 4096u);
  ASSERT_TRUE(fs::exists(dir / "big.onnx.data"));
  EXPECT_EQ((*model)->graph().initializers()[0]->initializer()->proto().raw_data(), bytes)
      << "saving must leave the IR as it was";

  auto reloaded = loadModelFromFile(output.string(), LoadOptions{"", true});
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ((*reloaded)->graph().initializers()[0]->initializer()->proto().raw_data(), bytes);
  EXPECT_EQ(saveModelToBytes(**reloaded).ok(), true);
}

TEST(SerializationTest, ModelsOverTwoGiBAreSavedWithExternalData) {
  TempDir dir;
  onnx::ModelProto proto = parseProto(kLinear);
  onnx::TensorProto* weight = proto.mutable_graph()->mutable_initializer(0);
  weight->clear_float_data();
  const int64_t columns = (int64_t{9} << 30) / 4 / 3 / 4;  // 2.25 GiB of floats in all
  weight->set_dims(1, columns);
  weight->mutable_raw_data()->resize(static_cast<size_t>(3 * columns * 4), '\x01');
  auto model = importModel(std::move(proto));
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(saveModelToBytes(**model).ok()) << "bytes cannot hold it";
  const fs::path output = dir / "huge.onnx";
  absl::Status saved = saveModelToFile(**model, output.string());
  ASSERT_TRUE(saved.ok()) << saved;
  EXPECT_LT(fs::file_size(output), 4096u);
  EXPECT_GE(fs::file_size(dir / "huge.onnx.data"), static_cast<uintmax_t>(3 * columns * 4));
  model->reset();
  auto reloaded = loadModelFromFile(output.string());
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_TRUE((*reloaded)->graph().initializers()[0]->initializer()->isExternal());
}

TEST(SerializationTest, DevicesAreWrittenInPlaceAndSymlinksKept) {
  auto model = importModel(parseProto(kLinear));
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE(saveModelToFile(**model, "/dev/null").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));

  TempDir dir;
  writeFile(dir / "target.onnx", "old");
  fs::create_symlink(dir / "target.onnx", dir / "link.onnx");
  ASSERT_TRUE(saveModelToFile(**model, (dir / "link.onnx").string()).ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.onnx"));
  EXPECT_EQ(readFile(dir / "target.onnx"), serialize(parseProto(kLinear)));
}

TEST(SerializationTest, FailedSavesLeaveNothingBehind) {
  TempDir dir;
  auto model = importModel(parseProto(kLinear));
  ASSERT_TRUE(model.ok());
  auto status = saveModelToFile(**model, (dir / "no_such_dir" / "out.onnx").string());
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(fs::is_empty(dir.path()));
  fs::create_directories(dir / "taken");
  status = saveModelToFile(**model, (dir / "taken").string());
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// kLinear with W as 3 x `columns` floats of raw data.
std::unique_ptr<Model> linearWithRawWeight(int64_t columns) {
  onnx::ModelProto proto = parseProto(kLinear);
  onnx::TensorProto* weight = proto.mutable_graph()->mutable_initializer(0);
  weight->clear_float_data();
  weight->set_dims(1, columns);
  weight->set_raw_data(std::string(3 * columns * sizeof(float), '\x01'));
  auto model = importModel(std::move(proto));
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : std::make_unique<Model>();
}

struct ProgressCall {
  int64_t done;
  int64_t total;
  bool operator==(const ProgressCall& other) const {
    return done == other.done && total == other.total;
  }
};

// Checks that `calls` count up (done never decreases) and end at (`end`, `end`).
void expectCountsUpTo(const std::vector<ProgressCall>& calls, int64_t end) {
  ASSERT_GE(calls.size(), 3u) << "a model of several MiB is read or written in several buffers";
  for (size_t i = 1; i < calls.size(); ++i) {
    EXPECT_LE(calls[i - 1].done, calls[i].done) << "call " << i;
  }
  EXPECT_EQ(calls.back(), (ProgressCall{end, end}));
}

TEST(SerializationTest, LoadingReportsBytesParsedOfTheWhole) {
  TempDir dir;
  const fs::path path = dir / "model.onnx";
  ASSERT_TRUE(saveModelToFile(*linearWithRawWeight(int64_t{1} << 18), path.string()).ok());
  const int64_t size = static_cast<int64_t>(fs::file_size(path));
  ASSERT_GT(size, 3 << 20);

  std::vector<ProgressCall> calls;
  LoadOptions options;
  options.progress = [&calls](int64_t done, int64_t total) { calls.push_back({done, total}); };
  auto from_file = loadModelFromFile(path.string(), options);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  expectCountsUpTo(calls, size);
  for (const ProgressCall& call : calls) EXPECT_EQ(call.total, size);

  calls.clear();
  auto from_bytes = loadModelFromBytes(readFile(path), options);
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status();
  expectCountsUpTo(calls, size);
  EXPECT_EQ(saveModelToBytes(**from_bytes).value(), readFile(path)) << "progress changes nothing";
}

TEST(SerializationTest, SavingReportsBytesWrittenIncludingExternalData) {
  TempDir dir;
  std::unique_ptr<Model> model = linearWithRawWeight(int64_t{1} << 18);
  std::vector<ProgressCall> calls;
  SaveOptions options;
  options.progress = [&calls](int64_t done, int64_t total) { calls.push_back({done, total}); };
  const fs::path inline_path = dir / "inline.onnx";
  ASSERT_TRUE(saveModelToFile(*model, inline_path.string(), options).ok());
  const int64_t size = static_cast<int64_t>(fs::file_size(inline_path));
  expectCountsUpTo(calls, size);
  for (const ProgressCall& call : calls) EXPECT_EQ(call.total, size);
  ASSERT_TRUE(saveModelToFile(*model, (dir / "plain.onnx").string()).ok());
  EXPECT_EQ(readFile(inline_path), readFile(dir / "plain.onnx")) << "progress changes nothing";

  // Moved out to external data: those bytes come first, with the total not yet known.
  calls.clear();
  options.max_inline_bytes = 4096;
  const fs::path outlined = dir / "outlined.onnx";
  ASSERT_TRUE(saveModelToFile(*model, outlined.string(), options).ok());
  const int64_t data_size = static_cast<int64_t>(fs::file_size(dir / "outlined.onnx.data"));
  expectCountsUpTo(calls, data_size + static_cast<int64_t>(fs::file_size(outlined)));
  EXPECT_EQ(calls.front(), (ProgressCall{data_size, -1}));
}


// write(2) calls this process has made so far (Linux's /proc/self/io), or -1 where unreadable.
int64_t writeCallsSoFar() {
  std::ifstream io("/proc/self/io");
  std::string key;
  int64_t count = 0;
  while (io >> key >> count) {
    if (key == "syscw:") return count;
  }
  return -1;
}

// protobuf 3.21's FileOutputStream writes 8 KiB per call whatever buffer size it is given: a
// 1 GiB model took 131,072 calls. A tensor's bytes now go to the file in one.
TEST(SerializationTest, BigTensorsAreWrittenInFewCalls) {
  if (writeCallsSoFar() < 0) GTEST_SKIP() << "/proc/self/io is not readable here";
  std::unique_ptr<Model> model = linearWithRawWeight(int64_t{1} << 20);  // 12 MiB
  const std::string expected = saveModelToBytes(*model).value();
  TempDir dir;
  const fs::path path = dir / "model.onnx";
  const int64_t before = writeCallsSoFar();
  ASSERT_TRUE(saveModelToFile(*model, path.string()).ok());
  EXPECT_LT(writeCallsSoFar() - before, 16) << "8 KiB at a time would take 1,536 calls";
  EXPECT_EQ(readFile(path), expected);
}

}  // namespace
}  // namespace onnxopt::ir

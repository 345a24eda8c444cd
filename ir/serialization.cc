#include "onnxopt/ir/serialization.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "external_data.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "onnx/defs/parser.h"
#include "proto_io.h"

namespace onnxopt::ir {
namespace {

std::string dirName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string baseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

absl::Status prefixed(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

absl::Status errnoError(const std::string& path, absl::string_view action) {
  return absl::UnavailableError(absl::StrCat(path, ": cannot ", action, ": ", std::strerror(errno)));
}

// `path` cannot be written because its folder `dir` is not there: a typo in the output path,
// most likely, which errno's "No such file or directory" would not make plain.
absl::Status folderMissing(const std::string& path, const std::string& dir) {
  return absl::UnavailableError(absl::StrCat(path, ": the folder '", dir, "' does not exist"));
}

absl::Status tooLarge(int64_t size) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "the model serializes to ", size,
      " bytes, over protobuf's 2 GiB limit; save it to a file so that its weights can be written "
      "as external data"));
}

// The temporary files being written, for removePendingFiles(), which a signal handler calls: so
// fixed slots and atomics, nothing that allocates or locks. A file that finds no free slot is
// still written safely; only a signal would leave it behind.
constexpr int kPendingSlots = 16;
std::atomic<const char*> pending_paths[kPendingSlots];

void registerPending(const char* path) {
  for (std::atomic<const char*>& slot : pending_paths) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, path)) return;
  }
}

void unregisterPending(const char* path) {
  for (std::atomic<const char*>& slot : pending_paths) {
    const char* expected = path;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

// A file written under a temporary name in its destination folder and renamed into place by
// commit() once complete and on disk; dropped (unlinked) otherwise, so a failure never leaves
// half a file behind, and an existing file is replaced whole or not at all.
class PendingFile {
 public:
  static absl::StatusOr<std::unique_ptr<PendingFile>> create(const std::string& path) {
    struct stat info;
    const bool exists = stat(path.c_str(), &info) == 0;
    if (exists && !S_ISREG(info.st_mode)) {
      // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place: renaming over it
      // would replace it with a regular file.
      const int fd = open(path.c_str(), O_WRONLY | O_TRUNC);
      if (fd < 0) return errnoError(path, "open for writing");
      return std::unique_ptr<PendingFile>(new PendingFile(path, std::string(), fd, std::nullopt));
    }
    std::string temp = absl::StrCat(dirName(path), "/.", baseName(path), ".tmpXXXXXX");
    const int fd = mkstemp(temp.data());
    if (fd < 0) {
      if (errno == ENOENT) return folderMissing(path, dirName(path));
      return errnoError(path, "create a temporary file");
    }
    return std::unique_ptr<PendingFile>(
        new PendingFile(path, std::move(temp), fd, exists ? std::make_optional(info) : std::nullopt));
  }
  ~PendingFile() {
    if (fd_ >= 0) close(fd_);
    if (!committed_ && !inPlace()) unlink(temp_.c_str());
    // After the unlink: a signal in between finds nothing to remove, never a file left behind.
    if (!inPlace()) unregisterPending(temp_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  // The file is fsync'ed before it replaces the output. Asking the kernel to start writing each
  // 16 MiB as it comes lets the disk work while the rest is serialized, instead of all of it
  // waiting for that fsync (1 GiB here: a median of 1.4 s in fsync before, 1.0 s with this).
  // Only a hint: a pipe or a device refuses it, and nothing changes.
  void wrote(int64_t bytes) {
    constexpr int64_t kWritebackStep = int64_t{16} << 20;
    not_yet_written_back_ += bytes;
    if (not_yet_written_back_ >= kWritebackStep) {
      sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
      not_yet_written_back_ = 0;
    }
  }

  absl::Status closeFile() {
    if (!inPlace()) {
      if (absl::Status status = setOwnerAndMode(); !status.ok()) return status;
      // On disk before the rename, so that a crash of the machine cannot put an empty or partial
      // file in place of the old one.
      if (fsync(fd_) != 0) return errnoError(path_, "write");
    }
    const int result = close(fd_);
    fd_ = -1;
    if (result != 0) return errnoError(path_, "write");
    return absl::OkStatus();
  }
  absl::Status commit() {
    if (fd_ >= 0) {
      absl::Status closed = closeFile();
      if (!closed.ok()) return closed;
    }
    if (!inPlace() && rename(temp_.c_str(), path_.c_str()) != 0) {
      return errnoError(path_, "rename into place");
    }
    committed_ = true;
    return absl::OkStatus();
  }

 private:
  PendingFile(std::string path, std::string temp, int fd, std::optional<struct stat> replaced)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(fd), replaced_(replaced) {
    if (!inPlace()) registerPending(temp_.c_str());
  }
  bool inPlace() const { return temp_.empty(); }

  // mkstemp creates the file 0600 and ours. A file it replaces keeps its permissions, and its
  // owner and group as far as we may give them: only root may give a file away, anyone may give
  // it a group they are in. A new file is as readable as any file the user creates.
  absl::Status setOwnerAndMode() {
    if (!replaced_) {
      const mode_t mask = umask(0);
      umask(mask);
      if (fchmod(fd_, 0666 & ~mask) != 0) return errnoError(path_, "set its mode");
      return absl::OkStatus();
    }
    if (fchown(fd_, replaced_->st_uid, replaced_->st_gid) != 0) {
      if (errno != EPERM) return errnoError(path_, "keep its owner");
      if (fchown(fd_, static_cast<uid_t>(-1), replaced_->st_gid) != 0 && errno != EPERM) {
        return errnoError(path_, "keep its group");
      }
    }
    if (fchmod(fd_, replaced_->st_mode & 0777) != 0) return errnoError(path_, "keep its mode");
    return absl::OkStatus();
  }

  std::string path_;
  std::string temp_;
  int fd_;
  std::optional<struct stat> replaced_;  // the file at path_ before, if there was one
  bool committed_ = false;
  int64_t not_yet_written_back_ = 0;
};

absl::Status writeAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t written = write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errnoError(path, "write");
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return absl::OkStatus();
}

// Forwards a stream and reports how far it has got after every buffer it hands out: a progress
// callback costs one call per buffer (8 KiB to 1 MiB), and no copy.
class ProgressInputStream final : public google::protobuf::io::ZeroCopyInputStream {
 public:
  ProgressInputStream(google::protobuf::io::ZeroCopyInputStream& source, int64_t total,
                      const ByteProgress& progress)
      : source_(source), total_(total), progress_(progress) {}
  bool Next(const void** data, int* size) override {
    if (!source_.Next(data, size)) return false;
    progress_(source_.ByteCount(), total_);
    return true;
  }
  void BackUp(int count) override { source_.BackUp(count); }
  bool Skip(int count) override { return source_.Skip(count); }
  int64_t ByteCount() const override { return source_.ByteCount(); }

 private:
  google::protobuf::io::ZeroCopyInputStream& source_;
  const int64_t total_;
  const ByteProgress& progress_;
};

// The same for writing; `base` bytes were written before this stream (to external data).
class ProgressOutputStream final : public google::protobuf::io::ZeroCopyOutputStream {
 public:
  ProgressOutputStream(google::protobuf::io::ZeroCopyOutputStream& sink, int64_t base,
                       int64_t total, const ByteProgress& progress)
      : sink_(sink), base_(base), total_(total), progress_(progress) {}
  // Reports what the writer has filled so far, not the buffer handed out, which it may back up.
  bool Next(void** data, int* size) override {
    progress_(base_ + sink_.ByteCount(), total_);
    return sink_.Next(data, size);
  }
  void BackUp(int count) override { sink_.BackUp(count); }
  int64_t ByteCount() const override { return sink_.ByteCount(); }
  bool WriteAliasedRaw(const void* data, int size) override {
    progress_(base_ + sink_.ByteCount(), total_);
    return sink_.WriteAliasedRaw(data, size);
  }
  bool AllowsAliasing() const override { return sink_.AllowsAliasing(); }

 private:
  google::protobuf::io::ZeroCopyOutputStream& sink_;
  const int64_t base_;
  const int64_t total_;
  const ByteProgress& progress_;
};

// Writes to a file descriptor in the buffers CopyingOutputStreamAdaptor hands it, and bytes it
// may alias (a tensor's raw_data) in one call. protobuf 3.21's FileOutputStream ignores its
// block_size and writes 8 KiB at a time: 131,072 write calls for a 1 GiB model.
class FdCopyingStream final : public google::protobuf::io::CopyingOutputStream {
 public:
  explicit FdCopyingStream(PendingFile& file) : file_(file) {}
  bool Write(const void* buffer, int size) override {
    status_ = writeAll(file_.fd(), static_cast<const char*>(buffer), static_cast<size_t>(size),
                       file_.path());
    if (status_.ok()) file_.wrote(size);
    return status_.ok();
  }
  const absl::Status& status() const { return status_; }

 private:
  PendingFile& file_;
  absl::Status status_;
};

// Appends tensors' bytes to one data file and hands out the protos that point at them.
class ExternalDataWriter {
 public:
  ExternalDataWriter(std::string model_dir, std::string file_name, const ByteProgress& progress)
      : model_dir_(std::move(model_dir)), file_name_(std::move(file_name)), progress_(progress) {}

  absl::Status append(const Value& value, const onnx::TensorProto& source, absl::string_view bytes) {
    if (!file_) {
      auto file = PendingFile::create(absl::StrCat(model_dir_, "/", file_name_));
      if (!file.ok()) return file.status();
      file_ = *std::move(file);
    }
    // Aligned offsets let a runtime map the weights directly.
    constexpr int64_t kAlignment = 4096;
    const int64_t padding = (kAlignment - size_ % kAlignment) % kAlignment;
    if (padding > 0) {
      const std::string zeros(static_cast<size_t>(padding), '\0');
      absl::Status status = writeAll(file_->fd(), zeros.data(), zeros.size(), file_->path());
      if (!status.ok()) return status;
      size_ += padding;
    }
    absl::Status status = writeAll(file_->fd(), bytes.data(), bytes.size(), file_->path());
    if (!status.ok()) return status;
    file_->wrote(padding + static_cast<int64_t>(bytes.size()));

    onnx::TensorProto& proto = replacements_[&value];
    proto.CopyFrom(source);
    proto.clear_raw_data();
    proto.clear_external_data();
    auto add_entry = [&proto](const char* key, std::string entry_value) {
      auto* entry = proto.add_external_data();
      entry->set_key(key);
      entry->set_value(std::move(entry_value));
    };
    add_entry("location", file_name_);
    add_entry("offset", absl::StrCat(size_));
    add_entry("length", absl::StrCat(bytes.size()));
    proto.set_data_location(onnx::TensorProto::EXTERNAL);
    size_ += static_cast<int64_t>(bytes.size());
    if (progress_) progress_(size_, -1);
    return absl::OkStatus();
  }

  // Bytes written to the data file so far, padding included.
  int64_t bytesWritten() const { return size_; }

  const onnx::TensorProto* replacement(const Value& value) const {
    auto it = replacements_.find(&value);
    return it == replacements_.end() ? nullptr : &it->second;
  }

  absl::Status commit() { return file_ ? file_->commit() : absl::OkStatus(); }
  // Whether the data file will be written (and so replace any file of its name).
  bool writes() const { return file_ != nullptr; }
  const std::string& fileName() const { return file_name_; }

 private:
  std::string model_dir_;
  std::string file_name_;
  const ByteProgress& progress_;
  std::unique_ptr<PendingFile> file_;
  int64_t size_ = 0;
  absl::flat_hash_map<const Value*, onnx::TensorProto> replacements_;
};

template <typename Fn>
void forEachInitializer(const Graph& graph, Fn&& fn) {
  for (Value* value : graph.initializers()) {
    if (value->isInitializer()) fn(*value);
  }
  for (const Node& node : graph) {
    for (const Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) forEachInitializer(*subgraph, fn);
    }
  }
}

// The folder `dir` that `path` is to be written in, resolved.
absl::StatusOr<std::string> realDir(const std::string& path, const std::string& dir) {
  std::optional<std::string> resolved = realPathOf(dir);
  if (!resolved) {
    if (errno == ENOENT) return folderMissing(path, dir);
    return errnoError(dir, "open the output folder");
  }
  return *std::move(resolved);
}

absl::Status copyExternalData(const Value& value, ExternalDataWriter& writer) {
  const ExternalData& external = *value.initializer()->external();
  std::string bytes;
  absl::Status status = readFileRange(external.path, external.offset, external.length, &bytes);
  if (status.ok()) status = writer.append(value, value.initializer()->proto(), bytes);
  return status;
}

// External tensors whose data file is not where the output expects it are copied into the
// output's data file. Those that stay where they are, in the very file the writer replaces if it
// writes anything, go to `in_writers_file`.
absl::Status relocateExternalData(const Model& model, const std::string& output_dir,
                                  ExternalDataWriter& writer,
                                  std::vector<const Value*>* in_writers_file) {
  const std::optional<std::string> writers_file =
      realPathOf(absl::StrCat(output_dir, "/", writer.fileName()));
  // Where each distinct location points from the output's folder (tensors share data files).
  absl::flat_hash_map<std::string, std::optional<std::string>> real_paths;
  auto realPathFromOutput = [&](const std::string& location) -> const std::optional<std::string>& {
    auto [it, inserted] = real_paths.try_emplace(location);
    if (inserted) it->second = realPathOf(absl::StrCat(output_dir, "/", location));
    return it->second;
  };
  absl::Status status = absl::OkStatus();
  forEachInitializer(model.graph(), [&](const Value& value) {
    if (!status.ok() || !value.initializer()->isExternal()) return;
    const ExternalData& external = *value.initializer()->external();
    const std::optional<std::string>& there = realPathFromOutput(external.location);
    if (there && external.path == *there) {
      if (writers_file && external.path == *writers_file) in_writers_file->push_back(&value);
      return;
    }
    status = copyExternalData(value, writer);
  });
  return status;
}

// Inline raw-data initializers not yet moved out: what saving may write to external data.
std::vector<const Value*> inlineRawDataInitializers(const Model& model,
                                                    const ExternalDataWriter& writer) {
  std::vector<const Value*> inline_tensors;
  forEachInitializer(model.graph(), [&](const Value& value) {
    const Tensor& tensor = *value.initializer();
    if (!tensor.isExternal() && !writer.replacement(value) && tensor.proto().has_raw_data()) {
      inline_tensors.push_back(&value);
    }
  });
  return inline_tensors;
}

// Writes an inline tensor's bytes to the data file, straight from the model.
absl::Status moveOutOfLine(const Value& value, ExternalDataWriter& writer) {
  // Copy everything but the bytes: swap them out of the proto for the copy, then back.
  auto& proto = const_cast<onnx::TensorProto&>(value.initializer()->proto());
  std::string bytes;
  bytes.swap(*proto.mutable_raw_data());
  onnx::TensorProto metadata;
  metadata.CopyFrom(proto);
  bytes.swap(*proto.mutable_raw_data());
  return writer.append(value, metadata, proto.raw_data());
}

// A model that keeps its weights external gets the inline ones of `threshold` bytes or more
// (folded and fused weights, mostly) written alongside them, in model order.
absl::Status moveWeightsOverThreshold(const Model& model, int64_t threshold,
                                      ExternalDataWriter& writer) {
  for (const Value* value : inlineRawDataInitializers(model, writer)) {
    if (static_cast<int64_t>(value->initializer()->proto().raw_data().size()) < threshold) continue;
    if (absl::Status status = moveOutOfLine(*value, writer); !status.ok()) return status;
  }
  return absl::OkStatus();
}

// Moves the largest inline tensors out until the model fits under the limit.
absl::Status offloadLargeTensors(const Model& model, int64_t excess, ExternalDataWriter& writer) {
  std::vector<const Value*> candidates = inlineRawDataInitializers(model, writer);
  std::sort(candidates.begin(), candidates.end(), [](const Value* a, const Value* b) {
    return a->initializer()->proto().raw_data().size() > b->initializer()->proto().raw_data().size();
  });
  for (const Value* value : candidates) {
    if (excess <= 0) break;
    if (absl::Status status = moveOutOfLine(*value, writer); !status.ok()) return status;
    excess -= static_cast<int64_t>(value->initializer()->proto().raw_data().size());
  }
  if (excess > 0) {
    return absl::ResourceExhaustedError(
        "the model is over protobuf's 2 GiB limit even with every raw-data initializer stored "
        "as external data");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> loadModelFromFile(const std::string& path,
                                                         const LoadOptions& options) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return errnoError(path, "open the model");
  if (S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a folder, not a model file"));
  }
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return errnoError(path, "open the model");
  absl::Cleanup close_fd = [fd] { close(fd); };
  auto [model, proto] = newModelToParse();
  {
    google::protobuf::io::FileInputStream stream(fd, 1 << 20);
    ProgressInputStream counted(stream, info.st_size, options.progress);
    google::protobuf::io::ZeroCopyInputStream* source = &stream;
    if (options.progress) source = &counted;
    if (!proto->ParseFromZeroCopyStream(source)) {
      if (stream.GetErrno() != 0) {
        errno = stream.GetErrno();
        return errnoError(path, "read the model");
      }
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": not a valid ONNX model (the protobuf data is truncated, corrupt, nested too "
                "deeply, or 2 GiB or more)"));
    }
    if (options.progress) options.progress(stream.ByteCount(), info.st_size);
    // No bytes parse as a model without a graph: say what the user got wrong.
    if (stream.ByteCount() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": the file is empty"));
    }
  }
  auto imported = importModelFrom(std::move(model), proto, options, dirName(path));
  if (!imported.ok()) return prefixed(path, imported.status());
  return imported;
}

absl::StatusOr<std::unique_ptr<Model>> loadModelFromBytes(absl::string_view bytes,
                                                          const LoadOptions& options) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError("the model is 2 GiB or more: protobuf cannot parse it");
  }
  if (bytes.empty()) return absl::InvalidArgumentError("the model is empty (0 bytes)");
  auto [model, proto] = newModelToParse();
  const int size = static_cast<int>(bytes.size());
  bool parsed;
  if (options.progress) {
    google::protobuf::io::ArrayInputStream array(bytes.data(), size, 1 << 20);
    ProgressInputStream counted(array, size, options.progress);
    parsed = proto->ParseFromZeroCopyStream(&counted);
    if (parsed) options.progress(size, size);
  } else {
    parsed = proto->ParseFromArray(bytes.data(), size);
  }
  if (!parsed) {
    return absl::InvalidArgumentError(
        "not a valid ONNX model (the protobuf data is truncated, corrupt or nested too deeply)");
  }
  return importModelFrom(std::move(model), proto, options, options.external_data_dir);
}

absl::StatusOr<onnx::ModelProto> parseModelText(absl::string_view text) {
  // OnnxParser reads a C string: a NUL byte would end the text early, silently.
  if (const size_t nul = text.find('\0'); nul != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("the text holds a NUL byte at offset ", nul));
  }
  const std::string terminated(text);
  onnx::ModelProto proto;
  onnx::Common::Status parsed;
  // OnnxParser 1.12 converts number literals with std::stoi / std::stof and friends and lets
  // their exceptions (out of range, not a number) escape.
  try {
    parsed = onnx::OnnxParser::Parse(proto, terminated.c_str());
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not valid ONNX text syntax: a number literal cannot be converted (", e.what(), ")"));
  }
  if (!parsed.IsOK()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not valid ONNX text syntax: ", parsed.ErrorMessage()));
  }
  return proto;
}

absl::StatusOr<std::unique_ptr<Model>> loadModelFromText(absl::string_view text,
                                                         const LoadOptions& options) {
  absl::StatusOr<onnx::ModelProto> proto = parseModelText(text);
  if (!proto.ok()) return proto.status();
  return importModel(*std::move(proto), options);
}

absl::StatusOr<std::unique_ptr<Model>> importModel(onnx::ModelProto&& proto,
                                                   const LoadOptions& options) {
  // The model takes the caller's messages as they are: a heap proto, owned from now on (Swap
  // between heap messages moves pointers, no bytes).
  auto* owned = new onnx::ModelProto;
  owned->Swap(&proto);
  return importModelFrom(std::make_unique<Model>(), owned, options, options.external_data_dir);
}

absl::StatusOr<std::string> saveModelToBytes(const Model& model) {
  if (absl::Status status = checkGraphNesting(model.graph()); !status.ok()) return status;
  ProtoExporter exporter(ProtoExporter::Mode::kLend);
  const onnx::ModelProto& proto = exporter.lend(model);
  const size_t size = proto.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) return tooLarge(static_cast<int64_t>(size));
  // ByteSizeLong above cached every message's size: serialize with them, not a second pass.
  std::string bytes(size, '\0');
  proto.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(bytes.data()));
  return bytes;
}

absl::StatusOr<onnx::ModelProto> exportModel(const Model& model) {
  if (absl::Status status = checkGraphNesting(model.graph()); !status.ok()) return status;
  onnx::ModelProto proto;
  ProtoExporter exporter(ProtoExporter::Mode::kCopy);
  exporter.exportModel(model, &proto);
  return proto;
}

namespace {
// Every TensorProto of a graph (initializers, sparse values, tensor attributes, subgraphs), in an
// order that depends only on the proto's structure: a proto and its copy are walked alike.
template <typename Fn>
void forEachTensorProto(onnx::GraphProto& graph, Fn& fn) {
  for (onnx::TensorProto& tensor : *graph.mutable_initializer()) fn(tensor);
  for (onnx::SparseTensorProto& sparse : *graph.mutable_sparse_initializer()) {
    fn(*sparse.mutable_values());
  }
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_t()) fn(*attribute.mutable_t());
      for (onnx::TensorProto& tensor : *attribute.mutable_tensors()) fn(tensor);
      if (attribute.has_g()) forEachTensorProto(*attribute.mutable_g(), fn);
      for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) forEachTensorProto(subgraph, fn);
    }
  }
}
}  // namespace

absl::StatusOr<onnx::ModelProto> exportModel(std::unique_ptr<Model> model) {
  if (absl::Status status = checkGraphNesting(model->graph()); !status.ok()) return status;
  ProtoExporter exporter(ProtoExporter::Mode::kLend);
  auto& lent = const_cast<onnx::ModelProto&>(exporter.lend(*model));
  // The model is ours: take its weight bytes out, copy what is left, and put the bytes into the
  // copy's tensors, which the same walk visits in the same order.
  std::vector<std::string> weights;
  auto take = [&weights](onnx::TensorProto& tensor) {
    weights.emplace_back();
    if (tensor.has_raw_data()) weights.back().swap(*tensor.mutable_raw_data());
  };
  forEachTensorProto(*lent.mutable_graph(), take);
  onnx::ModelProto proto;
  proto.CopyFrom(lent);
  exporter.restore();
  size_t next = 0;
  auto give = [&weights, &next](onnx::TensorProto& tensor) {
    std::string& bytes = weights[next++];
    if (tensor.has_raw_data()) tensor.mutable_raw_data()->swap(bytes);
  };
  forEachTensorProto(*proto.mutable_graph(), give);
  return proto;
}

namespace {
// Writing through a symlink replaces its target and keeps the link.
std::string followSymlink(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    if (std::optional<std::string> target = realPathOf(path)) return *std::move(target);
  }
  return path;
}
}  // namespace

void removePendingFiles() {
  for (std::atomic<const char*>& slot : pending_paths) {
    if (const char* path = slot.load()) unlink(path);
  }
}

absl::Status checkWritable(const std::string& requested_path) {
  const std::string path = followSymlink(requested_path);
  struct stat info;
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return absl::InvalidArgumentError(absl::StrCat(path, ": is a folder"));
    // A device or a pipe is written in place; a file is replaced, which needs its folder only.
    if (!S_ISREG(info.st_mode) && access(path.c_str(), W_OK) != 0) {
      return errnoError(path, "open for writing");
    }
    if (!S_ISREG(info.st_mode)) return absl::OkStatus();
  }
  const std::string dir = dirName(path);
  if (stat(dir.c_str(), &info) != 0) {
    if (errno == ENOENT) return folderMissing(path, dir);
    return errnoError(dir, "open the output folder");
  }
  if (!S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": '", dir, "' is not a folder"));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) return errnoError(path, "write in its folder");
  return absl::OkStatus();
}

absl::Status writeFileAtomically(const std::string& requested_path, absl::string_view contents) {
  const std::string path = followSymlink(requested_path);
  auto pending = PendingFile::create(path);
  if (!pending.ok()) return pending.status();
  absl::Status status = writeAll((*pending)->fd(), contents.data(), contents.size(), path);
  if (!status.ok()) return status;
  return (*pending)->commit();
}

absl::Status saveModelToFile(const Model& model, const std::string& requested_path,
                             const SaveOptions& options) {
  if (absl::Status status = checkGraphNesting(model.graph()); !status.ok()) return status;
  const std::string path = followSymlink(requested_path);
  const std::string dir = dirName(path);
  auto real_dir = realDir(path, dir);
  if (!real_dir.ok()) return real_dir.status();
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a folder"));
  }
  ExternalDataWriter writer(
      dir, options.external_data_file.empty() ? baseName(path) + ".data" : options.external_data_file,
      options.progress);
  std::vector<const Value*> in_writers_file;
  absl::Status status = relocateExternalData(model, *real_dir, writer, &in_writers_file);
  if (!status.ok()) return status;
  if (model.keepsWeightsExternal()) {
    status = moveWeightsOverThreshold(model, options.external_data_threshold, writer);
    if (!status.ok()) return status;
  }

  auto replacement = [&writer](const Value& value) { return writer.replacement(value); };
  auto pending = PendingFile::create(path);
  if (!pending.ok()) return pending.status();
  {
    auto exporter = std::make_unique<ProtoExporter>(ProtoExporter::Mode::kLend, replacement);
    const onnx::ModelProto* proto = &exporter->lend(model);
    const int64_t size = static_cast<int64_t>(proto->ByteSizeLong());
    if (size > options.max_inline_bytes) {
      exporter.reset();  // gives the lent parts back before they are inspected
      status = offloadLargeTensors(model, size - options.max_inline_bytes, writer);
      if (!status.ok()) return prefixed(path, status);
    }
    // The data file about to be written replaces the one these tensors are read from: they are
    // copied into it too (from the old file, which stays until the commit below).
    if (writer.writes() && !in_writers_file.empty()) {
      exporter.reset();
      for (const Value* value : in_writers_file) {
        status = copyExternalData(*value, writer);
        if (!status.ok()) return status;
      }
    }
    if (!exporter) {
      exporter = std::make_unique<ProtoExporter>(ProtoExporter::Mode::kLend, replacement);
      proto = &exporter->lend(model);
      if (proto->ByteSizeLong() > static_cast<size_t>(INT_MAX)) {
        return prefixed(path, tooLarge(static_cast<int64_t>(proto->ByteSizeLong())));
      }
    }
    // The sizes are cached by the ByteSizeLong above: serialize with them.
    const int64_t expected = static_cast<int64_t>(proto->GetCachedSize());
    FdCopyingStream file(**pending);
    google::protobuf::io::CopyingOutputStreamAdaptor stream(&file, 1 << 20);
    const int64_t external_bytes = writer.bytesWritten();
    const int64_t total = external_bytes + expected;
    ProgressOutputStream counted(stream, external_bytes, total, options.progress);
    google::protobuf::io::ZeroCopyOutputStream* sink = &stream;
    if (options.progress) sink = &counted;
    bool written;
    {
      google::protobuf::io::CodedOutputStream coded(sink);
      // A tensor's bytes go from its string to the file, not through the buffer. The proto
      // outlives the stream, as aliasing requires.
      coded.EnableAliasing(true);
      proto->SerializeWithCachedSizes(&coded);
      written = !coded.HadError();
    }
    if (!written || !stream.Flush()) {
      return file.status().ok() ? errnoError(path, "write") : file.status();
    }
    if (stream.ByteCount() != expected) {
      return absl::DataLossError(absl::StrCat(path, ": wrote ", stream.ByteCount(),
                                              " bytes of a model of ", expected,
                                              "; the old file is kept"));
    }
    if (options.progress) options.progress(total, total);
  }
  status = writer.commit();
  if (!status.ok()) return status;
  return (*pending)->commit();
}

}  // namespace onnxopt::ir

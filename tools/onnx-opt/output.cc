#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace onnxopt::cli {
namespace {

absl::Status errnoError(const std::string& what, int error) {
  return absl::Status(absl::ErrnoToStatusCode(error),
                      absl::StrCat(what, ": ", std::strerror(error)));
}

}  // namespace

bool isSpecialFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

absl::Status writeInPlace(const std::string& path, absl::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return errnoError(absl::StrCat("cannot open ", path), errno);
  const char* data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return errnoError(absl::StrCat("cannot write ", path), error);
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return errnoError(absl::StrCat("cannot write ", path), errno);
  return absl::OkStatus();
}

absl::Status writeFileAtomically(const std::string& path, absl::string_view contents) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": not a file name"));

  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": is a folder"));
  }

  std::string tmp = absl::StrCat(dir == "." ? "" : dir, ".", base, ".tmp.XXXXXX");
  std::vector<char> tmpl(tmp.begin(), tmp.end());
  tmpl.push_back('\0');
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return errnoError(absl::StrCat("cannot create a file next to ", path), errno);
  tmp = tmpl.data();

  auto abandon = [&](const std::string& what) {
    const int error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return errnoError(absl::StrCat(what, " ", path), error);
  };

  // mkstemp makes the file 0600; give it the mode a newly created file would have.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) return abandon("cannot set the mode of");

  const char* data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return abandon("cannot write");
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return abandon("cannot write");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return errnoError(absl::StrCat("cannot write ", path), error);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return errnoError(absl::StrCat("cannot write ", path), error);
  }
  return absl::OkStatus();
}

}  // namespace onnxopt::cli

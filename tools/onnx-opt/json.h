#pragma once

// A small JSON writer for the --report file: no JSON library is among the dependencies, and the
// report needs only objects, arrays, strings, integers, booleans and durations.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace onnxopt::cli {

// `text` as a JSON string literal, quotes included. Quotes, backslashes and control characters
// are escaped; valid UTF-8 passes through; each byte that is not part of a valid UTF-8 sequence
// (ONNX names are protobuf proto2 strings: any bytes) becomes U+FFFD, so the result is always
// valid JSON in valid UTF-8.
std::string jsonQuote(absl::string_view text);

// Writes one JSON value, pretty-printed with two-space indentation. Calls must nest properly
// (a key before every value inside an object, none inside an array); the writer does not check.
class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(absl::string_view name);
  JsonWriter& string(absl::string_view value);
  JsonWriter& integer(int64_t value);
  // Six decimals (durations in seconds, to the microsecond); not finite: null.
  JsonWriter& number(double value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();

  // The text written so far, with a final newline once the outermost value is complete.
  std::string text() const { return depth_.empty() ? text_ + "\n" : text_; }

 private:
  void beforeValue();
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);

  std::string text_;
  std::vector<int64_t> depth_;  // per open container: its elements so far
  bool after_key_ = false;
};

}  // namespace onnxopt::cli

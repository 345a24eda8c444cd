#include "json.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace onnxopt::cli {
namespace {

bool isContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the valid UTF-8 sequence at the start of `text` (non-empty, first byte >= 0x80), or
// 0 if it is not one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8SequenceLength(absl::string_view text) {
  const auto byte = [&text](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  size_t length;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong below U+0800
    if (lead == 0xED) second_max = 0x9F;  // surrogates U+D800..U+DFFF
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong below U+10000
    if (lead == 0xF4) second_max = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < second_min || byte(1) > second_max) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!isContinuation(byte(i))) return 0;
  }
  return length;
}

}  // namespace

std::string jsonQuote(absl::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t length = utf8SequenceLength(text.substr(i));
      if (length == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(text.data() + i, length);
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

void JsonWriter::beforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_.empty()) return;
  if (depth_.back()++ > 0) text_ += ',';
  text_ += '\n';
  text_.append(2 * depth_.size(), ' ');
}

JsonWriter& JsonWriter::open(char bracket) {
  beforeValue();
  text_ += bracket;
  depth_.push_back(0);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  const bool empty = depth_.back() == 0;
  depth_.pop_back();
  if (!empty) {
    text_ += '\n';
    text_.append(2 * depth_.size(), ' ');
  }
  text_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::beginObject() { return open('{'); }
JsonWriter& JsonWriter::endObject() { return close('}'); }
JsonWriter& JsonWriter::beginArray() { return open('['); }
JsonWriter& JsonWriter::endArray() { return close(']'); }

JsonWriter& JsonWriter::key(absl::string_view name) {
  beforeValue();
  absl::StrAppend(&text_, jsonQuote(name), ": ");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(absl::string_view value) {
  beforeValue();
  text_ += jsonQuote(value);
  return *this;
}

JsonWriter& JsonWriter::integer(int64_t value) {
  beforeValue();
  absl::StrAppend(&text_, value);
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  if (!std::isfinite(value)) return null();
  beforeValue();
  absl::StrAppendFormat(&text_, "%.6f", value);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  beforeValue();
  text_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  beforeValue();
  text_ += "null";
  return *this;
}

}  // namespace onnxopt::cli

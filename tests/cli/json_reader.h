#pragma once

// A strict JSON reader for the tests of onnx-opt's --report (RFC 8259: no trailing commas, no
// comments, control characters escaped, \u escapes with surrogate pairs). Independent of the
// tool's writer, so that a test that reads what the writer wrote checks both.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace onnxopt::testing {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string number;  // as written
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // in order

  const JsonValue* find(const std::string& key) const {
    for (const auto& [name, value] : object) {
      if (name == key) return &value;
    }
    return nullptr;
  }
  // The member `key`; a null value when there is none.
  const JsonValue& operator[](const std::string& key) const {
    static const JsonValue missing;
    const JsonValue* value = find(key);
    return value ? *value : missing;
  }
  int64_t integer() const { return std::stoll(number); }
  double real() const { return std::stod(number); }
};

class JsonReader {
 public:
  // The value `text` holds, or nullopt with `error` set.
  static std::optional<JsonValue> parse(const std::string& text, std::string* error) {
    JsonReader reader(text);
    JsonValue value;
    if (reader.value(&value, 0)) {
      reader.space();
      if (reader.at_ == text.size()) return value;
      reader.fail("text after the value");
    }
    *error = reader.error_;
    return std::nullopt;
  }

 private:
  explicit JsonReader(const std::string& text) : text_(text) {}

  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at offset " + std::to_string(at_);
    return false;
  }
  void space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t' ||
                                  text_[at_] == '\r')) {
      ++at_;
    }
  }
  bool literal(const char* word) {
    const std::string w = word;
    if (text_.compare(at_, w.size(), w) != 0) return fail("bad literal");
    at_ += w.size();
    return true;
  }
  bool value(JsonValue* out, int depth) {
    if (depth > 64) return fail("nested too deeply");
    space();
    if (at_ >= text_.size()) return fail("unexpected end");
    const char c = text_[at_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out->kind = JsonValue::Kind::kString;
      return string(&out->string);
    }
    if (c == 't' || c == 'f') {
      out->kind = JsonValue::Kind::kBool;
      out->boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      out->kind = JsonValue::Kind::kNull;
      return literal("null");
    }
    return number(out);
  }
  bool digits() {
    const size_t start = at_;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
    return at_ > start || fail("expected a digit");
  }
  bool number(JsonValue* out) {
    const size_t start = at_;
    if (text_[at_] == '-') ++at_;
    if (at_ < text_.size() && text_[at_] == '0') {
      ++at_;
    } else if (!digits()) {
      return false;
    }
    if (at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      if (!digits()) return false;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (!digits()) return false;
    }
    out->kind = JsonValue::Kind::kNumber;
    out->number = text_.substr(start, at_ - start);
    return true;
  }
  bool hex4(uint32_t* code) {
    if (at_ + 4 > text_.size()) return fail("short \\u escape");
    *code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      *code <<= 4;
      if (h >= '0' && h <= '9') {
        *code |= h - '0';
      } else if (h >= 'a' && h <= 'f') {
        *code |= h - 'a' + 10;
      } else if (h >= 'A' && h <= 'F') {
        *code |= h - 'A' + 10;
      } else {
        return fail("bad \\u escape");
      }
    }
    return true;
  }
  static void appendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      *out += static_cast<char>(code);
    } else if (code < 0x800) {
      *out += static_cast<char>(0xC0 | (code >> 6));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      *out += static_cast<char>(0xE0 | (code >> 12));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (code >> 18));
      *out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  bool string(std::string* out) {
    ++at_;  // the opening quote
    while (true) {
      if (at_ >= text_.size()) return fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(text_[at_++]);
      if (c == '"') return true;
      if (c < 0x20) return fail("unescaped control character in a string");
      if (c != '\\') {
        *out += static_cast<char>(c);
        continue;
      }
      if (at_ >= text_.size()) return fail("unterminated escape");
      const char e = text_[at_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          uint32_t code;
          if (!hex4(&code)) return false;
          if (code >= 0xDC00 && code <= 0xDFFF) return fail("lone low surrogate");
          if (code >= 0xD800 && code <= 0xDBFF) {
            uint32_t low;
            if (text_.compare(at_, 2, "\\u") != 0) return fail("lone high surrogate");
            at_ += 2;
            if (!hex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail("bad surrogate pair");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          appendUtf8(code, out);
          break;
        }
        default:
          return fail("bad escape");
      }
    }
  }
  bool array(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kArray;
    ++at_;
    space();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return true;
    }
    while (true) {
      out->array.emplace_back();
      if (!value(&out->array.back(), depth + 1)) return false;
      space();
      if (at_ >= text_.size()) return fail("unterminated array");
      const char c = text_[at_++];
      if (c == ']') return true;
      if (c != ',') return fail("expected , or ]");
    }
  }
  bool object(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kObject;
    ++at_;
    space();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return true;
    }
    while (true) {
      space();
      if (at_ >= text_.size() || text_[at_] != '"') return fail("expected a key");
      std::string key;
      if (!string(&key)) return false;
      if (out->find(key) != nullptr) return fail("duplicate key '" + key + "'");
      space();
      if (at_ >= text_.size() || text_[at_++] != ':') return fail("expected :");
      JsonValue member;
      if (!value(&member, depth + 1)) return false;
      out->object.emplace_back(std::move(key), std::move(member));
      space();
      if (at_ >= text_.size()) return fail("unterminated object");
      const char c = text_[at_++];
      if (c == '}') return true;
      if (c != ',') return fail("expected , or }");
    }
  }

  const std::string& text_;
  size_t at_ = 0;
  std::string error_;
};

}  // namespace onnxopt::testing

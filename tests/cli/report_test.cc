// Unit tests of the pieces behind onnx-opt's summary, --report and progress line: the JSON
// escaper and writer, the progress line (with a clock of the test's own), byte formatting and
// the ONNX_OPT_PROGRESS_INTERVAL parser.

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "cli.h"
#include "gtest/gtest.h"
#include "json.h"
#include "json_reader.h"
#include "progress.h"

namespace onnxopt::cli {
namespace {

using onnxopt::testing::JsonReader;
using onnxopt::testing::JsonValue;

// The string a JSON string literal stands for, read back by the independent reader.
std::string readBack(const std::string& literal) {
  std::string error;
  std::optional<JsonValue> value = JsonReader::parse(literal, &error);
  EXPECT_TRUE(value.has_value()) << error << " in " << literal;
  if (!value) return "";
  EXPECT_EQ(value->kind, JsonValue::Kind::kString) << literal;
  return value->string;
}

TEST(JsonQuote, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(jsonQuote(""), R"("")");
  EXPECT_EQ(jsonQuote("plain name_1/x:0"), R"("plain name_1/x:0")");
  EXPECT_EQ(jsonQuote("say \"hi\""), R"("say \"hi\"")");
  EXPECT_EQ(jsonQuote("C:\\dir\\"), R"("C:\\dir\\")");
  EXPECT_EQ(jsonQuote("a\nb\tc\rd\be\ff"), R"("a\nb\tc\rd\be\ff")");
  EXPECT_EQ(jsonQuote(std::string("nul\0x", 5)), R"("nul\u0000x")");
  EXPECT_EQ(jsonQuote("\x01\x1f\x7f"), "\"\\u0001\\u001f\x7f\"");
}

TEST(JsonQuote, KeepsValidUtf8) {
  for (const std::string text : {"é", "日本語", "😀", "mixed é/日/😀 \"q\"", "\xEF\xBF\xBD",
                                 "\xF4\x8F\xBF\xBF" /* U+10FFFF */}) {
    EXPECT_EQ(readBack(jsonQuote(text)), text);
  }
  EXPECT_EQ(jsonQuote("é😀"), "\"é😀\"");
}

TEST(JsonQuote, ReplacesEachInvalidByteWithReplacementCharacter) {
  const std::string r = "\\ufffd";
  struct Case {
    std::string input;
    std::string expected;  // inside the quotes
  };
  for (const Case& c : std::vector<Case>{
           {"\xFF", r},
           {"a\x80z", "a" + r + "z"},                 // lone continuation byte
           {"\xE6\x97", r + r},                      // truncated 3-byte sequence
           {"\xE6\x97x", r + r + "x"},
           {"\xC0\xAF", r + r},                      // overlong '/'
           {"\xE0\x80\xAF", r + r + r},             // overlong
           {"\xED\xA0\x80", r + r + r},             // surrogate U+D800
           {"\xF4\x90\x80\x80", r + r + r + r},    // above U+10FFFF
           {"\xF8\x88\x80\x80\x80", r + r + r + r + r},  // 5-byte form
       }) {
    EXPECT_EQ(jsonQuote(c.input), "\"" + c.expected + "\"");
    EXPECT_EQ(readBack(jsonQuote(c.input)), absl::StrReplaceAll(c.expected, {{r, "\xEF\xBF\xBD"}}));
  }
}

TEST(JsonQuote, EveryByteRoundTripsOrIsReplaced) {
  for (int byte = 0; byte < 256; ++byte) {
    const std::string text(1, static_cast<char>(byte));
    const std::string back = readBack(jsonQuote(text));
    EXPECT_EQ(back, byte < 0x80 ? text : "\xEF\xBF\xBD") << "byte " << byte;
  }
}

TEST(JsonWriter, WritesNestedValuesThatParseBack) {
  JsonWriter json;
  json.beginObject();
  json.key("name").string("a \"b\"");
  json.key("count").integer(-42);
  json.key("seconds").number(0.0000015);
  json.key("ok").boolean(true);
  json.key("nothing").null();
  json.key("empty_list").beginArray().endArray();
  json.key("empty_map").beginObject().endObject();
  json.key("list").beginArray();
  json.integer(1).string("two").beginObject().key("three").integer(3).endObject();
  json.endArray();
  json.endObject();
  EXPECT_EQ(json.text(), R"({
  "name": "a \"b\"",
  "count": -42,
  "seconds": 0.000002,
  "ok": true,
  "nothing": null,
  "empty_list": [],
  "empty_map": {},
  "list": [
    1,
    "two",
    {
      "three": 3
    }
  ]
}
)");
  std::string error;
  std::optional<JsonValue> value = JsonReader::parse(json.text(), &error);
  ASSERT_TRUE(value.has_value()) << error;
  EXPECT_EQ((*value)["list"].array[2]["three"].integer(), 3);
}

TEST(JsonWriter, NonFiniteNumberIsNull) {
  JsonWriter json;
  json.beginArray().number(1.0 / 0.0).number(0.25).endArray();
  EXPECT_EQ(json.text(), "[\n  null,\n  0.250000\n]\n");
}

TEST(FormatBytes, Units) {
  EXPECT_EQ(formatBytes(0), "0 B");
  EXPECT_EQ(formatBytes(1023), "1023 B");
  EXPECT_EQ(formatBytes(1024), "1.0 KiB");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatBytes(int64_t{5} << 20), "5.0 MiB");
  EXPECT_EQ(formatBytes(int64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(formatBytes(int64_t{2048} << 30), "2.0 TiB");
}

// A clock the test moves by hand.
struct FakeClock {
  double now = 100;
  ProgressLine::Clock clock() {
    return [this] { return now; };
  }
};

TEST(ProgressLine, DrawsNothingBeforeTheFirstInterval) {
  std::ostringstream out;
  FakeClock time;
  {
    ProgressLine line(out, 0.25, 80, time.clock());
    line.beginStage("loading");
    time.now += 0.1;
    line.bytes(10, 100);
    time.now += 0.1;
    line.bytes(20, 100);
    line.clear();
  }
  EXPECT_EQ(out.str(), "") << "a run shorter than the interval must draw nothing";
}

TEST(ProgressLine, RedrawsInPlaceAtMostOncePerIntervalAndClears) {
  std::ostringstream out;
  FakeClock time;
  ProgressLine line(out, 0.25, 80, time.clock());
  line.beginStage("loading");
  time.now += 0.5;
  line.bytes(int64_t{512} << 20, int64_t{2} << 30);  // 512 MiB in 0.5 s
  EXPECT_EQ(out.str(), "\rloading: 512.0 MiB of 2.0 GiB (25%), 1024.0 MiB/s");
  out.str("");
  time.now += 0.1;
  line.bytes(int64_t{600} << 20, int64_t{2} << 30);  // within the interval: skipped
  EXPECT_EQ(out.str(), "");
  time.now += 0.2;
  line.bytes(int64_t{1} << 30, -1);  // no total: no "of", no percentage
  // Shorter than the line before: spaces cover the rest.
  const std::string previous = "loading: 512.0 MiB of 2.0 GiB (25%), 1024.0 MiB/s";
  const std::string now = "loading: 1.0 GiB, 1280.0 MiB/s";
  EXPECT_EQ(out.str(), "\r" + now + std::string(previous.size() - now.size(), ' '));
  out.str("");
  line.clear();
  EXPECT_EQ(out.str(), "\r" + std::string(now.size(), ' ') + "\r");
  out.str("");
  line.clear();
  EXPECT_EQ(out.str(), "") << "clearing twice erases once";
}

TEST(ProgressLine, PassesShowRoundPassAndNodeRate) {
  std::ostringstream out;
  FakeClock time;
  ProgressLine line(out, 0, 0, time.clock());
  line.beginStage("optimizing");
  time.now += 2;
  line.pass(1, 1, 4, "fuse-matmul-add-gemm", 8192);
  EXPECT_EQ(out.str(),
            "\roptimizing: round 1, pass 2/4 fuse-matmul-add-gemm, 8192 nodes visited, "
            "4096 nodes/s");
  out.str("");
  line.pass(2, 4, 4, "", 10000);
  EXPECT_EQ(out.str().substr(0, 42), "\roptimizing: round 2, done, 10000 nodes vi");
}

TEST(ProgressLine, CutsLinesToTheTerminalWidth) {
  std::ostringstream out;
  FakeClock time;
  ProgressLine line(out, 0, 20, time.clock());
  line.beginStage("saving");
  line.bytes(100, 1000);
  EXPECT_EQ(out.str(), "\rsaving: 100 B of 10");  // 19 columns: the cursor stays on the line
}

TEST(ProgressLine, ANarrowTerminalLosesTheRateBeforeTheTextIsCut) {
  std::ostringstream out;
  FakeClock time;
  ProgressLine line(out, 0, 90, time.clock());
  line.beginStage("optimizing");
  time.now += 2;
  line.pass(2, 13, 48, "fuse-transposes-across-elementwise", 76);
  EXPECT_EQ(out.str(),
            "\roptimizing: round 2, pass 14/48 fuse-transposes-across-elementwise, 76 nodes "
            "visited");
}

TEST(ProgressLine, DestructorClears) {
  std::ostringstream out;
  FakeClock time;
  {
    ProgressLine line(out, 0, 0, time.clock());
    line.beginStage("saving");
    line.bytes(1, 2);
  }
  EXPECT_EQ(out.str(), "\rsaving: 1 B of 2 B (50%)\r                        \r");
}

TEST(ProgressInterval, DefaultValueAndErrors) {
  EXPECT_EQ(*progressInterval(nullptr), 0.25);
  EXPECT_EQ(*progressInterval("0"), 0.0);
  EXPECT_EQ(*progressInterval("1.5"), 1.5);
  for (const char* bad : {"", "fast", "-1", "nan", "inf", "0.5s"}) {
    absl::StatusOr<double> interval = progressInterval(bad);
    EXPECT_FALSE(interval.ok()) << bad;
    if (!interval.ok()) {
      EXPECT_NE(interval.status().message().find("ONNX_OPT_PROGRESS_INTERVAL"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace onnxopt::cli

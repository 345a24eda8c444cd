// The import's name resolution (ir/import_scope.h) and duplicate-name search
// (ir/duplicate_names.h): whichever way a lookup goes (recent values, the cursor, the map built on
// demand, the enclosing graph), it finds the one value of that name.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ir/duplicate_names.h"
#include "ir/import_scope.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {
namespace {

// Values named `names`, defined in `scope` in that order.
std::vector<Value*> defineAll(Graph& graph, ImportScope& scope,
                              const std::vector<std::string>& names) {
  std::vector<Value*> values;
  for (const std::string& name : names) {
    values.push_back(graph.addInput(name, Type()));
    scope.define(values.back());
  }
  return values;
}

std::vector<std::string> numbered(const std::string& prefix, int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back(prefix + std::to_string(i));
  return names;
}

TEST(ImportScopeTest, ResolvesRecentValuesValuesFarBackAndValuesDefinedLater) {
  Model model;
  ImportScope scope(nullptr);
  std::vector<Value*> values = defineAll(model.graph(), scope, numbered("v", 100));
  size_t cursor = 0;
  EXPECT_EQ(scope.resolve("v49", 50, &cursor), values[49]);  // just before the node
  EXPECT_EQ(scope.resolve("v10", 50, &cursor), values[10]);  // far back: through the map
  EXPECT_EQ(scope.resolve("v90", 50, &cursor), values[90]);  // defined after the node
  EXPECT_EQ(scope.resolve("v3", 50, &cursor), values[3]);
  EXPECT_EQ(scope.resolve("missing", 50, &cursor), nullptr);
  EXPECT_EQ(scope.resolve("v0", 0, &cursor), values[0]);  // nothing before position 0
}

TEST(ImportScopeTest, TheCursorFollowsReadsInDefinitionOrderAndNeverMovesBack) {
  Model model;
  ImportScope scope(nullptr);
  std::vector<Value*> values = defineAll(model.graph(), scope, numbered("w", 40));
  size_t cursor = 0;
  EXPECT_EQ(scope.findLocal("w0", &cursor), values[0]);
  EXPECT_EQ(cursor, 1u);
  EXPECT_EQ(scope.findLocal("w2", &cursor), values[2]);  // a few ahead: still by the cursor
  EXPECT_EQ(cursor, 3u);
  EXPECT_EQ(scope.findLocal("w30", &cursor), values[30]);  // far ahead: the map re-syncs it
  EXPECT_EQ(cursor, 31u);
  EXPECT_EQ(scope.findLocal("w1", &cursor), values[1]);  // a shared value read again
  EXPECT_EQ(cursor, 31u);
  EXPECT_EQ(scope.findLocal("w31", &cursor), values[31]);
  EXPECT_EQ(cursor, 32u);
  EXPECT_EQ(scope.findLocal("nothing", &cursor), nullptr);
  EXPECT_EQ(cursor, 32u);
}

TEST(ImportScopeTest, InnerNamesComeFirstThenTheEnclosingGraphs) {
  Model model;
  ImportScope outer(nullptr);
  std::vector<Value*> outer_values = defineAll(model.graph(), outer, numbered("o", 30));
  ImportScope inner(&outer);
  Graph inner_graph(&model);
  std::vector<Value*> inner_values = defineAll(inner_graph, inner, {"i0", "o5"});
  size_t cursor = 0;
  EXPECT_EQ(inner.resolve("o5", 2, &cursor), inner_values[1]);
  EXPECT_EQ(inner.resolve("o20", 2, &cursor), outer_values[20]);
  EXPECT_EQ(inner.resolve("o29", 2, &cursor), outer_values[29]);
  EXPECT_EQ(inner.resolve("o2", 2, &cursor), outer_values[2]);
  EXPECT_EQ(inner.findLocal("o20", &cursor), nullptr);  // findLocal: this graph only
}

TEST(DuplicateNamesTest, ReportsThePairWhoseSecondDefinitionComesFirst) {
  Model model;
  ImportScope scope(nullptr);
  std::vector<std::string> names = numbered("n", 3000);
  names.push_back("n2500");  // 3000
  names.push_back("n7");     // 3001
  names.push_back("n7");     // 3002
  defineAll(model.graph(), scope, names);
  auto duplicate = findDuplicateName(scope.definitions());
  ASSERT_TRUE(duplicate.has_value());
  EXPECT_EQ(duplicate->first, 2500u);
  EXPECT_EQ(duplicate->second, 3000u);
  EXPECT_FALSE(findDuplicateName(scope.definitions().subspan(0, 3000)).has_value());
  EXPECT_FALSE(findDuplicateName({}).has_value());
}

// A name defined many times puts as many equal hashes in one group, which is then sorted: the
// answer is still the first definition and the earliest repeat, of whichever name repeats first.
TEST(DuplicateNamesTest, ManyDefinitionsOfOneNameReportTheFirstTwo) {
  Model model;
  ImportScope scope(nullptr);
  std::vector<std::string> names = numbered("n", 100);
  for (int i = 0; i < 40; ++i) {
    names.push_back("late");  // 100, 102, ...
    names.push_back("n99");   // 101, 103, ...
  }
  defineAll(model.graph(), scope, names);
  auto duplicate = findDuplicateName(scope.definitions());
  ASSERT_TRUE(duplicate.has_value());
  EXPECT_EQ(duplicate->first, 99u);
  EXPECT_EQ(duplicate->second, 101u);
  duplicate = findDuplicateName(scope.definitions().subspan(100));
  ASSERT_TRUE(duplicate.has_value());
  EXPECT_EQ(duplicate->first, 0u);
  EXPECT_EQ(duplicate->second, 2u);
}

}  // namespace
}  // namespace onnxopt::ir

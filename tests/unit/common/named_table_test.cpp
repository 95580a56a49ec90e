// NamedTable (common/named_table.h), the hashed table behind Graph::tensor_values: answers as a
// std::map of the same names, keeps the order entries were added in, and keeps references to
// its values valid while more are added.
#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/named_table.h"
#include "common/repeated_names.h"

namespace pt2onnx {
namespace {

TEST_CASE("NamedTable finds what a std::map finds, keeps the first value of a name, through rehashes") {
  const std::vector<std::string> names = testing::repeated_names(6000, 11, 4001);
  NamedTable<int> table;
  std::map<std::string, int> expected;
  std::vector<std::string> order;  // first additions, in turn
  for (size_t i = 0; i < names.size(); ++i) {
    const bool fresh = expected.emplace(names[i], static_cast<int>(i)).second;
    if (fresh) order.push_back(names[i]);
    const auto [it, added] = table.emplace(names[i], static_cast<int>(i));
    CHECK(added == fresh);
    CHECK(it->first == names[i]);
    CHECK(it->second == expected.at(names[i]));
  }
  CHECK(table.size() == expected.size());
  for (int i = 0; i < 5000; ++i) {
    const std::string probe = "value_" + std::to_string(i);
    const auto found = table.find(probe);
    const auto it = expected.find(probe);
    REQUIRE((found != table.end()) == (it != expected.end()));
    CHECK(table.count(probe) == expected.count(probe));
    if (found != table.end()) CHECK(found->second == it->second);
  }
  CHECK(table.at("") == expected.at(""));
  CHECK_THROWS_AS(table.at("absent"), std::out_of_range);
  std::vector<std::string> iterated;
  for (const auto& [name, value] : table) iterated.push_back(name);
  CHECK(iterated == order);
}

TEST_CASE("NamedTable: [] adds a default value once; references stay valid as entries are added") {
  NamedTable<std::vector<int>> table;
  std::vector<int>& first = table["a"];
  first.push_back(1);
  const std::vector<int>* address = &first;
  for (int i = 0; i < 10000; ++i) {
    char name[16];  // (GCC 12's -Wrestrict misreads "v" + std::to_string(i) here)
    std::snprintf(name, sizeof(name), "v%d", i);
    table[name].push_back(i);
  }
  CHECK(&table["a"] == address);  // the same entry, not a new one, at the same place
  CHECK(table.at("a") == std::vector<int>{1});
  CHECK(table.size() == 10001);
  const NamedTable<std::vector<int>> copy = table;
  CHECK(copy.at("v9999") == std::vector<int>{9999});
  CHECK(copy.find("a") != copy.end());
  CHECK(copy.find("b") == copy.end());
  const NamedTable<std::vector<int>> empty;
  CHECK(empty.find("a") == empty.end());
  CHECK(empty.count("a") == 0);
}

}  // namespace
}  // namespace pt2onnx

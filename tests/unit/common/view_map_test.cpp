// ViewMap (common/view_map.h), the open-addressed map of name views behind ViewSet and the
// passes' tables: answers as a std::map of the same names.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "common/view_map.h"
#include "common/repeated_names.h"

namespace pt2onnx {
namespace {

TEST_CASE("ViewMap finds what a std::map finds, keeps the first value of a name, through rehashes") {
  const std::vector<std::string> names = testing::repeated_names(6000, 11, 4001);
  ViewMap<int> map;  // no size hint: grows from 16 slots
  std::map<std::string, int> expected;
  for (size_t i = 0; i < names.size(); ++i) {
    const bool fresh = expected.emplace(names[i], static_cast<int>(i)).second;
    CHECK(map.insert(names[i], static_cast<int>(i)) == fresh);
  }
  CHECK(map.size() == expected.size());
  for (int i = 0; i < 5000; ++i) {
    const std::string probe = "value_" + std::to_string(i);
    const int* found = map.find(probe);
    const auto it = expected.find(probe);
    REQUIRE((found != nullptr) == (it != expected.end()));
    if (found) CHECK(*found == it->second);
  }
  REQUIRE(map.find("") != nullptr);
  CHECK(*map.find("") == expected.at(""));
  CHECK_FALSE(map.contains("value_"));
}

TEST_CASE("ViewMap::try_emplace gives the held value to update, as std::map::try_emplace does") {
  // Per name: how often it came and the index of its last coming, through rehashes.
  struct Seen {
    int count;
    int last;
  };
  const std::vector<std::string> names = testing::repeated_names(6000, 11, 4001);
  ViewMap<Seen> map;
  std::map<std::string, Seen> expected;
  for (size_t i = 0; i < names.size(); ++i) {
    const int at = static_cast<int>(i);
    auto [mine, added] = map.try_emplace(names[i], Seen{0, at});
    auto [theirs, inserted] = expected.try_emplace(names[i], Seen{0, at});
    CHECK(added == inserted);
    mine->count += 1;
    mine->last = at;
    theirs->second.count += 1;
    theirs->second.last = at;
  }
  CHECK(map.size() == expected.size());
  for (const auto& [name, seen] : expected) {
    const Seen* found = map.find(name);
    REQUIRE(found != nullptr);
    CHECK(found->count == seen.count);
    CHECK(found->last == seen.last);
  }
}

TEST_CASE("ViewMap holds pointers as values, and a size hint spares no lookup") {
  const std::vector<std::string> names = {"linear", "linear_1", "gelu"};
  ViewMap<const std::string*> map(names.size());
  for (const std::string& n : names) CHECK(map.insert(n, &n));
  for (const std::string& n : names) {
    REQUIRE(map.find(std::string(n)) != nullptr);  // equal text in another buffer
    CHECK(*map.find(n) == &n);
  }
  CHECK(map.find("linear_") == nullptr);
}

TEST_CASE("index_by_name points each key of a map at its value") {
  const std::map<std::string, int> values = {{"x", 1}, {"linear_1", 2}};
  const ViewMap<const int*> index = index_by_name(values);
  CHECK(index.size() == 2);
  REQUIRE(index.find("linear_1") != nullptr);
  CHECK(*index.find("linear_1") == &values.at("linear_1"));
  CHECK(index.find("y") == nullptr);
}

}  // namespace
}  // namespace pt2onnx

// ViewSet, the open-addressed set of name views the clean-up passes use: membership as
// std::set's, through growth, duplicates, empty and colliding-prefix names.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "common/view_map.h"
#include "common/repeated_names.h"

namespace pt2onnx {
namespace {

TEST_CASE("ViewSet answers as a std::set of the same names, through many rehashes") {
  const std::vector<std::string> names = testing::repeated_names(5000, 7, 3001);
  ViewSet set;  // no size hint: grows from 16 slots
  std::set<std::string> expected;
  for (const std::string& n : names) CHECK(set.insert(n) == expected.insert(n).second);
  CHECK(set.size() == expected.size());
  for (int i = 0; i < 4000; ++i) {
    const std::string probe = "value_" + std::to_string(i);
    CHECK(set.contains(probe) == (expected.count(probe) > 0));
  }
  CHECK(set.contains(""));
  CHECK_FALSE(set.contains("value_"));
  CHECK_FALSE(set.contains("value_1 "));
}

TEST_CASE("ViewSet compares the bytes, not where they are") {
  const std::string a = "linear_1", b = "linear_1";  // equal text, two buffers
  ViewSet set(4);
  CHECK(set.insert(a));
  CHECK_FALSE(set.insert(b));
  CHECK(set.contains(std::string("linear_1")));
  CHECK_FALSE(set.contains("linear_10"));
  CHECK(set.size() == 1);
}

}  // namespace
}  // namespace pt2onnx

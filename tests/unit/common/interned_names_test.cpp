// InternedNames and IdMap (common/interned_names.h), the name tables behind EmitContext: ids are
// dense in first-seen order, a name is kept once, texts stay put while the table grows.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/interned_names.h"

namespace pt2onnx {
namespace {

TEST_CASE("InternedNames gives each distinct name one dense id, as a std::map of first sightings does") {
  std::vector<std::string> names;
  for (int i = 0; i < 9000; ++i) names.push_back("gelu_" + std::to_string(i * 7 % 5003) + "_Mul");  // duplicates
  names.push_back("");
  names.push_back(std::string(40000, 'x'));  // longer than the first blocks: a block of its size
  names.push_back(std::string(40000, 'y'));
  InternedNames table;  // no reserve: grows from nothing
  std::map<std::string, InternedNames::Id> expected;
  std::vector<std::string_view> texts;  // as first returned: must stay valid
  for (const std::string& name : names) {
    const auto [id, added] = table.intern(name);
    const auto [it, fresh] = expected.emplace(name, static_cast<InternedNames::Id>(expected.size()));
    CHECK(added == fresh);
    CHECK(id == it->second);
    if (added) texts.push_back(table.text(id));
  }
  CHECK(table.size() == expected.size());
  for (const auto& [name, id] : expected) {
    CHECK(table.find(name) == id);
    CHECK(table.text(id) == name);
    CHECK(texts[id] == name);
  }
  CHECK(table.find("gelu_") == InternedNames::kAbsent);
  CHECK(table.find(std::string(40000, 'z')) == InternedNames::kAbsent);
}

TEST_CASE("InternedNames answers kAbsent before anything is added, and reserve keeps the ids") {
  InternedNames table;
  CHECK(table.find("x") == InternedNames::kAbsent);
  CHECK(table.intern("a").first == 0);
  CHECK(table.intern("b").first == 1);
  table.reserve(100000);
  CHECK(table.find("a") == 0);
  CHECK(table.find("b") == 1);
  CHECK(table.intern("a") == std::pair<InternedNames::Id, bool>{0, false});
  CHECK(table.intern("c") == std::pair<InternedNames::Id, bool>{2, true});
}

TEST_CASE("IdMap sets, replaces and finds as a std::map does, through rehashes") {
  IdMap map;
  std::map<IdMap::Id, IdMap::Id> expected;
  CHECK(map.find(0) == IdMap::kAbsent);
  CHECK(map.find(IdMap::kAbsent) == IdMap::kAbsent);
  for (IdMap::Id i = 0; i < 20000; ++i) {
    const IdMap::Id key = i * 37 % 7001;  // dense keys, each set about three times
    map.set(key, i);
    expected[key] = i;
  }
  CHECK(map.size() == expected.size());
  for (IdMap::Id key = 0; key < 8000; ++key) {
    const auto it = expected.find(key);
    CHECK(map.find(key) == (it == expected.end() ? IdMap::kAbsent : it->second));
  }
}

}  // namespace
}  // namespace pt2onnx

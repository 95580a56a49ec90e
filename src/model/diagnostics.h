// The warnings of one conversion: every stage writes to the one sink convert() creates, and
// --strict and ConvertReport::warnings read it. A warning says what the converter did that the
// user may not expect (a config rule that matched nothing, external data forced by size); it
// never stops the conversion by itself.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pt2onnx::model {

// The stage a warning comes from.
enum class Stage { kConfig, kTranslate, kHierarchy, kEmit };

struct Warning {
  Stage stage;
  std::string message;
};

class Diagnostics {
 public:
  void warn(Stage stage, std::string message) { warnings_.push_back({stage, std::move(message)}); }
  const std::vector<Warning>& warnings() const { return warnings_; }
  size_t size() const { return warnings_.size(); }
  bool empty() const { return warnings_.empty(); }
  // The messages of warnings [from, size()), in order.
  std::vector<std::string> messages(size_t from = 0) const {
    std::vector<std::string> out;
    for (size_t i = from; i < warnings_.size(); ++i) out.push_back(warnings_[i].message);
    return out;
  }

 private:
  std::vector<Warning> warnings_;
};

}  // namespace pt2onnx::model

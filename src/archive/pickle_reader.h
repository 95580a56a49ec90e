// A small unpickler for torch.save's data.pkl: protocol 2 plus the protocol 3-5 opcodes that
// torch writes with a higher pickle_protocol. It never executes anything: GLOBAL, REDUCE,
// NEWOBJ and BINPERSID go to a PickleHandler, which allows a fixed set of names.
#pragma once

#include <string>

#include "archive/pickle_value.h"

namespace pt2onnx::archive {

class PickleHandler {
 public:
  virtual ~PickleHandler() = default;
  // GLOBAL and STACK_GLOBAL. Throws Error(kArchive) for a name outside the allow-list.
  virtual PickleValuePtr find_global(const std::string& module, const std::string& name) = 0;
  // REDUCE and NEWOBJ: `callable(*args)`, args being a tuple. Throws for unknown callables.
  virtual PickleValuePtr call(const PickleValue& callable, const PickleValue& args) = 0;
  // BINPERSID.
  virtual PickleValuePtr persistent_load(const PickleValue& id) = 0;
};

// The unpickled value tree. Through the memo, containers can share or even contain each other,
// so the document keeps every container and empties them all when it dies: no reference cycle
// leaks and no chain of nested values is destroyed recursively (a deep one would overflow the
// stack).
class PickleDocument {
 public:
  PickleDocument(PickleValuePtr root, std::vector<PickleValuePtr> containers)
      : root_(std::move(root)), containers_(std::move(containers)) {}
  ~PickleDocument();
  PickleDocument(PickleDocument&&) = default;
  PickleDocument& operator=(PickleDocument&&) = delete;
  PickleDocument(const PickleDocument&) = delete;
  PickleDocument& operator=(const PickleDocument&) = delete;

  const PickleValue& root() const { return *root_; }

 private:
  PickleValuePtr root_;
  std::vector<PickleValuePtr> containers_;
};

// Empties every container so that destroying them recurses no further than one level.
void release_containers(std::vector<PickleValuePtr>& containers);

// Unpickles `bytes`. Errors read "<label>: byte <N>: <what>".
PickleDocument read_pickle(const std::string& bytes, PickleHandler& handler,
                           const std::string& label);

}  // namespace pt2onnx::archive

// Refusals: convert stops at the first thing it cannot translate (an Error thrown up to the CLI);
// inspect asks the same code for every one, so that it says in advance what convert refuses.
// Code that can refuse one part (a node, a graph input, a state update) and go on with the rest
// takes an optional sink: null, it throws as always; given, it appends the error and carries on.
#pragma once

#include <utility>
#include <vector>

#include "common/error.h"

namespace pt2onnx::translate {

using Refusals = std::vector<Error>;

// Runs fn. Without a sink an Error propagates; with one it is appended and false returned (fn's
// part is then left undone).
template <typename Fn>
bool refuse_or_record(Refusals* sink, Fn&& fn) {
  if (!sink) {
    std::forward<Fn>(fn)();
    return true;
  }
  try {
    std::forward<Fn>(fn)();
    return true;
  } catch (const Error& e) {
    sink->push_back(e);
    return false;
  }
}

}  // namespace pt2onnx::translate

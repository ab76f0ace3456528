// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// gert::InferShapeRangeContext and gert::Range, enough for an operator's InferShapeRange
// function to compile (the simulator runs fixed shapes from op.json and never calls it).
#pragma once

#include <cstddef>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"

namespace gert {

template <typename T>
class Range {
 public:
  Range() = default;
  Range(T* min, T* max) : min_(min), max_(max) {}
  T* GetMin() const { return min_; }
  T* GetMax() const { return max_; }
  void SetMin(T* min) { min_ = min; }
  void SetMax(T* max) { max_ = max; }

 private:
  T* min_ = nullptr;
  T* max_ = nullptr;
};

class InferShapeRangeContext {
 public:
  // aopt API (not CANN)
  void add_input(const Range<Shape>& r) { inputs_.push_back(r); }
  void add_output(const Range<Shape>& r) { outputs_.push_back(r); }

  const Range<Shape>* GetInputShapeRange(size_t index) const {
    return index < inputs_.size() ? &inputs_[index] : nullptr;
  }
  const Range<Shape>* GetOptionalInputShapeRange(size_t index) const {
    return GetInputShapeRange(index);
  }
  Range<Shape>* GetOutputShapeRange(size_t index) {
    return index < outputs_.size() ? &outputs_[index] : nullptr;
  }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }

 private:
  std::vector<Range<Shape>> inputs_;
  std::vector<Range<Shape>> outputs_;
  RuntimeAttrs attrs_;
};

}  // namespace gert

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
  // The members that touch a container are out of line (runtime/host_runtime_contexts.cpp):
  // compiled once into the simulator library, not in every host unit.
  InferShapeRangeContext();
  ~InferShapeRangeContext();

  // aopt API (not CANN)
  void add_input(const Range<Shape>& r);
  void add_output(const Range<Shape>& r);

  const Range<Shape>* GetInputShapeRange(size_t index) const;
  const Range<Shape>* GetOptionalInputShapeRange(size_t index) const {
    return GetInputShapeRange(index);
  }
  Range<Shape>* GetOutputShapeRange(size_t index);
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }

 private:
  std::vector<Range<Shape>> inputs_;
  std::vector<Range<Shape>> outputs_;
  RuntimeAttrs attrs_;
};

}  // namespace gert

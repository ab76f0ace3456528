// The interface an operator's reference.cpp implements: compute the expected outputs in
// double precision from the inputs (already rounded to their dtype) and the attributes.
//
//   #include "aopt/reference.h"
//   void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
//                       const aopt_ref::attrs& attrs) {
//     for (int64_t i = 0; i < in[0].numel(); ++i) out[0].data[i] = in[0].data[i] + in[1].data[i];
//   }
//
// `out` arrives sized (shape and data from op.json, data zeroed); the driver rounds the
// expected values to the output dtype's precision only for reporting, and compares with the
// tolerance of op.json.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace aopt_ref {

struct tensor {
  std::string name;
  std::string dtype;  // as in op.json: "float16", "float32", "bfloat16", "int8", ...
  std::vector<int64_t> shape;
  std::vector<double> data;  // row-major

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  int64_t dim(size_t i) const { return shape.at(i); }
  // Size of the last dimension and the number of rows before it.
  int64_t last_dim() const { return shape.empty() ? 1 : shape.back(); }
  int64_t rows() const { return last_dim() == 0 ? 0 : numel() / last_dim(); }
};

using tensors = std::vector<tensor>;

class attrs {
 public:
  std::map<std::string, double> numbers;                 // float, int and bool attributes
  std::map<std::string, std::vector<double>> lists;      // list_int, list_float
  std::map<std::string, std::string> strings;

  double number(const std::string& name) const {
    auto it = numbers.find(name);
    if (it == numbers.end()) throw std::invalid_argument("reference: no attribute '" + name + "'");
    return it->second;
  }
  double number_or(const std::string& name, double fallback) const {
    auto it = numbers.find(name);
    return it == numbers.end() ? fallback : it->second;
  }
  const std::vector<double>& list(const std::string& name) const {
    auto it = lists.find(name);
    if (it == lists.end()) throw std::invalid_argument("reference: no list attribute '" + name + "'");
    return it->second;
  }
};

}  // namespace aopt_ref

void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs);

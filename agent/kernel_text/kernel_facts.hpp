// Facts read off an AscendC kernel's text, used by the kernel rules and the heuristic
// diagnoser: the TPipe object, tensor and queue declarations, and which pipe a statement keeps
// busy (DataCopy GM->UB: MTE2, UB->GM: MTE3, vector APIs: V, GetValue/SetValue on local
// tensors: S; a call of a member function counts as the pipes of its body).
//
// Thread-safety: a kernel_facts is immutable after construction; const methods may run
// concurrently.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

enum class pipe_kind { scalar, vector, mte2, mte3 };

// "S", "V", "MTE2", "MTE3": the spelling in HardEvent names and PIPE_* constants.
const char* pipe_name(pipe_kind p);

// The AscendC vector APIs the rules and the diagnoser recognise.
bool is_vector_api(const std::string& name);

class kernel_facts {
 public:
  explicit kernel_facts(std::string kernel);

  const std::string& text() const { return text_; }
  const std::string& masked() const { return masked_; }

  // "pipe." or "pipe->" for the kernel's TPipe, nullopt when none is declared.
  std::optional<std::string> pipe_access() const;
  // Element type of a LocalTensor or GlobalTensor variable ("half", "float"), from its
  // declaration (any declarator of `LocalTensor<T> a, b;`) or else from the buffer it is taken
  // from (`b = buf.Get<T>()`, AllocTensor, DeQue); nullopt if the kernel shows neither.
  std::optional<std::string> element_type(const std::string& variable) const;
  bool is_global(const std::string& variable) const;
  bool is_queue(const std::string& variable) const;  // TQue / TQueBind
  // A queue at a position of the cube (A1/B1 in L1, A2/B2 in L0A/L0B, CO1/CO2 and C1/C2).
  bool is_cube_queue(const std::string& variable) const;
  // A queue in L1: A1 or B1.
  bool is_l1_queue(const std::string& variable) const;
  bool is_tbuf(const std::string& variable) const;
  bool uses_queues() const;  // EnQue and DeQue both appear

  // The pipes the code in `range` keeps busy, in program order (member calls expanded).
  std::vector<pipe_kind> pipes(text_range range) const;

 private:
  void pipes(text_range range, int depth, std::vector<pipe_kind>& out) const;

  std::string text_;
  std::string masked_;
  std::map<std::string, std::string> local_types_;
  std::map<std::string, std::string> global_types_;
  std::set<std::string> queues_;
  std::map<std::string, std::string> queue_positions_;  // "A1", "VECIN", ...
  std::set<std::string> tbufs_;
  std::optional<std::string> pipe_access_;
};

// The variable an operand names: "xGm[offset]" -> "xGm", "(x)" -> "x"; empty when the operand
// is not a variable or a subscripted variable.
std::string operand_base(const std::string& operand);

}  // namespace aopt::agent

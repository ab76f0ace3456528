#include "agent/kernel_text/kernel_facts.hpp"

#include <cctype>
#include <regex>

namespace aopt::agent {

namespace {

const std::set<std::string>& vector_apis() {
  static const std::set<std::string> names = {"Add",
                                              "Sub",
                                              "Mul",
                                              "Div",
                                              "Max",
                                              "Min",
                                              "And",
                                              "Or",
                                              "Adds",
                                              "Muls",
                                              "Maxs",
                                              "Mins",
                                              "LeakyRelu",
                                              "ShiftLeft",
                                              "ShiftRight",
                                              "Exp",
                                              "Ln",
                                              "Abs",
                                              "Sqrt",
                                              "Rsqrt",
                                              "Reciprocal",
                                              "Relu",
                                              "Not",
                                              "Duplicate",
                                              "Cast",
                                              "Compare",
                                              "Compares",
                                              "Select",
                                              "ReduceSum",
                                              "ReduceMax",
                                              "ReduceMin",
                                              "WholeReduceSum",
                                              "WholeReduceMax",
                                              "WholeReduceMin",
                                              "BlockReduceSum",
                                              "BlockReduceMax",
                                              "BlockReduceMin",
                                              "Axpy",
                                              "Sigmoid",
                                              "Tanh",
                                              "Power",
                                              "Brcb",
                                              "Gather",
                                              "Copy",
                                              "AddRelu",
                                              "MulAddDst",
                                              "Sign",
                                              "Floor",
                                              "Ceil",
                                              "Round",
                                              "CreateVecIndex"};
  return names;
}

const std::set<std::string>& not_functions() {
  static const std::set<std::string> names = {
      "if",         "for",      "while",       "switch",
      "return",     "sizeof",   "static_cast", "reinterpret_cast",
      "const_cast", "decltype", "alignof"};
  return names;
}

bool looks_global(const std::string& base) {
  return base.size() >= 2 &&
         (base.find("Gm") != std::string::npos || base.find("gm") != std::string::npos ||
          base.find("GM") != std::string::npos);
}

// The further declarators of a declaration whose first declarator ends at `pos`:
// `LocalTensor<int32_t> a, b, c;` declares b and c too, as public kernels often write. Empty
// when the declaration is not a plain list of names ended by ';' (a parameter list, say).
std::vector<std::string> further_declarators(const std::string& masked, size_t pos) {
  std::vector<std::string> names;
  size_t at = skip_space(masked, pos);
  while (at < masked.size() && masked[at] == ',') {
    const size_t begin = skip_space(masked, at + 1);
    size_t end = begin;
    while (end < masked.size() && is_identifier_char(masked[end])) ++end;
    if (end == begin) return {};
    names.push_back(masked.substr(begin, end - begin));
    at = skip_space(masked, end);
  }
  if (at >= masked.size() || masked[at] != ';') return {};
  return names;
}

}  // namespace

const char* pipe_name(pipe_kind p) {
  switch (p) {
    case pipe_kind::scalar:
      return "S";
    case pipe_kind::vector:
      return "V";
    case pipe_kind::mte2:
      return "MTE2";
    case pipe_kind::mte3:
      return "MTE3";
  }
  return "S";
}

bool is_vector_api(const std::string& name) {
  return vector_apis().count(name) != 0;
}

std::string operand_base(const std::string& operand) {
  static const std::regex re(R"(^\(*\s*([A-Za-z_]\w*)\s*\)*\s*(?:\[.*\])?\s*\)*$)");
  std::smatch m;
  std::string t = trim(operand);
  if (!std::regex_match(t, m, re)) return {};
  return m[1];
}

kernel_facts::kernel_facts(std::string kernel)
    : text_(std::move(kernel)), masked_(mask_comments_and_strings(text_)) {
  static const std::regex local_decl(R"(LocalTensor\s*<\s*([\w:]+)\s*>\s*&?\s*([A-Za-z_]\w*))");
  static const std::regex global_decl(R"(GlobalTensor\s*<\s*([\w:]+)\s*>\s*&?\s*([A-Za-z_]\w*))");
  static const std::regex queue_decl(R"(TQue(?:Bind)?\s*<[^;{}]*>\s+([A-Za-z_]\w*))");
  static const std::regex tbuf_decl(R"(TBuf\s*<[^;{}]*>\s+([A-Za-z_]\w*))");
  static const std::regex pipe_decl(R"(TPipe\s*(\*?)\s*([A-Za-z_]\w*)\s*[;=])");
  auto declare = [&](const std::smatch& m, size_t name, std::map<std::string, std::string>& types) {
    types.emplace(m[name], m[1]);
    const size_t end = static_cast<size_t>(m.position(name) + m.length(name));
    for (const std::string& more : further_declarators(masked_, end)) types.emplace(more, m[1]);
  };
  for (auto it = std::sregex_iterator(masked_.begin(), masked_.end(), local_decl);
       it != std::sregex_iterator(); ++it) {
    declare(*it, 2, local_types_);
  }
  for (auto it = std::sregex_iterator(masked_.begin(), masked_.end(), global_decl);
       it != std::sregex_iterator(); ++it) {
    declare(*it, 2, global_types_);
  }
  // A tensor whose declaration the text does not show (`auto x = ...`, a declaration elsewhere)
  // has the element type of the buffer it is taken from: `x = buf.Get<int32_t>();`.
  static const std::regex taken(
      R"(([A-Za-z_]\w*)\s*=\s*[\w.\->]+?\s*(?:\.|->)\s*(?:Get|AllocTensor|DeQue)\s*<\s*([\w:]+)\s*>\s*\()");
  for (auto it = std::sregex_iterator(masked_.begin(), masked_.end(), taken);
       it != std::sregex_iterator(); ++it) {
    if (global_types_.count((*it)[1]) == 0) local_types_.emplace((*it)[1], (*it)[2]);
  }
  // The position is the template's first argument: TQue<TPosition::A1, 1>, TQue<QuePosition::VECIN,
  // 2>.
  static const std::regex queue_position(R"(TQue(?:Bind)?\s*<\s*(?:[\w]+\s*::\s*)*(\w+))");
  for (auto it = std::sregex_iterator(masked_.begin(), masked_.end(), queue_decl);
       it != std::sregex_iterator(); ++it) {
    queues_.insert((*it)[1]);
    const std::string decl = (*it)[0];
    std::smatch position;
    if (std::regex_search(decl, position, queue_position))
      queue_positions_.emplace((*it)[1], position[1]);
  }
  for (auto it = std::sregex_iterator(masked_.begin(), masked_.end(), tbuf_decl);
       it != std::sregex_iterator(); ++it) {
    tbufs_.insert((*it)[1]);
    const size_t end = static_cast<size_t>(it->position(1) + it->length(1));
    for (const std::string& more : further_declarators(masked_, end)) tbufs_.insert(more);
  }
  std::smatch m;
  if (std::regex_search(masked_, m, pipe_decl)) {
    pipe_access_ = std::string(m[2]) + (m[1].length() > 0 ? "->" : ".");
  }
}

std::optional<std::string> kernel_facts::pipe_access() const {
  return pipe_access_;
}

std::optional<std::string> kernel_facts::element_type(const std::string& variable) const {
  if (auto it = local_types_.find(variable); it != local_types_.end()) return it->second;
  if (auto it = global_types_.find(variable); it != global_types_.end()) return it->second;
  return std::nullopt;
}

bool kernel_facts::is_global(const std::string& variable) const {
  if (global_types_.count(variable) != 0) return true;
  if (local_types_.count(variable) != 0) return false;
  return looks_global(variable);
}

bool kernel_facts::is_queue(const std::string& variable) const {
  return queues_.count(variable) != 0;
}
bool kernel_facts::is_cube_queue(const std::string& variable) const {
  static const std::set<std::string> cube = {"A1", "B1", "A2", "B2", "CO1", "CO2", "C1", "C2"};
  const auto it = queue_positions_.find(variable);
  return it != queue_positions_.end() && cube.count(it->second) != 0;
}
bool kernel_facts::is_l1_queue(const std::string& variable) const {
  const auto it = queue_positions_.find(variable);
  return it != queue_positions_.end() && (it->second == "A1" || it->second == "B1");
}
bool kernel_facts::is_tbuf(const std::string& variable) const {
  return tbufs_.count(variable) != 0;
}

bool kernel_facts::uses_queues() const {
  return masked_.find("EnQue") != std::string::npos && masked_.find("DeQue") != std::string::npos;
}

std::vector<pipe_kind> kernel_facts::pipes(text_range range) const {
  std::vector<pipe_kind> out;
  pipes(range, 0, out);
  return out;
}

void kernel_facts::pipes(text_range range, int depth, std::vector<pipe_kind>& out) const {
  size_t i = range.begin;
  const size_t end = std::min(range.end, masked_.size());
  while (i < end) {
    if (!is_identifier_char(masked_[i]) || (i > 0 && is_identifier_char(masked_[i - 1])) ||
        std::isdigit(static_cast<unsigned char>(masked_[i]))) {
      ++i;
      continue;
    }
    size_t word_end = i;
    while (word_end < end && is_identifier_char(masked_[word_end])) ++word_end;
    std::string word = masked_.substr(i, word_end - i);
    size_t k = skip_space(masked_, word_end);
    if (k < end && masked_[k] == '<') {
      int d = 0;
      size_t j = k;
      for (; j < end; ++j) {
        if (masked_[j] == '<') ++d;
        if (masked_[j] == '>' && --d == 0) break;
        if (masked_[j] == ';' || masked_[j] == '(') break;
      }
      if (j < end && masked_[j] == '>') k = skip_space(masked_, j + 1);
    }
    if (k >= end || masked_[k] != '(') {
      i = word_end;
      continue;
    }
    size_t close = find_matching(masked_, k);
    if (close == std::string::npos || close >= end) {
      i = word_end;
      continue;
    }
    bool member_access = i > 0 && (masked_[i - 1] == '.' ||
                                   (i > 1 && masked_[i - 1] == '>' && masked_[i - 2] == '-'));
    if (word == "DataCopy" || word == "DataCopyPad") {
      pipes({k + 1, close}, depth, out);
      std::vector<std::string> args = split_arguments(text_.substr(k + 1, close - k - 1));
      std::string dst = args.empty() ? std::string() : operand_base(args[0]);
      out.push_back(is_global(dst) ? pipe_kind::mte3 : pipe_kind::mte2);
      i = close + 1;
    } else if (is_vector_api(word) && !member_access) {
      pipes({k + 1, close}, depth, out);
      out.push_back(pipe_kind::vector);
      i = close + 1;
    } else if ((word == "GetValue" || word == "SetValue") && member_access) {
      pipes({k + 1, close}, depth, out);
      out.push_back(pipe_kind::scalar);
      i = close + 1;
    } else if (!member_access && not_functions().count(word) == 0 && depth < 3) {
      if (std::optional<text_range> body = find_function_body(masked_, word)) {
        // Arguments are evaluated before the call.
        pipes({k + 1, close}, depth, out);
        pipes(*body, depth + 1, out);
        i = close + 1;
      } else {
        i = word_end;
      }
    } else {
      i = word_end;
    }
  }
}

}  // namespace aopt::agent

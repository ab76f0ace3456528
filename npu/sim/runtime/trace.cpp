#include "trace.hpp"

namespace aopt::sim {

const char* to_string(pipe p) {
  switch (p) {
    case pipe::s:
      return "S";
    case pipe::v:
      return "V";
    case pipe::mte2:
      return "MTE2";
    case pipe::mte3:
      return "MTE3";
  }
  return "?";
}

}  // namespace aopt::sim

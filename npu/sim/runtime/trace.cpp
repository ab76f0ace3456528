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
    case pipe::mte1:
      return "MTE1";
    case pipe::m:
      return "M";
    case pipe::fix:
      return "FIX";
  }
  return "?";
}

}  // namespace aopt::sim

// The host environment every CANN installation provides and operator host code relies on: the
// bounds-checked C library (securec.h) with its documented return codes, the log interface
// (toolchain/slog.h, base/dlog_pub.h) and error reports (base/err_msg.h), written the way a
// repository's log helper writes them (a DlogSub line prefixed with the thread id and the
// context's node type and name).
#include <doctest/doctest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "base/err_msg.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "securec.h"
#include "toolchain/slog.h"

namespace host_shim_environment_test {

// A log helper in the style of public operator repositories: module OP, a submodule name, the
// thread id and "type:name" of the context in the prefix.
template <typename Context>
std::string op_info(const Context* context) {
  return std::string(context->GetNodeType()) + ":" + context->GetNodeName();
}

#define TEST_OP_LOG_E(context, fmt, ...)                                                           \
  do {                                                                                             \
    DlogSub(static_cast<int>(OP), "OP_TILING", DLOG_ERROR, "[%lu] OpName:[%s] " fmt,               \
            static_cast<uint64_t>(syscall(__NR_gettid)), op_info(context).c_str(), ##__VA_ARGS__); \
    REPORT_INNER_ERR_MSG("EZ9999", fmt, ##__VA_ARGS__);                                            \
  } while (0)

int evaluations = 0;
int counted() {
  return ++evaluations;
}

}  // namespace host_shim_environment_test

using namespace host_shim_environment_test;

TEST_SUITE("sim") {
  TEST_CASE("securec memcpy_s and memmove_s copy within destMax and reset dest on bad arguments") {
    char dest[8] = "abcdefg";
    const char src[] = "0123456789";
    CHECK(memcpy_s(dest, sizeof dest, src, 4) == EOK);
    CHECK(std::string(dest, 4) == "0123");
    CHECK(dest[4] == 'e');
    // More than destMax: the destination is zeroed.
    CHECK(memcpy_s(dest, sizeof dest, src, 9) == ERANGE_AND_RESET);
    CHECK(std::string(dest, sizeof dest) == std::string(sizeof dest, '\0'));
    std::memcpy(dest, "abcdefg", 8);
    CHECK(memcpy_s(dest, sizeof dest, nullptr, 2) == EINVAL_AND_RESET);
    CHECK(dest[0] == '\0');
    CHECK(memcpy_s(nullptr, 8, src, 2) == EINVAL);
    CHECK(memcpy_s(dest, 0, src, 2) == ERANGE);
    CHECK(memcpy_s(dest, sizeof dest, src, 0) == EOK);
    // Overlap: memcpy_s refuses it, memmove_s is made for it.
    char buf[8] = "abcdefg";
    CHECK(memcpy_s(buf + 1, 7, buf, 4) == EOVERLAP_AND_RESET);
    std::memcpy(buf, "abcdefg", 8);
    CHECK(memmove_s(buf + 1, 7, buf, 4) == EOK);
    CHECK(std::string(buf) == "aabcdfg");
    CHECK(memmove_s(buf, sizeof buf, src, 9) == ERANGE_AND_RESET);
  }

  TEST_CASE("securec memset_s fills count bytes, or destMax of them and says so") {
    unsigned char b[6] = {1, 2, 3, 4, 5, 6};
    CHECK(memset_s(b, sizeof b, 0, 4) == EOK);
    CHECK(b[3] == 0);
    CHECK(b[4] == 5);
    CHECK(memset_s(b, sizeof b, 7, 10) == ERANGE_AND_RESET);
    CHECK(b[5] == 7);
    CHECK(memset_s(nullptr, 4, 0, 4) == EINVAL);
    CHECK(memset_s(b, 0, 0, 0) == ERANGE);
  }

  TEST_CASE("securec string copies and concatenations keep the terminator within destMax") {
    char s[8];
    CHECK(strcpy_s(s, sizeof s, "ascend") == EOK);
    CHECK(std::string(s) == "ascend");
    CHECK(strcpy_s(s, sizeof s, "ascend c") == ERANGE_AND_RESET);  // 9 bytes with '\0'
    CHECK(s[0] == '\0');
    CHECK(strncpy_s(s, sizeof s, "operator", 3) == EOK);
    CHECK(std::string(s) == "ope");
    CHECK(strcat_s(s, sizeof s, "rat") == EOK);
    CHECK(std::string(s) == "operat");
    CHECK(strcat_s(s, sizeof s, "or") == ERANGE_AND_RESET);
    CHECK(s[0] == '\0');
    CHECK(strcpy_s(s, sizeof s, "ab") == EOK);
    CHECK(strncat_s(s, sizeof s, "cdefgh", 2) == EOK);
    CHECK(std::string(s) == "abcd");
    CHECK(strcpy_s(s, sizeof s, nullptr) == EINVAL_AND_RESET);
    CHECK(strcpy_s(nullptr, 8, "x") == EINVAL);
  }

  TEST_CASE("securec sprintf_s and snprintf_s return the length, or -1 when the text is cut") {
    char s[8];
    CHECK(sprintf_s(s, sizeof s, "%d-%s", 42, "ab") == 5);
    CHECK(std::string(s) == "42-ab");
    CHECK(sprintf_s(s, sizeof s, "%s", "too long!") == -1);
    CHECK(s[0] == '\0');
    // snprintf_s: at most count characters; longer text is truncated to them and -1 says so.
    CHECK(snprintf_s(s, sizeof s, 3, "%s", "abcdef") == -1);
    CHECK(std::string(s) == "abc");
    CHECK(snprintf_s(s, sizeof s, sizeof s - 1, "%u", 123u) == 3);
    CHECK(std::string(s) == "123");
    CHECK(snprintf_s(s, sizeof s, 20, "%s", "abcdefghij") == -1);
    CHECK(s[0] == '\0');
  }

  TEST_CASE("CANN log lines compile as repositories write them and write nothing") {
    evaluations = 0;
    gert::InferShapeContext shape_context("add_custom", "AddCustom");
    gert::TilingParseContext parse_context(nullptr, nullptr, "add_custom", "AddCustom");
    CHECK(op_info(&shape_context) == "AddCustom:add_custom");
    CHECK(op_info(&parse_context) == "AddCustom:add_custom");
    // Without a type, the node is named by the one it has.
    CHECK(std::string(gert::InferShapeContext("AddCustom").GetNodeType()) == "AddCustom");
    // Every level is off: the arguments of a log line or an error report are never evaluated.
    TEST_OP_LOG_E(&shape_context, "x has %d dims", counted());
    Dlog(OP, DLOG_ERROR, "%d", counted());
    DlogError(OP, "%d", counted());
    CHECK(evaluations == 0);
    int event = 1;
    CHECK(dlog_getlevel(OP, &event) == DLOG_NULL);
    CHECK(event == 0);
    CHECK(CheckLogLevel(OP, DLOG_ERROR) == 0);
    CHECK(dlog_setlevel(-1, DLOG_DEBUG, 1) == 0);
    CHECK(CheckLogLevel(OP, DLOG_ERROR) == 0);
    // The identity queries of a log prefix answer.
    CHECK(getpid() > 0);
    CHECK(syscall(__NR_gettid) > 0);
  }
}

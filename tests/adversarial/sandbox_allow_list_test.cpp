// Issue 30 item 2: the sandbox is an allow-list of system calls, and candidates run as an
// identity that owns nothing of aopt's. The escapes the issue found, as the attacker wrote them
// (a static constructor of the kernel, the screen off): chmod and utimensat on a file of aopt's
// outside the scratch dir (and, not named by the issue, chown, an extended attribute and a device
// node or FIFO beside it), and io_uring, which created the socket `socket` may not, to reach a
// UNIX socket outside. Each is killed (sandbox_violation) and leaves the file and the socket
// untouched; the honest candidate evaluated next is still ok with its true latency.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"
#include "base/unique_fd.hpp"

namespace fs = std::filesystem;
using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

std::string literal(const std::string& text) {
  return nlohmann::json(text).dump();
}

// Whether every directory from the root down to `dir` lets any user through (others' x bit):
// sim_device switches identity only when its work dir and toolchain are so reachable, and keeps
// aopt's identity under a private (0700) directory, as a clone made with `mktemp -d` is.
bool searchable_by_others(const fs::path& dir) {
  fs::path at;
  for (const fs::path& part : fs::absolute(dir)) {
    at /= part;
    if ((fs::status(at).permissions() & fs::perms::others_exec) == fs::perms::none) return false;
  }
  return true;
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("sandbox allow-list: chmod, utimensat, xattrs and mknod on aopt's files are killed") {
    checker_fixture f;
    const fs::path target = f.work.path() / "aopt-owned.txt";
    const fs::path node = f.work.path() / "aopt-fifo";
    std::ofstream(target) << "aopt's\n";
    fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
    struct stat before {};
    REQUIRE(::stat(target.c_str(), &before) == 0);
    const std::string attacks[] = {
        "#include <sys/stat.h>\n"
        "__attribute__((constructor)) static void aopt_attack() { chmod(" +
            literal(target.string()) + ", 0777); }\n",
        "#include <fcntl.h>\n#include <sys/stat.h>\n"
        "__attribute__((constructor)) static void aopt_attack() {\n"
        "  struct timespec t[2] = {{0, 0}, {0, 0}};\n"
        "  utimensat(AT_FDCWD, " +
            literal(target.string()) + ", t, 0);\n}\n",
        "#include <unistd.h>\n"
        "__attribute__((constructor)) static void aopt_attack() { chown(" +
            literal(target.string()) + ", 65534, 65534); }\n",
        // Attributes ride along with a file aopt trusts (a user.* attribute needs no privilege).
        "#include <sys/xattr.h>\n"
        "__attribute__((constructor)) static void aopt_attack() { setxattr(" +
            literal(target.string()) + ", \"user.aopt\", \"x\", 1, 0); }\n",
        // A FIFO beside aopt's files would block whichever aopt process opened it.
        "#include <sys/stat.h>\n"
        "__attribute__((constructor)) static void aopt_attack() { mknod(" +
            literal(node.string()) + ", S_IFIFO | 0666, 0); }\n",
    };
    for (const std::string& attack : attacks) {
      CAPTURE(attack);
      auto r = f.unscreened.evaluate(f.op, f.op.host_source, attack + f.op.kernel_source, {});
      CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
      CHECK(r.error_kind == "sandbox_violation");
      CHECK(r.message.find("SIGSYS") != std::string::npos);
      struct stat after {};
      REQUIRE(::stat(target.c_str(), &after) == 0);
      CHECK(after.st_mode == before.st_mode);
      CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
      CHECK(after.st_uid == before.st_uid);
      char value[8];
      CHECK(::getxattr(target.c_str(), "user.aopt", value, sizeof value) < 0);
      CHECK_FALSE(fs::exists(node));
      f.check_honest_still_ok();
    }
  }

  TEST_CASE("sandbox allow-list: io_uring cannot reach a UNIX socket outside") {
    checker_fixture f;
    const fs::path path = f.work.path() / "listener.sock";
    aopt::unique_fd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    REQUIRE(listener.valid());
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    REQUIRE(path.string().size() < sizeof address.sun_path);
    std::strcpy(address.sun_path, path.c_str());
    REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener.get(), 4) == 0);
    // The attacker sets up a ring and, had it got one, would submit IORING_OP_SOCKET and
    // IORING_OP_CONNECT to the listener and send through it.
    const std::string attack =
        "#include <sys/syscall.h>\n#include <unistd.h>\n#include <cstring>\n"
        "__attribute__((constructor)) static void aopt_attack() {\n"
        "  unsigned char params[120];\n"
        "  std::memset(params, 0, sizeof params);\n"
        "  long ring = syscall(__NR_io_uring_setup, 8, params);\n"
        "  if (ring >= 0) syscall(__NR_io_uring_enter, ring, 1, 1, 0, 0, 0);\n"
        "}\n";
    auto r = f.unscreened.evaluate(f.op, f.op.host_source, attack + f.op.kernel_source, {});
    CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
    CHECK(r.error_kind == "sandbox_violation");
    CHECK(::accept(listener.get(), nullptr, nullptr) < 0);
    CHECK(errno == EAGAIN);
    f.check_honest_still_ok();
  }

  TEST_CASE("sandbox: a candidate runs as an identity that owns nothing of aopt's") {
    checker_fixture f;
    const std::string report =
        "#include <cstdio>\n#include <cstdlib>\n#include <unistd.h>\n"
        "__attribute__((constructor)) static void aopt_report() {\n"
        "  std::fprintf(stderr, \"identity %d:%d\\n\", (int)getuid(), (int)getgid());\n"
        "  std::abort();\n"
        "}\n";
    auto r = f.unscreened.evaluate(f.op, f.op.host_source, report + f.op.kernel_source, {});
    REQUIRE(r.status == eval_status::runtime_error);
    std::string shown;
    for (const auto& line : r.diagnostics) shown += line + "\n";
    const auto toolchain = aopt::testing::checker_options(f.work.path(), false).toolchain;
    bool reachable = true;
    for (const fs::path& dir :
         {f.work.path(), toolchain.include_dir, toolchain.pch_dir, toolchain.lib_dir}) {
      reachable = reachable && searchable_by_others(dir);
    }
    if (::geteuid() == 0 && reachable) {
      CHECK_MESSAGE(shown.find("identity 65534:65534") != std::string::npos, shown);
    } else {
      CHECK_MESSAGE(shown.find("identity " + std::to_string(::getuid())) != std::string::npos,
                    shown);
    }
    f.check_honest_still_ok();
  }
}

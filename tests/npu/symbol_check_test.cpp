// The link allow-list (npu/sim/device/symbol_check.hpp): nm's lines are read as the symbols they
// name, and a candidate object's definitions are judged against its entry points and the names
// the trusted libraries define or call, both ways.
#include "npu/sim/device/symbol_check.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "npu/sim/device/candidate_builder.hpp"
#include "npu/sim/device/compile_cache.hpp"
#include "support/temp_dir.hpp"

using namespace aopt::npu;

namespace {

elf_symbol sym(const char* name, char type) {
  return {"obj/kernel.o", name, type};
}

link_namespace trusted_names() {
  link_namespace n;
  n.add(parse_nm_posix("libaopt_simrt.a[kernel_pipe.cpp.o]: _ZN8aopt_sim2rt9block_numEv T 10 20\n"
                       "libaopt_simrt.a[kernel_pipe.cpp.o]: _ZN7AscendC8DataCopyIDF16_EEvv W 0 8\n"
                       "libaopt_simrt.a[kernel_pipe.cpp.o]: _ZN8aopt_sim2rt4hookEv U\n"
                       "libaopt_simrt.a[kernel_pipe.cpp.o]: _Z17aopt_kernel_entryPKPh U\n"
                       "libaopt_simdriver.a[driver_main.cpp.o]: "
                       "_Z17aopt_tiling_entryPN4gert13TilingContextE U\n"),
        true);
  n.add(parse_nm_posix("/lib/libc.so.6: write@@GLIBC_2.2.5 W 100 20\n"
                       "/lib/libc.so.6: memcpy@@GLIBC_2.14 i 100 20\n"),
        false);
  return n;
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("nm -P -A lines are read as object, name (without its version) and type") {
    const auto symbols = parse_nm_posix(
        "obj/host.o: _Z17aopt_tiling_entryPN4gert13TilingContextE T 0 2e\n"
        "libc.so.6: write@@GLIBC_2.2.5 W 10 20\n"
        "lib.a[a.o]: undefined_one U\n"
        "\n"
        "lib.a[b.o]:\n");
    REQUIRE(symbols.size() == 3);
    CHECK(symbols[0].object == "obj/host.o");
    CHECK(symbols[0].type == 'T');
    CHECK(symbols[1].name == "write");
    CHECK(symbols[2].object == "lib.a[a.o]");
    CHECK(symbols[2].type == 'U');
  }

  TEST_CASE("a candidate object may define its entry points and internal names only") {
    const link_namespace trusted = trusted_names();
    const symbol_allowance kernel = kernel_unit_allowance("add_tiled");
    const symbol_allowance host = host_unit_allowance("TilingFunc");
    // Allowed: the entries, local symbols, weak copies of what the libraries hold weak too, and
    // weak copies of the candidate's own inline functions.
    CHECK_FALSE(forbidden_definition(sym("add_tiled", 'T'), kernel, trusted));
    CHECK_FALSE(forbidden_definition(sym("_Z17aopt_kernel_entryPKPh", 'T'), kernel, trusted));
    CHECK_FALSE(forbidden_definition(sym("_ZN8optiling10TilingFuncEPN4gert13TilingContextE", 'T'),
                                     host, trusted));
    CHECK_FALSE(forbidden_definition(sym("_ZN12_GLOBAL__N_17helperEv", 't'), kernel, trusted));
    CHECK_FALSE(forbidden_definition(sym("_ZN7AscendC8DataCopyIDF16_EEvv", 'W'), kernel, trusted));
    CHECK_FALSE(forbidden_definition(sym("_ZN8AddSlice3RunEv", 'W'), kernel, trusted));
    CHECK_FALSE(forbidden_definition(sym("DW.ref.__gxx_personality_v0", 'V'), kernel, trusted));
    // The operator's own C++ names, strong: an out-of-line method of its tiling class (DrivingSDK's
    // scatter_add defines ScatterAddTilingV1::setBaseTilingData so), its vtable, a helper.
    CHECK_FALSE(forbidden_definition(
        sym("_ZN8optiling18ScatterAddTilingV117setBaseTilingDataEPN4gert13TilingContextE", 'T'),
        host, trusted));
    CHECK_FALSE(
        forbidden_definition(sym("_ZTVN8optiling18ScatterAddTilingV1E", 'D'), host, trusted));
    CHECK_FALSE(forbidden_definition(sym("_Z6helperv", 'T'), kernel, trusted));

    // Forbidden, naming the symbol: a runtime function (strong or weak), a name the runtime
    // calls, a libc name, any other definition with external linkage, an entry of the other unit.
    for (const elf_symbol& s :
         {sym("_ZN8aopt_sim2rt9block_numEv", 'T'), sym("_ZN8aopt_sim2rt9block_numEv", 'W'),
          sym("_ZN8aopt_sim2rt4hookEv", 'W'), sym("write", 'T'), sym("write", 'W'),
          sym("memcpy", 'W'), sym("helper", 'T'), sym("table", 'D'), sym("counter", 'B'),
          sym("resolver", 'i'), sym("_Z17aopt_tiling_entryPN4gert13TilingContextE", 'T'),
          sym("_ZN8aopt_sim2rt4hookEv", 'T')}) {
      CAPTURE(s.name);
      CAPTURE(s.type);
      auto why = forbidden_definition(s, kernel, trusted);
      REQUIRE(why.has_value());
      CHECK(why->find("`" + s.name + "`") != std::string::npos);
      CHECK(why->find("obj/kernel.o") != std::string::npos);
    }
  }

  TEST_CASE("the link's nm tables are kept in the object cache, and a damaged copy is made again") {
    aopt::testing::temp_dir dir;
    const sim_toolchain toolchain = default_sim_toolchain();
    std::ofstream(dir.path() / "evil.cpp")
        << "extern \"C\" long write(int, const void*, unsigned long) { return 0; }\n";
    aopt::subprocess_options compile;
    compile.argv = {toolchain.compiler, "-c", "evil.cpp", "-o", "evil.o"};
    compile.working_dir = dir.path().string();
    auto compiled = aopt::run_subprocess(compile);
    REQUIRE((compiled.ok() && compiled->succeeded()));

    compile_cache cache(dir.path() / "objcache");
    const std::vector<std::filesystem::path> libs = {toolchain.lib_dir / "libaopt_simrt.a"};
    aopt::subprocess_options run;
    run.working_dir = dir.path().string();
    const std::vector<symbol_checker::object> objects = {
        {"evil.o", host_unit_allowance("TilingFunc")}};
    auto entries = [&] {
      std::vector<std::filesystem::path> out;
      for (const auto& e : std::filesystem::directory_iterator(dir.path() / "objcache"))
        out.push_back(e.path());
      return out;
    };

    const symbol_checker first(toolchain.nm, toolchain.compiler, libs, &cache);
    const auto found = first.check(objects, run);
    REQUIRE(found.ok());
    CHECK(found->find("`write`") != std::string::npos);
    const auto kept = entries();
    REQUIRE(kept.size() == 1);  // the tables, under the stamps of nm and the libraries
    CHECK(std::filesystem::file_size(kept[0]) > 10000);

    // A later checker (another device, another process) reads them and judges alike.
    const symbol_checker second(toolchain.nm, toolchain.compiler, libs, &cache);
    CHECK(second.check(objects, run).value() == *found);
    CHECK(cache.stats().hits + cache.stats().misses + cache.stats().stores == 0);

    // A damaged copy is dropped, the tables are made again and kept anew.
    std::filesystem::permissions(kept[0], std::filesystem::perms::owner_all);
    std::ofstream(kept[0], std::ios::binary | std::ios::trunc) << "{\"simulator\": \"\"}";
    const symbol_checker third(toolchain.nm, toolchain.compiler, libs, &cache);
    CHECK(third.check(objects, run).value() == *found);
    CHECK(cache.stats().damaged == 1);
    CHECK(entries().size() == 1);
  }

  TEST_CASE("a checker reads objects it found clean once, and forbidden or changed ones again") {
    aopt::testing::temp_dir dir;
    const sim_toolchain toolchain = default_sim_toolchain();
    // nm, logging each run that reads a candidate object (the libraries' tables come first).
    const std::filesystem::path log = dir.path() / "nm.log";
    const std::filesystem::path logging_nm = dir.path() / "nm";
    std::ofstream(logging_nm)
        << "#!/bin/sh\ncase \"$*\" in *\" clean.o\"*|*\" evil.o\"*) echo \"$*\" >> " << log.string()
        << ";; esac\nexec " << toolchain.nm << " \"$@\"\n";
    std::filesystem::permissions(logging_nm, std::filesystem::perms::owner_all);
    auto compile = [&](const char* name, const char* text) {
      std::ofstream(dir.path() / (std::string(name) + ".cpp")) << text;
      aopt::subprocess_options c;
      c.argv = {toolchain.compiler, "-c", std::string(name) + ".cpp", "-o",
                std::string(name) + ".o"};
      c.working_dir = dir.path().string();
      auto compiled = aopt::run_subprocess(c);
      REQUIRE((compiled.ok() && compiled->succeeded()));
    };
    auto nm_reads = [&] {
      std::ifstream in(log);
      size_t n = 0;
      for (std::string line; std::getline(in, line);) ++n;
      return n;
    };
    compile("clean",
            "static int helper() { return 1; }\nint unused_by_name() { return helper(); }\n");
    compile("evil", "extern \"C\" long write(int, const void*, unsigned long) { return 0; }\n");
    const std::vector<std::filesystem::path> libs = {toolchain.lib_dir / "libaopt_simrt.a"};
    const symbol_checker checker(logging_nm.string(), toolchain.compiler, libs);
    aopt::subprocess_options run;
    run.working_dir = dir.path().string();
    const std::vector<symbol_checker::object> clean = {
        {"clean.o", host_unit_allowance("TilingFunc")}};
    const std::vector<symbol_checker::object> evil = {
        {"evil.o", host_unit_allowance("TilingFunc")}};

    CHECK(checker.check(clean, run).value().empty());
    CHECK(nm_reads() == 1);
    CHECK(checker.check(clean, run).value().empty());
    CHECK(nm_reads() == 1);  // remembered
    // Another allowance is another question.
    const std::vector<symbol_checker::object> other = {{"clean.o", kernel_unit_allowance("k")}};
    CHECK(checker.check(other, run).value().empty());
    CHECK(nm_reads() == 2);
    // A forbidden object is judged every time.
    CHECK_FALSE(checker.check(evil, run).value().empty());
    CHECK_FALSE(checker.check(evil, run).value().empty());
    CHECK(nm_reads() == 4);
    // New bytes under the clean object's name are read again: here, forbidden.
    std::filesystem::copy_file(dir.path() / "evil.o", dir.path() / "clean.o",
                               std::filesystem::copy_options::overwrite_existing);
    CHECK(checker.check(clean, run).value().find("`write`") != std::string::npos);
    CHECK(nm_reads() == 5);
  }
}

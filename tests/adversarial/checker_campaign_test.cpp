// A Stage I episode whose mutator is hostile half of the time: among honest tiling programs it
// proposes the exploits of issue 17 (forged results with early exits from the tiling function,
// a static constructor, an atexit handler corrupting the delivery). Evaluated by the simulator
// device with the static screen off, so the trusted checker alone stands between them and the
// score: the episode ends with the best of the run without them, latency and tiling. The same
// with issue 30's attacks in the tiling program.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"
#include "agent/episode/episode.hpp"
#include "agent/episode/outcome_reason.hpp"
#include "agent/roles/role_table.hpp"
#include "npu/local_device_slots.hpp"

using aopt::testing::checker_fixture;
namespace agent = aopt::agent;
using aopt::result;

namespace {

// The validation role (agent/roles/validation_role.cpp) over the fixture's unscreened simulator.
std::shared_ptr<agent::verifier_policy> validation_over(checker_fixture& f) {
  const agent::role_descriptor* role = agent::find_role(agent::role_descriptors(), "validation");
  REQUIRE(role != nullptr);
  agent::role_environment env;
  // Not owned: the fixture outlives the role.
  std::shared_ptr<aopt::npu::device> device(std::shared_ptr<void>(), &f.unscreened);
  env.evaluation = std::make_shared<agent::evaluation_service>(
      std::make_shared<aopt::npu::local_device_slots>(device, 1), nullptr,
      aopt::npu::eval_options{});
  result<agent::hook_policy> made = role->make(env);
  REQUIRE(made.ok());
  return std::get<std::shared_ptr<agent::verifier_policy>>(*made);
}

// Runs a Stage I episode proposing `tilings` in order, its final best checked by the validation
// role; returns its final state.
agent::episode_state run_episode(checker_fixture& f, const std::vector<std::string>& tilings,
                                 const aopt::npu::op_package* package = nullptr) {
  const aopt::npu::op_package& op = package ? *package : f.op;
  agent::episode_config cfg;
  cfg.strat = agent::strategy::stage1;
  cfg.budget = static_cast<uint32_t>(tilings.size());
  cfg.verifiers = {"validation"};
  agent::episode_engine e(op, agent::initial_episode_state("c", op, cfg));
  const std::shared_ptr<agent::verifier_policy> validation = validation_over(f);
  size_t proposed = 0;
  for (int step = 0; step < 100 && !e.finished(); ++step) {
    agent::episode_action a = e.next();
    if (std::holds_alternative<agent::need_mutation>(a)) {
      REQUIRE(proposed < tilings.size());
      agent::mutation_reply r;
      r.tiling = tilings[proposed++];
      r.origin = "scripted";
      e.on_mutation(r, "hostile-mutator");
    } else if (auto* ev = std::get_if<agent::need_evaluation>(&a)) {
      aopt::npu::eval_result r =
          f.unscreened.evaluate(op, ev->request.tiling, ev->request.kernel, {});
      if (auto need = e.verification_of(r)) {
        r = e.verified_result(r, {{"validation", validation->verify(need->request)}});
      }
      e.on_evaluation(r);
    } else if (auto* v = std::get_if<agent::need_verification>(&a)) {
      e.on_final_verification({{"validation", validation->verify(v->request)}});
    } else {
      REQUIRE(std::holds_alternative<agent::episode_finished>(a));
    }
  }
  REQUIRE(e.finished());
  return e.state();
}

// Two honest Stage I steps from the fixture's tiling program: fewer tiles.
std::vector<std::string> honest_tilings(checker_fixture& f) {
  const std::string tile_line = "constexpr uint32_t TILE_NUM = 8;";
  return {f.replace(f.op.host_source, tile_line, "constexpr uint32_t TILE_NUM = 2;"),
          f.replace(f.op.host_source, tile_line, "constexpr uint32_t TILE_NUM = 1;")};
}

// Runs the honest tilings alone, then each hostile one followed by the next honest one, and
// checks that the second episode evaluated them all and ends as the first: its final state.
agent::episode_state run_attacked_as_clean(checker_fixture& f,
                                           const std::vector<std::string>& honest,
                                           const std::vector<std::string>& hostile) {
  std::vector<std::string> mixed;
  for (size_t i = 0; i < hostile.size(); ++i) {
    mixed.push_back(hostile[i]);
    if (i < honest.size()) mixed.push_back(honest[i]);
  }
  const agent::episode_state clean = run_episode(f, honest);
  agent::episode_state attacked = run_episode(f, mixed);
  CHECK(attacked.candidates == mixed.size());
  CHECK(attacked.best_us == clean.best_us);
  CHECK(attacked.best_tiling == clean.best_tiling);
  CHECK(attacked.best_result.latency_us == clean.best_result.latency_us);
  return attacked;
}

// How many of the episode's candidates failed, of any kind.
uint64_t refused(const agent::episode_state& s) {
  uint64_t n = 0;
  for (const auto& [kind, count] : s.failures) n += count;
  return n;
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("a hostile mutator's exploits among honest tilings leave the episode's result as is") {
    checker_fixture f;
    const std::string& t0 = f.op.host_source;
    const std::string body = "  AddTiledTilingData tiling;\n";
    const std::vector<std::string> honest = honest_tilings(f);
    const std::string includes = "#include <cstdio>\n#include <cstdlib>\n#include <unistd.h>\n";
    const std::vector<std::string> hostile = {
        includes + f.replace(t0, body,
                             "  { FILE* o = std::fopen(\"result.json\", \"w\");\n"
                             "    std::fputs(\"{\\\"status\\\": \\\"ok\\\", \\\"latency_us\\\": "
                             "0.001}\", o); std::fclose(o); _exit(0); }\n" +
                                 body),
        includes + f.replace(t0, "namespace optiling {\n",
                             "static int forged = [] { _exit(0); return 0; }();\n"
                             "namespace optiling {\n"),
        includes + f.replace(t0, body,
                             "  std::atexit([] { for (int fd = 3; fd < 10; ++fd) "
                             "::write(fd, \"AOPTEND1\", 8); });\n" +
                                 body),
    };
    const agent::episode_state attacked = run_attacked_as_clean(f, honest, hostile);
    // Every hostile candidate was evaluated; the two that forge an exit were refused. The atexit
    // handler never runs (the candidate ends right after its delivery without exit handlers:
    // delivery_channel::exit_delivered), so that one is judged as the baseline tiling it is.
    CHECK(refused(attacked) == hostile.size() - 1);
    CHECK(attacked.failures.count("no_delivery") == 1);
    CHECK(attacked.failures.at("no_delivery") == 2);
    MESSAGE("best " << attacked.best_us << " us; failures "
                    << nlohmann::json(attacked.failures).dump());
  }

  TEST_CASE("issue 30's attacks from a hostile mutator among honest tilings change nothing") {
    // The tiling program runs in the candidate process, so a Stage I mutator reaches everything
    // issue 30 names there: it interposes the runtime (the campaign accepted that file at
    // 6.05x, cold-confirmed) or the C library, changes the mode of a file of aopt's, sets up
    // io_uring, rewrites the reference and spec.json in its scratch dir, and breaks its own
    // scratch dir before crashing. The static screen is off; the episode ends as without them.
    checker_fixture f;
    const std::string& t0 = f.op.host_source;
    const std::string anchor = "namespace optiling {\n";
    const std::vector<std::string> honest = honest_tilings(f);
    const std::string owned = (f.work.path() / "aopt-owned.txt").string();
    std::ofstream(owned) << "aopt's\n";
    const std::filesystem::perms owned_mode = std::filesystem::status(owned).permissions();
    const std::string constructor = "__attribute__((constructor)) static void aopt_attack() ";
    auto before_tiling = [&](const std::string& code) {
      return f.replace(t0, anchor, code + anchor);
    };
    const std::vector<std::string> hostile = {
        before_tiling("extern \"C\" long _ZN8aopt_sim2rt9block_numEv() { return 1; }\n"),
        before_tiling("extern \"C\" int creat64(const char*, unsigned) { return -1; }\n"),
        before_tiling("#include <sys/stat.h>\n" + constructor + "{ chmod(" +
                      nlohmann::json(owned).dump() + ", 0777); }\n"),
        before_tiling("#include <sys/syscall.h>\n#include <unistd.h>\n" + constructor +
                      "{ unsigned char p[120] = {}; syscall(__NR_io_uring_setup, 8, p); }\n"),
        // Writes its own scratch dir only: the expected outputs were made before, elsewhere, so
        // this one is judged as the baseline tiling it is.
        before_tiling("#include <cstdio>\n" + constructor +
                      "{ for (const char* n : {\"reference\", \"spec.json\"}) {"
                      " FILE* o = std::fopen(n, \"w\"); if (o) { std::fputs(\"forged\", o);"
                      " std::fclose(o); } } }\n"),
        before_tiling("#include <cstdlib>\n#include <sys/stat.h>\n" + constructor +
                      "{ chmod(\".\", 0); std::abort(); }\n"),
    };
    const agent::episode_state attacked = run_attacked_as_clean(f, honest, hostile);
    const std::string failures = nlohmann::json(attacked.failures).dump();
    auto failed = [&](const std::string& kind) {
      const auto it = attacked.failures.find(kind);
      return it == attacked.failures.end() ? uint64_t{0} : uint64_t{it->second};
    };
    CHECK_MESSAGE(failed("forbidden") == 2, failures);
    CHECK_MESSAGE(failed("sandbox_violation") == 3, failures);
    CHECK(refused(attacked) == hostile.size() - 1);
    CHECK(std::filesystem::status(owned).permissions() == owned_mode);
    MESSAGE("best " << attacked.best_us << " us; failures " << failures);
  }

  TEST_CASE("a best that only works on the tuning shape is not reported as the result") {
    checker_fixture f;
    aopt::npu::op_package op = f.op;
    op.spec.validation_shapes = {{{"x", {4, 4096}}, {"y", {4, 4096}}, {"z", {4, 4096}}}};
    const std::string& t0 = f.op.host_source;
    const std::string tile_line = "constexpr uint32_t TILE_NUM = 8;";
    const std::string honest = f.replace(t0, tile_line, "constexpr uint32_t TILE_NUM = 2;");
    // Right on the 8 x 4096 tuning shape only: the length is the tuning shape's, not the input's.
    const std::string shape_bound =
        f.replace(f.replace(t0, tile_line, "constexpr uint32_t TILE_NUM = 1;"),
                  "context->GetInputShape(0)->GetOriginShape().GetShapeSize()", "32768u");

    const agent::episode_state passed = run_episode(f, {honest}, &op);
    CHECK(passed.best_tiling == honest);
    CHECK(passed.best_us < passed.baseline_us);
    CHECK(passed.notes.count("validation") == 1);

    const agent::episode_state s = run_episode(f, {honest, shape_bound}, &op);
    CHECK(s.best_tiling == t0);
    CHECK(s.best_us == s.baseline_us);
    const std::string why = agent::outcome_reason(s);
    CHECK_MESSAGE(why.find("failed validation shape 0 (x [4, 4096], y [4, 4096], z [4, 4096])") !=
                      std::string::npos,
                  why);
    MESSAGE(why);
  }
}

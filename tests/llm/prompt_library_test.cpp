#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <doctest/doctest.h>

#include "config/aopt_config.hpp"
#include "llm/prompt_library.hpp"

namespace llm = aopt::llm;

namespace {

// A fresh temporary folder, removed with the object.
class temp_folder {
 public:
  temp_folder() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("aopt-llm-prompts-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~temp_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
  }

 private:
  std::filesystem::path path_;
};

const std::string small_template =
    "<!--\ntemplate: small\nvariables:\n  {{kernel}} the kernel\n  {{profile}} the profile\n-->\n"
    "<!-- role: system -->\nYou are terse.\n<!-- role: user -->\nKernel:\n{{kernel}}\n"
    "Profile: {{ profile }}\n";

std::filesystem::path builtin_prompts() {
  return aopt::config::builtin_config_dir() / "prompts";
}

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE("the built-in prompt folder has every standard template, each renderable") {
    auto library = llm::prompt_library::load({builtin_prompts()});
    REQUIRE_MESSAGE(library.ok(), library.error().to_string());
    CHECK(library->check_complete().ok());
    for (const std::string& name : llm::prompt_library::standard_names()) {
      const llm::prompt_template* t = library->find(name);
      REQUIRE_MESSAGE(t != nullptr, name);
      CHECK_MESSAGE(t->variables.size() >= 3, name);
      llm::prompt_variables values;
      for (const std::string& var : t->variables) values[var] = "<" + var + " value>";
      auto messages = library->render(name, values);
      REQUIRE_MESSAGE(messages.ok(), messages.error().to_string());
      REQUIRE(messages->size() == 2);
      CHECK((*messages)[0].role == "system");
      CHECK((*messages)[1].role == "user");
      for (const std::string& var : t->variables)
        CHECK_MESSAGE((*messages)[1].content.find("<" + var + " value>") != std::string::npos,
                      (name + ": " + var));
      CHECK_MESSAGE((*messages)[1].content.find("{{") == std::string::npos, name);
    }
    CHECK(library->find("tiling_mutation")->variables.count("history") == 1);
    CHECK(library->find("refinement")->variables.count("tuples") == 1);
    CHECK(library->find("diagnosis")->variables.count("profile") == 1);
  }

  TEST_CASE("prompt_library renders variables once, splitting system and user messages") {
    auto t = llm::prompt_library::parse("small", small_template, "test");
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    llm::prompt_library library;
    library.add(std::move(*t));
    auto messages = library.render("small", {{"kernel", "K {{profile}}"}, {"profile", "P"}});
    REQUIRE(messages.ok());
    REQUIRE(messages->size() == 2);
    CHECK((*messages)[0] == llm::system_message("You are terse."));
    CHECK((*messages)[1].content == "Kernel:\nK {{profile}}\nProfile: P");
  }

  TEST_CASE("prompt_library names the template and the variable when rendering fails") {
    llm::prompt_library library;
    library.add(*llm::prompt_library::parse("small", small_template, "test"));
    auto missing = library.render("small", {{"kernel", "K"}});
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == aopt::status_code::invalid_argument);
    CHECK(missing.error().message().find("prompt 'small'") != std::string::npos);
    CHECK(missing.error().message().find("no value for variable {{profile}}") != std::string::npos);

    auto unknown = library.render("small", {{"kernel", "K"}, {"profile", "P"}, {"tiling", "T"}});
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message().find("{{tiling}} is not declared") != std::string::npos);

    auto absent = library.render("nope", {});
    REQUIRE_FALSE(absent.ok());
    CHECK(absent.error().code() == aopt::status_code::not_found);
    CHECK(library.check_complete().code() == aopt::status_code::not_found);
  }

  TEST_CASE("prompt_library rejects templates whose header does not document them") {
    auto no_header = llm::prompt_library::parse("t", "Just text {{kernel}}\n", "f.md");
    REQUIRE_FALSE(no_header.ok());
    CHECK(no_header.error().message().find("header") != std::string::npos);

    auto undeclared =
        llm::prompt_library::parse("t", "<!-- {{kernel}} -->\nline\nuses {{tiling}}\n", "f.md");
    REQUIRE_FALSE(undeclared.ok());
    CHECK(undeclared.error().message().find("line 3: uses {{tiling}}") != std::string::npos);
    CHECK(undeclared.error().message().find("f.md") != std::string::npos);

    auto bad_role =
        llm::prompt_library::parse("t", "<!-- x -->\n<!-- role: robot -->\nhi\n", "f.md");
    REQUIRE_FALSE(bad_role.ok());
    CHECK(bad_role.error().message().find("unknown role 'robot'") != std::string::npos);

    auto literal_braces =
        llm::prompt_library::parse("t", "<!-- none -->\nJSON like {{ \"a\": 1 }}\n", "f.md");
    CHECK(literal_braces.ok());
  }

  TEST_CASE("a user prompt folder overrides built-in templates of the same name") {
    temp_folder user;
    user.write("diagnosis.md", "<!-- {{kernel}} -->\nMy own diagnosis prompt for {{kernel}}\n");
    user.write("notes.txt", "not a template");
    auto library = llm::prompt_library::load({builtin_prompts(), user.path()});
    REQUIRE_MESSAGE(library.ok(), library.error().to_string());
    CHECK(library->check_complete().ok());
    auto messages = library->render("diagnosis", {{"kernel", "K"}});
    REQUIRE(messages.ok());
    REQUIRE(messages->size() == 1);
    CHECK((*messages)[0] == llm::user_message("My own diagnosis prompt for K"));
    CHECK(library->find("notes") == nullptr);

    auto missing = llm::prompt_library::load({user.path() / "absent"});
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == aopt::status_code::not_found);
  }

}  // TEST_SUITE

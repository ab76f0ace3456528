// Input sets handed over by descriptor (shared_inputs.hpp) are the inputs the process would have
// drawn itself; spec.json names the descriptors.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "base/unique_fd.hpp"
#include "npu/sim/runtime/driver_expected.hpp"
#include "npu/sim/runtime/shared_inputs.hpp"

namespace aopt::sim {
namespace {

npu::op_spec two_input_op() {
  npu::op_spec op;
  op.name = "shared_custom";
  op.seed = 77;
  npu::tensor_spec x{"x", npu::dtype::float16, {8, 64}, -2.0, 3.0};
  npu::tensor_spec y{"y", npu::dtype::int32, {5, 7}, -9.0, 9.0};
  op.inputs = {x, y};
  return op;
}

// A memfd holding `inputs` back to back, as the parent hands them over.
unique_fd memfd_of(const std::vector<std::vector<uint8_t>>& inputs) {
  unique_fd fd(::memfd_create("test-inputs", MFD_CLOEXEC));
  REQUIRE(fd.valid());
  for (const auto& bytes : inputs) {
    REQUIRE(::write(fd.get(), bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  return fd;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("an input set read from its descriptor is the set the process would draw") {
    const npu::op_spec op = two_input_op();
    for (uint32_t set = 0; set < 3; ++set) {
      const auto drawn = make_inputs(op, set);
      unique_fd fd = memfd_of(drawn);
      CHECK(read_shared_inputs(fd.get(), op) == drawn);
    }
    // Set 0 comes from the descriptor the spec names, the others are drawn.
    unique_fd first = memfd_of(make_inputs(op, 0));
    driver_spec spec;
    spec.op = op;
    spec.input_sets = 3;
    spec.input_fds = {first.get()};
    CHECK(inputs_of(spec, 0) == make_inputs(op, 0));
    CHECK(inputs_of(spec, 2) == make_inputs(op, 2));
  }

  TEST_CASE("a descriptor of the wrong size is refused, naming it and both sizes") {
    const npu::op_spec op = two_input_op();
    auto drawn = make_inputs(op, 0);
    drawn.back().pop_back();
    unique_fd fd = memfd_of(drawn);
    try {
      read_shared_inputs(fd.get(), op);
      FAIL("a short descriptor was read");
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      CHECK(what.find("input descriptor " + std::to_string(fd.get())) != std::string::npos);
      CHECK(what.find("holds 1163 bytes; the operator's inputs take 1164") != std::string::npos);
    }
  }

  TEST_CASE("spec.json's input_fds are read, written back and checked") {
    nlohmann::json j = {{"op",
                         {{"name", "relu_custom"},
                          {"inputs", {{{"name", "x"}, {"dtype", "half"}, {"shape", {2, 16}}}}},
                          {"outputs", {{{"name", "y"}, {"dtype", "half"}, {"shape", {2, 16}}}}}}},
                        {"input_sets", 2},
                        {"input_fds", {3, 4}}};
    const driver_spec s = parse_driver_spec(j);
    CHECK(s.input_fds == std::vector<int>{3, 4});
    CHECK(nlohmann::json(s)["input_fds"] == j["input_fds"]);
    auto error_of = [](const nlohmann::json& spec) -> std::string {
      try {
        parse_driver_spec(spec);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return "";
    };
    nlohmann::json too_many = j;
    too_many["input_fds"] = {3, 4, 5};
    CHECK(error_of(too_many).find("input_fds: 3 descriptors for 2 input sets") !=
          std::string::npos);
    nlohmann::json standard = j;
    standard["input_fds"] = {1};
    CHECK(error_of(standard).find("input_fds: expected descriptors >= 3, got 1") !=
          std::string::npos);
    nlohmann::json not_array = j;
    not_array["input_fds"] = 3;
    CHECK(error_of(not_array).find("input_fds: expected an array") != std::string::npos);
  }
}

}  // namespace aopt::sim

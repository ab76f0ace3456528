// The RFC 4180 splitter msprof's CSV files are read with.
#include "npu/cann/csv_table.hpp"

#include <doctest/doctest.h>

using aopt::npu::csv_table;

TEST_CASE("csv_table splits plain, quoted and CRLF records") {
  auto t = csv_table::parse(
      "Op Name, Task Duration(us) ,Note\r\nadd,12.5,\"a, b\"\r\n\"mul\"\"x\",3,\"two\nlines\"\r\n",
      "t.csv");
  REQUIRE_MESSAGE(t.ok(), t.error().to_string());
  CHECK(t->header() == std::vector<std::string>{"Op Name", "Task Duration(us)", "Note"});
  REQUIRE(t->rows().size() == 2);
  CHECK(t->rows()[0] == std::vector<std::string>{"add", "12.5", "a, b"});
  CHECK(t->rows()[1] == std::vector<std::string>{"mul\"x", "3", "two\nlines"});
  CHECK(t->column({"Task Duration(us)"}) == 1);
  CHECK(t->column({"Block Dim", "Note"}) == 2);
  CHECK(t->column({"Block Dim"}) == csv_table::npos);
}

TEST_CASE("csv_table keeps empty fields, skips a BOM, blank lines and a missing final newline") {
  auto t = csv_table::parse(
      "\xEF\xBB\xBF"
      "a,b,c\n\n,,\n1,,3",
      "t.csv");
  REQUIRE_MESSAGE(t.ok(), t.error().to_string());
  CHECK(t->header().front() == "a");
  REQUIRE(t->rows().size() == 2);
  CHECK(t->rows()[0] == std::vector<std::string>{"", "", ""});
  CHECK(t->rows()[1] == std::vector<std::string>{"1", "", "3"});
}

TEST_CASE("csv_table rejects malformed text, naming the file and line") {
  auto unterminated = csv_table::parse("a,b\n1,\"open\n", "x.csv");
  REQUIRE_FALSE(unterminated.ok());
  CHECK(unterminated.error().message() == "x.csv:2: unterminated quoted field");
  auto stray = csv_table::parse("a,b\n1,ab\"c\n", "x.csv");
  REQUIRE_FALSE(stray.ok());
  CHECK(stray.error().message() == "x.csv:2: a quote inside an unquoted field");
  auto after = csv_table::parse("a,b\n\"1\"x,2\n", "x.csv");
  REQUIRE_FALSE(after.ok());
  CHECK(after.error().message() == "x.csv:2: text after the closing quote of a field");
  auto ragged = csv_table::parse("a,b\n1,2,3\n", "x.csv");
  REQUIRE_FALSE(ragged.ok());
  CHECK(ragged.error().message() == "x.csv: record 2 has 3 fields, the header has 2");
  CHECK_FALSE(csv_table::parse("", "x.csv").ok());
}

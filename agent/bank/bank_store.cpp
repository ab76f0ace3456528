#include "agent/bank/bank_store.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace aopt::agent {
namespace {

const char* const build_counts_key = "bank_build";

std::set<std::string> words(const std::string& text) {
  std::set<std::string> out;
  std::string word;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      out.insert(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.insert(std::move(word));
  return out;
}

// The diff's added and removed lines, whitespace-trimmed, with their sign: hunk headers and
// context carry line numbers and surroundings that differ between near-identical tuples.
std::set<std::string> changed_lines(const std::string& diff) {
  std::set<std::string> out;
  std::istringstream in(diff);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 2 || (line[0] != '+' && line[0] != '-')) continue;
    if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0) continue;
    const size_t first = line.find_first_not_of(" \t", 1);
    const size_t last = line.find_last_not_of(" \t\r");
    if (first == std::string::npos) continue;
    out.insert(line[0] + line.substr(first, last - first + 1));
  }
  return out;
}

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t common = 0;
  for (const std::string& s : a) common += b.count(s);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

// The "bank_build" meta value: {"trajectories", "steps_tried", "pairs_kept", "rewound": {key:
// op}}; an empty object before the first build.
result<nlohmann::json> read_build_record(const storage::store& db) {
  result<nlohmann::json> j = db.get_meta(build_counts_key);
  if (!j.ok()) {
    if (j.error().code() == status_code::not_found) return nlohmann::json::object();
    return j.error();
  }
  if (!j->is_object())
    return invalid_argument(std::string("meta ") + build_counts_key + ": not an object");
  return std::move(*j);
}

}  // namespace

double tuple_similarity(const experience_tuple& a, const experience_tuple& b) {
  return std::min(jaccard(words(a.bottleneck), words(b.bottleneck)),
                  jaccard(changed_lines(a.code_diff), changed_lines(b.code_diff)));
}

result<std::vector<experience_tuple>> load_bank(const storage::store& db) {
  result<std::vector<storage::keyed_value>> rows = db.list_tuples();
  if (!rows.ok()) return rows.error().with_context("reading the experience bank");
  std::vector<experience_tuple> bank;
  bank.reserve(rows->size());
  for (const storage::keyed_value& row : *rows) {
    result<experience_tuple> t = experience_tuple_from_json(row.value);
    if (!t.ok()) return t.error().with_context("experience bank tuple " + row.key);
    bank.push_back(std::move(*t));
  }
  return bank;
}

result<bank_writer> bank_writer::open(storage::store& db, double dedup_threshold) {
  result<std::vector<experience_tuple>> bank = load_bank(db);
  if (!bank.ok()) return bank.error();
  return bank_writer(db, dedup_threshold, std::move(*bank));
}

result<insert_outcome> bank_writer::insert(experience_tuple t) {
  if (t.id.empty()) t.id = derive_tuple_id(t);
  for (const experience_tuple& stored : tuples_) {
    if (stored.id == t.id || tuple_similarity(stored, t) >= threshold_) {
      return insert_outcome{stored.id, false};
    }
  }
  nlohmann::json j = t;
  AOPT_RETURN_IF_ERROR(db_->put_tuple(t.id, j));
  insert_outcome out{t.id, true};
  tuples_.push_back(std::move(t));
  return out;
}

result<bank_build_counts> read_build_counts(const storage::store& db) {
  result<nlohmann::json> j = read_build_record(db);
  if (!j.ok()) return j.error();
  bank_build_counts c;
  c.trajectories = j->value("trajectories", uint64_t{0});
  c.steps_tried = j->value("steps_tried", uint64_t{0});
  c.pairs_kept = j->value("pairs_kept", uint64_t{0});
  return c;
}

result<bool> is_rewound(const storage::store& db, const std::string& key) {
  result<nlohmann::json> j = read_build_record(db);
  if (!j.ok()) return j.error();
  auto rewound = j->find("rewound");
  return rewound != j->end() && rewound->is_object() && rewound->contains(key);
}

status record_rewind(storage::store& db, const std::string& key, const std::string& op,
                     const bank_build_counts& counts) {
  result<nlohmann::json> j = read_build_record(db);
  if (!j.ok()) return j.error();
  nlohmann::json& rewound = (*j)["rewound"];
  if (!rewound.is_object()) rewound = nlohmann::json::object();
  if (rewound.contains(key)) return {};
  rewound[key] = op;
  (*j)["trajectories"] = j->value("trajectories", uint64_t{0}) + counts.trajectories;
  (*j)["steps_tried"] = j->value("steps_tried", uint64_t{0}) + counts.steps_tried;
  (*j)["pairs_kept"] = j->value("pairs_kept", uint64_t{0}) + counts.pairs_kept;
  return db.put_meta(build_counts_key, *j);
}

result<nlohmann::json> bank_stats(const storage::store& db) {
  result<std::vector<experience_tuple>> bank = load_bank(db);
  if (!bank.ok()) return bank.error();
  result<bank_build_counts> counts = read_build_counts(db);
  if (!counts.ok()) return counts.error();
  std::map<std::string, uint64_t> by_category, by_policy, by_expert;
  for (const experience_tuple& t : *bank) {
    ++by_category[t.category.empty() ? "uncategorized" : t.category];
    ++by_policy[t.provenance.policy.empty() ? "unknown" : t.provenance.policy];
    ++by_expert[t.provenance.expert_op.empty() ? "unknown" : t.provenance.expert_op];
  }
  return nlohmann::json{{"tuples", bank->size()},
                        {"by_category", by_category},
                        {"by_policy", by_policy},
                        {"by_expert", by_expert},
                        {"trajectories", counts->trajectories},
                        {"steps_tried", counts->steps_tried},
                        {"pairs_kept", counts->pairs_kept}};
}

status export_bank(const storage::store& db, const std::filesystem::path& file) {
  result<std::vector<experience_tuple>> bank = load_bank(db);
  if (!bank.ok()) return bank.error();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) return unavailable("cannot write " + file.string());
  for (const experience_tuple& t : *bank) out << nlohmann::json(t).dump() << '\n';
  out.flush();
  if (!out) return unavailable("writing " + file.string() + " failed");
  return {};
}

result<import_counts> import_bank(storage::store& db, const std::filesystem::path& file,
                                  double dedup_threshold) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return not_found("cannot read " + file.string());
  result<bank_writer> writer = bank_writer::open(db, dedup_threshold);
  if (!writer.ok()) return writer.error();
  import_counts counts;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = file.string() + ":" + std::to_string(number);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return invalid_argument(where + ": not JSON");
    result<experience_tuple> t = experience_tuple_from_json(j);
    if (!t.ok()) return t.error().with_context(where);
    ++counts.read;
    result<insert_outcome> done = writer->insert(std::move(*t));
    if (!done.ok()) return done.error().with_context(where);
    ++(done->added ? counts.added : counts.duplicates);
  }
  return counts;
}

}  // namespace aopt::agent

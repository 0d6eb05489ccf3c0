// The drift check: the Relacy models must use the production code's memory orders one to one.
//
// Every modelled atomic operation or fence is a statement carrying a `// model: <site>` marker, in the
// production header and in the model, with the same site name. For each marked statement this program takes
// its signature: the atomic operations (.load, .store, .fetch_sub, ...), memory orders (std::memory_order_X
// or rl::mo_X, both read as X) and fence calls, in source order. It fails when
//   - a site is marked in production but not in a model, or the other way round, or twice on one side;
//   - the two signatures of a site differ (an order changed, a fence added or removed, a load became an RMW);
//   - a production line that names a memory order or calls a fence belongs to no marked statement (a marker
//     that disappeared, or a new atomic operation nobody modelled; `// model: none (why)` exempts one);
//   - a model statement names a site (a "a.b" string literal) other than its marker's.
// A marker on a line with no code marks the statement that starts on the next line; otherwise it marks the
// statement its line belongs to (clang-format may have wrapped it over several lines).
//
//   drift_check --production FILE... --model FILE... [--self-test] [--quiet]
// --quiet prints only the differences (the build-time gate uses it).
// --self-test also proves that the check can fail: it re-runs it on in-memory copies of the production files
// with, in turn, each marked statement's first memory order replaced and each marker removed, and expects
// every one of those copies to be rejected.

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct source {
  std::string path;
  std::vector<std::string> lines;
};

struct site {
  std::string file;
  int line = 0;  // 1-based, of the marker
  std::string signature;
  std::vector<std::string> literals;
};

// The code part of a line: everything before a `//` that is not inside a string literal.
std::string code_of(const std::string& line) {
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"' && (i == 0 || line[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && line.compare(i, 2, "//") == 0) return line.substr(0, i);
  }
  return line;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool ends_statement(const std::string& code) {
  const std::string t = trim(code);
  return t.empty() || t.back() == ';' || t.back() == '{' || t.back() == '}' || t.front() == '#';
}

const std::regex& marker_re() {
  static const std::regex re(R"(//\s*model:\s*([A-Za-z0-9_.\-]+))");
  return re;
}

const std::regex& token_re() {
  static const std::regex re(
      R"(\.(load|store|exchange|fetch_add|fetch_sub|compare_exchange_strong|compare_exchange_weak|wait)\s*\()"
      R"(|(?:memory_order_|mo_)(relaxed|consume|acquire|release|acq_rel|seq_cst)\b)"
      R"(|\b(release_fence|acquire_fence|seq_cst_fence|compiler_fence|process_wide_fence|)"
      R"(acquire_fence_unless_tsan|atomic_thread_fence|light_fence|heavy_fence)\s*\()");
  return re;
}

// Orders and fence calls: what makes a production line need a marker.
bool names_an_order_or_fence(const std::string& code) {
  for (std::sregex_iterator it(code.begin(), code.end(), token_re()), end; it != end; ++it) {
    if ((*it)[2].matched) return true;
    // A fence call, but not the definition of a fence function.
    if ((*it)[3].matched && !std::regex_search(it->prefix().str(), std::regex(R"(void\s*$)"))) return true;
  }
  return false;
}

std::string signature_of(const std::string& code) {
  std::string sig;
  for (std::sregex_iterator it(code.begin(), code.end(), token_re()), end; it != end; ++it) {
    std::string token = (*it)[1].matched   ? (*it)[1].str()
                        : (*it)[2].matched ? (*it)[2].str()
                                           : (*it)[3].str() + "()";
    if ((*it)[1].matched) token = "." + token;
    sig += sig.empty() ? token : " " + token;
  }
  return sig;
}

std::vector<std::string> site_literals(const std::string& code) {
  static const std::regex re(R"re("([a-z_]+\.[a-z_.]+)")re");
  std::vector<std::string> out;
  for (std::sregex_iterator it(code.begin(), code.end(), re), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

struct extraction {
  std::map<std::string, site> sites;
  std::vector<std::string> errors;
};

void extract(const source& src, bool production, extraction& out) {
  const int n = static_cast<int>(src.lines.size());
  const auto text_at = [&](int k) -> const std::string& { return src.lines[static_cast<std::size_t>(k)]; };
  std::vector<std::string> code(src.lines.size());
  for (std::size_t k = 0; k < code.size(); ++k) code[k] = code_of(src.lines[k]);
  const auto code_at = [&](int k) -> const std::string& { return code[static_cast<std::size_t>(k)]; };
  std::vector<bool> covered(src.lines.size(), false);
  for (int i = 0; i < n; ++i) {
    std::smatch m;
    if (!std::regex_search(text_at(i), m, marker_re())) continue;
    const std::string name = m[1];
    // The statement around the marker: back to the end of the previous statement, on to the end of this one.
    const bool marker_only = trim(code_at(i)).empty();
    int first = marker_only ? i + 1 : i;
    int last = first;
    while (last < n - 1 && !ends_statement(code_at(last))) ++last;
    while (!marker_only && first > 0 && !ends_statement(code_at(first - 1)) &&
           !std::regex_search(text_at(first - 1), marker_re())) {
      --first;
    }
    std::string text;
    for (int j = first; j <= last && j < n; ++j) {
      text += code_at(j) + " ";
      covered[static_cast<std::size_t>(j)] = true;
    }
    if (name == "none") continue;
    const std::string where = src.path + ":" + std::to_string(i + 1);
    site s{src.path, i + 1, signature_of(text), site_literals(text)};
    if (s.signature.empty())
      out.errors.push_back(where + ": marker '" + name + "' is on no atomic operation");
    if (!production) {
      for (const std::string& lit : s.literals) {
        if (lit != name)
          out.errors.push_back(where + ": model statement of '" + name + "' names site '" + lit + "'");
      }
    }
    if (!out.sites.emplace(name, s).second) {
      out.errors.push_back(where + ": site '" + name + "' is marked twice (also " + out.sites[name].file +
                           ":" + std::to_string(out.sites[name].line) + ")");
    }
  }
  if (!production) return;
  for (int i = 0; i < n; ++i) {
    if (!covered[static_cast<std::size_t>(i)] && names_an_order_or_fence(code_at(i))) {
      out.errors.push_back(src.path + ":" + std::to_string(i + 1) +
                           ": atomic operation or fence without a `// model:` marker: " + trim(text_at(i)));
    }
  }
}

// Returns the list of differences; empty when production and models agree.
std::vector<std::string> check(const std::vector<source>& production, const std::vector<source>& models,
                               bool verbose, int* agreeing = nullptr) {
  extraction prod;
  extraction model;
  for (const source& s : production) extract(s, true, prod);
  for (const source& s : models) extract(s, false, model);
  std::vector<std::string> errors = prod.errors;
  errors.insert(errors.end(), model.errors.begin(), model.errors.end());
  for (const auto& [name, p] : prod.sites) {
    const auto it = model.sites.find(name);
    if (it == model.sites.end()) {
      errors.push_back(p.file + ":" + std::to_string(p.line) + ": site '" + name + "' has no model");
      continue;
    }
    const bool same = it->second.signature == p.signature;
    if (!same) {
      errors.push_back("site '" + name + "': production " + p.file + ":" + std::to_string(p.line) + " [" +
                       p.signature + "] but model " + it->second.file + ":" +
                       std::to_string(it->second.line) + " [" + it->second.signature + "]");
    }
    if (same && agreeing != nullptr) ++*agreeing;
    if (verbose) std::printf("  %-4s %-34s %s\n", same ? "ok" : "DIFF", name.c_str(), p.signature.c_str());
  }
  for (const auto& [name, m] : model.sites) {
    if (prod.sites.count(name) == 0) {
      errors.push_back(m.file + ":" + std::to_string(m.line) + ": model site '" + name +
                       "' is in no production file");
    }
  }
  return errors;
}

bool read(const std::string& path, source& out) {
  std::ifstream in(path);
  if (!in) return false;
  out.path = path;
  for (std::string line; std::getline(in, line);) out.lines.push_back(line);
  return true;
}

// Each marked production statement's first memory order replaced by another, and each marker removed: the
// check must reject every copy.
int self_test(const std::vector<source>& production, const std::vector<source>& models) {
  static const std::regex order_re(R"(memory_order_(relaxed|acquire|release|acq_rel|seq_cst)\b)");
  static const std::regex fence_re(
      R"(\b(release_fence|seq_cst_fence|compiler_fence|process_wide_fence)\(\))");
  int detected = 0;
  int missed = 0;
  auto expect_rejected = [&](const std::vector<source>& mutated, const std::string& what) {
    if (check(mutated, models, false).empty()) {
      std::printf("  MISSED %s\n", what.c_str());
      ++missed;
    } else {
      ++detected;
    }
  };
  for (std::size_t f = 0; f < production.size(); ++f) {
    for (std::size_t i = 0; i < production[f].lines.size(); ++i) {
      const std::string& line = production[f].lines[i];
      std::smatch marker;
      if (!std::regex_search(line, marker, marker_re()) || marker[1] == "none") continue;
      const std::string where =
          production[f].path + ":" + std::to_string(i + 1) + " (" + marker[1].str() + ")";
      // The marked statement's own lines: the marker line, or the line below a comment-only marker.
      const std::size_t target = trim(code_of(line)).empty() ? i + 1 : i;
      const std::string& code_line = production[f].lines[target];
      std::smatch order;
      std::vector<source> mutated = production;
      if (std::regex_search(code_line, order, order_re)) {
        const std::string replacement =
            order[1] == "relaxed" ? "memory_order_seq_cst" : "memory_order_relaxed";
        mutated[f].lines[target] = order.prefix().str() + replacement + order.suffix().str();
        expect_rejected(mutated, "order changed at " + where);
      } else if (std::regex_search(code_line, order, fence_re)) {
        const std::string replacement = order[1] == "seq_cst_fence" ? "release_fence()" : "seq_cst_fence()";
        mutated[f].lines[target] = order.prefix().str() + replacement + order.suffix().str();
        expect_rejected(mutated, "fence changed at " + where);
      }
      mutated = production;
      mutated[f].lines[i] = marker.prefix().str() + "// was a marker";
      expect_rejected(mutated, "marker removed at " + where);
    }
  }
  std::printf("drift self-test: %d mutated copies rejected, %d accepted\n", detected, missed);
  return missed == 0 && detected > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<source> production;
  std::vector<source> models;
  std::vector<source>* into = nullptr;
  bool run_self_test = false;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--production") {
      into = &production;
    } else if (arg == "--model") {
      into = &models;
    } else if (arg == "--self-test") {
      run_self_test = true;
    } else if (arg == "--quiet") {
      quiet = true;
    } else if (into != nullptr) {
      source s;
      if (!read(arg, s)) {
        std::printf("drift_check: cannot read %s\n0 passed, 1 failed\n", arg.c_str());
        return 1;
      }
      into->push_back(std::move(s));
    } else {
      std::printf("usage: drift_check --production FILE... --model FILE... [--self-test] [--quiet]\n");
      return 2;
    }
  }
  if (production.empty() || models.empty()) {
    std::printf("drift_check: need production and model files\n0 passed, 1 failed\n");
    return 2;
  }
  if (run_self_test) {
    const int status = self_test(production, models);
    std::printf("%d passed, %d failed\n", status == 0 ? 1 : 0, status == 0 ? 0 : 1);
    return status;
  }
  if (!quiet) std::printf("drift check: production memory orders against the Relacy models\n");
  int agreeing = 0;
  const std::vector<std::string> errors = check(production, models, !quiet, &agreeing);
  for (const std::string& e : errors) std::printf("  ERROR %s\n", e.c_str());
  if (quiet && errors.empty()) return 0;
  std::printf("sites: %d agree; errors: %zu\n", agreeing, errors.size());
  std::printf("%d passed, %zu failed\n", agreeing, errors.size());
  return errors.empty() ? 0 : 1;
}

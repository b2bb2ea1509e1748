#include "regex_util.hpp"

#include <map>
#include <mutex>
#include <regex>

namespace test_regex {

namespace {

const std::regex& compiled(const std::string& pattern) {
  static std::mutex mutex;
  static std::map<std::string, std::regex> cache;
  const std::lock_guard lock(mutex);
  auto it = cache.find(pattern);
  if (it == cache.end()) {
    it = cache.emplace(pattern, std::regex(pattern)).first;
  }
  return it->second;
}

}  // namespace

std::vector<std::string> search(const std::string& text, const std::string& pattern) {
  std::smatch m;
  std::vector<std::string> out;
  if (std::regex_search(text, m, compiled(pattern))) {
    for (const auto& group : m) {
      out.push_back(group.str());
    }
  }
  return out;
}

bool found(const std::string& text, const std::string& pattern) { return std::regex_search(text, compiled(pattern)); }

bool matches(const std::string& text, const std::string& pattern) { return std::regex_match(text, compiled(pattern)); }

std::string replace(const std::string& text, const std::string& pattern, const std::string& with) {
  return std::regex_replace(text, compiled(pattern), with);
}

}  // namespace test_regex

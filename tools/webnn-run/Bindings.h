// Command-line tensor bindings shared by webnn-run's CPU and GPU paths.
#ifndef WEBNN_TOOLS_WEBNN_RUN_BINDINGS_H
#define WEBNN_TOOLS_WEBNN_RUN_BINDINGS_H

#include <cctype>
#include <string>

namespace webnnrun {

// "NAME=FILE" -> (NAME, FILE); names never contain '=', paths may.
inline bool splitBinding(const std::string &s, std::string *name, std::string *file) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return false;
  *name = s.substr(0, eq);
  *file = s.substr(eq + 1);
  return true;
}

// Output names can be anything ("logits:0", "a/b"); file names cannot.
inline std::string fileNameFor(const std::string &name) {
  std::string s = name;
  for (char &c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  return s + ".npy";
}

}  // namespace webnnrun

#endif

// What the CPU and GPU device profiles (DeviceProfile.h, GpuProfile.h) share
// in their JSON files: a field reader whose errors name the file and the
// field, reading a file as one JSON object, and writing one so that a reader
// never sees half of it.
#ifndef WEBNN_RUNTIME_ESTIMATE_PROFILEJSON_H
#define WEBNN_RUNTIME_ESTIMATE_PROFILEJSON_H

#include <string>

#include "estimate/DeviceProfile.h"
#include "nlohmann/json.hpp"
#include "webnn/runtime.h"

namespace webnn::est {

// Reads fields, keeping the first error. `where` is the path to the field's
// object, ending in "." ("" at the top level).
struct ProfileReader {
  const std::string &file;
  Status status = Status::ok();
  // A finite number >= 0; a missing optional one reads as 0.
  double num(const nlohmann::json &j, const char *key, const std::string &where, bool required = true);
  std::string str(const nlohmann::json &j, const char *key, const std::string &where = "");
};

// One kernel family's grid `g` at field path `fw` ("families.NAME"): every
// point's params (1-8 numbers >= 1, as many as the family's other points)
// and ratio > 0, its optional ms / hot / cold ratios and warm flag.
Status readFamilyGrid(ProfileReader &r, const nlohmann::json &g, const std::string &fw, FamilyGrid *out);

// The file as a JSON object; `what` names the kind of file in errors.
Status readProfileJson(const std::string &path, const std::string &what, nlohmann::json *out);
// Writes `j` beside `path`, then renames it over `path`, making its folder.
Status writeProfileJson(const nlohmann::json &j, const std::string &path, const std::string &what);

}  // namespace webnn::est

#endif

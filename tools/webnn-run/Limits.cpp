#include "Limits.h"
#include "Profile.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "core/Backend.h"
#include "webnn/webnn_c.h"

namespace webnnrun {
namespace {

// "float32,float16 rank 4" / "... rank 0-6".
std::string limitsText(const nlohmann::ordered_json &l) {
  std::string s;
  for (const auto &t : l["dataTypes"]) s += (s.empty() ? "" : ",") + t.get<std::string>();
  uint64_t lo = l["rankRange"]["min"], hi = l["rankRange"]["max"];
  return (s.empty() ? "none" : s) + " rank " + std::to_string(lo) + (lo == hi ? "" : "-" + std::to_string(hi));
}

}  // namespace

int runLimits(int argc, char **argv) {
  CLI::App app{"Print each backend's op support limits (WebNN opSupportLimits): per op, the data types and "
               "ranks of each operand. DEVICE: a backend name (cpu, vulkan) or device type (cpu, gpu); "
               "default: every backend."};
  std::string device;
  bool json = false;
  app.add_option("device", device, "Backend or device type");
  app.add_flag("--json", json,
               "One JSON object: {\"backends\": [{name, device_type, ops, limits}]} and the build info "
               "(tool, versions, cpu) every webnn-run JSON has");
  app.set_version_flag("--version", "webnn-run " WEBNN_VERSION_STRING);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "webnn-run: error: " << e.what() << "\n";
    return 2;
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  bool matched = false;
  int status = 0;
  for (webnn::rt::Backend *b : webnn::rt::backends()) {
    if (!device.empty() && device != b->name() && device != b->deviceType()) continue;
    matched = true;
    nlohmann::ordered_json entry = {{"name", std::string(b->name())}, {"device_type", std::string(b->deviceType())}};
    nlohmann::ordered_json ops = nlohmann::ordered_json::array();
    for (std::string_view op : b->opNames()) ops.push_back(std::string(op));
    entry["ops"] = ops;
    const char *text = nullptr;
    const std::string name(b->name());
    if (webnn_op_support_limits(name.c_str(), &text) == WEBNN_OK) {
      entry["limits"] = nlohmann::ordered_json::parse(text);
    } else {
      entry["limits"] = nullptr;
      entry["why_no_limits"] = webnn_last_error();
      if (!device.empty()) status = 1;  // asked for this one's table
    }
    out.push_back(entry);
  }
  if (!matched) {
    std::cerr << "webnn-run: error: no backend or device '" << device << "' in this runtime ("
              << webnn::rt::backendsText() << ")\n";
    return 1;
  }
  if (json) {
    nlohmann::ordered_json j;
    addBuildInfo(j);
    j["backends"] = out;
    std::cout << j.dump(2) << "\n";
    return status;
  }
  for (const nlohmann::ordered_json &b : out) {
    std::printf("%s (%s): kernels for %zu ops\n", b["name"].get<std::string>().c_str(),
                b["device_type"].get<std::string>().c_str(), b["ops"].size());
    if (b["limits"].is_null()) {
      std::printf("  no limits table: %s\n", b["why_no_limits"].get<std::string>().c_str());
      continue;
    }
    const nlohmann::ordered_json &l = b["limits"];
    std::printf("  preferredInputLayout %s, input %s, constant %s, output %s\n",
                l["preferredInputLayout"].get<std::string>().c_str(), limitsText(l["input"]).c_str(),
                limitsText(l["constant"]).c_str(), limitsText(l["output"]).c_str());
    for (const auto &[op, operands] : l.items()) {
      if (!operands.is_object() || (!operands.contains("output") && !operands.contains("outputs"))) continue;
      std::string line;
      for (const auto &[operand, limits] : operands.items())
        line += (line.empty() ? "" : "; ") + operand + " " + limitsText(limits);
      std::printf("  %-22s %s\n", op.c_str(), line.c_str());
    }
  }
  return status;
}

}  // namespace webnnrun

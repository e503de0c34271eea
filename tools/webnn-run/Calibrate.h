// `webnn-run calibrate`: measures this device for `webnnc estimate`.
#ifndef WEBNN_TOOLS_WEBNN_RUN_CALIBRATE_H
#define WEBNN_TOOLS_WEBNN_RUN_CALIBRATE_H

#include <string>

namespace webnnrun {

int runCalibrate(int argc, char **argv);
// `webnn-run calibrate --device gpu[:N]` (CalibrateGpu.cpp).
int runCalibrateGpu(const std::string &device, double deadline, const std::string &output, bool json, bool quiet);

}  // namespace webnnrun

#endif

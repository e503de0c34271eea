// `webnn-run calibrate`: measures this device for `webnnc estimate`.
#ifndef WEBNN_TOOLS_WEBNN_RUN_CALIBRATE_H
#define WEBNN_TOOLS_WEBNN_RUN_CALIBRATE_H

namespace webnnrun {

int runCalibrate(int argc, char **argv);

}  // namespace webnnrun

#endif

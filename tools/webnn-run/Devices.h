// `webnn-run --list-devices`: the devices this build can run on.
#ifndef WEBNN_TOOLS_WEBNN_RUN_DEVICES_H
#define WEBNN_TOOLS_WEBNN_RUN_DEVICES_H

namespace webnnrun {

// Prints the CPU and every Vulkan device with its limits; 0 (no GPU is not
// an error here: the line says why there is none).
int runListDevices();

}  // namespace webnnrun

#endif

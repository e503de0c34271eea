#ifndef WEBNN_OPS_TD
#define WEBNN_OPS_TD

include "dialects/webnn/WebNNBase.td"
include "dialects/webnn/WebNNOpsGraph.td"
include "dialects/webnn/WebNNOpsElementwise.td"

#endif // WEBNN_OPS_TD

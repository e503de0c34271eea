#ifndef WEBNN_OPS_TD
#define WEBNN_OPS_TD

include "dialects/webnn/WebNNBase.td"
include "dialects/webnn/WebNNOpsGraph.td"
include "dialects/webnn/WebNNOpsElementwise.td"
include "dialects/webnn/WebNNOpsReduction.td"
include "dialects/webnn/WebNNOpsConvolution.td"
include "dialects/webnn/WebNNOpsLinalg.td"
include "dialects/webnn/WebNNOpsNormalization.td"
include "dialects/webnn/WebNNOpsShape.td"
include "dialects/webnn/WebNNOpsQuantization.td"
include "dialects/webnn/WebNNOpsQuantized.td"
include "dialects/webnn/WebNNOpsRecurrent.td"
include "dialects/webnn/WebNNOpsFused.td"
include "dialects/webnn/WebNNOpsLLM.td"
include "dialects/webnn/WebNNOpsFusedTransformer.td"
include "dialects/webnn/WebNNOpsControlFlow.td"

#endif // WEBNN_OPS_TD

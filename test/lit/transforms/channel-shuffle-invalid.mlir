// RUN: webnn-opt %s -split-input-file -verify-diagnostics

// webnn.channelShuffle (docs/FUSED_OPS.md): the checks beyond concat's own.

func.func @groups_do_not_divide(%x: tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32> {
  // expected-error @+2 {{expected the size along axis 3 (6) to be divisible by groups 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = webnn.channelShuffle %x {axis = 3 : i64, groups = 4 : i64, splits = array<i64: 6>} : (tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32>
  return %y : tensor<1x2x2x6xf32>
}

// -----

func.func @splits_do_not_cover(%x: tensor<1x2x2x6xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x2x2x2xf32>) {
  // expected-error @+2 {{expected splits [3, 2] to sum to 6 (the inputs' total size along axis 3) but they sum to 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %y:2 = webnn.channelShuffle %x {axis = 3 : i64, groups = 2 : i64, splits = array<i64: 3, 2>} : (tensor<1x2x2x6xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x2x2x2xf32>)
  return %y#0, %y#1 : tensor<1x2x2x3xf32>, tensor<1x2x2x2xf32>
}

// -----

func.func @inputs_differ_off_axis(%a: tensor<1x2x2x3xf32>, %b: tensor<1x3x2x3xf32>) -> tensor<1x2x2x6xf32> {
  // expected-error @+2 {{expected operand 'inputs[1]' to match the shape of 'inputs[0]' [1, 2, 2, 3] except along axis 3 but got [1, 3, 2, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = webnn.channelShuffle %a, %b {axis = 3 : i64, groups = 2 : i64, splits = array<i64: 6>} : (tensor<1x2x2x3xf32>, tensor<1x3x2x3xf32>) -> tensor<1x2x2x6xf32>
  return %y : tensor<1x2x2x6xf32>
}

// -----

func.func @zero_groups(%x: tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32> {
  // expected-error @+2 {{expected groups >= 1 but got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = webnn.channelShuffle %x {axis = 3 : i64, groups = 0 : i64, splits = array<i64: 6>} : (tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32>
  return %y : tensor<1x2x2x6xf32>
}

// RUN: webnn-opt %s -split-input-file -verify-diagnostics

func.func @conv_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected operand 'input' of rank 4 but got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_int_input(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float values}}
  %0 = webnn.conv2d %x, %w : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  return
}

// -----

func.func @conv_filter_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+2 {{'webnn.conv2d' op expected operand 'filter' to have the data type of 'input' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected input channels (4) to be divisible by groups (1) and input channels / groups to equal the filter's input channels (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_output_channels_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected the filter's output channels (3) to be divisible by groups (2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @conv_groups_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected groups >= 1 but got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected operand 'bias' of shape [4] (the output channels) but got [3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w bias %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_layout(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected inputLayout "nchw" or "nhwc" but got "chwn"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w {inputLayout = "chwn"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_filter_layout(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected filterLayout one of "oihw", "hwio", "ohwi", "ihwo" but got "iohw"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w {filterLayout = "iohw"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_strides_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected strides to have 2 values but got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected every dilations value to be >= 1 but got [1, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w {dilations = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_window_too_big(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+2 {{'webnn.conv2d' op expected a positive output size but the options give [0, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.conv2d %x, %w : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @convt_channels(%x: tensor<1x3x3x3xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'webnn.convTranspose2d' op expected input channels (3) to equal the filter's input channels (2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.convTranspose2d %x, %w : (tensor<1x3x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x5x5xf32>
  return
}

// -----

func.func @convt_output_padding(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'webnn.convTranspose2d' op expected every outputPadding value to be smaller than the matching stride but got outputPadding [2, 0] and strides [2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.convTranspose2d %x, %w {strides = array<i64: 2, 2>, outputPadding = array<i64: 2, 0>} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x9x7xf32>
  return
}

// -----

func.func @convt_output_sizes(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'webnn.convTranspose2d' op expected outputSizes[1] in [7, 9) but got 9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.convTranspose2d %x, %w {strides = array<i64: 2, 2>, outputSizes = array<i64: 8, 9>} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x8x9xf32>
  return
}

// -----

func.func @convt_filter_layout(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'webnn.convTranspose2d' op expected filterLayout one of "iohw", "hwoi", "ohwi" but got "oihw"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.convTranspose2d %x, %w {filterLayout = "oihw"} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x5x5xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<3x7x7xf32>) {
  // expected-error @+2 {{'webnn.averagePool2d' op expected operand 'input' of rank 4 but got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.averagePool2d %x : (tensor<3x7x7xf32>) -> tensor<3x1x1xf32>
  return
}

// -----

func.func @pool_int_average(%x: tensor<1x3x7x7xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float values}}
  %0 = webnn.averagePool2d %x : (tensor<1x3x7x7xi32>) -> tensor<1x3x1x1xi32>
  return
}

// -----

func.func @pool_rounding(%x: tensor<1x3x7x7xf32>) {
  // expected-error @+2 {{'webnn.maxPool2d' op expected roundingType "floor" or "ceil" but got "round"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.maxPool2d %x {roundingType = "round"} : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  return
}

// -----

func.func @pool_output_sizes(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'webnn.maxPool2d' op expected outputSizes [3, 3] (floor) or [4, 4] (ceil) but got [3, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.maxPool2d %x {windowDimensions = array<i64: 3, 3>, strides = array<i64: 2, 2>, outputSizes = array<i64: 3, 4>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @pool_window_zero(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'webnn.l2Pool2d' op expected every windowDimensions value to be >= 1 but got [0, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.l2Pool2d %x {windowDimensions = array<i64: 0, 3>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x6xf32>
  return
}

// -----

func.func @resample2d_rank(%x: tensor<3x4x6xf32>) {
  // expected-error @+2 {{'webnn.resample2d' op expected a 4-D operand 'input' but got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.resample2d %x : (tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  return
}

// -----

func.func @resample2d_scales(%x: tensor<1x1x4x6xf32>) {
  // expected-error @+2 {{'webnn.resample2d' op expected scales to be 2 values > 0 but got 2 values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.resample2d %x {scales = array<f64: 0.0, 1.0>} : (tensor<1x1x4x6xf32>) -> tensor<1x1x4x6xf32>
  return
}

// -----

func.func @resample2d_empty_output(%x: tensor<1x1x4x6xf32>) {
  // expected-error @+2 {{'webnn.resample2d' op expected a positive output size along axis 2 but got 0 (input size 4, scale 1.000000e-01)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.resample2d %x {scales = array<f64: 0.1, 1.0>} : (tensor<1x1x4x6xf32>) -> tensor<1x1x4x6xf32>
  return
}

// -----

func.func @resample2d_axes(%x: tensor<1x1x4x6xf32>) {
  // expected-error @+2 {{'webnn.resample2d' op expected unique axes values but 3 appears more than once in [3, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.resample2d %x {axes = array<i64: 3, 3>} : (tensor<1x1x4x6xf32>) -> tensor<1x1x4x6xf32>
  return
}

// -----

func.func @resample2d_mode(%x: tensor<1x1x4x6xf32>) {
  // expected-error @+2 {{'webnn.resample2d' op expected mode "nearest-neighbor" or "linear" but got "cubic"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.resample2d %x {mode = "cubic"} : (tensor<1x1x4x6xf32>) -> tensor<1x1x4x6xf32>
  return
}

// RUN: webnn-opt %s -split-input-file -verify-diagnostics

func.func @gru_weight(%x: tensor<5x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>) {
  // expected-error @+2 {{'webnn.gru' op expected operand 'weight' of shape [2, 12, 3] but got [1, 12, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gru %x, %w, %r {direction = "both", hiddenSize = 4 : i64, steps = 5 : i64} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @gru_steps(%x: tensor<5x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>) {
  // expected-error @+2 {{'webnn.gru' op expected input.shape[0] to equal steps (4) but got 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gru %x, %w, %r {hiddenSize = 4 : i64, steps = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @gru_activations(%x: tensor<2x3xf32>, %w: tensor<12x3xf32>, %r: tensor<12x4xf32>, %h: tensor<2x4xf32>) {
  // expected-error @+2 {{'webnn.gruCell' op expected activations to list 2 comma-separated names but got "sigmoid"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gruCell %x, %w, %r, %h {activations = "sigmoid", hiddenSize = 4 : i64} : (tensor<2x3xf32>, tensor<12x3xf32>, tensor<12x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @lstm_layout(%x: tensor<2x3xf32>, %w: tensor<16x3xf32>, %r: tensor<16x4xf32>, %h: tensor<2x4xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+2 {{'webnn.lstmCell' op expected layout to be one of "iofg", "ifgo" but got "zrn"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = webnn.lstmCell %x, %w, %r, %h, %c {hiddenSize = 4 : i64, layout = "zrn"} : (tensor<2x3xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @lstm_peephole(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>, %p: tensor<1x16xf32>) {
  // expected-error @+2 {{'webnn.lstm' op expected operand 'peepholeWeight' of shape [1, 12] but got [1, 16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = webnn.lstm %x, %w, %r peepholeWeight %p {hiddenSize = 4 : i64, steps = 5 : i64} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x16xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lstm_types(%x: tensor<2x3xf32>, %w: tensor<16x3xf16>, %r: tensor<16x4xf32>, %h: tensor<2x4xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+2 {{'webnn.lstmCell' op expected operand 'weight' to have the data type of 'input' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = webnn.lstmCell %x, %w, %r, %h, %c {hiddenSize = 4 : i64} : (tensor<2x3xf32>, tensor<16x3xf16>, tensor<16x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

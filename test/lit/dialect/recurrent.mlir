// RUN: webnn-opt %s -split-input-file | FileCheck %s
// gru/gruCell/lstm/lstmCell round trips; result types are checked against
// inference, so the result counts and shapes below are shape tests.

// CHECK-LABEL: func @gru
func.func @gru(%x: tensor<5x2x3xf32>, %w: tensor<2x12x3xf32>, %r: tensor<2x12x4xf32>,
               %b: tensor<2x12xf32>, %h0: tensor<2x2x4xf32>) -> () {
  // CHECK: webnn.gru %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} initialHiddenState %{{.*}} {direction = "both", hiddenSize = 4 : i64, returnSequence = true, steps = 5 : i64} : (tensor<5x2x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>, tensor<2x12xf32>, tensor<2x2x4xf32>) -> (tensor<2x2x4xf32>, tensor<5x2x2x4xf32>)
  %0:2 = webnn.gru %x, %w, %r bias %b initialHiddenState %h0 {direction = "both", hiddenSize = 4 : i64, returnSequence = true, steps = 5 : i64} : (tensor<5x2x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>, tensor<2x12xf32>, tensor<2x2x4xf32>) -> (tensor<2x2x4xf32>, tensor<5x2x2x4xf32>)
  return
}

// -----

// CHECK-LABEL: func @gru_cell
func.func @gru_cell(%x: tensor<2x3xf16>, %w: tensor<12x3xf16>, %r: tensor<12x4xf16>, %h: tensor<2x4xf16>) -> () {
  // CHECK: webnn.gruCell {{.*}} -> tensor<2x4xf16>
  %0 = webnn.gruCell %x, %w, %r, %h {activations = "relu,tanh", hiddenSize = 4 : i64, layout = "rzn", resetAfter = false} : (tensor<2x3xf16>, tensor<12x3xf16>, tensor<12x4xf16>, tensor<2x4xf16>) -> tensor<2x4xf16>
  return
}

// -----

// CHECK-LABEL: func @lstm
func.func @lstm(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>,
                %p: tensor<1x12xf32>) -> () {
  // CHECK: webnn.lstm {{.*}} -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %0:2 = webnn.lstm %x, %w, %r peepholeWeight %p {hiddenSize = 4 : i64, steps = 5 : i64} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x12xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// CHECK-LABEL: func @lstm_cell
func.func @lstm_cell(%x: tensor<2x3xf32>, %w: tensor<16x3xf32>, %r: tensor<16x4xf32>,
                     %h: tensor<2x4xf32>, %c: tensor<2x4xf32>, %b: tensor<16xf32>) -> () {
  // CHECK: webnn.lstmCell {{.*}} -> (tensor<2x4xf32>, tensor<2x4xf32>)
  %0:2 = webnn.lstmCell %x, %w, %r, %h, %c bias %b {activations = "sigmoid,tanh,relu", hiddenSize = 4 : i64, layout = "ifgo"} : (tensor<2x3xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<16xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

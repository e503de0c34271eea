// The later WebNN ops end to end: webnnc writes the artifact (optional
// operands absent, float-list and string options, multi-result ops), the CPU
// runtime runs it, and every output is checked against hand-computed values.
// REQUIRES: webnnc, webnn-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: webnnc compile %s -o %t/g.wnn
// RUN: %python %S/Inputs/npy_io.py write %t/x.npy float32 2,3 1,2,3,4,5,6
// RUN: webnn-run %t/g.wnn --input x=%t/x.npy --output-dir %t/out
// RUN: %python %S/Inputs/npy_io.py check %t/out/cumsum.npy 2,3 1,3,6,4,9,15
// RUN: %python %S/Inputs/npy_io.py check %t/out/rev.npy 2,3 4,5,6,1,2,3
// RUN: %python %S/Inputs/npy_io.py check %t/out/gnd.npy 2 6,3
// RUN: %python %S/Inputs/npy_io.py check %t/out/scat.npy 2,3 1,20,3,10,5,30
// RUN: %python %S/Inputs/npy_io.py check %t/out/resized.npy 1,1,2,6 1,1.25,1.75,2.25,2.75,3,4,4.25,4.75,5.25,5.75,6
// RUN: %python %S/Inputs/npy_io.py check %t/out/quant.npy 2,3 2,4,6,3,3,4
// RUN: %python %S/Inputs/npy_io.py check %t/out/deq.npy 2,3 1,2,3,4,4,6
// Zero weights: z = 0.5, n = 0, so h halves each step from h0 = 1.
// RUN: %python %S/Inputs/npy_io.py check %t/out/gru_h.npy 1,1,2 0.25,0.25
// Zero weights: i = f = o = 0.5, g = 0: c halves from c0 = 1, h = 0.5 tanh(c).
// RUN: %python %S/Inputs/npy_io.py check %t/out/lstm_h.npy 1,1,2 0.12245933,0.12245933
// RUN: %python %S/Inputs/npy_io.py check %t/out/lstm_c.npy 1,1,2 0.25,0.25
// RUN: %python %S/Inputs/npy_io.py check %t/out/lstm_seq.npy 2,1,1,2 0.23105858,0.23105858,0.12245933,0.12245933
// RUN: %python %S/Inputs/npy_io.py check %t/out/nan.npy 2,3 0,0,0,0,0,0

func.func @main() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<1x1x2x6xf32>,
                      tensor<2x3xui8>, tensor<2x3xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>,
                      tensor<2x1x1x2xf32>, tensor<2x3xui8>)
    attributes {webnn.output_names = ["cumsum", "rev", "gnd", "scat", "resized", "quant", "deq", "gru_h",
                                      "lstm_h", "lstm_c", "lstm_seq", "nan"]} {
  %x = webnn.input "x" : tensor<2x3xf32>
  %cumsum = webnn.cumulativeSum %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %rev = webnn.reverse %x {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %idx = webnn.constant dense<[[1, 2], [0, -1]]> : tensor<2x2xi32>
  %gnd = webnn.gatherND %x, %idx : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2xf32>
  %ie = webnn.constant dense<[[1, 0, 1]]> : tensor<1x3xi64>
  %u = webnn.constant dense<[[10.0, 20.0, 30.0]]> : tensor<1x3xf32>
  %scat = webnn.scatterElements %x, %ie, %u : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %x4 = webnn.reshape %x {newShape = array<i64: 1, 1, 2, 3>} : (tensor<2x3xf32>) -> tensor<1x1x2x3xf32>
  %resized = webnn.resample2d %x4 {mode = "linear", scales = array<f64: 1.0, 2.0>} : (tensor<1x1x2x3xf32>) -> tensor<1x1x2x6xf32>
  %s = webnn.constant dense<[[0.5], [2.0]]> : tensor<2x1xf32>
  %z = webnn.constant dense<[[0], [1]]> : tensor<2x1xui8>
  %quant = webnn.quantizeLinear %x, %s, %z : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xui8>) -> tensor<2x3xui8>
  %deq = webnn.dequantizeLinear %quant, %s, %z : (tensor<2x3xui8>, tensor<2x1xf32>, tensor<2x1xui8>) -> tensor<2x3xf32>
  %seq = webnn.reshape %x {newShape = array<i64: 2, 1, 3>} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %gw = webnn.constant dense<0.0> : tensor<1x6x3xf32>
  %gr = webnn.constant dense<0.0> : tensor<1x6x2xf32>
  %ones = webnn.constant dense<1.0> : tensor<1x1x2xf32>
  %gru_h = webnn.gru %seq, %gw, %gr initialHiddenState %ones {hiddenSize = 2 : i64, steps = 2 : i64} : (tensor<2x1x3xf32>, tensor<1x6x3xf32>, tensor<1x6x2xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %lw = webnn.constant dense<0.0> : tensor<1x8x3xf32>
  %lr = webnn.constant dense<0.0> : tensor<1x8x2xf32>
  %lstm:3 = webnn.lstm %seq, %lw, %lr initialCellState %ones {activations = "sigmoid,tanh,tanh", hiddenSize = 2 : i64, returnSequence = true, steps = 2 : i64} : (tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, tensor<1x1x2xf32>) -> (tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<2x1x1x2xf32>)
  %nan = webnn.isNaN %x : (tensor<2x3xf32>) -> tensor<2x3xui8>
  return %cumsum, %rev, %gnd, %scat, %resized, %quant, %deq, %gru_h, %lstm#0, %lstm#1, %lstm#2, %nan
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<1x1x2x6xf32>, tensor<2x3xui8>,
        tensor<2x3xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<2x1x1x2xf32>, tensor<2x3xui8>
}

// RUN: webnn-opt --webnn-fuse-channel-shuffle -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-fuse-channel-shuffle --webnn-decompose-fused -split-input-file %s | FileCheck %s --check-prefix=DECOMPOSED

// A ShuffleNetV2 unit's end, channels-last: concat of the two branches,
// the shuffle, and the two halves the next unit takes: one op, the concat
// and slices absorbed (the slices' order in the IR does not matter).
// CHECK-LABEL: func.func @unit
// CHECK: %[[A:.+]] = webnn.relu
// CHECK: %[[B:.+]] = webnn.sigmoid
// CHECK: %[[S:.+]]:2 = webnn.channelShuffle %[[A]], %[[B]] {axis = 3 : i64, groups = 2 : i64, splits = array<i64: 4, 4>} : (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) -> (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>)
// CHECK: webnn.sub %[[S]]#1, %[[S]]#0
// CHECK-NOT: webnn.concat
// CHECK-NOT: webnn.reshape
// CHECK-NOT: webnn.transpose
// CHECK-NOT: webnn.slice
// The expansion is the chain again, the slices in channel order.
// DECOMPOSED-LABEL: func.func @unit
// DECOMPOSED: %[[C:.+]] = webnn.concat %{{.+}}, %{{.+}} {axis = 3 : i64} : (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) -> tensor<1x5x5x8xf32>
// DECOMPOSED: %[[R:.+]] = webnn.reshape %[[C]] {newShape = array<i64: 1, 5, 5, 2, 4>}
// DECOMPOSED: %[[T:.+]] = webnn.transpose %[[R]] {permutation = array<i64: 0, 1, 2, 4, 3>} : (tensor<1x5x5x2x4xf32>) -> tensor<1x5x5x4x2xf32>
// DECOMPOSED: %[[M:.+]] = webnn.reshape %[[T]] {newShape = array<i64: 1, 5, 5, 8>}
// DECOMPOSED: %[[LO:.+]] = webnn.slice %[[M]] {sizes = array<i64: 1, 5, 5, 4>, starts = array<i64: 0, 0, 0, 0>}
// DECOMPOSED: %[[HI:.+]] = webnn.slice %[[M]] {sizes = array<i64: 1, 5, 5, 4>, starts = array<i64: 0, 0, 0, 4>}
// DECOMPOSED: webnn.sub %[[HI]], %[[LO]]
// DECOMPOSED-NOT: webnn.channelShuffle
func.func @unit() -> tensor<1x5x5x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x5x5x4xf32>
  %a = webnn.relu %x : tensor<1x5x5x4xf32>
  %b = webnn.sigmoid %x : tensor<1x5x5x4xf32>
  %c = webnn.concat %a, %b {axis = 3 : i64} : (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) -> tensor<1x5x5x8xf32>
  %r = webnn.reshape %c {newShape = array<i64: 1, 5, 5, 2, 4>} : (tensor<1x5x5x8xf32>) -> tensor<1x5x5x2x4xf32>
  %t = webnn.transpose %r {permutation = array<i64: 0, 1, 2, 4, 3>} : (tensor<1x5x5x2x4xf32>) -> tensor<1x5x5x4x2xf32>
  %m = webnn.reshape %t {newShape = array<i64: 1, 5, 5, 8>} : (tensor<1x5x5x4x2xf32>) -> tensor<1x5x5x8xf32>
  %hi = webnn.slice %m {starts = array<i64: 0, 0, 0, 4>, sizes = array<i64: 1, 5, 5, 4>} : (tensor<1x5x5x8xf32>) -> tensor<1x5x5x4xf32>
  %lo = webnn.slice %m {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 5, 5, 4>} : (tensor<1x5x5x8xf32>) -> tensor<1x5x5x4xf32>
  %y = webnn.sub %hi, %lo : (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  return %y : tensor<1x5x5x4xf32>
}

// -----

// nchw, three groups, no concat, the whole result read: one input, one
// result.
// CHECK-LABEL: func.func @nchw_groups3
// CHECK: %[[S:.+]] = webnn.channelShuffle %{{.+}} {axis = 1 : i64, groups = 3 : i64, splits = array<i64: 6>} : (tensor<2x6x3x3xf32>) -> tensor<2x6x3x3xf32>
// CHECK: return %[[S]]
// DECOMPOSED-LABEL: func.func @nchw_groups3
// DECOMPOSED-NOT: webnn.concat
// DECOMPOSED: webnn.reshape %{{.+}} {newShape = array<i64: 2, 3, 2, 3, 3>}
// DECOMPOSED: webnn.transpose %{{.+}} {permutation = array<i64: 0, 2, 1, 3, 4>}
// DECOMPOSED: webnn.reshape %{{.+}} {newShape = array<i64: 2, 6, 3, 3>}
// DECOMPOSED-NOT: webnn.slice
func.func @nchw_groups3() -> tensor<2x6x3x3xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x6x3x3xf32>
  %r = webnn.reshape %x {newShape = array<i64: 2, 3, 2, 3, 3>} : (tensor<2x6x3x3xf32>) -> tensor<2x3x2x3x3xf32>
  %t = webnn.transpose %r {permutation = array<i64: 0, 2, 1, 3, 4>} : (tensor<2x3x2x3x3xf32>) -> tensor<2x2x3x3x3xf32>
  %y = webnn.reshape %t {newShape = array<i64: 2, 6, 3, 3>} : (tensor<2x2x3x3x3xf32>) -> tensor<2x6x3x3xf32>
  return %y : tensor<2x6x3x3xf32>
}

// -----

// A concat that something else reads stays; slices that overlap (or a
// non-slice reader) leave the shuffle's result whole.
// CHECK-LABEL: func.func @kept_concat_and_slices
// DECOMPOSED-LABEL: func.func @kept_concat_and_slices
// CHECK: %[[C:.+]] = webnn.concat
// CHECK: %[[S:.+]] = webnn.channelShuffle %[[C]] {axis = 3 : i64, groups = 2 : i64, splits = array<i64: 8>}
// CHECK: webnn.slice %[[S]] {sizes = array<i64: 1, 2, 2, 6>, starts = array<i64: 0, 0, 0, 0>}
// CHECK: webnn.slice %[[S]] {sizes = array<i64: 1, 2, 2, 4>, starts = array<i64: 0, 0, 0, 4>}
func.func @kept_concat_and_slices() -> (tensor<1x2x2x8xf32>, tensor<1x2x2x6xf32>, tensor<1x2x2x4xf32>) attributes {webnn.output_names = ["c", "p", "q"]} {
  %a = webnn.input "a" : tensor<1x2x2x4xf32>
  %b = webnn.input "b" : tensor<1x2x2x4xf32>
  %c = webnn.concat %a, %b {axis = 3 : i64} : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x8xf32>
  %r = webnn.reshape %c {newShape = array<i64: 1, 2, 2, 2, 4>} : (tensor<1x2x2x8xf32>) -> tensor<1x2x2x2x4xf32>
  %t = webnn.transpose %r {permutation = array<i64: 0, 1, 2, 4, 3>} : (tensor<1x2x2x2x4xf32>) -> tensor<1x2x2x4x2xf32>
  %m = webnn.reshape %t {newShape = array<i64: 1, 2, 2, 8>} : (tensor<1x2x2x4x2xf32>) -> tensor<1x2x2x8xf32>
  %p = webnn.slice %m {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 2, 6>} : (tensor<1x2x2x8xf32>) -> tensor<1x2x2x6xf32>
  %q = webnn.slice %m {starts = array<i64: 0, 0, 0, 4>, sizes = array<i64: 1, 2, 2, 4>} : (tensor<1x2x2x8xf32>) -> tensor<1x2x2x4xf32>
  return %c, %p, %q : tensor<1x2x2x8xf32>, tensor<1x2x2x6xf32>, tensor<1x2x2x4xf32>
}

// -----

// Not a shuffle: the transpose moves a dimension other than the two factors,
// and a factor of 1 leaves the channels in place.
// CHECK-LABEL: func.func @not_a_shuffle
// DECOMPOSED-LABEL: func.func @not_a_shuffle
// CHECK-NOT: webnn.channelShuffle
func.func @not_a_shuffle() -> (tensor<1x4x4x2xf32>, tensor<1x2x2x4xf32>) attributes {webnn.output_names = ["y", "z"]} {
  %x = webnn.input "x" : tensor<1x2x2x8xf32>
  %r = webnn.reshape %x {newShape = array<i64: 1, 2, 2, 2, 4>} : (tensor<1x2x2x8xf32>) -> tensor<1x2x2x2x4xf32>
  %t = webnn.transpose %r {permutation = array<i64: 0, 4, 2, 3, 1>} : (tensor<1x2x2x2x4xf32>) -> tensor<1x4x2x2x2xf32>
  %y = webnn.reshape %t {newShape = array<i64: 1, 4, 4, 2>} : (tensor<1x4x2x2x2xf32>) -> tensor<1x4x4x2xf32>
  %w = webnn.input "w" : tensor<1x2x2x4xf32>
  %r1 = webnn.reshape %w {newShape = array<i64: 1, 2, 2, 1, 4>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x1x4xf32>
  %t1 = webnn.transpose %r1 {permutation = array<i64: 0, 1, 2, 4, 3>} : (tensor<1x2x2x1x4xf32>) -> tensor<1x2x2x4x1xf32>
  %z = webnn.reshape %t1 {newShape = array<i64: 1, 2, 2, 4>} : (tensor<1x2x2x4x1xf32>) -> tensor<1x2x2x4xf32>
  return %y, %z : tensor<1x4x4x2xf32>, tensor<1x2x2x4xf32>
}

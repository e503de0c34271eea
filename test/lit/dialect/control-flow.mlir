// RUN: webnn-opt %s -split-input-file | FileCheck %s
// The control-flow ops beyond the spec (webnn.if, webnn.loop, webnn.yield):
// round trips, with captured outer values inside the regions.

// CHECK-LABEL: func @if_captures
func.func @if_captures(%c: tensor<ui8>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[R:.+]] = webnn.if %{{.*}} : tensor<ui8> -> (tensor<2x3xf32>) then {
  // CHECK-NEXT: %[[A:.+]] = webnn.add %[[X:.+]], %[[X]]
  // CHECK-NEXT: webnn.yield %[[A]] : tensor<2x3xf32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT: webnn.yield %{{.*}} : tensor<2x3xf32>
  %0 = webnn.if %c : tensor<ui8> -> (tensor<2x3xf32>) then {
    %1 = webnn.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    webnn.yield %1 : tensor<2x3xf32>
  } else {
    webnn.yield %x : tensor<2x3xf32>
  }
  // CHECK: return %[[R]]
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @loop_trip_and_condition
func.func @loop_trip_and_condition(%m: tensor<i64>, %c: tensor<ui8>, %x: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: webnn.loop trip %{{.*}} : tensor<i64> while %{{.*}} : tensor<ui8> carried(%{{.*}} : tensor<4xf32>) -> (tensor<4xf32>) {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<ui8>, %[[V:.+]]: tensor<4xf32>):
  // CHECK: webnn.yield %{{.*}}, %{{.*}} : tensor<ui8>, tensor<4xf32>
  %0 = webnn.loop trip %m : tensor<i64> while %c : tensor<ui8> carried(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<4xf32>):
    %1 = webnn.add %v, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    webnn.yield %cond, %1 : tensor<ui8>, tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Trip count only, no carried values (a side-effect-free loop DCE may drop).
// CHECK-LABEL: func @loop_trip_only
func.func @loop_trip_only(%m: tensor<1xi64>) {
  // CHECK: webnn.loop trip %{{.*}} : tensor<1xi64> {
  webnn.loop trip %m : tensor<1xi64> {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>):
    webnn.yield %cond : tensor<ui8>
  }
  return
}

// -----

// A nested if inside a loop body reads the body's argument and an outer value.
// CHECK-LABEL: func @nested
func.func @nested(%c: tensor<ui8>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: webnn.loop while
  // CHECK: webnn.if
  %0 = webnn.loop while %c : tensor<ui8> carried(%x : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    %1 = webnn.if %cond : tensor<ui8> -> (tensor<2xf32>) then {
      %2 = webnn.mul %v, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      webnn.yield %2 : tensor<2xf32>
    } else {
      webnn.yield %v : tensor<2xf32>
    }
    webnn.yield %cond, %1 : tensor<ui8>, tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

// A scan result: per-iteration values stacked under a bound of 8 iterations.
// CHECK-LABEL: func @loop_scan
func.func @loop_scan(%c: tensor<ui8>, %m: tensor<i64>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<8x3xf32>) {
  // CHECK: webnn.loop trip %{{.*}} : tensor<i64> while %{{.*}} : tensor<ui8> carried(%{{.*}} : tensor<3xf32>) -> (tensor<3xf32>, tensor<8x3xf32>)
  // CHECK: webnn.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<ui8>, tensor<3xf32>, tensor<3xf32>
  %0:2 = webnn.loop trip %m : tensor<i64> while %c : tensor<ui8> carried(%x : tensor<3xf32>) -> (tensor<3xf32>, tensor<8x3xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<3xf32>):
    %1 = webnn.add %v, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    webnn.yield %cond, %1, %v : tensor<ui8>, tensor<3xf32>, tensor<3xf32>
  }
  return %0#0, %0#1 : tensor<3xf32>, tensor<8x3xf32>
}

// RUN: webnn-opt %s -split-input-file -verify-diagnostics
// Verifier errors of the control-flow ops (WebNNOpsControlFlow.td).

func.func @if_branch_types(%c: tensor<ui8>, %x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'webnn.if' op the else region yields 'tensor<3xf32>' as result #0, expected 'tensor<2xf32>'}}
  %0 = webnn.if %c : tensor<ui8> -> (tensor<2xf32>) then {
    webnn.yield %x : tensor<2xf32>
  } else {
    webnn.yield %y : tensor<3xf32>
  }
  return
}

// -----

func.func @if_branch_count(%c: tensor<ui8>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.if' op the then region yields 0 values, expected 1}}
  %0 = webnn.if %c : tensor<ui8> -> (tensor<2xf32>) then {
    webnn.yield
  } else {
    webnn.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @if_condition_elements(%c: tensor<2xui8>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.if' op condition must hold one element, got 'tensor<2xui8>'}}
  %0 = webnn.if %c : tensor<2xui8> -> (tensor<2xf32>) then {
    webnn.yield %x : tensor<2xf32>
  } else {
    webnn.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @if_condition_type(%c: tensor<f32>, %x: tensor<2xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 8-bit unsigned integer values}}
  %0 = "webnn.if"(%c) ({
    webnn.yield %x : tensor<2xf32>
  }, {
    webnn.yield %x : tensor<2xf32>
  }) : (tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @if_empty_branch(%c: tensor<ui8>) {
  // expected-error @+1 {{'webnn.if' op region #1 ('elseRegion') failed to verify constraint: region with 1 blocks}}
  "webnn.if"(%c) ({
    webnn.yield
  }, {
  }) : (tensor<ui8>) -> ()
  return
}

// -----

func.func @loop_unbounded(%x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.loop' op needs a trip count, a condition or both (else it never ends)}}
  %0 = webnn.loop carried(%x : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    webnn.yield %cond, %v : tensor<ui8>, tensor<2xf32>
  }
  return
}

// -----

func.func @loop_trip_type(%m: tensor<i32>) {
  // expected-error @+1 {{'webnn.loop' op trip count must be a one-element int64 tensor, got 'tensor<i32>'}}
  webnn.loop trip %m : tensor<i32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>):
    webnn.yield %cond : tensor<ui8>
  }
  return
}

// -----

func.func @loop_carried_type_changes(%m: tensor<i64>, %x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'webnn.loop' op the body yields 'tensor<3xf32>' as carried value #0, which enters as 'tensor<2xf32>' (carried values keep their type across iterations)}}
  %0 = webnn.loop trip %m : tensor<i64> carried(%x : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    webnn.yield %cond, %y : tensor<ui8>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_body_arguments(%m: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.loop' op the body's arguments must be (iteration, condition, carried values...) of types (tensor<i64>, tensor<ui8>, tensor<2xf32>)}}
  %0 = webnn.loop trip %m : tensor<i64> carried(%x : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %v: tensor<2xf32>):
    webnn.yield %v, %v : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @loop_condition_first(%m: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.loop' op the body must yield a one-element uint8 condition first}}
  %0 = webnn.loop trip %m : tensor<i64> carried(%x : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    webnn.yield %v : tensor<2xf32>
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.yield' op expects parent op to be one of 'webnn.if, webnn.loop'}}
  webnn.yield %x : tensor<2xf32>
}

// -----

func.func @loop_scan_shape(%m: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.loop' op scan result #0 is 'tensor<4x3xf32>', expected its bound followed by the scan value's type 'tensor<2xf32>'}}
  %0:2 = webnn.loop trip %m : tensor<i64> carried(%x : tensor<2xf32>) -> (tensor<2xf32>, tensor<4x3xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    webnn.yield %cond, %v, %v : tensor<ui8>, tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @loop_scan_count(%m: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'webnn.loop' op the body yields 1 values after the condition, expected 1 carried and 1 scan values}}
  %0:2 = webnn.loop trip %m : tensor<i64> carried(%x : tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    webnn.yield %cond, %v : tensor<ui8>, tensor<2xf32>
  }
  return
}

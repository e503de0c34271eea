// A loop bounded by 4 iterations, ended early while sum(v) < limit; s stacks
// each iteration's v.
func.func @main() -> (tensor<2xf32>, tensor<4x2xf32>) attributes {webnn.graph_name = "scan", webnn.output_names = ["v", "s"]} {
  %limit = webnn.input "limit" : tensor<f32>
  %x = webnn.input "x" : tensor<2xf32>
  %m = webnn.constant dense<4> : tensor<i64>
  %c = webnn.constant dense<1> : tensor<ui8>
  %r:2 = webnn.loop trip %m : tensor<i64> while %c : tensor<ui8> carried(%x : tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    %n = webnn.add %v, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %sum = webnn.reduceSum %n {keepDimensions = false} : (tensor<2xf32>) -> tensor<f32>
    %more = webnn.lesser %sum, %limit : (tensor<f32>, tensor<f32>) -> tensor<ui8>
    webnn.yield %more, %n, %n : tensor<ui8>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<4x2xf32>
}

// y = c ? x + k : x * k; z = y + m * x (a loop adding the captured x m times).
func.func @main() -> (tensor<2xf32>, tensor<2xf32>) attributes {webnn.graph_name = "cf", webnn.output_names = ["y", "z"]} {
  %c = webnn.input "c" : tensor<ui8>
  %m = webnn.input "m" : tensor<i64>
  %x = webnn.input "x" : tensor<2xf32>
  %k = webnn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = webnn.if %c : tensor<ui8> -> (tensor<2xf32>) then {
    %a = webnn.add %x, %k : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    webnn.yield %a : tensor<2xf32>
  } else {
    %b = webnn.mul %x, %k : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    webnn.yield %b : tensor<2xf32>
  }
  %z = webnn.loop trip %m : tensor<i64> carried(%y : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<2xf32>):
    %n = webnn.add %v, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    webnn.yield %cond, %n : tensor<ui8>, tensor<2xf32>
  }
  return %y, %z : tensor<2xf32>, tensor<2xf32>
}

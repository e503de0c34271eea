// An input that folding leaves unused stays a graph input.
// RUN: webnn-opt --webnn-fold-constants %s | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[X:.+]] = webnn.input "x" : tensor<2x3xf32>
// CHECK: %[[Y:.+]] = webnn.input "y" : tensor<3xf32>
// CHECK: return %[[Y]]
func.func @main() -> tensor<3xf32> attributes {webnn.output_names = ["out"]} {
  %x = webnn.input "x" : tensor<2x3xf32>
  %y = webnn.input "y" : tensor<3xf32>
  return %y : tensor<3xf32>
}

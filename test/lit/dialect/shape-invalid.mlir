// RUN: webnn-opt %s -split-input-file -verify-diagnostics

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.concat' op expected axis in [0, 2) for inputs of rank 2 but got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_shapes(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{'webnn.concat' op expected operand 'inputs[1]' to match the shape of 'inputs[0]' [2, 3] except along axis 1 but got [3, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{'webnn.concat' op expected operand 'inputs[1]' to have the data type of 'inputs[0]' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @split_sum(%x: tensor<10x4xf32>) {
  // expected-error @+2 {{'webnn.split' op expected splits [3, 3] to sum to 10 (the input's size along axis 0) but they sum to 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = webnn.split %x {splits = array<i64: 3, 3>} : (tensor<10x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  return
}

// -----

func.func @concat_size_overflow(%a: tensor<4611686018427387904x1xf32>) {
  // expected-error @+2 {{'webnn.concat' op expected the inputs' sizes along axis 0 to sum to a size but their sum overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.concat %a, %a, %a {axis = 0 : i64} : (tensor<4611686018427387904x1xf32>, tensor<4611686018427387904x1xf32>, tensor<4611686018427387904x1xf32>) -> tensor<?x1xf32>
  return
}

// -----

func.func @split_sum_overflow(%x: tensor<?x4xf32>) {
  // expected-error @+2 {{'webnn.split' op expected splits [9223372036854775807, 1] to sum to a size but their sum overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = webnn.split %x {splits = array<i64: 9223372036854775807, 1>} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<1x4xf32>)
  return
}

// -----

func.func @split_zero(%x: tensor<10x4xf32>) {
  // expected-error @+2 {{'webnn.split' op expected every splits value to be > 0 but got [10, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = webnn.split %x {splits = array<i64: 10, 0>} : (tensor<10x4xf32>) -> (tensor<10x4xf32>, tensor<0x4xf32>)
  return
}

// -----

func.func @split_result_count(%x: tensor<10x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<5x4xf32>', 'tensor<5x4xf32>' are incompatible with return type(s) of operation 'tensor<10x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.split %x {splits = array<i64: 5, 5>} : (tensor<10x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.reshape' op expected newShape [4, 2] to hold 6 elements like the input [2, 3] but it holds 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reshape %x {newShape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.reshape' op expected every newShape value to be > 0 (one may be dynamic) but got [-1, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reshape %x {newShape = array<i64: -1, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_dynamic_past_input_rank(%x: tensor<?x?xf32>) {
  // expected-error @+2 {{'webnn.reshape' op expected every dynamic newShape value to have an input dimension at its index (several `?` copy them) but got [?, ?, ?] for input [?, ?]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reshape %x {newShape = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>} : (tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return
}

// -----

func.func @reshape_dynamic_copies_miscount(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'webnn.reshape' op expected newShape [?, ?, 2, 3] (dynamic values copying the input's) to hold 24 elements like the input [2, 3, 4] but it holds 36}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reshape %x {newShape = array<i64: -9223372036854775808, -9223372036854775808, 2, 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x2x3xf32>
  return
}

// -----

func.func @reshape_dynamic_does_not_divide(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.reshape' op expected the input's 6 elements [2, 3] to fill newShape [?, 4] with a positive size for the dynamic value}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reshape %x {newShape = array<i64: -9223372036854775808, 4>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @expand_dynamic_without_input_dim(%x: tensor<?x8xf32>) {
  // expected-error @+2 {{'webnn.expand' op expected every newShape value to be > 0 (or dynamic where the input has a dimension) but got [?, 2, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.expand %x {newShape = array<i64: -9223372036854775808, 2, 8>} : (tensor<?x8xf32>) -> tensor<?x2x8xf32>
  return
}

// -----

func.func @expand_not_broadcastable(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{'webnn.expand' op expected the input shape [3, 2] to broadcast to newShape [3, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.expand %x {newShape = array<i64: 3, 4>} : (tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @expand_lower_rank(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.expand' op expected the input shape [2, 3] to broadcast to newShape [3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.expand %x {newShape = array<i64: 3>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'webnn.transpose' op expected unique permutation values but 0 appears more than once in [0, 0, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.transpose %x {permutation = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @transpose_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'webnn.transpose' op expected permutation of 3 values (the input's rank) but got [1, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.transpose' op expected every permutation value in [0, 2) for an input of rank 2 but got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.transpose %x {permutation = array<i64: 2, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<5x6xf32>) {
  // expected-error @+2 {{'webnn.slice' op expected the window [4, 7) to lie inside dimension 1 of size 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.slice %x {starts = array<i64: 0, 4>, sizes = array<i64: 5, 3>} : (tensor<5x6xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @slice_rank(%x: tensor<5x6xf32>) {
  // expected-error @+2 {{'webnn.slice' op expected starts, sizes and strides to have 2 values (the input's rank) but got 1, 2 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.slice %x {starts = array<i64: 0>, sizes = array<i64: 5, 3>} : (tensor<5x6xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @slice_zero_stride(%x: tensor<5x6xf32>) {
  // expected-error @+2 {{'webnn.slice' op expected starts >= 0, sizes > 0 and strides >= 1 but got starts[1] = 0, sizes[1] = 3, strides[1] = 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 5, 3>, strides = array<i64: 1, 0>} : (tensor<5x6xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @gather_indices_type(%x: tensor<5x6xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer values}}
  %0 = webnn.gather %x, %i : (tensor<5x6xf32>, tensor<2xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<5x6xf32>, %i: tensor<2xi32>) {
  // expected-error @+2 {{'webnn.gather' op expected axis in [0, 2) for an input of rank 2 but got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gather %x, %i {axis = 2 : i64} : (tensor<5x6xf32>, tensor<2xi32>) -> tensor<5x6xf32>
  return
}

// -----

func.func @pad_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.pad' op expected beginningPadding and endingPadding to have 2 values (the input's rank) but got 1 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.pad %x {beginningPadding = array<i64: 1>, endingPadding = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @pad_reflection(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.pad' op expected reflection padding smaller than dimension 0 (size 2) but got 2 and 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.pad %x {beginningPadding = array<i64: 2, 0>, endingPadding = array<i64: 0, 0>, mode = "reflection"} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.pad' op expected mode "constant", "edge" or "reflection" but got "symmetric"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.pad %x {beginningPadding = array<i64: 0, 0>, endingPadding = array<i64: 0, 0>, mode = "symmetric"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_zero(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.tile' op expected every repetitions value to be > 0 but got [1, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.tile %x {repetitions = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_rank(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.tile' op expected repetitions to have 2 values (the input's rank) but got [2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.tile %x {repetitions = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @triangular_rank(%x: tensor<3xf32>) {
  // expected-error @+2 {{'webnn.triangular' op expected operand 'input' of rank >= 2 but got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.triangular %x : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_elements_shape(%x: tensor<4x3xf32>, %i: tensor<2x2xi32>) {
  // expected-error @+2 {{'webnn.gatherElements' op expected operand 'indices' of shape [2, 3] (the input's shape except along axis 0) but got [2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gatherElements %x, %i : (tensor<4x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @gather_nd_coordinate(%x: tensor<4x3xf32>, %i: tensor<2x3xi32>) {
  // expected-error @+2 {{'webnn.gatherND' op expected the last dimension of 'indices' (3) to be <= the input's rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gatherND %x, %i : (tensor<4x3xf32>, tensor<2x3xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_elements_updates(%x: tensor<4x3xf32>, %i: tensor<2x3xi32>, %u: tensor<3x3xf32>) {
  // expected-error @+2 {{'webnn.scatterElements' op expected operand 'updates' of shape [2, 3] (the indices' shape) but got [3, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.scatterElements %x, %i, %u : (tensor<4x3xf32>, tensor<2x3xi32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expected-error @+2 {{'webnn.scatterND' op expected operand 'updates' of shape [2, 3] (indices.shape[:-1] + input.shape[indices.shape[-1]:]) but got [2, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.scatterND %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_types(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf16>) {
  // expected-error @+2 {{'webnn.scatterND' op expected operand 'updates' to have the data type of 'input' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.scatterND %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @reverse_axes(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'webnn.reverse' op expected unique axes values but 1 appears more than once in [1, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reverse %x {axes = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_elements_index_type(%x: tensor<4x3xf32>, %i: tensor<2x3xi8>) {
  // expected-error @+1 {{'webnn.gatherElements' op operand #1 must be ranked tensor of 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer values, but got 'tensor<2x3xi8>'}}
  %0 = webnn.gatherElements %x, %i : (tensor<4x3xf32>, tensor<2x3xi8>) -> tensor<2x3xf32>
  return
}

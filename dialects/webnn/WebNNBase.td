#ifndef WEBNN_BASE_TD
#define WEBNN_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def WebNN_Dialect : Dialect {
  let name = "webnn";
  let summary = "The W3C Web Neural Network API operations";
  let description = [{
    One op per WebNN builder method (https://www.w3.org/TR/webnn/), named as
    the method (`webnn.conv2d`, `webnn.reduceMean`), with the spec's option
    names as attributes. Verifiers implement the spec's validation steps and
    result-type inference its shape rules. Ops beyond the spec (fused macro
    ops) say so in their description.
  }];
  let cppNamespace = "::mlir::webnn";
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
  let hasConstantMaterializer = 1;
}

// The element types WebNN's MLOperandDataType allows. Signless integers are
// signed (int4/int8/int32/int64); ui* are the unsigned ones.
def WebNN_ElementType : AnyTypeOf<[F32, F16, I32, UI32, I64, UI64, I8, UI8, I<4>, UI<4>]>;
def WebNN_FloatElementType : AnyTypeOf<[F32, F16]>;

def WebNN_Tensor : RankedTensorOf<[F32, F16, I32, UI32, I64, UI64, I8, UI8, I<4>, UI<4>]>;
def WebNN_FloatTensor : RankedTensorOf<[F32, F16]>;
def WebNN_Uint8Tensor : RankedTensorOf<[UI8]>;
// abs, neg, sign, relu, prelu accept the signed numeric types only.
def WebNN_SignedTensor : RankedTensorOf<[F32, F16, I64, I32, I8]>;
// reduceL1/Sum/SumSquare/Product: floats and 32/64-bit integers.
def WebNN_Numeric32or64Tensor : RankedTensorOf<[F32, F16, I32, UI32, I64, UI64]>;
// gather's indices.
def WebNN_IndexTensor : RankedTensorOf<[I32, UI32, I64]>;

// The float64 extension (beyond the spec: WebNN has no float64). The ops
// whose operands use these constraints also take f64, and the CPU runtime has
// a float64 kernel for each: graph input/constant, data movement, element-wise
// arithmetic, comparisons, where, cast, the float unary ops listed in
// docs/OPS.md ("float64") and the reductions. Every other op stays WebNN-typed,
// so a front end that meets one on a float64 value narrows that graph to f32
// (docs/ONNX.md, "float64").
def WebNN_TensorOrF64 : RankedTensorOf<[F32, F16, F64, I32, UI32, I64, UI64, I8, UI8, I<4>, UI<4>]>;
def WebNN_FloatTensorOrF64 : RankedTensorOf<[F32, F16, F64]>;
def WebNN_SignedTensorOrF64 : RankedTensorOf<[F32, F16, F64, I64, I32, I8]>;
def WebNN_Numeric32or64TensorOrF64 : RankedTensorOf<[F32, F16, F64, I32, UI32, I64, UI64]>;

class WebNN_Op<string mnemonic, list<Trait> traits = []>
    : Op<WebNN_Dialect, mnemonic, traits>;

// An op whose result types come from its own shape rules: front ends never
// spell result types, they call inferReturnTypes(Adaptor), which also runs
// the spec's validation steps and reports the first one that fails.
class WebNN_InferredOp<string mnemonic, list<Trait> traits = []>
    : WebNN_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)>;

#endif // WEBNN_BASE_TD

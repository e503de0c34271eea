#ifndef WEBNN_OPS_ELEMENTWISE_TD
#define WEBNN_OPS_ELEMENTWISE_TD

// Element-wise unary, binary, comparison and logical ops, the activations,
// cast and where (WebNN spec sections "Element-wise ... operations" and the
// per-activation sections).

//===----------------------------------------------------------------------===//
// Unary ops whose output is the input's type (inference from the trait).
//===----------------------------------------------------------------------===//

class WebNN_UnaryOp<string mnemonic, Type operandType, string sum, string desc>
    : WebNN_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = sum;
  let description = desc;
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

class WebNN_FloatUnaryOp<string mnemonic, string sum, string desc>
    : WebNN_UnaryOp<mnemonic, WebNN_FloatTensor, sum, desc>;
class WebNN_SignedUnaryOp<string mnemonic, string sum, string desc>
    : WebNN_UnaryOp<mnemonic, WebNN_SignedTensorOrF64, sum, desc>;
// Float unary ops that also take the float64 extension (WebNNBase.td).
class WebNN_FloatOrF64UnaryOp<string mnemonic, string sum, string desc>
    : WebNN_UnaryOp<mnemonic, WebNN_FloatTensorOrF64, sum, desc>;

def WebNN_AbsOp : WebNN_SignedUnaryOp<"abs", "absolute value",
  "Computes |x| for every element; float16/float32 and the signed integers.">;
def WebNN_NegOp : WebNN_SignedUnaryOp<"neg", "numerical negation",
  "Computes -x for every element; float16/float32 and the signed integers.">;
def WebNN_SignOp : WebNN_SignedUnaryOp<"sign", "sign of each element",
  "Yields -1, 0 or 1 according to the sign of each element.">;
def WebNN_ReluOp : WebNN_SignedUnaryOp<"relu", "rectified linear unit",
  "Computes max(0, x) for every element.">;

def WebNN_CeilOp : WebNN_FloatOrF64UnaryOp<"ceil", "round up",
  "Rounds every element up to the nearest integral value.">;
def WebNN_FloorOp : WebNN_FloatOrF64UnaryOp<"floor", "round down",
  "Rounds every element down to the nearest integral value.">;
def WebNN_ExpOp : WebNN_FloatOrF64UnaryOp<"exp", "natural exponential",
  "Computes e raised to each element.">;
def WebNN_LogOp : WebNN_FloatOrF64UnaryOp<"log", "natural logarithm",
  "Computes the natural logarithm of each element.">;
def WebNN_SqrtOp : WebNN_FloatOrF64UnaryOp<"sqrt", "square root",
  "Computes the square root of each element.">;
def WebNN_SigmoidOp : WebNN_FloatOrF64UnaryOp<"sigmoid", "logistic sigmoid",
  "Computes 1 / (1 + exp(-x)) for every element.">;
def WebNN_TanhOp : WebNN_FloatOrF64UnaryOp<"tanh", "hyperbolic tangent",
  "Computes the hyperbolic tangent of each element.">;
def WebNN_HardSwishOp : WebNN_FloatUnaryOp<"hardSwish", "hard swish activation",
  "Computes x * max(0, min(6, x + 3)) / 6 for every element.">;
def WebNN_ErfOp : WebNN_FloatOrF64UnaryOp<"erf", "Gauss error function",
  "Computes the error function of each element.">;
def WebNN_ReciprocalOp : WebNN_FloatOrF64UnaryOp<"reciprocal", "reciprocal",
  "Computes 1 / x for every element.">;
def WebNN_SinOp : WebNN_FloatOrF64UnaryOp<"sin", "sine",
  "Computes the sine of each element (radians).">;
def WebNN_CosOp : WebNN_FloatOrF64UnaryOp<"cos", "cosine",
  "Computes the cosine of each element (radians).">;
def WebNN_TanOp : WebNN_FloatOrF64UnaryOp<"tan", "tangent",
  "Computes the tangent of each element (radians).">;
def WebNN_SoftsignOp : WebNN_FloatUnaryOp<"softsign", "softsign activation",
  "Computes x / (1 + |x|) for every element.">;
def WebNN_SoftplusOp : WebNN_FloatUnaryOp<"softplus", "softplus activation",
  "Computes ln(1 + exp(x)) for every element.">;
def WebNN_RoundEvenOp : WebNN_FloatOrF64UnaryOp<"roundEven", "round half to even",
  "Rounds every element to the nearest integer, ties going to the even one.">;
def WebNN_GeluOp : WebNN_FloatUnaryOp<"gelu", "Gaussian error linear unit",
  "Computes 0.5 * x * (1 + erf(x / sqrt(2))) for every element.">;

def WebNN_IdentityOp : WebNN_UnaryOp<"identity", WebNN_TensorOrF64, "identity",
  "Returns its input unchanged; any data type."> {
  let hasFolder = 1;
}
def WebNN_LogicalNotOp : WebNN_UnaryOp<"logicalNot", WebNN_Uint8Tensor,
  "logical negation", "Yields 1 where the uint8 input is 0 and 0 elsewhere.">;

// isNaN / isInfinite: float16/float32 in, uint8 0/1 out (spec "element-wise
// logical operations": only float types are allowed for these two).
class WebNN_FloatPredicateOp<string mnemonic, string sum, string desc>
    : WebNN_InferredOp<mnemonic> {
  let summary = sum;
  let description = desc;
  let arguments = (ins WebNN_FloatTensor:$input);
  let results = (outs WebNN_Uint8Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def WebNN_IsNaNOp : WebNN_FloatPredicateOp<"isNaN", "test for NaN",
  "Yields uint8 1 where the element is a NaN and 0 elsewhere.">;
def WebNN_IsInfiniteOp : WebNN_FloatPredicateOp<"isInfinite", "test for infinity",
  "Yields uint8 1 where the element is +infinity or -infinity and 0 elsewhere.">;

//===----------------------------------------------------------------------===//
// Activations with options (custom inference validates the options).
//===----------------------------------------------------------------------===//

class WebNN_FloatActivationOp<string mnemonic, dag attrs, string sum, string desc>
    : WebNN_InferredOp<mnemonic> {
  let summary = sum;
  let description = desc;
  let arguments = !con((ins WebNN_FloatTensor:$input), attrs);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def WebNN_EluOp : WebNN_FloatActivationOp<"elu",
  (ins OptionalAttr<F64Attr>:$alpha), "exponential linear unit",
  "Computes x for x >= 0 and alpha * (exp(x) - 1) otherwise; alpha defaults to 1.">;
def WebNN_LeakyReluOp : WebNN_FloatActivationOp<"leakyRelu",
  (ins OptionalAttr<F64Attr>:$alpha), "leaky rectified linear unit",
  "Computes x for x >= 0 and alpha * x otherwise; alpha defaults to 0.01.">;
def WebNN_HardSigmoidOp : WebNN_FloatActivationOp<"hardSigmoid",
  (ins OptionalAttr<F64Attr>:$alpha, OptionalAttr<F64Attr>:$beta),
  "piecewise-linear sigmoid",
  "Computes max(0, min(1, alpha * x + beta)); alpha defaults to 0.2 and beta to 0.5.">;
def WebNN_LinearOp : WebNN_FloatActivationOp<"linear",
  (ins OptionalAttr<F64Attr>:$alpha, OptionalAttr<F64Attr>:$beta),
  "affine map",
  "Computes alpha * x + beta for every element; alpha defaults to 1 and beta to 0.">;
def WebNN_SoftmaxOp : WebNN_FloatActivationOp<"softmax", (ins I64Attr:$axis),
  "softmax along one axis",
  "Normalizes the exponentials of the input along `axis` so that they sum to 1.">;

def WebNN_ClampOp : WebNN_InferredOp<"clamp"> {
  let summary = "clamp to a range";
  let description = [{
    Limits every element to [minValue, maxValue]; an absent bound does not
    clamp (defaults -infinity and +infinity). minValue must not exceed maxValue.
  }];
  let arguments = (ins WebNN_Tensor:$input, OptionalAttr<F64Attr>:$minValue,
                       OptionalAttr<F64Attr>:$maxValue);
  let results = (outs WebNN_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def WebNN_CastOp : WebNN_InferredOp<"cast"> {
  let summary = "convert to another data type";
  let description = [{
    Converts every element to the data type `type`, keeping the shape. Float to
    integer conversion truncates toward zero; out-of-range values are
    implementation-defined.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, TypeAttr:$type);
  let results = (outs WebNN_TensorOrF64:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def WebNN_PreluOp : WebNN_InferredOp<"prelu"> {
  let summary = "parametric rectified linear unit";
  let description = [{
    Computes x for x >= 0 and slope * x otherwise; the input and slope shapes
    broadcast bidirectionally.
  }];
  let arguments = (ins WebNN_SignedTensor:$input, WebNN_SignedTensor:$slope);
  let results = (outs WebNN_SignedTensor:$output);
  let assemblyFormat = "$input `,` $slope attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Binary ops: bidirectional broadcasting.
//===----------------------------------------------------------------------===//

class WebNN_BinaryOp<string mnemonic, Type operandType, string sum, string desc>
    : WebNN_InferredOp<mnemonic> {
  let summary = sum;
  let description = desc;
  let arguments = (ins operandType:$a, operandType:$b);
  let results = (outs WebNN_TensorOrF64:$output);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
}

class WebNN_ArithmeticOp<string mnemonic, string sum, string desc>
    : WebNN_BinaryOp<mnemonic, WebNN_TensorOrF64, sum, desc>;

def WebNN_AddOp : WebNN_ArithmeticOp<"add", "element-wise addition",
  "Computes a + b after broadcasting both shapes bidirectionally."> {
  let hasFolder = 1;
}
def WebNN_SubOp : WebNN_ArithmeticOp<"sub", "element-wise subtraction",
  "Computes a - b after broadcasting both shapes bidirectionally."> {
  let hasFolder = 1;
}
def WebNN_MulOp : WebNN_ArithmeticOp<"mul", "element-wise multiplication",
  "Computes a * b after broadcasting both shapes bidirectionally."> {
  let hasFolder = 1;
}
def WebNN_DivOp : WebNN_ArithmeticOp<"div", "element-wise division",
  "Computes a / b after broadcasting both shapes bidirectionally."> {
  let hasFolder = 1;
}
def WebNN_MaxOp : WebNN_ArithmeticOp<"max", "element-wise maximum",
  "Takes the larger of a and b after bidirectional broadcasting.">;
def WebNN_MinOp : WebNN_ArithmeticOp<"min", "element-wise minimum",
  "Takes the smaller of a and b after bidirectional broadcasting.">;
def WebNN_PowOp : WebNN_ArithmeticOp<"pow", "element-wise power",
  "Raises a to the power b after bidirectional broadcasting.">;

class WebNN_CompareOp<string mnemonic, string rel>
    : WebNN_BinaryOp<mnemonic, WebNN_TensorOrF64, "element-wise " # rel # " comparison",
        "Yields uint8 1 where a " # rel # " b holds and 0 elsewhere, after "
        # "bidirectional broadcasting.">;

def WebNN_EqualOp : WebNN_CompareOp<"equal", "==">;
def WebNN_NotEqualOp : WebNN_CompareOp<"notEqual", "!=">;
def WebNN_GreaterOp : WebNN_CompareOp<"greater", ">">;
def WebNN_GreaterOrEqualOp : WebNN_CompareOp<"greaterOrEqual", ">=">;
def WebNN_LesserOp : WebNN_CompareOp<"lesser", "<">;
def WebNN_LesserOrEqualOp : WebNN_CompareOp<"lesserOrEqual", "<=">;

class WebNN_LogicalBinaryOp<string mnemonic, string rel>
    : WebNN_BinaryOp<mnemonic, WebNN_Uint8Tensor, "element-wise logical " # rel,
        "Treats non-zero uint8 elements as true and yields 1 where a " # rel
        # " b holds, 0 elsewhere, after bidirectional broadcasting.">;

def WebNN_LogicalAndOp : WebNN_LogicalBinaryOp<"logicalAnd", "and">;
def WebNN_LogicalOrOp : WebNN_LogicalBinaryOp<"logicalOr", "or">;
def WebNN_LogicalXorOp : WebNN_LogicalBinaryOp<"logicalXor", "xor">;

def WebNN_WhereOp : WebNN_InferredOp<"where"> {
  let summary = "element-wise select";
  let description = [{
    Picks trueValue where the uint8 condition is non-zero and falseValue
    elsewhere; the output shape broadcasts all three shapes bidirectionally.
  }];
  let arguments = (ins WebNN_Uint8Tensor:$condition, WebNN_TensorOrF64:$trueValue,
                       WebNN_TensorOrF64:$falseValue);
  let results = (outs WebNN_TensorOrF64:$output);
  let assemblyFormat = [{
    $condition `,` $trueValue `,` $falseValue attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_ELEMENTWISE_TD

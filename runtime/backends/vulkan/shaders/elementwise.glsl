// Float elementwise ops with the op code as an argument: unary.comp applies
// one (its OP constant), chain.comp a sequence chosen by specialization
// constants.
// Codes: unary ops as unary.comp numbers them (below CHAIN_BINARY), binary
// ops as CHAIN_BINARY + binary.comp's number.

#define CHAIN_BINARY 32

float tanhStable(float x) {
  // GLSL's tanh may overflow exp() for |x| > ~44 on some drivers.
  if (abs(x) > 15.0) return sign(x);
  return tanh(x);
}

// unary.comp's float ops (its OP_* numbering): alpha/beta as that shader's
// push constants.
float unaryf(int op, float x, float alpha, float beta) {
  switch (op) {
    case 0: return x;
    case 1: return abs(x);
    case 2: return ceil(x);
    case 3: return floor(x);
    case 4: return exp(x);
    case 5: return log(x);
    case 6: return -x;
    case 7: return max(x, 0.0);
    case 8: return 1.0 / (1.0 + exp(-x));
    case 9: return sqrt(x);
    case 10: return tanhStable(x);
    case 11: return erfApprox(x);
    case 12: return 0.5 * x * (1.0 + erfApprox(x * 0.70710678118654752));
    case 13: return x >= 0.0 ? x : alpha * (exp(x) - 1.0);
    case 14: return clamp(alpha * x + beta, 0.0, 1.0);
    case 15: return x * clamp(x / 6.0 + 0.5, 0.0, 1.0);
    case 16: return x >= 0.0 ? x : alpha * x;
    case 17: return alpha * x + beta;
    case 18: return min(max(x, alpha), beta);
    case 19: return x == 0.0 ? 1.0 : 0.0;
    case 20: return 1.0 / x;
    case 21: return sin(x);
    case 22: return cos(x);
    case 23: return x > 20.0 ? x : log(1.0 + exp(x));
    case 24: return x / (1.0 + abs(x));
    case 25: return sign(x);
    case 26: return roundEven(x);
    default: return tan(x);
  }
}

// binary.comp's float arithmetic (not pow or the comparisons).
float binaryf(int op, float a, float b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return max(a, b);
    case 5: return min(a, b);
    default: return a >= 0.0 ? a : a * b;  // prelu
  }
}

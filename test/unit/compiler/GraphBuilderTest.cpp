// GraphBuilder builds ops by name for every front end: bad requests must come
// back as diagnostics, never reach the shape rules half-formed.
#include "compiler/frontends/common/GraphBuilder.h"

#include <gtest/gtest.h>

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

namespace mlir::webnn {
namespace {

class GraphBuilderTest : public ::testing::Test {
 protected:
  GraphBuilderTest()
      : handler_(&ctx_, [this](Diagnostic &d) {
          messages_.push_back(d.str());
          return success();
        }),
        builder_(&ctx_, "g", UnknownLoc::get(&ctx_)) {}

  Value input(ArrayRef<int64_t> shape) {
    return builder_.addInput("x" + std::to_string(inputs_++),
                             RankedTensorType::get(shape, Float32Type::get(&ctx_)), loc());
  }
  Location loc() { return FileLineColLoc::get(&ctx_, "g.webnn", 3, 7); }

  MLIRContext ctx_;
  std::vector<std::string> messages_;
  ScopedDiagnosticHandler handler_;
  GraphBuilder builder_;
  int inputs_ = 0;
};

TEST_F(GraphBuilderTest, InfersResultTypes) {
  Value a = input({2, 1, 4}), b = input({3, 1});
  auto r = builder_.addOp("add", {a, b}, {}, loc());
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(cast<RankedTensorType>((*r)[0].getType()).getShape(), ArrayRef<int64_t>({2, 3, 4}));
  EXPECT_TRUE(messages_.empty());
}

TEST_F(GraphBuilderTest, MissingRequiredOptionIsADiagnostic) {
  Value x = input({2, 3});
  EXPECT_TRUE(failed(builder_.addOp("softmax", {x}, {}, loc())));
  ASSERT_FALSE(messages_.empty());
  EXPECT_NE(messages_[0].find("axis"), std::string::npos) << messages_[0];
}

TEST_F(GraphBuilderTest, WrongOperandCountIsADiagnostic) {
  Value x = input({2, 3});
  EXPECT_TRUE(failed(builder_.addOp("add", {x}, {}, loc())));
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_EQ(messages_[0], "'add' takes 2 operands but got 1");
  messages_.clear();
  EXPECT_TRUE(failed(builder_.addOp("conv2d", {x}, {}, loc())));
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_EQ(messages_[0], "'conv2d' takes at least 2 operands but got 1");
}

TEST_F(GraphBuilderTest, UnknownOpIsADiagnostic) {
  Value x = input({2, 3});
  EXPECT_TRUE(failed(builder_.addOp("frobnicate", {x}, {}, loc())));
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_EQ(messages_[0], "unknown WebNN operation 'frobnicate'");
}

TEST_F(GraphBuilderTest, SpecValidationFailureIsADiagnostic) {
  Value a = input({2, 3}), b = input({4, 5});
  EXPECT_TRUE(failed(builder_.addOp("matmul", {a, b}, {}, loc())));
  ASSERT_FALSE(messages_.empty());
}

}  // namespace
}  // namespace mlir::webnn

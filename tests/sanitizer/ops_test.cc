#include "sanitizer/ops.h"

#include <gtest/gtest.h>

namespace devcheck::sanitizer {
namespace {

TEST(ClassifyOp, KnowsFactoriesTransfersCopiesSyncsAndCrossDeviceOps) {
  EXPECT_EQ(classify_op("aten::ones").kind, OpKind::kFactory);
  EXPECT_EQ(classify_op("aten::empty_strided").kind, OpKind::kFactory);
  EXPECT_EQ(classify_op("aten::to").kind, OpKind::kTransfer);
  EXPECT_EQ(classify_op("aten::_to_copy").kind, OpKind::kTransfer);
  EXPECT_EQ(classify_op("aten::copy_").kind, OpKind::kCopy);
  EXPECT_EQ(classify_op("aten::pin_memory").kind, OpKind::kPin);
  EXPECT_EQ(classify_op("aten::_local_scalar_dense").kind, OpKind::kSync);
  EXPECT_EQ(classify_op("aten::set_data").kind, OpKind::kCrossDevice);
  EXPECT_STREQ(classify_op("aten::ones").name, "aten::ones");
}

TEST(ClassifyOp, OpsThatTakeSomeArgumentsOnTheHostNameThem) {
  const OpInfo index = classify_op("aten::index");
  EXPECT_EQ(index.kind, OpKind::kHostArguments);
  EXPECT_TRUE(host_argument(index, "indices"));
  EXPECT_FALSE(host_argument(index, "self"));
  const OpInfo ctc = classify_op("aten::ctc_loss");
  EXPECT_TRUE(host_argument(ctc, "input_lengths"));
  EXPECT_TRUE(host_argument(ctc, "target_lengths"));
  EXPECT_FALSE(host_argument(ctc, "target"));
  EXPECT_TRUE(host_argument(classify_op("aten::_pack_padded_sequence"), "lengths"));
  EXPECT_TRUE(host_argument(classify_op("aten::lstm"), "batch_sizes"));
  EXPECT_FALSE(host_argument(classify_op("aten::add"), "self"));
  EXPECT_FALSE(crosses_devices(OpKind::kHostArguments));  // every other argument is checked
}

TEST(ClassifyOp, EverythingElseIsAPlainCheckedOp) {
  EXPECT_EQ(classify_op("aten::add").kind, OpKind::kPlain);
  EXPECT_EQ(classify_op("aten::ones_").kind, OpKind::kPlain);
  EXPECT_EQ(classify_op("aten::on").kind, OpKind::kPlain);
  EXPECT_EQ(classify_op("ones").kind, OpKind::kPlain);
  EXPECT_EQ(classify_op("").kind, OpKind::kPlain);
  EXPECT_EQ(classify_op(nullptr).kind, OpKind::kPlain);
  EXPECT_EQ(classify_op("nccl:all_reduce").kind, OpKind::kPlain);
}

TEST(ClassifyOp, OnlyDeviceCrossingKindsSkipTheCheck) {
  EXPECT_TRUE(crosses_devices(OpKind::kTransfer));
  EXPECT_TRUE(crosses_devices(OpKind::kCopy));
  EXPECT_TRUE(crosses_devices(OpKind::kCrossDevice));
  EXPECT_FALSE(crosses_devices(OpKind::kPlain));
  EXPECT_FALSE(crosses_devices(OpKind::kFactory));
  EXPECT_FALSE(crosses_devices(OpKind::kSync));
}

}  // namespace
}  // namespace devcheck::sanitizer

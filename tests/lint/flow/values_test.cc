// The flow's values (src/lint/flow/values.cc): what two ways through leave
// of a value, lists of values, and a scope's names after an `if`/`else`.
#include <gtest/gtest.h>

#include "lint/flow/flow.h"
#include "lint/flow/run.h"

namespace devcheck::lint::detail {
namespace {

Value tensor(Place place, Origin origin = Origin::kNone) {
  Value v;
  v.kind = Kind::kTensor;
  v.place = place;
  v.origin = origin;
  return v;
}

TEST(LintFlowValues, NothingYetTakesTheOtherWaysValue) {
  Value none;
  none.kind = Kind::kNone;
  const Value host = tensor(Place::kHost, Origin::kFactory);
  EXPECT_EQ(join(none, host).place, Place::kHost);
  EXPECT_EQ(join(host, none).origin, Origin::kFactory);
}

TEST(LintFlowValues, AKnownValueBeatsAnUnknownOne) {
  // `if h is None: h = torch.zeros(...)`: the host tensor is one the code meets.
  const Value host = tensor(Place::kHost, Origin::kFactory);
  const Value unknown;
  EXPECT_EQ(join(unknown, host).origin, Origin::kFactory);
  EXPECT_EQ(join(host, unknown).place, Place::kHost);
}

TEST(LintFlowValues, TwoPlacesGiveAnUnknownPlaceAndNoOrigin) {
  const Value joined = join(tensor(Place::kHost, Origin::kFactory), tensor(Place::kDevice));
  EXPECT_EQ(joined.kind, Kind::kTensor);
  EXPECT_EQ(joined.place, Place::kUnknown);
  EXPECT_EQ(joined.origin, Origin::kNone);
  // Two host tensors of one origin keep it.
  EXPECT_EQ(join(tensor(Place::kHost, Origin::kNumpy), tensor(Place::kHost, Origin::kNumpy)).origin,
            Origin::kNumpy);
}

TEST(LintFlowValues, ListsHoldTheirElementsAndAnEmptyOneTakesTheOthers) {
  const Value list = list_of(tensor(Place::kDevice));
  EXPECT_EQ(list.kind, Kind::kList);
  EXPECT_EQ(element_value(list).place, Place::kDevice);
  // A list of lists is, for what meets what, a list of what they hold.
  EXPECT_EQ(element_value(list_of(list)).place, Place::kDevice);
  Value empty;
  empty.kind = Kind::kList;
  empty.element = Kind::kNone;
  EXPECT_EQ(element_value(join(empty, list)).place, Place::kDevice);
  EXPECT_EQ(element_value(join(list, list_of(tensor(Place::kHost)))).place, Place::kUnknown);
}

TEST(LintFlowValues, MergedScopesJoinTheNamesBothHaveAndKeepTheOthers) {
  Env a;
  Env b;
  a.set("x", tensor(Place::kHost, Origin::kFactory));
  b.set("x", tensor(Place::kDevice));
  b.set("y", tensor(Place::kDevice));
  a.merge(b);
  ASSERT_NE(a.find("x"), nullptr);
  EXPECT_EQ(a.find("x")->place, Place::kUnknown);
  ASSERT_NE(a.find("y"), nullptr);
  EXPECT_EQ(a.find("y")->place, Place::kDevice);
}

// A may-join: a host tensor on one way through and a tensor of unknown
// place on the other is the host tensor the code meets when that way ran.
TEST(LintFlowValues, AHostTensorOnOneWayBeatsATensorOfUnknownPlace) {
  Value unknown_tensor;
  unknown_tensor.kind = Kind::kTensor;
  EXPECT_EQ(join(tensor(Place::kHost, Origin::kFactory), unknown_tensor).origin, Origin::kFactory);
  EXPECT_EQ(join(unknown_tensor, tensor(Place::kHost, Origin::kNumpy)).place, Place::kHost);
  // Not a host value of no known origin, and not a device tensor.
  EXPECT_EQ(join(tensor(Place::kHost), unknown_tensor).place, Place::kUnknown);
  EXPECT_EQ(join(tensor(Place::kDevice), unknown_tensor).place, Place::kUnknown);
  // Two host tensors of two origins are on the host either way: reported as
  // the first way made them.
  const Value two =
      join(tensor(Place::kHost, Origin::kHostCopy), tensor(Place::kHost, Origin::kFactory));
  EXPECT_EQ(two.place, Place::kHost);
  EXPECT_EQ(two.origin, Origin::kHostCopy);
  EXPECT_EQ(join(tensor(Place::kHost), tensor(Place::kHost, Origin::kFactory)).origin,
            Origin::kNone);
}

// Above a few dozen names an environment finds them through an index (a
// module of thousands of statements): the same answers as a scan, through
// sets, merges and copies.
TEST(LintFlowValues, ManyNamesAreFoundSetAndMergedAsFewAre) {
  std::vector<std::string> names;
  names.reserve(200);
  for (int i = 0; i < 200; ++i) names.push_back("x" + std::to_string(i));
  Env a;
  Env b;
  for (int i = 0; i < 100; ++i) a.set(names[i], tensor(Place::kHost, Origin::kFactory));
  for (int i = 50; i < 200; ++i) b.set(names[i], tensor(Place::kDevice));
  ASSERT_NE(a.find("x99"), nullptr);
  EXPECT_EQ(a.find("x100"), nullptr);
  a.set("x7", tensor(Place::kDevice));  // set again: one binding, the new value
  EXPECT_EQ(a.find("x7")->place, Place::kDevice);
  EXPECT_EQ(a.bindings().size(), 100U);
  const Env copy = a;
  a.merge(b);
  EXPECT_EQ(a.bindings().size(), 200U);
  EXPECT_EQ(a.find("x10")->place, Place::kHost);     // a's alone
  EXPECT_EQ(a.find("x60")->place, Place::kUnknown);  // both, disagreeing
  EXPECT_EQ(a.find("x150")->place, Place::kDevice);  // b's alone
  // The copy made before the merge has a's names then, found without an index.
  EXPECT_EQ(copy.bindings().size(), 100U);
  EXPECT_EQ(copy.find("x150"), nullptr);
  EXPECT_EQ(copy.find("x7")->place, Place::kDevice);
  Env moved = std::move(a);
  EXPECT_EQ(moved.find("x199")->place, Place::kDevice);
  // Assigned over a large environment with an index, a copy answers from
  // its own names; one moved from is empty, and grows again from nothing.
  moved = copy;
  EXPECT_EQ(moved.find("x150"), nullptr);
  EXPECT_EQ(moved.find("x7")->place, Place::kDevice);
  Env emptied = std::move(moved);
  EXPECT_EQ(moved.bindings().size(), 0U);  // NOLINT(bugprone-use-after-move)
  for (int i = 100; i < 150; ++i) moved.set(names[i], tensor(Place::kHost, Origin::kFactory));
  EXPECT_EQ(moved.find("x7"), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.find("x120")->place, Place::kHost);
  EXPECT_EQ(emptied.bindings().size(), 100U);
}

}  // namespace
}  // namespace devcheck::lint::detail

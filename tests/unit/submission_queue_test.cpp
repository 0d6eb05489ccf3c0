// Single-threaded behaviour of fj::submission_queue: empty queue, FIFO order across batches, the "was empty"
// result of push, and which types it accepts. Concurrent producers are in
// tests/stress/submission_queue_stress_test.cpp.

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "forkjoin/ext/submission_queue.hpp"

namespace {

using fj::submission_queue;

struct item {
  item* next = nullptr;
  int value = 0;
};

struct no_link {
  int value = 0;
};
struct wrong_link_type {
  void* next = nullptr;
};
struct atomic_link {
  std::atomic<atomic_link*> next{nullptr};
};

static_assert(fj::submission_item<item>);
static_assert(!fj::submission_item<no_link>, "an item must carry its own link");
static_assert(!fj::submission_item<wrong_link_type>, "the link must point to the item type");
static_assert(!fj::submission_item<atomic_link>, "the link is a plain pointer owned by the queue");
static_assert(!fj::submission_item<int>);

TEST(SubmissionQueue, NewQueueIsEmptyAndPopReturnsNull) {
  submission_queue<item> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_TRUE(q.empty());
}

TEST(SubmissionQueue, PopReturnsTheOnlyItemAndClearsItsLink) {
  submission_queue<item> q;
  item a;
  a.value = 7;
  (void)q.push(&a);
  EXPECT_FALSE(q.empty());
  item* got = q.pop();
  ASSERT_EQ(got, &a);
  EXPECT_EQ(got->next, nullptr);
  EXPECT_EQ(got->value, 7);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.pop(), nullptr);
}

TEST(SubmissionQueue, PopReturnsItemsInPushOrder) {
  std::vector<item> items(100);
  submission_queue<item> q;
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i].value = static_cast<int>(i);
    (void)q.push(&items[i]);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    item* got = q.pop();
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->value, static_cast<int>(i));
  }
  EXPECT_EQ(q.pop(), nullptr);
}

TEST(SubmissionQueue, OrderIsFirstInFirstOutAcrossInterleavedPushesAndPops) {
  std::vector<item> items(64);
  submission_queue<item> q;
  int next_push = 0;
  int next_pop = 0;
  // Pushes 3, pops 2, repeatedly: pops keep draining a batch while new pushes build the next one.
  while (next_pop < 64) {
    for (int k = 0; k < 3 && next_push < 64; ++k) {
      items[static_cast<std::size_t>(next_push)].value = next_push;
      (void)q.push(&items[static_cast<std::size_t>(next_push)]);
      ++next_push;
    }
    for (int k = 0; k < 2 && next_pop < next_push; ++k) {
      item* got = q.pop();
      ASSERT_NE(got, nullptr);
      EXPECT_EQ(got->value, next_pop);
      ++next_pop;
    }
  }
  EXPECT_TRUE(q.empty());
}

TEST(SubmissionQueue, PushReportsEmptyOnlyWhenItMakesTheSharedListNonEmpty) {
  item a;
  item b;
  item c;
  submission_queue<item> q;
  EXPECT_TRUE(q.push(&a));
  EXPECT_FALSE(q.push(&b));
  EXPECT_EQ(q.pop(), &a);  // takes the whole shared list (a, b) into the consumer's batch
  // The consumer still holds b, but the shared list is empty again: this pusher is the one told to wake it.
  EXPECT_TRUE(q.push(&c));
  EXPECT_EQ(q.pop(), &b);
  EXPECT_EQ(q.pop(), &c);
  EXPECT_TRUE(q.empty());
}

TEST(SubmissionQueue, EmptyIsFalseWhileTheConsumerBatchHoldsItems) {
  item a;
  item b;
  submission_queue<item> q;
  (void)q.push(&a);
  (void)q.push(&b);
  EXPECT_EQ(q.pop(), &a);
  EXPECT_FALSE(q.empty());
  EXPECT_EQ(q.pop(), &b);
  EXPECT_TRUE(q.empty());
}

TEST(SubmissionQueue, AnItemCanBePushedAgainAfterItWasPopped) {
  item a;
  submission_queue<item> q;
  for (int round = 0; round < 3; ++round) {
    EXPECT_TRUE(q.push(&a));
    EXPECT_EQ(q.pop(), &a);
    EXPECT_EQ(q.pop(), nullptr);
  }
}

}  // namespace

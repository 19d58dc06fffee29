// StepDetector: where a program's steps are, from the ranges it opens (docs/profile.md, "Steps").
#include <gtest/gtest.h>

#include "profiler/host/StepDetector.h"

namespace glueprof {
namespace {

TEST(StepDetectorTest, EachOptimizerStepEndsAStepAndTheNextBeginsThere) {
    StepDetector steps("", 1, 100);
    EXPECT_EQ(steps.currentStep(), 0);
    steps.rangeStarted("forward", 110);
    EXPECT_FALSE(steps.rangeEnded("forward", 120));
    steps.rangeStarted("Optimizer.step#AdamW.step", 130);
    const auto first = steps.rangeEnded("Optimizer.step#AdamW.step", 150);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->step, 0);
    EXPECT_EQ(first->startNs, 100);  // from the start of recording
    EXPECT_EQ(first->endNs, 150);
    EXPECT_TRUE(first->warmup);
    EXPECT_EQ(steps.currentStep(), 1);
    const auto second = steps.rangeEnded("Optimizer.step#AdamW.step", 190);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->step, 1);
    EXPECT_EQ(second->startNs, 150);
    EXPECT_FALSE(second->warmup);
    EXPECT_EQ(steps.source(), StepSource::kOptimizerStep);
    EXPECT_FALSE(steps.finish(300));  // work after the last step belongs to none
    EXPECT_EQ(steps.stepsFound(), 2);
}

TEST(StepDetectorTest, ProfilerStepsAreTheirOwnNumberAndDecideBeforeTheOptimizer) {
    StepDetector steps("", 0, 0);
    steps.rangeStarted("ProfilerStep#7", 10);
    EXPECT_EQ(steps.currentStep(), 7);
    EXPECT_FALSE(steps.rangeEnded("Optimizer.step#SGD.step", 20));  // inside: not a boundary now
    const auto step = steps.rangeEnded("ProfilerStep#7", 30);
    ASSERT_TRUE(step);
    EXPECT_EQ(step->step, 7);
    EXPECT_EQ(step->startNs, 10);
    EXPECT_FALSE(step->warmup);
    EXPECT_EQ(steps.currentStep(), kNoTag);  // between two profiler steps: no step
    EXPECT_EQ(steps.source(), StepSource::kProfilerStep);
}

TEST(StepDetectorTest, ANamedRangeIsTheStepAndNestedOnesOfTheSameNameAreNot) {
    StepDetector steps("train_step", 1, 0);
    EXPECT_EQ(steps.currentStep(), kNoTag);
    steps.rangeStarted("ProfilerStep#0", 1);  // ignored: the user chose the range
    steps.rangeStarted("train_step", 5);
    steps.rangeStarted("train_step", 6);
    EXPECT_FALSE(steps.rangeEnded("train_step", 7));
    EXPECT_FALSE(steps.rangeEnded("Optimizer.step#SGD.step", 8));
    const auto first = steps.rangeEnded("train_step", 9);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->step, 0);
    EXPECT_EQ(first->startNs, 5);
    steps.rangeStarted("train_step", 20);
    EXPECT_EQ(steps.currentStep(), 1);
    ASSERT_TRUE(steps.rangeEnded("train_step", 30));
    EXPECT_EQ(steps.source(), StepSource::kNamedRange);
}

TEST(StepDetectorTest, WithoutABoundaryTheWholeRunIsOneStep) {
    StepDetector steps("", 1, 40);
    steps.rangeStarted("forward", 50);
    steps.rangeEnded("forward", 60);
    const auto whole = steps.finish(90);
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->step, 0);
    EXPECT_EQ(whole->startNs, 40);
    EXPECT_EQ(whole->endNs, 90);
    EXPECT_FALSE(whole->warmup);  // the only step is measured
    EXPECT_EQ(steps.source(), StepSource::kWholeRun);
    EXPECT_FALSE(steps.finish(100));
}

TEST(StepDetectorTest, ProfilerStepNumbersAreReadStrictly) {
    EXPECT_EQ(StepDetector::profilerStepNumber("ProfilerStep#12"), 12);
    EXPECT_FALSE(StepDetector::profilerStepNumber("ProfilerStep#"));
    EXPECT_FALSE(StepDetector::profilerStepNumber("ProfilerStep#1a"));
    EXPECT_FALSE(StepDetector::profilerStepNumber("ProfilerStep#-1"));
    EXPECT_FALSE(StepDetector::profilerStepNumber("Step#1"));
    EXPECT_TRUE(StepDetector::isOptimizerStep("Optimizer.step#Adam.step"));
    EXPECT_FALSE(StepDetector::isOptimizerStep("Optimizer.zero_grad#Adam.zero_grad"));
}

}  // namespace
}  // namespace glueprof

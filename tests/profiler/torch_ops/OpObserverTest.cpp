#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <set>

#include "profiler/core/Error.h"
#include "profiler/core/TraceNames.h"
#include "profiler/core/TraceReader.h"
#include "profiler/host/ScopedRange.h"
#include "profiler/session/CaptureSession.h"
#include "profiler/torch_ops/HostRead.h"
#include "profiler/torch_ops/OpObserver.h"
#include "profiler/torch_ops/SyncOpTable.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/Presets.h"

namespace glueprof {
namespace {

class OpObserverTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_db = (std::filesystem::temp_directory_path() /
                (std::string("glueprof-observer-") +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                   .string();
        std::filesystem::remove(m_db);
        m_writer = std::make_unique<TraceWriter>(m_db);
        m_tracer = std::make_unique<HostTracer>(*m_writer);
        m_tracer->setRun(m_writer->beginRun(RunInfo{}));
    }
    void TearDown() override {
        m_tracer.reset();
        m_writer.reset();
        std::filesystem::remove(m_db);
    }
    std::int64_t count(Counter c) { return m_tracer->counters().value(c); }

    std::string m_db;
    std::unique_ptr<TraceWriter> m_writer;
    std::unique_ptr<HostTracer> m_tracer;
};

TEST_F(OpObserverTest, ItemIsOneSyncAndOneHostReadThoughItNestsLocalScalarDense) {
    torch::Tensor t = torch::ones({4});
    {
        OpObserver observer(*m_tracer);
        ScopedRange step(m_tracer.get(), "step", Category::kPhase, Tags{7, kNoTag, kNoTag});
        (void)t.sum().item<float>();
    }
    EXPECT_EQ(count(Counter::kWouldSyncOps), 1);
    EXPECT_EQ(count(Counter::kHostReads), 1);
    EXPECT_EQ(count(Counter::kOpsDispatched), 2);  // sum, item (the nested ops are not counted)

    m_writer->flush();
    TraceModel model = TraceReader(m_db).loadRun(m_tracer->run());
    int flaggedItems = 0, nestedScalars = 0;
    for (const Event& e : model.eventsOnLane(0)) {
        if (model.name(e.name) == "aten::item" && (e.flags & kFlagWouldSync) && e.step == 7)
            ++flaggedItems;
        if (model.name(e.name) == "aten::_local_scalar_dense" && (e.flags & kFlagNested) &&
            !(e.flags & kFlagWouldSync)) {
            ++nestedScalars;
        }
    }
    EXPECT_EQ(flaggedItems, 1);
    EXPECT_EQ(nestedScalars, 1);
}

TEST_F(OpObserverTest, NonzeroIsASyncButNotAHostReadAndCopyToHostIsBoth) {
    torch::Tensor t = torch::arange(6);
    {
        OpObserver observer(*m_tracer);
        (void)torch::nonzero(t > 2);
        (void)copyToHost(t);
    }
    EXPECT_EQ(count(Counter::kWouldSyncOps), 2);
    EXPECT_EQ(count(Counter::kHostReads), 1);
}

// Routing host reads are what blocks inside a moe_routing range, counted by the observer: bincount
// (its output size is read) and the counts' copy inside it are two; the same ops outside are none.
TEST_F(OpObserverTest, RoutingHostReadsAreTheSyncPointsInsideTheRoutingRange) {
    torch::Tensor experts = torch::tensor({2, 0, 1, 2}, torch::kLong);
    {
        OpObserver observer(*m_tracer);
        {
            ScopedRange routing(m_tracer.get(), names::kMoeRouting, Category::kGlue);
            (void)copyToHost(torch::bincount(experts, {}, 3));
        }
        (void)copyToHost(torch::bincount(experts, {}, 3));  // outside: a sync point, not routing
    }
    EXPECT_EQ(count(Counter::kRoutingHostReads), 2);
    EXPECT_EQ(count(Counter::kWouldSyncOps), 4);
}

// Boolean-mask indexing has a data-dependent output size: aten::index runs nonzero underneath,
// which the table lists, so it is one sync point with no entry of its own.
TEST_F(OpObserverTest, BooleanMaskIndexingIsASyncPointThroughItsNonzero) {
    torch::Tensor t = torch::arange(6);
    {
        OpObserver observer(*m_tracer);
        (void)t.index({t > 2});
    }
    EXPECT_EQ(count(Counter::kWouldSyncOps), 1);
}

TEST_F(OpObserverTest, NothingIsRecordedOnceTheObserverIsGone) {
    { OpObserver observer(*m_tracer); }
    (void)torch::ones({2}).sum().item<float>();
    EXPECT_EQ(count(Counter::kOpsDispatched), 0);
}

TEST_F(OpObserverTest, ASecondActiveObserverIsRefused) {
    OpObserver first(*m_tracer);
    EXPECT_THROW(OpObserver second(*m_tracer), GlueprofError);
}

// A real trainer run through the capture session: every op event carries its own non-zero
// RecordFunction handle, the id CUPTI's external correlation ties its kernels to.
TEST(OpObserverCorrelationTest, EveryOpOfATrainerRunHasAUniqueNonZeroCorrelationId) {
    const std::string db =
        (std::filesystem::temp_directory_path() / "glueprof-observer-correlation.sqlite").string();
    std::filesystem::remove(db);
    RunId run = 0;
    {
        CaptureSession session(db, "cpu");
        run = runSingle(presetConfig("tiny"), {}, 0, 1, session);
        session.close();
    }
    const TraceModel model = TraceReader(db).loadRun(run);
    std::set<std::int64_t> ids;
    std::size_t ops = 0;
    for (std::size_t lane = 0; lane < model.lanes().size(); ++lane) {
        for (const Event& e : model.eventsOnLane(lane)) {
            if (e.kind != EventKind::kOp) continue;
            ++ops;
            EXPECT_NE(e.correlation, 0) << model.name(e.name);
            ids.insert(e.correlation);
        }
    }
    EXPECT_GT(ops, 100u);
    EXPECT_EQ(ids.size(), ops);  // unique per op
    std::filesystem::remove(db);
}

TEST(SyncOpTableTest, ClassifiesTheTableAndNothingElse) {
    EXPECT_EQ(classifySyncOp("aten::item"), SyncKind::kHostRead);
    EXPECT_EQ(classifySyncOp("aten::nonzero"), SyncKind::kOutputSize);
    EXPECT_EQ(classifySyncOp("aten::bincount"), SyncKind::kOutputSize);
    EXPECT_EQ(classifySyncOp(kHostReadOpName), SyncKind::kDeviceToHost);
    EXPECT_EQ(classifySyncOp("aten::mm"), SyncKind::kNone);
    EXPECT_EQ(classifySyncOp("aten::where"),
              SyncKind::kNone);  // three-argument where does not sync
}

}  // namespace
}  // namespace glueprof

// glueprof's own Chrome export read back by `glueprof import`: the same events, tags and flags.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "app/report/ChromeTrace.h"
#include "profiler/import/TraceImporter.h"

namespace glueprof {
namespace {

using Key = std::tuple<int, std::string, TimestampNs, TimestampNs, int, int, int, int, std::int64_t,
                       std::int64_t, int, int, std::uint32_t>;

std::multiset<Key> eventsOf(const TraceModel& t) {
    std::multiset<Key> keys;
    for (std::size_t i = 0; i < t.lanes().size(); ++i) {
        for (const Event& e : t.eventsOnLane(i)) {
            keys.insert(Key{static_cast<int>(e.kind), t.name(e.name), e.startNs, e.endNs, e.step,
                            e.layer, e.microbatch, static_cast<int>(e.category), e.correlation,
                            e.bytes, static_cast<int>(e.srcKind), static_cast<int>(e.dstKind),
                            e.flags});
        }
    }
    return keys;
}

TEST(ChromeRoundTrip, ImportOfTheExportGivesTheSameEvents) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "host thread 42", -1, 42);
    const std::size_t stream = b.addLane(LaneKind::kCudaStream, "GPU 0 stream 7", 0, 7);
    const TimestampNs t0 = 1'700'000'000'123'456'789;
    b.addEvent(host, EventKind::kRange, Category::kPhase, "step", t0, t0 + 9000, 0);
    b.addEvent(host, EventKind::kRange, Category::kGlue, "build_packed_mask", t0 + 10, t0 + 900, 0,
               3);
    Event& op =
        b.addEvent(host, EventKind::kOp, Category::kGlue, "aten::nonzero", t0 + 20, t0 + 800, 0, 3);
    op.flags = kFlagWouldSync | kFlagHostRead;
    op.correlation = 5;
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", t0 + 30, t0 + 40, 0)
        .correlation = 11;
    b.addEvent(host, EventKind::kSync, Category::kSync, "blocking DtoH copy", t0 + 100, t0 + 700, 0,
               3)
        .correlation = 12;
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", t0 + 1000, t0 + 1000, 0).flags =
        kFlagNested;  // zero length
    b.addEvent(stream, EventKind::kKernel, Category::kGlue, "nonzero_kernel", t0 + 50, t0 + 90, 0,
               3)
        .correlation = 11;
    Event& copy = b.addEvent(stream, EventKind::kMemcpy, Category::kCopy, "memcpy DtoH", t0 + 95,
                             t0 + 690, 0, 3);
    copy.bytes = 8;
    copy.srcKind = MemoryKind::kDevice;
    copy.dstKind = MemoryKind::kPageable;
    copy.correlation = 12;
    b.addEvent(stream, EventKind::kMarker, Category::kSync, "cudaStreamWaitEvent", t0 + 60, t0 + 60,
               0);
    b.addStep(StepInfo{0, t0, t0 + 9000, false, 1, 0.0, 0});
    const TraceModel original = std::move(b).build();

    const std::string path =
        (std::filesystem::temp_directory_path() / "glueprof-roundtrip.json").string();
    {
        std::ofstream out(path);
        writeChromeTrace(original, out);
    }
    const ImportedRun imported = readTrace(path, ImportOptions{});
    std::filesystem::remove(path);
    EXPECT_EQ(imported.format, "glueprof Chrome export");
    EXPECT_EQ(eventsOf(imported.model), eventsOf(original));
    ASSERT_EQ(imported.model.steps().size(), 1u);
    EXPECT_EQ(imported.model.steps()[0].startNs, t0);
    EXPECT_EQ(imported.model.steps()[0].endNs, t0 + 9000);
}

}  // namespace
}  // namespace glueprof

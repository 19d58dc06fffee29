// The GUI without a display: every panel drawn for several frames in a headless ImGui context over
// a real database (two runs written through the store), failing on any ImGui error; a foreign file
// opens to a clear message, not a crash; the view state round-trips.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdarg>
#include <filesystem>
#include <fstream>
#include <thread>

#include "app/gui/App.h"
#include "app/gui/Fonts.h"
#include "app/gui/Script.h"
#include "app/gui/SettingsStore.h"
#include "profiler/core/TraceWriter.h"
#include "reference_trainer/ScheduleBounds.h"

namespace glueprof::gui {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> g_imguiErrors;

void recordImguiError(void*, const char* format, ...) {
    char text[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    g_imguiErrors.emplace_back(text);
}

class HeadlessImgui {
  public:
    HeadlessImgui() {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(1600, 1000);
        io.DeltaTime = 1.0F / 60.0F;
        io.IniFilename = nullptr;
        unsigned char* pixels = nullptr;
        int width = 0;
        int height = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
    }
    ~HeadlessImgui() { ImGui::DestroyContext(); }
    void frame(App& app) {
        ImGui::NewFrame();
        app.frame();
        ImGui::ErrorCheckEndFrameRecover(recordImguiError);
        ImGui::Render();
    }
};

// The two arms of an A/B as `glueprof ab` records them (one A/B group, baseline and optimized arms
// of packed_cache), each with 3 steps of ranges, ops and a copy. With `ranks` > 1 as `ab --nproc`
// merges them: each arm once per rank, one group, each step with a collective (numbered alike on
// every rank) that rank r starts 20r ns late.
std::string writeAbDatabase(const fs::path& dir, int ranks = 1) {
    const std::string db = (dir / "gui.sqlite").string();
    TraceWriter writer(db);
    RunId group = kStartsAbGroup;
    for (Arm arm : {Arm::kBaseline, Arm::kOptimized}) {
        for (int rank = 0; rank < ranks; ++rank) {
            RunInfo info;
            info.label = std::string("packed_cache:") + toString(arm);
            info.preset = "tiny";
            info.device = "cpu";
            info.identity.abGroup = group;
            info.identity.arm = arm;
            info.identity.toggle = "packed_cache";
            if (ranks > 1) {
                info.identity.rank = rank;
                info.identity.worldSize = ranks;
            }
            const RunId run = writer.beginRun(info);
            group = group == kStartsAbGroup ? run : group;
            const LaneId host = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
            const LaneId copy = writer.addLane(run, LaneKind::kCopyStream, "copy engine", -1, 2);
            const LaneId workers[] = {
                writer.addLane(run, LaneKind::kSimulatedWorker, "worker 0", 0, 0),
                writer.addLane(run, LaneKind::kSimulatedWorker, "worker 1", 1, 1)};
            for (std::int32_t step = 0; step < 3; ++step) {
                const TimestampNs t = step * 1000;
                auto add = [&](LaneId lane, EventKind kind, Category category, const char* name,
                               TimestampNs start, TimestampNs end, std::uint32_t flags) {
                    Event e;
                    e.run = run;
                    e.lane = lane;
                    e.kind = kind;
                    e.category = category;
                    e.name = writer.intern(name);
                    e.startNs = t + start;
                    e.endNs = t + end;
                    e.step = step;
                    e.layer = 0;
                    e.flags = flags;
                    writer.record(e);
                };
                add(host, EventKind::kRange, Category::kPhase, "step", 0, 900, 0);
                add(host, EventKind::kRange, Category::kGlue, "build_packed_mask", 10, 100, 0);
                add(host, EventKind::kOp, Category::kGlue, "aten::item", 20, 30,
                    kFlagWouldSync | kFlagHostRead);
                add(host, EventKind::kOp, Category::kMath, "aten::mm", 200, 800, 0);
                add(copy, EventKind::kMemcpy, Category::kCopy, "reload", 300, 400, 0);
                if (ranks > 1) {
                    Event all;
                    all.run = run;
                    all.lane = host;
                    all.kind = EventKind::kRange;
                    all.category = Category::kComm;
                    all.name = writer.intern("all_reduce");
                    all.startNs = t + 820 + 20 * rank;
                    all.endNs = t + 880;
                    all.step = step;
                    all.correlation = step + 1;
                    writer.record(all);
                }
                for (LaneId worker : workers) {  // a two-worker pipeline, so the Gantt draws too
                    add(worker, EventKind::kRange, Category::kPhase, "forward",
                        100 + 50 * (worker - workers[0]), 300, 0);
                    add(worker, EventKind::kRange, Category::kPhase, "backward", 400,
                        700 - 100 * (worker - workers[0]), 0);
                }
                writer.recordStep(StepRecord{
                    run, StepInfo{step, t, t + 900, step == 0, step == 0 ? 0 : 1, 1.5, 128}});
            }
            writer.endRun(run, RunStatus::kComplete);
        }
    }
    writer.close();
    return db;
}

// Until the background analysis has finished, however long a loaded machine takes (ctest's
// timeout bounds it): the tests assert what it produced, not how fast.
void waitForAnalysis(Workspace& workspace) {
    while (workspace.loading()) {
        workspace.poll();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    workspace.poll();
}

class GuiSmokeTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() / ("glueprof-gui-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
        g_imguiErrors.clear();
    }
    void TearDown() override { fs::remove_all(m_dir); }
    fs::path m_dir;
};

TEST_F(GuiSmokeTest, EveryPanelDrawsFramesOverARealDatabaseWithoutImguiErrors) {
    HeadlessImgui imgui;
    App app;
    ASSERT_TRUE(app.workspace().open(writeAbDatabase(m_dir)));
    for (const auto& panel : app.panels()) app.view().panelOpen[panel->name()] = true;
    app.view().highlightName = "build_packed_mask";  // the step diff's outline draws too
    imgui.frame(app);                                // while loading
    waitForAnalysis(app.workspace());
    ASSERT_NE(app.workspace().results(), nullptr);
    for (int i = 0; i < 5; ++i) imgui.frame(app);
    EXPECT_TRUE(g_imguiErrors.empty()) << g_imguiErrors.front();

    const nlohmann::json state = nlohmann::json::parse(app.dumpState());
    EXPECT_EQ(state["selected"]["baseline"], 1);  // the newest A/B pair, selected on open
    EXPECT_EQ(state["selected"]["optimized"], 2);
    EXPECT_EQ(state["open_panels"].size(), app.panels().size());
    EXPECT_EQ(state["dashboard"]["runs"].size(), 2u);
    EXPECT_TRUE(state["dashboard"]["comparisons"][0]["loss_equal"].get<bool>());
    EXPECT_TRUE(state["errors"].empty());
    EXPECT_EQ(state["dashboard"]["runs"][0]["bubbles"]["workers"], 2);
}

// A rank of a data-parallel A/B brings the other ranks: the Ranks tab draws both arms' ranks and
// the results model compares them rank by rank.
TEST_F(GuiSmokeTest, ARankOfADataParallelAbBringsItsRanksToTheRanksPanel) {
    HeadlessImgui imgui;
    App app;
    ASSERT_TRUE(app.workspace().open(writeAbDatabase(m_dir, 2)));
    app.view().panelOpen["Ranks"] = true;
    app.view().selectTab = "Ranks";
    waitForAnalysis(app.workspace());
    ASSERT_NE(app.workspace().results(), nullptr);
    const auto& ranks = app.workspace().rankTraces();
    ASSERT_EQ(ranks.size(), 2u);  // baseline and optimized, each with both ranks
    for (const auto& arm : ranks) {
        ASSERT_EQ(arm.size(), 2u);
        EXPECT_EQ(arm[0]->run().identity.rank, 0);
        EXPECT_EQ(arm[1]->run().identity.rank, 1);
    }
    for (int arm : {0, 1}) {
        app.view().ranksArm = arm;
        for (int i = 0; i < 3; ++i) imgui.frame(app);
    }
    EXPECT_TRUE(g_imguiErrors.empty()) << g_imguiErrors.front();
    const nlohmann::json state = nlohmann::json::parse(app.dumpState());
    EXPECT_EQ(state["selected"]["baseline"], 1);  // rank 0's pair names the A/B
    EXPECT_EQ(state["selected"]["optimized"], 3);
    EXPECT_EQ(state["dashboard"]["rank_sets"].size(), 2u);
    ASSERT_EQ(state["dashboard"]["comparisons"][0]["ranks"]["per_rank"].size(), 2u);
    // Rank 1 starts every collective 20 ns after rank 0.
    EXPECT_DOUBLE_EQ(
        state["dashboard"]["comparisons"][0]["ranks"]["baseline"]["median_straggler_ms"]
            .get<double>(),
        20e-6);
}

// Cancelling a load returns at once (the loader is reaped later) and a new selection still loads.
TEST_F(GuiSmokeTest, ACancelledLoadIsDroppedAndTheNextOneLoads) {
    Log log;
    Workspace workspace(log);
    ASSERT_TRUE(workspace.open(writeAbDatabase(m_dir)));
    ASSERT_TRUE(workspace.loading());
    workspace.cancel();
    EXPECT_FALSE(workspace.loading());
    EXPECT_EQ(workspace.results(), nullptr);
    workspace.select(2, 0);
    workspace.waitForLoad();  // finished, not yet taken in: the progress says so
    EXPECT_FLOAT_EQ(workspace.progress().fraction, 1.0F);
    EXPECT_STREQ(workspace.progress().stage, "done");
    waitForAnalysis(workspace);
    ASSERT_NE(workspace.results(), nullptr);
    EXPECT_EQ(workspace.traces().size(), 1u);
    EXPECT_EQ(workspace.traces()[0].run().id, 2);
    bool said = false;
    for (const LogEntry& e : log.entries()) said = said || e.text == "loading cancelled";
    EXPECT_TRUE(said);
}

TEST_F(GuiSmokeTest, AForeignFileOpensToAClearMessageNotACrash) {
    HeadlessImgui imgui;
    App app;
    const fs::path notes = m_dir / "notes.txt";
    std::ofstream(notes) << "not a database\n";
    EXPECT_FALSE(app.workspace().open(notes.string()));
    imgui.frame(app);  // the toast and the log panel draw
    const nlohmann::json state = nlohmann::json::parse(app.dumpState());
    ASSERT_EQ(state["errors"].size(), 1u);
    EXPECT_NE(state["errors"][0].get<std::string>().find("cannot open"), std::string::npos);
    EXPECT_TRUE(g_imguiErrors.empty());
}

// The error check the smoke test relies on does fire: a window left open is reported.
TEST_F(GuiSmokeTest, TheImguiErrorCheckCatchesAMissingEnd) {
    HeadlessImgui imgui;
    ImGui::NewFrame();
    ImGui::Begin("left open");
    ImGui::ErrorCheckEndFrameRecover(recordImguiError);
    ImGui::Render();
    EXPECT_FALSE(g_imguiErrors.empty());
}

TEST(FrameStatsTest, MedianP95AndMaxOverTheLastFrames) {
    FrameStats stats;
    EXPECT_EQ(stats.summary().frames, 0u);
    for (int i = 1; i <= 100; ++i) stats.record(i);
    FrameSummary s = stats.summary();
    EXPECT_EQ(s.frames, 100u);
    EXPECT_DOUBLE_EQ(s.medianMs, 50.0);  // sorted[49]
    EXPECT_DOUBLE_EQ(s.p95Ms, 95.0);     // sorted[94]
    EXPECT_DOUBLE_EQ(s.maxMs, 100.0);
    for (int i = 0; i < 600; ++i) stats.record(1.0);  // the window keeps the last 600
    EXPECT_DOUBLE_EQ(stats.summary().maxMs, 1.0);
}

// A file that is not a font is refused with a message naming it (ImGui would assert on it), and the
// next candidate, Debian's DejaVu Sans, is loaded and rasterizes.
TEST_F(GuiSmokeTest, AFontThatIsNotAFontIsRefusedAndTheNextOneLoads) {
    const fs::path bogus = m_dir / "bogus.ttf";
    std::ofstream(bogus) << "not a font";
    ::setenv("GLUEPROF_FONT", bogus.c_str(), 1);
    EXPECT_EQ(fontCandidates().front(), bogus.string());
    ImGui::CreateContext();
    Log log;
    const std::string used = loadDefaultFont(16.0F, log);
    ::unsetenv("GLUEPROF_FONT");
    unsigned char* pixels = nullptr;
    int width = 0;
    int height = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
    const bool dejavu = fs::exists("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    const float size =
        ImGui::GetIO().FontDefault != nullptr ? ImGui::GetIO().FontDefault->FontSize : 0.0F;
    ImGui::DestroyContext();
    const std::vector<LogEntry> entries = log.entries();
    ASSERT_FALSE(entries.empty());
    EXPECT_EQ(entries.front().level, LogEntry::Level::kError);
    EXPECT_NE(entries.front().text.find("bogus.ttf is not a TrueType"), std::string::npos);
    if (dejavu) {  // scripts/bootstrap.sh installs it
        EXPECT_EQ(used, "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
        EXPECT_FLOAT_EQ(size, 16.0F);
        EXPECT_GT(width, 0);
    } else {
        EXPECT_EQ(used, "");
    }
}

TEST(ViewStateTest, RoundTripsAndToleratesGarbage) {
    ViewState v;
    v.panelOpen["Log"] = false;
    v.pathField = "/tmp/a.sqlite";
    for (int i = 0; i < 10; ++i) v.rememberDatabase("/tmp/" + std::to_string(i) + ".sqlite");
    v.rememberDatabase("/tmp/3.sqlite");
    EXPECT_EQ(v.recentDatabases.size(), 8u);
    EXPECT_EQ(v.recentDatabases.front(), "/tmp/3.sqlite");
    ViewState back = ViewState::fromJson(v.toJson());
    EXPECT_FALSE(back.panelOpen.at("Log"));
    EXPECT_EQ(back.pathField, v.pathField);
    EXPECT_EQ(back.recentDatabases, v.recentDatabases);
    EXPECT_TRUE(ViewState::fromJson("{not json").recentDatabases.empty());
}

// Issue 28, item 5: a settings directory that cannot be created (a plain file in the way) is no
// reason to stop: nothing is saved, the reason is one line, and nothing throws.
TEST_F(GuiSmokeTest, SettingsInAPlaceThatCannotBeWrittenAreNotSavedAndSayWhy) {
    std::ofstream(m_dir / "plain-file") << "not a directory";
    const SettingsStore blocked(m_dir / "plain-file" / "glueprof");
    EXPECT_FALSE(blocked.writable());
    EXPECT_NE(blocked.problem().find("will not be saved"), std::string::npos) << blocked.problem();
    EXPECT_NE(blocked.problem().find("plain-file"), std::string::npos) << blocked.problem();
    EXPECT_EQ(blocked.problem().find('\n'), std::string::npos);
    EXPECT_FALSE(blocked.saveView("{}"));
    EXPECT_EQ(blocked.loadView(), "");

    const SettingsStore usable(m_dir / "config" / "glueprof");  // created on the way
    ASSERT_TRUE(usable.writable()) << usable.problem();
    EXPECT_TRUE(usable.saveView(ViewState{}.toJson()));
    EXPECT_EQ(usable.loadView(), ViewState{}.toJson() + "\n");
    EXPECT_EQ(usable.iniPath(), (m_dir / "config" / "glueprof" / "imgui.ini").string());
}

// Issue 28, item 21: the script's `run` takes the CLI's bounds (ScheduleBounds.h); a line outside
// them is a bad line and starts nothing.
TEST_F(GuiSmokeTest, AScriptRunOutsideTheCliBoundsIsABadLineAndStartsNothing) {
    HeadlessImgui imgui;
    App app;
    for (const char* line : {"run tiny packed_cache 999999999 0 1", "run tiny packed_cache 1 -1 1",
                             "run tiny packed_cache 1 1 1001", "run tiny packed_cache 1 1x 1"}) {
        Script script({line});
        script.stopAtFirstError();
        EXPECT_FALSE(script.step(app)) << line;
        EXPECT_EQ(script.errors(), 1u) << line;
        EXPECT_FALSE(app.runner().running()) << line;
    }
    RunRequest tooMany;
    tooMany.toggles = {"packed_cache"};
    tooMany.steps = kStepsBound.max + 1;
    EXPECT_FALSE(app.runner().start(tooMany));  // the panel's way in is bounded too
    EXPECT_FALSE(app.runner().running());
}

}  // namespace
}  // namespace glueprof::gui

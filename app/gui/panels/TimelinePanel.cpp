// Timeline: every lane of the selected runs (host threads, copy engine / streams, workers), A above B,
// aligned at a chosen step, with one zoom for both. Mouse wheel zooms around the cursor, drag pans,
// keys: W/S zoom, A/D pan, Home shows the aligned step. Spans under 3 px fold into boxes with a count
// (TimelineLod); sync points are red markers; hover shows an event, click selects it.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/gui/Panel.h"
#include "app/gui/widgets/Charts.h"
#include "app/report/Palette.h"

namespace glueprof::gui {

namespace {

constexpr float kRowHeight = 16.0F;
constexpr float kLaneGap = 6.0F;
constexpr float kNameWidth = 170.0F;
constexpr float kMinPixels = 3.0F;

std::uint32_t eventColour(const Event& e) {
    switch (e.category) {
        case Category::kMath: return partColour(GluePart::kMath);
        case Category::kGlue: return partColour(GluePart::kGlue);
        case Category::kOptimizer: return partColour(GluePart::kOptimizer);
        case Category::kData: return partColour(GluePart::kData);
        case Category::kPipeline: return partColour(GluePart::kPipeline);
        case Category::kCopy: return partColour(GluePart::kCopy);
        case Category::kSync: return partColour(GluePart::kSyncWait);
        case Category::kPhase: return 0x5A5A66;
        case Category::kNone: break;
    }
    return 0x808080;
}

// The start of the step runs are aligned at, per trace.
TimestampNs alignmentOf(const TraceModel& trace, int step) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    const std::int32_t wanted = step >= 0 ? step : (measured.empty() ? 0 : *measured.begin());
    for (const StepInfo& s : trace.steps()) {
        if (s.step == wanted) return s.startNs;
    }
    return trace.steps().empty() ? 0 : trace.steps().front().startNs;
}

TimestampNs stepLength(const TraceModel& trace, int step) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    const std::int32_t wanted = step >= 0 ? step : (measured.empty() ? 0 : *measured.begin());
    for (const StepInfo& s : trace.steps()) {
        if (s.step == wanted) return s.endNs - s.startNs;
    }
    return 1000000;
}

class TimelinePanel : public Panel {
public:
    const char* name() const override { return "Timeline"; }
    Placement defaultPlacement() const override { return {0.34F, 0.55F, 0.66F, 0.45F}; }

    void draw(PanelContext& c) override {
        const std::vector<TraceModel>& traces = c.workspace.traces();
        const std::vector<TimelineIndex>& timelines = c.workspace.timelines();
        if (traces.empty() || timelines.size() != traces.size()) {
            ImGui::TextUnformatted(c.workspace.loading() ? "Loading..." : "Select runs in the Runs panel.");
            return;
        }
        ViewState& v = c.view;
        ImGui::SetNextItemWidth(120.0F);
        ImGui::InputInt("align at step (-1 = first measured)", &v.alignStep);
        ImGui::SameLine();
        if (ImGui::Button("Home") || v.timelineToNs <= v.timelineFromNs) home(traces.front(), v);
        ImGui::SameLine();
        ImGui::TextDisabled("wheel: zoom  drag: pan  W/S A/D Home");

        const ImVec2 origin = ImGui::GetCursorScreenPos();
        const float width = std::max(100.0F, ImGui::GetContentRegionAvail().x - kNameWidth);
        float height = 0.0F;
        for (const TimelineIndex& index : timelines) {
            for (const LodLane& lane : index.lanes) height += kRowHeight * static_cast<float>(lane.levels.size()) + kLaneGap;
            height += kLaneGap * 2;
        }
        ImGui::InvisibleButton("canvas", ImVec2(width + kNameWidth, std::max(height, 50.0F)));
        const bool hovered = ImGui::IsItemHovered();
        handleInput(v, hovered, origin.x + kNameWidth, width);

        ImDrawList* draw = ImGui::GetWindowDrawList();
        const double from = v.timelineFromNs;
        const double to = v.timelineToNs;
        float y = origin.y;
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const Event* hoveredEvent = nullptr;
        std::string hoveredLabel;
        for (std::size_t t = 0; t < traces.size(); ++t) {
            const TraceModel& trace = traces[t];
            const TimestampNs align = alignmentOf(trace, v.alignStep);
            const char* arm = traces.size() == 2 ? (t == 0 ? "A" : "B") : "";
            visibleItems(timelines[t], align + static_cast<TimestampNs>(from), align + static_cast<TimestampNs>(to), width,
                         kMinPixels, m_items);
            std::vector<float> laneTop(timelines[t].lanes.size());
            for (std::size_t l = 0; l < timelines[t].lanes.size(); ++l) {
                laneTop[l] = y;
                const Lane& lane = trace.lanes()[timelines[t].lanes[l].laneIndex];
                draw->AddText(ImVec2(origin.x, y), ImGui::GetColorU32(ImGuiCol_Text),
                              fmt::format("{} {}", arm, lane.name).c_str());
                y += kRowHeight * static_cast<float>(timelines[t].lanes[l].levels.size()) + kLaneGap;
            }
            y += kLaneGap * 2;
            for (const DrawItem& item : m_items) {
                const LodLane& lane = timelines[t].lanes[item.lane];
                const ImVec2 a(origin.x + kNameWidth + std::max(item.x0, 0.0F), laneTop[item.lane] + kRowHeight * item.depth);
                const ImVec2 b(origin.x + kNameWidth + std::min(item.x1, width), a.y + kRowHeight - 1.0F);
                if (b.x <= a.x) continue;
                if (item.event < 0) {  // a folded box
                    draw->AddRectFilled(a, b, imColour(0x8C8C8C, 0.8F));
                    if (hovered && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
                        hoveredLabel = fmt::format("{} events folded (zoom in)", item.count);
                    }
                    continue;
                }
                const Event& e = trace.eventsOnLane(lane.laneIndex)[static_cast<std::size_t>(item.event)];
                const bool selected = static_cast<int>(t) == v.selectedTrace && static_cast<int>(lane.laneIndex) == v.selectedLane &&
                                      item.event == v.selectedEvent;
                draw->AddRectFilled(a, b, imColour(eventColour(e)));
                if (selected) draw->AddRect(a, b, IM_COL32(255, 255, 255, 255), 0.0F, 0, 2.0F);
                if ((e.flags & kFlagWouldSync) != 0) {
                    draw->AddTriangleFilled(ImVec2(a.x, a.y), ImVec2(a.x + 5, a.y), ImVec2(a.x, a.y + 5), imColour(kSyncColour));
                }
                if (b.x - a.x > 40.0F) {
                    const std::string& label = trace.name(e.name);
                    draw->PushClipRect(a, b, true);
                    draw->AddText(ImVec2(a.x + 2, a.y), IM_COL32(255, 255, 255, 230), label.c_str());
                    draw->PopClipRect();
                }
                if (hovered && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
                    hoveredEvent = &e;
                    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
                        v.selectedTrace = static_cast<int>(t);
                        v.selectedLane = static_cast<int>(lane.laneIndex);
                        v.selectedEvent = item.event;
                    }
                    hoveredLabel = describe(trace, e);
                }
            }
        }
        if (!hoveredLabel.empty()) ImGui::SetTooltip("%s", hoveredLabel.c_str());
        (void)hoveredEvent;
        showSelection(traces, v);
    }

private:
    static void home(const TraceModel& trace, ViewState& v) {
        v.timelineFromNs = 0.0;
        v.timelineToNs = static_cast<double>(stepLength(trace, v.alignStep));
    }

    static void handleInput(ViewState& v, bool hovered, float left, float width) {
        const ImGuiIO& io = ImGui::GetIO();
        const double span = v.timelineToNs - v.timelineFromNs;
        auto zoom = [&](double factor, double anchorFraction) {
            const double anchor = v.timelineFromNs + span * anchorFraction;
            v.timelineFromNs = anchor - (anchor - v.timelineFromNs) * factor;
            v.timelineToNs = anchor + (v.timelineToNs - anchor) * factor;
            if (v.timelineToNs - v.timelineFromNs < 100.0) v.timelineToNs = v.timelineFromNs + 100.0;  // 100 ns at most zoom
        };
        if (hovered && io.MouseWheel != 0.0F) {
            const double fraction = std::clamp((io.MousePos.x - left) / width, 0.0F, 1.0F);
            zoom(std::pow(0.8, io.MouseWheel), fraction);
        }
        if (hovered && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
            const double shift = -static_cast<double>(io.MouseDelta.x) / width * span;
            v.timelineFromNs += shift;
            v.timelineToNs += shift;
        }
        if (ImGui::IsWindowFocused()) {
            if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) v.timelineToNs = v.timelineFromNs;  // re-home next frame
            if (ImGui::IsKeyDown(static_cast<int>('W'))) zoom(0.95, 0.5);
            if (ImGui::IsKeyDown(static_cast<int>('S'))) zoom(1.05, 0.5);
            if (ImGui::IsKeyDown(static_cast<int>('A'))) {
                v.timelineFromNs -= span * 0.02;
                v.timelineToNs -= span * 0.02;
            }
            if (ImGui::IsKeyDown(static_cast<int>('D'))) {
                v.timelineFromNs += span * 0.02;
                v.timelineToNs += span * 0.02;
            }
        }
    }

    static std::string describe(const TraceModel& trace, const Event& e) {
        std::string text = fmt::format("{}\n{} / {}, {:.3f} ms\nstep {}  layer {}  micro-batch {}", trace.name(e.name),
                                       toString(e.kind), toString(e.category), static_cast<double>(e.durationNs()) / 1e6,
                                       e.step, e.layer, e.microbatch);
        if (e.bytes != 0) text += fmt::format("\n{} bytes, {} -> {}", e.bytes, toString(e.srcKind), toString(e.dstKind));
        if ((e.flags & kFlagWouldSync) != 0) text += "\nsync point: blocks the host on CUDA";
        return text;
    }

    static void showSelection(const std::vector<TraceModel>& traces, const ViewState& v) {
        if (v.selectedTrace < 0 || static_cast<std::size_t>(v.selectedTrace) >= traces.size()) return;
        const TraceModel& trace = traces[static_cast<std::size_t>(v.selectedTrace)];
        if (v.selectedLane < 0 || static_cast<std::size_t>(v.selectedLane) >= trace.lanes().size()) return;
        const std::vector<Event>& events = trace.eventsOnLane(static_cast<std::size_t>(v.selectedLane));
        if (v.selectedEvent < 0 || static_cast<std::size_t>(v.selectedEvent) >= events.size()) return;
        ImGui::Separator();
        ImGui::TextUnformatted(("Selected: " + describe(trace, events[static_cast<std::size_t>(v.selectedEvent)])).c_str());
    }

    std::vector<DrawItem> m_items;  // reused between frames
};

}  // namespace

std::unique_ptr<Panel> makeTimelinePanel() { return std::make_unique<TimelinePanel>(); }

}  // namespace glueprof::gui

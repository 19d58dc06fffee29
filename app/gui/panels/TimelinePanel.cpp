// Timeline: every lane of the selected runs (host threads, copy engine / streams, workers), A above
// B, aligned at a chosen step, with one zoom for both. Mouse wheel zooms around the cursor, drag
// pans, keys: W/S zoom, A/D pan, Home shows the aligned step. Spans under 3 px fold into boxes with
// a count (TimelineLod); sync points are red markers; hover shows an event, click selects it. A
// white line marks where each run's aligned step ends; the step diff below lists what changed by
// name (analyzers/StepDiff) and outlines the chosen name's events in both runs.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "analyzers/StepDiff.h"
#include "app/gui/Panel.h"
#include "app/gui/widgets/Charts.h"
#include "app/report/Palette.h"

namespace glueprof::gui {

namespace {

constexpr float kTimelineRowHeight = 16.0F;
constexpr float kLaneGap = 6.0F;
constexpr float kTimelineNameWidth = 170.0F;
constexpr float kMinPixels = 3.0F;

// The start of the step runs are aligned at, per trace.
TimestampNs alignmentOf(const TraceModel& trace, int step) {
    const StepInfo* s = alignedStep(trace, step);
    return s != nullptr ? s->startNs : 0;
}

TimestampNs stepLength(const TraceModel& trace, int step) {
    const StepInfo* s = alignedStep(trace, step);
    return s != nullptr ? s->endNs - s->startNs : 1000000;
}

class TimelinePanel : public Panel {
  public:
    const char* name() const override { return "Timeline"; }
    Area area() const override { return Area::kMain; }

    void draw(PanelContext& c) override {
        const std::vector<TraceModel>& traces = c.workspace.traces();
        const std::vector<TimelineIndex>& timelines = c.workspace.timelines();
        if (traces.empty() || timelines.size() != traces.size()) {
            ImGui::TextUnformatted(c.workspace.loading() ? "Loading..."
                                                         : "Select runs in the Runs panel.");
            return;
        }
        ViewState& v = c.view;
        ImGui::SetNextItemWidth(120.0F);
        ImGui::InputInt("align at step (-1 = first measured)", &v.alignStep);
        ImGui::SameLine();
        if (ImGui::Button("Home") || v.timelineToNs <= v.timelineFromNs) home(traces.front(), v);
        ImGui::SameLine();
        ImGui::TextDisabled("wheel: zoom  drag: pan  W/S A/D Home");

        // Lanes scroll in their own child (the wheel zooms there, it does not scroll); the
        // selection and, for an A/B pair, the step diff stay visible below.
        const float below =
            ImGui::GetTextLineHeightWithSpacing() * (traces.size() == 2 ? 14.0F : 3.0F);
        ImGui::BeginChild("lanes",
                          ImVec2(0.0F, std::max(120.0F, ImGui::GetContentRegionAvail().y - below)),
                          false, ImGuiWindowFlags_NoScrollWithMouse);
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        const float width = std::max(100.0F, ImGui::GetContentRegionAvail().x - kTimelineNameWidth);
        float height = 0.0F;
        for (const TimelineIndex& index : timelines) {
            for (std::size_t l = 0; l < index.lanes.size(); ++l) {
                if (l == 0 || index.lanes[l].group != index.lanes[l - 1].group)
                    height += kTimelineRowHeight;  // group header
                height += kTimelineRowHeight * static_cast<float>(index.lanes[l].levels.size()) +
                          kLaneGap;
            }
            height += kLaneGap * 2;
        }
        ImGui::InvisibleButton("canvas",
                               ImVec2(width + kTimelineNameWidth, std::max(height, 50.0F)));
        const bool hovered = ImGui::IsItemHovered();
        handleInput(v, hovered, origin.x + kTimelineNameWidth, width);

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
            const std::optional<StringId> highlight =
                v.highlightName.empty() ? std::nullopt : trace.findName(v.highlightName);
            const float blockTop = y;
            visibleItems(timelines[t], align + static_cast<TimestampNs>(from),
                         align + static_cast<TimestampNs>(to), width, kMinPixels, m_items);
            std::vector<float> laneTop(timelines[t].lanes.size());
            for (std::size_t l = 0; l < timelines[t].lanes.size(); ++l) {
                const std::string& group = timelines[t].lanes[l].group;
                if (l == 0 ||
                    group != timelines[t].lanes[l - 1].group) {  // a header per device group
                    draw->AddLine(ImVec2(origin.x, y + 1),
                                  ImVec2(origin.x + kTimelineNameWidth + width, y + 1),
                                  ImGui::GetColorU32(ImGuiCol_Separator));
                    draw->AddText(ImVec2(origin.x, y + 1),
                                  ImGui::GetColorU32(ImGuiCol_TextDisabled),
                                  fmt::format("{} {}", arm, group).c_str());
                    y += kTimelineRowHeight;
                }
                laneTop[l] = y;
                const Lane& lane = trace.lanes()[timelines[t].lanes[l].laneIndex];
                draw->AddText(ImVec2(origin.x, y), ImGui::GetColorU32(ImGuiCol_Text),
                              fmt::format("  {}", lane.name).c_str());
                y += kTimelineRowHeight * static_cast<float>(timelines[t].lanes[l].levels.size()) +
                     kLaneGap;
            }
            // The aligned step's end: where each run's step finishes, so A against B reads at a
            // glance.
            const double endX =
                (static_cast<double>(stepLength(trace, v.alignStep)) - from) / (to - from) * width;
            if (endX >= 0.0 && endX <= width) {
                const float x = origin.x + kTimelineNameWidth + static_cast<float>(endX);
                draw->AddLine(ImVec2(x, blockTop), ImVec2(x, y), IM_COL32(255, 255, 255, 160),
                              1.5F);
            }
            y += kLaneGap * 2;
            for (const DrawItem& item : m_items) {
                const LodLane& lane = timelines[t].lanes[item.lane];
                const ImVec2 a(origin.x + kTimelineNameWidth + std::max(item.x0, 0.0F),
                               laneTop[item.lane] + kTimelineRowHeight * item.depth);
                const ImVec2 b(origin.x + kTimelineNameWidth + std::min(item.x1, width),
                               a.y + kTimelineRowHeight - 1.0F);
                if (b.x <= a.x) continue;
                if (item.event < 0) {  // a folded box
                    draw->AddRectFilled(a, b, imColour(0x8C8C8C, 0.8F));
                    if (hovered && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y &&
                        mouse.y < b.y) {
                        hoveredLabel = fmt::format("{} events folded (zoom in)", item.count);
                    }
                    continue;
                }
                const Event& e =
                    trace.eventsOnLane(lane.laneIndex)[static_cast<std::size_t>(item.event)];
                const bool selected = static_cast<int>(t) == v.selectedTrace &&
                                      static_cast<int>(lane.laneIndex) == v.selectedLane &&
                                      item.event == v.selectedEvent;
                draw->AddRectFilled(a, b, imColour(categoryColour(e.category)));
                if (selected) draw->AddRect(a, b, IM_COL32(255, 255, 255, 255), 0.0F, 0, 2.0F);
                if (highlight && e.name == *highlight)
                    draw->AddRect(a, b, IM_COL32(255, 215, 0, 255), 0.0F, 0, 2.0F);
                if ((e.flags & kFlagWouldSync) != 0) {
                    draw->AddTriangleFilled(ImVec2(a.x, a.y), ImVec2(a.x + 5, a.y),
                                            ImVec2(a.x, a.y + 5), imColour(kSyncColour));
                }
                if (b.x - a.x > 40.0F) {
                    const std::string& label = trace.name(e.name);
                    draw->PushClipRect(a, b, true);
                    draw->AddText(ImVec2(a.x + 2, a.y), IM_COL32(255, 255, 255, 230),
                                  label.c_str());
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
        ImGui::EndChild();
        showSelection(traces, v);
        if (traces.size() == 2) showStepDiff(traces, c.workspace.generation(), v);
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
            if (v.timelineToNs - v.timelineFromNs < 100.0)
                v.timelineToNs = v.timelineFromNs + 100.0;  // 100 ns at most zoom
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
        if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) {
            if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home)))
                v.timelineToNs = v.timelineFromNs;  // re-home next frame
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
        std::string text =
            fmt::format("{}\n{} / {}, {:.3f} ms\nstep {}  layer {}  micro-batch {}",
                        trace.name(e.name), toString(e.kind), toString(e.category),
                        static_cast<double>(e.durationNs()) / 1e6, e.step, e.layer, e.microbatch);
        if (e.bytes != 0)
            text += fmt::format("\n{} bytes, {} -> {}", e.bytes, toString(e.srcKind),
                                toString(e.dstKind));
        if ((e.flags & kFlagWouldSync) != 0) text += "\nsync point: blocks the host on CUDA";
        return text;
    }

    static void showSelection(const std::vector<TraceModel>& traces, const ViewState& v) {
        if (v.selectedTrace < 0 || static_cast<std::size_t>(v.selectedTrace) >= traces.size())
            return;
        const TraceModel& trace = traces[static_cast<std::size_t>(v.selectedTrace)];
        if (v.selectedLane < 0 || static_cast<std::size_t>(v.selectedLane) >= trace.lanes().size())
            return;
        const std::vector<Event>& events =
            trace.eventsOnLane(static_cast<std::size_t>(v.selectedLane));
        if (v.selectedEvent < 0 || static_cast<std::size_t>(v.selectedEvent) >= events.size())
            return;
        ImGui::Separator();
        ImGui::TextUnformatted(
            ("Selected: " + describe(trace, events[static_cast<std::size_t>(v.selectedEvent)]))
                .c_str());
    }

    // The step-aligned diff of A and B: what changed in the aligned step, name by name; a click
    // highlights that name's events in both runs. Recomputed only when the runs or the step change.
    void showStepDiff(const std::vector<TraceModel>& traces, std::uint64_t generation,
                      ViewState& v) {
        const std::pair<std::uint64_t, int> key{generation, v.alignStep};
        if (key != m_diffKey) {
            m_diff = diffSteps(traces[0], traces[1], v.alignStep);
            m_diffKey = key;
        }
        ImGui::Separator();
        ImGui::Text(
            "Step diff: A step %d %.2f ms, B step %d %.2f ms (%+.2f ms). Click a row to outline "
            "its events.",
            m_diff.stepA, static_cast<double>(m_diff.lengthA) / 1e6, m_diff.stepB,
            static_cast<double>(m_diff.lengthB) / 1e6,
            static_cast<double>(m_diff.lengthB - m_diff.lengthA) / 1e6);
        if (!v.highlightName.empty()) {
            ImGui::SameLine();
            if (ImGui::SmallButton("clear highlight")) v.highlightName.clear();
        }
        const ImGuiTableFlags flags =
            ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY;
        if (!ImGui::BeginTable("stepdiff", 6, flags,
                               ImVec2(0.0F, 9.0F * ImGui::GetTextLineHeightWithSpacing())))
            return;
        ImGui::TableSetupScrollFreeze(0, 1);
        for (const char* column : {"name", "count A", "count B", "ms A", "ms B", "B - A ms"})
            ImGui::TableSetupColumn(column);
        ImGui::TableHeadersRow();
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(m_diff.names.size()));
        while (clipper.Step()) {
            for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
                const NameDelta& d = m_diff.names[static_cast<std::size_t>(row)];
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::PushID(row);
                if (ImGui::Selectable(d.name.c_str(), d.name == v.highlightName,
                                      ImGuiSelectableFlags_SpanAllColumns)) {
                    v.highlightName = d.name == v.highlightName ? std::string() : d.name;
                }
                ImGui::PopID();
                ImGui::TableNextColumn();
                ImGui::Text("%lld", static_cast<long long>(d.countA));
                ImGui::TableNextColumn();
                ImGui::Text("%lld", static_cast<long long>(d.countB));
                ImGui::TableNextColumn();
                ImGui::Text("%.3f", static_cast<double>(d.nsA) / 1e6);
                ImGui::TableNextColumn();
                ImGui::Text("%.3f", static_cast<double>(d.nsB) / 1e6);
                ImGui::TableNextColumn();
                const double delta = d.deltaMs();
                ImGui::TextColored(
                    delta < 0 ? ImVec4(0.4F, 0.85F, 0.4F, 1.0F) : ImVec4(1.0F, 0.5F, 0.4F, 1.0F),
                    "%+.3f", delta);
            }
        }
        ImGui::EndTable();
    }

    std::vector<DrawItem> m_items;  // reused between frames
    std::pair<std::uint64_t, int> m_diffKey{
        0, 0};  // (workspace generation, aligned step); generation 0 = none
    StepDiff m_diff;
};

}  // namespace

std::unique_ptr<Panel> makeTimelinePanel() { return std::make_unique<TimelinePanel>(); }

}  // namespace glueprof::gui

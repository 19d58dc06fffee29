// Ranks: a data-parallel run's ranks side by side (the selected run's, or either arm's of a
// selected A/B). A table of the ranks — median step, exposed communication, comm/compute overlap,
// steps it was the slowest in, clock — with the spread and straggler time (analyzers/RankAnalysis);
// then one step drawn with each rank as a lane group on rank 0's clock, and each collective's
// instances lined up: a gold line joins the starts of one all-reduce (one sequence number) across
// the ranks, so a straggler shows as a slanted line. Hovering a collective outlines it on every
// rank and says how long the first rank waited for the last.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analyzers/RankAnalysis.h"
#include "app/gui/Panel.h"
#include "app/gui/widgets/Charts.h"
#include "app/report/Palette.h"
#include "app/report/RankText.h"

namespace glueprof::gui {

namespace {

constexpr float kRanksRowHeight = 14.0F;
constexpr float kRanksNameWidth = 150.0F;
constexpr std::size_t kMaxDepth = 4;  // nesting rows drawn per lane

// One box of the step drawing: where it sits and what it is.
struct Box {
    std::size_t rank = 0;
    float top = 0.0F;  // from the drawing's top
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    const Event* event = nullptr;
};

// What the step drawing shows, computed when the selection, arm or step changes.
struct StepLayout {
    std::uint64_t generation = 0;
    int arm = -1;
    std::int32_t step = kNoTag;
    TimestampNs fromNs = 0;
    TimestampNs toNs = 0;
    float height = 0.0F;
    std::vector<Box> boxes;
    std::vector<std::pair<float, std::string>> labels;  // lane names by their top
    std::map<const Event*, float> commTops;             // where each comm range is drawn
    std::vector<CollectiveInstances> collectives;
};

StepLayout layOut(const std::vector<const TraceModel*>& ranks, std::int32_t step) {
    StepLayout layout;
    layout.step = step;
    bool any = false;
    for (const TraceModel* t : ranks) {
        for (const StepInfo& s : t->steps()) {
            if (s.step != step) continue;
            layout.fromNs = any ? std::min(layout.fromNs, s.startNs) : s.startNs;
            layout.toNs = any ? std::max(layout.toNs, s.endNs) : s.endNs;
            any = true;
        }
    }
    float y = 0.0F;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const TraceModel& t = *ranks[r];
        layout.labels.emplace_back(
            y, fmt::format("rank {} (run {})", t.run().identity.rank.value_or(static_cast<int>(r)),
                           t.run().id));
        y += kRanksRowHeight;
        for (std::size_t lane = 0; lane < t.lanes().size(); ++lane) {
            // Nesting depth from a stack of open ends (events come in start order).
            std::vector<TimestampNs> open;
            std::size_t depthUsed = 0;
            const float laneTop = y;
            for (const Event& e : t.eventsOnLane(lane)) {
                if (e.step != step || e.kind == EventKind::kMarker || e.endNs <= e.startNs)
                    continue;
                while (!open.empty() && open.back() <= e.startNs) open.pop_back();
                const std::size_t depth = open.size();
                open.push_back(e.endNs);
                if (depth >= kMaxDepth) continue;
                depthUsed = std::max(depthUsed, depth + 1);
                const float top = laneTop + kRanksRowHeight * static_cast<float>(depth);
                layout.boxes.push_back(Box{r, top, e.startNs, e.endNs, &e});
                if (e.category == Category::kComm) layout.commTops[&e] = top;
            }
            if (depthUsed == 0) continue;
            layout.labels.emplace_back(laneTop, "  " + t.lanes()[lane].name);
            y += kRanksRowHeight * static_cast<float>(depthUsed) + 3.0F;
        }
        y += 6.0F;
    }
    layout.height = y;
    layout.collectives = collectivesOfStep(ranks, step);
    return layout;
}

class RanksPanel : public Panel {
  public:
    const char* name() const override { return "Ranks"; }
    Area area() const override { return Area::kMain; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) return;
        const auto& rankTraces = c.workspace.rankTraces();
        std::vector<int> arms;  // the selected runs that are ranks of several
        for (std::size_t i = 0; i < rankTraces.size(); ++i)
            if (!rankTraces[i].empty()) arms.push_back(static_cast<int>(i));
        if (arms.empty()) {
            ImGui::TextWrapped(
                "The selected runs ran in one process. A data-parallel run's ranks come with "
                "`glueprof run --nproc N`, `glueprof ab --nproc N`, torchrun, or an import of one "
                "torch.profiler trace per rank.");
            return;
        }
        ViewState& v = c.view;
        if (std::find(arms.begin(), arms.end(), v.ranksArm) == arms.end()) v.ranksArm = arms[0];
        if (arms.size() > 1) {
            ImGui::RadioButton("baseline", &v.ranksArm, 0);
            ImGui::SameLine();
            ImGui::RadioButton("optimized", &v.ranksArm, 1);
        }
        const std::size_t arm = static_cast<std::size_t>(v.ranksArm);
        const RankSet* set = results->rankSetOf(arm);
        if (set == nullptr) return;
        rankTable(*results, *set);
        const RankAnalysisResult& a = set->analysis;
        ImGui::Text(
            "Spread per step (slowest - median rank) %.3f ms; straggler time (a step's worst "
            "collective) %.3f ms; medians over %zu measured steps.",
            a.medianSpreadMs, a.medianStragglerMs, a.steps.size());
        if (a.steps.empty()) return;
        int index = 0;
        for (std::size_t s = 0; s < a.steps.size(); ++s)
            if (a.steps[s].step == v.ranksStep) index = static_cast<int>(s);
        if (a.steps.size() > 1) {
            ImGui::SetNextItemWidth(240.0F);
            ImGui::SliderInt("measured step", &index, 0, static_cast<int>(a.steps.size()) - 1,
                             fmt::format("step {}", a.steps[index].step).c_str());
        }
        v.ranksStep = a.steps[static_cast<std::size_t>(index)].step;
        if (m_layout.generation != c.workspace.generation() || m_layout.arm != v.ranksArm ||
            m_layout.step != v.ranksStep) {
            m_layout = layOut(rankTraces[arm], v.ranksStep);
            m_layout.generation = c.workspace.generation();
            m_layout.arm = v.ranksArm;
        }
        drawStep(rankTraces[arm]);
    }

  private:
    static void rankTable(const Results& results, const RankSet& set) {
        if (!ImGui::BeginTable("ranks", 7, ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders)) return;
        for (const char* column : {"rank", "run", "median step ms", "exposed comm ms",
                                   "comm/compute overlap", "slowest in", "clock"})
            ImGui::TableSetupColumn(column);
        ImGui::TableHeadersRow();
        for (const RankRowView& row : rankRowsOf(set, results)) {
            const RunAnalysis& r = *row.run;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", row.rank);
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(r.run.id));
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", r.analysis.steps.medianWallMs);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", r.medianPartMs(GluePart::kComm));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(overlapRatioText(row.overlap).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d step(s)", row.slowestCount);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(clockAlignmentText(r).c_str());
        }
        ImGui::EndTable();
    }

    void drawStep(const std::vector<const TraceModel*>& ranks) {
        const StepLayout& l = m_layout;
        if (l.toNs <= l.fromNs) return;
        ImGui::TextDisabled(
            "Step %d over %.3f ms on rank 0's clock; gold lines join one collective's starts "
            "across the ranks.",
            l.step, static_cast<double>(l.toNs - l.fromNs) / 1e6);
        ImGui::BeginChild("##rankstep", ImVec2(0.0F, 0.0F), false,
                          ImGuiWindowFlags_HorizontalScrollbar);
        ImDrawList* draw = ImGui::GetWindowDrawList();
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        const float width =
            std::max(200.0F, ImGui::GetContentRegionAvail().x - kRanksNameWidth - 8.0F);
        const double scale = width / static_cast<double>(l.toNs - l.fromNs);
        const auto xOf = [&](TimestampNs t) {
            return origin.x + kRanksNameWidth +
                   static_cast<float>(static_cast<double>(t - l.fromNs) * scale);
        };
        for (const auto& [top, label] : l.labels)
            draw->AddText(ImVec2(origin.x, origin.y + top), ImGui::GetColorU32(ImGuiCol_Text),
                          label.c_str());
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const bool hovered = ImGui::IsWindowHovered();
        std::int64_t hoveredSequence = 0;
        std::string tooltip;
        for (const Box& box : l.boxes) {
            const float x0 = xOf(box.startNs);
            const float x1 = std::max(xOf(box.endNs), x0 + 1.0F);
            const ImVec2 a(x0, origin.y + box.top);
            const ImVec2 b(x1, a.y + kRanksRowHeight - 1.0F);
            draw->AddRectFilled(a, b, imColour(categoryColour(box.event->category)));
            if (hovered && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
                const TraceModel& t = *ranks[box.rank];
                tooltip = fmt::format("rank {}: {} ({}), {:.3f} ms",
                                      t.run().identity.rank.value_or(static_cast<int>(box.rank)),
                                      t.name(box.event->name), toString(box.event->category),
                                      static_cast<double>(box.event->durationNs()) / 1e6);
                if (box.event->category == Category::kComm && box.event->correlation > 0)
                    hoveredSequence = box.event->correlation;
            }
        }
        // Each collective's instances joined across the ranks; the hovered one outlined.
        for (const CollectiveInstances& collective : l.collectives) {
            const bool chosen = collective.sequence == hoveredSequence;
            const Event* previous = nullptr;
            float previousY = 0.0F;
            for (const Event* e : collective.perRank) {
                const auto drawn = l.commTops.find(e);
                if (e == nullptr || drawn == l.commTops.end()) continue;
                const float y = origin.y + drawn->second;
                if (chosen)
                    draw->AddRect(ImVec2(xOf(e->startNs), y),
                                  ImVec2(std::max(xOf(e->endNs), xOf(e->startNs) + 2.0F),
                                         y + kRanksRowHeight),
                                  IM_COL32(255, 255, 255, 255), 0.0F, 0, 2.0F);
                if (previous != nullptr) {
                    draw->AddLine(
                        ImVec2(xOf(previous->startNs), previousY + kRanksRowHeight * 0.5F),
                        ImVec2(xOf(e->startNs), y + kRanksRowHeight * 0.5F),
                        chosen ? IM_COL32(255, 255, 255, 255)
                               : imColour(partColour(GluePart::kComm), 0.8F),
                        chosen ? 2.0F : 1.0F);
                }
                previous = e;
                previousY = y;
            }
            if (chosen) {
                tooltip += fmt::format(
                    "\ncollective #{} on {} of {} ranks: the first rank to start it waited {:.3f} "
                    "ms "
                    "for the last",
                    collective.sequence,
                    std::count_if(collective.perRank.begin(), collective.perRank.end(),
                                  [](const Event* e) { return e != nullptr; }),
                    collective.perRank.size(), static_cast<double>(collective.stragglerNs()) / 1e6);
            }
        }
        if (!tooltip.empty()) ImGui::SetTooltip("%s", tooltip.c_str());
        ImGui::Dummy(ImVec2(kRanksNameWidth + width, l.height));
        ImGui::EndChild();
    }

    StepLayout m_layout;
};

}  // namespace

std::unique_ptr<Panel> makeRanksPanel() { return std::make_unique<RanksPanel>(); }

}  // namespace glueprof::gui

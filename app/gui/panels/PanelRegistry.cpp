// The one place panels are registered, in the order their windows are drawn.
#include "app/gui/Panel.h"

namespace glueprof::gui {

std::unique_ptr<Panel> makeRunsPanel();
std::unique_ptr<Panel> makeDashboardPanel();
std::unique_ptr<Panel> makeRunPanel();
std::unique_ptr<Panel> makeTimelinePanel();
std::unique_ptr<Panel> makeSyncPointsPanel();
std::unique_ptr<Panel> makeOverlapPanel();
std::unique_ptr<Panel> makeGluePanel();
std::unique_ptr<Panel> makePipelinePanel();
std::unique_ptr<Panel> makeRanksPanel();
std::unique_ptr<Panel> makeDiagnosticsPanel();
std::unique_ptr<Panel> makeExportPanel();
std::unique_ptr<Panel> makeLogPanel();

std::vector<std::unique_ptr<Panel>> makePanels() {
    std::vector<std::unique_ptr<Panel>> panels;
    panels.push_back(makeRunsPanel());
    panels.push_back(makeDashboardPanel());
    panels.push_back(makeRunPanel());
    panels.push_back(makeTimelinePanel());
    panels.push_back(makeSyncPointsPanel());
    panels.push_back(makeOverlapPanel());
    panels.push_back(makeGluePanel());
    panels.push_back(makePipelinePanel());
    panels.push_back(makeRanksPanel());
    panels.push_back(makeDiagnosticsPanel());
    panels.push_back(makeExportPanel());
    panels.push_back(makeLogPanel());
    return panels;
}

}  // namespace glueprof::gui

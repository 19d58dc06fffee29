// Export: the HTML / Markdown report and the Chrome trace of the selected runs, through app/report
// (the same files the CLI writes). Results and errors go to the log.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <exception>
#include <fstream>

#include "app/gui/Panel.h"
#include "app/report/AtomicFile.h"
#include "app/report/ChromeTrace.h"
#include "app/report/HtmlReport.h"
#include "app/report/ResultsMarkdown.h"

namespace glueprof::gui {

namespace {

class ExportPanel : public Panel {
  public:
    const char* name() const override { return "Export"; }
    Area area() const override { return Area::kSidebar; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) {
            ImGui::TextDisabled("Select runs to export them.");
            return;
        }
        ImGui::SetNextItemWidth(-1.0F);
        ImGui::InputText("##stem", &m_stem);
        if (ImGui::Button("HTML report"))
            write(c, m_stem + ".html",
                  [&](std::ostream& out) { out << renderResultsHtml(*results); });
        ImGui::SameLine();
        if (ImGui::Button("Markdown report")) {
            write(c, m_stem + ".md",
                  [&](std::ostream& out) { out << renderResultsMarkdown(*results); });
        }
        ImGui::SameLine();
        if (ImGui::Button("Chrome trace (A)") && !c.workspace.traces().empty()) {
            write(c, m_stem + "-trace.json",
                  [&](std::ostream& out) { writeChromeTrace(c.workspace.traces().front(), out); });
        }
    }

  private:
    // Panels do not write the workspace; files are theirs to write, and the log records the
    // outcome.
    static void write(PanelContext& c, const std::string& path,
                      const std::function<void(std::ostream&)>& body) {
        Log& log = c.log;
        try {
            writeFileAtomically(path, body);
            log.info(fmt::format("wrote {}", path));
        } catch (const std::exception& e) {
            log.error(e.what());
        }
    }

    std::string m_stem = "glueprof-export";
};

}  // namespace

std::unique_ptr<Panel> makeExportPanel() { return std::make_unique<ExportPanel>(); }

}  // namespace glueprof::gui

#include "app/gui/CommandLineSession.h"

#include <GLFW/glfw3.h>

#include <stb/stb_image_write.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "app/gui/App.h"
#include "app/gui/Script.h"
#include "app/report/AtomicFile.h"
#include "profiler/core/Error.h"

namespace glueprof::gui {

namespace {

// The frame as PNG bytes, written like every output file (writeFileAtomically: never over the
// database, never half-written). Throws GlueprofError.
void writeScreenshot(const std::string& path, int width, int height) {
    std::vector<unsigned char> pixels(static_cast<std::size_t>(width) *
                                      static_cast<std::size_t>(height) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    stbi_flip_vertically_on_write(1);
    std::string png;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                                   static_cast<std::size_t>(size));
    };
    if (stbi_write_png_to_func(append, &png, width, height, 4, pixels.data(), width * 4) == 0)
        throw inputError("cannot encode the screenshot " + path + " as PNG");
    writeFileAtomically(path, png);
}

}  // namespace

CommandLineSession::CommandLineSession(const GuiOptions& options, App& app)
    : m_options(options), m_app(app) {}

CommandLineSession::~CommandLineSession() = default;

std::optional<int> CommandLineSession::start() {
    const bool headless = m_options.headless();
    if (!m_options.db.empty()) {
        m_app.view().pathField = m_options.db;
        if (!m_app.workspace().open(m_options.db) && headless) {
            // Headless: nothing to show, and no script may run on the wrong database.
            std::fprintf(stderr, "glueprof-gui: %s\n", m_app.log().entries().back().text.c_str());
            return static_cast<int>(ExitCode::kInput);
        }
    }
    if (m_options.scriptPath.empty()) return std::nullopt;
    try {
        m_script = std::make_unique<Script>(Script::load(m_options.scriptPath));
        // Headless, nothing after a bad line runs (an A/B it would start writes the database).
        if (headless) m_script->stopAtFirstError();
    } catch (const std::exception& e) {
        m_app.log().error(e.what());
        if (headless) {  // nothing to show without its script
            std::fprintf(stderr, "glueprof-gui: %s\n", e.what());
            return static_cast<int>(ExitCode::kInput);
        }
    }
    return std::nullopt;
}

void CommandLineSession::beginFrame() {
    // --frames counts the frames drawn after the script has run to its end (its runs may take a
    // while).
    m_scripting = m_script != nullptr && m_script->step(m_app);
    if (m_scripting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // The next frame takes the analysis in; the last one shows it.
    if (m_options.headless() && m_frame == m_options.frames - 2) m_app.workspace().waitForLoad();
}

bool CommandLineSession::endFrame(int framebufferWidth, int framebufferHeight) {
    if (!m_scripting) ++m_frame;
    if (!m_options.headless() || m_frame < m_options.frames) return false;
    if (!m_options.screenshot.empty()) {
        try {
            writeScreenshot(m_options.screenshot, framebufferWidth, framebufferHeight);
        } catch (const GlueprofError& e) {
            std::fprintf(stderr, "glueprof-gui: --screenshot: %s\n", e.what());
            m_exitCode = static_cast<int>(e.code());
        }
    }
    return true;
}

int CommandLineSession::finish() {
    if (!m_options.dumpState.empty()) {
        try {
            writeFileAtomically(m_options.dumpState, m_app.dumpState() + "\n");
        } catch (const GlueprofError& e) {
            std::fprintf(stderr, "glueprof-gui: --dump-state: %s\n", e.what());
            m_exitCode = static_cast<int>(e.code());
        }
    }
    if (!m_options.headless() || m_exitCode != 0) return m_exitCode;
    for (const auto& entry : m_app.log().entries()) {
        if (entry.level == LogEntry::Level::kError) {
            std::fprintf(stderr, "glueprof-gui: %s\n", entry.text.c_str());
            return static_cast<int>(ExitCode::kInput);
        }
    }
    return m_exitCode;
}

}  // namespace glueprof::gui

// glueprof-gui: the GLFW + OpenGL 3 shell around App. Sleeps while minimized; saves the view state
// and ImGui's window layout on exit. For tests and CI: --db, --frames N, --screenshot OUT.png,
// --dump-state FILE render N frames headlessly under Xvfb and write what was shown.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <stb/stb_image_write.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/gui/App.h"
#include "app/gui/Fonts.h"
#include "app/gui/Script.h"
#include "app/gui/SettingsStore.h"
#include "app/report/AtomicFile.h"
#include "profiler/core/Error.h"

#if defined(GLUEPROF_SANITIZE)
// make sanitize: the GL stack under Xvfb (Mesa, GLX) leaves two 56-byte blocks at every exit,
// reachable only from each other and allocated through frames LeakSanitizer cannot name (none of
// them glueprof's). Leak checking is off for this binary only; AddressSanitizer and
// UndefinedBehaviorSanitizer stay on, and every other binary keeps leak checking.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif

namespace {

// GLFW's error callback carries no user pointer: once the app exists its errors go to the app's log
// (a toast and the Log panel); before that, to stderr, where a failed start also explains itself.
glueprof::gui::Log* g_glfwErrorLog = nullptr;

void onGlfwError(int code, const char* text) {
    const std::string message =
        "GLFW error " + std::to_string(code) + ": " + (text != nullptr ? text : "");
    if (g_glfwErrorLog != nullptr) {
        g_glfwErrorLog->error(message);
    } else {
        std::fprintf(stderr, "glueprof-gui: %s\n", message.c_str());
    }
}

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
        throw glueprof::inputError("cannot encode the screenshot " + path + " as PNG");
    glueprof::writeFileAtomically(path, png);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App cli{"glueprof-gui: visual A/B profiling of the glue code around the math kernels"};
    std::string db;
    std::string screenshot;
    std::string dumpState;
    std::string scriptPath;
    int frames = 0;
    int width = 1600;
    int height = 1000;
    cli.add_option("--db", db, "trace database to open");
    cli.add_option("--frames", frames, "render this many frames, then exit (0 = run until closed)")
        ->check(CLI::Range(0, 100000000));
    cli.add_option("--screenshot", screenshot, "save the last frame as PNG");
    cli.add_option("--dump-state", dumpState,
                   "write JSON of what is shown (panels, selection, dashboard numbers)");
    cli.add_option("--script", scriptPath,
                   "run these actions (open, select, show, align, run, wait) before the frames");
    cli.add_option("--size", width, "window width")
        ->capture_default_str()
        ->check(CLI::Range(64, 16384));
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        // One line and the usage exit code, as `glueprof` does (docs/cli.md): CLI11's own exit()
        // returns its internal codes (104 for a value that does not convert).
        std::fprintf(stderr, "glueprof-gui: %s (see glueprof-gui --help)\n", e.what());
        return static_cast<int>(glueprof::ExitCode::kUsage);
    }

    glfwSetErrorCallback(&onGlfwError);
    if (glfwInit() == 0) {
        std::fprintf(stderr,
                     "glueprof-gui: no display (GLFW could not initialize): set DISPLAY, or run "
                     "under xvfb-run\n");
        return 2;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    GLFWwindow* window = glfwCreateWindow(width, height, "glueprof", nullptr, nullptr);
    if (window == nullptr) {
        std::fprintf(stderr, "glueprof-gui: cannot create an OpenGL 3.3 window on this display\n");
        glfwTerminate();
        return 2;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    // An unwritable settings directory is no reason to stop: run without saving (said in the log).
    const glueprof::gui::SettingsStore settings = glueprof::gui::SettingsStore::fromEnvironment();
    const std::string iniPath = settings.iniPath();
    // Tests (--frames) start from the default layout; without a writable directory ImGui only
    // reads the saved one.
    ImGui::GetIO().IniFilename = frames == 0 && settings.writable() ? iniPath.c_str() : nullptr;
    std::error_code iniError;
    if (frames == 0 && !settings.writable() && std::filesystem::is_regular_file(iniPath, iniError))
        ImGui::LoadIniSettingsFromDisk(iniPath.c_str());
    float xscale = 1.0F;
    float yscale = 1.0F;
    glfwGetWindowContentScale(window, &xscale, &yscale);  // high-DPI: scale fonts and sizes
    ImGui::StyleColorsDark();
    ImGui::GetStyle().ScaleAllSizes(xscale);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    glueprof::gui::ViewState view = frames > 0
                                        ? glueprof::gui::ViewState{}
                                        : glueprof::gui::ViewState::fromJson(settings.loadView());
    glueprof::gui::App app(view);
    g_glfwErrorLog = &app.log();
    if (!settings.writable()) app.log().info(settings.problem());
    app.setFontPath(glueprof::gui::loadDefaultFont(std::round(15.0F * xscale),
                                                   app.log()));  // rasterized at the DPI scale
    if (!db.empty()) {
        app.view().pathField = db;
        if (!app.workspace().open(db) && frames > 0) {
            // Headless: nothing to show, and no script may run on the wrong database.
            std::fprintf(stderr, "glueprof-gui: %s\n", app.log().entries().back().text.c_str());
            return 2;
        }
    }

    std::unique_ptr<glueprof::gui::Script> script;
    if (!scriptPath.empty()) {
        try {
            script =
                std::make_unique<glueprof::gui::Script>(glueprof::gui::Script::load(scriptPath));
            // Headless, nothing after a bad line runs (an A/B it would start writes the database).
            if (frames > 0) script->stopAtFirstError();
        } catch (const std::exception& e) {
            app.log().error(e.what());
            if (frames > 0) {  // headless: nothing to show without its script
                std::fprintf(stderr, "glueprof-gui: %s\n", e.what());
                return 2;
            }
        }
    }
    int exitCode = 0;
    int frame = 0;
    while (glfwWindowShouldClose(window) == 0) {
        // --frames counts the frames drawn after the script has run to its end (its runs may take a
        // while).
        const bool scripting = script != nullptr && script->step(app);
        if (scripting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        glfwPollEvents();
        if (glfwGetWindowAttrib(window, GLFW_ICONIFIED) != 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        // Headless runs wait for the analysis before their last frames, so the dump shows it.
        if (frames > 0 && frame == frames - 2)
            app.workspace().waitForLoad();  // the next frame takes it in
        const auto frameStart = std::chrono::steady_clock::now();
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        app.frame();
        ImGui::Render();
        int fbWidth = 0;
        int fbHeight = 0;
        glfwGetFramebufferSize(window, &fbWidth, &fbHeight);
        glViewport(0, 0, fbWidth, fbHeight);
        glClearColor(0.10F, 0.10F, 0.11F, 1.0F);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        app.frameStats().record(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart)
                .count());
        if (!scripting) ++frame;
        if (frames > 0 && frame >= frames) {
            if (!screenshot.empty()) {
                try {
                    writeScreenshot(screenshot, fbWidth, fbHeight);
                } catch (const glueprof::GlueprofError& e) {
                    std::fprintf(stderr, "glueprof-gui: --screenshot: %s\n", e.what());
                    exitCode = static_cast<int>(e.code());
                }
            }
            glfwSwapBuffers(window);
            break;
        }
        glfwSwapBuffers(window);
    }
    if (!dumpState.empty()) {
        try {
            glueprof::writeFileAtomically(dumpState, app.dumpState() + "\n");
        } catch (const glueprof::GlueprofError& e) {
            std::fprintf(stderr, "glueprof-gui: --dump-state: %s\n", e.what());
            exitCode = static_cast<int>(e.code());
        }
    }
    // Headless runs are scripts and tests: any error logged (a bad script line, an A/B that
    // failed, a database that did not open) is a failure there (exit 2, the first error on
    // stderr), not a log line nobody reads.
    if (frames > 0 && exitCode == 0) {
        for (const auto& entry : app.log().entries()) {
            if (entry.level == glueprof::gui::LogEntry::Level::kError) {
                std::fprintf(stderr, "glueprof-gui: %s\n", entry.text.c_str());
                exitCode = 2;
                break;
            }
        }
    }
    if (frames == 0 && settings.writable() && !settings.saveView(app.view().toJson())) {
        std::fprintf(stderr, "glueprof-gui: cannot save the view state in %s\n",
                     settings.dir().string().c_str());
    }
    g_glfwErrorLog = nullptr;  // the app's log ends with it
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exitCode;
}

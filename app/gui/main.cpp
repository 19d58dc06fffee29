// glueprof-gui: the GLFW + OpenGL 3 shell around App, in the shape of Dear ImGui's
// example_glfw_opengl3: error callback, window, context, backends, the frame loop (poll, sleep
// while minimized, three NewFrame calls, draw, render, swap), teardown in reverse. Saves the view
// state and ImGui's window layout on exit. The command line is GuiOptions; what it asks of a
// session besides the window (--db, --script, and for tests and CI under Xvfb --frames N,
// --screenshot,
// --dump-state) is CommandLineSession.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "app/gui/App.h"
#include "app/gui/CommandLineSession.h"
#include "app/gui/Fonts.h"
#include "app/gui/GuiOptions.h"
#include "app/gui/SettingsStore.h"

#if defined(GLUEPROF_SANITIZE)
// make sanitize: the GL stack under Xvfb (Mesa, GLX) leaves two 56-byte blocks at every exit,
// reachable only from each other and allocated through frames LeakSanitizer cannot name (none of
// them glueprof's). Leak checking is off for this binary only; AddressSanitizer and
// UndefinedBehaviorSanitizer stay on, and every other binary keeps leak checking.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif

namespace {

using namespace glueprof::gui;

// GLFW's error callback carries no user pointer: once the app exists its errors go to the app's log
// (a toast and the Log panel); before that, to stderr, where a failed start also explains itself.
Log* g_glfwErrorLog = nullptr;

void onGlfwError(int code, const char* text) {
    const std::string message =
        "GLFW error " + std::to_string(code) + ": " + (text != nullptr ? text : "");
    if (g_glfwErrorLog != nullptr) {
        g_glfwErrorLog->error(message);
    } else {
        std::fprintf(stderr, "glueprof-gui: %s\n", message.c_str());
    }
}

// ImGui's window layout (imgui.ini beside view.json). A headless run starts from the default one;
// without a writable directory ImGui only reads the saved one. INI_PATH outlives the context.
void useSavedLayout(const SettingsStore& settings, const std::string& iniPath, bool headless) {
    ImGui::GetIO().IniFilename = !headless && settings.writable() ? iniPath.c_str() : nullptr;
    std::error_code iniError;
    if (!headless && !settings.writable() && std::filesystem::is_regular_file(iniPath, iniError))
        ImGui::LoadIniSettingsFromDisk(iniPath.c_str());
}

// One frame drawn into the back buffer; its CPU time (NewFrame to the draw call) goes to the
// app's frame stats. Sets the framebuffer's size.
void drawFrame(GLFWwindow* window, App& app, int& fbWidth, int& fbHeight) {
    const auto frameStart = std::chrono::steady_clock::now();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    app.frame();
    ImGui::Render();
    glfwGetFramebufferSize(window, &fbWidth, &fbHeight);
    glViewport(0, 0, fbWidth, fbHeight);
    glClearColor(0.10F, 0.10F, 0.11F, 1.0F);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    app.frameStats().record(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart)
            .count());
}

// The frame loop, until the window closes or a headless run has drawn its frames; the exit code.
int runFrames(GLFWwindow* window, App& app, CommandLineSession& runner) {
    while (glfwWindowShouldClose(window) == 0) {
        runner.beginFrame();
        glfwPollEvents();
        if (glfwGetWindowAttrib(window, GLFW_ICONIFIED) != 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        int fbWidth = 0;
        int fbHeight = 0;
        drawFrame(window, app, fbWidth, fbHeight);
        const bool last = runner.endFrame(fbWidth, fbHeight);
        glfwSwapBuffers(window);
        if (last) break;
    }
    return runner.finish();
}

}  // namespace

int main(int argc, char** argv) {
    const GuiCommandLine commandLine = parseGuiOptions(argc, argv, std::cout, std::cerr);
    if (commandLine.exitNow) return *commandLine.exitNow;
    const GuiOptions& options = commandLine.options;

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
    GLFWwindow* window =
        glfwCreateWindow(options.width, options.height, "glueprof", nullptr, nullptr);
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
    const SettingsStore settings = SettingsStore::fromEnvironment();
    const std::string iniPath = settings.iniPath();
    useSavedLayout(settings, iniPath, options.headless());
    float xscale = 1.0F;
    float yscale = 1.0F;
    glfwGetWindowContentScale(window, &xscale, &yscale);  // high-DPI: scale fonts and sizes
    ImGui::StyleColorsDark();
    ImGui::GetStyle().ScaleAllSizes(xscale);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    App app(options.headless() ? ViewState{} : ViewState::fromJson(settings.loadView()));
    g_glfwErrorLog = &app.log();
    if (!settings.writable()) app.log().info(settings.problem());
    app.setFontPath(loadDefaultFont(std::round(15.0F * xscale), app.log()));  // at the DPI scale
    CommandLineSession runner(options, app);
    const std::optional<int> failedStart = runner.start();
    const int exitCode = failedStart ? *failedStart : runFrames(window, app, runner);
    if (!options.headless() && settings.writable() && !settings.saveView(app.view().toJson())) {
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

// The C entry points of libglueprof_inject.so, the capture `glueprof profile` puts into a program:
//   - a Python program loads it from the start-up hook (python/sitecustomize.py) right after
//     `import torch`, calls glueprof_inject_start(), and glueprof_inject_stop() at exit;
//   - a C++ libtorch program gets it through LD_PRELOAD: it starts as main() does, stops at exit.
// A process forked from a recording one (a DataLoader worker) records nothing: the writer's thread
// did not come with it.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "profiler/inject/InjectedCapture.h"
#include "profiler/inject/ProfileProtocol.h"
#include "profiler/torch_ops/OpObserver.h"
#include "profiler/torch_ops/UserRangeObserver.h"

namespace {

std::mutex g_mutex;
glueprof::InjectedCapture* g_capture = nullptr;  // owned; leaked on purpose in a forked child

void detachAfterFork() {
    // The child of fork() has the parent's observers registered but not the writer's thread:
    // nothing may record into it. Only atomics are touched here (fork-safe).
    glueprof::OpObserver::detachInForkedChild();
    glueprof::UserRangeObserver::detachInForkedChild();
    g_capture = nullptr;
}

}  // namespace

extern "C" {

// Starts recording when the launcher's settings are in the environment. Returns 0 when this
// process now records, 1 when it does not (no settings, or it records already), 2 when the
// capture could not start (the reason is on stderr; the program runs on unrecorded).
__attribute__((visibility("default"))) int glueprof_inject_start() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_capture != nullptr) return 1;
    const std::optional<glueprof::profile::ProfileSettings> settings =
        glueprof::profile::settingsFromEnvironment();
    if (!settings) return 1;
    try {
        g_capture = new glueprof::InjectedCapture(*settings);
    } catch (const std::exception& e) {
        const std::string message = e.what();
        const std::string line = message.substr(0, message.find('\n'));
        std::fprintf(stderr, "glueprof: the capture could not start in this program: %s\n",
                     line.c_str());
        // The launcher says so, instead of "the program never imported torch".
        glueprof::profile::noteProcess(settings->tracePrefix,
                                       glueprof::profile::ProcessNoteKind::kFailed,
                                       glueprof::profile::rankFromEnvironment(), line);
        return 2;
    }
    ::setenv(glueprof::profile::kRecordingPidVar, std::to_string(::getpid()).c_str(), 1);
    static std::once_flag forkHandler;
    std::call_once(forkHandler, [] { ::pthread_atfork(nullptr, nullptr, &detachAfterFork); });
    return 0;
}

// Ends the run (complete) and closes the trace. Idempotent.
__attribute__((visibility("default"))) void glueprof_inject_stop() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_capture == nullptr) return;
    glueprof::InjectedCapture* capture = g_capture;
    g_capture = nullptr;
    capture->finish();
    delete capture;
}

// The program's loss for the step it is in (the step's row keeps the last one reported).
__attribute__((visibility("default"))) void glueprof_inject_record_loss(double loss) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_capture != nullptr) g_capture->recordLoss(loss);
}

// The program's model entered / left its layer `layer` (sitecustomize's module forward hooks):
// the ops in between are tagged with it, and a range `name` is recorded around them.
// A program toggle of `--try` (python/_glueprof_try.py): whether it applied, and how or why not.
__attribute__((visibility("default"))) void glueprof_inject_note_toggle(const char* name,
                                                                        int applied,
                                                                        const char* detail) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_capture != nullptr && name != nullptr)
        g_capture->noteToggle(name, applied != 0, detail != nullptr ? detail : "");
}

__attribute__((visibility("default"))) void glueprof_inject_layer_enter(int layer,
                                                                        const char* name) {
    glueprof::UserRangeObserver::enterLayer(layer, name != nullptr ? name : "nn.Module");
}
__attribute__((visibility("default"))) void glueprof_inject_layer_exit() {
    glueprof::UserRangeObserver::exitLayer();
}

}  // extern "C"

namespace {

// LD_PRELOAD: a C++ program records from the start of its main(). Not from a constructor of this
// library: the order of a shared library's initializers across its translation units is the
// link's, so glueprof's own statics (the SQL of the trace store) may not be built yet; at main()
// every initializer of every library has run.
using MainFunction = int (*)(int, char**, char**);
MainFunction g_programMain = nullptr;

int mainWithCapture(int argc, char** argv, char** envp) {
    if (std::getenv(glueprof::profile::kRecordingPidVar) == nullptr &&  // else a parent records
        glueprof_inject_start() == 0) {
        std::atexit(&glueprof_inject_stop);  // before libtorch's own teardown
    }
    return g_programMain(argc, argv, envp);
}

}  // namespace

// glibc calls main through __libc_start_main; this library, preloaded, is found first and hands
// glibc's own a main that starts the capture, then runs the program's.
extern "C" __attribute__((visibility("default"))) int __libc_start_main(MainFunction main, int argc,
                                                                        char** argv, void (*init)(),
                                                                        void (*fini)(),
                                                                        void (*rtldFini)(),
                                                                        void* stackEnd) {
    using Real = int (*)(MainFunction, int, char**, void (*)(), void (*)(), void (*)(), void*);
    const auto real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "__libc_start_main"));
    const char* preload = std::getenv(glueprof::profile::kPreloadVar);
    if (preload != nullptr && std::string(preload) == "1") {
        g_programMain = main;
        main = &mainWithCapture;
    }
    return real(main, argc, argv, init, fini, rtldFini, stackEnd);
}

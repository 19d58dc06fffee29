// glueprof doctor: what this build and machine can capture, and why not when it cannot.

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "app/cli/TorchCommands.h"
#include "profiler/core/Clock.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/cupti/GpuCapture.h"
#include "profiler/host/ScopedRange.h"
#include "profiler/torch_ops/TorchEnvironment.h"
#include "reference_trainer/distributed/NcclStatus.h"

namespace glueprof::cli {

namespace {

int doctor() {
    std::cout << fmt::format("glueprof trace schema   v{}\n", kTraceSchemaVersion);
    const TorchEnvironment torch = torchEnvironment();
    std::cout << fmt::format("libtorch                {}{}\n", torch.version,
                             torch.cudaBuild.empty()
                                 ? std::string(" (CPU-only)")
                                 : fmt::format(" (built with CUDA {})", torch.cudaBuild));
    std::cout << fmt::format("CUDA device             {}\n",
                             torch.cuda ? fmt::format("yes, {} device(s)", torch.cudaDevices)
                                        : "none: " + torch.whyNoCuda + "; runs use --device cpu");
    std::cout << fmt::format("intra-op threads        {}\n", torch.intraOpThreads);
    std::cout << fmt::format("host clock              {}\n",
                             Clock::readsTimeStampCounter()
                                 ? "steady clock read through the invariant time-stamp counter"
                                 : "steady clock (clock_gettime)");
    std::cout << fmt::format("NVTX ranges             {}\n",
                             nvtxEnabled() ? "pushed (NVTX3 headers found at build time)"
                                           : "off (no NVTX3 headers at build time)");
    std::cout << fmt::format("NCCL (ranks on CUDA)    {}\n", ncclStatus());
    // GPU capture: which piece is missing, in the order that matters (CUPTI, driver, a GPU for
    // libtorch).
    const cupti::CaptureStatus probe = cupti::probeCapture();
    std::cout << fmt::format(
        "CUPTI library           {}\n",
        probe.libraryPath.empty()
            ? "not loaded: " + probe.reason
            : fmt::format("{} (CUPTI API {}; built with {})", probe.libraryPath,
                          probe.runtimeVersion, probe.headerVersion));
    std::string capture;
    if (probe.blocker != cupti::CaptureStatus::Blocker::kNone) {
        capture = "off: " + probe.reason;
    } else if (!torch.cuda) {
        capture = "off: " + torch.whyNoCuda + "; runs use --device cpu";
    } else {
        capture = "ready: --device cuda runs record kernels, copies, syncs and NVTX with CUPTI";
    }
    std::cout << fmt::format("GPU capture             {}\n", capture);
    std::cout << "                        (host ranges and aten ops are recorded either way)\n";
    return 0;
}

}  // namespace

void registerDoctorCommand(CLI::App& app, Action& action) {
    CLI::App* command = app.add_subcommand(kDoctorDescription.name, kDoctorDescription.text);
    command->callback([&action] { action = [] { return doctor(); }; });
}

}  // namespace glueprof::cli

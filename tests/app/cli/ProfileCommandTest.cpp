// `glueprof profile -- CMD`: real Python programs (the environment's python3 with PyPI's torch) and
// a real C++ libtorch program, run with the injected capture, their runs read back from the
// database: steps found from the optimizer, ProfilerStep#N or --step-range, glue ranges counted per
// step, the loss the program reported bit for bit, the exit code passed through, refusals before
// the run.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "profiler/core/Diagnostics.h"
#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;
using testing::CliTest;

const std::string kPython = GLUEPROF_TEST_PYTHON;
const std::string kExample =
    std::string(GLUEPROF_SOURCE_DIR) + "/examples/python/packed_glue_train.py";
// Small enough for a few seconds a run on 2 cores.
const std::string kSmall = "--steps 3 --layers 2 --seq-len 64 --d-model 32";

std::string diagnosticDetail(const TraceModel& trace, DiagnosticId id, std::int64_t* value) {
    for (const Diagnostic& d : trace.diagnostics()) {
        if (d.name == diagnosticName(id)) {
            if (value != nullptr) *value = d.value;
            return d.detail;
        }
    }
    return "<none>";
}

// Ranges named `name` per step (steps of the run's step table only).
std::map<std::int32_t, int> rangesPerStep(const TraceModel& trace, const std::string& name) {
    std::map<std::int32_t, int> count;
    const std::optional<StringId> id = trace.findName(name);
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (id && e.kind == EventKind::kRange && e.name == *id) ++count[e.step];
        }
    }
    return count;
}

std::size_t opCount(const TraceModel& trace) {
    std::size_t ops = 0;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) ops += e.kind == EventKind::kOp ? 1 : 0;
    }
    return ops;
}

// The losses --print-losses printed (float.hex of each step's loss).
std::vector<double> printedLosses(const std::string& out) {
    std::vector<double> losses;
    std::stringstream line(out.substr(out.rfind("0x") == std::string::npos ? 0 : out.find("0x")));
    for (std::string word; line >> word;) {
        if (word.rfind("0x", 0) != 0) break;
        losses.push_back(std::strtod(word.c_str(), nullptr));
    }
    return losses;
}

// A build against TORCH_DIR has no environment python to run the Python programs with.
#define SKIP_WITHOUT_PYTHON() \
    if (kPython.empty()) GTEST_SKIP() << "built without GLUEPROF_PYTHON: no python to profile"

TEST_F(CliTest, ProfileRecordsAPythonTrainingScriptWithStepsFromItsOptimizer) {
    SKIP_WITHOUT_PYTHON();
    const Result r = run(fmt::format("profile --db {} -- {} {} {} --print-losses", path("p.sqlite"),
                                     kPython, kExample, kSmall));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("the program exited with code 0"), std::string::npos) << r.out;
    const TraceReader reader(path("p.sqlite"));
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].preset, "profile");
    EXPECT_EQ(runs[0].label, "packed_glue_train.py");
    EXPECT_EQ(runs[0].status, "complete");
    const TraceModel trace = reader.loadRun(runs[0].id);
    std::int64_t found = 0;
    EXPECT_EQ(diagnosticDetail(trace, DiagnosticId::kProfileStepSource, &found), "optimizer_step");
    EXPECT_EQ(found, 3);
    ASSERT_EQ(trace.steps().size(), 3u);
    EXPECT_TRUE(trace.steps()[0].warmup);
    EXPECT_FALSE(trace.steps()[1].warmup);
    // Every op of the program, through the trainer's observer: thousands for 3 steps.
    EXPECT_GT(opCount(trace), 1000u);
    // Without the cache, one mask build per layer per step.
    const auto masks = rangesPerStep(trace, "build_packed_mask");
    EXPECT_EQ(masks.at(1), 2);
    EXPECT_EQ(masks.at(2), 2);
    // The loss the program reported, bit for bit.
    const std::vector<double> printed = printedLosses(r.out);
    ASSERT_EQ(printed.size(), 3u) << r.out;
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(trace.steps()[i].loss, printed[i]) << i;
    // Its host reads were seen: .item() and .tolist() per step at least.
    const std::optional<StringId> item = trace.findName("aten::_local_scalar_dense");
    EXPECT_TRUE(item.has_value());
}

TEST_F(CliTest, ProfileSeesOneMaskBuildPerStepWithThePackedCache) {
    SKIP_WITHOUT_PYTHON();
    const Result r = run(fmt::format("profile --db {} -- {} {} {} --packed-cache", path("p.sqlite"),
                                     kPython, kExample, kSmall));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const TraceReader reader(path("p.sqlite"));
    const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
    const auto masks = rangesPerStep(trace, "build_packed_mask");
    EXPECT_EQ(masks.at(1), 1);
    EXPECT_EQ(masks.at(2), 1);
}

// Hugging Face's Llama, unchanged: each decoder layer is found as a layer of the model, and what
// every layer repeats per step is listed by name and count (the rotary embedding's rotate_half
// negates the query and the key: two aten::neg per layer); the optimizer's per-parameter reads are
// named with the range that issues them.
TEST_F(CliTest, ProfileOfAHuggingFaceModelListsTheWorkEachLayerRepeatsAndItsHostReads) {
    SKIP_WITHOUT_PYTHON();
    const std::string hf = std::string(GLUEPROF_SOURCE_DIR) + "/examples/python/hf_packed_llama.py";
    const Result r = run(
        fmt::format("profile --json --db {} -- {} {} --steps 3 --layers 2 --seq-len 64 --hidden 64",
                    path("hf.sqlite"), kPython, hf));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["runs"].size(), 1u);
    const nlohmann::json& run = j["runs"][0];
    ASSERT_TRUE(run.contains("per_layer_work")) << run.dump();
    const nlohmann::json& work = run["per_layer_work"];
    EXPECT_EQ(work["layer_ranges"], nlohmann::json::array({"nn.Module: LlamaDecoderLayer"}));
    EXPECT_EQ(work["layers_per_step"], 2.0);
    std::map<std::string, nlohmann::json> ops;
    for (const nlohmann::json& op : work["ops"]) ops[op["op"].get<std::string>()] = op;
    ASSERT_EQ(ops.count("aten::neg"), 1u) << work.dump();
    EXPECT_EQ(ops["aten::neg"]["per_layer"], 2.0);
    EXPECT_EQ(ops["aten::neg"]["per_step"], 4.0);
    EXPECT_EQ(ops["aten::neg"]["kind"], "elementwise");
    ASSERT_EQ(ops.count("aten::cat"), 1u);
    EXPECT_EQ(ops["aten::cat"]["kind"], "shape/copy");
    EXPECT_EQ(ops["aten::mm"]["kind"], "matrix");
    bool adamReads = false;
    for (const nlohmann::json& f : run["findings"]) {
        adamReads = adamReads || (f["rule"] == "repeated_would_syncs" &&
                                  f["evidence"].get<std::string>().find(
                                      "inside Optimizer.step#AdamW.step") != std::string::npos);
    }
    EXPECT_TRUE(adamReads) << run["findings"].dump();
}

// --try makes the named fixes inside the program, unedited: its AdamW is built fused (the trace
// holds the fused op and none of the per-parameter loop's), its DataLoader gets two workers, and
// each toggle says what it did; a toggle with nothing to change says why it did not apply; an
// unknown toggle is refused in one line before anything runs.
TEST_F(CliTest, ProfileTryMakesTheNamedFixesInsideTheProgramAndSaysWhatEachDid) {
    SKIP_WITHOUT_PYTHON();
    const std::string loader =
        std::string(GLUEPROF_SOURCE_DIR) + "/examples/python/loader_bound_train.py";
    const Result r = run(fmt::format(
        "profile --db {} --try fused_optimizer,loader_workers=2,hf_grouped_experts -- {} {} "
        "--steps 4 --work 2",
        path("try.sqlite"), kPython, loader));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const TraceReader reader(path("try.sqlite"));
    const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
    std::int64_t applied = -1;
    const std::string detail = diagnosticDetail(trace, DiagnosticId::kProgramToggles, &applied);
    EXPECT_EQ(applied, 2) << detail;
    EXPECT_NE(detail.find("fused_optimizer: applied (AdamW built with fused=True)"),
              std::string::npos)
        << detail;
    EXPECT_NE(detail.find("loader_workers: applied (DataLoader built with num_workers=2)"),
              std::string::npos)
        << detail;
    EXPECT_NE(detail.find("hf_grouped_experts: not applied"), std::string::npos) << detail;
    EXPECT_TRUE(trace.findName("aten::_fused_adamw_").has_value());

    const Result unknown = run(fmt::format("profile --db {} --try fused_optimiser -- {} {}",
                                           path("bad.sqlite"), kPython, loader));
    EXPECT_EQ(unknown.exitCode, 1) << unknown.err;
    EXPECT_NE(unknown.err.find("no program toggle 'fused_optimiser'"), std::string::npos)
        << unknown.err;
    EXPECT_FALSE(fs::exists(path("bad.sqlite")));
    const Result count = run(fmt::format("profile --db {} --try loader_workers -- {} {}",
                                         path("bad.sqlite"), kPython, loader));
    EXPECT_EQ(count.exitCode, 1) << count.err;
}

// Layers are found by a global module hook that goes once the first optimizer step ends (it would
// put every module call on nn.Module's slower hooked path); each layer keeps its own hooks, and a
// layer whose forward raises is still left.
TEST_F(CliTest, ProfileKeepsRecordingLayersAfterItsGlobalModuleHookIsGone) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("layers.py"));
        script << "import torch\n"
                  "from torch.nn.modules import module\n"
                  "class Net(torch.nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in "
                  "range(2))\n"
                  "    def forward(self, x):\n"
                  "        for layer in self.layers:\n"
                  "            x = layer(x)\n"
                  "        return x\n"
                  "net = Net()\n"
                  "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
                  "for step in range(3):\n"
                  "    net(torch.randn(4, 8)).sum().backward()\n"
                  "    if step == 1:\n"
                  "        try:\n"
                  "            net.layers[0](torch.randn(4, 7))\n"
                  "        except RuntimeError:\n"
                  "            pass\n"
                  "    opt.step()\n"
                  "    opt.zero_grad()\n"
                  "    print('global hooks', len(module._global_forward_pre_hooks))\n";
    }
    const Result r =
        run(fmt::format("profile --db {} -- {} {}", path("l.sqlite"), kPython, path("layers.py")));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("global hooks 0\nglobal hooks 0\nglobal hooks 0"), std::string::npos)
        << r.out;
    const TraceReader reader(path("l.sqlite"));
    const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
    ASSERT_EQ(trace.steps().size(), 3u);
    const auto layers = rangesPerStep(trace, "nn.Module: Linear");
    EXPECT_EQ(layers.at(0), 2);
    EXPECT_EQ(layers.at(1), 3);  // the raising call is a range too, and is left
    EXPECT_EQ(layers.at(2), 2);
}

TEST_F(CliTest, ProfileTakesStepsFromProfilerStepsAndFromANamedRange) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("scheduled.py"));
        script
            << "import torch\n"
               "from torch.profiler import profile, schedule, ProfilerActivity, record_function\n"
               "m = torch.nn.Linear(8, 8)\n"
               "with profile(activities=[ProfilerActivity.CPU],\n"
               "             schedule=schedule(wait=0, warmup=1, active=2)) as p:\n"
               "    for i in range(4):\n"
               "        with record_function('train_step'):\n"
               "            m(torch.randn(4, 8)).sum().backward()\n"
               "        p.step()\n";
    }
    const Result r = run(
        fmt::format("profile --db {} -- {} {}", path("s.sqlite"), kPython, path("scheduled.py")));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    {
        const TraceReader reader(path("s.sqlite"));
        const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
        std::int64_t found = 0;
        EXPECT_EQ(diagnosticDetail(trace, DiagnosticId::kProfileStepSource, &found),
                  "profiler_step");
        ASSERT_GE(found, 3);
        EXPECT_EQ(trace.steps()[0].step, 0);
        EXPECT_EQ(trace.steps()[1].step, 1);
    }
    const Result named =
        run(fmt::format("profile --step-range train_step --warmup 0 --db {} -- {} {}",
                        path("n.sqlite"), kPython, path("scheduled.py")));
    ASSERT_EQ(named.exitCode, 0) << named.err;
    const TraceReader reader(path("n.sqlite"));
    const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
    std::int64_t found = 0;
    EXPECT_EQ(diagnosticDetail(trace, DiagnosticId::kProfileStepSource, &found), "step_range");
    EXPECT_EQ(found, 4);
    ASSERT_EQ(trace.steps().size(), 4u);
    EXPECT_FALSE(trace.steps()[0].warmup);
    // Each step's ops are the ops of its train_step range: a Linear's forward and backward.
    EXPECT_EQ(rangesPerStep(trace, "train_step").at(3), 1);
}

TEST_F(CliTest, ProfilePassesTheProgramsExitCodeThroughAndKeepsItsFinishedSteps) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("fails.py"));
        script << "import os, signal, sys, time, torch\n"
                  "m = torch.nn.Linear(4, 4); o = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                  "for i in range(2):\n"
                  "    m(torch.randn(2, 4)).sum().backward(); o.step(); o.zero_grad()\n"
                  "if sys.argv[1] == 'kill':\n"
                  "    time.sleep(0.5)  # the writer commits within 20 ms of a step's end\n"
                  "    os.kill(os.getpid(), signal.SIGKILL)\n"
                  "sys.exit(3)\n";
    }
    const Result exited = run(
        fmt::format("profile --db {} -- {} {} exit", path("e.sqlite"), kPython, path("fails.py")));
    EXPECT_EQ(exited.exitCode, 3) << exited.err;
    {
        const TraceReader reader(path("e.sqlite"));
        const RunSummary run = reader.listRuns().front();
        EXPECT_EQ(run.status, "aborted");
        const TraceModel trace = reader.loadRun(run.id);
        EXPECT_EQ(trace.steps().size(), 2u);
        std::int64_t code = 0;
        EXPECT_EQ(diagnosticDetail(trace, DiagnosticId::kProfileExit, &code), "exited with code 3");
        EXPECT_EQ(code, 3);
    }
    const Result killed = run(
        fmt::format("profile --db {} -- {} {} kill", path("k.sqlite"), kPython, path("fails.py")));
    EXPECT_EQ(killed.exitCode, 128 + 9) << killed.err;
    const TraceReader reader(path("k.sqlite"));
    const RunSummary run = reader.listRuns().front();
    EXPECT_EQ(run.displayStatus(), "aborted");
    EXPECT_EQ(reader.loadRun(run.id).steps().size(), 2u);  // committed at each step's end
}

TEST_F(CliTest, ProfileOfAProgramThatNeverImportsTorchStoresARunWithNoOpsAndSaysSo) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("plain.py"));
        script << "print('no torch here')\n";
    }
    const Result r =
        run(fmt::format("profile --db {} -- {} {}", path("t.sqlite"), kPython, path("plain.py")));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("never imported torch"), std::string::npos) << r.err;
    const TraceReader reader(path("t.sqlite"));
    const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
    EXPECT_EQ(opCount(trace), 0u);
    EXPECT_NE(diagnosticDetail(trace, DiagnosticId::kProfileNoTorch, nullptr), "<none>");
}

// A shell script (or valgrind, or any launcher that is not Python) that starts the training script:
// the Python it starts is captured through the start-up hook all the same.
TEST_F(CliTest, ProfileOfAShellScriptCapturesThePythonItStarts) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("train.sh"));
        script << "#!/bin/sh\nexec " << kPython << " " << kExample << " " << kSmall << "\n";
    }
    fs::permissions(path("train.sh"), fs::perms::owner_all);
    const Result r = run(fmt::format("profile --db {} -- {}", path("s.sqlite"), path("train.sh")));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("captures a Python program it starts"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("never imported torch"), std::string::npos) << r.err;
    const TraceReader reader(path("s.sqlite"));
    const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
    EXPECT_EQ(trace.steps().size(), 3u);
    EXPECT_GT(opCount(trace), 1000u);
}

TEST_F(CliTest, ProfileRefusesAMissingCommandAndAnotherTorchBeforeRunning) {
    const Result missing = run("profile --db " + path("m.sqlite") + " -- no-such-program-xyz");
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.err.find("command not found: 'no-such-program-xyz'"), std::string::npos)
        << missing.err;
    EXPECT_FALSE(fs::exists(path("m.sqlite")));

    // A python whose torch is another release: refused by name before it runs the script.
    fs::create_directories(path("other"));
    {
        std::ofstream fake(path("other/python3"));
        fake << "#!/bin/sh\n"
                "case \"$1\" in -c) printf 'glueprof-torch-version:1.13.0\\n"
                "glueprof-torch-location:/usr/lib/python3/dist-packages/torch\\n';;\n"
                "*) touch "
             << path("ran") << ";; esac\n";
    }
    fs::permissions(path("other/python3"), fs::perms::owner_all);
    const Result other =
        run("profile --db " + path("o.sqlite") + " -- " + path("other/python3") + " train.py");
    EXPECT_EQ(other.exitCode, 2);
    EXPECT_NE(other.err.find("would run torch 1.13.0"), std::string::npos) << other.err;
    EXPECT_NE(other.err.find("built against torch 2."), std::string::npos) << other.err;
    EXPECT_FALSE(fs::exists(path("ran")));
    EXPECT_FALSE(fs::exists(path("o.sqlite")));

    const Result empty = run("profile --db " + path("x.sqlite"));
    EXPECT_EQ(empty.exitCode, 1) << empty.err;

    // An option profile does not have is named as such, not with the words after "--".
    const Result bogus = run("profile --bogus --db " + path("x.sqlite") + " -- true --flag");
    EXPECT_EQ(bogus.exitCode, 1) << bogus.err;
    EXPECT_NE(bogus.err.find("profile has no option '--bogus'"), std::string::npos) << bogus.err;
    EXPECT_FALSE(fs::exists(path("x.sqlite")));
}

TEST_F(CliTest, ProfileRecordsACppLibtorchProgramThroughThePreloadedCapture) {
    const Result r = run(fmt::format("profile --step-range train_step --warmup 1 --db {} -- {} 4",
                                     path("c.sqlite"), GLUEPROF_NATIVE_EXAMPLE));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const TraceReader reader(path("c.sqlite"));
    const TraceModel trace = reader.loadRun(reader.listRuns().front().id);
    ASSERT_EQ(trace.steps().size(), 4u);
    EXPECT_TRUE(trace.steps()[0].warmup);
    EXPECT_GT(opCount(trace), 40u);
    EXPECT_EQ(rangesPerStep(trace, "build_packed_mask").at(2), 1);
}

// torchrun: the launcher records nothing, each rank records itself; the ranks are merged as
// `run --nproc` merges them (rank and world size, one group), their collectives are communication.
TEST_F(CliTest, ProfileOfTorchrunRecordsEachRankAndTheirCollectivesAsCommunication) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("ddp.py"));
        script << "import torch, torch.distributed as dist\n"
                  "dist.init_process_group('gloo')\n"
                  "m = torch.nn.Linear(16, 16); o = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                  "for i in range(3):\n"
                  "    m(torch.randn(4, 16)).pow(2).mean().backward()\n"
                  "    for p in m.parameters(): dist.all_reduce(p.grad)\n"
                  "    o.step(); o.zero_grad()\n"
                  "dist.destroy_process_group()\n";
    }
    const Result r =
        run(fmt::format("profile --db {} -- {} -m torch.distributed.run --nproc-per-node 2 {}",
                        path("r.sqlite"), kPython, path("ddp.py")));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("ranks (2 processes"), std::string::npos) << r.out;
    const TraceReader reader(path("r.sqlite"));
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    for (int rank = 0; rank < 2; ++rank) {
        const RunSummary& run = runs[static_cast<std::size_t>(rank)];
        EXPECT_EQ(run.label, "ddp.py");
        EXPECT_EQ(run.identity.rank, rank);
        EXPECT_EQ(run.identity.worldSize, 2);
        EXPECT_EQ(run.identity.abGroup, runs[0].id);
        const TraceModel trace = reader.loadRun(run.id);
        EXPECT_EQ(trace.steps().size(), 3u);
        std::size_t collectives = 0;
        const std::optional<StringId> allReduce = trace.findName("c10d::allreduce_");
        for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
            for (const Event& e : trace.eventsOnLane(lane)) {
                if (allReduce && e.name == *allReduce) {
                    ++collectives;
                    EXPECT_EQ(e.category, Category::kComm);
                }
            }
        }
        EXPECT_EQ(collectives, 6u);  // 2 parameters x 3 steps
    }
}

// Ctrl-C in a terminal reaches glueprof and the program, one process group: the program ends as
// it handles it (Python: KeyboardInterrupt, exit by SIGINT), glueprof keeps what it recorded and
// exits as the program did.
TEST_F(CliTest, CtrlCStopsTheProfiledProgramAndKeepsItsFinishedSteps) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("endless.py"));
        script << "import time, torch\n"
                  "m = torch.nn.Linear(4, 4); o = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                  "for i in range(100000):\n"
                  "    m(torch.randn(2, 4)).sum().backward(); o.step(); o.zero_grad()\n"
                  "    if i == 2: open('"
               << path("started")
               << "', 'w').close()\n"
                  "    time.sleep(0.01)\n";
    }
    const std::string db = path("i.sqlite");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::setpgid(0, 0);  // a terminal's foreground group: glueprof and the program in it
        const std::string out = path("out.txt");
        ::freopen(out.c_str(), "w", stdout);
        ::execl(GLUEPROF_CLI, GLUEPROF_CLI, "profile", "--db", db.c_str(), "--", kPython.c_str(),
                path("endless.py").c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    for (int i = 0; i < 600 && !fs::exists(path("started")); ++i) ::usleep(50'000);
    ASSERT_TRUE(fs::exists(path("started")));
    ::kill(-pid, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);  // the program's: ended by SIGINT
    const TraceReader reader(db);
    const RunSummary run = reader.listRuns().front();
    EXPECT_EQ(run.displayStatus(), "aborted");
    EXPECT_GE(reader.loadRun(run.id).steps().size(), 3u);
}

// SIGTERM to `ab --exec` while a program runs: glueprof passes it on and, once the program has
// ended (this one ends with exit 0, as a program that saves and leaves on SIGTERM does), stops the
// A/B instead of starting the next program: exit 143, nothing stored, no scratch database left.
TEST_F(CliTest, SigtermStopsAbExecAfterTheProgramInFlightAndStoresNothing) {
    SKIP_WITHOUT_PYTHON();
    {
        std::ofstream script(path("polite.py"));
        script << "import signal, time, torch\n"
                  "stop = []\n"
                  "signal.signal(signal.SIGTERM, lambda *a: stop.append(1))\n"
                  "m = torch.nn.Linear(4, 4); o = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                  "for i in range(200):\n"
                  "    m(torch.randn(2, 4)).sum().backward(); o.step(); o.zero_grad()\n"
                  "    if i == 2: open('"
               << path("started")
               << "', 'w').close()\n"
                  "    if stop: break\n"
                  "    time.sleep(0.01)\n";
    }
    const std::string db = path("ab.sqlite");
    const std::string command = fmt::format("{} {}", kPython, path("polite.py"));
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const std::string err = path("err.txt");
        ::freopen(err.c_str(), "w", stderr);
        ::execl(GLUEPROF_CLI, GLUEPROF_CLI, "ab", "--baseline", command.c_str(), "--optimized",
                command.c_str(), "--repeats", "2", "--db", db.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    for (int i = 0; i < 600 && !fs::exists(path("started")); ++i) ::usleep(50'000);
    ASSERT_TRUE(fs::exists(path("started")));
    ::kill(pid, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 143);
    std::ifstream errors(path("err.txt"));
    const std::string err((std::istreambuf_iterator<char>(errors)), {});
    EXPECT_NE(err.find("interrupted by SIGTERM: nothing of this A/B is stored (it was in block 1)"),
              std::string::npos)
        << err;
    EXPECT_FALSE(fs::exists(db));
    for (const auto& entry : fs::directory_iterator(m_dir))
        EXPECT_EQ(entry.path().filename().string().find("exec-ab"), std::string::npos);
}

// ab --exec: the example's two versions (with and without the packed cache) in interleaved blocks,
// stored as an A/B pair every reader compares as a toggle's: the target named by --target gets its
// verdict, the losses match bit for bit, the mask builds per step drop from one per layer to one.
// ab --exec --try: the optimized arm runs the same command with the toggle made inside it, and
// what the toggle did in that arm is said after the verdicts; a toggle with nothing to change is
// said to leave both arms the same program.
TEST_F(CliTest, AbExecTryRunsTheOptimizedArmWithTheToggleAndSaysWhatItDid) {
    SKIP_WITHOUT_PYTHON();
    const std::string loader =
        std::string(GLUEPROF_SOURCE_DIR) + "/examples/python/loader_bound_train.py";
    const Result r = run(fmt::format(
        "ab --exec \"{} {} --steps 3 --work 2\" --try loader_workers=2 --repeats 2 --db {} "
        "--report {}",
        kPython, loader, path("try.sqlite"), path("try.md")));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.err.find("--try in the optimized arm: loader_workers: applied (DataLoader built "
                         "with num_workers=2)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("left both arms the same program"), std::string::npos) << r.err;

    const Result none =
        run(fmt::format("ab --exec \"{} {}\" --try hf_sdpa --repeats 2 --db {} --report {}",
                        kPython, kExample + " " + kSmall, path("none.sqlite"), path("none.md")));
    ASSERT_EQ(none.exitCode, 0) << none.err << none.out;
    EXPECT_NE(none.err.find("hf_sdpa: not applied"), std::string::npos) << none.err;
    EXPECT_NE(none.err.find("left both arms the same program"), std::string::npos) << none.err;
    const Result alone =
        run(fmt::format("ab --baseline \"{} {}\" --optimized \"{} {}\" --try "
                        "fused_optimizer --db {}",
                        kPython, loader, kPython, loader, path("a.sqlite")));
    EXPECT_EQ(alone.exitCode, 1) << alone.err;
}

TEST_F(CliTest, AbExecComparesTwoVersionsOfAProgramAsAToggleIsCompared) {
    SKIP_WITHOUT_PYTHON();
    const Result r = run(fmt::format(
        "ab --exec \"{} {} {}\" --optimized-args=--packed-cache --target build_packed_mask "
        "--name packed_cache_py --repeats 2 --db {} --report {} --json",
        kPython, kExample, kSmall, path("ab.sqlite"), path("ab.md")));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["comparisons"].size(), 1u) << r.out;
    const nlohmann::json& c = j["comparisons"][0];
    EXPECT_EQ(c["toggle"], "packed_cache_py");
    EXPECT_EQ(c["target"]["name"], "mask_build_ms") << c.dump();
    EXPECT_TRUE(c["loss_recorded"].get<bool>());
    EXPECT_TRUE(c["loss_equal"].get<bool>());
    EXPECT_TRUE(fs::exists(path("ab.md")));
    // The mask builds counted from the program's build_packed_mask ranges; what only the
    // reference trainer counts (which builds are a recompute, its reloads) is not stored as 0.
    std::map<std::string, std::pair<double, double>> counters;
    for (const nlohmann::json& k : c["counters"])
        counters[k["name"].get<std::string>()] = {k["baseline"], k["optimized"]};
    ASSERT_EQ(counters.count("mask_builds_per_step"), 1u) << c["counters"].dump();
    EXPECT_EQ(counters.at("mask_builds_per_step"), std::make_pair(2.0, 1.0));
    for (const char* untracked :
         {"mask_builds_forward_per_step", "reloads_per_step", "offload_bytes_per_step"})
        EXPECT_EQ(counters.count(untracked), 0u) << untracked;
    // Nothing of the scratch database is left beside the database.
    for (const auto& entry : fs::directory_iterator(m_dir))
        EXPECT_EQ(entry.path().filename().string().find("exec-ab"), std::string::npos);

    const TraceReader reader(path("ab.sqlite"));
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].identity.arm, Arm::kBaseline);
    EXPECT_EQ(runs[1].identity.arm, Arm::kOptimized);
    EXPECT_EQ(runs[1].identity.abGroup, runs[0].id);
    for (std::size_t arm = 0; arm < 2; ++arm) {
        const TraceModel trace = reader.loadRun(runs[arm].id);
        ASSERT_EQ(trace.steps().size(), 6u);  // 2 blocks of 3 steps, numbered on
        EXPECT_EQ(trace.steps()[3].block, 2);
        EXPECT_TRUE(trace.steps()[3].warmup);
        const auto masks = rangesPerStep(trace, "build_packed_mask");
        for (std::int32_t step : {1, 2, 4, 5}) {
            ASSERT_EQ(masks.count(step), 1u) << step;
            EXPECT_EQ(masks.at(step), arm == 0 ? 2 : 1) << step;
        }
    }
}

// A --db that could not take the runs (a text file here) is refused before the program runs, by
// profile and by ab --exec alike: the program does not run, the file is as it was, and nothing
// is left beside it.
TEST_F(CliTest, ProfileAndAbExecRefuseADatabaseThatIsNotATraceBeforeTheProgramRuns) {
    {
        std::ofstream notes(path("notes.txt"));
        notes << "my notes\n";
        std::ofstream script(path("mark.sh"));
        script << "#!/bin/sh\ntouch " << path("ran") << "\n";
    }
    fs::permissions(path("mark.sh"), fs::perms::owner_all);
    for (const std::string& command :
         {fmt::format("profile --db {} -- {}", path("notes.txt"), path("mark.sh")),
          fmt::format("ab --exec {} --optimized-env X=1 --db {}", path("mark.sh"),
                      path("notes.txt"))}) {
        const Result r = run(command);
        EXPECT_EQ(r.exitCode, 2) << command << ": " << r.err;
        EXPECT_NE(r.err.find("is not an SQLite database"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("ran"))) << command;
        std::ifstream notes(path("notes.txt"));
        std::string line;
        std::getline(notes, line);
        EXPECT_EQ(line, "my notes");
        for (const auto& entry : fs::directory_iterator(m_dir)) {
            const std::string name = entry.path().filename().string();
            EXPECT_TRUE(name == "notes.txt" || name == "mark.sh" || name == "out.txt" ||
                        name == "err.txt")
                << name;
        }
    }
    // An empty file is no refusal: the first write makes it a trace (`touch runs.sqlite`).
    { std::ofstream empty(path("empty.sqlite")); }
    const Result fromEmpty =
        run(fmt::format("profile --db {} -- {}", path("empty.sqlite"), path("mark.sh")));
    EXPECT_EQ(fromEmpty.exitCode, 0) << fromEmpty.err;
    EXPECT_TRUE(fs::exists(path("ran")));
    EXPECT_EQ(TraceReader(path("empty.sqlite")).listRuns().size(), 1u);
}

// An A/B whose programs measured no step (more warm-up steps than the program runs) has no
// verdict, and says so; a report that cannot be written still leaves the verdicts on stdout
// before exit 2.
TEST_F(CliTest, AbExecWithoutMeasuredStepsHasNoVerdictAndShowsItEvenWhenTheReportFails) {
    SKIP_WITHOUT_PYTHON();
    const std::string ab = fmt::format(
        "ab --exec \"{} {} --steps 2 --layers 1 --seq-len 32 --d-model 32\" "
        "--optimized-args=--packed-cache --warmup 5 --repeats 1 --db {}",
        kPython, kExample, path("ab.sqlite"));
    const Result r = run(ab + " --report " + path("ab.md"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("no verdict (nothing measured)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("no significant change"), std::string::npos) << r.out;

    // The report path is an SQLite file (another database): refused at the end, once the A/B is
    // stored, so the table is shown first.
    fs::copy_file(path("ab.sqlite"), path("other.sqlite"));
    const Result refused = run(ab + " --report " + path("other.sqlite"));
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("is an SQLite database"), std::string::npos) << refused.err;
    EXPECT_NE(refused.out.find("no verdict (nothing measured)"), std::string::npos) << refused.out;
}

// A reference-trainer option given to ab --exec is refused by name (usage, exit 1) before anything
// runs, never silently ignored: --seed, --hidden and --lora-rank as much as --steps.
TEST_F(CliTest, AbExecRefusesEveryReferenceTrainerOptionByName) {
    for (const char* option : {"--seed 3", "--hidden 64", "--lora-rank 4", "--steps 2"}) {
        const std::string name = std::string(option).substr(0, std::string(option).find(' '));
        const Result r =
            run(fmt::format("ab --exec \"{} {}\" --optimized-args=--packed-cache {} "
                            "--db {}",
                            kPython, kExample, option, path("x.sqlite")));
        EXPECT_EQ(r.exitCode, 1) << option << ": " << r.err;
        EXPECT_NE(r.err.find(name + " sets up the reference trainer"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("x.sqlite")));
    }
    // An empty --exec is refused as a usage error, not taken for the trainer's A/B.
    const Result empty = run("ab --exec \"\" --optimized-env X=1 --db " + path("x.sqlite"));
    EXPECT_EQ(empty.exitCode, 1) << empty.err;
    EXPECT_NE(empty.err.find("needs a command for each arm"), std::string::npos) << empty.err;
}

}  // namespace
}  // namespace glueprof

#undef SKIP_WITHOUT_PYTHON  // a unity group carries a macro into the files after it

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>

#include "optimizations/activation_offload/ActivationOffload.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {
namespace {

constexpr std::int64_t kLayers = 5;

// One step of forward offloads and a backward in reverse layer order, as LayerCheckpoint drives
// it; returns whether every reload gave back exactly the bytes offloaded.
bool stepReturnsExactBytes(ActivationOffloader& offloader, int step) {
    offloader.beginStep();
    std::vector<torch::Tensor> inputs;
    std::vector<bool> offloaded;
    for (std::int64_t layer = 0; layer < kLayers; ++layer) {
        inputs.push_back(torch::randn({1, 16, 8}) + step);
        offloaded.push_back(offloader.offload(layer, inputs.back()));
    }
    bool exact = true;
    for (std::int64_t layer = kLayers - 1; layer >= 0; --layer) {
        offloader.beforeRecompute(layer);
        if (offloaded[static_cast<std::size_t>(layer)]) {
            torch::Tensor back = offloader.reloaded(layer).clone();
            exact = exact && torch::equal(back, inputs[static_cast<std::size_t>(layer)]);
        }
        offloader.afterRecompute(layer);
        offloader.afterBackward(layer);
    }
    return exact;
}

TEST(ActivationOffloadTest, ReloadReturnsExactlyTheOffloadedBytesInEveryMode) {
    for (OffloadSettings settings : {OffloadSettings{OffloadMode::kSingleBuffer, false},
                                     OffloadSettings{OffloadMode::kDoubleBuffer, false},
                                     OffloadSettings{OffloadMode::kDoubleBuffer, true}}) {
        ActivationOffloader offloader(settings, torch::kCPU, kLayers, 0, nullptr);
        for (int step = 0; step < 3; ++step) {
            EXPECT_TRUE(stepReturnsExactBytes(offloader, step))
                << toString(settings.mode) << " step " << step;
        }
    }
}

TEST(ActivationOffloadTest, BuffersAreAllocatedOnceAndReusedAcrossSteps) {
    ActivationOffloader offloader({OffloadMode::kDoubleBuffer, false}, torch::kCPU, kLayers, 0,
                                  nullptr);
    const std::int64_t inputBytes = 16 * 8 * 4;
    stepReturnsExactBytes(offloader, 0);
    EXPECT_FALSE(offloader.doubleBuffered());  // the first step is single-buffered
    EXPECT_EQ(offloader.deviceBuffers(), 1);
    stepReturnsExactBytes(offloader, 1);
    EXPECT_TRUE(offloader.doubleBuffered());
    EXPECT_EQ(offloader.deviceBuffers(), 2);
    const std::int64_t host = offloader.hostBytes();
    const std::int64_t device = offloader.deviceBufferBytes();
    EXPECT_EQ(host, (kLayers - 1) * inputBytes);  // every layer but the last
    EXPECT_EQ(device, 2 * inputBytes);
    for (int step = 2; step < 6; ++step) stepReturnsExactBytes(offloader, step);
    EXPECT_EQ(offloader.hostBytes(), host);
    EXPECT_EQ(offloader.deviceBufferBytes(), device);
    EXPECT_EQ(offloader.fallbacks(), 0);
}

// The production CPU engine, observed: what each reload's copy waits for.
class GateRecordingEngine : public CopyEngine {
  public:
    GateRecordingEngine() : m_engine(makeCopyEngine(torch::kCPU, nullptr)) {}
    CopyEventPtr markCompute() override { return m_engine->markCompute(); }
    CopyEventPtr copy(CopyJob job, const CopyEventPtr& after) override {
        if (std::string(job.name) == names::kReload) {
            ++reloads;
            if (!after) ++ungatedReloads;
        }
        return m_engine->copy(std::move(job), after);
    }
    bool computeWaits(const CopyEventPtr& event) override { return m_engine->computeWaits(event); }
    void drain() override { m_engine->drain(); }
    bool computeIsHostThread() const override { return m_engine->computeIsHostThread(); }

    int reloads = 0;
    int ungatedReloads = 0;

  private:
    std::unique_ptr<CopyEngine> m_engine;
};

// Buffer 1's first use (the first double-buffered step) has no last use to wait for: its reload
// must still wait for the compute, or the copy could overwrite what the compute reads. Every reload
// is gated, in every mode and step.
TEST(ActivationOffloadTest, EveryReloadWaitsForSomethingEvenOnABuffersFirstUse) {
    for (OffloadSettings settings : {OffloadSettings{OffloadMode::kSingleBuffer, false},
                                     OffloadSettings{OffloadMode::kDoubleBuffer, false},
                                     OffloadSettings{OffloadMode::kDoubleBuffer, true}}) {
        auto engine = std::make_unique<GateRecordingEngine>();
        GateRecordingEngine* seen = engine.get();
        {
            ActivationOffloader offloader(settings, torch::kCPU, kLayers, 0, nullptr,
                                          std::move(engine));
            for (int step = 0; step < 3; ++step)
                EXPECT_TRUE(stepReturnsExactBytes(offloader, step));
            offloader.drain();
            EXPECT_EQ(seen->reloads, 3 * (kLayers - 1)) << toString(settings.mode);
            EXPECT_EQ(seen->ungatedReloads, 0) << toString(settings.mode);
        }
    }
}

TEST(ActivationOffloadTest, SmallInputsAndTheLastLayerStayOnTheDevice) {
    ActivationOffloader offloader({OffloadMode::kSingleBuffer, false}, torch::kCPU, 3, 1024,
                                  nullptr);
    offloader.beginStep();
    EXPECT_FALSE(offloader.offload(0, torch::zeros({10})));    // 40 bytes < 1024
    EXPECT_TRUE(offloader.offload(1, torch::zeros({1024})));   // 4 KiB
    EXPECT_FALSE(offloader.offload(2, torch::zeros({1024})));  // the last layer
    ActivationOffloader off({OffloadMode::kOff, false}, torch::kCPU, 3, 0, nullptr);
    EXPECT_FALSE(off.offload(0, torch::zeros({1024})));
    offloader.drain();
}

}  // namespace
}  // namespace glueprof

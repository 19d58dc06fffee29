#pragma once
// What the jobs of one step hand each other, and the step's first failure. A job publishes its
// outputs (activations, the gradient of its input, its parameters' gradients, a micro-batch's loss)
// in one go; another job awaits the tensor it needs and blocks until it is there. A failed job
// wakes every waiter, so no worker waits for an output that will never come.
#include <torch/torch.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace glueprof {

// A trainable parameter (master or replica) -> its index among Trainer::trainableParameters(),
// i.e. its slot in HandOffs::parameterGrads.
using ParameterIndex = std::map<const void*, std::size_t>;

class HandOffs {
  public:
    using Key = std::pair<std::int64_t, int>;  // (layer, micro-batch)
    enum class Kind {
        kActivation,  // (layer, mb) -> that layer's input
        kGradient,    // (layer, mb) -> the gradient of that layer's input
    };
    // One job's outputs, published together.
    struct Outputs {
        std::vector<std::pair<Key, torch::Tensor>> activations;
        std::vector<std::pair<Key, torch::Tensor>> gradients;
        // (parameter index, gradient part) in the job's parameter order.
        std::vector<std::pair<std::size_t, torch::Tensor>> parameterGrads;
        std::optional<torch::Tensor> loss;  // the micro-batch's loss (already / M, float)
    };

    HandOffs(int microbatches, std::size_t parameters);

    void publish(int microbatch, Outputs outputs);
    // The tensor published under `key`, once it is; nullopt when the step failed meanwhile.
    std::optional<torch::Tensor> await(Kind kind, const Key& key);
    // Records the step's first failure and wakes every job waiting for a hand-off.
    void fail(std::exception_ptr failure);
    bool failed() const;
    std::exception_ptr failure() const;

    // Read once every job has ended (no lock).
    // [mb][parameter]: its gradient, in parts (a tied embedding meets two stages); summed by the
    // optimizer.
    const std::vector<std::vector<std::vector<torch::Tensor>>>& parameterGrads() const {
        return m_parameterGrads;
    }
    const std::vector<torch::Tensor>& losses() const { return m_losses; }  // per micro-batch

  private:
    mutable std::mutex m_mutex;
    std::condition_variable m_published;
    std::map<Key, torch::Tensor> m_activations;
    std::map<Key, torch::Tensor> m_gradients;
    std::vector<std::vector<std::vector<torch::Tensor>>> m_parameterGrads;
    std::vector<torch::Tensor> m_losses;
    std::exception_ptr m_failure;
};

}  // namespace glueprof

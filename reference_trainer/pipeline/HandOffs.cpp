#include "reference_trainer/pipeline/HandOffs.h"

namespace glueprof {

HandOffs::HandOffs(int microbatches, std::size_t parameters)
    : m_parameterGrads(static_cast<std::size_t>(microbatches),
                       std::vector<std::vector<torch::Tensor>>(parameters)),
      m_losses(static_cast<std::size_t>(microbatches)) {}

void HandOffs::publish(int microbatch, Outputs outputs) {
    const auto mb = static_cast<std::size_t>(microbatch);
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto& [key, tensor] : outputs.activations) m_activations[key] = std::move(tensor);
    for (auto& [key, tensor] : outputs.gradients) m_gradients[key] = std::move(tensor);
    // Several jobs may add parts of one parameter's gradient (a tied embedding): under the lock.
    for (auto& [index, part] : outputs.parameterGrads)
        m_parameterGrads[mb][index].push_back(std::move(part));
    if (outputs.loss) m_losses[mb] = std::move(*outputs.loss);
    m_published.notify_all();
}

std::optional<torch::Tensor> HandOffs::await(Kind kind, const Key& key) {
    const std::map<Key, torch::Tensor>& from =
        kind == Kind::kActivation ? m_activations : m_gradients;
    std::unique_lock<std::mutex> lock(m_mutex);
    m_published.wait(lock, [&] { return m_failure || from.count(key) != 0; });
    if (m_failure) return std::nullopt;
    return from.at(key);
}

void HandOffs::fail(std::exception_ptr failure) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_failure) m_failure = std::move(failure);
    m_published.notify_all();  // wake workers waiting on the failed job's output
}

bool HandOffs::failed() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return static_cast<bool>(m_failure);
}

std::exception_ptr HandOffs::failure() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_failure;
}

}  // namespace glueprof

#pragma once
// A Llama/Qwen3/gpt-oss-shaped decoder: embedding, L x (RMSNorm, attention, RMSNorm, SwiGLU MLP
// or MoE) with residuals, final RMSNorm, LM head (or the tied embedding). With checkpointing, each layer keeps only its input in
// forward (on the device, or offloaded to host memory) and is recomputed in backward
// (LayerCheckpoint).
#include <torch/torch.h>

#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/model/Attention.h"
#include "reference_trainer/model/Blocks.h"
#include "reference_trainer/model/ForwardContext.h"
#include "reference_trainer/model/Moe.h"

namespace glueprof {

class DecoderLayerImpl : public torch::nn::Module {
public:
    DecoderLayerImpl(const ModelConfig& config, const LoraConfig& lora, std::int64_t index);
    torch::Tensor forward(const torch::Tensor& x, const ForwardContext& context);  // [1,T,H]
    std::int64_t index() const { return m_index; }

private:
    std::int64_t m_index;
    RMSNorm m_inputNorm{nullptr}, m_postNorm{nullptr};
    Attention m_attention{nullptr};
    Mlp m_mlp{nullptr};  // dense models
    Moe m_moe{nullptr};  // MoE models
};
TORCH_MODULE(DecoderLayer);

class DecoderImpl : public torch::nn::Module {
public:
    // Under LoRA only the adapters train: embedding, norms, router, experts and LM head are frozen.
    DecoderImpl(const ModelConfig& config, const LoraConfig& lora, std::int64_t maxPositions,
                bool checkpoint);
    // tokens [1,T] -> logits [1,T,V]; context.ropeCos/ropeSin are filled here from positions.
    // With checkpointing, `context` must live until this micro-batch's backward has run.
    torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& positions,
                          ForwardContext& context);

private:
    ModelConfig m_config;
    bool m_checkpoint;
    torch::nn::Embedding m_embed{nullptr};
    std::vector<DecoderLayer> m_layers;
    RMSNorm m_norm{nullptr};
    torch::nn::Linear m_lmHead{nullptr};
    RotaryTables m_rotary;
};
TORCH_MODULE(Decoder);

}  // namespace glueprof

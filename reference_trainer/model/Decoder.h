#pragma once
// A Llama/Qwen3/gpt-oss-shaped decoder: embedding, L x (RMSNorm, attention, RMSNorm, SwiGLU MLP
// or MoE) with residuals, final RMSNorm, LM head (or the tied embedding). With checkpointing, each
// layer keeps only its input in forward (on the device, or offloaded to host memory) and is
// recomputed in backward (LayerCheckpoint).
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

    // The same model in pieces, for the pipeline executor (reference_trainer/PipelineExecutor):
    // forward() = head(runLayers(embed(...), 0, layers)) with checkpointing applied per layer.
    // embed fills context's rotary tables (fillRotary) and returns the hidden states [1,T,H];
    // embedTokens only the latter (for a context whose tables are filled already).
    torch::Tensor embed(const torch::Tensor& tokens, const torch::Tensor& positions,
                        ForwardContext& context);
    torch::Tensor embedTokens(const torch::Tensor& tokens) { return m_embed(tokens); }
    void fillRotary(const torch::Tensor& positions,
                    ForwardContext& context);  // context.ropeCos/ropeSin
    // Layers [first, first + count) without checkpointing (the caller decides what to keep).
    torch::Tensor runLayers(torch::Tensor h, std::int64_t first, std::int64_t count,
                            const ForwardContext& context);
    torch::Tensor head(const torch::Tensor& h);  // final norm + LM head -> logits [1,T,V]
    std::int64_t layerCount() const { return static_cast<std::int64_t>(m_layers.size()); }
    // Parameters of layer i, of the embedding, of the head (norm + LM head; the tied embedding
    // too).
    std::vector<torch::Tensor> layerParameters(std::int64_t i) const;
    std::vector<torch::Tensor> embedParameters() const;
    std::vector<torch::Tensor> headParameters() const;
    // Everything a stage's compute reads (parameters and buffers, e.g. NF4 codes), in a fixed
    // order: what a pipeline worker uploads into its own replica of the model.
    std::vector<torch::Tensor> layerState(std::int64_t i) const;
    std::vector<torch::Tensor> embedState() const;
    std::vector<torch::Tensor> headState() const;
    std::vector<torch::Tensor> state() const;  // the whole model's

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

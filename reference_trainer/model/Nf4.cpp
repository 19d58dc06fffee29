#include "reference_trainer/model/Nf4.h"

#include <algorithm>

namespace glueprof {

const std::array<float, 16>& nf4CodeBook() {
    static const std::array<float, 16> kCodeBook = {
        -1.0F,
        -0.6961928009986877F,
        -0.5250730514526367F,
        -0.39491748809814453F,
        -0.28444138169288635F,
        -0.18477343022823334F,
        -0.09105003625154495F,
        0.0F,
        0.07958029955625534F,
        0.16093020141124725F,
        0.24611230194568634F,
        0.33791524171829224F,
        0.44070982933044434F,
        0.5626170039176941F,
        0.7229568362236023F,
        1.0F,
    };
    return kCodeBook;
}

double nf4MaxRelativeError() {
    const auto& book = nf4CodeBook();
    double widest = 0.0;
    for (std::size_t i = 1; i < book.size(); ++i)
        widest = std::max(widest, double(book[i] - book[i - 1]));
    return widest / 2.0;
}

std::int64_t Nf4Tensor::bytes() const {
    return static_cast<std::int64_t>(packedCodes.nbytes() + absmax.nbytes());
}

namespace {
torch::Tensor codeBookTensor(const torch::Device& device) {
    const auto& book = nf4CodeBook();
    return torch::tensor(std::vector<float>(book.begin(), book.end()),
                         torch::TensorOptions().dtype(torch::kFloat).device(device));
}
}  // namespace

Nf4Tensor quantizeNf4(const torch::Tensor& weight) {
    torch::NoGradGuard noGrad;
    Nf4Tensor q;
    q.shape = weight.sizes().vec();
    q.numel = weight.numel();
    const std::int64_t blocks = (q.numel + kNf4BlockSize - 1) / kNf4BlockSize;
    torch::Tensor flat = weight.detach().to(torch::kFloat).reshape({-1});
    flat = torch::constant_pad_nd(flat, {0, blocks * kNf4BlockSize - q.numel}, 0);
    torch::Tensor grid = flat.view({blocks, kNf4BlockSize});
    q.absmax = grid.abs().amax(1);  // [blocks]
    torch::Tensor scale = torch::where(q.absmax > 0, q.absmax, torch::ones_like(q.absmax));
    torch::Tensor normalized = (grid / scale.unsqueeze(1)).reshape({-1});  // in [-1, 1]
    // The nearest code: bucketize against the midpoints between neighbouring code values.
    torch::Tensor book = codeBookTensor(weight.device());
    torch::Tensor midpoints = (book.narrow(0, 0, 15) + book.narrow(0, 1, 15)) / 2;
    torch::Tensor codes = torch::bucketize(normalized, midpoints).to(torch::kUInt8);  // 0..15
    if (codes.numel() % 2 != 0) codes = torch::constant_pad_nd(codes, {0, 1}, 0);
    torch::Tensor pairs = codes.view({-1, 2});
    q.packedCodes = (pairs.select(1, 0) * 16 + pairs.select(1, 1)).contiguous();
    return q;
}

torch::Tensor dequantizeNf4(const Nf4Tensor& q, torch::ScalarType dtype) {
    torch::Tensor high = torch::floor_divide(q.packedCodes, 16);
    torch::Tensor low = torch::remainder(q.packedCodes, 16);
    torch::Tensor codes = torch::stack({high, low}, 1).reshape({-1}).to(torch::kLong);
    torch::Tensor values = codeBookTensor(q.packedCodes.device()).index_select(0, codes);
    const std::int64_t blocks = q.absmax.size(0);
    torch::Tensor grid = values.narrow(0, 0, blocks * kNf4BlockSize).view({blocks, kNf4BlockSize});
    torch::Tensor weight = (grid * q.absmax.unsqueeze(1)).reshape({-1}).narrow(0, 0, q.numel);
    return weight.view(q.shape).to(dtype);
}

}  // namespace glueprof

// fieldTransform (lib/native.ts): the NTT and the geometric-sequence product of cpu/ntt.hpp over a
// curve's scalar field, as Promise-returning async work (lib/snarkjs-field.ts hooks snarkjs's
// Fr.fft / Fr.ifft / Fr.batchApplyKey with it).
#pragma once

#include <napi.h>

namespace msm::addon {

// fieldTransform(curve, op, data, a, b, threads) → Promise<Uint8Array>: data (a Uint8Array or
// parts) of elements in Montgomery form, copied at the call; op 0, the NTT of a power-of-two
// length with root a and scale b (null: none); op 1, data[i] · a · b^i. Elements, a and b must be
// below the modulus (ERR_INVALID_ARGUMENT naming the index otherwise).
Napi::Value field_transform(const Napi::CallbackInfo& info);

}  // namespace msm::addon

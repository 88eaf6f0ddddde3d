// fieldTransform and groth16Qap (lib/native.ts). fieldTransform: the NTT and the geometric-sequence product of cpu/ntt.hpp over a
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

// groth16Qap(curve, op, data, witness, log2 n, roots, threads) → Promise<Uint8Array>: the quotient
// polynomial's parts of a Groth16 proof from snarkjs's zkey (cpu/qap.hpp; lib/groth16.ts), the
// inputs copied at the call. data: zkey section 4's entries (after its count) for ops 0 and 2,
// a‖b‖c for op 1; witness: .wtns section 2 (standard form). op 0 (buildABC): A‖B‖C on the domain,
// Montgomery form. op 1 (joinABC): a·b − c out of Montgomery form. op 2: buildABC, the coset
// transforms and joinABC in one, roots = w‖w⁻¹‖1/n‖inc (Montgomery form). ERR_INVALID_ARGUMENT
// naming the zkey or wtns section and the index for an entry or element that cannot be used.
Napi::Value groth16_qap(const Napi::CallbackInfo& info);

}  // namespace msm::addon

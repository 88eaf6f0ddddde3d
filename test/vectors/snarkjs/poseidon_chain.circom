pragma circom 2.1.0;

// A chain of circomlib's Poseidon: h₀ = a·b, hᵢ = Poseidon(hᵢ₋₁) for 1 ≤ i ≤ N, out = h_N;
// `a` public, `b` private. make-fixtures.js compiles it for BN254 and for BLS12-381 (circomlib's
// Poseidon constants are BN254's: over the BLS12-381 scalar field this is a valid circuit, if
// not a standard hash, which is all the tests need). N = 1 keeps every protocol's domain at 2^9
// (416 R1CS constraints, 418 PLONK ones with --O1), and so the committed keys small: with
// N = 2 they would be 2^10 and twice the bytes.
include "circomlib/circuits/poseidon.circom";

template PoseidonChain(N) {
    signal input a;
    signal input b;
    signal output out;
    signal h[N + 1];
    component hash[N];
    h[0] <== a * b;
    for (var i = 1; i <= N; i++) {
        hash[i - 1] = Poseidon(1);
        hash[i - 1].inputs[0] <== h[i - 1];
        h[i] <== hash[i - 1].out;
    }
    out <== h[N];
}

component main {public [a]} = PoseidonChain(1);

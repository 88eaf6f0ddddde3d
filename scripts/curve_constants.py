#!/usr/bin/env python3
"""Derives and checks the constants in cuda/curves/*.hpp from each curve's defining numbers.

Run: python3 scripts/curve_constants.py [--emit]
Checks: p and r prime (Miller-Rabin), G on y^2 = x^3 + b, r*G = O, #E = h*r (via the trace
t = p + 1 - #E from the BLS/BN parametrisation), beta a primitive cube root of unity mod p with
phi(G) = lambda*G for lambda = -u^2 mod r (the eigenvalue used by the G1 membership test of
Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves",
ePrint 2021/1130, section 4). With --emit prints the C++ limb tables.
"""
import random
import sys

def is_prime(n, k=40):
    if n < 2:
        return False
    for q in (2, 3, 5, 7, 11, 13):
        if n % q == 0:
            return n == q
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2; s += 1
    rnd = random.Random(1)
    for _ in range(k):
        a = rnd.randrange(2, n - 1)
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True

# Affine short-Weierstrass arithmetic (a = 0); None is the point at infinity.
def ec_add(P, Q, p):
    if P is None: return Q
    if Q is None: return P
    if P[0] == Q[0]:
        if (P[1] + Q[1]) % p == 0: return None
        l = 3 * P[0] * P[0] * pow(2 * P[1], -1, p) % p
    else:
        l = (Q[1] - P[1]) * pow(Q[0] - P[0], -1, p) % p
    x = (l * l - P[0] - Q[0]) % p
    return (x, (l * (P[0] - x) - P[1]) % p)

def ec_mul(k, P, p):
    R = None
    while k:
        if k & 1: R = ec_add(R, P, p)
        P = ec_add(P, P, p); k >>= 1
    return R

def bn(u):
    p = 36*u**4 + 36*u**3 + 24*u**2 + 6*u + 1
    r = 36*u**4 + 36*u**3 + 18*u**2 + 6*u + 1
    return p, r, 1  # cofactor 1

def bls12(u):
    r = u**4 - u**2 + 1
    p = (u - 1)**2 * r // 3 + u
    h = (u - 1)**2 // 3
    return p, r, h

CURVES = {
    'bn254': dict(u=4965661367192848881, fam=bn, b=3, G=(1, 2)),
    'bls12_381': dict(u=-0xd201000000010000, fam=bls12, b=4, G=(
        0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
        0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)),
    'bls12_377': dict(u=0x8508c00000000001, fam=bls12, b=1, G=(
        0x008848defe740a67c8fc6225bf87ff5485951e2caa9d41bb188282c8bd37cb5cd5481512ffcd394eeab9b16eb21be9ef,
        0x01914a69c5102eff1f674f5d30afeec4bd7fb348ca3e52d96d182ad44fb82305c2fe3d3634a9591afd82de55559c8ea6)),
}

def derive(name):
    c = CURVES[name]
    p, r, h = c['fam'](c['u'])
    assert is_prime(p) and is_prime(r), name
    G, b = c['G'], c['b']
    assert (G[1]**2 - G[0]**3 - b) % p == 0, name + ': G not on curve'
    assert ec_mul(r, G, p) is None, name + ': r*G != O'
    n = 4 if p.bit_length() <= 256 else 6
    out = dict(p=p, r=r, h=h, b=b, G=G, n=n, u=c['u'])
    if c['fam'] is bls12:
        lam = (-c['u']**2) % r
        assert (lam * lam + lam + 1) % r == 0
        g = 2
        while True:
            beta = pow(g, (p - 1) // 3, p)
            if beta != 1: break
            g += 1
        if ec_mul(lam, G, p) != (beta * G[0] % p, G[1]):
            beta = beta * beta % p
        assert ec_mul(lam, G, p) == (beta * G[0] % p, G[1]), name + ': beta'
        out['beta'] = beta
    return out

def mont(n, bits):
    R = 1 << bits
    return dict(R1=R % n, R2=R * R % n, inv64=(-pow(n, -1, 1 << 64)) % (1 << 64),
                inv32=(-pow(n, -1, 1 << 32)) % (1 << 32))

def limbs(x, n):
    return ', '.join('0x%016x' % ((x >> (64 * i)) & (2**64 - 1)) for i in range(n))

def emit(name):
    d = derive(name)
    n = d['n']
    print('// ----', name)
    for field, m, nl in (('fp', d['p'], n), ('fr', d['r'], 4)):
        k = mont(m, 64 * nl)
        print(f'{field} modulus: limbs<{limbs(m, nl)}>')
        print(f'{field} R1:      limbs<{limbs(k["R1"], nl)}>')
        print(f'{field} R2:      limbs<{limbs(k["R2"], nl)}>')
        print(f'{field} inv64 = 0x{k["inv64"]:016x}  inv32 = 0x{k["inv32"]:08x}  bits = {m.bit_length()}')
    R = 1 << (64 * n)
    print(f'b (Montgomery): limbs<{limbs(d["b"] * R % d["p"], n)}>')
    print(f'G.x: limbs<{limbs(d["G"][0], n)}>')
    print(f'G.y: limbs<{limbs(d["G"][1], n)}>')
    if 'beta' in d:
        print(f'beta (Montgomery): limbs<{limbs(d["beta"] * R % d["p"], n)}>')
        print(f'beta: limbs<{limbs(d["beta"], n)}>  u = {d["u"]:#x}  u^2 = {d["u"]**2:#x}')
    print(f'h = {d["h"]:#x}')

if __name__ == '__main__':
    for name in CURVES:
        d = derive(name)
        print(f'{name}: p {d["p"].bit_length()} bits, r {d["r"].bit_length()} bits, h {d["h"]:#x}: ok')
        if '--emit' in sys.argv:
            emit(name)

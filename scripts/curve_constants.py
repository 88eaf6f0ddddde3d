#!/usr/bin/env python3
"""Derives and checks the constants in cuda/curves/*.hpp from each curve's defining numbers.

Run: python3 scripts/curve_constants.py [--emit] [--headers]
Checks: p and r prime (Miller-Rabin), G on y^2 = x^3 + b, r*G = O, #E = h*r = p + 1 - t (the
trace t of the BN/BLS parametrisation; random points are killed by p + 1 - t and by none of the
other five orders p + 1 - t' of the sextic twists of j = 0, so b picks this twist), and for the BLS
curves the G1 membership test of Scott, "A note on group membership tests for G1, G2 and GT on
BLS pairing-friendly curves" (ePrint 2021/1130, section 4): P in G1 <=> phi(P) = -k*P with
phi(x, y) = (beta*x, y), k = u^2 (BLS12) or x^4 (BLS24). The test is sound because the integer
k satisfies k^2 - k + 1 = r exactly: phi + k has degree N(-k - omega) = k^2 - k + 1 = r, is
separable (beta != -k mod p), and so its kernel over the algebraic closure is G1 and nothing
more. Checked: that identity, beta a primitive cube root of unity with phi(G) = -k*G, and random
points off G1 failing the test. With --emit prints the C++ limb tables; with --headers compares
every limb table and constant in cuda/curves/<name>.hpp with the derived values.
"""
import random
import sys
from math import isqrt

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
    t = 6*u**2 + 1
    return p, r, 1, t  # cofactor 1

# BLS12 and BLS24 (Barreto, Lynn, Scott 2002; El Housni, Guillevic, "Families of SNARK-friendly
# 2-chains of elliptic curves", ePrint 2021/1359, for BLS24-315): r = Phi_k(u), trace t = u + 1,
# p = (u - 1)^2 r / 3 + u, h = (u - 1)^2 / 3. k is the GLV integer of the membership test.
def bls12(u):
    r = u**4 - u**2 + 1
    p = (u - 1)**2 * r // 3 + u
    h = (u - 1)**2 // 3
    return p, r, h, u + 1

def bls24(u):
    r = u**8 - u**4 + 1
    p = (u - 1)**2 * r // 3 + u
    h = (u - 1)**2 // 3
    return p, r, h, u + 1

GLV_K = {bls12: lambda u: u**2, bls24: lambda u: u**4}

CURVES = {
    'bn254': dict(u=4965661367192848881, fam=bn, b=3, G=(1, 2)),
    'bls12_381': dict(u=-0xd201000000010000, fam=bls12, b=4, G=(
        0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
        0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)),
    'bls12_377': dict(u=0x8508c00000000001, fam=bls12, b=1, G=(
        0x008848defe740a67c8fc6225bf87ff5485951e2caa9d41bb188282c8bd37cb5cd5481512ffcd394eeab9b16eb21be9ef,
        0x01914a69c5102eff1f674f5d30afeec4bd7fb348ca3e52d96d182ad44fb82305c2fe3d3634a9591afd82de55559c8ea6)),
    # gnark-crypto ecc/bls24-315 (g1Gen, "E(1,y)*c"): seed -0xbfcfffff, b = 1.
    'bls24_315': dict(u=-0xbfcfffff, fam=bls24, b=1, G=(
        34223510504517033132712852754388476272837911830964394866541204856091481856889569724484362330263,
        24215295174889464585413596429561903295150472552154479431771837786124301185073987899223459122783)),
}

def sqrt_mod(a, p):
    """A square root of a mod p (Tonelli-Shanks), or None."""
    a %= p
    if a == 0: return 0
    if pow(a, (p - 1) // 2, p) != 1: return None
    q, s = p - 1, 0
    while q % 2 == 0:
        q //= 2; s += 1
    z = 2
    while pow(z, (p - 1) // 2, p) != p - 1: z += 1
    m, c, t, x = s, pow(z, q, p), pow(a, q, p), pow(a, (q + 1) // 2, p)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2 = t2 * t2 % p; i += 1
        bb = pow(c, 1 << (m - i - 1), p)
        m, c, t, x = i, bb * bb % p, t * bb * bb % p, x * bb % p
    return x

def random_points(p, b, count, seed):
    rnd = random.Random(seed)
    while count:
        x = rnd.randrange(p)
        y = sqrt_mod(x**3 + b, p)
        if y is not None:
            count -= 1
            yield (x, y)

def twist_orders(p, t):
    """#E' = p + 1 - t' over the six twists of a j = 0 curve (p = 1 mod 3): t'^2 - 4p = -3f^2."""
    f2 = (4 * p - t * t) // 3
    f = isqrt(f2)
    assert f * f == f2 and 3 * f2 == 4 * p - t * t and (t + 3 * f) % 2 == 0
    traces = {t, -t, (t + 3 * f) // 2, (t - 3 * f) // 2, -(t + 3 * f) // 2, -(t - 3 * f) // 2}
    return sorted(p + 1 - tt for tt in traces)

def derive(name):
    c = CURVES[name]
    p, r, h, t = c['fam'](c['u'])
    assert is_prime(p) and is_prime(r), name
    G, b = c['G'], c['b']
    assert (G[1]**2 - G[0]**3 - b) % p == 0, name + ': G not on curve'
    assert G != (0, 0) and ec_mul(r, G, p) is None, name + ': r*G != O'
    assert h * r == p + 1 - t, name + ': #E != h*r'
    orders = twist_orders(p, t)
    assert p + 1 - t in orders
    for Q in random_points(p, b, 3, name):
        for o in orders:
            assert (ec_mul(o, Q, p) is None) == (o == p + 1 - t), name + ': #E'
    n = (p.bit_length() + 63) // 64
    out = dict(p=p, r=r, h=h, b=b, G=G, n=n, u=c['u'])
    if c['fam'] in GLV_K:
        k = GLV_K[c['fam']](c['u'])
        assert k * k - k + 1 == r, name + ': k^2 - k + 1 != r'
        lam = -k % r
        assert (lam * lam + lam + 1) % r == 0
        g = 2
        while True:
            beta = pow(g, (p - 1) // 3, p)
            if beta != 1: break
            g += 1
        if ec_mul(lam, G, p) != (beta * G[0] % p, G[1]):
            beta = beta * beta % p
        assert ec_mul(lam, G, p) == (beta * G[0] % p, G[1]), name + ': beta'
        assert (beta + k) % p != 0, name + ': phi + k inseparable'
        # Points of E(Fp) off G1 (r*Q != O) fail phi(Q) = -k*Q; cleared by h they pass.
        for Q in random_points(p, b, 3, name + 'off'):
            assert ec_mul(r, Q, p) is not None
            assert ec_mul(k, Q, p) != (beta * Q[0] % p, -Q[1] % p), name + ': off-G1 point passes'
            Qh = ec_mul(h, Q, p)
            assert ec_mul(k, Qh, p) == (beta * Qh[0] % p, -Qh[1] % p), name + ': cleared point fails'
        out['beta'], out['k'] = beta, k
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
        print(f'beta: limbs<{limbs(d["beta"], n)}>  u = {d["u"]:#x}')
        print(f'k = {d["k"]:#x}: limbs<{limbs(d["k"], 2)}>')
    print(f'h = {d["h"]:#x}')

def header_values(path):
    """name -> integer for each `using name = ff::limbs<...>` and `inv`/`inv32`, by struct."""
    import re
    text = open(path).read()
    out = {}
    for struct, body in re.findall(r'struct (\w+) \{(.*?)\n\};', text, re.S):
        for key, args in re.findall(r'using (\w+) = ff::limbs<([^>]*)>', body):
            words = [int(w, 0) for w in re.findall(r'0x[0-9a-f]+|\d+', args)]
            out[struct + '.' + key] = sum(w << (64 * i) for i, w in enumerate(words))
        for key, val in re.findall(r'static constexpr uint\d+_t (inv\d*) = (0x[0-9a-f]+);', body):
            out[struct + '.' + key] = int(val, 16)
        for key, val in re.findall(r'static constexpr (?:int|unsigned) (N|BITS) = (\d+);', body):
            out[struct + '.' + key] = int(val)
    return out

def check_header(name):
    import os
    d = derive(name)
    n, p = d['n'], d['p']
    R = 1 << (64 * n)
    want = {'fp_params.N': n, 'fp_params.BITS': p.bit_length(), 'fr_params.N': 4,
            'fr_params.BITS': d['r'].bit_length(),
            'g1.gen_x': d['G'][0], 'g1.gen_y': d['G'][1]}
    for field, m in (('fp_params', p), ('fr_params', d['r'])):
        k = mont(m, 64 * want[field + '.N'])
        want.update({field + '.modulus': m, field + '.one': k['R1'], field + '.r2': k['R2'],
                     field + '.inv': k['inv64'], field + '.inv32': k['inv32']})
    if d['h'] != 1:
        want.update({'g1.cofactor': d['h'], 'g1.beta_mont': d['beta'] * R % p, 'g1.subgroup_k': d['k']})
    got = header_values(os.path.join(os.path.dirname(__file__), '..', 'cuda', 'curves', name + '.hpp'))
    if 'g1.b_mont' in got:
        want['g1.b_mont'] = d['b'] * R % p
    else:  # b_mont = fp_params::one (b = 1)
        assert d['b'] == 1, name + ': b_mont missing'
    bad = [k for k in want if got.get(k) != want[k]]
    assert not bad, f'{name}.hpp differs from the derivation: {bad}'

if __name__ == '__main__':
    for name in CURVES:
        d = derive(name)
        if '--headers' in sys.argv:
            check_header(name)
        print(f'{name}: p {d["p"].bit_length()} bits, r {d["r"].bit_length()} bits, h {d["h"]:#x}: ok')
        if '--emit' in sys.argv:
            emit(name)

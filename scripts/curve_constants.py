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
points off G1 failing the test. For G2 of BN254 and BLS12-381 (cuda/curves/<name>_g2.hpp): b' of
the sextic twist over Fp2 = Fp[u]/(u^2 + 1), the generator on it with r*G2 = O, #E'(Fp2) = h2*r
among the six twist orders, psi's constants and the soundness of psi(P) = [t - 1]P on all of
E'(Fp2) (see the G2 section below). With --emit prints the C++ limb tables; with --headers
compares every limb table and constant in cuda/curves/<name>.hpp and <name>_g2.hpp with the
derived values.
"""
import random
import re
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

# ---- G2: the sextic twist E'(Fp2): y^2 = x^3 + b' over Fp2 = Fp[u]/(u^2 + 1) ---------------------
# Elements of Fp2 are pairs (c0, c1) = c0 + c1*u. Both curves have p = 3 mod 4, so u^2 = -1 is a
# valid quadratic extension; xi = 9 + u (BN254) and 1 + u (BLS12-381) are the sextic non-residues
# of the towers (EIP-197; IETF draft-irtf-cfrg-pairing-friendly-curves). BN254 uses the D-type
# twist b' = b/xi, BLS12-381 the M-type b' = b*xi.
#
# Subgroup membership: psi = untwist o Frobenius o twist acts on E'(Fp2) as
# psi(x, y) = (conj(x)*cx, conj(y)*cy) and satisfies psi^2 - t*psi + p = 0 (Galbraith, Scott,
# "Exponentiation in pairing-friendly groups using homomorphisms", Pairing 2008); on G2 it is
# multiplication by p = t - 1 mod r. The tests are psi(P) = [t - 1]P: [u]P on BLS12 (Scott,
# ePrint 2021/1130, section 5) and [6x^2]P on BN (El Housni, Guillevic, Piellard, "Co-factor
# clearing and subgroup membership testing on pairing-friendly curves", AFRICACRYPT 2022).
# Soundness on all of E'(Fp2), checked below: if psi(Q) = [lam]Q then
# 0 = (psi^2 - t*psi + p)Q = (lam^2 - t*lam + p)Q, so ord(Q) divides g = lam^2 - t*lam + p
# (= p + 1 - t = #E(Fp) for lam = t - 1) and #E'(Fp2); gcd(g, #E'(Fp2)) = r with r^2 not dividing
# #E'(Fp2) leaves only the cyclic G2.

def f2add(a, b, p): return ((a[0] + b[0]) % p, (a[1] + b[1]) % p)
def f2sub(a, b, p): return ((a[0] - b[0]) % p, (a[1] - b[1]) % p)
def f2mul(a, b, p): return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)
def f2conj(a, p): return (a[0], -a[1] % p)
def f2inv(a, p):
    n = pow(a[0] * a[0] + a[1] * a[1], -1, p)
    return (a[0] * n % p, -a[1] * n % p)
def f2pow(a, e, p):
    r = (1, 0)
    while e:
        if e & 1: r = f2mul(r, a, p)
        a = f2mul(a, a, p); e >>= 1
    return r

def f2sqrt(a, p):
    """A square root of a in Fp2 (p = 3 mod 4, u^2 = -1) through the norm, or None."""
    if a[1] % p == 0:
        s = sqrt_mod(a[0], p)
        return (s, 0) if s is not None else (0, sqrt_mod(-a[0], p))
    n = sqrt_mod(a[0] * a[0] + a[1] * a[1], p)
    if n is None: return None
    h = pow(2, -1, p)
    x0 = sqrt_mod((a[0] + n) * h, p)
    if x0 is None: x0 = sqrt_mod((a[0] - n) * h, p)
    x = (x0, a[1] * pow(2 * x0, -1, p) % p)
    assert f2mul(x, x, p) == (a[0] % p, a[1] % p)
    return x

def ec2_add(P, Q, p):
    if P is None: return Q
    if Q is None: return P
    if P[0] == Q[0]:
        if f2add(P[1], Q[1], p) == (0, 0): return None
        x2 = f2mul(P[0], P[0], p)
        l = f2mul(f2add(f2add(x2, x2, p), x2, p), f2inv(f2add(P[1], P[1], p), p), p)
    else:
        l = f2mul(f2sub(Q[1], P[1], p), f2inv(f2sub(Q[0], P[0], p), p), p)
    x = f2sub(f2sub(f2mul(l, l, p), P[0], p), Q[0], p)
    return (x, f2sub(f2mul(l, f2sub(P[0], x, p), p), P[1], p))

def ec2_neg(P, p): return None if P is None else (P[0], f2sub((0, 0), P[1], p))

def ec2_mul(k, P, p):
    if k < 0: k, P = -k, ec2_neg(P, p)
    R = None
    while k:
        if k & 1: R = ec2_add(R, P, p)
        P = ec2_add(P, P, p); k >>= 1
    return R

def ec2_on(P, b2, p):
    return P is None or f2sub(f2mul(P[1], P[1], p), f2add(f2mul(f2mul(P[0], P[0], p), P[0], p), b2, p), p) == (0, 0)

def random_points2(p, b2, count, seed):
    rnd = random.Random(seed)
    while count:
        x = (rnd.randrange(p), rnd.randrange(p))
        y = f2sqrt(f2add(f2mul(f2mul(x, x, p), x, p), b2, p), p)
        if y is not None:
            count -= 1
            yield (x, y)

G2_CURVES = {
    # EIP-197: generator, and b' = 3/(9 + u) as the spec (and noble's bn254.js) print it.
    'bn254': dict(xi=(9, 1), twist='D', b2=(
        19485874751759354771024239261021720505790618469301721065564631296452457478373,
        266929791119991161246907387137283842545076965332900288569378510910307636690), h2=lambda u, p, r: 2 * p - r, G=(
        (10857046999023057135944570762232829481370756359578518086990519993285655852781,
         11559732032986387107991004021392285783925812861821192530917403151452391805634),
        (8495653923123431417604973247489272438418190587263600148770280649306958101930,
         4082367875863433681332203403145435568316851327593401208105741076214120093531))),
    # IETF draft-irtf-cfrg-pairing-friendly-curves section 4.2.1 generator; b' = 4(1 + u);
    # h2 of Budroni, Pintore, "Efficient hash maps to G2 on BLS curves" (ePrint 2017/419).
    'bls12_381': dict(xi=(1, 1), twist='M', b2=(4, 4),
                      h2=lambda u, p, r: (u**8 - 4*u**7 + 5*u**6 - 4*u**4 + 6*u**3 - 4*u**2 - 4*u + 13) // 9, G=(
        (0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
         0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
        (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
         0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be))),
}

def derive_g2(name):
    from math import gcd
    c, g = CURVES[name], G2_CURVES[name]
    p, r, h, t = c['fam'](c['u'])
    assert p % 4 == 3, name + ': u^2 = -1 needs p = 3 mod 4'
    xi = g['xi']
    # xi is neither a square nor a cube in Fp2, so Fp2[w]/(w^6 - xi) is a field (the Fp12 tower).
    assert f2pow(xi, (p * p - 1) // 2, p) != (1, 0) and f2pow(xi, (p * p - 1) // 3, p) != (1, 0), name + ': xi'
    b = (c['b'], 0)
    b2 = f2mul(b, f2inv(xi, p), p) if g['twist'] == 'D' else f2mul(b, xi, p)
    assert b2 == g['b2'], name + ": b'"
    G = g['G']
    assert ec2_on(G, b2, p), name + ': G2 generator not on the twist'
    assert ec2_mul(r, G, p) is None, name + ': r*G2 != O'
    # #E'(Fp2): the one of the six twist orders over Fp2 (trace t^2 - 2p) that random points of
    # y^2 = x^3 + b' are killed by; it is h2*r with h2 the family's polynomial.
    orders = twist_orders(p * p, t * t - 2 * p)
    h2 = g['h2'](c['u'], p, r)
    n2 = h2 * r
    assert n2 in orders, name + ': h2*r is not a twist order'
    for Q in random_points2(p, b2, 2, name + 'g2'):
        for o in orders:
            assert (ec2_mul(o, Q, p) is None) == (o == n2), name + ": #E'(Fp2)"
    assert gcd(h2, r) == 1 and n2 % (r * r) != 0, name + ': G2 is not the unique order-r subgroup'
    # psi(x, y) = (conj(x)*cx, conj(y)*cy), cx = base^((p-1)/3), cy = base^((p-1)/2), base = xi
    # for the D-type twist and 1/xi for the M-type; the other choice does not act as [t - 1] on G2.
    lam = t - 1
    def psi_with(base):
        cx, cy = f2pow(base, (p - 1) // 3, p), f2pow(base, (p - 1) // 2, p)
        return cx, cy, lambda P: None if P is None else (f2mul(f2conj(P[0], p), cx, p), f2mul(f2conj(P[1], p), cy, p))
    good = []
    for base in (xi, f2inv(xi, p)):
        cx, cy, psi = psi_with(base)
        if ec2_on(psi(G), b2, p) and psi(G) == ec2_mul(lam, G, p):
            good.append((base, cx, cy, psi))
    assert len(good) == 1, name + ': psi base'
    base, cx, cy, psi = good[0]
    assert base == (xi if g['twist'] == 'D' else f2inv(xi, p))
    # psi^2 - t*psi + p = 0 on E'(Fp2), and the gcd that makes psi(P) = [t - 1]P sound.
    gg = lam * lam - t * lam + p
    assert gg == p + 1 - t == h * r
    assert gcd(gg, n2) == r, name + ': psi test unsound'
    for Q in random_points2(p, b2, 3, name + 'off2'):
        assert ec2_add(ec2_add(psi(psi(Q)), ec2_mul(-t, psi(Q), p), p), ec2_mul(p, Q, p), p) is None, name + ': psi^2 - t psi + p'
        assert ec2_mul(r, Q, p) is not None
        assert psi(Q) != ec2_mul(lam, Q, p), name + ': off-G2 point passes the psi test'
        Qh = ec2_mul(h2, Q, p)
        assert Qh is not None and psi(Qh) == ec2_mul(lam, Qh, p), name + ': cleared point fails'
        # Points of small prime order l | h2 (the ones an attacker would pick) fail too.
        for l in (l for l in range(2, 2000) if h2 % l == 0 and is_prime(l)):
            Ql = ec2_mul(n2 // l, Q, p)
            if Ql is not None:
                assert psi(Ql) != ec2_mul(lam, Ql, p), name + f': order-{l} point passes'
    return dict(p=p, r=r, n=(p.bit_length() + 63) // 64, b2=b2, G=G, h2=h2, cx=cx, cy=cy, lam=lam)

def f2int(a, n):
    """c0 then c1 as one integer of 2n limbs (the Fp2 limb tables: c0's limbs, then c1's)."""
    return a[0] + (a[1] << (64 * n))

def f2mont(a, n, p):
    R = 1 << (64 * n)
    return (a[0] * R % p, a[1] * R % p)

def emit_g2(name):
    d = derive_g2(name)
    n, p = d['n'], d['p']
    print('// ---- g2', name)
    for key, v in (('b_mont', f2mont(d['b2'], n, p)), ('gen_x', d['G'][0]), ('gen_y', d['G'][1]),
                   ('psi_x_mont', f2mont(d['cx'], n, p)), ('psi_y_mont', f2mont(d['cy'], n, p))):
        print(f'{key}: limbs<{limbs(f2int(v, n), 2 * n)}>')
    print(f'cofactor h2 = {d["h2"]:#x}: limbs<{limbs(d["h2"], (d["h2"].bit_length() + 63) // 64)}>')
    print(f'subgroup lambda = t - 1 = {d["lam"]:#x}: limbs<{limbs(abs(d["lam"]), 2)}>')

def check_header_g2(name):
    import os
    d = derive_g2(name)
    n, p = d['n'], d['p']
    want = {'g2.b_mont': f2int(f2mont(d['b2'], n, p), n), 'g2.gen_x': f2int(d['G'][0], n),
            'g2.gen_y': f2int(d['G'][1], n), 'g2.cofactor': d['h2'],
            'g2.psi_x_mont': f2int(f2mont(d['cx'], n, p), n), 'g2.psi_y_mont': f2int(f2mont(d['cy'], n, p), n),
            'g2.subgroup_k': abs(d['lam'])}
    path = os.path.join(os.path.dirname(__file__), '..', 'cuda', 'curves', name + '_g2.hpp')
    got = header_values(path)
    text = open(path).read()
    # 3b' for the complete formulas: a Montgomery table (b3_mont), or b3_xi with 3b' = b3_xi*(1 + u)
    b3 = (3 * d['b2'][0] % p, 3 * d['b2'][1] % p)
    xi = re.search(r'static constexpr unsigned b3_xi = (\d+);', text)
    if xi:
        assert b3 == (int(xi.group(1)), int(xi.group(1))), name + "_g2.hpp: 3b' is not b3_xi*(1 + u)"
    else:
        want['g2.b3_mont'] = f2int(f2mont(b3, n, p), n)
    neg = re.search(r'subgroup_k_negative = (true|false);', text)
    assert neg and (neg.group(1) == 'true') == (d['lam'] < 0), name + '_g2.hpp: subgroup_k_negative'
    assert re.search(r'static constexpr int beta = -1;', text), name + '_g2.hpp: beta'
    bad = [k for k in want if got.get(k) != want[k]]
    assert not bad, f'{name}_g2.hpp differs from the derivation: {bad}'

if __name__ == '__main__':
    for name in CURVES:
        d = derive(name)
        if '--headers' in sys.argv:
            check_header(name)
        print(f'{name}: p {d["p"].bit_length()} bits, r {d["r"].bit_length()} bits, h {d["h"]:#x}: ok')
        if '--emit' in sys.argv:
            emit(name)
    for name in G2_CURVES:
        d = derive_g2(name)
        if '--headers' in sys.argv:
            check_header_g2(name)
        print(f"{name} g2: #E'(Fp2) = h2*r, h2 {d['h2'].bit_length()} bits, psi(P) = [{d['lam']:#x}]P on G2: ok")
        if '--emit' in sys.argv:
            emit_g2(name)

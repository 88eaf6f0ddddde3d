#!/usr/bin/env python3
"""Generates cuda/ff/x86_mont.hpp: Montgomery multiplication for N = 4 and 6 limbs in x86-64
inline assembly with MULX/ADCX/ADOX (BMI2 + ADX), two independent carry chains per row as in
Gueron, Krasnov, "Fast prime field elliptic-curve cryptography with 256-bit primes" (J.
Cryptographic Engineering 2015) and Intel's "New instructions supporting large integer arithmetic"
white paper (2012). Run: python3 scripts/gen_x86_mont.py > cuda/ff/x86_mont.hpp
"""

def gen(n, reduce=False):
    # Registers are picked by the compiler: t0..tn accumulators, lo, hi scratch; rdx implicit.
    idx = list(range(n + 1))  # idx[k]: which operand holds logical word k
    t = [f'%[t{i}]' for i in idx]
    lines = []
    def e(s): lines.append(s)
    for i in range(n):
        # Row i, part 1: t += a · b[i]. OF chain carries the low halves into t[j], CF chain the
        # high halves into t[j+1].
        e(f'movq {8*i}(%[b]), %%rdx')
        e('xorl %k[lo], %k[lo]')  # clears CF and OF
        for j in range(n):
            e(f'mulxq {8*j}(%[a]), %[lo], %[hi]')
            e(f'adoxq %[lo], {t[j]}')
            e(f'adcxq %[hi], {t[j+1]}')
        e('movq $0, %[lo]')
        e(f'adoxq %[lo], {t[n]}')
        # Part 2: m = t0 · (−p⁻¹) mod 2^64; t = (t + m·p) / 2^64.
        e(f'movq {t[0]}, %%rdx')
        e(f'imulq {8*n}(%[p]), %%rdx')
        e('xorl %k[lo], %k[lo]')
        for j in range(n):
            e(f'mulxq {8*j}(%[p]), %[lo], %[hi]')
            e(f'adoxq %[lo], {t[j]}')
            e(f'adcxq %[hi], {t[j+1]}')
        e('movq $0, %[lo]')
        e(f'adoxq %[lo], {t[n]}')
        # t[0] is now exactly 0 (t0 + lo(m·p0) ≡ 0 mod 2^64, its carry went up the OF chain):
        # rotate the names so the old t[1..n] become t[0..n-1] and the zero register the new top.
        t = t[1:] + t[:1]
        idx = idx[1:] + idx[:1]
    if reduce:
        # The final conditional subtraction in registers (no round trip through memory): the
        # result words are t[0..n-1] and t[n] is zero; u = t − p goes to lo, hi, t[n] and a's
        # register (all dead now) and replaces t unless the subtraction borrowed.
        u = ['%[lo]', '%[hi]', t[n], '%[a]']
        lines += [f'movq {t[j]}, {u[j]}' for j in range(n)]
        lines += [f'{"subq" if j == 0 else "sbbq"} {8*j}(%[p]), {u[j]}' for j in range(n)]
        lines += [f'cmovncq {u[j]}, {t[j]}' for j in range(n)]
    body = '\n'.join(f'      "{l}\\n\\t"' for l in lines)
    copy = ' '.join(f'r[{k}] = t[{idx[k]}];' for k in range(n))
    outs = ', '.join(f'[t{i}] "+&r"(t[{i}])' for i in range(n + 1))
    if reduce:
        return f'''// {n} limbs, fully reduced: r = a·b·2^(−{64*n}) mod p in [0, p) (the product above, then one
// conditional subtraction of p in registers).
inline __attribute__((always_inline)) void mont_mul_adx_{n}_red(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p_inv) {{
  uint64_t t[{n+1}] = {{}};
  uint64_t lo, hi;
  asm(
{body}
      : {outs}, [lo] "=&r"(lo), [hi] "=&r"(hi), [a] "+&r"(a)
      : [b] "r"(b), [p] "r"(p_inv), "m"(*(const uint64_t(*)[{n}])a),
        "m"(*(const uint64_t(*)[{n}])b), "m"(*(const uint64_t(*)[{n+1}])p_inv)
      : "rdx", "cc");
  {copy}
}}
'''
    return f'''// {n} limbs: r = a·b·2^(−{64*n}) mod p, result in [0, 2p) as n limbs (the caller reduces once).
// p_inv: p[0..{n-1}] then −p⁻¹ mod 2^64. Needs p < 2^({64*n}−2) so t fits n+1 words.
inline __attribute__((always_inline)) void mont_mul_adx_{n}(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p_inv) {{
  uint64_t t[{n+1}] = {{}};
  uint64_t lo, hi;
  asm(
{body}
      : {outs}, [lo] "=&r"(lo), [hi] "=&r"(hi)
      : [a] "r"(a), [b] "r"(b), [p] "r"(p_inv), "m"(*(const uint64_t(*)[{n}])a),
        "m"(*(const uint64_t(*)[{n}])b), "m"(*(const uint64_t(*)[{n+1}])p_inv)
      : "rdx", "cc");
  {copy}
}}
'''

def gen_addsub(n):
    # Modular addition and subtraction, each on unbroken carry chains (GCC splits _addcarry_u64
    # chains with setc/add round trips once a mask is involved). The subtraction adds back p or
    # zeros read through a pointer picked by CMOVC, so the chains stay flag-to-flag and the
    # 6-limb forms fit the register file.
    r = [f'%[r{i}]' for i in range(n)]
    u = [f'%[u{i}]' for i in range(n)]
    sub_chain = lambda src: [f'{"subq" if j == 0 else "sbbq"} {8*j}({src}), {r[j]}' for j in range(n)]
    add_chain = lambda src: [f'{"addq" if j == 0 else "adcq"} {8*j}({src}), {r[j]}' for j in range(n)]
    copy = n == 4  # 4 limbs: u = sum − p in spare registers, CMOVNC; 6 limbs: subtract, add back
    add = add_chain('%[b]')
    if copy:
        add += [f'movq {r[j]}, {u[j]}' for j in range(n)]
        add += [f'{"subq" if j == 0 else "sbbq"} {8*j}(%[p]), {u[j]}' for j in range(n)]
        add += [f'cmovncq {u[j]}, {r[j]}' for j in range(n)]
    else:
        add += sub_chain('%[p]') + ['cmovcq %[p], %[q]'] + add_chain('%[q]')
    sub = sub_chain('%[b]') + ['cmovcq %[p], %[q]'] + add_chain('%[q]')
    body = lambda ls: '\n'.join(f'      "{l}\\n\\t"' for l in ls)
    rin = ' '.join(f'uint64_t r{i} = a[{i}];' for i in range(n))
    rout = ' '.join(f'r[{i}] = r{i};' for i in range(n))
    ros = ', '.join(f'[r{i}] "+&r"(r{i})' for i in range(n))
    uos = ', '.join(f'[u{i}] "=&r"(u{i})' for i in range(n))
    mem = f'"m"(*(const uint64_t(*)[{n}])b), "m"(*(const uint64_t(*)[{n}])p), "m"(*(const uint64_t(*)[{n}])zero)'
    head = 'inline __attribute__((always_inline)) void'
    args = '(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, const uint64_t* zero)'
    add_decl = f'uint64_t {", ".join(f"u{i}" for i in range(n))};' if copy else 'const uint64_t* q = zero;'
    add_outs = f'{ros}, {uos}' if copy else f'{ros}, [q] "+&r"(q)'
    return f"""// {n} limbs: r = a + b mod p for a, b < p < 2^({64*n}−1) (no carry out of the sum); zero: {n} zero
// words.
{head} add_mod_{n}{args} {{
  {rin}
  {add_decl}
  asm(
{body(add)}
      : {add_outs}
      : [b] "r"(b), [p] "r"(p), {mem}
      : "cc");
  {rout}
}}
// {n} limbs: r = a − b mod p for a, b < p: the difference, plus p when it borrowed.
{head} sub_mod_{n}{args} {{
  {rin}
  const uint64_t* q = zero;
  asm(
{body(sub)}
      : {ros}, [q] "+&r"(q)
      : [b] "r"(b), [p] "r"(p), {mem}
      : "cc");
  {rout}
}}
"""

def gen_sqr4():
    # 4-limb Montgomery squaring: the 8-word square with the 6 cross products computed once and
    # doubled (10 MULX instead of 16), the Montgomery reduction of its low half (4 rows as in the
    # multiplication's reduce halves, 16 MULX), plus its high half: a²·2^(−256) = (T_lo + m·p)/2^256
    # + T_hi < p + p (Menezes, van Oorschot, Vanstone, Handbook of Applied Cryptography, Alg. 14.16
    # for the square, 14.32 for the reduction), then one conditional subtraction.
    w = [f'%[w{i}]' for i in range(8)]
    L = []
    e = L.append
    # cross products a_i·a_j (i < j) into w1..w6; w0 serves as scratch until the diagonal
    e('movq 0(%[a]), %%rdx')
    e(f'mulxq 8(%[a]), {w[1]}, {w[2]}')
    e(f'mulxq 16(%[a]), %[lo], {w[3]}')
    e(f'mulxq 24(%[a]), %[hi], {w[4]}')
    e(f'addq %[lo], {w[2]}')
    e(f'adcq %[hi], {w[3]}')
    e(f'adcq $0, {w[4]}')
    e('movq 8(%[a]), %%rdx')
    e(f'mulxq 16(%[a]), %[lo], %[hi]')
    e(f'mulxq 24(%[a]), {w[0]}, {w[5]}')
    e(f'addq %[lo], {w[3]}')
    e(f'adcq %[hi], {w[4]}')
    e(f'adcq $0, {w[5]}')
    e(f'addq {w[0]}, {w[4]}')
    e(f'adcq $0, {w[5]}')
    e('movq 16(%[a]), %%rdx')
    e(f'mulxq 24(%[a]), %[lo], {w[6]}')
    e(f'addq %[lo], {w[5]}')
    e(f'adcq $0, {w[6]}')
    # double, then add the squares a_i² at word 2i
    e(f'movq $0, {w[7]}')
    e(f'addq {w[1]}, {w[1]}')
    for i in range(2, 7):
        e(f'adcq {w[i]}, {w[i]}')
    e(f'adcq $0, {w[7]}')
    e('movq 0(%[a]), %%rdx')
    e(f'mulxq %%rdx, {w[0]}, %[hi]')
    e(f'addq %[hi], {w[1]}')
    for i in range(1, 4):
        e(f'movq {8*i}(%[a]), %%rdx')
        e(f'mulxq %%rdx, %[lo], %[hi]')
        e(f'adcq %[lo], {w[2*i]}')
        e(f'adcq %[hi], {w[2*i+1]}')
    # reduce the low half: accumulator w0..w3 and a zero top word z
    t = [w[0], w[1], w[2], w[3], '%[z]']
    for i in range(4):
        e(f'movq {t[0]}, %%rdx')
        e('imulq 32(%[p]), %%rdx')
        e('xorl %k[lo], %k[lo]')
        for j in range(4):
            e(f'mulxq {8*j}(%[p]), %[lo], %[hi]')
            e(f'adoxq %[lo], {t[j]}')
            e(f'adcxq %[hi], {t[j+1]}')
        e('movq $0, %[lo]')
        e(f'adoxq %[lo], {t[4]}')
        t = t[1:] + t[:1]
    # + the high half
    for j in range(4):
        e(f'{"addq" if j == 0 else "adcq"} {w[4+j]}, {t[j]}')
    # conditional subtraction, u in lo, hi, the zero top word and a's register
    u = ['%[lo]', '%[hi]', t[4], '%[a]']
    L.extend(f'movq {t[j]}, {u[j]}' for j in range(4))
    L.extend(f'{"subq" if j == 0 else "sbbq"} {8*j}(%[p]), {u[j]}' for j in range(4))
    L.extend(f'cmovncq {u[j]}, {t[j]}' for j in range(4))
    body = '\n'.join(f'      "{l}\\n\\t"' for l in L)
    names = {w[i]: f'w{i}' for i in range(8)}
    names['%[z]'] = 'z'
    copy = ' '.join(f'r[{j}] = {names[t[j]]};' for j in range(4))
    return f"""// 4 limbs, fully reduced: r = a²·2^(−256) mod p in [0, p). p_inv as for the multiplication.
inline __attribute__((always_inline)) void mont_sqr_adx_4_red(uint64_t* r, const uint64_t* a, const uint64_t* p_inv) {{
  uint64_t w0, w1, w2, w3, w4, w5, w6, w7, z = 0, lo, hi;
  asm(
{body}
      : [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [w4] "=&r"(w4), [w5] "=&r"(w5),
        [w6] "=&r"(w6), [w7] "=&r"(w7), [z] "+&r"(z), [lo] "=&r"(lo), [hi] "=&r"(hi), [a] "+&r"(a)
      : [p] "r"(p_inv), "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[5])p_inv)
      : "rdx", "cc");
  {copy}
}}
"""


print('''// GENERATED by scripts/gen_x86_mont.py; do not edit.
// Host Montgomery multiplication in x86-64 assembly with MULX/ADCX/ADOX (BMI2 + ADX; every x86-64
// CPU since Intel Broadwell and AMD Zen). Operand-scanning with the multiply and reduce halves of
// each row kept separate (2N² MULX), each half on two carry chains (ADOX for the low words, ADCX
// for the high words). field.hpp calls it only after a run-time CPUID check. Also modular addition
// and subtraction (plain x86-64) on unbroken carry chains.
#pragma once

#include <cstdint>

namespace msm::ff::x86 {
''')
print(gen(4))
print(gen(6))
print(gen(4, reduce=True))
print(gen_sqr4())
print(gen_addsub(4))
print(gen_addsub(6))
print('}  // namespace msm::ff::x86')

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
print(gen_addsub(4))
print(gen_addsub(6))
print('}  // namespace msm::ff::x86')

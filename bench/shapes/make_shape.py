#!/usr/bin/env python3
"""Writes a PTX kernel of our own in one of the shapes that made an analysis
stage exponential (issue 35), at size N:

  tempering N   a random-number generator's state of N words (Mersenne
                Twister's shape), loaded from global memory into registers and
                updated in place in a loop: word k from itself, word k + 1 and
                word k + N/3 (N loop-carried registers that feed each other),
                each new word tempered by xor/shift/and chains and stored
  sortnet N     a sorting network (odd-even transposition, N rounds) of
                compare/select over N keys loaded from global memory, in
                single-assignment registers, the sorted keys stored
  shuffle N     a warp segmented reduction over N blocks: in each, a
                predicated shfl.sync.down, selp and predicate logic (and/or
                of two comparisons) decide what is added and which row goes
                on; the last row picks the pointer a global atomic adds to
  registers N   N 64-bit registers of double-double arithmetic (fma chains
                whose operands are earlier results), split over N/16 blocks
                by bounds tests, every result stored
  comm N        a communication kernel's body (issue 33): N rounds in one
                function, each writing a shared staging slot of a 4-deep ring
                with generic stores, a proxy fence, bar.sync, thread 0's bulk
                store of the slot (commit, wait_group.read 3), generic reads
                and writes of global buffers, a flag raised with a release and
                a peer's flag polled with an acquire: many generic accesses,
                bulk copies and hand-offs in one function

    make_shape.py SHAPE N > OUT.ptx

ptxas accepts each (`ptxas -arch=sm_90a OUT.ptx`).
"""
import sys

HEADER = [".version 8.0", ".target sm_90a", ".address_size 64", ""]


def tempering(n):
    # Mersenne-Twister generation, unrolled: in a loop over blocks of output,
    # state word k is replaced in place by a function of itself, the next
    # word's loop-carried value and word k + m, then tempered and stored.
    m = max(1, n // 3)
    t = 16 * n
    body = HEADER + [
        ".visible .entry tempering(",
        "\t.param .u64 tempering_state,",
        "\t.param .u64 tempering_out,",
        "\t.param .u32 tempering_count",
        ")",
        "{",
        f"\t.reg .pred \t%p<{n + 2}>;",
        f"\t.reg .b32 \t%s<{n}>;",
        f"\t.reg .b32 \t%t<{t}>;",
        "\t.reg .b32 \t%i<4>;",
        f"\t.reg .b64 \t%rd<{n + 8}>;",
        "\tld.param.u64 \t%rd1, [tempering_state];",
        "\tld.param.u64 \t%rd2, [tempering_out];",
        "\tld.param.u32 \t%i1, [tempering_count];",
        "\tcvta.to.global.u64 \t%rd3, %rd1;",
        "\tcvta.to.global.u64 \t%rd4, %rd2;",
    ]
    for k in range(n):
        body.append(f"\tld.global.u32 \t%s{k}, [%rd3+{4 * k}];")
    body += ["\tmov.u32 \t%i2, 0;", "$L_loop:"]
    for k in range(n):
        a, b = 16 * k, 16 * k + 1
        nxt, far = (k + 1) % n, (k + m) % n
        body += [
            f"\tand.b32 \t%t{a}, %s{k}, -2147483648;",
            f"\tand.b32 \t%t{a + 1}, %s{nxt}, 2147483646;",
            f"\tor.b32 \t%t{a + 2}, %t{a}, %t{a + 1};",
            f"\tshr.u32 \t%t{a + 3}, %t{a + 2}, 1;",
            f"\tand.b32 \t%t{a + 4}, %s{nxt}, 1;",
            f"\tsetp.ne.b32 \t%p{k}, %t{a + 4}, 0;",
            f"\txor.b32 \t%t{a + 5}, %t{a + 3}, -1727483681;",
            f"\tselp.b32 \t%t{a + 6}, %t{a + 5}, %t{a + 3}, %p{k};",
            f"\txor.b32 \t%s{k}, %t{a + 6}, %s{far};",
            f"\tshr.u32 \t%t{a + 7}, %s{k}, 11;",
            f"\txor.b32 \t%t{a + 8}, %t{a + 7}, %s{k};",
            f"\tshl.b32 \t%t{a + 9}, %t{a + 8}, 7;",
            f"\tand.b32 \t%t{a + 10}, %t{a + 9}, -1658038656;",
            f"\txor.b32 \t%t{a + 11}, %t{a + 10}, %t{a + 8};",
            f"\tshl.b32 \t%t{a + 12}, %t{a + 11}, 15;",
            f"\tand.b32 \t%t{a + 13}, %t{a + 12}, -272236544;",
            f"\txor.b32 \t%t{a + 14}, %t{a + 13}, %t{a + 11};",
            f"\tshr.u32 \t%t{a + 15}, %t{a + 14}, 18;",
            f"\txor.b32 \t%t{a + 15}, %t{a + 15}, %t{a + 14};",
            f"\tmul.wide.u32 \t%rd{k + 6}, %i2, {4 * n};",
            f"\tadd.s64 \t%rd{k + 6}, %rd{k + 6}, %rd4;",
            f"\tst.global.u32 \t[%rd{k + 6}+{4 * k}], %t{a + 15};",
        ]
    body += [
        "\tadd.s32 \t%i2, %i2, 1;",
        f"\tsetp.lt.u32 \t%p{n}, %i2, %i1;",
        f"\t@%p{n} bra \t$L_loop;",
    ]
    for k in range(n):
        body.append(f"\tst.global.u32 \t[%rd3+{4 * k}], %s{k};")
    body += ["\tret;", "}", ""]
    return "\n".join(body)


def sortnet(n):
    regs = n * (n + 1) + 4
    body = HEADER + [
        ".visible .entry sortnet(",
        "\t.param .u64 sortnet_keys",
        ")",
        "{",
        f"\t.reg .pred \t%p<{n * n + 2}>;",
        f"\t.reg .b32 \t%k<{regs}>;",
        "\t.reg .b64 \t%rd<4>;",
        "\tld.param.u64 \t%rd1, [sortnet_keys];",
        "\tcvta.to.global.u64 \t%rd2, %rd1;",
    ]
    current = list(range(n))
    for k in range(n):
        body.append(f"\tld.global.u32 \t%k{k}, [%rd2+{4 * k}];")
    fresh, pred = n, 0
    for rnd in range(n):
        nxt = list(current)
        for i in range(rnd % 2, n - 1, 2):
            a, b = current[i], current[i + 1]
            lo, hi = fresh, fresh + 1
            fresh += 2
            body.append(f"\tsetp.lt.u32 \t%p{pred}, %k{a}, %k{b};")
            body.append(f"\tselp.b32 \t%k{lo}, %k{a}, %k{b}, %p{pred};")
            body.append(f"\tselp.b32 \t%k{hi}, %k{b}, %k{a}, %p{pred};")
            pred += 1
            nxt[i], nxt[i + 1] = lo, hi
        current = nxt
    # The smallest and largest keys index a table of pointers (64-bit loads,
    # whose values are named by their address), and a flag is stored through each.
    for k in (0, n - 1):
        body += [
            f"\tmul.wide.u32 \t%rd3, %k{current[k]}, 8;",
            "\tadd.s64 \t%rd3, %rd2, %rd3;",
            "\tld.global.u64 \t%rd3, [%rd3];",
            "\tst.global.u32 \t[%rd3], 1;",
        ]
    for k in range(n):
        body.append(f"\tst.global.u32 \t[%rd2+{4 * k}], %k{current[k]};")
    body += ["\tret;", "}", ""]
    body[body.index(f"\t.reg .b32 \t%k<{regs}>;")] = f"\t.reg .b32 \t%k<{fresh + 1}>;"
    return "\n".join(body)


def shuffle(n):
    body = HEADER + [
        ".visible .entry shuffle(",
        "\t.param .u64 shuffle_rows,",
        "\t.param .u64 shuffle_values,",
        "\t.param .u64 shuffle_out",
        ")",
        "{",
        f"\t.reg .pred \t%p<{4 * n + 4}>;",
        f"\t.reg .b32 \t%r<{6 * n + 8}>;",
        f"\t.reg .f32 \t%f<{3 * n + 4}>;",
        "\t.reg .b64 \t%rd<10>;",
        "\tld.param.u64 \t%rd1, [shuffle_rows];",
        "\tld.param.u64 \t%rd2, [shuffle_values];",
        "\tld.param.u64 \t%rd3, [shuffle_out];",
        "\tcvta.to.global.u64 \t%rd4, %rd1;",
        "\tcvta.to.global.u64 \t%rd5, %rd2;",
        "\tcvta.to.global.u64 \t%rd6, %rd3;",
        "\tmov.u32 \t%r0, %laneid;",
        "\tmul.wide.u32 \t%rd7, %r0, 4;",
        "\tadd.s64 \t%rd8, %rd4, %rd7;",
        "\tld.global.u32 \t%r1, [%rd8];",
        "\tadd.s64 \t%rd9, %rd5, %rd7;",
        "\tld.global.f32 \t%f0, [%rd9];",
    ]
    row, val = 1, 0
    for b in range(n):
        k = 1 << (b % 5)
        p, r, f = 4 * b + 1, 6 * b + 2, 3 * b + 1
        body += [
            f"$L_block{b}:",
            f"\tshfl.sync.down.b32 \t%r{r}|%p{p}, %r{row}, {k}, 31, -1;",
            f"\tmov.b32 \t%r{r + 1}, %f{val};",
            f"\tshfl.sync.down.b32 \t%r{r + 2}|%p{p + 1}, %r{r + 1}, {k}, 31, -1;",
            f"\tmov.b32 \t%f{f}, %r{r + 2};",
            f"\tsetp.eq.s32 \t%p{p + 2}, %r{r}, %r{row};",
            f"\tand.pred \t%p{p + 3}, %p{p + 2}, %p{p};",
            f"\tor.pred \t%p{p + 3}, %p{p + 3}, %p{p + 1};",
            f"\tselp.f32 \t%f{f + 1}, %f{f}, 0f00000000, %p{p + 3};",
            f"\tadd.f32 \t%f{f + 2}, %f{val}, %f{f + 1};",
            f"\tselp.b32 \t%r{r + 3}, %r{r}, %r{row}, %p{p + 3};",
            f"\t@!%p{p + 3} bra \t$L_block{b + 1};",
            f"\tadd.s32 \t%r{r + 4}, %r{r + 3}, 1;",
        ]
        row, val = r + 3, f + 2
    body += [
        f"$L_block{n}:",
        f"\tmul.wide.u32 \t%rd7, %r{row}, 8;",
        "\tadd.s64 \t%rd8, %rd6, %rd7;",
        "\tld.global.u64 \t%rd8, [%rd8];",
        f"\tred.global.add.f32 \t[%rd8], %f{val};",
        "\tret;",
        "}",
        "",
    ]
    return "\n".join(body)


def registers(n):
    blocks = max(1, n // 16)
    body = HEADER + [
        ".visible .entry registers(",
        "\t.param .u64 registers_in,",
        "\t.param .u64 registers_out,",
        "\t.param .u32 registers_n",
        ")",
        "{",
        f"\t.reg .pred \t%p<{blocks + 1}>;",
        "\t.reg .b32 \t%r<4>;",
        f"\t.reg .f64 \t%fd<{n + 8}>;",
        "\t.reg .b64 \t%rd<6>;",
        "\tld.param.u64 \t%rd1, [registers_in];",
        "\tld.param.u64 \t%rd2, [registers_out];",
        "\tld.param.u32 \t%r1, [registers_n];",
        "\tcvta.to.global.u64 \t%rd3, %rd1;",
        "\tcvta.to.global.u64 \t%rd4, %rd2;",
    ]
    for k in range(8):
        body.append(f"\tld.global.f64 \t%fd{k}, [%rd3+{8 * k}];")
    per = max(1, (n - 8) // blocks)
    k = 8
    for b in range(blocks):
        body += [f"\tsetp.lt.u32 \t%p{b}, %r1, {b + 1};", f"\t@%p{b} bra \t$L_done;"]
        for _ in range(per):
            if k >= n + 8:
                break
            a, c, d = k - 1, k - 2 - (k % 5), k - 3 - (k % 7)
            body.append(f"\tfma.rn.f64 \t%fd{k}, %fd{a}, %fd{max(c, 0)}, %fd{max(d, 0)};")
            body.append(f"\tst.global.f64 \t[%rd4+{8 * (k % 4096)}], %fd{k};")
            k += 1
    body += ["$L_done:", "\tret;", "}", ""]
    return "\n".join(body)


def comm(n):
    ring = 4
    slot = 1024  # bytes per ring slot
    body = HEADER + [
        f".shared .align 128 .b8 comm_ring[{ring * slot}];",
        "",
        ".visible .entry comm(",
        "\t.param .u64 comm_in,",
        "\t.param .u64 comm_out,",
        "\t.param .u64 comm_flags",
        ")",
        "{",
        "\t.reg .pred \t%p<4>;",
        f"\t.reg .b32 \t%r<{4 * n + 16}>;",
        "\t.reg .b64 \t%rd<16>;",
        "\tld.param.u64 \t%rd1, [comm_in];",
        "\tld.param.u64 \t%rd2, [comm_out];",
        "\tld.param.u64 \t%rd3, [comm_flags];",
        "\tcvta.to.global.u64 \t%rd4, %rd1;",
        "\tcvta.to.global.u64 \t%rd5, %rd2;",
        "\tcvta.to.global.u64 \t%rd6, %rd3;",
        "\tmov.u32 \t%r1, %tid.x;",
        "\tsetp.eq.u32 \t%p1, %r1, 0;",
        "\tshl.b32 \t%r2, %r1, 2;",
        "\tmov.u32 \t%r3, comm_ring;",
        "\tadd.u32 \t%r4, %r3, %r2;",
        "\tmul.wide.u32 \t%rd7, %r1, 4;",
        "\tadd.s64 \t%rd8, %rd4, %rd7;",
        "\tadd.s64 \t%rd9, %rd5, %rd7;",
        "\tmov.u32 \t%r5, 1;",
    ]
    for i in range(n):
        k = i % ring
        v = 16 + 4 * i
        body += [
            f"\tld.global.u32 \t%r{v}, [%rd8+{4 * (i % 64) * 256}];",
            f"\tst.shared.u32 \t[%r4+{k * slot}], %r{v};",
            "\tfence.proxy.async.shared::cta;",
            "\tbar.sync \t0;",
            f"\t@%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd5+{i * slot}], [comm_ring+{k * slot}], {slot};",
            "\t@%p1 cp.async.bulk.commit_group;",
            f"\t@%p1 cp.async.bulk.wait_group.read {ring - 1};",
            f"\tst.global.u32 \t[%rd9+{4 * (i % 64) * 256 + 65536}], %r{v};",
            "\tbar.sync \t0;",
            f"\t@%p1 st.release.gpu.global.u32 \t[%rd6+{8 * i}], %r5;",
            f"$L_poll{i}:",
            f"\tld.acquire.gpu.global.u32 \t%r{v + 1}, [%rd6+{8 * i + 4}];",
            f"\tsetp.eq.u32 \t%p2, %r{v + 1}, 0;",
            f"\t@%p2 bra \t$L_poll{i};",
            f"\tld.global.u32 \t%r{v + 2}, [%rd8+{4 * (i % 64) * 256 + 131072}];",
            f"\tst.global.u32 \t[%rd9+{4 * (i % 64) * 256 + 196608}], %r{v + 2};",
        ]
    body += ["\t@%p1 cp.async.bulk.wait_group.read 0;", "\tret;", "}", ""]
    return "\n".join(body)


SHAPES = {"tempering": tempering, "sortnet": sortnet, "shuffle": shuffle, "registers": registers, "comm": comm}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    sys.stdout.write(SHAPES[sys.argv[1]](int(sys.argv[2])))

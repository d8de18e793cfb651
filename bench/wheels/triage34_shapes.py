#!/usr/bin/env python3
"""Check, finding by finding, the shapes of docs/real-code.md's issue-34 triage in the PTX.

    bench/wheels/triage34_shapes.py marlin REPORT.json...   # vLLM MoE-Marlin's lock stores
    bench/wheels/triage34_shapes.py nvshmem-x REPORT.json... # NVSHMEM's completion-queue polls (X)

Reads the default-tier findings of the reports (release-missing for `marlin`, acquire-missing for
`nvshmem-x`) and the PTX files they name (paths as in the report, relative to the working
directory), tests each clause of the shape on the instructions, and prints how many findings
match each combination of clauses (all True: the shape).
"""
import collections
import json
import re
import sys


def default_findings(reports, check):
    for report in reports:
        for d in json.load(open(report))["diagnostics"]:
            if d.get("tier", "default") == "default" and d["check"] == check:
                yield d


def lines_of(path, cache={}):
    if path not in cache:
        cache[path] = open(path, encoding="utf-8", errors="replace").read().split("\n")
    return cache[path]


def marlin(reports):
    """The lock store after the zeroing of C (atomic-add mode): see docs/real-code.md."""
    clauses = ("signal stores 1 - count", "write stores zeros", "one bar.sync, no fence/atomic between",
               "thread branch after the barrier", "poll: acquire spin until negative, then add 1",
               "read: seed of a CAS loop on its address")
    counts = collections.Counter()
    for d in default_findings(reports, "release-missing"):
        text = lines_of(d["location"]["file"])
        at = lambda n: text[n - 1].strip()
        links = {e["kind"]: e["location"]["line"] for e in d["evidence"] if "location" in e}
        s, w, p, r = d["location"]["line"], links["data-write"], links["poll"], links["guarded-read"]
        ok = []
        m = re.match(r"st\.global\.u32 \[(%rd\d+)\], (%r\d+);", at(s))
        sub = [at(i) for i in range(s - 8, s) if m and at(i).startswith("sub.s32 " + m.group(2) + ",")]
        ok.append(bool(sub))
        z = re.match(r"st\.global\.v4\.u32 \[%rd\d+\], \{(%r\d+), \1, \1, \1\};", at(w))
        ok.append(bool(z) and at(w - 1) == f"mov.u32 {z.group(1)}, 0;")
        between = [at(i) for i in range(w + 1, s)]
        ok.append(w < s and s - w < 200 and sum(t == "bar.sync 0;" for t in between) == 1 and
                  not any(t.startswith(("fence", "membar", "atom", "red")) for t in between))
        after = between[between.index("bar.sync 0;") + 1:] if "bar.sync 0;" in between else []
        ok.append(any(re.match(r"@%p\d+ bra", t) for t in after[:2]))
        poll = [at(i) for i in range(p, p + 10) if at(i)]
        ok.append(poll[0].startswith("ld.global.acquire.gpu.b32") and poll[1].startswith("setp.gt.s32") and
                  poll[1].endswith(", -1;") and poll[3].startswith("atom.global.add.u32") and poll[3].endswith(", 1;"))
        rm = re.match(r"ld\.global\.u32 %r\d+, \[(%rd\d+(\+\d+)?)\];", at(r))
        ok.append(bool(rm) and any(at(i).startswith("atom.global.cas.b32") and f"[{rm.group(1)}]" in at(i)
                                   for i in range(r + 1, r + 12)))
        counts[("prologue" if s < p else "loop",) + tuple(ok)] += 1
    print("site, " + ", ".join(clauses))
    for key, n in sorted(counts.items()):
        print(n, key)


def nvshmem_x(reports):
    """Completion-queue polls whose read follows another poll's exit: see docs/real-code.md."""
    clauses = ("poll: ld.volatile.u64", "the poll's exit jumps past the read",
               "the read is reached by the fall-through of a back edge (the other poll's test)",
               "atom.max of the polled word just before the read", "read: byte 63 of the entry")
    counts = collections.Counter()
    for d in default_findings(reports, "acquire-missing"):
        text = lines_of(d["location"]["file"])
        at = lambda n: text[n - 1].strip()
        labels = {}
        for i, t in enumerate(text, 1):
            m = re.match(r"^(\$L__BB\w+):", t.strip())
            if m:
                labels[m.group(1)] = i
        links = {e["kind"]: e["location"]["line"] for e in d["evidence"] if "location" in e}
        p, r = d["location"]["line"], links["guarded-read"]
        m = re.match(r"ld\.volatile\.u64 %rd\d+, \[(%rd\d+)\];", at(p))
        j = p + 1
        while not (at(j).startswith("@") or at(j).startswith("$L")):
            j += 1
        exit_past = at(j).startswith("@") and labels[re.search(r"bra (\$L__BB\w+);", at(j)).group(1)] > r
        back_edge = atomic_max = False
        i = r - 1
        while i > p:
            t = at(i)
            if t.startswith("$L__BB"):
                break
            if t.startswith("@") and "bra" in t:
                back_edge = labels[re.search(r"bra (\$L__BB\w+);", t).group(1)] < p
                break
            if m and t.startswith("atom.max.u64") and f"[{m.group(1)}]" in t:
                atomic_max = True
            i -= 1
        byte63 = bool(re.match(r"ld\.volatile\.u8 %rs\d+, \[%rd\d+\+63\];", at(r)))
        counts[(bool(m), exit_past, back_edge, atomic_max, byte63)] += 1
    print(", ".join(clauses))
    for key, n in sorted(counts.items()):
        print(n, key)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("marlin", "nvshmem-x"):
        sys.exit(__doc__)
    (marlin if sys.argv[1] == "marlin" else nvshmem_x)(sys.argv[2:])

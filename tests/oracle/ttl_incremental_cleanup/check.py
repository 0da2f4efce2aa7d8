#!/usr/bin/env python3
"""Sanity check of the recorded .expected files against an independent model of TTL
*visibility* (OnCreateAndWrite, NeverReturnExpired: a value, map entry or list element
written at ts is invisible from ts + ttl on). Every read must match the model exactly; every
`count` must hold at least the live (unexpired) entries: physical removal is what the oracle
records, the model only bounds it from below.

One read depends on the physical state: Flink 2.3's TtlMapState.isEmpty() is
`accessCallback.run(); return original.isEmpty();` (bytecode), so a map holding only
expired, not yet removed entries answers `false`. The model keeps `raw`, the entries no API
call removed (an upper bound of what the heap holds), and requires `true` when raw is empty,
`false` when a live entry exists, and accepts either in between (the sweep's business).

usage: python3 check.py [DIR]
"""
import os
import sys


def check(ops_path, exp_path):
    expected = {}
    with open(exp_path) as f:
        for line in f:
            n, text = line.rstrip("\n").split(" ", 1)
            expected.setdefault(int(n), []).append(text)
    ttl = None
    now = 0
    key = None
    v, m, l = {}, {}, {}   # key -> ts | {uk: (uv, ts)} | [(x, ts)]
    raw = {}               # key -> {uk: ts}: map entries not removed by any API call
    printing = True
    errors = 0
    counts = 0
    isempty_false_expired = [0]
    live = lambda ts: ts + ttl > now

    def want(n, text):
        nonlocal errors
        got = expected.get(n, [])
        if got != [text]:
            errors += 1
            if errors <= 10:
                print("%s:%d: model %r, oracle %r" % (ops_path, n, text, got))

    with open(ops_path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            p = line.split(" ")
            op = p[0]
            if op == "ttl":
                ttl = int(p[1])
            elif op == "time":
                now = int(p[1])
            elif op == "print":
                printing = p[1] == "on"
            elif op == "key":
                key = line
            elif op == "hash":
                pass
            elif op == "v.value":
                x = v.get(key)
                r = x[0] if x and live(x[1]) else None
                if printing:
                    want(n, "v.value=%s" % ("null" if r is None else r))
            elif op == "v.update":
                v[key] = (int(p[1]), now)
            elif op == "v.clear":
                v.pop(key, None)
            elif op.startswith("m."):
                mp = m.setdefault(key, {})
                rw = raw.setdefault(key, {})
                if op in ("m.get", "m.contains") and int(p[1]) in rw and not live(rw[int(p[1])]):
                    del rw[int(p[1])]   # TtlMapState.getWrapped clears an expired entry it reads
                elif op == "m.entries":
                    for uk in [k for k, ts in rw.items() if not live(ts)]:
                        del rw[uk]      # the TTL iterator removes what it skips
                elif op == "m.put":
                    rw[int(p[1])] = now
                elif op == "m.remove":
                    rw.pop(int(p[1]), None)
                elif op == "m.clear":
                    rw.clear()
                for uk in [k for k, (_, ts) in mp.items() if not live(ts)]:
                    del mp[uk]
                if op == "m.put":
                    mp[int(p[1])] = (int(p[2]), now)
                elif op == "m.remove":
                    mp.pop(int(p[1]), None)
                elif op == "m.clear":
                    mp.clear()
                elif printing:
                    if op == "m.get":
                        x = mp.get(int(p[1]))
                        want(n, "m.get=%s" % ("null" if x is None else x[0]))
                    elif op == "m.contains":
                        want(n, "m.contains=%s" % ("true" if int(p[1]) in mp else "false"))
                    elif op == "m.isEmpty":
                        if mp:
                            want(n, "m.isEmpty=false")
                        elif not rw:
                            want(n, "m.isEmpty=true")
                        elif expected.get(n) == ["m.isEmpty=false"]:
                            isempty_false_expired[0] += 1
                        else:
                            want(n, "m.isEmpty=true")
                    elif op == "m.entries":
                        want(n, "m.entries=" + ",".join("%d:%d" % (k, mp[k][0]) for k in sorted(mp)))
            elif op.startswith("l."):
                ls = [e for e in l.get(key, []) if live(e[1])]
                if op == "l.add":
                    ls.append((int(p[1]), now))
                elif op == "l.update":
                    ls = [(int(x), now) for x in p[1:]]
                elif op == "l.clear":
                    ls = []
                elif printing:
                    want(n, "l.get=" + ",".join(str(x) for x, _ in ls))
                l[key] = ls
            elif op == "count":
                counts += 1
                a = sum(1 for x in v.values() if live(x[1]))
                mk = [sum(1 for _, ts in mp.values() if live(ts)) for mp in m.values()]
                lk = [sum(1 for _, ts in ls if live(ts)) for ls in l.values()]
                got = expected.get(n, [""])[0]
                f = dict(kv.split("=") for kv in got.split(" "))
                A = int(f["v"]); B, C = map(int, f["m"].split("/")); D, E = map(int, f["l"].split("/"))
                lo = (a, sum(1 for c in mk if c), sum(mk), sum(1 for c in lk if c), sum(lk))
                if not (A >= lo[0] and B >= lo[1] and C >= lo[2] and D >= lo[3] and E >= lo[4]):
                    errors += 1
                    if errors <= 10:
                        print("%s:%d: oracle %r holds less than the live %r" % (ops_path, n, got, lo))
            else:
                raise SystemExit("%s:%d: unknown op %r" % (ops_path, n, op))
    print("%s: %d count lines, %d m.isEmpty=false on only expired entries, %s" % (
        os.path.basename(ops_path), counts, isempty_false_expired[0], "OK" if errors == 0 else "%d MISMATCHES" % errors))
    return errors == 0


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    ok = True
    for name in sorted(os.listdir(d)):
        if name.endswith(".ops"):
            ok &= check(os.path.join(d, name), os.path.join(d, name[:-4] + ".expected"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

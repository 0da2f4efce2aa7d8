#!/usr/bin/env python3
"""Where a wasm module's code bytes go, by crate: reads the code section's function bodies and the
`name` custom section's function names (the module cargo builds, before wasm-bindgen and wasm-opt
strip the names), and adds each body's size to the crate its (demangled) path starts with.

    scripts/wasm-size-by-crate.py target/wasm32-unknown-unknown/wasm-release/flink_state_sim.wasm

Prints the total code bytes, then the crates by share (and the engine's planner, its SQL part,
on its own line). Measurement only: sizes before wasm-opt, which shrinks every crate alike."""
import re, signal, sys
from collections import Counter

# Piped into `head`: end quietly when the reader stops (no BrokenPipeError traceback).
signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]; i += 1
        r |= (x & 0x7F) << s; s += 7
        if x < 0x80:
            return r, i


def sections(b):
    i = 8
    while i < len(b):
        sid = b[i]; i += 1
        size, i = leb(b, i)
        yield sid, b[i:i + size]
        i += size


def crate_of(name):
    """The crate of a legacy-mangled Rust symbol (`_ZN<len><segment>…`): its first path segment,
    or for a trait impl (`_<Type as Trait>::…`, written `_$LT$Type$u20$as…`) the type's crate."""
    m = re.match(r'_ZN(\d+)', name)
    if not m:
        return re.match(r'[A-Za-z0-9_]*', name).group(0) or '?'
    first = name[m.end():m.end() + int(m.group(1))]
    if first.startswith('_$LT$'):
        inner = first[5:]
        inner = re.sub(r'^(\$RF\$|mut\$u20\$|\$u5b\$|\$LP\$)+', '', inner)
        return re.match(r'[A-Za-z0-9_]*', inner).group(0) or '?'
    return first


def main(path):
    b = open(path, 'rb').read()
    imported = 0
    bodies = []
    names = {}
    for sid, body in sections(b):
        if sid == 2:  # imports: functions count first in the index space
            n, i = leb(body, 0)
            for _ in range(n):
                for _ in range(2):
                    l, i = leb(body, i); i += l
                kind = body[i]; i += 1
                if kind == 0:
                    _, i = leb(body, i); imported += 1
                elif kind == 1:
                    i += 1; flags = body[i]; i += 1; _, i = leb(body, i)
                    if flags & 1: _, i = leb(body, i)
                elif kind == 2:
                    flags = body[i]; i += 1; _, i = leb(body, i)
                    if flags & 1: _, i = leb(body, i)
                elif kind == 3:
                    i += 2
        elif sid == 10:
            n, i = leb(body, 0)
            for _ in range(n):
                size, i = leb(body, i); bodies.append(size); i += size
        elif sid == 0:
            l, i = leb(body, 0)
            if body[i:i + l] != b'name':
                continue
            i += l
            while i < len(body):
                sub = body[i]; i += 1
                size, i = leb(body, i)
                if sub == 1:
                    j = i
                    n, j = leb(body, j)
                    for _ in range(n):
                        idx, j = leb(body, j); l2, j = leb(body, j)
                        names[idx] = body[j:j + l2].decode('utf-8', 'replace'); j += l2
                i += size
    if not names:
        sys.exit(f"{path}: no name section (build with names kept: the module cargo writes)")
    by = Counter()
    planner = 0
    for k, size in enumerate(bodies):
        name = names.get(imported + k, '?')
        crate = crate_of(name)
        # Generic code instantiated for a crate's types is named by the generic's crate (core,
        # alloc, serde): those lines hold part of every crate that uses them.
        by[crate] += size
        if 'planner' in name and 'flink_state_sim' in name:
            planner += size
    total = sum(bodies)
    print(f"{total} code bytes in {len(bodies)} functions")
    for crate, size in by.most_common(20):
        print(f"{size / total:6.1%} {size:9d}  {crate}")
    print(f"{planner / total:6.1%} {planner:9d}  (flink_state_sim::engine::planner, within flink_state_sim)")


main(sys.argv[1])

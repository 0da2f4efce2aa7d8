#!/usr/bin/env bash
# Regenerates every <name>.ops (gen.py) and <name>.expected (TtlCleanupOracle on the Flink 2.3.0
# jars of PyPI apache-flink==2.3.0). Usage: ./record.sh [PYFLINK_LIB_DIR]
# Without an argument the jars are looked for in $PYFLINK_LIB, then /tmp/flinkvenv, then in the
# pyflink package of `python3` (pip install apache-flink==2.3.0).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lib="${1:-${PYFLINK_LIB:-}}"
if [ -z "$lib" ]; then
    lib="$(ls -d /tmp/flinkvenv/lib/python3*/site-packages/pyflink/lib 2>/dev/null | head -1 || true)"
fi
if [ -z "$lib" ]; then
    lib="$(python3 -c 'import os, pyflink; print(os.path.join(os.path.dirname(pyflink.__file__), "lib"))' 2>/dev/null || true)"
fi
for j in flink-dist-2.3.0.jar flink-table-runtime-2.3.0.jar flink-table-api-java-uber-2.3.0.jar; do
    [ -f "$lib/$j" ] || { echo "record.sh: $lib/$j not found (pip install apache-flink==2.3.0)" >&2; exit 1; }
done
cp="$lib/flink-dist-2.3.0.jar:$lib/flink-table-runtime-2.3.0.jar:$lib/flink-table-api-java-uber-2.3.0.jar"
for j in "$lib"/log4j-*.jar; do cp="$cp:$j"; done
build="$(mktemp -d /tmp/ttl-oracle-build.XXXXXX)"
trap 'rm -rf "$build"' EXIT
javac -cp "$cp" -d "$build" "$here/TtlCleanupOracle.java"
python3 "$here/gen.py" "$here"
for ops in "$here"/*.ops; do
    name="$(basename "$ops" .ops)"
    java -cp "$build:$cp" TtlCleanupOracle "$ops" > "$here/$name.expected"
    echo "$name: $(wc -l < "$here/$name.expected") lines, last: $(tail -1 "$here/$name.expected")"
done

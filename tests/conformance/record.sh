#!/usr/bin/env bash
# Record conformance specs on real Apache Flink 2.3.0 (see README.md).
#   tests/conformance/record.sh             # every spec in specs/
#   tests/conformance/record.sh NAME ...    # only these (NAME = file name without .json)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
WANT=2.3.0

has_flink() { [ -x "$1/bin/python" ] && [ "$("$1/bin/python" -m pip show apache-flink 2>/dev/null | sed -n 's/^Version: //p')" = "$WANT" ]; }

if has_flink /tmp/flinkvenv; then
  VENV=/tmp/flinkvenv
else
  VENV="${FLINK_VENV:-$HOME/.cache/flink-state-sim/flinkvenv}"
  if ! has_flink "$VENV"; then
    echo "installing apache-flink==$WANT into $VENV (about 1 min, 850 MB)"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet "apache-flink==$WANT"
  fi
fi
command -v java >/dev/null || { echo "java (17) is required on PATH" >&2; exit 1; }

# Java helpers (udf/): the seed-004 preset's LATEST_BY_TIME UDAF and HoldOpenSource.
# Built once into a jar next to the venv.
export CONF_UDF_JAR="$VENV/conformance-udf/conformance-udf.jar"
if [ ! -f "$CONF_UDF_JAR" ] || [ -n "$(find "$HERE/udf" -newer "$CONF_UDF_JAR" -name '*.java')" ]; then
  LIB="$("$VENV/bin/python" -c 'import pyflink, os; print(os.path.join(os.path.dirname(pyflink.__file__), "lib"))')"
  BUILD="$(mktemp -d)"
  javac -nowarn -d "$BUILD" -cp "$LIB/flink-table-api-java-uber-$WANT.jar:$LIB/flink-dist-$WANT.jar" "$HERE"/udf/*.java
  mkdir -p "$(dirname "$CONF_UDF_JAR")"
  jar cf "$CONF_UDF_JAR" -C "$BUILD" .
  rm -rf "$BUILD"
fi

if [ $# -gt 0 ]; then
  SPECS=(); for n in "$@"; do SPECS+=("$HERE/specs/${n%.json}.json"); done
else
  SPECS=("$HERE"/specs/*.json)
fi
FAILED=0
START=$SECONDS
for spec in "${SPECS[@]}"; do
  name="$(basename "$spec" .json)"
  t0=$SECONDS
  if ! line="$("$VENV/bin/python" "$HERE/record.py" "$spec" 2>"/tmp/conformance-$name.err")"; then
    echo "$name FAILED $((SECONDS - t0))s (see /tmp/conformance-$name.err)"
    tail -3 "/tmp/conformance-$name.err" | sed 's/^/    /'
    FAILED=$((FAILED + 1))
  else
    echo "$line"
  fi
done
echo "${#SPECS[@]} specs, $FAILED failed, $((SECONDS - START))s"
[ "$FAILED" -eq 0 ]

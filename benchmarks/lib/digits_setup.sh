# digits_setup.sh — sourced by the digits benchmarks (digits/run.sh, digits/cold.sh,
# cnn_digits/run.sh) after they set NAME: the data set DATA (DIGITS_CSV, or
# python3-sklearn's copy; missing: a message and exit 77, a skip), the Python PY
# (Debian's, where python3-torch is importable), a scratch directory DIR removed on
# exit, and the CPU line every benchmark report starts with.
DATA=${DIGITS_CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ ! -f "$DATA" ]; then
  echo "$NAME: $DATA not found (install python3-sklearn, or set DIGITS_CSV)"
  exit 77
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%Y-%m-%d)"

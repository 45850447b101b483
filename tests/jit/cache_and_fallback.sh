#!/usr/bin/env bash
# cache_and_fallback.sh KILN — the kernel cache and the interpreter fallback
# (docs/jit.md), run as real processes: a second process loads the cached kernels
# and compiles nothing; a truncated, damaged or foreign entry is replaced; a
# symlinked, group-writable or foreign-owned entry or directory is never loaded
# (in-memory compile, one warning); concurrent processes compile a kernel once; a cache
# directory that cannot be created means in-memory compiles with ONE warning;
# KILN_CACHE_DIR=off; KILN_JIT_DUMP; and a broken toolchain (gcc driver or `as`
# missing from PATH) falls back to the interpreter with one warning naming the
# cause, printing the same results.
#
# Tests run as root, where a chmod'ed directory is still writable, so the
# "read-only" cache is a path whose parent is a regular FILE: mkdir fails.
set -u
kiln="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # check NAME CONDITION-STATUS
  if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
run() {  # run ENV... -> stdout+stderr in $out, status in $rc
  out="$(cd "$here" && env "$@" "$kiln" kernel.lisp 2>&1)"
  rc=$?
}
expected_first_line="(#t #t)"

# 1. miss, then hit in a second process
cache="$tmp/cache"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "first run compiles (2 misses)" $([ "$(grep -c 'cache miss' <<<"$out")" = 2 ] && [ $rc = 0 ] && echo 0 || echo 1)
reference="$(grep -v '^kiln-jit:' <<<"$out")"
fhash="$(sed -n 's/.*f: cache miss \([0-9a-f]*\).*/\1/p' <<<"$out")"
check "first run is correct" $([ "$(head -1 <<<"$reference")" = "$expected_first_line" ] && echo 0 || echo 1)
check "two entries written" $([ "$(ls "$cache"/*.so | wc -l)" = 2 ] && echo 0 || echo 1)
check "no temporary files left (only entries and the lock file)" $([ -z "$(ls -A "$cache" | grep -v '\.so$' | grep -vx lock)" ] && echo 0 || echo 1)
check "cache directory created 0700" $([ "$(stat -c %a "$cache")" = 700 ] && echo 0 || echo 1)
check "entries are 0600" $([ "$(stat -c %a "$cache"/*.so | sort -u)" = 600 ] && echo 0 || echo 1)
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "second process: 2 hits" $([ "$(grep -c 'cache hit' <<<"$out")" = 2 ] && echo 0 || echo 1)
check "second process compiles nothing" $(grep -q 'miss\|compiled' <<<"$out" && echo 1 || echo 0)
check "second process same output" $([ "$(grep -v '^kiln-jit:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)

# 2. a truncated entry is recompiled and replaced
victim="$(ls "$cache"/*.so | head -1)"
other="$(ls "$cache"/*.so | tail -1)"
head -c 200 "$victim" > "$victim.cut" && mv "$victim.cut" "$victim"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "truncated entry detected" $(grep -q 'damaged or foreign' <<<"$out" && echo 0 || echo 1)
check "truncated entry recompiled" $([ "$(grep -c 'cache miss' <<<"$out")" = 1 ] && echo 0 || echo 1)
check "truncated entry: same output" $([ "$(grep -v '^kiln-jit:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
check "truncated entry replaced" $([ "$(stat -c %s "$victim")" -gt 200 ] && echo 0 || echo 1)
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "replaced entry hits" $([ "$(grep -c 'cache hit' <<<"$out")" = 2 ] && echo 0 || echo 1)

# a truncation that keeps the ELF headers (the loader used to map past the end
# of the file: SIGBUS); the size is checked from the file's bytes first
cp "$victim" "$tmp/good-entry.so"
truncate -s $(( $(stat -c %s "$victim") / 2 )) "$victim"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "half-truncated entry: exit 0, recompiled, same output" $([ $rc = 0 ] && grep -q 'damaged or foreign (no entry trailer' <<<"$out" && [ "$(grep -v '^kiln-jit:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
# one flipped byte inside the shared object: the checksum catches it
python3 - "$victim" <<'PY2'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 3] ^= 0x40; open(p, 'wb').write(b)
PY2
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "flipped byte: checksum mismatch, recompiled" $([ $rc = 0 ] && grep -q 'damaged or foreign (checksum mismatch)' <<<"$out" && [ "$(grep -v '^kiln-jit:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)

# 3. a foreign entry (another kernel's file under this name) is recompiled
cp "$other" "$victim"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "foreign entry detected" $(grep -q 'compiled for another key' <<<"$out" && echo 0 || echo 1)
check "foreign entry: same output" $([ "$(grep -v '^kiln-jit:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
# garbage that is not an ELF file at all
echo "not a shared object" > "$victim"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "garbage entry recompiled" $(grep -q 'damaged or foreign' <<<"$out" && [ "$(grep -v '^kiln-jit:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)

# 3b. entries and directories another user could have written are never loaded
# (docs/jit.md): the kernel is compiled in memory with ONE warning, the entry is
# left alone, and the output is the same.
not_loaded() {  # not_loaded NAME: the last run compiled one kernel in memory, hit the other, warned once
  check "$1: not loaded, compiled in memory" $([ $rc = 0 ] && [ "$(grep -c 'compiled in memory' <<<"$out")" = 1 ] && echo 0 || echo 1)
  check "$1: one warning" $([ "$(grep -c '^warning: kernel cache entry .* is not safe to use' <<<"$out")" = 1 ] && echo 0 || echo 1)
  check "$1: same output" $([ "$(grep -v '^kiln-jit:\|^warning:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
}
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1   # both entries valid again
cp "$victim" "$tmp/good-entry.so"
rm "$victim" && ln -s "$tmp/good-entry.so" "$victim"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
not_loaded "symlinked entry"
check "symlinked entry: the link is not followed" $(grep -q 'not safe to use (a symbolic link)' <<<"$out" && [ -L "$victim" ] && echo 0 || echo 1)
rm "$victim" && cp "$tmp/good-entry.so" "$victim"
chmod 0620 "$victim"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
not_loaded "group-writable entry"
check "group-writable entry: reason given" $(grep -q 'writable by group or others (mode 0620)' <<<"$out" && echo 0 || echo 1)
chmod 0602 "$victim"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
not_loaded "other-writable entry"
chmod 0600 "$victim"
chmod 0770 "$cache"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "group-writable directory: one warning, in memory, same output" $([ $rc = 0 ] && [ "$(grep -c '^warning: kernel cache directory .* is not safe to use (writable by group or others (mode 0770))' <<<"$out")" = 1 ] && [ "$(grep -c 'compiled in memory' <<<"$out")" = 2 ] && [ "$(grep -v '^kiln-jit:\|^warning:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
chmod 0700 "$cache"
run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
check "restored entry and directory hit again" $([ "$(grep -c 'cache hit' <<<"$out")" = 2 ] && echo 0 || echo 1)
if [ "$(id -u)" = 0 ]; then
  # Another user's entry (a valid one, so only the owner check stops it) and
  # another user's directory holding a planted object whose constructor would
  # leave a marker.
  chown 65534:65534 "$victim"
  run KILN_CACHE_DIR="$cache" KILN_JIT_LOG=1
  not_loaded "foreign-owned entry"
  check "foreign-owned entry: reason given" $(grep -q 'owned by uid 65534, but Kiln runs as uid 0' <<<"$out" && echo 0 || echo 1)
  chown 0:0 "$victim"
  planted="$tmp/planted"
  mkdir -m 0755 "$planted"
  cp "$cache"/*.so "$planted/"
  if command -v gcc >/dev/null; then
    printf '%s\n' '#include <stdio.h>' \
      '__attribute__((constructor)) static void evil(void) { FILE *f = fopen(MARKER, "w"); if (f) fclose(f); }' \
      > "$tmp/evil.c"
    gcc -shared -fPIC -DMARKER="\"$tmp/pwned\"" -o "$planted/$(basename "$victim")" "$tmp/evil.c"
  fi
  chown -R 65534:65534 "$planted"
  run KILN_CACHE_DIR="$planted" KILN_JIT_LOG=1
  check "foreign-owned directory: one warning, in memory, same output" $([ $rc = 0 ] && [ "$(grep -c '^warning: kernel cache directory .* is not safe to use (owned by uid 65534' <<<"$out")" = 1 ] && [ "$(grep -c 'compiled in memory' <<<"$out")" = 2 ] && [ "$(grep -v '^kiln-jit:\|^warning:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
  check "foreign-owned directory: no planted code ran" $([ ! -e "$tmp/pwned" ] && echo 0 || echo 1)
else
  echo "SKIP foreign-owned entry and directory (needs root for chown)"
fi

# 3c. processes compiling the same kernels at once compile each once: the
# others wait for the lock and load the entry
conc="$tmp/concurrent"
for i in 1 2 3 4; do
  (cd "$here" && KILN_CACHE_DIR="$conc" KILN_JIT_LOG=1 "$kiln" kernel.lisp >"$tmp/conc$i.out" 2>&1; echo $? >"$tmp/conc$i.rc") &
done
wait
misses=0; hits=0; same=0
for i in 1 2 3 4; do
  misses=$((misses + $(grep -c 'cache miss' "$tmp/conc$i.out")))
  hits=$((hits + $(grep -c 'cache hit' "$tmp/conc$i.out")))
  [ "$(cat "$tmp/conc$i.rc")" = 0 ] && [ "$(grep -v '^kiln-jit:' "$tmp/conc$i.out")" = "$reference" ] && same=$((same + 1))
done
check "concurrent processes: each kernel compiled once ($misses misses, $hits hits)" $([ $misses = 2 ] && [ $hits = 6 ] && echo 0 || echo 1)
check "concurrent processes: all exit 0 with the same output" $([ $same = 4 ] && echo 0 || echo 1)
check "concurrent processes: no temporary files left" $([ -z "$(ls -A "$conc" | grep -v '\.so$' | grep -vx lock)" ] && echo 0 || echo 1)

# 3d. the lock as another process holds it (an OFD lock on one byte of `lock`,
# at the first 12 hex digits of the hash): a holder that ends without writing
# the entry lets the waiter compile it; Ctrl-C stops a waiter
cat > "$tmp/hold.py" <<'PY2'
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1] + "/lock", os.O_RDWR | os.O_CREAT, 0o600)
F_OFD_SETLK = 37
fcntl.fcntl(fd, F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, int(sys.argv[2][:12], 16), 1, 0))
open(sys.argv[1] + "/../held", "w").close()
time.sleep(float(sys.argv[3]))
PY2
hold() {  # hold DIR SECONDS: in the background, returns once the lock is held
  rm -f "$tmp/held"; mkdir -p -m 0700 "$1"
  python3 "$tmp/hold.py" "$1" "$fhash" "$2" & holder=$!
  while [ ! -e "$tmp/held" ] && kill -0 $holder 2>/dev/null; do sleep 0.05; done
}
hold "$tmp/locked" 1.5
run KILN_CACHE_DIR="$tmp/locked" KILN_JIT_LOG=1
wait $holder
check "lock holder wrote nothing: the waiter compiles it" $([ $rc = 0 ] && grep -q "f: cache miss $fhash after waiting for another process" <<<"$out" && [ "$(grep -v '^kiln-jit:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
rm -rf "$tmp/locked"
hold "$tmp/locked" 30
(cd "$here" && KILN_CACHE_DIR="$tmp/locked" exec "$kiln" kernel.lisp >"$tmp/int.out" 2>&1) & waiter=$!
sleep 1; kill -INT $waiter; wait $waiter; rc=$?
kill $holder; wait $holder 2>/dev/null
check "Ctrl-C stops a process waiting for the lock" $([ $rc = 130 ] && grep -qx interrupted "$tmp/int.out" && [ -z "$(ls -A "$tmp/locked" | grep -vx lock)" ] && echo 0 || echo 1)

# 4. unwritable cache directory: in-memory compiles, one warning
touch "$tmp/regular-file"
run KILN_CACHE_DIR="$tmp/regular-file/kernels"
check "read-only cache: one warning" $([ "$(grep -c 'warning: kernel cache directory .* is not writable; compiling kernels in memory' <<<"$out")" = 1 ] && echo 0 || echo 1)
check "read-only cache: same output" $([ "$(grep -v '^warning:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)

# 5. KILN_CACHE_DIR=off and the default directory under XDG_CACHE_HOME
run KILN_CACHE_DIR=off KILN_JIT_LOG=1 XDG_CACHE_HOME="$tmp/xdg"
check "cache off: compiled in memory" $([ "$(grep -c 'compiled in memory' <<<"$out")" = 2 ] && [ ! -e "$tmp/xdg" ] && echo 0 || echo 1)
run XDG_CACHE_HOME="$tmp/xdg" KILN_CACHE_DIR=
check "XDG_CACHE_HOME/kiln/kernels used" $([ "$(ls "$tmp/xdg/kiln/kernels"/*.so 2>/dev/null | wc -l)" = 2 ] && echo 0 || echo 1)

# 6. KILN_JIT_DUMP writes each kernel's source
run KILN_CACHE_DIR=off KILN_JIT_DUMP="$tmp/dump"
check "dump: two sources" $([ "$(ls "$tmp/dump"/*.c 2>/dev/null | wc -l)" = 2 ] && grep -q 'kiln_kernel' "$tmp/dump"/f-*.c && echo 0 || echo 1)

rm -rf "$tmp/dump"
run KILN_CACHE_DIR="$cache" KILN_JIT_DUMP="$tmp/dump"
check "dump on a cache hit too" $([ "$(ls "$tmp/dump"/*.c 2>/dev/null | wc -l)" = 2 ] && echo 0 || echo 1)

# 7. fallback: no gcc driver on PATH
run KILN_CACHE_DIR=off PATH=/nonexistent
check "no driver: one warning per kernel naming the cause" $([ "$(grep -c "warning: kernel f: libgccjit could not compile it (error invoking gcc driver" <<<"$out")" = 1 ] && echo 0 || echo 1)
check "no driver: same results from the interpreter" $([ "$(grep -v '^warning:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
# the driver present but no assembler: the driver's own message is quoted
driver="$(command -v x86_64-linux-gnu-gcc-12 || command -v gcc-12 || true)"
if [ -n "$driver" ]; then
  mkdir -p "$tmp/noas"
  ln -s "$driver" "$tmp/noas/$(basename "$driver")"
  run KILN_CACHE_DIR=off PATH="$tmp/noas"
  check "no assembler: warning quotes the driver" $(grep -q "warning: kernel f: libgccjit could not compile it (.*cannot execute .as.*); using the graph interpreter" <<<"$out" && echo 0 || echo 1)
  check "no assembler: same results" $([ "$(grep -v '^warning:' <<<"$out")" = "$reference" ] && echo 0 || echo 1)
fi

# 8. --jit-check
out="$(KILN_CACHE_DIR=off "$kiln" --jit-check 2>&1)"; rc=$?
check "--jit-check ok" $([ $rc = 0 ] && grep -q 'jit-check: ok' <<<"$out" && echo 0 || echo 1)
out="$(KILN_CACHE_DIR=off PATH=/nonexistent "$kiln" --jit-check 2>&1)"; rc=$?
check "--jit-check reports a broken toolchain" $([ $rc = 1 ] && grep -q 'compiling FAILED: error invoking gcc driver' <<<"$out" && echo 0 || echo 1)

echo "$fails failed"
[ $fails = 0 ]

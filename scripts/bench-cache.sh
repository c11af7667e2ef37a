#!/usr/bin/env bash
# Rerunnable benchmark of the catalog's hash cache (issue 6; results in
# docs/performance.md). In one run it:
#   1. creates 10,000 files totalling exactly 2 GiB (random bytes) under
#      DATA_DIR (default target/bench-cache), once;
#   2. waits until every file is older than the racy margin (3 s), as shards
#      written by a download or a training job are by the time CI checks them;
#   3. times `proofpack manifest` with an empty catalog (hashes everything and
#      fills the cache), then again (served by the cache), and once with
#      --no-cache for reference; prints times, the ratio and the digests,
#      which must all be equal;
#   4. rewrites one file's contents with the same size and puts its mtime
#      back to the exact old value (what a rewrite in the same second looks
#      like), runs the cached manifest again and checks that the digest
#      changed and equals a --no-cache run.
# Runs use a warm page cache (the files were just written or read), which is
# the hardest case for the cache: the uncached run is pure CPU, no disk.
#
# Usage: scripts/bench-cache.sh [DATA_DIR]   Needs ~2.1 GiB of disk.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-target/bench-cache}
cargo build --release --quiet
pp=$PWD/target/release/proofpack
tree=$data/tree
catalog=$data/catalog.db

if [[ ! -f "$data/.ready" ]]; then
  echo "generating 10,000 files, 2 GiB, in $tree" >&2
  rm -rf "$tree"; mkdir -p "$tree"
  # 9,999 files of 214,749 bytes and one of 208,397: exactly 2^31 bytes.
  head -c $((1 << 31)) /dev/urandom | split -b 214749 -a 5 -d - "$tree/shard-"
  touch "$data/.ready"
fi
n=$(find "$tree" -type f | wc -l)
bytes=$(python3 -c 'import os,sys; print(sum(e.stat().st_size for e in os.scandir(sys.argv[1])))' "$tree")
[[ $n -eq 10000 && $bytes -eq 2147483648 ]] || { echo "unexpected tree: $n files, $bytes bytes" >&2; exit 1; }
sleep 4   # past the racy margin for the newest file

rm -f "$catalog" "$catalog-wal" "$catalog-shm"
export PROOFPACK_CATALOG=$PWD/$catalog
# manifest uses an existing catalog's cache and never creates a catalog
# (v1.1): create an empty one by storing an empty baseline.
: > "$data/empty.manifest"
"$pp" catalog import bench-empty "$data/empty.manifest" 2>/dev/null
run() { # run LABEL ARGS... ; prints seconds, leaves digest in $digest
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$pp" -v manifest "$@" "$tree" 2>&1 >/dev/null)   # -v: the cache line
  t1=$(date +%s.%N)
  digest=$(grep -o 'sha256:[0-9a-f]*' <<<"$out" | head -1)
  cacheline=$(grep '^cache' <<<"$out" || true)
  secs=$(python3 -c "print(f'{$t1-$t0:.3f}')")
}

cat "$tree"/* > /dev/null   # warm page cache for every run
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $($pp --version)"
echo "tree: $n files, $bytes bytes"
run; t_first=$secs; d_first=$digest; echo "first  (empty catalog): $t_first s  $d_first  [$cacheline]"
run; t_second=$secs; d_second=$digest; echo "second (cached):        $t_second s  $d_second  [$cacheline]"
run; t_third=$secs; echo "third  (cached):        $t_third s  $digest"
run --no-cache; t_nc=$secs; d_nc=$digest; echo "--no-cache:             $t_nc s  $d_nc"
best=$(python3 -c "print(min($t_second, $t_third))")
ratio=$(python3 -c "print(f'{$t_first/$best:.1f}')")
echo "speed-up, first / best cached: ${ratio}x (target: >= 20x)"
[[ $d_first == "$d_second" && $d_first == "$d_nc" ]] || { echo "DIGESTS DIFFER" >&2; exit 1; }
echo "digests equal: yes"

victim=$tree/shard-04242
python3 - "$victim" <<'PY'
import os, sys
p = sys.argv[1]
st = os.stat(p)
with open(p, "r+b") as f:
    b = f.read(1)
    f.seek(0)
    f.write(bytes([b[0] ^ 0xFF]))
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
st2 = os.stat(p)
assert (st2.st_size, st2.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
print(f"rewrote one byte of {os.path.basename(p)}: same size {st2.st_size}, same mtime {st2.st_mtime_ns} ns, ctime {st.st_ctime_ns} -> {st2.st_ctime_ns}")
PY
run; t_after=$secs; d_after=$digest; echo "after rewrite (cached): $t_after s  $d_after  [$cacheline]"
run --no-cache; d_truth=$digest; echo "after rewrite (--no-cache):  $d_truth"
if [[ $d_after != "$d_first" && $d_after == "$d_truth" ]]; then
  echo "rewrite noticed: yes (digest changed and equals the uncached digest)"
else
  echo "REWRITE NOT NOTICED" >&2; exit 1
fi

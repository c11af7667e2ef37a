#!/usr/bin/env bash
# The fuzz corpora are committed as one archive per target,
# fuzz/corpus/<target>.tgz (a folder <target>/ of the inputs); the stable
# replay tests read the archives, cargo fuzz reads and grows the folders.
#
#   scripts/fuzz-corpus.sh unpack [TARGET...]   archive -> fuzz/corpus/TARGET/
#   scripts/fuzz-corpus.sh pack [TARGET...]     fuzz/corpus/TARGET/ -> archive
#
# Without targets: every archive (unpack) or every folder (pack). pack is
# byte-reproducible (names sorted, times, owners and modes fixed, gzip -n),
# so an unchanged corpus gives an unchanged archive; minimise a folder with
# `cargo fuzz cmin` before packing it. The folders are not committed
# (.gitignore).
set -euo pipefail
cd "$(dirname "$0")/../fuzz/corpus"
verb=${1:-}
shift || true
case "$verb" in
  unpack)
    targets=("$@")
    ((${#targets[@]})) || for a in *.tgz; do targets+=("${a%.tgz}"); done
    for t in "${targets[@]}"; do
      [[ -f "$t.tgz" ]] || { echo "fuzz-corpus.sh: no fuzz/corpus/$t.tgz" >&2; exit 2; }
      tar -xzf "$t.tgz"
      echo "fuzz/corpus/$t/: $(find "$t" -type f | wc -l) inputs"
    done
    ;;
  pack)
    targets=("$@")
    ((${#targets[@]})) || for d in */; do targets+=("${d%/}"); done
    for t in "${targets[@]}"; do
      [[ -d "$t" ]] || { echo "fuzz-corpus.sh: no fuzz/corpus/$t/" >&2; exit 2; }
      tmp=$(mktemp "$t.tgz.XXXXXX")
      trap 'rm -f "$tmp"' EXIT
      LC_ALL=C tar --sort=name --format=gnu --mtime=@0 --owner=0 --group=0 \
        --numeric-owner --mode=u=rw,go=r,a+X -cf - "$t" | gzip -n -9 > "$tmp"
      mv "$tmp" "$t.tgz"
      trap - EXIT
      echo "fuzz/corpus/$t.tgz: $(find "$t" -type f | wc -l) inputs, $(stat -c %s "$t.tgz") bytes"
    done
    ;;
  *)
    echo "usage: scripts/fuzz-corpus.sh unpack|pack [TARGET...]" >&2
    exit 2
    ;;
esac

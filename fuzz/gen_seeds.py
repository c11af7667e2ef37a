#!/usr/bin/env python3
"""Writes the seed corpus of the bundle_reader fuzz target into
fuzz/corpus/bundle_reader/. Each seed is one mode byte (0 = raw bundle,
1 = tar stream the harness gzips) followed by the bytes. Usage:
    python3 fuzz/gen_seeds.py [path/to/proofpack]
With a proofpack binary, a bundle it seals is added too."""
import gzip, hashlib, io, os, subprocess, sys, tarfile, tempfile

out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "bundle_reader")
os.makedirs(out_dir, exist_ok=True)

def save(name, mode, data):
    with open(os.path.join(out_dir, "seed-" + name), "wb") as f:
        f.write(bytes([mode]) + data)

def manifest(files):
    return "".join(f"{p}:{hashlib.sha256(files[p]).hexdigest()}\n"
                   for p in sorted(files, key=lambda p: p.encode())).encode()

def tar_bytes(entries, fmt=tarfile.PAX_FORMAT):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for name, kind, data, link in entries:
            ti = tarfile.TarInfo(name)
            ti.type = kind
            ti.linkname = link or ""
            ti.size = len(data or b"")
            t.addfile(ti, io.BytesIO(data) if data else None)
    return buf.getvalue()

files = {"a.txt": b"alpha\n", "d/b.json": b'{"b": 1}\n',
         "x" * 120 + "/long": b"long", "\u00fc.txt": b"u"}
M = manifest(files)
good = [("r/MANIFEST", tarfile.REGTYPE, M, None)] + \
       [("r/" + p, tarfile.REGTYPE, files[p], None) for p in sorted(files, key=lambda p: p.encode())]
for fmt, fname in [(tarfile.PAX_FORMAT, "pax"), (tarfile.GNU_FORMAT, "gnu"), (tarfile.USTAR_FORMAT, "ustar")]:
    ents = good if fmt != tarfile.USTAR_FORMAT else [e for e in good if len(e[0]) < 100 and e[0].isascii()]
    tb = tar_bytes(ents, fmt)
    save(f"good-{fname}.tar", 1, tb)
    save(f"good-{fname}.tgz", 0, gzip.compress(tb, mtime=0))
dirs = [("r/", tarfile.DIRTYPE, None, None), ("r/d", tarfile.DIRTYPE, None, None)] + good
save("dirs.tar", 1, tar_bytes(dirs))
bad = good + [("r/sym", tarfile.SYMTYPE, None, "/etc/passwd"), ("r/hard", tarfile.LNKTYPE, None, "r/a.txt"),
              ("r/chr", tarfile.CHRTYPE, None, None), ("r/fifo", tarfile.FIFOTYPE, None, None),
              ("/abs", tarfile.REGTYPE, b"x", None), ("r/../up", tarfile.REGTYPE, b"x", None),
              ("other/x", tarfile.REGTYPE, b"x", None), ("r/a.txt", tarfile.REGTYPE, b"dup", None)]
save("bad.tar", 1, tar_bytes(bad))
tb = tar_bytes(good)
save("trailing.tgz", 0, gzip.compress(tb, mtime=0) + b"junk")
save("two-members.tgz", 0, gzip.compress(tb, mtime=0) + gzip.compress(b"x", mtime=0))
save("truncated.tgz", 0, gzip.compress(tb, mtime=0)[:-20])
save("nonzero-after-end.tar", 1, tb + b"\x01")

if len(sys.argv) > 1:
    with tempfile.TemporaryDirectory() as d:
        run = os.path.join(d, "run")
        for p, c in files.items():
            os.makedirs(os.path.dirname(os.path.join(run, p)), exist_ok=True)
            with open(os.path.join(run, p), "wb") as f:
                f.write(c)
        out = os.path.join(d, "b.tgz")
        subprocess.run([sys.argv[1], "seal", run, "-o", out, "-q"], check=True, capture_output=True)
        with open(out, "rb") as f:
            data = f.read()
        save("proofpack.tgz", 0, data)
        save("proofpack.tar", 1, gzip.decompress(data))
print(f"seeds written to {out_dir}")

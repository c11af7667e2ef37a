//! Helpers shared by the bundle reader tests: raw tar headers built byte by
//! byte (not through proofpack's writer, so that every field can be made
//! hostile), a small tar builder, MANIFEST text, gzip, and running
//! `proofpack verify --structure-only --json` on bytes.
#![allow(dead_code)]

#[path = "../common/mod.rs"]
pub mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::Command as Cmd;
use flate2::write::GzEncoder;
use flate2::Compression;
use proofpack::digest::Sha256Digest;
use serde_json::Value;

/// The root directory of the test bundles.
pub const ROOT: &str = "run";

/// Recomputes the (unsigned) header checksum, written as GNU tar and Python
/// write it: six octal digits, NUL, space.
pub fn fix_checksum(h: &mut [u8; 512]) {
    h[148..156].fill(b' ');
    let sum: u32 = h.iter().map(|b| *b as u32).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// A raw POSIX ustar header with a correct checksum.
pub fn header(name: &[u8], size: u64, typeflag: u8) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0000000\0");
    h[116..124].copy_from_slice(b"0000000\0");
    h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    fix_checksum(&mut h);
    h
}

/// A raw GNU-format header (magic `ustar  \0`, devmajor/devminor NUL as GNU
/// tar writes them) with a correct checksum.
pub fn gnu_header(name: &[u8], size: u64, typeflag: u8) -> [u8; 512] {
    let mut h = header(name, size, typeflag);
    h[257..265].copy_from_slice(b"ustar  \0");
    fix_checksum(&mut h);
    h
}

/// One PAX record `"<len> <key>=<value>\n"`.
pub fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let inner = key.len() + value.len() + 3;
    let mut len = inner + 1;
    while len != inner + len.to_string().len() {
        len = inner + len.to_string().len();
    }
    let mut r = format!("{len} {key}=").into_bytes();
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

/// A tar stream under construction.
#[derive(Default, Clone)]
pub struct Tar(pub Vec<u8>);

impl Tar {
    /// A ustar header for `name` with `data`, padded.
    pub fn raw(&mut self, name: &str, typeflag: u8, data: &[u8]) -> &mut Self {
        self.0
            .extend_from_slice(&header(name.as_bytes(), data.len() as u64, typeflag));
        self.data(data)
    }
    /// A header block as given, then `data`, padded.
    pub fn block(&mut self, h: &[u8; 512], data: &[u8]) -> &mut Self {
        self.0.extend_from_slice(h);
        self.data(data)
    }
    /// Data padded to a block.
    pub fn data(&mut self, data: &[u8]) -> &mut Self {
        self.0.extend_from_slice(data);
        let pad = (512 - data.len() % 512) % 512;
        self.0.resize(self.0.len() + pad, 0);
        self
    }
    /// A regular file `<ROOT>/<rel>`.
    pub fn file(&mut self, rel: &str, data: &[u8]) -> &mut Self {
        self.raw(&format!("{ROOT}/{rel}"), b'0', data)
    }
    /// A PAX extended header with these records.
    pub fn pax(&mut self, records: &[(&str, &[u8])]) -> &mut Self {
        let body: Vec<u8> = records.iter().flat_map(|(k, v)| pax_record(k, v)).collect();
        self.raw("././@PaxHeader", b'x', &body)
    }
    /// A GNU long-name header (`L`) for `name`, NUL-terminated as GNU tar
    /// writes it.
    pub fn long_name(&mut self, name: &str) -> &mut Self {
        let mut data = name.as_bytes().to_vec();
        data.push(0);
        let h = gnu_header(b"././@LongLink", data.len() as u64, b'L');
        self.block(&h, &data)
    }
    /// `<ROOT>/MANIFEST` listing `files`.
    pub fn manifest(&mut self, files: &[(&str, &[u8])]) -> &mut Self {
        let text = manifest_text(files);
        self.file("MANIFEST", text.as_bytes())
    }
    /// The stream with its two end-of-archive blocks.
    pub fn end(&mut self) -> Vec<u8> {
        self.0.extend_from_slice(&[0u8; 1024]);
        std::mem::take(&mut self.0)
    }
}

/// Canonical MANIFEST text for `files`.
pub fn manifest_text(files: &[(&str, &[u8])]) -> String {
    let mut v: Vec<_> = files
        .iter()
        .map(|(p, c)| format!("{p}:{}\n", Sha256Digest::of_bytes(c)))
        .collect();
    v.sort();
    v.concat()
}

/// One gzip member holding `tar`.
pub fn gz(tar: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::new(6));
    e.write_all(tar).unwrap();
    e.finish().unwrap()
}

pub const A: (&str, &[u8]) = ("a.txt", b"alpha\n");
pub const B: (&str, &[u8]) = ("dir/b.json", b"{\"b\": 1}\n");

/// MANIFEST + a.txt + dir/b.json, without the end blocks.
pub fn good_start() -> Tar {
    let mut t = Tar::default();
    t.manifest(&[A, B]).file(A.0, A.1).file(B.0, B.1);
    t
}

/// The proofpack binary, without the catalog.
pub fn pp() -> Cmd {
    let mut c = common::proofpack();
    c.env_remove("SOURCE_DATE_EPOCH");
    c.arg("--no-catalog");
    c
}

/// The outcome of `proofpack verify FILE --structure-only --json`.
pub struct Verdict {
    /// Exit status.
    pub code: i32,
    /// The JSON report.
    pub report: Value,
    /// stderr.
    pub stderr: String,
}

impl Verdict {
    /// The check `id` (panics with the report when absent).
    pub fn check(&self, id: &str) -> &Value {
        self.report["checks"]
            .as_array()
            .and_then(|a| a.iter().find(|c| c["id"] == id))
            .unwrap_or_else(|| panic!("no check {id}: {:#}", self.report))
    }

    /// Asserts exit 1 and that `id` failed with a detail containing `needle`.
    pub fn assert_failed(&self, id: &str, needle: &str) {
        assert_eq!(
            self.code, 1,
            "exit status: {:#}\n{}",
            self.report, self.stderr
        );
        let c = self.check(id);
        assert_eq!(c["ok"], false, "{id} should fail: {:#}", self.report);
        let detail = c["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(needle), "{id}: {detail:?} lacks {needle:?}");
    }

    /// Asserts exit 0.
    pub fn assert_verified(&self) {
        assert_eq!(self.code, 0, "{:#}\n{}", self.report, self.stderr);
    }
}

/// Runs `proofpack verify PATH --structure-only --json`.
pub fn verify_file(path: &Path) -> Verdict {
    let o = pp()
        .args(["verify", "--structure-only", "--json"])
        .arg(path)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    Verdict {
        code: o.status.code().unwrap_or(-1),
        report,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Writes `bundle` into a temporary directory and runs the binary on it.
pub fn verify_bytes(bundle: &[u8]) -> Verdict {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("b.tgz");
    std::fs::write(&p, bundle).unwrap();
    verify_file(&p)
}

/// Writes a run directory `<dir>/<ROOT>` with MANIFEST (by `proofpack
/// manifest`): a long path that ustar can split into prefix and name, a
/// non-ASCII name, an empty file, subdirectories and, with
/// `long_component`, a 120-byte path component (which only the GNU and PAX
/// formats can hold). Returns the archive order for `tar --no-recursion`:
/// each directory before its contents, MANIFEST the first file.
pub fn run_tree(dir: &Path, long_component: bool) -> Vec<String> {
    let run = dir.join(ROOT);
    let mut files: Vec<(String, &[u8])> = vec![
        ("a.txt".into(), b"alpha\n"),
        ("sub/b.jsonl".into(), b"{\"b\": 1}\n{\"b\": 2}\n"),
        ("empty".into(), b""),
        ("ünï/ファイル.json".into(), "{\"k\": \"v\"}".as_bytes()),
        (
            format!("{}/{}/f.json", "d".repeat(60), "e".repeat(60)),
            b"{}",
        ),
    ];
    if long_component {
        files.push((format!("long/{}.jsonl", "c".repeat(120)), b"{}\n"));
    }
    for (rel, c) in &files {
        let p = run.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, c).unwrap();
    }
    let m = pp().arg("manifest").arg(&run).output().unwrap();
    assert!(m.status.success());
    fs::write(run.join("MANIFEST"), &m.stdout).unwrap();
    let mut order = vec![ROOT.to_string(), format!("{ROOT}/MANIFEST")];
    for (rel, _) in &files {
        let parts: Vec<&str> = rel.split('/').collect();
        for i in 1..parts.len() {
            let d = format!("{ROOT}/{}", parts[..i].join("/"));
            if !order.contains(&d) {
                order.push(d);
            }
        }
        order.push(format!("{ROOT}/{rel}"));
    }
    order
}

/// GNU tar's formats.
pub const GNU_TAR_FORMATS: [&str; 5] = ["gnu", "oldgnu", "posix", "pax", "ustar"];

/// `tar --format=FORMAT --no-recursion -czf <dir>/FORMAT.tgz ORDER...` (in `dir`).
pub fn gnu_tar_bundle(dir: &Path, format: &str, order: &[String]) -> PathBuf {
    let out = dir.join(format!("gnu-{format}.tgz"));
    let st = Command::new("tar")
        .arg(format!("--format={format}"))
        .args(["--no-recursion", "-czf"])
        .arg(&out)
        .arg("-C")
        .arg(dir)
        .args(order)
        .status()
        .unwrap();
    assert!(st.success(), "GNU tar --format={format}");
    out
}

/// Python's tarfile formats.
pub const PYTHON_FORMATS: [&str; 3] = ["pax", "gnu", "ustar"];

const PY_WRITE: &str = r#"
import os, sys, tarfile
src, out, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
fmt = {"pax": tarfile.PAX_FORMAT, "gnu": tarfile.GNU_FORMAT, "ustar": tarfile.USTAR_FORMAT}[fmt]
with tarfile.open(out, "w:gz", format=fmt) as t:
    for p in sys.argv[4:]:
        t.add(os.path.join(src, p), arcname=p, recursive=False)
"#;

/// The same with Python's tarfile (`python` is the interpreter to use).
pub fn python_bundle(python: &Path, dir: &Path, format: &str, order: &[String]) -> PathBuf {
    let out = dir.join(format!("python-{format}.tgz"));
    let o = Command::new(python)
        .arg("-c")
        .arg(PY_WRITE)
        .arg(dir)
        .arg(&out)
        .arg(format)
        .args(order)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// A run of the binary under bounds, and what it used.
pub struct Measured {
    /// Exit status (`None`: killed by a signal).
    pub code: Option<i32>,
    /// stdout parsed as JSON (`Null` when it is not JSON).
    pub report: Value,
    /// stderr.
    pub stderr: String,
    /// Peak resident set size of the proofpack process, KiB (GNU time).
    pub peak_rss_kib: u64,
    /// Wall-clock seconds.
    pub secs: f64,
}

impl Measured {
    /// The check `id` of the JSON report.
    pub fn check(&self, id: &str) -> &Value {
        self.report["checks"]
            .as_array()
            .and_then(|a| a.iter().find(|c| c["id"] == id))
            .unwrap_or_else(|| panic!("no check {id}: {:#}\n{}", self.report, self.stderr))
    }

    /// Asserts exit 1 and that `id` failed with `needle` in its detail.
    pub fn assert_failed(&self, id: &str, needle: &str) {
        assert_eq!(self.code, Some(1), "{:#}\n{}", self.report, self.stderr);
        let c = self.check(id);
        assert_eq!(c["ok"], false, "{id}: {c:#}");
        let detail = c["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(needle), "{id}: {detail:?} lacks {needle:?}");
    }

    /// Asserts the bounds: peak RSS below `rss_mib`, done within `secs`.
    pub fn assert_bounded(&self, rss_mib: u64, secs: f64) {
        println!(
            "peak RSS {} KiB (bound {rss_mib} MiB), {:.1} s (bound {secs} s)",
            self.peak_rss_kib, self.secs
        );
        assert!(
            self.peak_rss_kib < rss_mib << 10,
            "peak RSS {} KiB, above {rss_mib} MiB",
            self.peak_rss_kib
        );
        assert!(self.secs < secs, "{:.1} s, more than {secs} s", self.secs);
    }
}

/// Runs `proofpack --no-catalog ARGS` under an address-space limit of
/// `as_mib` MiB (`prlimit --as`: an allocation sized by a declared length
/// fails there and aborts) and a 120 s timeout, measuring its peak RSS with
/// GNU time.
pub fn pp_bounded(args: &[&std::ffi::OsStr], as_mib: u64) -> Measured {
    let d = tempfile::tempdir().unwrap();
    let timing = d.path().join("time");
    let started = std::time::Instant::now();
    let o = Command::new("timeout")
        .args(["--kill-after=5", "120", "prlimit"])
        .arg(format!("--as={}", as_mib << 20))
        .args(["/usr/bin/time", "-f", "%M"])
        .arg("-o")
        .arg(&timing)
        .arg(common::bin())
        .arg("--no-catalog")
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .unwrap();
    let secs = started.elapsed().as_secs_f64();
    let peak_rss_kib = fs::read_to_string(&timing)
        .unwrap_or_default()
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(u64::MAX);
    Measured {
        code: o.status.code(),
        report: serde_json::from_slice(&o.stdout).unwrap_or(Value::Null),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        peak_rss_kib,
        secs,
    }
}

/// `verify PATH --structure-only --json ARGS...` under [`pp_bounded`].
pub fn verify_bounded(path: &Path, extra: &[&str], as_mib: u64) -> Measured {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "verify".as_ref(),
        path.as_os_str(),
        "--structure-only".as_ref(),
        "--json".as_ref(),
    ];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    pp_bounded(&args, as_mib)
}

/// A gzip member of `prefix` followed by `zeros` zero bytes, built in time
/// independent of `zeros`: after a full flush the deflate of each 16 MiB
/// chunk of zeros is the same bytes, so it is computed once and repeated.
pub fn gzip_with_zeros(prefix: &[u8], zeros: u64) -> Vec<u8> {
    use flate2::{Compress, Crc, FlushCompress};
    const CHUNK: usize = 16 << 20;
    let deflate = |c: &mut Compress, data: &[u8], flush: FlushCompress| -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len() / 64 + 4096);
        let start = c.total_in();
        loop {
            let done = (c.total_in() - start) as usize;
            c.compress_vec(&data[done..], &mut out, flush).unwrap();
            // Done when all input is in and the output was not full.
            if (c.total_in() - start) as usize == data.len() && out.len() < out.capacity() {
                return out;
            }
            out.reserve(out.capacity());
        }
    };
    let mut c = Compress::new(Compression::new(9), false);
    let mut crc = Crc::new();
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    crc.update(prefix);
    out.extend(deflate(&mut c, prefix, FlushCompress::Full));
    let zero_chunk = vec![0u8; CHUNK];
    let first = deflate(&mut c, &zero_chunk, FlushCompress::Full);
    let second = deflate(&mut c, &zero_chunk, FlushCompress::Full);
    assert_eq!(
        first, second,
        "a full flush makes the chunks' deflate repeat"
    );
    let (n, rest) = (zeros / CHUNK as u64, (zeros % CHUNK as u64) as usize);
    for i in 0..n {
        out.extend_from_slice(if i == 0 { &first } else { &second });
        crc.update(&zero_chunk);
    }
    crc.update(&zero_chunk[..rest]);
    out.extend(deflate(&mut c, &zero_chunk[..rest], FlushCompress::Finish));
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&((prefix.len() as u64 + zeros) as u32).to_le_bytes());
    out
}

//! Robustness of the bundle reader against hostile inputs (spec section 5,
//! v1.1), through the binary: each input that used to cost unbounded memory,
//! time or report size now ends cleanly (exit 1 for a bad bundle, 2 for a
//! path that is not a bundle, never a crash), within an address-space limit
//! (`prlimit --as`, so that an allocation sized by a declared length fails
//! visibly), a peak RSS bound (GNU time) and a time bound, and leaves nothing
//! on disk. `seal` refuses to write what the reader would refuse.

mod bundle_support;
use bundle_support::{
    gnu_header, gz, gzip_with_zeros, header, manifest_text, pp_bounded, verify_bounded, Tar, ROOT,
};

use std::fs;
use std::io::Write;
use std::path::Path;

use proofpack::digest::{Hasher, Sha256Digest};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// SHA-256 of `n` zero bytes.
fn zeros_sha256(n: u64) -> Sha256Digest {
    let chunk = vec![0u8; 1 << 20];
    let mut h = Hasher::new();
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        h.update(&chunk[..k]);
        left -= k as u64;
    }
    h.finish().0
}

/// Issue 10 (a): MANIFEST's declared size used to be reserved up front.
#[test]
fn a_76_byte_bundle_declaring_a_1_gib_manifest_allocates_nothing_up_front() {
    let d = tempfile::tempdir().unwrap();
    let mut t = Tar::default();
    t.0.extend_from_slice(&header(
        format!("{ROOT}/MANIFEST").as_bytes(),
        1 << 30,
        b'0',
    ));
    let b = gz(&t.0);
    assert!(b.len() < 100, "{} bytes", b.len());
    let p = d.path().join("tiny.tgz");
    fs::write(&p, &b).unwrap();
    // 256 MiB of address space: a 1 GiB reservation would abort (134).
    let m = verify_bounded(&p, &[], 256);
    m.assert_failed("bundle.tar", "the archive ends inside MANIFEST");
    m.assert_bounded(64, 20.0);
    // The same for a PAX header declaring a record at the limit.
    let mut t = Tar::default();
    t.0.extend_from_slice(&header(b"././@PaxHeader", 1 << 20, b'x'));
    fs::write(&p, gz(&t.0)).unwrap();
    let m = verify_bounded(&p, &[], 256);
    m.assert_failed("bundle.tar", "ends inside a PAX or long-name record");
    m.assert_bounded(64, 20.0);
    assert_eq!(listing(d.path()), ["tiny.tgz"]);
}

/// Issue 10 (b): `verify /dev/zero` read forever.
#[test]
fn dev_zero_ends_at_once() {
    let m = verify_bounded(Path::new("/dev/zero"), &[], 256);
    assert_eq!(m.code, Some(2), "{}", m.stderr);
    assert!(m.stderr.contains("character device"), "{}", m.stderr);
    m.assert_bounded(64, 10.0);
}

/// Writes `head` then zeros into the FIFO `p` until the reader goes away.
fn endless_writer(p: &Path, head: Vec<u8>) -> std::thread::JoinHandle<u64> {
    let p = p.to_path_buf();
    std::thread::spawn(move || {
        let Ok(mut f) = fs::OpenOptions::new().write(true).open(&p) else {
            return 0;
        };
        let mut n = 0u64;
        if f.write_all(&head).is_err() {
            return n;
        }
        let zeros = vec![0u8; 1 << 16];
        // Stops at EPIPE (SIGPIPE is ignored in Rust programs) or at 64 GiB.
        while n < 64 << 30 && f.write_all(&zeros).is_ok() {
            n += zeros.len() as u64;
        }
        n
    })
}

/// Issue 10 (b): after a gzip error, and after the member's end, the rest of
/// the input used to be read without bound (here an endless pipe).
#[test]
fn endless_input_through_a_pipe_is_read_a_bounded_amount() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut good = Tar::default();
    good.manifest(&[("a.txt", b"alpha\n")])
        .file("a.txt", b"alpha\n");
    let good = gz(&good.end());
    for (head, check, needle, sha) in [
        // Not gzip at all: a gzip error, then zeros for ever.
        (
            Vec::new(),
            "bundle.gzip",
            "corrupt",
            "reading stopped 1048576 bytes after the gzip error",
        ),
        // A good bundle, then zeros for ever.
        (
            good.clone(),
            "bundle.gzip",
            "at least",
            "reading stopped 1048576 bytes after the end of the gzip member",
        ),
    ] {
        let writer = endless_writer(&fifo, head);
        let m = verify_bounded(&fifo, &[], 256);
        // Unblock and end the writer whatever happened: a non-blocking
        // open for reading (O_NONBLOCK) never waits for a writer.
        {
            use std::os::unix::fs::OpenOptionsExt;
            drop(
                fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(0o4000)
                    .open(&fifo),
            );
        }
        let written = writer.join().unwrap();
        m.assert_failed(check, needle);
        m.assert_failed("bundle.sha256", "not checkable");
        let detail = m.check("bundle.sha256")["detail"].as_str().unwrap();
        assert!(detail.contains(sha), "{detail}");
        m.assert_bounded(64, 20.0);
        assert!(
            written < 1 << 30,
            "the reader stopped reading: {written} bytes"
        );
    }
}

/// Issue 10 (b): a valid bundle followed by gigabytes of garbage was read to
/// the end before it was rejected.
#[test]
fn a_bundle_followed_by_gigabytes_of_garbage_is_rejected_at_once() {
    let d = tempfile::tempdir().unwrap();
    let mut t = Tar::default();
    t.manifest(&[("a.txt", b"alpha\n")])
        .file("a.txt", b"alpha\n");
    let b = gz(&t.end());
    let p = d.path().join("b.tgz");
    fs::write(&p, &b).unwrap();
    // 8 GiB of zeros after the member, sparse: no disk space used.
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(b.len() as u64 + (8 << 30)).unwrap();
    drop(f);
    let m = verify_bounded(&p, &[], 256);
    m.assert_failed(
        "bundle.gzip",
        "bytes of trailing data after the gzip member",
    );
    let detail = m.check("bundle.gzip")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    let at_least: u64 = detail
        .strip_prefix("at least ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{detail}"));
    assert!((1 << 20..2 << 20).contains(&at_least), "{detail}");
    m.assert_failed("bundle.sha256", "not checkable");
    assert_eq!(m.check("bundle.entry:a.txt")["ok"], true);
    m.assert_bounded(64, 20.0);
    // Garbage within the bound is still measured exactly, digest included.
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(b.len() as u64 + 1000).unwrap();
    drop(f);
    let m = verify_bounded(&p, &[], 256);
    m.assert_failed("bundle.gzip", "1000 bytes of trailing data");
    assert_eq!(m.check("bundle.sha256")["ok"], true);
}

/// Issue 10 (c): rejected over-long paths were kept and echoed in full (a
/// 1.4 MB bundle gave 1.5 GB RSS and a 315 MB report). Here 1,200 paths of
/// 64 KiB: 77 MB of ids before v1.1.
#[test]
fn over_long_paths_are_echoed_shortened_and_counted() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("long.tgz");
    let n = 1200;
    let mut e =
        flate2::write::GzEncoder::new(fs::File::create(&p).unwrap(), flate2::Compression::best());
    let mut t = Tar::default();
    t.manifest(&[("a.txt", b"alpha\n")])
        .file("a.txt", b"alpha\n");
    e.write_all(&t.0).unwrap();
    for i in 0..n {
        let path = format!("{ROOT}/{i:04}/{}", "a".repeat(64 << 10));
        let mut t = Tar::default();
        t.pax(&[("path", path.as_bytes())])
            .raw("stand-in", b'0', b"x");
        e.write_all(&t.0).unwrap();
    }
    e.write_all(&[0u8; 1024]).unwrap();
    e.finish().unwrap();
    let size = fs::metadata(&p).unwrap().len();
    assert!(size < 2 << 20, "{size} bytes");
    let m = verify_bounded(&p, &[], 512);
    m.assert_failed(
        "bundle.limit:path_bytes",
        "1200 paths exceed the 4096-byte limit",
    );
    m.assert_failed(
        "bundle.entries",
        "200 more entries were rejected than the 1000 reported one by one",
    );
    let checks = m.report["checks"].as_array().unwrap();
    assert!(checks.iter().all(|c| c["id"].as_str().unwrap().len() < 300));
    let first = checks
        .iter()
        .find(|c| {
            c["id"]
                .as_str()
                .unwrap()
                .starts_with("bundle.entry:run/0000/")
        })
        .unwrap();
    let full_len = format!("{ROOT}/0000/").len() + (64 << 10);
    assert!(
        first["id"]
            .as_str()
            .unwrap()
            .ends_with(&format!("… ({full_len} bytes)")),
        "{first:#}"
    );
    let report_bytes = serde_json::to_vec(&m.report).unwrap().len();
    assert!(report_bytes < 2 << 20, "report of {report_bytes} bytes");
    m.assert_bounded(64, 60.0);
    // unpack: the same verdict, nothing left behind.
    let x = d.path().join("x");
    fs::create_dir(&x).unwrap();
    let m = pp_bounded(
        &[
            "unpack".as_ref(),
            p.as_os_str(),
            "-C".as_ref(),
            x.as_os_str(),
        ],
        512,
    );
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    assert!(listing(&x).is_empty(), "{:?}", listing(&x));
    m.assert_bounded(64, 60.0);
}

/// Issue 10 (c): the path registry kept every prefix of every path as its
/// own string: a thousand 4 KiB paths of 2,000 components took gigabytes.
#[test]
fn deep_paths_keep_the_path_registry_bounded() {
    let d = tempfile::tempdir().unwrap();
    let deep = |i: usize| format!("x{i:03}/{}f", "a/".repeat(2040));
    let build = |n: usize| {
        let mut t = Tar::default();
        let names: Vec<String> = (0..n).map(deep).collect();
        let files: Vec<(&str, &[u8])> = names.iter().map(|p| (p.as_str(), &b"d"[..])).collect();
        t.manifest(&files);
        for name in &names {
            t.pax(&[("path", format!("{ROOT}/{name}").as_bytes())])
                .raw("stand-in", b'0', b"d");
        }
        gz(&t.end())
    };
    // 400 entries, 816,400 directories: verified, within bounds.
    let p = d.path().join("deep.tgz");
    fs::write(&p, build(400)).unwrap();
    let m = verify_bounded(&p, &[], 1024);
    assert_eq!(m.code, Some(0), "{:#}\n{}", m.report, m.stderr);
    m.assert_bounded(256, 60.0);
    // 600 entries imply more than the 1,000,000 directories the entries
    // limit allows: reading stops there.
    fs::write(&p, build(600)).unwrap();
    let m = verify_bounded(&p, &[], 1024);
    m.assert_failed("bundle.limit:entries", "more than 1000000 directories");
    m.assert_bounded(256, 60.0);
}

/// MANIFEST, a random file of `random` bytes, then `zeros.bin` of `zeros`
/// zero bytes (and the end of the archive), as one gzip member.
fn zeros_bundle(random: usize, zeros: u64) -> Vec<u8> {
    let noise: Vec<u8> = (0..random as u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
        .collect();
    let zeros_hash = zeros_sha256(zeros);
    let mut text = if random > 0 {
        manifest_text(&[("noise.bin", &noise)])
    } else {
        String::new()
    };
    text.push_str(&format!("zeros.bin:{zeros_hash}\n"));
    let mut t = Tar::default();
    t.file("MANIFEST", text.as_bytes());
    if random > 0 {
        t.file("noise.bin", &noise);
    }
    t.0.extend_from_slice(&gnu_header(
        format!("{ROOT}/zeros.bin").as_bytes(),
        zeros,
        b'0',
    ));
    // The data, its padding and the two end blocks are all zeros.
    let pad = (512 - zeros % 512) % 512;
    gzip_with_zeros(&t.0, zeros + pad + 1024)
}

/// Issue 10 (d), the honest half: a gigabyte of zeros (above 1000:1) was
/// refused by the v1 ratio rule; it fits in the v1.1 burst.
#[test]
fn a_gigabyte_of_zeros_verifies() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("zeros.tgz");
    fs::write(&p, zeros_bundle(0, 1 << 30)).unwrap();
    assert!(fs::metadata(&p).unwrap().len() < 2 << 20);
    // The CLI's defaults: DEFAULT_MAX_RATIO.
    let m = verify_bounded(&p, &[], 256);
    assert_eq!(m.code, Some(0), "{:#}\n{}", m.report, m.stderr);
    m.assert_bounded(64, 60.0);
}

/// Issue 10 (d), the bomb half: 1 MiB of random data then 4 GiB of zeros
/// passed the v1 cumulative ratio (about 800:1 overall); the v1.1 rule stops
/// it a little past the burst, long before its end.
#[test]
fn a_bomb_of_zeros_after_random_data_is_stopped() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bomb.tgz");
    fs::write(&p, zeros_bundle(1 << 20, 4 << 30)).unwrap();
    // With the CLI's defaults.
    let m = verify_bounded(&p, &[], 256);
    m.assert_failed("bundle.limit:ratio", "a decompression bomb");
    let detail = m.check("bundle.limit:ratio")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    let out: u64 = detail
        .split("decompress to ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{detail}"));
    assert!(out < 3 << 30, "stopped after {out} bytes");
    m.assert_failed("bundle.sha256", "not checkable");
    m.assert_bounded(64, 60.0);
}

/// Issue 10 (e): `seal` wrote bundles that its own default reader limits
/// reject; it now checks its output while writing and publishes nothing.
#[test]
fn seal_refuses_what_the_reader_would_refuse_and_seals_honest_zeros() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join(ROOT);
    fs::create_dir(&run).unwrap();
    fs::write(run.join("qualification.json"), br#"{"name": "run"}"#).unwrap();
    let zeros = fs::File::create(run.join("zeros.bin")).unwrap();
    // A gigabyte of zeros: sealed, and verified.
    zeros.set_len(1 << 30).unwrap();
    let out_dir = d.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("b.tgz");
    let seal = || {
        let args = [
            "seal".as_ref(),
            run.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        pp_bounded(&args, 1024)
    };
    let m = seal();
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    let v = verify_bounded(&out, &["--max-ratio", "100"], 256);
    assert_eq!(v.code, Some(0), "{:#}", v.report);
    // Three gigabytes: beyond the ratio burst; nothing written.
    fs::remove_file(&out).unwrap();
    fs::remove_file(out_dir.join("b.tgz.sha256")).unwrap();
    zeros.set_len(3 << 30).unwrap();
    let m = seal();
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    assert!(m.stderr.contains("ratio limit"), "{}", m.stderr);
    assert!(m.stderr.contains("nothing was written"), "{}", m.stderr);
    assert!(listing(&out_dir).is_empty(), "{:?}", listing(&out_dir));
    m.assert_bounded(128, 120.0);
}

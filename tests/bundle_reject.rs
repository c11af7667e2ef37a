//! One test per rejection rule of spec section 5. Each hostile bundle is
//! built byte by byte here (raw 512-byte headers, not through proofpack's
//! writer), fed to the streaming reader, and the named check must fail while
//! a well-formed control bundle built the same way passes.

mod bundle_support;
use bundle_support::{fix_checksum, good_start, gz, header, manifest_text, Tar, A, B, ROOT};

use proofpack::bundle::{verify_bundle_reader, BundleVerification, Limits};
use proofpack::digest::Sha256Digest;
use proofpack::progress::NoProgress;

fn verify_with(bytes: &[u8], limits: &Limits) -> BundleVerification {
    verify_bundle_reader(bytes, "test", limits, None, &NoProgress)
        .expect("in-memory reading cannot fail")
}

fn verify(bytes: &[u8]) -> BundleVerification {
    verify_with(bytes, &Limits::default())
}

/// Asserts that check `id` failed with a detail containing `needle`, and that
/// the report as a whole fails.
fn assert_failed(v: &BundleVerification, id: &str, needle: &str) {
    assert!(!v.report.ok(), "report should fail: {}", v.report.to_json());
    let c = v
        .report
        .get(id)
        .unwrap_or_else(|| panic!("no check {id}: {}", v.report.to_json()));
    assert_eq!(
        c.ok(),
        Some(false),
        "{id} should fail: {}",
        v.report.to_json()
    );
    assert!(
        c.detail.contains(needle),
        "{id}: {:?} lacks {needle:?}",
        c.detail
    );
}

#[test]
fn control_bundle_passes() {
    let v = verify(&gz(&good_start().end()));
    assert!(v.report.ok(), "{}", v.report.to_json());
    assert_eq!(v.root.as_deref(), Some(ROOT));
    assert_eq!(v.manifest.unwrap().len(), 2);
    assert_eq!(v.report.get("bundle.entry:a.txt").unwrap().ok(), Some(true));
    assert!(v.bundle_sha256.is_some());
}

#[test]
fn absolute_path() {
    let mut t = good_start();
    t.raw("/etc/evil", b'0', b"x");
    assert_failed(
        &verify(&gz(&t.end())),
        "bundle.entry:/etc/evil",
        "absolute path",
    );
}

#[test]
fn dotdot_component() {
    let mut t = good_start();
    t.raw("run/../evil", b'0', b"x");
    assert_failed(&verify(&gz(&t.end())), "bundle.entry:run/../evil", "'..'");
}

#[test]
fn dot_component_and_leading_dot_slash() {
    let mut t = good_start();
    t.raw("./run/c", b'0', b"x");
    assert_failed(
        &verify(&gz(&t.end())),
        "bundle.entry:./run/c",
        "'.' component",
    );
}

#[test]
fn outside_the_root() {
    let mut t = good_start();
    t.raw("other/c", b'0', b"x");
    let v = verify(&gz(&t.end()));
    assert_failed(&v, "bundle.entry:other/c", "outside the root");
    assert_failed(&v, "bundle.root", "outside run/");
}

#[test]
fn file_at_top_level() {
    let mut t = good_start();
    t.raw("loose", b'0', b"x");
    assert_failed(
        &verify(&gz(&t.end())),
        "bundle.entry:loose",
        "outside the root",
    );
}

#[test]
fn symlink() {
    let mut t = good_start();
    let mut h = header(b"run/link", 0, b'2');
    h[157..168].copy_from_slice(b"/etc/passwd");
    fix_checksum(&mut h);
    t.0.extend_from_slice(&h);
    assert_failed(&verify(&gz(&t.end())), "bundle.entry:link", "symbolic link");
}

#[test]
fn hard_link() {
    let mut t = good_start();
    let mut h = header(b"run/hard", 0, b'1');
    h[157..166].copy_from_slice(b"run/a.txt");
    fix_checksum(&mut h);
    t.0.extend_from_slice(&h);
    assert_failed(&verify(&gz(&t.end())), "bundle.entry:hard", "hard link");
}

#[test]
fn character_and_block_devices() {
    let mut t = good_start();
    t.raw("run/chr", b'3', b"").raw("run/blk", b'4', b"");
    let v = verify(&gz(&t.end()));
    assert_failed(&v, "bundle.entry:chr", "character device");
    assert_failed(&v, "bundle.entry:blk", "block device");
}

#[test]
fn fifo() {
    let mut t = good_start();
    t.raw("run/pipe", b'6', b"");
    assert_failed(&verify(&gz(&t.end())), "bundle.entry:pipe", "FIFO");
}

#[test]
fn sparse_files() {
    let mut t = good_start();
    t.raw("run/sparse", b'S', b"");
    t.pax(&[("GNU.sparse.major", b"1"), ("GNU.sparse.minor", b"0")])
        .file("sparse2", b"");
    let v = verify(&gz(&t.end()));
    assert_failed(&v, "bundle.entry:sparse", "sparse");
    assert_failed(&v, "bundle.entry:sparse2", "sparse");
}

/// A PAX global header's records apply to every later entry in GNU tar
/// and Python and to none in the tar crate: a malformed archive (section
/// 5.1), reading stops there, and the file after it is not reached.
#[test]
fn pax_global_header() {
    let mut t = good_start();
    t.raw("run/global", b'g', b"11 path=ab\n");
    t.file("after.txt", b"after\n");
    let v = verify(&gz(&t.end()));
    assert_failed(&v, "bundle.tar", "PAX global header ('g') at offset");
    assert!(
        v.report.get("bundle.entry:global").is_none(),
        "read as an entry: {}",
        v.report.to_json()
    );
    let after = v.report.get("bundle.entry:after.txt");
    assert!(after.is_none_or(|c| !c.passed()), "{after:?}");
}

#[test]
fn duplicate_file() {
    let mut t = good_start();
    t.file(A.0, A.1);
    assert_failed(
        &verify(&gz(&t.end())),
        "bundle.entry:a.txt",
        "duplicate path",
    );
}

#[test]
fn duplicate_file_and_directory() {
    let mut t = good_start();
    t.raw("run/a.txt/", b'5', b"");
    assert_failed(
        &verify(&gz(&t.end())),
        "bundle.entry:a.txt",
        "duplicate path",
    );
}

#[test]
fn file_used_as_directory() {
    let mut t = good_start();
    t.file("a.txt/inner", b"x");
    assert_failed(
        &verify(&gz(&t.end())),
        "bundle.entry:a.txt/inner",
        "conflict",
    );
}

#[test]
fn unlisted_file() {
    let mut t = good_start();
    t.file("extra.txt", b"not listed");
    assert_failed(&verify(&gz(&t.end())), "bundle.entry:extra.txt", "unlisted");
}

#[test]
fn missing_file() {
    let mut t = Tar::default();
    t.manifest(&[A, B]).file(A.0, A.1);
    assert_failed(&verify(&gz(&t.end())), "bundle.entry:dir/b.json", "missing");
}

#[test]
fn changed_file() {
    let mut t = Tar::default();
    t.manifest(&[A, B]).file(A.0, b"alpha?\n").file(B.0, B.1);
    let v = verify(&gz(&t.end()));
    assert_failed(&v, "bundle.entry:a.txt", "changed");
    assert_eq!(
        v.report.get("bundle.entry:dir/b.json").unwrap().ok(),
        Some(true)
    );
}

#[test]
fn manifest_not_first() {
    let mut t = Tar::default();
    t.file(A.0, A.1).manifest(&[A, B]).file(B.0, B.1);
    let v = verify(&gz(&t.end()));
    assert_failed(&v, "bundle.manifest", "not the first");
    // Still checks everything against it.
    assert_eq!(v.report.get("bundle.entry:a.txt").unwrap().ok(), Some(true));
}

#[test]
fn manifest_absent() {
    let mut t = Tar::default();
    t.file(A.0, A.1);
    assert_failed(&verify(&gz(&t.end())), "bundle.manifest", "no MANIFEST");
}

#[test]
fn manifest_not_canonical() {
    for bad in [
        // unsorted
        format!(
            "{}:{}\n{}:{}\n",
            B.0,
            Sha256Digest::of_bytes(B.1),
            A.0,
            Sha256Digest::of_bytes(A.1)
        ),
        // upper-case hex
        manifest_text(&[A, B])
            .to_uppercase()
            .replace("A.TXT", "a.txt")
            .replace("DIR/B.JSON", "dir/b.json"),
        // no final newline
        manifest_text(&[A, B]).trim_end().to_string(),
        // sha256sum format instead
        format!(
            "{}  {}\n{}  {}\n",
            Sha256Digest::of_bytes(A.1),
            A.0,
            Sha256Digest::of_bytes(B.1),
            B.0
        ),
    ] {
        let mut t = Tar::default();
        t.file("MANIFEST", bad.as_bytes())
            .file(A.0, A.1)
            .file(B.0, B.1);
        assert_failed(&verify(&gz(&t.end())), "bundle.manifest", "not canonical");
    }
}

#[test]
fn nonzero_data_after_end_of_archive() {
    let mut tar = good_start().end();
    tar.extend_from_slice(&[0u8; 100]);
    tar.push(7);
    let v = verify(&gz(&tar));
    assert_failed(&v, "bundle.tar", "non-zero bytes after the end-of-archive");
    // Zeros alone after the end blocks are fine (GNU tar pads to 10 KiB).
    let mut padded = good_start().end();
    padded.extend_from_slice(&[0u8; 9216]);
    assert!(verify(&gz(&padded)).report.ok());
}

#[test]
fn bytes_after_the_gzip_member() {
    let mut b = gz(&good_start().end());
    b.extend_from_slice(b"junk");
    let v = verify(&b);
    assert_failed(&v, "bundle.gzip", "4 bytes of trailing data");
    assert!(
        v.bundle_sha256.is_some(),
        "the digest still covers the whole file"
    );
    assert_eq!(v.bundle_sha256.unwrap(), Sha256Digest::of_bytes(&b));
}

#[test]
fn a_second_gzip_member() {
    let mut b = gz(&good_start().end());
    b.extend_from_slice(&gz(b"more"));
    assert_failed(&verify(&b), "bundle.gzip", "second gzip member");
}

#[test]
fn truncated_stream() {
    let full = gz(&good_start().end());
    for cut in [full.len() - 1, full.len() - 9, full.len() / 2, 12, 3] {
        let v = verify(&full[..cut]);
        assert!(!v.report.ok(), "cut at {cut}");
        assert_eq!(
            v.report.get("bundle.gzip").unwrap().ok(),
            Some(false),
            "cut at {cut}: {}",
            v.report.to_json()
        );
        assert_eq!(v.bundle_sha256, Some(Sha256Digest::of_bytes(&full[..cut])));
    }
    // A tar stream cut short inside a complete gzip member.
    let tar = good_start().end();
    let v = verify(&gz(&tar[..tar.len() - 1024 - 100]));
    assert_failed(&v, "bundle.tar", "truncated");
    assert_eq!(v.report.get("bundle.gzip").unwrap().ok(), Some(true));
    // No end-of-archive blocks at all.
    let v = verify(&gz(&tar[..tar.len() - 1024]));
    assert_failed(&v, "bundle.tar", "end-of-archive");
}

#[test]
fn corrupt_header_checksum() {
    let mut tar = good_start().end();
    tar[512 * 2] ^= 1; // a byte of a.txt's header name
    assert_failed(&verify(&gz(&tar)), "bundle.tar", "checksum");
}

#[test]
fn corrupt_gzip_crc() {
    let mut b = gz(&good_start().end());
    let n = b.len();
    b[n - 6] ^= 0xff;
    assert_failed(&verify(&b), "bundle.gzip", "corrupt");
}

#[test]
fn limit_total_bytes() {
    let limits = Limits {
        max_total_bytes: 2048,
        ..Limits::default()
    };
    let v = verify_with(&gz(&good_start().end()), &limits);
    assert_failed(&v, "bundle.limit:total_bytes", "more than 2048 bytes");
    assert!(v.bundle_sha256.is_none());
}

#[test]
fn limit_entry_bytes() {
    let limits = Limits {
        max_entry_bytes: 8,
        ..Limits::default()
    };
    let mut t = Tar::default();
    t.manifest(&[("big", &[b'x'; 9])]).file("big", &[b'x'; 9]);
    let bytes = gz(&t.end());
    // MANIFEST itself is also an entry over 8 bytes.
    let v = verify_with(&bytes, &limits);
    assert_failed(&v, "bundle.limit:entry_bytes", "8-byte");
    let limits = Limits {
        max_entry_bytes: 200,
        ..Limits::default()
    };
    let v = verify_with(&bytes, &limits);
    assert!(v.report.ok(), "{}", v.report.to_json());
    let mut t = Tar::default();
    t.manifest(&[("big", &[b'x'; 201])])
        .file("big", &[b'x'; 201]);
    assert_failed(
        &verify_with(&gz(&t.end()), &limits),
        "bundle.limit:entry_bytes",
        "big",
    );
}

#[test]
fn limit_entries() {
    let limits = Limits {
        max_entries: 2,
        ..Limits::default()
    };
    assert_failed(
        &verify_with(&gz(&good_start().end()), &limits),
        "bundle.limit:entries",
        "more than 2 entries",
    );
    let ok = Limits {
        max_entries: 3,
        ..Limits::default()
    };
    assert!(verify_with(&gz(&good_start().end()), &ok).report.ok());
}

#[test]
fn limit_path_bytes() {
    let long = format!("{}/f", "d".repeat(300));
    let files: [(&str, &[u8]); 1] = [(&long, b"x")];
    let mut t = Tar::default();
    t.manifest(&files)
        .pax(&[("path", format!("{ROOT}/{long}").as_bytes())])
        .raw("stand-in", b'0', b"x");
    let bytes = gz(&t.end());
    assert!(
        verify(&bytes).report.ok(),
        "{}",
        verify(&bytes).report.to_json()
    );
    let limits = Limits {
        max_path_bytes: 200,
        ..Limits::default()
    };
    let v = verify_with(&bytes, &limits);
    assert_failed(&v, "bundle.limit:path_bytes", "200-byte limit");
    // Past the limit a path is echoed shortened (v1.1): its first 200 bytes.
    let full = format!("{ROOT}/{long}");
    let id = format!("bundle.entry:{}… ({} bytes)", &full[..200], full.len());
    assert_failed(&v, &id, "exceeds");
    assert!(v.report.checks().iter().all(|c| c.id.len() < 400));
}

#[test]
fn limit_pax_record_bytes() {
    let mut t = Tar::default();
    t.manifest(&[A])
        .pax(&[("SCHILY.xattr.user.comment", &[b'c'; 5000])])
        .file(A.0, A.1);
    let bytes = gz(&t.end());
    assert!(verify(&bytes).report.ok());
    let limits = Limits {
        max_pax_record_bytes: 4096,
        ..Limits::default()
    };
    assert_failed(
        &verify_with(&bytes, &limits),
        "bundle.limit:pax_record_bytes",
        "PAX record",
    );
    // GNU long names are capped the same way.
    let mut t = Tar::default();
    t.manifest(&[A])
        .raw("././@LongLink", b'L', &[b'n'; 5000])
        .file(A.0, A.1);
    assert_failed(
        &verify_with(&gz(&t.end()), &limits),
        "bundle.limit:pax_record_bytes",
        "long-name",
    );
}

#[test]
fn highly_compressible_content_within_the_ratio_burst_passes() {
    // v1.1: the ratio limit allows a burst (2 GiB) beyond the sustained
    // ratio, so megabytes of zeros pass even at 1:1 (v1 refused them past
    // the first MiB at 1000:1). The bomb tests are in bundle_robust.rs.
    let zeros = vec![0u8; 4 << 20];
    let files: [(&str, &[u8]); 1] = [("zeros", &zeros)];
    let mut t = Tar::default();
    t.manifest(&files).file("zeros", &zeros);
    let bytes = gz(&t.end());
    let strict = Limits {
        max_ratio: 1,
        ..Limits::default()
    };
    let v = verify_with(&bytes, &strict);
    assert!(v.report.ok(), "{}", v.report.to_json());
    let ratio = v.report.get("bundle.limit:ratio").unwrap();
    assert!(
        ratio.detail.contains("least headroom left"),
        "{}",
        ratio.detail
    );
    assert_eq!(Limits::default().max_ratio, 100);
}

#[test]
fn not_gzip_at_all() {
    let v = verify(&good_start().end());
    assert_failed(&v, "bundle.gzip", "corrupt");
    let v = verify(b"");
    assert!(!v.report.ok());
    assert_eq!(v.report.get("bundle.gzip").unwrap().ok(), Some(false));
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let mut t = Tar::default();
    t.manifest(&[A, B])
        .file(A.0, b"changed")
        .file("extra", b"e")
        .raw("run/l", b'2', b"");
    let v = verify(&gz(&t.end()));
    assert_failed(&v, "bundle.entry:a.txt", "changed");
    assert_failed(&v, "bundle.entry:extra", "unlisted");
    assert_failed(&v, "bundle.entry:l", "symbolic link");
    assert_failed(&v, "bundle.entry:dir/b.json", "missing");
    assert_eq!(v.report.summary().failed, 4, "{}", v.report.to_json());
}

/// A visitor borrowing caller state: reads all of a.txt, one byte of
/// dir/b.json, and fails on MANIFEST.
struct Collect<'a> {
    seen: &'a mut Vec<(String, Vec<u8>)>,
}

impl proofpack::bundle::EntryVisitor for Collect<'_> {
    fn wants(&mut self, rel: &str) -> bool {
        rel != "never"
    }
    fn visit(&mut self, rel: &str, content: &mut dyn std::io::Read) -> std::io::Result<()> {
        let mut buf = Vec::new();
        match rel {
            "a.txt" => {
                content.read_to_end(&mut buf)?;
            }
            "MANIFEST" => return Err(std::io::Error::other("visitor refuses")),
            _ => {
                let mut one = [0u8; 1];
                content.read_exact(&mut one)?;
                buf.push(one[0]);
            }
        }
        self.seen.push((rel.to_string(), buf));
        Ok(())
    }
}

#[test]
fn visitor_reads_entries_while_everything_is_still_hashed() {
    let mut seen = Vec::new();
    let bytes = gz(&good_start().end());
    let v = verify_bundle_reader(
        &bytes[..],
        "t",
        &Limits::default(),
        Some(&mut Collect { seen: &mut seen }),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(
        seen,
        vec![
            ("a.txt".to_string(), A.1.to_vec()),
            ("dir/b.json".to_string(), B.1[..1].to_vec())
        ]
    );
    // Partly read entries are drained and hashed: b still matches MANIFEST.
    assert_eq!(
        v.report.get("bundle.entry:dir/b.json").unwrap().ok(),
        Some(true)
    );
    // The visitor's own error fails the check it concerns.
    assert_failed(&v, "bundle.manifest", "visitor refuses");
    // A visitor on a changed file sees the (unverified) bytes; the check fails.
    let mut t = Tar::default();
    t.manifest(&[A, B]).file(A.0, b"evil\n").file(B.0, B.1);
    let mut seen = Vec::new();
    let v = verify_bundle_reader(
        &gz(&t.end())[..],
        "t",
        &Limits::default(),
        Some(&mut Collect { seen: &mut seen }),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(seen[0].1, b"evil\n");
    assert_failed(&v, "bundle.entry:a.txt", "changed");
}

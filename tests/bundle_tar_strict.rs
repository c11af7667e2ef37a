//! Spec section 5, v1.1: the bundle reader refuses every tar construct that
//! mainstream readers (GNU tar, Python's tarfile, Go's archive/tar, the Rust
//! tar crate) parse differently, so that a verified bundle lists and
//! extracts to the same files everywhere.
//!
//! Each test builds a hostile bundle byte by byte with a correct MANIFEST
//! (so that only the tar construct is wrong), runs
//! `proofpack verify BUNDLE --structure-only --json` and expects exit 1 with
//! a failed `bundle.tar` check naming the construct; the same bundle without
//! the construct verifies (exit 0), so the failure is the construct's.
//! The last tests show that what GNU tar and Python write for ordinary files
//! still verifies.

mod bundle_support;
use bundle_support::{
    fix_checksum, gnu_header, gnu_tar_bundle, good_start, gz, header, pp, python_bundle, run_tree,
    verify_bytes, verify_file, Tar, Verdict, A, B, GNU_TAR_FORMATS, PYTHON_FORMATS, ROOT,
};

use std::fs;
use std::process::Command;

use bundle_support::common;
use common::python;

/// Asserts that `build(false)` verifies and `build(true)` fails `bundle.tar`
/// with `needle` in its detail.
fn refused(needle: &str, build: impl Fn(bool) -> Vec<u8>) -> Verdict {
    verify_bytes(&gz(&build(false))).assert_verified();
    let v = verify_bytes(&gz(&build(true)));
    v.assert_failed("bundle.tar", needle);
    v
}

/// MANIFEST, then `a_header` (with a.txt's data), then dir/b.json.
fn with_a_header(a_header: [u8; 512]) -> Vec<u8> {
    let mut t = Tar::default();
    t.manifest(&[A, B]).block(&a_header, A.1).file(B.0, B.1);
    t.end()
}

fn a_header() -> [u8; 512] {
    header(a_path().as_bytes(), A.1.len() as u64, b'0')
}

/// [`refused`] for a change to a.txt's header (the checksum is fixed after).
fn refused_header(needle: &str, start: [u8; 512], change: impl Fn(&mut [u8; 512])) {
    refused(needle, |bad| {
        let mut h = start;
        if bad {
            change(&mut h);
            fix_checksum(&mut h);
        }
        with_a_header(h)
    });
}

// ---- The defects of the adversarial review ----

const HONEST: &[u8] = b"{\"request_id\": \"r1\", \"latency_ms\": 812}\n";
const EVIL: &[u8] = b"{\"request_id\": \"r1\", \"latency_ms\": 12}\n";

/// The hidden-entry bundle: `pad.bin` carries an empty PAX `size` record and
/// a ustar size covering a second `benchmark/client.jsonl` with other
/// content. A reader that ignores the empty record (proofpack before v1.1)
/// sees one verified client.jsonl; Python reads the size as 0 and finds the
/// hidden entry, which overwrites the verified file on extraction.
fn hidden_entry_bundle(empty_size: bool) -> Vec<u8> {
    let mut hidden = Tar::default();
    hidden.file("benchmark/client.jsonl", EVIL);
    let hidden = hidden.0;
    let files: [(&str, &[u8]); 2] = [("benchmark/client.jsonl", HONEST), ("pad.bin", &hidden)];
    let mut t = Tar::default();
    t.manifest(&files).file("benchmark/client.jsonl", HONEST);
    if empty_size {
        t.pax(&[("size", b"")]);
    }
    t.file("pad.bin", &hidden);
    t.end()
}

const PY_EXTRACT: &str = r#"
import json, os, sys, tarfile, tempfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    names = [m.name for m in t.getmembers()]
    d = tempfile.mkdtemp()
    t.extractall(d, filter="data")
with open(os.path.join(d, "run/benchmark/client.jsonl"), "rb") as f:
    client = f.read().decode()
print(json.dumps({"names": names, "client": client}))
"#;

#[test]
fn empty_pax_size_hiding_an_entry() {
    let v = refused("empty PAX value for 'size'", hidden_entry_bundle);
    assert!(
        v.check("bundle.tar")["detail"]
            .as_str()
            .unwrap()
            .contains("offset"),
        "the detail names where: {:#}",
        v.report
    );
    // The attack: Python extracts another client.jsonl than the one
    // MANIFEST lists (and the one a reader ignoring the record verifies).
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("hidden.tgz");
    fs::write(&p, gz(&hidden_entry_bundle(true))).unwrap();
    let o = Command::new(python())
        .arg("-c")
        .arg(PY_EXTRACT)
        .arg(&p)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = r["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "run/benchmark/client.jsonl")
            .count(),
        2,
        "Python lists the hidden second client.jsonl: {names:?}"
    );
    assert_eq!(r["client"].as_str().unwrap().as_bytes(), EVIL);
    assert_ne!(EVIL, HONEST);
}

/// `<ROOT>/a.txt`.
fn a_path() -> String {
    format!("{ROOT}/{}", A.0)
}

/// MANIFEST (listing a.txt and dir/b.json), whatever `a` adds (a.txt with
/// its extension headers), dir/b.json, the end blocks.
fn bundle(a: impl FnOnce(&mut Tar)) -> Vec<u8> {
    let mut t = Tar::default();
    t.manifest(&[A, B]);
    a(&mut t);
    t.file(B.0, B.1);
    t.end()
}

/// a.txt preceded by a PAX header with `records`.
fn with_pax(records: &[(&str, &[u8])]) -> Vec<u8> {
    bundle(|t| {
        t.pax(records).file(A.0, A.1);
    })
}

#[test]
fn gnu_long_name_and_pax_path_together() {
    let other = format!("{ROOT}/other.txt");
    // L then x: Python takes the L name, GNU tar and proofpack the PAX path.
    refused(
        "a GNU long name and a PAX header for one entry ('L' then 'x'",
        |bad| {
            bundle(|t| {
                if bad {
                    t.long_name(&other);
                }
                t.pax(&[("path", a_path().as_bytes())])
                    .raw("stand-in", b'0', A.1);
            })
        },
    );
    // x then L: Python takes the PAX path, the tar crate the L name.
    refused("('x' then 'L'", |bad| {
        bundle(|t| {
            if bad {
                t.pax(&[("path", other.as_bytes())]);
            }
            t.long_name(&a_path()).raw("stand-in", b'0', A.1);
        })
    });
}

#[test]
fn two_long_names_or_two_pax_headers() {
    let other = format!("{ROOT}/other.txt");
    refused("two 'L' headers for one entry", |bad| {
        bundle(|t| {
            if bad {
                t.long_name(&other);
            }
            t.long_name(&a_path()).raw("x", b'0', A.1);
        })
    });
    refused("two 'x' headers for one entry", |bad| {
        bundle(|t| {
            if bad {
                t.pax(&[("path", other.as_bytes())]);
            }
            t.pax(&[("path", a_path().as_bytes())]).raw("x", b'0', A.1);
        })
    });
}

#[test]
fn empty_pax_path() {
    // proofpack before v1.1 and Go fall back to the ustar name, Python uses ''.
    refused("empty PAX value for 'path'", |bad| {
        let a = a_path();
        with_pax(&[("path", if bad { &b""[..] } else { a.as_bytes() })])
    });
}

#[test]
fn empty_pax_linkpath_and_other_empty_values() {
    for key in ["linkpath", "uname", "mtime", "uid"] {
        verify_bytes(&gz(&with_pax(&[(key, b"")])))
            .assert_failed("bundle.tar", &format!("empty PAX value for '{key}'"));
    }
}

#[test]
fn gnu_header_with_bytes_in_the_prefix_area() {
    // Python prepends the bytes at 345.. to the name ("evil/run/a.txt"); Go
    // reads atime/ctime there.
    let gnu = gnu_header(a_path().as_bytes(), A.1.len() as u64, b'0');
    refused_header(
        "GNU-format header with non-zero bytes in 345..512",
        gnu,
        |h| h[345..349].copy_from_slice(b"evil"),
    );
    // Anywhere in the GNU area up to the end of the block.
    refused_header("345..512", gnu, |h| h[511] = 1);
}

#[test]
fn ustar_header_with_bytes_after_the_prefix() {
    // Go takes "tar\0" at 508 for a star header with a shorter prefix.
    refused_header(
        "ustar header with non-zero bytes in 500..512",
        a_header(),
        |h| h[508..512].copy_from_slice(b"tar\0"),
    );
}

#[test]
fn ustar_magic_with_another_version() {
    // The tar crate reads such a header as an old one: no prefix, and its
    // 'x'/'L' headers are not applied.
    refused_header("ustar magic with version", a_header(), |h| {
        h[263..265].copy_from_slice(b" \0")
    });
}

#[test]
fn pax_key_repeated() {
    // The tar crate takes the first path, Python and GNU tar the last.
    refused("PAX key 'path' repeated", |bad| {
        let (a, other) = (a_path(), format!("{ROOT}/other.txt"));
        bundle(|t| {
            let mut recs: Vec<(&str, &[u8])> = vec![("path", a.as_bytes())];
            if bad {
                recs.insert(0, ("path", other.as_bytes()));
            }
            t.pax(&recs).raw("x", b'0', A.1);
        })
    });
    refused("PAX key 'mtime' repeated", |bad| {
        let mut recs: Vec<(&str, &[u8])> = vec![("mtime", b"1700000000.5")];
        if bad {
            recs.push(("mtime", b"1700000001"));
        }
        with_pax(&recs)
    });
}

#[test]
fn pax_keys_outside_the_whitelist() {
    for (key, value, needle) in [
        (
            "comment",
            &b"hello"[..],
            "PAX key 'comment' is not accepted",
        ),
        ("linkpath", b"run/a.txt", "PAX key 'linkpath'"),
        ("hdrcharset", b"BINARY", "PAX key 'hdrcharset'"),
        (
            "SCHILY.devminor",
            b"0",
            "PAX key 'SCHILY.devminor' is not accepted",
        ),
        // Python finds "hdrcharset=" by a search, even inside another value.
        (
            "SCHILY.xattr.user.x",
            b"9 hdrcharset=BINARY",
            "contains 'hdrcharset='",
        ),
    ] {
        verify_bytes(&gz(&with_pax(&[(key, value)]))).assert_failed("bundle.tar", needle);
    }
    // The whitelisted keys, as GNU tar and Python write them, are accepted.
    verify_bytes(&gz(&with_pax(&[
        ("mtime", b"1796116143.039807972"),
        ("atime", b"1796116143.043807972"),
        ("ctime", b"-1.5"),
        ("uid", b"501"),
        ("gid", b"20"),
        ("uname", "ålice".as_bytes()),
        ("gname", b"staff"),
        (
            "SCHILY.xattr.security.selinux",
            b"system_u:object_r:user_t:s0\0",
        ),
        ("LIBARCHIVE.xattr.user.k", b"dmFsdWU="),
    ])))
    .assert_verified();
}

#[test]
fn pax_values_other_readers_parse_differently() {
    for (key, value, needle) in [
        ("mtime", &b"1e3"[..], "PAX mtime is not a decimal time"),
        ("atime", b".5", "PAX atime is not a decimal time"),
        ("ctime", b"inf", "PAX ctime is not a decimal time"),
        ("uid", b"+1", "PAX uid is not a decimal number"),
        ("gid", b"1_0", "PAX gid is not a decimal number"),
        (
            "uid",
            b"4294967296",
            "PAX uid is not a decimal number up to 4294967295",
        ),
        ("size", b" 6", "PAX size is not a decimal number"),
        ("uname", b"a\nb", "contains a newline"),
        ("gname", b"a\0b", "contains a NUL byte"),
    ] {
        verify_bytes(&gz(&with_pax(&[(key, value)]))).assert_failed("bundle.tar", needle);
    }
}

#[test]
fn malformed_pax_records() {
    for (data, needle) in [
        // Two spaces after the length: GNU tar reads key "path", Python " path".
        (&b"14  path=abcd\n"[..], "PAX key ' path' is not accepted"),
        // Trailing NULs after the records: Go refuses, the others stop there.
        (b"13 uid=12345\n\0\0\0", "PAX record"),
        (b"13 uid=12345X", "does not end with a newline"),
    ] {
        let b = bundle(|t| {
            t.raw("././@PaxHeader", b'x', data).file(A.0, A.1);
        });
        verify_bytes(&gz(&b)).assert_failed("bundle.tar", needle);
    }
}

/// The byte ranges of the numeric header fields.
const FIELDS: [(&str, usize, usize); 8] = [
    ("mode", 100, 108),
    ("uid", 108, 116),
    ("gid", 116, 124),
    ("size", 124, 136),
    ("mtime", 136, 148),
    ("chksum", 148, 156),
    ("devmajor", 329, 337),
    ("devminor", 337, 345),
];

/// a.txt's header with `field` rewritten by `form` (from its value and
/// width); the checksum is fixed afterwards (or written in that form).
fn a_header_with(field: &str, form: &dyn Fn(u64, usize) -> Vec<u8>) -> [u8; 512] {
    let (_, start, end) = FIELDS.iter().find(|f| f.0 == field).copied().unwrap();
    let mut h = a_header();
    let value = |h: &[u8; 512]| -> u64 {
        let f = &h[start..end];
        let s = std::str::from_utf8(f).unwrap().trim_matches(['\0', ' ']);
        if s.is_empty() {
            0
        } else {
            u64::from_str_radix(s, 8).unwrap()
        }
    };
    if field == "chksum" {
        h[148..156].fill(b' ');
        let sum: u64 = h.iter().map(|b| *b as u64).sum();
        h[148..156].copy_from_slice(&form(sum, 8));
    } else {
        let v = value(&h);
        h[start..end].copy_from_slice(&form(v, end - start));
        fix_checksum(&mut h);
    }
    h
}

fn needle_for(field: &str) -> String {
    if field == "chksum" {
        "header checksum field is not usable".into()
    } else {
        format!("numeric field {field} is not usable")
    }
}

/// For every numeric field: the form is refused; the control (the same
/// field rewritten the way GNU tar writes it) verifies.
fn every_field_refuses(form: &dyn Fn(u64, usize) -> Vec<u8>, why: &str) {
    let canonical = |v: u64, w: usize| format!("{v:0width$o}\0", width = w - 1).into_bytes();
    for (field, _, _) in FIELDS {
        let control = if field == "chksum" {
            a_header_with(field, &|v, _| format!("{v:06o}\0 ").into_bytes())
        } else {
            a_header_with(field, &canonical)
        };
        verify_bytes(&gz(&with_a_header(control))).assert_verified();
        let v = verify_bytes(&gz(&with_a_header(a_header_with(field, form))));
        v.assert_failed("bundle.tar", &needle_for(field));
        v.assert_failed("bundle.tar", why);
        v.assert_failed("bundle.tar", "(run/a.txt)");
    }
}

#[test]
fn numeric_field_with_leading_spaces() {
    // Go trims only spaces and NULs, Python and the tar crate any white
    // space; GNU tar skips one leading NUL first. Refuse them all.
    every_field_refuses(
        &|v, w| format!("{v:>width$o}\0", width = w - 1).into_bytes(),
        "leading spaces",
    );
}

#[test]
fn numeric_field_without_terminator() {
    every_field_refuses(
        &|v, w| format!("{v:0w$o}").into_bytes(),
        "no NUL or space terminator",
    );
}

#[test]
fn numeric_field_with_characters_after_the_number() {
    // GNU tar stops at the space, Go and Python refuse "6 7".
    every_field_refuses(
        &|v, w| {
            let mut f = format!("{v:0width$o}\0", width = w - 1).into_bytes();
            f[w - 3] = b' ';
            f[w - 2] = b'7';
            f
        },
        "characters after the number",
    );
}

#[test]
fn numeric_field_with_a_leading_nul() {
    // GNU tar skips one leading NUL and reads the digits; Python and the tar
    // crate stop at it and read 0 (or fail).
    every_field_refuses(
        &|v, w| {
            let mut f = vec![0u8];
            f.extend(format!("{v:0width$o}\0", width = w - 2).into_bytes());
            f
        },
        "a NUL before the number",
    );
}

#[test]
fn numeric_field_blank_or_empty() {
    // All spaces: GNU tar refuses ("Blanks in header"), Python reads 0.
    every_field_refuses(&|_, w| vec![b' '; w], "blank");
    // All NUL: the tar crate refuses an empty size; only devmajor and
    // devminor are written empty (by GNU tar and Python) and accepted.
    for (field, _, _) in FIELDS {
        let h = a_header_with(field, &|_, w| vec![0u8; w]);
        let v = verify_bytes(&gz(&with_a_header(h)));
        if field.starts_with("dev") {
            v.assert_verified();
        } else {
            v.assert_failed("bundle.tar", &needle_for(field));
        }
    }
}

#[test]
fn base256_size_in_a_ustar_header() {
    let base256 = |v: u64, w: usize| -> Vec<u8> {
        let mut f = vec![0u8; w];
        f[w - 8..].copy_from_slice(&v.to_be_bytes());
        f[0] |= 0x80;
        f
    };
    // Under ustar magic, base-256 is refused in every field...
    every_field_refuses(&base256, "base-256");
    // ...under GNU magic it is how GNU tar writes large values: accepted,
    // positive only.
    let gnu = |size_field: Vec<u8>| {
        let mut h = gnu_header(a_path().as_bytes(), 0, b'0');
        h[124..136].copy_from_slice(&size_field);
        fix_checksum(&mut h);
        verify_bytes(&gz(&with_a_header(h)))
    };
    gnu(base256(A.1.len() as u64, 12)).assert_verified();
    let mut negative = vec![0xffu8; 12];
    negative[11] = 0xfa;
    gnu(negative).assert_failed("bundle.tar", "negative or malformed base-256");
    // A GNU base-256 uid above 2^32 - 1: GNU tar refuses it.
    let mut h = gnu_header(a_path().as_bytes(), A.1.len() as u64, b'0');
    h[108..116].copy_from_slice(&base256(1 << 32, 8));
    fix_checksum(&mut h);
    verify_bytes(&gz(&with_a_header(h))).assert_failed("bundle.tar", "above 4294967295");
    let mut huge = base256(0, 12);
    huge[4] = 0x80; // 2^63: Go overflows
    gnu(huge).assert_failed("bundle.tar", "2^63");
}

#[test]
fn historic_signed_checksum() {
    // A name with bytes >= 0x80 makes the signed and unsigned sums differ;
    // the tar crate knows only the unsigned one.
    let name = "é.txt";
    let files: [(&str, &[u8]); 1] = [(name, b"e\n")];
    let build = |signed: bool| {
        let mut h = header(format!("{ROOT}/{name}").as_bytes(), 2, b'0');
        if signed {
            h[148..156].fill(b' ');
            let sum: i64 = h.iter().map(|b| *b as i8 as i64).sum();
            h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        }
        let mut t = Tar::default();
        t.manifest(&files).block(&h, b"e\n");
        t.end()
    };
    verify_bytes(&gz(&build(false))).assert_verified();
    verify_bytes(&gz(&build(true))).assert_failed("bundle.tar", "historic signed sum");
}

#[test]
fn linkname_on_a_regular_file_or_directory() {
    refused_header(
        "regular-file header with a non-empty linkname",
        a_header(),
        |h| h[157..171].copy_from_slice(b"run/dir/b.json"),
    );
    refused("directory header with a non-empty linkname", |bad| {
        let mut h = header(format!("{ROOT}/dir/").as_bytes(), 0, b'5');
        if bad {
            h[157..161].copy_from_slice(b"/etc");
            fix_checksum(&mut h);
        }
        bundle(|t| {
            t.file(A.0, A.1).block(&h, b"");
        })
    });
}

#[test]
fn directory_with_a_non_zero_size() {
    // The tar crate skips `size` bytes after a directory, Python and GNU tar
    // none: a header hidden there is an entry for one and data for the other.
    refused("a directory entry with a non-zero size (512)", |bad| {
        let mut hidden = Tar::default();
        if bad {
            hidden.file("dir/hidden", b"");
        }
        bundle(|t| {
            t.file(A.0, A.1)
                .raw(&format!("{ROOT}/dir/"), b'5', &hidden.0);
        })
    });
    // The same through a PAX size record.
    refused("a PAX size record on a directory entry", |bad| {
        bundle(|t| {
            t.file(A.0, A.1);
            if bad {
                t.pax(&[("size", b"0")]);
            }
            t.raw(&format!("{ROOT}/dir/"), b'5', b"");
        })
    });
}

#[test]
fn link_with_a_non_zero_size() {
    let mut h = header(format!("{ROOT}/link").as_bytes(), 512, b'2');
    h[157..166].copy_from_slice(b"run/a.txt");
    fix_checksum(&mut h);
    let mut t = good_start();
    t.block(&h, &[0u8; 512]);
    verify_bytes(&gz(&t.end()))
        .assert_failed("bundle.tar", "symbolic link entry with a non-zero size");
}

#[test]
fn gnu_long_link_name() {
    refused("GNU long link name ('K')", |bad| {
        bundle(|t| {
            if bad {
                t.block(&gnu_header(b"././@LongLink", 7, b'K'), b"target\0");
            }
            t.file(A.0, A.1);
        })
    });
}

#[test]
fn pax_size_disagreeing_with_the_header_size() {
    let build = |header_size: u64| {
        bundle(|t| {
            let h = header(a_path().as_bytes(), header_size, b'0');
            t.pax(&[("size", b"6")]).block(&h, A.1);
        })
    };
    // 0 (as GNU tar and Python write it for large files) or the same size.
    verify_bytes(&gz(&build(0))).assert_verified();
    verify_bytes(&gz(&build(6))).assert_verified();
    verify_bytes(&gz(&build(5))).assert_failed(
        "bundle.tar",
        "the PAX size 6 and the header's size field 5 disagree",
    );
}

#[test]
fn malformed_gnu_long_names() {
    let name = a_path();
    for (data, needle) in [
        // No final NUL: Python reads on into the padding.
        (
            name.clone().into_bytes(),
            "does not end with exactly one NUL",
        ),
        // A NUL inside: the tar crate keeps what follows, the others cut.
        (
            format!("{name}\0tail\0").into_bytes(),
            "contains a NUL byte before its end",
        ),
    ] {
        let b = bundle(|t| {
            let h = gnu_header(b"././@LongLink", data.len() as u64, b'L');
            t.block(&h, &data).raw("x", b'0', A.1);
        });
        verify_bytes(&gz(&b)).assert_failed("bundle.tar", needle);
    }
}

// ---- What GNU tar and Python write for ordinary files still verifies ----

#[test]
fn gnu_tar_bundles_in_every_format_verify() {
    for format in GNU_TAR_FORMATS {
        let d = tempfile::tempdir().unwrap();
        let order = run_tree(d.path(), false);
        let v = verify_file(&gnu_tar_bundle(d.path(), format, &order));
        v.assert_verified();
        assert_eq!(v.check("bundle.entry:empty")["ok"], true);
    }
}

#[test]
fn python_tarfile_bundles_in_every_format_verify() {
    for format in PYTHON_FORMATS {
        let d = tempfile::tempdir().unwrap();
        let order = run_tree(d.path(), false);
        verify_file(&python_bundle(&python(), d.path(), format, &order)).assert_verified();
    }
}

#[test]
fn proofpack_bundles_still_verify() {
    let d = tempfile::tempdir().unwrap();
    run_tree(d.path(), true);
    fs::remove_file(d.path().join(ROOT).join("MANIFEST")).unwrap();
    let out = d.path().join("pp.tgz");
    pp().arg("seal")
        .arg(d.path().join(ROOT))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    verify_file(&out).assert_verified();
}

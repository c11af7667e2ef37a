//! Interop with an independent implementation: bundles written per spec
//! section 5 by Python's `tarfile` and `gzip` (PAX and GNU formats, with and
//! without directory entries, gzip header with name and time) verify and
//! unpack with proofpack; proofpack's bundles read back in Python with the
//! expected names and contents.

use std::fs;
use std::process::Command;

use assert_cmd::Command as Cmd;
use serde_json::Value;

mod common;
use common::python;

fn pp() -> Cmd {
    let mut c = common::proofpack();
    // Tests never touch ~/.local: no catalog (it has its own tests).
    c.arg("--no-catalog");
    c
}

/// Writes a run directory and seals it with Python: MANIFEST (built with
/// hashlib) first, then files in manifest order, optionally directory entries.
const PY_SEAL: &str = r#"
import gzip, hashlib, io, os, sys, tarfile
run, out, fmt, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "dirs"
files = {
    "qualification.json": b'{"name": "py-run"}',
    "benchmark/rate-0.5/client.jsonl": b'{"request_id": "r1"}\n' * 50,
    "b/" + "long-component-" * 10 + "/x.json": b"{}",
    "\u00fcn\u00efc\u00f8d\u00e9/\u30d5\u30a1\u30a4\u30eb.json": "{\"k\": \"v\u00e4rde\"}".encode(),
    "empty": b"",
}
paths = sorted(files, key=lambda p: p.encode())
manifest = "".join(f"{p}:{hashlib.sha256(files[p]).hexdigest()}\n" for p in paths).encode()
fmt = {"pax": tarfile.PAX_FORMAT, "gnu": tarfile.GNU_FORMAT}[fmt]
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
    def add(name, data, kind=tarfile.REGTYPE):
        ti = tarfile.TarInfo(name)
        ti.type = kind
        ti.mtime = 1700000000.5
        ti.uname, ti.gname, ti.uid, ti.gid = "alice", "staff", 501, 20
        if kind == tarfile.DIRTYPE:
            ti.mode = 0o755
            t.addfile(ti)
        else:
            ti.mode = 0o600
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    if dirs:
        add("py-run", None, tarfile.DIRTYPE)
    add("py-run/MANIFEST", manifest)
    made = set()
    for p in paths:
        if dirs:
            parts = p.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in made:
                    made.add(d)
                    add("py-run/" + d, None, tarfile.DIRTYPE)
        add("py-run/" + p, files[p])
with open(out, "wb") as f:
    with gzip.GzipFile(filename="py-run.tar", mode="wb", fileobj=f, mtime=1700000000) as g:
        g.write(buf.getvalue())
"#;

const PY_READ: &str = r#"
import hashlib, json, sys, tarfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    out = []
    for m in t.getmembers():
        data = t.extractfile(m).read() if m.isreg() else None
        out.append({"name": m.name, "type": m.type.decode(), "mode": m.mode, "uid": m.uid, "gid": m.gid,
                    "uname": m.uname, "gname": m.gname, "mtime": m.mtime,
                    "sha256": hashlib.sha256(data).hexdigest() if data is not None else None,
                    "pax": m.pax_headers})
print(json.dumps(out))
"#;

#[test]
fn bundles_written_by_python_verify_and_unpack() {
    let d = tempfile::tempdir().unwrap();
    for fmt in ["pax", "gnu"] {
        for dirs in ["dirs", "nodirs"] {
            let out = d.path().join(format!("{fmt}-{dirs}.tgz"));
            let st = Command::new(python())
                .arg("-c")
                .arg(PY_SEAL)
                .arg(d.path())
                .arg(&out)
                .arg(fmt)
                .arg(dirs)
                .status()
                .unwrap();
            assert!(st.success());
            let o = pp()
                .args(["verify", "--structure-only"])
                .arg(&out)
                .arg("--json")
                .output()
                .unwrap();
            let r: Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(o.status.code(), Some(0), "{fmt} {dirs}: {r:#}");
            let entries = r["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["id"].as_str().unwrap().starts_with("bundle.entry:"))
                .count();
            assert_eq!(entries, 5, "{fmt} {dirs}: {r:#}");
            let x = d.path().join(format!("x-{fmt}-{dirs}"));
            fs::create_dir(&x).unwrap();
            pp().arg("unpack")
                .arg(&out)
                .arg("-C")
                .arg(&x)
                .assert()
                .success();
            assert_eq!(fs::read(x.join("py-run/empty")).unwrap(), b"");
            assert!(x.join("py-run/ünïcødé/ファイル.json").is_file());
        }
    }
}

#[test]
fn python_reads_proofpack_bundles_as_specified() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    let long = format!("deep/{}/f.txt", "x".repeat(120));
    for (rel, content) in [
        ("a.txt", "alpha"),
        ("ü/ñ.txt", "enye"),
        (long.as_str(), "long"),
    ] {
        let p = run.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }
    let out = d.path().join("r.tgz");
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .env("SOURCE_DATE_EPOCH", "1234")
        .assert()
        .success();
    let o = Command::new(python())
        .arg("-c")
        .arg(PY_READ)
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let members: Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = members
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    let expected_long = format!("run/{long}");
    assert_eq!(
        names,
        vec![
            "run/MANIFEST",
            "run/a.txt",
            expected_long.as_str(),
            "run/ü/ñ.txt"
        ]
    );
    for m in members.as_array().unwrap() {
        assert_eq!(m["type"], "0");
        assert_eq!(m["mode"], 0o644);
        assert_eq!(m["uid"], 0);
        assert_eq!(m["gid"], 0);
        assert_eq!(m["uname"], "");
        assert_eq!(m["gname"], "");
        assert_eq!(m["mtime"], 1234);
        let name = m["name"].as_str().unwrap();
        let needs_pax = name.len() > 100 || !name.is_ascii();
        assert_eq!(
            !m["pax"].as_object().unwrap().is_empty(),
            needs_pax,
            "{name}: PAX only where needed"
        );
    }
    // Contents as Python hashed them equal the MANIFEST lines proofpack wrote.
    let text = String::from_utf8(pp().arg("manifest").arg(&run).output().unwrap().stdout).unwrap();
    for line in text.lines() {
        let (p, h) = line.rsplit_once(':').unwrap();
        let m = members
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == format!("run/{p}"))
            .unwrap();
        assert_eq!(m["sha256"], h, "{p}");
    }
}

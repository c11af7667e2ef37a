//! Progress bars (issue 15): every long verb (manifest, check, host check,
//! seal, verify, unpack) shows one on a terminal once the work takes more
//! than a moment, and prints nothing of it when stderr is not a terminal.
//! The terminal is a pseudo-terminal from util-linux `script`.

mod qualify_support;

use std::path::Path;
use std::process::Command;

fn bin() -> String {
    qualify_support::common::bin().display().to_string()
}

/// Runs a shell command line under a pseudo-terminal; what it printed.
fn on_terminal(cmd: &str) -> String {
    let out = Command::new("script")
        .args(["-qec", cmd, "/dev/null"])
        .env("COLUMNS", "120")
        .output()
        .expect("util-linux script");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The same command with stderr a file (not a terminal); its stderr.
fn off_terminal(cmd: &str) -> String {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("{cmd} 2>&1 >/dev/null"))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn has_bar(text: &str) -> bool {
    // indicatif's template: "<what> [=====>    ] <bytes>/<total>".
    text.contains("[=") || text.contains("=>")
}

#[test]
fn long_verbs_show_progress_on_a_terminal_only() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    // 1.5 GiB of zeros (sparse): a few seconds of hashing, compressing and
    // inflating, within the reader's limits.
    std::fs::File::create(run.join("big.bin"))
        .unwrap()
        .set_len(3 << 29)
        .unwrap();
    let b = bin();
    let p = |x: &Path| x.display().to_string();
    let json = p(&d.path().join("m.json"));
    let out = p(&d.path().join("b.tgz"));
    let key = d.path().join("host");
    let fleet = d.path().join("fleet.json");
    std::fs::write(&fleet, r#"{"hosts": [{"name": "h"}]}"#).unwrap();
    let status = Command::new(&b)
        .args(["--no-catalog", "key", "gen", "-o"])
        .arg(&key)
        .status()
        .unwrap();
    assert!(status.success());
    let runs = [
        ("manifest", format!("{b} --no-catalog manifest {} --format json -o {json}", p(&run))),
        ("check", format!("{b} --no-catalog check {} --manifest {json} --full", p(&run))),
        (
            "host check",
            format!("{b} --no-catalog host check {} --weights {json} --full --host h --run r --fleet {} --key {}.key -o {}", p(&run), p(&fleet), p(&key), p(&d.path().join("r.json"))),
        ),
        ("seal", format!("{b} --no-catalog seal {} -o {out}", p(&run))),
        ("verify", format!("{b} --no-catalog verify {out} --structure-only")),
        ("unpack", format!("mkdir -p {0}/u && {b} --no-catalog unpack {out} -C {0}/u", p(d.path()))),
    ];
    for (what, cmd) in &runs {
        let tty = on_terminal(cmd);
        assert!(
            has_bar(&tty),
            "{what}: no progress bar on a terminal:\n{tty}"
        );
        if *what == "unpack" {
            std::fs::remove_dir_all(d.path().join("u")).unwrap();
        }
        let plain = off_terminal(cmd);
        assert!(
            !has_bar(&plain) && !plain.contains('\r'),
            "{what}: progress when not a terminal:\n{plain}"
        );
        if *what == "unpack" {
            std::fs::remove_dir_all(d.path().join("u")).unwrap();
        }
    }
}

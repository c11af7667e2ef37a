//! The docs match the binary: every `proofpack …` command line in the
//! README and docs/ names a verb the binary has and only flags that verb
//! lists in its `--help`; docs/fleet.md's table of `fleet verify` checks
//! and docs/bundles.md's tables of bundle and bag checks name exactly the
//! ids those verbs emit, both ways (an emitted id the table lacks, or a row
//! no run emits, fails).

#[path = "fleet_support/mod.rs"]
mod fleet_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{ids, proofpack_out};
use fleet_support::qualify_support::common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The names listed under a `--help` text's `Commands:` heading.
fn commands_of(help: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.ends_with(':') && !line.starts_with(' ') {
            inside = line == "Commands:";
            continue;
        }
        if inside {
            // A name stands two spaces in; deeper lines continue a
            // description.
            let name = line.strip_prefix("  ").filter(|l| !l.starts_with(' '));
            if let Some(name) = name.and_then(|l| l.split_whitespace().next()) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// The long flags a `--help` text lists (`-x, --long …` or `--long …` at
/// the start of an option line).
fn flags_of(help: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for line in help.lines() {
        let l = line.trim_start();
        let l = match l.strip_prefix('-') {
            Some(rest) if !rest.starts_with('-') => match rest.split_once(", ") {
                Some((_, long)) => long,
                None => continue,
            },
            _ => l,
        };
        if let Some(name) = l.strip_prefix("--") {
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(name.len());
            flags.insert(format!("--{}", &name[..end]));
        }
    }
    flags
}

fn help(verb: &[&str]) -> String {
    let mut args: Vec<&str> = verb.to_vec();
    args.push("--help");
    let (code, out, err) = proofpack_out(&args);
    assert_eq!(code, 0, "proofpack {}: {err}", args.join(" "));
    out
}

/// The verbs of the binary (nested ones as two words), each with the flags
/// its help lists (its own and the global ones).
fn verbs() -> BTreeMap<String, BTreeSet<String>> {
    let mut all = BTreeMap::new();
    for verb in commands_of(&help(&[])) {
        if verb == "help" {
            continue;
        }
        let h = help(&[&verb]);
        let subs = commands_of(&h);
        all.insert(verb.clone(), flags_of(&h));
        for sub in subs.into_iter().filter(|s| s != "help") {
            all.insert(format!("{verb} {sub}"), flags_of(&help(&[&verb, &sub])));
        }
    }
    all
}

/// The `proofpack …` command lines of a markdown text: lines of code
/// blocks (indented or fenced, an optional `$ ` prompt, `\` continuations
/// joined) and inline code spans that start with `proofpack `.
fn command_lines(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if let Some((at, mut acc)) = pending.take() {
            acc.push(' ');
            acc.push_str(line.trim());
            match acc.strip_suffix('\\') {
                Some(more) => pending = Some((at, more.trim_end().to_string())),
                None => found.push((at, acc)),
            }
            continue;
        }
        let code = fenced || line.starts_with("    ") || line.starts_with('\t');
        let l = line.trim();
        let l = l.strip_prefix("$ ").unwrap_or(l);
        if code && l.starts_with("proofpack ") {
            match l.strip_suffix('\\') {
                Some(more) => pending = Some((n, more.trim_end().to_string())),
                None => found.push((n, l.to_string())),
            }
            continue;
        }
        if !code {
            for span in line.split('`').skip(1).step_by(2) {
                if span.starts_with("proofpack ") {
                    found.push((n, span.to_string()));
                }
            }
        }
    }
    found
}

/// Checks one command line: its verb (after any global flags) and every
/// long flag in it. `None` when it holds, else what is wrong.
fn wrong(line: &str, verbs: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    // A comment ends the command; so does a pipe or a redirection to
    // another command.
    let line = line.split(" #").next().unwrap();
    // Two spaces and a parenthesis start a remark on the command.
    let line = line.split("  (").next().unwrap();
    let line = line.split(" | ").next().unwrap();
    let line = line.split(" && ").next().unwrap();
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let at = words.iter().position(|w| !w.starts_with('-'))?;
    let first = words[at];
    if first.starts_with('<')
        || first.contains('|')
        || first.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    {
        return None; // a placeholder for any verb, or a choice of verbs
    }
    if first.starts_with(|c: char| c.is_ascii_digit()) {
        return None; // the output of `proofpack --version`
    }
    let two = words.get(at + 1).map(|s| format!("{first} {s}"));
    let (verb, flags) = match two.as_ref().and_then(|t| verbs.get_key_value(t)) {
        Some(found) => found,
        None => match verbs.get_key_value(first) {
            Some(found) => found,
            None => return Some(format!("no verb {first:?}")),
        },
    };
    let unknown: Vec<String> = words
        .iter()
        .flat_map(|w| w.split(['[', ']', '(', ')', '|', ',', '/']))
        .filter_map(|w| w.strip_prefix("--").map(|_| w))
        .map(|w| {
            w.split('=')
                .next()
                .unwrap()
                .trim_end_matches(['.', ':', ';'])
        })
        .filter(|w| w.len() > 2 && !flags.contains(*w))
        .map(str::to_string)
        .collect();
    (!unknown.is_empty()).then(|| format!("`{verb}` has no {}", unknown.join(", ")))
}

#[test]
fn every_documented_command_line_names_a_real_verb_and_its_flags() {
    let verbs = verbs();
    assert!(verbs.len() > 20, "verbs: {:?}", verbs.keys());
    assert!(verbs.contains_key("fleet verify"), "{:?}", verbs.keys());
    let mut docs = vec!["README.md".to_string()];
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            docs.push(format!("docs/{name}"));
        }
    }
    docs.push("docs/spec/FORMATS.md".into());
    docs.sort();
    let (mut seen, mut bad) = (0, Vec::new());
    for doc in &docs {
        for (n, line) in command_lines(&read(doc)) {
            seen += 1;
            if let Some(why) = wrong(&line, &verbs) {
                bad.push(format!("{doc}:{n}: {why}: {line}"));
            }
        }
    }
    assert!(seen > 100, "only {seen} command lines found");
    assert!(
        bad.is_empty(),
        "{} documented command line(s) the binary does not take:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_command_line_checker_can_fail() {
    let verbs = verbs();
    assert!(wrong("proofpack verify B.tgz --trust T --json", &verbs).is_none());
    assert!(wrong("proofpack fleet verify r.json --fleet f.json", &verbs).is_none());
    let no_flag = wrong("proofpack verify B.tgz --trusted T", &verbs).unwrap();
    assert!(no_flag.contains("--trusted"), "{no_flag}");
    let no_verb = wrong("proofpack verfy B.tgz", &verbs).unwrap();
    assert!(no_verb.contains("verfy"), "{no_verb}");
    let lines =
        command_lines("a `proofpack seal D -o B` b\n\n    proofpack verify X \\\n      --json\n");
    assert_eq!(
        lines,
        [
            (1, "proofpack seal D -o B".to_string()),
            (3, "proofpack verify X --json".to_string())
        ]
    );
}

/// The ids of every `--json` report `args` lists, run in turn.
fn emitted(runs: &[Vec<std::ffi::OsString>]) -> Vec<String> {
    let mut all = BTreeSet::new();
    for args in runs {
        let (code, out, err) = proofpack_out(args);
        assert!(code == 0 || code == 1, "{args:?}: exit {code}: {err}");
        all.extend(ids::of_report(&out, &format!("{args:?}")));
    }
    all.into_iter().collect()
}

fn assert_both_ways(doc: &str, patterns: &[String], emitted: &[String]) {
    let (undocumented, never) = ids::unmatched(patterns, emitted);
    assert!(
        undocumented.is_empty() && never.is_empty(),
        "{doc} and the binary differ:\n  emitted but not in its table: {undocumented:?}\n  \
         in its table but emitted by no run: {never:?}"
    );
}

#[test]
fn fleet_md_names_exactly_the_checks_fleet_verify_emits() {
    use fleet_support::*;
    let patterns = ids::table_ids(&read("docs/fleet.md"), |id| {
        id.starts_with("host:") || id.starts_with("hosts.") || id.starts_with("fleet.")
    });
    assert!(patterns.len() >= 10, "{patterns:?}");
    let f = fleet();
    for h in HOSTS {
        assert_eq!(f.check(h, "--full"), 0);
    }
    let honest = f.verify(&f.all_reports(), "full");
    honest.assert_ok();
    // A host with a shard cut short, and a report of a host the fleet does
    // not name.
    let shard = std::fs::read_dir(f.root("node-1"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "safetensors"))
        .unwrap();
    let bytes = std::fs::read(&shard).unwrap();
    std::fs::write(&shard, &bytes[..bytes.len() - 1]).unwrap();
    assert_eq!(f.check("node-1", "--full"), 1);
    let fleet_file = f.fleet_file();
    std::fs::write(
        &fleet_file,
        r#"{"hosts": [{"name": "node-0"}, {"name": "node-1"}, {"name": "node-2"}]}"#,
    )
    .unwrap();
    let mut ids = Vec::new();
    for o in [honest, f.verify(&f.all_reports(), "full")] {
        ids.extend(ids::of_report(&o.report.to_string(), "fleet verify"));
    }
    // Without a weights record the reports are held to one another.
    let unrecorded = Fleet { record: None, ..f };
    let o = unrecorded.verify(&unrecorded.all_reports(), "full");
    ids.extend(ids::of_report(&o.report.to_string(), "fleet verify"));
    ids.sort();
    ids.dedup();
    assert_both_ways("docs/fleet.md", &patterns, &ids);
}

fn os(s: impl AsRef<std::ffi::OsStr>) -> std::ffi::OsString {
    s.as_ref().to_os_string()
}

#[test]
fn bundles_md_names_exactly_the_checks_of_bundles_and_bags() {
    let text = read("docs/bundles.md");
    // (`bundle.tgz` in a table is a file name, not a check.)
    let bundle_rows = ids::table_ids(&text, |id| {
        id.starts_with("bundle.") && !id.ends_with(".tgz")
    });
    let bag_rows = ids::table_ids(&text, |id| id.starts_with("bag.") && !id.ends_with(".tgz"));
    let sample = root().join("testdata/sample/kimi-k3-mi355x-20260923-sample.tgz");
    let trust = root().join("testdata/sample/trust.json");
    let d = tempfile::tempdir().unwrap();
    // A bundle of 1,010 symbolic links (each a rejected entry): past the
    // 1,000 reported one by one, the rest are one check.
    let many_tgz = d.path().join("many.tgz");
    {
        let file = std::fs::File::create(&many_tgz).unwrap();
        let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        // Every numeric field set: the reader refuses empty ones.
        let header = || {
            let mut h = tar::Header::new_ustar();
            h.set_size(0);
            h.set_uid(0);
            h.set_gid(0);
            h.set_mtime(0);
            h
        };
        let mut h = header();
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, "run/MANIFEST", &b""[..]).unwrap();
        for i in 0..1010 {
            let mut h = header();
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_mode(0o777);
            tar.append_link(&mut h, format!("run/l{i:04}"), "MANIFEST")
                .unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap();
    }
    // A bundle with its last byte changed (the gzip trailer).
    let broken = d.path().join("broken.tgz");
    let mut bytes = std::fs::read(&sample).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(&broken, &bytes).unwrap();
    let structure = |b: &Path| vec![os("verify"), os(b), os("--structure-only"), os("--json")];
    let bundle_ids: Vec<String> =
        emitted(&[structure(&sample), structure(&many_tgz), structure(&broken)])
            .into_iter()
            .filter(|id| id.starts_with("bundle."))
            .collect();
    assert_both_ways("docs/bundles.md (bundle checks)", &bundle_rows, &bundle_ids);
    // The sample as a bag, with and without the optional SHA-512 manifests.
    let [bag_dir, with512] = common::bag::sample_bags(&d.path().join("bags"));
    let verify_bag = |b: &Path| vec![os("verify"), os(b), os("--trust"), os(&trust), os("--json")];
    let bag_ids: Vec<String> = emitted(&[verify_bag(&bag_dir), verify_bag(&with512)])
        .into_iter()
        .filter(|id| id.starts_with("bag."))
        .collect();
    assert_both_ways("docs/bundles.md (bag checks)", &bag_rows, &bag_ids);
}

//! Writes the sample qualification of testdata/sample (deterministic):
//!
//!     cargo run --release --example make_sample -- testdata/sample
//!
//! Rerunning reproduces identical bytes: fixed seeds, fixed timestamps,
//! TEST-ONLY keys derived from public seeds, a fixed seal time. Options:
//! `--requests N` (measured requests per point, default 200), used by
//! scripts/bench-verify.sh and scripts/bench-html.sh for the
//! 100,000-request measurements.

mod gen;

use std::path::PathBuf;

const README: &str = "# Sample qualification (synthetic, TEST-ONLY keys)

Written by `cargo run --release --example make_sample -- testdata/sample`
(examples/make_sample/); rerunning it reproduces every byte. It is modelled on
a Kimi-K3 serving qualification on a fleet of 4 engines, but every number in
it is synthetic.

- `weights/`: 96 tiny but valid safetensors shards. The weights manifest
  (`run/<name>/manifests/weights.manifest`) is computed over them; the shards
  are not in the bundle.
- `run/<name>/`: the run directory: `qualification.json`, `inputs/` (model
  config, qualified fleet, benchmark plan, workload, profile store),
  `preflight.json`, two points (0.5 and 1 request/s, 200 requests plus 1
  warmup each) with client records, a router journal with several events per
  request, 4 engine attestations, the weights record
  (`manifests/weights.manifest.json`: sizes and shard header digests), and
  the signed sizes-only launch check of each engine's host (`hosts/`, listed
  in `host_checks`), each bound to the run, its qualified fleet and the
  weights record.
- `<name>.tgz`, `.tgz.sha256`, `.tgz.seal.dsse.json`: the sealed bundle, its
  digest and its release seal.
- `pins.json`: the published pins; `trust.json`: the trust roots.
- `keys/TEST-ONLY-*.key|.pub`: **TEST-ONLY keys.** Their private keys are
  derived from public seeds and committed here: anyone can sign with them.
  They exist so that tests can re-sign variants. Never put them in a real
  trust file.

- `PUBLICATION.md`: the sample's write-up, generated from the same data, in
  the layout of real qualification write-ups exported from a docs site
  (headings ending in `¶`, pipe tables, a blank line after each table so
  that GitHub does not read the prose after it as one more row): a
  \"Pinned inputs\" table whose every row is checked through the evidence
  chain (v1.1: the benchmark plan names the workload `inputs/workload.json`,
  the qualified fleet and the client and router revisions; the fleet names
  the profile store and the first-token deadline; engine, accelerator,
  config and weights are the attested ones), so that no row rests on a fact
  the publisher chose, and a \"Measured points\" table.

Regenerated for contract v1.1 (docs/spec/FORMATS.md), which needs evidence
the v1 sample lacked: `qualification.json` names its benchmark plan
(`\"plan\"`), so that request, warmup and rate counts are checked against
what the client was told to run, and declares the `facts` its write-up's
rows are checked against; the workload fixes every prompt at 8,192 tokens
and every completion at 128, as the write-up states, so the latencies and
rates differ from the v1 sample's. The keys are written as PKCS#8 v1, which
OpenSSL 3.0 and Python's `cryptography` read.

Verify it against its write-up:

    cargo run --release -- verify testdata/sample/kimi-k3-mi355x-20260923-sample.tgz \\
        --publication testdata/sample/PUBLICATION.md --trust testdata/sample/trust.json
";

fn main() {
    let mut out: Option<PathBuf> = None;
    let mut params = gen::Params::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--requests" => {
                params.requests = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--requests N")
            }
            // One point (at 1 request/s) instead of the two: what the
            // one-point benchmarks measure.
            "--one-point" => params.points = vec![("rate-1".into(), 1.0)],
            _ if out.is_none() => out = Some(PathBuf::from(a)),
            _ => panic!("usage: make_sample OUT_DIR [--requests N] [--one-point]"),
        }
    }
    let out = out.unwrap_or_else(|| "testdata/sample".into());
    let sample = gen::generate(&out, &params);
    let keys = out.join("keys");
    gen::write_keys(&keys, "TEST-ONLY-engine", &gen::engine_key());
    gen::write_keys(&keys, "TEST-ONLY-release", &gen::release_key());
    gen::write_keys(&keys, "TEST-ONLY-host", &gen::host_key());
    std::fs::write(
        out.join("trust.json"),
        gen::trust_json(&[
            (
                &gen::engine_key(),
                &["engine"],
                "TEST-ONLY engine key (public seed; never trust outside tests)",
            ),
            (
                &gen::release_key(),
                &["release"],
                "TEST-ONLY release key (public seed; never trust outside tests)",
            ),
            (
                &gen::host_key(),
                &["host"],
                "TEST-ONLY host key (public seed; never trust outside tests)",
            ),
        ]),
    )
    .expect("write trust.json");
    let tgz = out.join(format!("{}.tgz", gen::NAME));
    let sealed = gen::seal_sample(&sample.run, &tgz).expect("seal the sample");
    std::fs::write(
        out.join("pins.json"),
        gen::pins_json(&sample, Some(sealed.bundle_sha256)),
    )
    .expect("write pins.json");
    std::fs::write(
        out.join("PUBLICATION.md"),
        gen::publication(&sample, &sealed.bundle_sha256),
    )
    .expect("write PUBLICATION.md");
    std::fs::write(out.join("README.md"), README).expect("write README.md");
    eprintln!(
        "make_sample: wrote {} and {} (sha256 {})",
        sample.run.display(),
        tgz.display(),
        sealed.bundle_sha256
    );
}

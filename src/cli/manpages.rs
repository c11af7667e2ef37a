//! The parts of the man pages that clap does not know: EXIT STATUS and
//! EXAMPLES for every page, and SEE ALSO naming only pages that exist.

/// The exit-status paragraph of a page.
pub fn exit_status(page: &str) -> &'static str {
    match page {
        "proofpack" => "Every verb: 0 the evidence holds (no drift); 1 it does not (a mismatch, a missing or unlisted file, a bad signature, a broken invariant, a claim that is not what the records give); 2 proofpack could not do its job (bad flags, a missing required argument file such as --trust, an unreadable or invalid argument file, an I/O error). Treat both 1 and 2 as failure; only 1 means the evidence is wrong.",
        "proofpack-diff" => "0 no drift; 1 drift (a file added, removed or changed); 2 a side could not be read (bad flags, an unreadable manifest, a missing baseline).",
        "proofpack-check" | "proofpack-shards-check" => "0 every listed file is present and unchanged and nothing is unlisted; 1 any difference (each path is named); 2 the check could not run (bad flags, an unreadable or empty manifest, a missing baseline, an unreadable directory).",
        "proofpack-host-check" => "0 the host's weights match the pinned manifest (the signed report says passed); 1 they do not (the signed report is written all the same and records the failure); 2 the check could not run (bad flags, an unusable key, an unreadable or empty manifest); no report is written then.",
        "proofpack-fleet-verify" => "0 every selected host has one trusted, passing report; 1 a host failed (its name is printed); 2 the check could not run (bad flags, an unreadable trust or fleet file, a trust file without a key for host, an empty manifest).",
        "proofpack-attest-verify" => "0 the envelope holds under the trusted keys of the role (for a host report: and the check it records passed); 1 it does not (nothing is printed on stdout); 2 the check could not run (an unreadable envelope, an unreadable or invalid trust file, a trust file without a key for the role, bad flags).",
        "proofpack-verify" | "proofpack-unpack" | "proofpack-receipt" | "proofpack-receipt-verify" | "proofpack-results" | "proofpack-results-check" => "0 the evidence holds; 1 it does not (the report lists every failed check; unpack then writes nothing); 2 the tool could not run (bad flags, a missing --trust, an unreadable or invalid trust, pins or publication file, an unreadable bundle).",
        "proofpack-catalog" | "proofpack-catalog-list" | "proofpack-catalog-show" | "proofpack-catalog-forget" | "proofpack-catalog-export" | "proofpack-catalog-import" | "proofpack-catalog-info" => "0 done; 1 only for catalog info --check finding damage; 2 the catalog is unusable, does not exist (for the verbs that read it), or an argument names nothing (an unknown record or baseline, an existing baseline without --replace).",
        _ => "0 done; 2 proofpack could not do its job (bad flags, an unreadable or invalid input, an I/O error); nothing is written then. These verbs judge no evidence, so they never exit 1.",
    }
}

/// The examples of a page: (what it does, the command).
pub fn examples(page: &str) -> &'static [(&'static str, &'static str)] {
    match page {
        "proofpack" | "proofpack-verify" => &[
            ("Verify a bundle against its published write-up, with your own trust roots:", "proofpack verify run.tgz --publication WRITEUP.md --trust trust.json"),
            ("The same, writing the report as JSON and as one HTML page:", "proofpack verify run.tgz --publication WRITEUP.md --trust trust.json --json --html report.html > report.json"),
            ("Only the bundle's structure and seal (no trust file needed):", "proofpack verify run.tgz --structure-only"),
            ("The CI release gate, its checks also as a JUnit test report (docs/ci.md):", "proofpack verify run.tgz --publication WRITEUP.md --trust trust.json --require-all --require-seal --junit proofpack-junit.xml"),
        ],
        "proofpack-manifest" => &[
            ("The manifest of a weights directory (its digest on stderr):", "proofpack manifest /models/kimi-k3 -o kimi-k3.manifest"),
            ("The JSON record with sizes and shard header digests, for --sizes-only checks:", "proofpack manifest /models/kimi-k3 --format json -o kimi-k3.manifest.json"),
            ("Record it as a catalog baseline (an existing one needs --replace):", "proofpack manifest /models/kimi-k3 --record kimi-k3-weights -o kimi-k3.manifest"),
            ("Hash part 3 of 8 of a tree on shared storage:", "proofpack manifest /lustre/models/kimi-k3 --partition 3/8 -o part-3.json"),
        ],
        "proofpack-manifest-merge" => &[("Join the parts into the manifest of the whole tree:", "proofpack manifest merge part-*.json --format json -o weights.manifest.json")],
        "proofpack-check" => &[
            ("Check a directory against a manifest, reading every byte:", "proofpack check /models/kimi-k3 --manifest kimi-k3.manifest"),
            ("The fast launch check (sizes and safetensors headers):", "proofpack check /models/kimi-k3 --manifest kimi-k3.manifest.json --sizes-only"),
            ("The CI gate against a catalog baseline:", "proofpack check /models/kimi-k3 --manifest catalog:kimi-k3-weights"),
            ("The drift gate, its checks also as a JUnit test report:", "proofpack check /models/kimi-k3 --manifest kimi-k3.manifest.json --junit drift-junit.xml"),
        ],
        "proofpack-diff" => &[
            ("Drift between a baseline and a directory:", "proofpack diff catalog:kimi-k3-weights /models/kimi-k3"),
            ("Two manifest files:", "proofpack diff old.manifest new.manifest --json"),
        ],
        "proofpack-key" | "proofpack-key-gen" => &[("A key pair for an engine (prints the key id):", "proofpack key gen -o keys/engine-0")],
        "proofpack-key-id" => &[("The key id of a public key:", "proofpack key id keys/engine-0.pub")],
        "proofpack-key-trust" => &[
            ("A trust file with engine, release and host keys:", "proofpack key trust --engine keys/engine-0.pub --release keys/release.pub --host keys/node-01.pub -o trust.json"),
            ("Add a key to an existing trust file:", "proofpack key trust --from trust.json --host keys/node-02.pub -o trust.json"),
        ],
        "proofpack-attest" | "proofpack-attest-engine" => &[("An engine's attestation, in one call at launch:", "proofpack attest engine --key engine-0.key --engine-id engine-0 --engine-name vllm --engine-version 0.11.0 --image sha256:HEX --model moonshotai/Kimi-K3 --accelerator MI355X --accelerator-count 8 --weights-manifest weights.manifest --config config.json -o engine-0.dsse.json")],
        "proofpack-attest-sign" => &[("Sign any predicate over two subjects:", "proofpack attest sign --key release.key --predicate-type urn:example:v1 --predicate p.json --subject a=a.bin --subject b=sha256:HEX -o out.dsse.json")],
        "proofpack-attest-verify" => &[
            ("Check an engine attestation against your trust file:", "proofpack attest verify engine-0.dsse.json --trust trust.json"),
            ("A release seal:", "proofpack attest verify run.tgz.seal.dsse.json --trust trust.json --role release"),
            ("One host's launch-check report:", "proofpack attest verify node-01.dsse.json --trust trust.json --role host"),
        ],
        "proofpack-seal" => &[("Seal a run directory, signed with the release key:", "proofpack seal runs/kimi-k3-20260923 -o kimi-k3-20260923.tgz --key release.key")],
        "proofpack-host" | "proofpack-host-check" => &[
            ("The full launch check of this host, signed with its key:", "proofpack host check /models/kimi-k3 --weights-manifest weights.manifest.json --config /models/kimi-k3/config.json --host node-01 --key /etc/proofpack/host.key -o node-01.dsse.json"),
            ("The fast check (sizes and safetensors headers; fleet verify then needs --mode sizes-only):", "proofpack host check /models/kimi-k3 --weights-manifest weights.manifest.json --sizes-only --host node-01 --key /etc/proofpack/host.key -o node-01.dsse.json"),
        ],
        "proofpack-fleet" | "proofpack-fleet-verify" => &[("The fleet verdict over every host's report:", "proofpack fleet verify reports/*.dsse.json --fleet fleet.json --trust trust.json --weights-manifest sha256:HEX --config sha256:HEX")],
        "proofpack-shards" | "proofpack-shards-check" => &[("Check safetensors shards and their index from the headers alone:", "proofpack shards check /models/kimi-k3 --manifest weights.manifest.json")],
        "proofpack-completions" => &[("Install bash completions:", "proofpack completions bash > ~/.local/share/bash-completion/completions/proofpack")],
        "proofpack-man" => &[("Write every man page, then read one:", "proofpack man -o ~/.local/share/man/man1 && man proofpack-verify")],
        "proofpack-report" => &[("The HTML page of a saved JSON report:", "proofpack report report.json -o report.html")],
        "proofpack-pins" | "proofpack-pins-from-publication" => &[("The pins a write-up states, as a pins file:", "proofpack pins from-publication WRITEUP.md -o pins.json")],
        "proofpack-unpack" => &[("Verify a bundle while extracting it (DIR is created if missing):", "proofpack unpack run.tgz -C evidence")],
        "proofpack-results" | "proofpack-results-check" => &[
            ("Recompute a vLLM result file's summary fields:", "proofpack results check result.json"),
            ("An SGLang file, with an InferenceX row recomputed from it:", "proofpack results check bench.jsonl --results-format sglang --row agg.json"),
        ],
        "proofpack-receipt" | "proofpack-receipt-verify" => &[("Check an InferenceX source measurement receipt:", "proofpack receipt verify receipt-dir")],
        "proofpack-run" | "proofpack-run-new" => &[("Scaffold a run of two points from a benchmark plan written by the flags:", "proofpack run new runs/r1 --model moonshotai/Kimi-K3 --slo ttft=10,tpot=0.3,attainment=0.95 --point rate-0.5:rate=0.5,requests=200 --point rate-1:rate=1,requests=200 --max-input-tokens 8192 --max-output-tokens 1024")],
        "proofpack-run-import" => &[
            ("A vLLM bench serve result file as a point's client records:", "proofpack run import runs/r1 --point rate-0.5 vllm-rate-0.5.json"),
            ("A router's log as the point's journal (the second witness):", "proofpack run import runs/r1 --point rate-0.5 --journal router.log"),
        ],
        "proofpack-publish" => &[("The claims and the write-up of a run, its tables computed from the evidence:", "proofpack publish runs/r1 -o PUBLICATION.md --trust trust.json")],
        "proofpack-catalog" | "proofpack-catalog-list" => &[("Recorded seals, verifications and baselines:", "proofpack catalog list")],
        "proofpack-catalog-show" => &[
            ("The newest record of a bundle digest:", "proofpack catalog show sha256:a85e19f6"),
            ("A baseline, by name:", "proofpack catalog show kimi-k3-weights"),
        ],
        "proofpack-catalog-forget" => &[("Delete a record and a baseline:", "proofpack catalog forget id:7 --baseline old-weights")],
        "proofpack-catalog-export" => &[("Keep a baseline in git as a plain manifest:", "proofpack catalog export kimi-k3-weights -o baselines/kimi-k3.manifest")],
        "proofpack-catalog-import" => &[("Restore a committed baseline on a fresh CI runner:", "proofpack catalog import kimi-k3-weights baselines/kimi-k3.manifest")],
        "proofpack-catalog-info" => &[("Where the catalog is, and an integrity check:", "proofpack catalog info --check")],
        _ => &[],
    }
}

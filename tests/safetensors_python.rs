//! Shards and indexes written by the Python peers pass, through the binary:
//! a multi-shard checkpoint written the way `transformers` writes one, a
//! single file, `check --sizes-only` with the header digests `manifest`
//! records, and a real public index (testdata/safetensors/) with sparse
//! shards of the real shapes, which the reference reader opens too.

use std::fs;
use std::path::Path;

mod safetensors_support;
use safetensors_support::*;

#[test]
fn a_transformers_checkpoint_passes_every_check() {
    let d = tempfile::tempdir().unwrap();
    let shards = llama_like(d.path(), 6, 4096);
    assert!(shards.len() >= 3, "{shards:?}");
    for s in &shards {
        assert_eq!(reference(&d.path().join(s)), "ok", "{s}");
    }
    let index = d.path().join("model.safetensors.index.json");
    let (code, v) = shards_check(d.path(), &["--index", index.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#?}", failed(&v));
    // One check per shard and rule (15 rules), all passed.
    assert_eq!(proofpack::safetensors::RULES.len(), 15);
    for s in &shards {
        for rule in proofpack::safetensors::RULES {
            assert_eq!(check(&v, &format!("shard.{rule}:{s}"))["ok"], true);
        }
        for rule in [
            "shard_present",
            "shard_indexed",
            "tensors",
            "misplaced",
            "unmapped",
        ] {
            assert_eq!(check(&v, &format!("index.{rule}:{s}"))["ok"], true);
        }
    }
    assert_eq!(check(&v, "index.duplicate_tensors")["ok"], true);
    let total = check(&v, "index.total_size");
    assert_eq!(total["ok"], true, "{total}");
    // total_size is the sum of the tensors' bytes (headers excluded).
    let idx: serde_json::Value = serde_json::from_slice(&fs::read(&index).unwrap()).unwrap();
    let on_disk: u64 = shards
        .iter()
        .map(|s| fs::metadata(d.path().join(s)).unwrap().len())
        .sum();
    assert!(idx["metadata"]["total_size"].as_u64().unwrap() < on_disk);
    assert_eq!(v["summary"]["failed"], 0);

    // Without --index, an index beside the shards is reported as not checked.
    let (code, v) = shards_check(d.path(), &[]);
    assert_eq!(code, 0);
    assert_eq!(check(&v, "index")["ok"], serde_json::Value::Null);
}

#[test]
fn one_file_and_an_empty_header_pass() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("model.safetensors");
    let empty = d.path().join("empty.safetensors");
    py(
        r#"
save_file({"w": np.ones((3, 5), dtype=np.float32), "b": np.zeros((0, 4), dtype=np.uint8)},
          sys.argv[1], metadata={"format": "pt", "note": "é"})
save_file({}, sys.argv[2])
"#,
        &[f.to_str().unwrap(), empty.to_str().unwrap()],
    );
    assert_eq!(reference(&empty), "ok");
    let (code, v) = shards_check(&f, &[]);
    assert_eq!(code, 0, "{:#?}", failed(&v));
    assert!(check(&v, "shard.header_json:model.safetensors")["detail"]
        .as_str()
        .unwrap()
        .contains("2 tensors, 2 __metadata__ entries"));
    let (code, v) = shards_check(d.path(), &[]);
    assert_eq!(code, 0, "{:#?}", failed(&v));
    assert_eq!(check(&v, "shard.read:empty.safetensors")["ok"], true);
    // A directory without shards is not a checkpoint.
    let none = tempfile::tempdir().unwrap();
    let (code, v) = shards_check(none.path(), &[]);
    assert_eq!(code, 1);
    assert_eq!(failed(&v)[0].0, "shards.found");
}

#[test]
fn sizes_only_reads_headers_and_their_digests() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("model");
    let shards = llama_like(&root, 3, 4096);
    let m = d.path().join("weights.json");
    json_manifest(&root, &m);
    let rec: serde_json::Value = serde_json::from_slice(&fs::read(&m).unwrap()).unwrap();
    // Every shard entry carries its header digest: SHA-256 of its first 8 + N
    // bytes, as Python computes it.
    for s in &shards {
        let e = rec["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == s.as_str())
            .unwrap();
        let want = py(
            r#"
import hashlib
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
print(hashlib.sha256(b[:8 + n]).hexdigest())
"#,
            &[root.join(s).to_str().unwrap()],
        );
        assert_eq!(e["header_sha256"], want.trim(), "{s}");
    }
    let idx = rec["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == "model.safetensors.index.json")
        .unwrap();
    assert!(idx.get("header_sha256").is_none());
    // The canonical manifest, and so its digest, is what it was without them.
    let canon = pp().arg("manifest").arg(&root).output().unwrap();
    assert!(!String::from_utf8_lossy(&canon.stdout).contains("header"));
    let canon_digest = proofpack::digest::Sha256Digest::of_bytes(&canon.stdout);
    assert_eq!(rec["digest"], canon_digest.prefixed());

    let sizes_only = |extra: &[&str]| {
        let mut a = vec![
            "check",
            root.to_str().unwrap(),
            "--manifest",
            m.to_str().unwrap(),
            "--sizes-only",
        ];
        a.extend_from_slice(extra);
        run_json(&a)
    };
    let (code, v) = sizes_only(&[]);
    assert_eq!(code, 0, "{:#?}", failed(&v));
    for s in &shards {
        assert_eq!(check(&v, &format!("shard.header_sha256:{s}"))["ok"], true);
        assert_eq!(check(&v, &format!("shard.trailing:{s}"))["ok"], true);
    }
    // --no-structure: sizes only, as before.
    let (code, v) = sizes_only(&["--no-structure"]);
    assert_eq!(code, 0);
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["id"].as_str().unwrap().starts_with("file:")));
    // shards check --manifest checks the listed shards and their digests.
    let (code, v) = shards_check(&root, &["--manifest", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#?}", failed(&v));
    assert_eq!(
        check(&v, &format!("shard.header_sha256:{}", shards[0]))["ok"],
        true
    );
}

/// The shapes of a Llama-architecture checkpoint from its config.json
/// (hidden, intermediate, layers, vocabulary; attention and MLP biases; tied
/// embeddings, so no lm_head).
const GRANITE_SHARDS: &str = r#"
idx = json.load(open(sys.argv[1]))
cfg = json.load(open(sys.argv[2]))
h, i, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
kv = h * cfg["num_key_value_heads"] // cfg["num_attention_heads"]
def shape(name):
    if name == "model.embed_tokens.weight": return [v, h]
    if name.endswith("layernorm.weight") or name == "model.norm.weight": return [h]
    part = name.split(".")[-2]
    kind = name.split(".")[-1]
    out, inp = {"q_proj": (h, h), "k_proj": (kv, h), "v_proj": (kv, h), "o_proj": (h, h),
                "gate_proj": (i, h), "up_proj": (i, h), "down_proj": (h, i)}[part]
    return [out, inp] if kind == "weight" else [out]
by_shard = {}
for t, s in idx["weight_map"].items():
    by_shard.setdefault(s, []).append(t)
sizes = {}
for s, names in sorted(by_shard.items()):
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for t in sorted(names):
        n = 2 * int(np.prod(shape(t)))
        header[t] = {"dtype": "BF16", "shape": shape(t), "data_offsets": [off, off + n]}
        off += n
    p = os.path.join(sys.argv[3], s)
    raw(p, header)
    with open(p, "r+b") as f:
        f.truncate(os.path.getsize(p) + off)  # sparse: the data is a hole
    sizes[s] = [os.path.getsize(p), os.stat(p).st_blocks * 512, reference(p)]
print(json.dumps(sizes))
"#;

#[test]
fn a_real_public_index_with_sparse_shards_of_its_shapes() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/safetensors");
    let index = data.join("granite-3b-code-instruct-128k/model.safetensors.index.json");
    let config = data.join("granite-3b-code-instruct-128k/config.json");
    let d = tempfile::tempdir().unwrap();
    let out = py(
        GRANITE_SHARDS,
        &[
            index.to_str().unwrap(),
            config.to_str().unwrap(),
            d.path().to_str().unwrap(),
        ],
    );
    let sizes: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let mut apparent = 0u64;
    for (s, v) in sizes.as_object().unwrap() {
        assert_eq!(v[2], "ok", "the reference reader refuses {s}: {v}");
        apparent += v[0].as_u64().unwrap();
        assert!(v[1].as_u64().unwrap() < 1 << 20, "{s} is not sparse: {v}");
    }
    assert!(apparent > 6_965_007_360, "{apparent}");
    let (code, v) = shards_check(d.path(), &["--index", index.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#?}", failed(&v));
    let total = check(&v, "index.total_size");
    assert_eq!(total["ok"], true, "{total}");
    assert!(total["detail"].as_str().unwrap().contains("6965007360"));
    let n = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"].as_str().unwrap().starts_with("shard.read:"))
        .count();
    assert_eq!(n, 2);
}

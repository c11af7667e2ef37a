//! Helpers shared by the safetensors tests: shards and indexes written by
//! the Python peers (`safetensors` 0.8.0 and `numpy`, pinned in
//! scripts/requirements-test.txt), defective shards built byte by byte in
//! Python, the reference reader's verdict on a file (`safe_open`), and
//! running `proofpack` on them.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use assert_cmd::Command as Cmd;
use serde_json::Value;

#[path = "../common/mod.rs"]
pub mod common;
pub use common::python;

/// Python functions every script gets.
///
/// - `checkpoint(d, tensors, max_shard_bytes)`: a multi-shard checkpoint the
///   way `transformers`' `save_pretrained` writes it: tensors in state-dict
///   order split greedily by size (huggingface_hub's
///   `split_torch_state_dict_into_shards`), shards
///   `model-0000k-of-0000n.safetensors` written by `safetensors.numpy.save_file`
///   with `{"format": "pt"}`, and `model.safetensors.index.json` as
///   `json.dumps({"metadata": {"total_size": ...}, "weight_map": ...},
///   indent=2, sort_keys=True) + "\n"`.
/// - `raw(path, header, data_len, pad=True)`: a shard whose header is the
///   given JSON text or dict, padded with spaces to 8 bytes as the writer
///   pads it, followed by `data_len` zero bytes.
/// - `reference(path)`: "ok" when the reference reader opens the file, else
///   its error.
pub const PRELUDE: &str = r#"
import json, os, struct, sys
import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

def checkpoint(d, tensors, max_shard_bytes):
    os.makedirs(d, exist_ok=True)
    shards, cur, size = [], {}, 0
    for name, (shape, dtype) in tensors:
        a = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
        if cur and size + a.nbytes > max_shard_bytes:
            shards.append(cur); cur, size = {}, 0
        cur[name] = a; size += a.nbytes
    if cur:
        shards.append(cur)
    n = len(shards)
    weight_map, total = {}, 0
    for k, shard in enumerate(shards):
        fname = f"model-{k + 1:05d}-of-{n:05d}.safetensors"
        save_file(shard, os.path.join(d, fname), metadata={"format": "pt"})
        for name, a in shard.items():
            weight_map[name] = fname
            total += a.nbytes
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")
    return [f"model-{k + 1:05d}-of-{n:05d}.safetensors" for k in range(n)]

def raw(path, header, data_len=0, pad=True):
    h = header if isinstance(header, bytes) else (
        header if isinstance(header, str) else json.dumps(header)).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"\0" * data_len)

def reference(path):
    try:
        with safe_open(path, "np") as f:
            list(f.keys())
        return "ok"
    except Exception as e:
        return f"{type(e).__name__}: {e}"
"#;

/// Runs `script` (after [`PRELUDE`]) with `args`; returns stdout. Panics
/// with stderr when the script fails.
pub fn py(script: &str, args: &[&str]) -> String {
    let out = Command::new(python())
        .arg("-c")
        .arg(format!("{PRELUDE}\n{script}"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The reference reader's verdict on a file: "ok" or its error.
pub fn reference(path: &Path) -> String {
    py("print(reference(sys.argv[1]))", &[path.to_str().unwrap()])
        .trim()
        .to_string()
}

/// The proofpack binary, with no catalog.
pub fn pp() -> Cmd {
    let mut c = common::proofpack();
    c.env("NO_COLOR", "1").arg("--no-catalog");
    c
}

/// Runs proofpack with `args`; returns (exit code, JSON report on stdout).
pub fn run_json(args: &[&str]) -> (i32, Value) {
    let out = pp().args(args).arg("--json").output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}), exit {code}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, v)
}

/// `shards check ROOT [extra...] --json`.
pub fn shards_check(root: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["shards", "check", root.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_json(&args)
}

/// The ids of the failed checks, with their details.
pub fn failed(v: &Value) -> Vec<(String, String)> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The failed checks that are causes (not "not checkable: ...").
pub fn causes(v: &Value) -> Vec<(String, String)> {
    failed(v)
        .into_iter()
        .filter(|(_, d)| !d.starts_with("not checkable: "))
        .collect()
}

/// The check with `id`, which must be there.
pub fn check<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {v}"))
}

/// Writes a JSON manifest record of `root` with `proofpack manifest`.
pub fn json_manifest(root: &Path, out: &Path) {
    pp().arg("manifest")
        .arg(root)
        .args(["--format", "json", "-o"])
        .arg(out)
        .assert()
        .success();
}

/// A small Llama-like state dict: (name, shape, numpy dtype).
const LLAMA_LIKE: &str = r#"
import numpy as np
layers = int(sys.argv[2])
t = [("model.embed_tokens.weight", ((64, 16), np.float16))]
for l in range(layers):
    p = f"model.layers.{l}."
    t += [(p + "input_layernorm.weight", ((16,), np.float32)),
          (p + "self_attn.q_proj.weight", ((16, 16), np.float16)),
          (p + "self_attn.k_proj.weight", ((8, 16), np.float16)),
          (p + "self_attn.v_proj.weight", ((8, 16), np.float16)),
          (p + "self_attn.o_proj.weight", ((16, 16), np.float16)),
          (p + "mlp.gate_proj.weight", ((32, 16), np.float16)),
          (p + "mlp.up_proj.weight", ((32, 16), np.float16)),
          (p + "mlp.down_proj.weight", ((16, 32), np.float16)),
          (p + "mlp.router.bias", ((4,), np.int64)),
          (p + "mlp.mask", ((3,), np.bool_)),
          (p + "mlp.scale", ((), np.float64))]
t += [("model.norm.weight", ((16,), np.float32)), ("lm_head.weight", ((64, 16), np.int8))]
print(json.dumps(checkpoint(sys.argv[1], t, int(sys.argv[3]))))
"#;

/// Writes a checkpoint of `layers` layers in shards of at most `max` bytes.
pub fn llama_like(dir: &Path, layers: usize, max: usize) -> Vec<String> {
    let out = py(
        LLAMA_LIKE,
        &[dir.to_str().unwrap(), &layers.to_string(), &max.to_string()],
    );
    serde_json::from_str(out.trim()).unwrap()
}

"""Reference computations for proofpack's peer checks (issue 14).

Reproduces, in plain Python over lists with numpy, the metric computation of
vLLM's `calculate_metrics` (vllm/benchmarks/serve.py; the older
benchmarks/benchmark_serving.py layout too), SGLang's `calculate_metrics`
(python/sglang/bench_serving.py) and InferenceX's utils/process_result.py,
so that the Rust recomputation is checked against numpy itself on generated
data. Facts from those sources, not their code: see docs/peers.md.

    python peers_reference.py gen OUTDIR SEED N     write generated result files
    python peers_reference.py tamper IN OUT INDEX DELTA   change ttfts[INDEX] by DELTA,
                                                    print the fields that change
    python peers_reference.py stats                 numpy statistics of JSON arrays on stdin
    python peers_reference.py recompute FILE        recompute a vLLM file's fields (benchmark)
    python peers_reference.py bench-gen FILE N LEN  a vLLM file of N requests of LEN tokens
    python peers_reference.py receipt-fix DIR       restate member sizes/digests, receipt_id
                                                    and receipt.sha256 after an edit
"""
import hashlib
import json
import os
import random
import sys
import time

import numpy as np

PCTS = [50.0, 90.0, 95.0, 99.0]


def pword(p):
    return str(int(p)) if int(p) == p else str(p)


def gen_outputs(rng, n):
    """Per-request outputs like the clients' RequestFuncOutput."""
    outs = []
    t = 1000.0
    fail_rate = rng.choice([0.0, 0.0, 0.05, 0.3, 1.0]) if n else 0.0
    for i in range(n):
        t += rng.expovariate(4.0)
        if rng.random() < fail_rate:
            outs.append(dict(success=False, prompt_len=rng.randint(1, 2048), output_len=0,
                             ttft=0.0, itl=[], latency=0.0, start=t,
                             error=rng.choice(["timeout", "ClientResponseError 500", "x" * 50])))
            continue
        out_len = rng.choice([1, 2, rng.randint(1, 300), rng.randint(100, 1200)])
        ttft = rng.lognormvariate(-2.0, 0.8)
        chunks = max(0, out_len - 1 - rng.randint(0, 3)) if out_len > 1 else 0
        itl = [rng.lognormvariate(-4.0, 0.5) for _ in range(chunks)]
        latency = ttft + sum(itl) + rng.random() * 1e-3
        outs.append(dict(success=True, prompt_len=rng.randint(1, 8192), output_len=out_len,
                         ttft=ttft, itl=itl, latency=latency, start=t, error=""))
    return outs


def stats(values, pcts, prefix, metric, scale=1000):
    v = values or 0
    r = {f"mean_{metric}_ms": np.mean(v) * scale,
         f"median_{metric}_ms": np.median(v) * scale,
         f"std_{metric}_ms": np.std(v) * scale}
    for p in pcts:
        r[f"p{pword(p)}_{metric}_ms"] = np.percentile(v, p) * scale
    return {k: float(x) for k, x in r.items()}


def per_request(outs):
    """Both clients' loop over outputs: successful requests only; TPOT for
    output_len > 1; ITL gaps flattened; failed requests count 0 tokens."""
    ok = [o for o in outs if o["success"]]
    total_input = sum(o["prompt_len"] for o in ok)
    out_lens = [o["output_len"] if o["success"] else 0 for o in outs]
    ttfts = [o["ttft"] for o in ok]
    itls = []
    tpots = []
    for o in ok:
        if o["output_len"] > 1:
            tpots.append((o["latency"] - o["ttft"]) / (o["output_len"] - 1))
        itls += o["itl"]
    return ok, total_input, out_lens, ttfts, itls, tpots


def vllm_result(outs, dur, style):
    """vLLM's calculate_metrics and result dict. style 'new' (vllm bench serve:
    failed, latencies, start_times, e2el) or 'old' (benchmark_serving.py of
    2024: no failed count, no latencies; the fork's "request_goodput:")."""
    ok, total_input, out_lens, ttfts, itls, tpots = per_request(outs)
    e2els = [o["latency"] for o in ok]
    completed = len(ok)
    r = {"date": "20260101-000000", "backend": "vllm", "model_id": "org/model",
         "tokenizer_id": "org/model", "num_prompts": len(outs), "request_rate": 4.0,
         "burstiness": 1.0, "max_concurrency": 64, "duration": dur, "completed": completed}
    if style == "new":
        r["failed"] = len(outs) - completed
    r["total_input_tokens"] = total_input
    r["total_output_tokens"] = sum(out_lens)
    r["request_throughput"] = completed / dur
    r["request_goodput" if style == "new" else "request_goodput:"] = None
    r["output_throughput"] = sum(out_lens) / dur
    r["total_token_throughput"] = (total_input + sum(out_lens)) / dur
    r["input_lens"] = [o["prompt_len"] for o in outs]
    r["output_lens"] = out_lens
    r["ttfts"] = [o["ttft"] for o in outs]
    r["itls"] = [o["itl"] for o in outs]
    if style == "new":
        r["latencies"] = [o["latency"] for o in outs]
        r["start_times"] = [o["start"] for o in outs]
    r["generated_texts"] = ["t" * (o["output_len"] % 7) for o in outs]
    r["errors"] = [o["error"] for o in outs]
    if style == "new":
        r["max_output_tokens_per_s"] = 123.0
        r["max_concurrent_requests"] = 7
    r.update(stats(ttfts, PCTS, "", "ttft"))
    r.update(stats(tpots, PCTS, "", "tpot"))
    r.update(stats(itls, PCTS, "", "itl"))
    if style == "new":
        r.update(stats(e2els, PCTS, "", "e2el"))
    return r


def sglang_result(outs, dur):
    ok, total_input, out_lens, ttfts, itls, tpots = per_request(outs)
    e2e = [o["latency"] for o in ok] or [0.0]
    v = lambda x: x or 0
    r = {"backend": "sglang", "dataset_name": "random", "request_rate": 4.0, "max_concurrency": None,
         "random_input_len": 1024, "random_output_len": 1024, "random_range_ratio": 0.0,
         "duration": dur, "completed": len(ok), "total_input_tokens": total_input,
         "total_output_tokens": sum(out_lens), "total_output_tokens_retokenized": sum(out_lens) - 3,
         "request_throughput": len(ok) / dur, "input_throughput": total_input / dur,
         "output_throughput": sum(out_lens) / dur,
         "mean_e2e_latency_ms": float(np.mean(e2e) * 1000),
         "median_e2e_latency_ms": float(np.median(e2e) * 1000),
         "std_e2e_latency_ms": float(np.std(e2e) * 1000),
         "p99_e2e_latency_ms": float(np.percentile(e2e, 99) * 1000),
         "mean_ttft_ms": float(np.mean(v(ttfts)) * 1000),
         "median_ttft_ms": float(np.median(v(ttfts)) * 1000),
         "std_ttft_ms": float(np.std(v(ttfts)) * 1000),
         "p99_ttft_ms": float(np.percentile(v(ttfts), 99) * 1000),
         "mean_tpot_ms": float(np.mean(v(tpots)) * 1000),
         "median_tpot_ms": float(np.median(v(tpots)) * 1000),
         "std_tpot_ms": float(np.std(v(tpots)) * 1000),
         "p99_tpot_ms": float(np.percentile(v(tpots), 99) * 1000),
         "mean_itl_ms": float(np.mean(v(itls)) * 1000),
         "median_itl_ms": float(np.median(v(itls)) * 1000),
         "std_itl_ms": float(np.std(v(itls)) * 1000),
         "p95_itl_ms": float(np.percentile(v(itls), 95) * 1000),
         "p99_itl_ms": float(np.percentile(v(itls), 99) * 1000),
         "concurrency": float(np.sum(e2e) / dur), "accept_length": None,
         "input_lens": [o["prompt_len"] for o in outs], "output_lens": out_lens,
         "ttfts": [o["ttft"] for o in outs], "itls": [o["itl"] for o in outs],
         "generated_texts": ["" for _ in outs], "errors": [o["error"] for o in outs]}
    return r


def agg_row(raw, tp, newer):
    """utils/process_result.py: 00e51cc (older) or 77f3e68 (newer)."""
    d = {"hw": "h200", "tp": tp, "ep": 1, "dp_attention": "false",
         "conc": int(raw["max_concurrency"]), "model": raw["model_id"], "framework": "vllm",
         "precision": "fp8",
         "tput_per_gpu": float(raw["total_token_throughput"]) / tp,
         "output_tput_per_gpu": float(raw["output_throughput"]) / tp}
    if newer:
        d["is_multinode"] = False
        d["input_tput_per_gpu"] = (float(raw["total_token_throughput"]) - float(raw["output_throughput"])) / tp
    for key, value in raw.items():
        if key.endswith("ms"):
            d[key.replace("_ms", "")] = float(value) / 1000.0
        if "tpot" in key:
            d[key.replace("_ms", "").replace("tpot", "intvty")] = (
                1000.0 / (float(value) + 1e-8) if newer else 1000.0 / float(value))
    return d


def summary_only(r):
    drop = ["input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times",
            "generated_texts", "errors"]
    return {k: v for k, v in r.items() if k not in drop}


def wall(outs):
    """The benchmark's wall time as the clients measure it: from before the
    first send to after the last request finished (plus 0.5 s of setup and
    drain), so that it covers every request (a duration shorter than the
    requests' own span is what results check refutes)."""
    if not outs:
        return 1.0
    return max(o["start"] + o["latency"] for o in outs) - min(o["start"] for o in outs) + 0.5


def gen(outdir, seed, n):
    rng = random.Random(seed)
    os.makedirs(outdir, exist_ok=True)
    outs = gen_outputs(rng, n)
    dur = wall(outs)
    new = vllm_result(outs, dur, "new")
    old = vllm_result(outs, dur, "old")
    with open(os.path.join(outdir, "vllm-new.json"), "w") as f:
        json.dump(new, f)
    with open(os.path.join(outdir, "vllm-old.json"), "w") as f:
        json.dump(old, f)
    with open(os.path.join(outdir, "vllm-summary.json"), "w") as f:
        json.dump(summary_only(new), f)
    with open(os.path.join(outdir, "sglang.jsonl"), "w") as f:
        f.write(json.dumps(sglang_result(outs, dur)) + "\n")
        second = gen_outputs(rng, max(1, n // 3))
        f.write(json.dumps(sglang_result(second, wall(second))) + "\n")
    raw = summary_only(new)
    with open(os.path.join(outdir, "raw.json"), "w") as f:
        json.dump(raw, f)
    with open(os.path.join(outdir, "agg-new.json"), "w") as f:
        json.dump(agg_row(raw, 8, True), f, indent=2)
    # The older rule divides by the TPOT itself (a zero TPOT crashed it).
    if all(v != 0 for k, v in raw.items() if "tpot" in k):
        with open(os.path.join(outdir, "agg-old.json"), "w") as f:
            json.dump(agg_row(raw, 8, False), f, indent=2)


def bench_gen(path, n, out_len, seed=7):
    """A vllm bench serve file of n requests with out_len tokens each
    (scripts/bench-peers.sh): numpy draws the times, vllm_result computes
    the fields."""
    g = np.random.default_rng(seed)
    ttft = g.lognormal(-2.0, 0.8, n)
    itl = g.lognormal(-4.0, 0.5, (n, max(out_len - 1, 0)))
    start = np.cumsum(g.exponential(0.001, n))
    fail = g.random(n) < 0.01
    outs = []
    for i in range(n):
        if fail[i]:
            outs.append(dict(success=False, prompt_len=1024, output_len=0, ttft=0.0, itl=[],
                             latency=0.0, start=float(start[i]), error="timeout"))
        else:
            gaps = itl[i].tolist()
            t = float(ttft[i])
            outs.append(dict(success=True, prompt_len=1024, output_len=out_len, ttft=t, itl=gaps,
                             latency=t + sum(gaps) + 1e-4, start=float(start[i]), error=""))
    r = vllm_result(outs, wall(outs), "new")
    with open(path, "w") as f:
        json.dump(r, f)


def recompute_fields(r, style):
    outs = []
    for i in range(len(r["ttfts"])):
        outs.append(dict(success=r["errors"][i] == "", prompt_len=r["input_lens"][i],
                         output_len=r["output_lens"][i], ttft=r["ttfts"][i], itl=r["itls"][i],
                         latency=r["latencies"][i] if "latencies" in r else 0.0,
                         start=0.0, error=r["errors"][i]))
    return vllm_result(outs, r["duration"], style)


def tamper(src, dst, index, delta):
    r = json.load(open(src))
    style = "new" if "latencies" in r else "old"
    r["ttfts"][index] += delta
    again = recompute_fields(r, style)
    # Affected: changed by more than the stated tolerance (relative 1e-9).
    # Without latencies (the older layout) TPOT cannot be recomputed, so
    # changing a TTFT changes no TPOT field a verifier can check.
    changed = sorted(k for k, v in again.items()
                     if k in r and isinstance(v, float) and not isinstance(r[k], list)
                     and abs(v - r[k]) > 1e-9 * max(abs(v), abs(r[k]))
                     and (style == "new" or "tpot" not in k))
    json.dump(r, open(dst, "w"))
    print(json.dumps(changed))


def receipt_fix(d):
    rec = json.load(open(os.path.join(d, "receipt.json")))
    for a in rec["artifacts"]:
        for m in a["members"]:
            p = os.path.join(d, a["name"], m["path"])
            if os.path.isfile(p) and not os.path.islink(p):
                b = open(p, "rb").read()
                m["size"] = len(b)
                m["sha256"] = hashlib.sha256(b).hexdigest()
    rec.pop("receipt_id")
    canon = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    rec["receipt_id"] = hashlib.sha256(canon.encode()).hexdigest()
    body = json.dumps(rec, indent=2).encode() + b"\n"
    open(os.path.join(d, "receipt.json"), "wb").write(body)
    open(os.path.join(d, "receipt.sha256"), "w").write(hashlib.sha256(body).hexdigest() + "\n")


def main():
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "tamper":
        tamper(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    elif cmd == "stats":
        out = []
        for arr in json.load(sys.stdin):
            a = np.array(arr, dtype=np.float64)
            out.append({"sum": float(np.sum(a)), "mean": float(np.mean(arr or 0)),
                        "std": float(np.std(arr or 0)), "median": float(np.median(arr or 0)),
                        "p": [float(np.percentile(arr or 0, p)) for p in [0.0, 1.0, 33.3, 50.0, 90.0, 99.0, 99.9, 100.0]]})
        json.dump(out, sys.stdout)
    elif cmd == "recompute":
        t0 = time.perf_counter()
        r = json.load(open(sys.argv[2]))
        t1 = time.perf_counter()
        again = recompute_fields(r, "new" if "latencies" in r else "old")
        bad = [k for k, v in again.items() if isinstance(v, float) and k in r
               and not isinstance(r[k], list) and abs(v - r[k]) > 1e-9 * max(abs(v), abs(r[k]))]
        t2 = time.perf_counter()
        print(json.dumps({"load_s": t1 - t0, "recompute_s": t2 - t1, "mismatched": bad}))
    elif cmd == "bench-gen":
        bench_gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "receipt-fix":
        receipt_fix(sys.argv[2])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()

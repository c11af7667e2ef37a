//! The receipt's canonical JSON, as measurement-receipt.ts's `canonical()`
//! writes it (the input of `receipt_id`).

use serde_json::Value;

use crate::strictjson::reject_duplicate_json_keys;

fn js_string(s: &str, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The receipt's canonical JSON (`canonical()` of measurement-receipt.ts):
/// object keys sorted as JavaScript sorts strings (UTF-16 code units), no
/// whitespace, strings as `JSON.stringify` writes them, and only safe
/// integers as numbers.
pub fn canonical(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    canon_into(v, &mut out)?;
    Ok(out)
}

/// [`canonical`] of JSON text (strict: repeated keys refused).
pub fn canonical_bytes(bytes: &[u8]) -> Result<String, String> {
    reject_duplicate_json_keys(bytes).map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    canonical(&v)
}

fn canon_into(v: &Value, out: &mut String) -> Result<(), String> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let safe = n
                .as_i64()
                .filter(|i| i.unsigned_abs() < (1 << 53))
                .map(|i| i.to_string())
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0)
                        .map(|f| format!("{}", f as i64))
                });
            match safe {
                Some(s) => out.push_str(&s),
                None => return Err(format!("receipt numbers must be safe integers; {n} is not")),
            }
        }
        Value::String(s) => js_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canon_into(x, out)?;
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                js_string(k, out);
                out.push(':');
                canon_into(&m[*k], out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

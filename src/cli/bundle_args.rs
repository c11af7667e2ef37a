//! Arguments shared by the bundle-reading verbs (`verify`, `unpack`): the
//! reader's size limits, with the spec's defaults.

use proofpack::bundle::Limits;

/// Parses a byte count with an optional binary suffix (K, M, G, T, with or
/// without "iB"/"B"): `64G`, `16GiB`, `1048576`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a byte count (e.g. 1048576, 64G, 16GiB)"))?;
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "{s:?}: unknown unit {unit:?} (use K, M, G or T, powers of 1024)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// The reader's size limits; defaults are the spec's.
#[derive(clap::Args, Debug, Clone)]
pub struct LimitArgs {
    /// Most uncompressed bytes in total.
    #[arg(long, value_name = "BYTES", default_value = "64GiB", value_parser = parse_bytes)]
    pub max_total_bytes: u64,
    /// Most bytes in one entry.
    #[arg(long, value_name = "BYTES", default_value = "16GiB", value_parser = parse_bytes)]
    pub max_entry_bytes: u64,
    /// Most entries (files and directories).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_entries: u64,
    /// Longest path, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4096)]
    pub max_path_bytes: usize,
    /// Largest PAX header or GNU long-name record.
    #[arg(long, value_name = "BYTES", default_value = "1MiB", value_parser = parse_bytes)]
    pub max_pax_record_bytes: u64,
    /// Decompression bound: in any stretch of the stream, output may be at
    /// most 2 GiB plus this many times the compressed input (honest
    /// evidence compresses 2:1 to 30:1, a bomb of zeros 1000:1).
    #[arg(long, value_name = "N", default_value_t = proofpack::bundle::DEFAULT_MAX_RATIO)]
    pub max_ratio: u64,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            max_total_bytes: self.max_total_bytes,
            max_entry_bytes: self.max_entry_bytes,
            max_entries: self.max_entries,
            max_path_bytes: self.max_path_bytes,
            max_pax_record_bytes: self.max_pax_record_bytes,
            max_ratio: self.max_ratio,
        }
    }
}

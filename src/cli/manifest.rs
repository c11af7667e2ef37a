//! `manifest`, `check` and `diff`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use proofpack::catalog::{CacheSession, Catalog};
use proofpack::manifest::{
    self, BuildOptions, CheckOptions, Format, HashCache, Manifest, ManifestSource,
};
use proofpack::report::{EXIT_FAILED, EXIT_OK};

use super::formats::FormatArg;
use super::junit::JunitArgs;
use super::streamed::StreamedReport;
use super::{human_bytes, human_rate, Ui};

/// Options for walking and hashing.
#[derive(clap::Args, Debug, Clone)]
pub struct WalkArgs {
    /// Leave out paths matching this glob (repeatable). Without '/', the
    /// pattern matches any single path component (`*.tmp`, `.git`); with
    /// '/', the whole relative path (`logs/*.txt`). `*` stops at '/', `**`
    /// does not.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Hashing threads (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Hash every file, neither using nor updating the catalog's hash cache.
    #[arg(long)]
    pub no_cache: bool,
}

impl WalkArgs {
    pub(crate) fn build_options<'a>(&self, cache: Option<&'a dyn HashCache>) -> BuildOptions<'a> {
        BuildOptions {
            excludes: self.exclude.clone(),
            threads: self.threads,
            cache,
        }
    }
}

/// Reads a manifest file given for `flag`: a file of another kind (a
/// trust file, a key, a directory, ...) is named as such, with how a
/// manifest is made.
pub fn read_manifest_arg(path: &Path, flag: &str, format: Option<Format>) -> Result<Manifest> {
    super::filekind::read_as(path, flag, super::filekind::Want::Manifest, || {
        Manifest::read_file(path, format).map(|(m, _)| m)
    })
}

/// Refuses a manifest that lists no file where a model is expected (an
/// empty manifest is a valid file set, but checking a model against it
/// checks nothing, and a signed report of it vouches for nothing).
pub fn require_model(m: Manifest, origin: &str) -> Result<Manifest> {
    if m.is_empty() {
        anyhow::bail!(
            "{origin}: the manifest is empty (it lists no file), so there is nothing to check a model against; build it from the weights directory with `proofpack manifest WEIGHTS_DIR -o FILE`"
        );
    }
    Ok(m)
}

/// [`read_manifest_arg`] and [`require_model`]: the manifest of a model.
pub fn read_model_manifest(path: &Path, flag: &str, format: Option<Format>) -> Result<Manifest> {
    require_model(
        read_manifest_arg(path, flag, format)?,
        &format!("{flag} {}", path.display()),
    )
}

/// A model's manifest file to stream: its first entry is read here,
/// so that an empty manifest is refused as [`require_model`] refuses it; a
/// file that does not stream is read whole by [`read_model_manifest`], which
/// names what it is when it is no manifest.
fn model_manifest_source(
    path: &Path,
    flag: &str,
    format: Option<Format>,
) -> Result<ManifestSource> {
    match manifest::EntryStream::open(path, format).map(|mut s| s.next_entry()) {
        Ok(Ok(Some(_))) => Ok(ManifestSource::File(path.to_path_buf(), format)),
        _ => Ok(ManifestSource::Loaded(Arc::new(read_model_manifest(
            path, flag, format,
        )?))),
    }
}

/// Refuses `-o OUT` inside the tree being hashed, unless an
/// `--exclude` pattern leaves it out: the manifest would list a previous
/// run's output (or a half-written temporary file), and the next `check`
/// would fail on the manifest itself.
fn refuse_output_in_tree(root: &Path, out: &Path, excludes: &[String]) -> Result<()> {
    let (Ok(root_abs), Some(name)) = (std::fs::canonicalize(root), out.file_name()) else {
        return Ok(());
    };
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(parent_abs) = std::fs::canonicalize(parent) else {
        return Ok(());
    };
    let out_abs = parent_abs.join(name);
    if !root_abs.is_dir() {
        if out_abs == root_abs {
            anyhow::bail!(
                "-o {}: is the file being hashed; write the manifest to another file",
                out.display()
            );
        }
        return Ok(());
    }
    let Ok(rel) = out_abs.strip_prefix(&root_abs) else {
        return Ok(());
    };
    let ex = manifest::Excludes::new(excludes)?;
    if rel
        .ancestors()
        .any(|a| !a.as_os_str().is_empty() && ex.is_excluded_path(a))
    {
        return Ok(());
    }
    anyhow::bail!(
        "-o {}: is inside the tree being hashed ({}), so the manifest would list its own output and the next check would fail on it; write it outside the tree, or leave it out with --exclude {:?}",
        out.display(),
        root.display(),
        rel.display().to_string()
    )
}

/// The prefix that names a baseline in the catalog instead of a file.
pub const CATALOG_PREFIX: &str = "catalog:";

/// The baseline name if `p` is written `catalog:NAME`. (A file whose name
/// starts with `catalog:` is reached as `./catalog:...`.)
pub fn catalog_name(p: &Path) -> Option<&str> {
    p.to_str().and_then(|s| s.strip_prefix(CATALOG_PREFIX))
}

/// Opens a hash-cache session for `root` unless `--no-cache`; a catalog
/// problem is a warning and the build goes on without the cache.
fn cache_session<'c>(
    ui: &Ui,
    catalog: Option<&'c Catalog>,
    root: &Path,
    walk: &WalkArgs,
    lookups: bool,
) -> Option<CacheSession<'c>> {
    // A root that cannot be read is the build's error to report, not the cache's.
    if walk.no_cache || std::fs::metadata(root).is_err() {
        return None;
    }
    match catalog?.hash_cache(root, lookups) {
        Ok(s) => Some(s),
        Err(e) => {
            ui.catalog_warning(&e);
            None
        }
    }
}

/// Flushes a cache session and says on stderr what it did.
fn finish_cache(
    ui: &Ui,
    session: Option<CacheSession<'_>>,
    root: Option<&Path>,
) -> Option<proofpack::catalog::CacheStats> {
    let session = session?;
    match session.finish() {
        // A bookkeeping line, not a result: only with -v (in CI logs it
        // would read like a warning).
        Ok(st) if st.looked_up > 0 && ui.verbose => {
            let label = root
                .map(|r| format!(" ({})", r.display()))
                .unwrap_or_default();
            let mut line = format!(
                "cache{label}: {} of {} file digests from the catalog cache, {} newly cached",
                st.hits, st.looked_up, st.stored
            );
            if st.too_recent > 0 {
                line.push_str(&format!(
                    ", {} modified too recently to cache",
                    st.too_recent
                ));
            }
            if st.changed > 0 {
                line.push_str(&format!(
                    ", {} changed while hashed (not cached)",
                    st.changed
                ));
            }
            ui.note(&line);
            Some(st)
        }
        Ok(st) => Some(st),
        Err(e) => {
            ui.catalog_warning(&e);
            None
        }
    }
}

/// The catalog for the hash cache, unless the cache is off.
fn catalog_for_cache(ui: &Ui, walk: &WalkArgs) -> Option<Catalog> {
    if walk.no_cache {
        None
    } else {
        ui.open_catalog_for_write(false)
    }
}

/// `proofpack manifest`
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ManifestArgs {
    /// `manifest merge PARTS... -o OUT`: join the parts of a partitioned
    /// manifest. A directory named `merge` is given as `./merge`.
    #[command(subcommand)]
    pub command: Option<super::partition::ManifestCommand>,
    /// Directory (or single file) to list.
    #[arg(required = true)]
    pub path: Option<PathBuf>,
    /// Hash only part K of N of the files (balanced by size, stable for the
    /// same file list) and write a manifest part; join the parts with
    /// `manifest merge`.
    #[arg(long, value_name = "K/N")]
    pub partition: Option<String>,
    /// Write the manifest here (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "canonical")]
    pub format: FormatArg,
    /// Also store the manifest in the catalog as the baseline NAME, for
    /// `check --manifest catalog:NAME` and `diff catalog:NAME DIR`. An
    /// existing baseline of that name is replaced only with --replace.
    #[arg(long, value_name = "NAME")]
    pub record: Option<String>,
    /// With --record: replace an existing baseline of that name.
    #[arg(long, requires = "record")]
    pub replace: bool,
    #[command(flatten)]
    pub walk: WalkArgs,
}

/// `proofpack check`
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Directory to check.
    pub path: PathBuf,
    /// The manifest to check against (canonical, JSON record or sha256sum;
    /// detected), or catalog:NAME for a baseline recorded in the catalog.
    #[arg(long, value_name = "FILE|catalog:NAME")]
    pub manifest: PathBuf,
    /// Override format detection of --manifest.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub manifest_format: Option<FormatArg>,
    /// Check presence and sizes only, reading no file contents (needs a JSON
    /// record); every safetensors shard's header is still read and checked
    /// (structure, and the header digest the record pins), unless
    /// --no-structure.
    #[arg(long)]
    pub sizes_only: bool,
    /// With --sizes-only: do not read and check the safetensors headers.
    #[arg(long, requires = "sizes_only")]
    pub no_structure: bool,
    /// Rehash every file instead of trusting the hash cache (the cache is
    /// still refreshed unless --no-cache).
    #[arg(long, conflicts_with = "sizes_only")]
    pub full: bool,
    /// Print the verification report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub junit: JunitArgs,
}

/// `proofpack diff`
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The old side: a manifest file (any format), a directory, or catalog:NAME.
    pub old: PathBuf,
    /// The new side: a manifest file (any format), a directory, or catalog:NAME.
    pub new: PathBuf,
    /// Print the report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub walk: WalkArgs,
}

fn summary_line(verb: &str, m: &Manifest, secs: f64) -> String {
    summary_of(
        verb,
        m.len() as u64,
        m.total_bytes().unwrap_or(0),
        &m.digest(),
        secs,
    )
}

fn summary_of(
    verb: &str,
    files: u64,
    bytes: u64,
    digest: &proofpack::digest::Sha256Digest,
    secs: f64,
) -> String {
    format!(
        "{verb}: {files} files, {}, {}, {:.2} s, {}",
        human_bytes(bytes),
        digest.prefixed(),
        secs,
        human_rate(bytes, secs)
    )
}

/// `manifest PATH` without `--record`: the entries are
/// written as they are hashed, in manifest order, to a spill (memory, then
/// an unlinked temporary file), and to the output once the whole tree was
/// listed and hashed; nothing is written when it fails. What is held is one
/// directory's listing and one batch of files, not every entry (`--record`
/// still builds the manifest whole, to store it).
fn manifest_streamed(
    path: &Path,
    output: Option<&Path>,
    format: proofpack::manifest::Format,
    opts: &proofpack::manifest::BuildOptions<'_>,
    ui: &Ui,
) -> Result<proofpack::manifest::Emitted> {
    use proofpack::manifest::{canonical_line, json_entry, json_head, json_tail, Format};
    use std::io::Write as _;
    let progress = ui.bytes_progress("hashing");
    let mut spill = super::streamed::Spill::default();
    let mut i = 0u64;
    let m = manifest::build_each(path, opts, &progress, &mut |e, header| {
        let piece = match format {
            Format::Canonical => canonical_line(e),
            Format::Json => json_entry(i, e, header),
            Format::Sha256sum => proofpack::manifest::sha256sum_line(e),
        };
        i += 1;
        spill.write_all(piece.as_bytes())
    })?;
    let (head, tail) = match format {
        Format::Json => (json_head(&m.digest, m.files, m.bytes), json_tail(m.files)),
        _ => (String::new(), ""),
    };
    super::output::write_parts(output, head.as_bytes(), spill, tail.as_bytes())?;
    Ok(m)
}

pub fn run_manifest(a: ManifestArgs, ui: &Ui) -> Result<i32> {
    if let Some(c) = a.command {
        return super::partition::run(c, ui);
    }
    let Some(path) = a.path.clone() else {
        anyhow::bail!("manifest needs a PATH (or `manifest merge PARTS...`)");
    };
    if let Some(out) = &a.output {
        refuse_output_in_tree(&path, out, &a.walk.exclude)?;
    }
    if let Some(spec) = &a.partition {
        if a.record.is_some() {
            anyhow::bail!("--record takes a whole manifest, not a part; record the merged one");
        }
        return super::partition::run_part(
            &path,
            spec,
            a.output.as_deref(),
            a.walk.build_options(None),
            ui,
        );
    }
    let a = ManifestArgs {
        path: Some(path),
        ..a
    };
    let path = a.path.as_ref().expect("set above");
    if let Some(out) = &a.output {
        super::output::check(out)?;
    }
    let t = Instant::now();
    // --record is asked for: check the name and the catalog before hashing.
    let catalog = match &a.record {
        Some(name) => {
            proofpack::catalog::validate_baseline_name(name)?;
            let c = ui.open_catalog("--record")?;
            if !a.replace {
                c.refuse_existing_baseline(name)?;
            }
            Some(c)
        }
        None => catalog_for_cache(ui, &a.walk),
    };
    let session = cache_session(ui, catalog.as_ref(), path, &a.walk, true);
    if a.record.is_none() {
        let built = manifest_streamed(
            path,
            a.output.as_deref(),
            a.format.into(),
            &a.walk
                .build_options(session.as_ref().map(|s| s as &dyn HashCache)),
            ui,
        );
        let _ = finish_cache(ui, session, None);
        let m = built?;
        ui.note(&summary_of(
            "manifest",
            m.files,
            m.bytes,
            &m.digest,
            t.elapsed().as_secs_f64(),
        ));
        return Ok(EXIT_OK);
    }
    let progress = ui.bytes_progress("hashing");
    let built = manifest::build(
        path,
        &a.walk
            .build_options(session.as_ref().map(|s| s as &dyn HashCache)),
        &progress,
    );
    let _ = finish_cache(ui, session, None);
    let m = built?;
    let text = m.render(a.format.into())?;
    super::output::write_or_stdout(a.output.as_deref(), text.as_bytes())?;
    ui.note(&summary_line("manifest", &m, t.elapsed().as_secs_f64()));
    if let (Some(name), Some(c)) = (&a.record, &catalog) {
        let source = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        let old = c
            .put_baseline(name, &m, &source.display().to_string())
            .with_context(|| format!("recording baseline {name:?} (the manifest above was computed, but not recorded)"))?;
        match old {
            Some(d) if d != m.digest() => ui.note(&format!(
                "baseline {CATALOG_PREFIX}{name} replaced: {} -> {}",
                d.prefixed(),
                m.digest().prefixed()
            )),
            Some(_) => ui.note(&format!(
                "baseline {CATALOG_PREFIX}{name} unchanged: {}",
                m.digest().prefixed()
            )),
            None => ui.note(&format!(
                "baseline {CATALOG_PREFIX}{name} recorded: {}",
                m.digest().prefixed()
            )),
        }
    }
    Ok(EXIT_OK)
}

/// The catalog for a verb whose arguments may name baselines: required
/// (an error if unusable) when one of `args` is `catalog:NAME`, else only
/// for the hash cache when a directory will be hashed (a warning if unusable).
fn catalog_for_args(
    ui: &Ui,
    args: &[&Path],
    walk: &WalkArgs,
    hashes: bool,
) -> Result<Option<Catalog>> {
    if let Some(name) = args.iter().find_map(|p| catalog_name(p)) {
        // A catalog:NAME argument reads the catalog: a missing one is not
        // created, it is an error naming the baseline.
        return match ui.open_existing_catalog(&format!("{CATALOG_PREFIX}{name}"))? {
            Some(c) => Ok(Some(c)),
            None => Err(proofpack::catalog::CatalogError::NoCatalog {
                path: ui.catalog_path().map(Path::to_path_buf).unwrap_or_default(),
                name: name.to_string(),
            }
            .into()),
        };
    }
    Ok(if hashes {
        catalog_for_cache(ui, walk)
    } else {
        None
    })
}

/// Reads the baseline `name` from the catalog opened by [`catalog_for_args`].
fn load_baseline(catalog: Option<&Catalog>, name: &str) -> Result<Manifest> {
    let c = catalog.context("internal: catalog not opened for a catalog:NAME argument")?;
    Ok(c.require_baseline(name)?)
}

/// Loads one side of a comparison: a directory is hashed (with the cache),
/// `catalog:NAME` is a recorded baseline, a file is read as a manifest.
fn load_side(p: &Path, walk: &WalkArgs, ui: &Ui, catalog: Option<&Catalog>) -> Result<Manifest> {
    if let Some(name) = catalog_name(p) {
        return load_baseline(catalog, name);
    }
    let meta = std::fs::metadata(p).with_context(|| format!("cannot read {}", p.display()))?;
    if meta.is_dir() {
        let session = cache_session(ui, catalog, p, walk, true);
        let progress = ui.bytes_progress(&format!("hashing {}", p.display()));
        let built = manifest::build(
            p,
            &walk.build_options(session.as_ref().map(|s| s as &dyn HashCache)),
            &progress,
        );
        let _ = finish_cache(ui, session, Some(p));
        Ok(built?)
    } else {
        Ok(Manifest::read_file(p, None)?.0)
    }
}

pub fn run_check(a: CheckArgs, ui: &Ui) -> Result<i32> {
    let t = Instant::now();
    let junit = a.junit.start()?;
    let origin = a.manifest.display().to_string();
    if catalog_name(&a.manifest).is_some() && a.manifest_format.is_some() {
        anyhow::bail!("--manifest-format does not apply to {origin}: a catalog baseline is read as it was recorded");
    }
    let catalog = catalog_for_args(ui, &[&a.manifest], &a.walk, !a.sizes_only)?;
    // A manifest file is streamed (read whole only when it must be).
    let mut source = match catalog_name(&a.manifest) {
        Some(name) => ManifestSource::Loaded(Arc::new(require_model(
            load_baseline(catalog.as_ref(), name)?,
            &origin,
        )?)),
        None => {
            model_manifest_source(&a.manifest, "--manifest", a.manifest_format.map(Into::into))?
        }
    };
    // The shard headers are what let sizes-only tell swapped shards;
    // a record without their digests is refused, not checked and passed.
    if a.sizes_only && !a.no_structure {
        // Streamed: memory of one entry, whatever the record's size.
        proofpack::manifest::require_header_digests_streamed(&mut source, &origin)?;
    }
    // --sizes-only reads no content, so it has nothing to cache.
    let session = if a.sizes_only {
        None
    } else {
        cache_session(ui, catalog.as_ref(), &a.path, &a.walk, !a.full)
    };
    let opts = CheckOptions {
        build: a
            .walk
            .build_options(session.as_ref().map(|s| s as &dyn HashCache)),
        sizes_only: a.sizes_only,
    };
    warn_collisions(ui, &mut source, &origin);
    let progress = ui.bytes_progress("checking");
    let mut files = (0usize, 0usize);
    let checked = manifest::with_streams(std::slice::from_mut(&mut source), |s| {
        let mut out = StreamedReport::new(a.json);
        let mut failed: Option<std::io::Error> = None;
        files = (0, 0);
        let mut xml = junit.builder();
        let r = manifest::check_streamed(&a.path, &mut s[0], &origin, &opts, &progress, &mut |c| {
            files.1 += 1;
            files.0 += usize::from(c.passed());
            if let Some(x) = &mut xml {
                x.push(&c);
            }
            if let Err(e) = out.push(&c, ui.check_line(&c, "file:").as_deref()) {
                failed.get_or_insert(e);
            }
        });
        r.map(|checked| (checked, out, failed, xml))
    });
    drop(opts);
    let cache = finish_cache(ui, session, None);
    let (checked, mut out, failed, mut xml) = checked?;
    if let Some(e) = failed {
        return Err(anyhow::Error::new(e).context("writing the report to a temporary file"));
    }
    // The launch check reads every shard's header (structure, pinned
    // header digest); the data stays unread.
    let mut shard_failed = 0;
    let shards = if a.sizes_only && !a.no_structure {
        let structure = manifest::structure_check_shards(&a.path, checked.shards);
        let mut n = 0;
        for c in structure.checks() {
            n += usize::from(c.id.starts_with("shard.read:"));
            shard_failed += usize::from(c.failed());
            if let Some(x) = &mut xml {
                x.push(c);
            }
            out.push(c, ui.check_line(c, "file:").as_deref())
                .context("writing the report to a temporary file")?;
        }
        Some(n)
    } else {
        None
    };
    let ok = out.ok();
    let target = format!("{} against {}", a.path.display(), origin);
    if let Some(x) = xml {
        junit.write_built(x, &format!("proofpack check: {target}"))?;
    }
    out.finish(&target, None, &mut std::io::stdout().lock())
        .context("writing to stdout")?;
    let (files_ok, files_all) = files;
    let secs = t.elapsed().as_secs_f64();
    let what = match shards {
        Some(n) => format!("sizes and the headers of {n} safetensors shards"),
        None if a.sizes_only => "sizes".to_string(),
        // Say when the hash cache answered: its digests were not read
        // from the files this run.
        None => match cache {
            Some(st) if st.hits > 0 => format!(
                "contents; {} of {} digests from the catalog's hash cache, unchanged files not read again (--full reads every file)",
                st.hits, st.looked_up
            ),
            _ => "contents".to_string(),
        },
    };
    if ok {
        ui.note(&format!(
            "check: OK, {files_ok} files match {origin} ({what}, {secs:.2} s)"
        ));
    } else {
        let shard_note = if shard_failed > 0 {
            format!(", {shard_failed} shard checks failed")
        } else {
            String::new()
        };
        ui.note(&format!(
            "check: FAILED, {} of {files_all} paths differ from {origin}{shard_note} ({what}, {secs:.2} s)",
            files_all - files_ok
        ));
    }
    Ok(if ok { EXIT_OK } else { EXIT_FAILED })
}

/// One side of `diff`: a directory is hashed (with the cache), `catalog:NAME`
/// is a recorded baseline (both in memory), a manifest file is streamed.
fn diff_side(
    p: &Path,
    walk: &WalkArgs,
    ui: &Ui,
    catalog: Option<&Catalog>,
) -> Result<ManifestSource> {
    let is_file = catalog_name(p).is_none()
        && !std::fs::metadata(p)
            .with_context(|| format!("cannot read {}", p.display()))?
            .is_dir();
    Ok(if is_file {
        // A file that does not stream is read whole (and refused there).
        match manifest::EntryStream::open(p, None).map(|mut s| s.next_entry()) {
            Ok(Ok(_)) => ManifestSource::File(p.to_path_buf(), None),
            _ => ManifestSource::Loaded(Arc::new(Manifest::read_file(p, None)?.0)),
        }
    } else {
        ManifestSource::Loaded(Arc::new(load_side(p, walk, ui, catalog)?))
    })
}

/// Paths of a manifest that are one file on macOS and Windows
/// (equal after Unicode NFC and case folding) are warned about, never
/// failed: a model tree's manifest stays byte-exact.
/// A manifest file is read for this in two passes of its own (see
/// [`manifest::portable::collisions_in_passes`]); one that cannot be read
/// is left to the check or diff, which says why.
fn warn_collisions(ui: &Ui, source: &mut ManifestSource, origin: &str) {
    let Some(pairs) = manifest::portable::collisions_in_passes(|visit| {
        let Ok(mut stream) = source.open() else {
            return false;
        };
        while let Ok(Some(e)) = stream.next_entry() {
            visit(&e.entry.path);
        }
        true
    }) else {
        return;
    };
    for (first, later) in pairs.iter().take(20) {
        ui.warn(&format!(
            "{origin}: {later:?} and {first:?} are one file on macOS and Windows (equal after Unicode NFC and case folding); extracted there, one overwrites the other"
        ));
    }
    if pairs.len() > 20 {
        ui.warn(&format!(
            "{origin}: and {} more names that collide under NFC and case folding",
            pairs.len() - 20
        ));
    }
}

pub fn run_diff(a: DiffArgs, ui: &Ui) -> Result<i32> {
    let hashes = [&a.old, &a.new]
        .iter()
        .any(|p| catalog_name(p).is_none() && p.is_dir());
    let catalog = catalog_for_args(ui, &[&a.old, &a.new], &a.walk, hashes)?;
    let mut sources = [
        diff_side(&a.old, &a.walk, ui, catalog.as_ref())?,
        diff_side(&a.new, &a.walk, ui, catalog.as_ref())?,
    ];
    warn_collisions(ui, &mut sources[0], &a.old.display().to_string());
    warn_collisions(ui, &mut sources[1], &a.new.display().to_string());
    let (done, out, failed) = manifest::with_streams(&mut sources, |s| {
        let (old, new) = s.split_at_mut(1);
        let mut out = StreamedReport::new(a.json);
        let mut failed: Option<std::io::Error> = None;
        let r = manifest::diff_streamed(&mut old[0], &mut new[0], &mut |row| {
            let c = row.check();
            // One shape for every row, as documented: `<kind>: <path>`
            // (the sizes of a changed file are in the JSON detail).
            let line = format!("{}: {}", row.kind(), &c.id["diff:".len()..]);
            if let Err(e) = out.push(&c, Some(&line)) {
                failed.get_or_insert(e);
            }
        });
        r.map(|d| (d, out, failed))
    })?;
    if let Some(e) = failed {
        return Err(anyhow::Error::new(e).context("writing the report to a temporary file"));
    }
    let c = done.counts;
    let first = c.digest_check(&done.old.digest, &done.new.digest);
    let target = format!("{} -> {}", a.old.display(), a.new.display());
    let ok = out.ok() && !first.failed();
    out.finish(&target, Some((first, None)), &mut std::io::stdout().lock())
        .context("writing to stdout")?;
    if c.is_empty() {
        ui.note(&format!(
            "diff: no drift, {} files, {}",
            c.unchanged,
            done.new.digest.prefixed()
        ));
    } else {
        ui.note(&format!(
            "diff: DRIFT, {} added, {} removed, {} changed, {} unchanged ({} -> {})",
            c.added,
            c.removed,
            c.changed,
            c.unchanged,
            done.old.digest.prefixed(),
            done.new.digest.prefixed()
        ));
    }
    Ok(if ok { EXIT_OK } else { EXIT_FAILED })
}

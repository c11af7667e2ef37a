//! What every verb of the command line shares: the global options, the
//! terminal (results on stdout, progress on stderr on a terminal only),
//! and the ways numbers and checks are shown.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use proofpack::catalog::{self as cat, Catalog, CatalogError, SealRecord, VerificationRecord};
use proofpack::progress::Progress;
use proofpack::report::{Check, Report};

/// Flags shared by every verb, listed in `--help` under their own heading
/// after the verb's own flags.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// No progress bars (summaries and results are still printed).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Also list checks that passed.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// The catalog file (default: $PROOFPACK_CATALOG, else
    /// $XDG_DATA_HOME/proofpack/catalog.db, else
    /// ~/.local/share/proofpack/catalog.db).
    #[arg(
        long,
        global = true,
        value_name = "PATH",
        conflicts_with = "no_catalog"
    )]
    pub catalog: Option<PathBuf>,
    /// Use no catalog: record nothing, no hash cache, no catalog:NAME baselines.
    #[arg(long, global = true)]
    pub no_catalog: bool,
}

/// Where the catalog is, as the flags and environment decide.
#[derive(Debug, Clone)]
pub enum CatalogChoice {
    /// `--no-catalog`.
    Disabled,
    /// `--catalog PATH` or the default location.
    At(PathBuf),
    /// No flag and no environment variable gives a location.
    Nowhere,
}

/// Terminal facts and output preferences.
pub struct Ui {
    pub verbose: bool,
    pub color_out: bool,
    pub color_err: bool,
    pub progress: bool,
    pub catalog: CatalogChoice,
}

impl Ui {
    /// The catalog's path is a regular file (a link to one is followed) or
    /// absent: SQLite would open a device, a FIFO or a socket and write its
    /// journal beside it, so such a path is refused before anything is
    /// opened.
    pub fn check_catalog_path(&self) -> anyhow::Result<()> {
        let CatalogChoice::At(p) = &self.catalog else {
            return Ok(());
        };
        match std::fs::metadata(p) {
            Ok(m) if !m.is_file() => anyhow::bail!(
                "--catalog {}: not a regular file (a directory, a device, a FIFO or a socket); the catalog is a file proofpack creates and keeps: name a file path",
                p.display()
            ),
            _ => Ok(()),
        }
    }

    pub fn new(g: &GlobalArgs) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let err_tty = std::io::stderr().is_terminal();
        Ui {
            verbose: g.verbose,
            color_out: !no_color && std::io::stdout().is_terminal(),
            color_err: !no_color && err_tty,
            progress: err_tty && !g.quiet,
            catalog: if g.no_catalog {
                CatalogChoice::Disabled
            } else {
                match g.catalog.clone().or_else(cat::default_path) {
                    Some(p) => CatalogChoice::At(p),
                    None => CatalogChoice::Nowhere,
                }
            },
        }
    }

    /// Opens the catalog for a command that cannot do its job without it
    /// (`catalog ...`, `--record`, `catalog:NAME`): any problem is an error.
    pub fn open_catalog(&self, why: &str) -> anyhow::Result<Catalog> {
        match &self.catalog {
            CatalogChoice::Disabled => anyhow::bail!("{why} needs the catalog, but --no-catalog was given"),
            CatalogChoice::Nowhere => anyhow::bail!(
                "{why} needs the catalog, but there is no location for it: set PROOFPACK_CATALOG or HOME, or pass --catalog PATH"
            ),
            CatalogChoice::At(p) => {
                let opts = cat::OpenOptions {
                    busy_timeout: catalog_busy_timeout(),
                };
                Catalog::open_with(p, &opts).map_err(|e| anyhow::Error::new(e).context(format!("{why} needs the catalog")))
            }
        }
    }

    /// Opens an existing catalog for a verb that reads it (`catalog list`,
    /// `catalog:NAME`): `Ok(None)` when there is no catalog file (nothing is
    /// created); any other problem is an error.
    pub fn open_existing_catalog(&self, why: &str) -> anyhow::Result<Option<Catalog>> {
        match &self.catalog {
            CatalogChoice::At(p) => {
                let opts = cat::OpenOptions {
                    busy_timeout: catalog_busy_timeout(),
                };
                Catalog::open_existing_with(p, &opts)
                    .map_err(|e| anyhow::Error::new(e).context(format!("{why} needs the catalog")))
            }
            _ => self.open_catalog(why).map(Some),
        }
    }

    /// The catalog file in use, if any.
    pub fn catalog_path(&self) -> Option<&std::path::Path> {
        match &self.catalog {
            CatalogChoice::At(p) => Some(p),
            _ => None,
        }
    }

    /// Opens the catalog for bookkeeping that must never change a result
    /// (recording seals and verifications, the hash cache): when it is
    /// disabled this is `None`; when it is unusable (corrupt, locked past the
    /// busy timeout, newer schema, unwritable) a warning says so on stderr
    /// and this is `None`. With `create` false (the read-only verbs
    /// `verify`, `check`, `diff`, `manifest`) a missing catalog file is
    /// `None` as well, silently: a verb that only reads leaves no catalog
    /// behind where there was none.
    pub fn open_catalog_for_write(&self, create: bool) -> Option<Catalog> {
        match &self.catalog {
            CatalogChoice::Disabled => None,
            CatalogChoice::Nowhere if !create => None,
            CatalogChoice::Nowhere => {
                self.warn("no catalog location (PROOFPACK_CATALOG, XDG_DATA_HOME and HOME are unset); running without the catalog");
                None
            }
            CatalogChoice::At(p) => {
                let opts = cat::OpenOptions {
                    busy_timeout: catalog_busy_timeout(),
                };
                let opened = if create {
                    Catalog::open_with(p, &opts).map(Some)
                } else {
                    Catalog::open_existing_with(p, &opts)
                };
                match opened {
                    Ok(c) => c,
                    Err(e) => {
                        self.catalog_warning(&e);
                        None
                    }
                }
            }
        }
    }

    /// Warns that the catalog could not be used; the result stands.
    pub fn catalog_warning(&self, e: &CatalogError) {
        self.warn(&format!(
            "{e}; continuing without the catalog (the result and exit status do not depend on it)"
        ));
    }

    /// Records a seal in the catalog, if there is a usable one; a failure is
    /// a warning and changes nothing else.
    pub fn record_seal(&self, r: &SealRecord) {
        if let Some(c) = self.open_catalog_for_write(true) {
            if let Err(e) = c.record_seal(r) {
                self.catalog_warning(&e);
            }
        }
    }

    /// Records a verification in the catalog, if there is a usable one (an
    /// existing one: `verify` creates none); a failure is a warning and
    /// changes nothing else. The record (the whole report as JSON) is made
    /// only when there is a catalog to write it to.
    pub fn record_verification(&self, make: impl FnOnce() -> VerificationRecord) {
        if let Some(c) = self.open_catalog_for_write(false) {
            if let Err(e) = c.record_verification(&make()) {
                self.catalog_warning(&e);
            }
        }
    }

    /// A warning on stderr.
    pub fn warn(&self, s: &str) {
        let head = self.paint(self.color_err, "33;1", "warning");
        eprintln!("{head}: {s}");
    }

    fn paint(&self, on: bool, code: &str, s: &str) -> String {
        if on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub fn green(&self, s: &str) -> String {
        self.paint(self.color_out, "32", s)
    }
    pub fn red(&self, s: &str) -> String {
        self.paint(self.color_out, "31", s)
    }
    pub fn yellow(&self, s: &str) -> String {
        self.paint(self.color_out, "33", s)
    }

    /// A summary line on stderr.
    pub fn note(&self, s: &str) {
        eprintln!("{s}");
    }

    /// An error that stopped the tool (exit 2).
    pub fn error(&self, e: &anyhow::Error) {
        let head = self.paint(self.color_err, "31;1", "error");
        eprintln!("{head}: {}", error_chain(e));
    }

    /// A byte-counting progress sink: visible only on a terminal, not with
    /// --quiet, and only once the work has taken more than a moment.
    pub fn bytes_progress(&self, what: &str) -> TermProgress {
        TermProgress::new(self.progress, what)
    }

    /// Like [`Ui::bytes_progress`], for a verb that writes files: SIGINT and
    /// SIGTERM no longer kill the process but ask the work to stop, so that
    /// the library removes what it was writing before the verb returns.
    pub fn cancellable_progress(&self, what: &str) -> TermProgress {
        let mut p = TermProgress::new(self.progress, what);
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Registration only fails for forbidden signals; these are not.
            let _ = signal_hook::flag::register(sig, flag.clone());
        }
        p.cancel = Some(flag);
        p
    }

    /// Prints a report's checks as `id: OK` / `id: FAILED (detail)` lines
    /// (only failures and skips unless verbose), `strip` removed from ids.
    pub fn print_checks(&self, report: &Report, strip: &str) {
        for c in report.checks() {
            if let Some(line) = self.check_line(c, strip) {
                println!("{line}");
            }
        }
    }

    /// The line [`Ui::print_checks`] prints for a check, if any.
    pub fn check_line(&self, c: &Check, strip: &str) -> Option<String> {
        let name = c.id.strip_prefix(strip).unwrap_or(&c.id);
        match c.ok() {
            Some(true) if self.verbose => Some(format!("{name}: {}", self.green("OK"))),
            Some(true) => None,
            Some(false) => Some(format!("{name}: {} ({})", self.red("FAILED"), describe(c))),
            None => Some(format!("{name}: {} ({})", self.yellow("SKIPPED"), c.detail)),
        }
    }
}

/// The busy timeout: `PROOFPACK_CATALOG_TIMEOUT_MS` (milliseconds) if set
/// to a number, else the library default (15 s).
fn catalog_busy_timeout() -> Duration {
    std::env::var("PROOFPACK_CATALOG_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .unwrap_or(cat::DEFAULT_BUSY_TIMEOUT)
}

/// An error and its causes on one line, `: `-separated. The library's
/// errors already print their source in their own message (so that they
/// read well alone); a cause whose text is already there is not repeated.
pub fn error_chain(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if msg.contains(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}

/// A check's detail with expected/actual values appended when present.
pub fn describe(c: &Check) -> String {
    match (&c.expected, &c.actual) {
        (Some(e), Some(a)) => format!(
            "{}; expected {}, found {}",
            c.detail,
            short_json(e),
            short_json(a)
        ),
        _ => c.detail.clone(),
    }
}

fn short_json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Human-readable byte count.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// Human-readable rate.
pub fn human_rate(bytes: u64, secs: f64) -> String {
    if secs <= 0.0 {
        return "-".into();
    }
    format!("{}/s", human_bytes((bytes as f64 / secs) as u64))
}

/// indicatif-backed [`Progress`].
pub struct TermProgress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: Mutex<bool>,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl TermProgress {
    fn new(enabled: bool, what: &str) -> Self {
        let bar = enabled.then(|| {
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            b.set_message(what.to_string());
            b
        });
        TermProgress {
            bar,
            started: Instant::now(),
            shown: Mutex::new(false),
            cancel: None,
        }
    }
}

impl Progress for TermProgress {
    fn start(&self, bytes: u64, _items: u64) {
        if let Some(b) = &self.bar {
            b.set_length(bytes);
        }
    }
    fn advance(&self, bytes: u64) {
        if let Some(b) = &self.bar {
            b.inc(bytes);
            if self.started.elapsed() > Duration::from_millis(700) {
                let mut shown = self.shown.lock().expect("progress lock");
                if !*shown {
                    b.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
                    *shown = true;
                }
            }
        }
    }
    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
    fn cancelled(&self) -> bool {
        let c = self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed));
        if c {
            if let Some(b) = &self.bar {
                b.finish_and_clear();
            }
        }
        c
    }
}

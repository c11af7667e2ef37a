//! Command-line front end: argument structs per verb, terminal rendering.
//! Nothing here decides a verdict; it only presents what the library returns.

pub mod attest;
pub mod bundle_args;
pub mod key;
pub mod manifest;
pub mod seal;
pub mod unpack;
pub mod verify;

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use proofpack::progress::Progress;
use proofpack::report::{Check, Report};

/// Flags shared by every verb.
#[derive(clap::Args, Debug, Clone)]
pub struct GlobalArgs {
    /// No progress bars (summaries and results are still printed).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Also list checks that passed.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

/// Terminal facts and output preferences.
pub struct Ui {
    pub verbose: bool,
    pub color_out: bool,
    pub color_err: bool,
    pub progress: bool,
}

impl Ui {
    pub fn new(g: &GlobalArgs) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let err_tty = std::io::stderr().is_terminal();
        Ui {
            verbose: g.verbose,
            color_out: !no_color && std::io::stdout().is_terminal(),
            color_err: !no_color && err_tty,
            progress: err_tty && !g.quiet,
        }
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
        eprintln!("{head}: {e:#}");
    }

    /// A byte-counting progress sink: visible only on a terminal, not with
    /// --quiet, and only once the work has taken more than a moment.
    pub fn bytes_progress(&self, what: &str) -> TermProgress {
        TermProgress::new(self.progress, what)
    }

    /// Prints a report's checks as `id: OK` / `id: FAILED (detail)` lines
    /// (only failures and skips unless verbose), `strip` removed from ids.
    pub fn print_checks(&self, report: &Report, strip: &str) {
        for c in &report.checks {
            let name = c.id.strip_prefix(strip).unwrap_or(&c.id);
            match c.ok {
                Some(true) if self.verbose => println!("{name}: {}", self.green("OK")),
                Some(true) => {}
                Some(false) => println!("{name}: {} ({})", self.red("FAILED"), describe(c)),
                None => println!("{name}: {} ({})", self.yellow("SKIPPED"), c.detail),
            }
        }
    }
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
}

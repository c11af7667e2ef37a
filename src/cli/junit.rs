//! `--junit FILE`, shared by the verbs that print a report
//! (`verify`, `check`, `fleet verify`, `results check`, `receipt verify`):
//! the same report as a JUnit XML file for a CI system's test view. The
//! file is checked before the work starts and written whatever the verdict;
//! the exit status is the verb's own.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use proofpack::report::junit::{Junit, RunInfo};
use proofpack::report::Report;

/// The `--junit` flag.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct JunitArgs {
    /// Also write the report as a JUnit XML file (one testsuite per area,
    /// one testcase per check), whatever the verdict; the exit status is
    /// unchanged.
    #[arg(long, value_name = "FILE.xml")]
    pub junit: Option<PathBuf>,
}

/// A `--junit` output that was checked before the work started.
pub struct JunitOut {
    path: Option<PathBuf>,
    started: Instant,
    timestamp: String,
}

impl JunitArgs {
    /// Refuses, before any work, a `--junit` file that cannot be written
    /// (`-` too: the verb's own output is on stdout); starts the clock.
    pub fn start(&self) -> Result<JunitOut> {
        if let Some(p) = &self.junit {
            super::output::check_file(p, "--junit - would mix the XML with the verb's output")
                .context("--junit")?;
        }
        Ok(JunitOut {
            path: self.junit.clone(),
            started: Instant::now(),
            timestamp: proofpack::timefmt::rfc3339_utc_now(),
        })
    }
}

impl JunitOut {
    /// An empty file to push checks to as they come (`None` without
    /// `--junit`).
    pub fn builder(&self) -> Option<Junit> {
        self.path.as_ref().map(|_| Junit::new())
    }

    /// Writes the file of the checks pushed to `j`, named `name`.
    pub fn write_built(&self, j: Junit, name: &str) -> Result<()> {
        let Some(p) = &self.path else {
            return Ok(());
        };
        let info = RunInfo {
            name: name.to_string(),
            timestamp: Some(self.timestamp.clone()),
            seconds: Some(self.started.elapsed().as_secs_f64()),
        };
        super::output::write(p, j.finish(&info).as_bytes(), 0o644, true)
            .with_context(|| format!("--junit {}", p.display()))
    }

    /// Writes the file of `report`, named `verb` and the report's target.
    pub fn write(&self, report: &Report, verb: &str) -> Result<()> {
        let Some(mut j) = self.builder() else {
            return Ok(());
        };
        for c in report.checks() {
            j.push(c);
        }
        self.write_built(j, &format!("proofpack {verb}: {}", report.target()))
    }
}

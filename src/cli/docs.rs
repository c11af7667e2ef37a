//! `completions` and `man`: shell completions and man pages generated from
//! the clap definitions, so they can never drift from the flags.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::ValueEnum;
use proofpack::report::EXIT_OK;

use super::Ui;

/// Shells for `completions`.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Shell {
    /// bash: `source <(proofpack completions bash)`.
    Bash,
    /// zsh: write to a directory on `$fpath` as `_proofpack`.
    Zsh,
    /// fish: write to `~/.config/fish/completions/proofpack.fish`.
    Fish,
}

/// `proofpack completions`
#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell.
    pub shell: Shell,
}

/// `proofpack man`
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write proofpack.1 and one page per verb (proofpack-verify.1, ...)
    /// into this directory; without it, print proofpack.1.
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

pub fn completions(a: CompletionsArgs, mut cmd: clap::Command) -> Result<i32> {
    let shell = match a.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(shell, &mut cmd, "proofpack", &mut std::io::stdout());
    Ok(EXIT_OK)
}

fn render(cmd: &clap::Command) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut buf)
        .context("rendering a man page")?;
    Ok(buf)
}

/// Every page: the top command, then each verb and sub-verb as
/// `proofpack-<verb>[-<sub>]`.
fn pages(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    out.push((format!("{prefix}.1"), render(cmd)?));
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let name = format!("{prefix}-{}", sub.get_name());
        let sub = sub.clone().name(name.clone());
        pages(&sub, &name, out)?;
    }
    Ok(())
}

pub fn man(a: ManArgs, cmd: clap::Command, ui: &Ui) -> Result<i32> {
    let mut cmd = cmd;
    cmd.build();
    match &a.output {
        None => {
            use std::io::Write as _;
            std::io::stdout().write_all(&render(&cmd)?)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let mut out = Vec::new();
            pages(&cmd, "proofpack", &mut out)?;
            for (name, bytes) in &out {
                proofpack::atomic::write_atomic(&dir.join(name), bytes, 0o644, true)?;
            }
            ui.note(&format!(
                "man: {} pages written to {}",
                out.len(),
                dir.display()
            ));
        }
    }
    Ok(EXIT_OK)
}

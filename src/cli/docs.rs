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

/// One page: clap's NAME, SYNOPSIS, DESCRIPTION, OPTIONS (the verb's own,
/// then GLOBAL OPTIONS) and SUBCOMMANDS, then EXIT STATUS, EXAMPLES and
/// SEE ALSO, then VERSION. `pages` lists every page written, so
/// that SEE ALSO names only pages that exist.
fn render(cmd: &clap::Command, page: &str, pages: &[String]) -> Result<Vec<u8>> {
    use clap_mangen::roff::{bold, roman, Roff};
    let man = clap_mangen::Man::new(cmd.clone());
    let mut buf = Vec::new();
    let w = &mut buf;
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(w)?;
    }
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    roff.text([roman(super::manpages::exit_status(page))]);
    roff.control("SH", ["EXAMPLES"]);
    let examples = super::manpages::examples(page);
    if examples.is_empty() {
        anyhow::bail!("internal: no examples for the man page {page}");
    }
    for (what, command) in examples {
        roff.control("TP", []);
        roff.text([roman(*what)]);
        roff.text([bold(*command)]);
    }
    // SEE ALSO: the parent page and the top page, when they exist.
    let mut see: Vec<String> = Vec::new();
    if let Some((parent, _)) = page.rsplit_once('-') {
        see.push(parent.to_string());
    }
    if page != "proofpack" && !see.iter().any(|p| p == "proofpack") {
        see.push("proofpack".into());
    }
    see.retain(|p| pages.iter().any(|q| q == p));
    if !see.is_empty() {
        roff.control("SH", ["SEE ALSO"]);
        let list: Vec<String> = see.iter().map(|p| format!("{p}(1)")).collect();
        roff.text([roman(list.join(", "))]);
    }
    roff.to_writer(w)?;
    man.render_version_section(w)?;
    Ok(buf)
}

/// Every page: the top command, then each verb and sub-verb as
/// `proofpack-<verb>[-<sub>]`. No `help` pages: the help subcommand is
/// switched off for the pages, so that none refers to a page that is not
/// generated.
fn commands(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
    out.push((prefix.to_string(), cmd.clone()));
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let name = format!("{prefix}-{}", sub.get_name());
        let sub = sub.clone().name(name.clone());
        commands(&sub, &name, out);
    }
}

fn pages(cmd: &clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    let mut cmds = Vec::new();
    commands(cmd, "proofpack", &mut cmds);
    let names: Vec<String> = cmds.iter().map(|(n, _)| n.clone()).collect();
    cmds.iter()
        .map(|(n, c)| Ok((format!("{n}.1"), render(c, n, &names)?)))
        .collect()
}

pub fn man(a: ManArgs, cmd: clap::Command, ui: &Ui) -> Result<i32> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let all = pages(&cmd)?;
    match &a.output {
        None => {
            use std::io::Write as _;
            std::io::stdout().write_all(&all[0].1)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            for (name, bytes) in &all {
                proofpack::atomic::write_atomic(&dir.join(name), bytes, 0o644, true)?;
            }
            ui.note(&format!(
                "man: {} pages written to {}",
                all.len(),
                dir.display()
            ));
        }
    }
    Ok(EXIT_OK)
}

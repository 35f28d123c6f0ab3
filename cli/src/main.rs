//! The `radar` binary: parse arguments, install logging, run.

use clap::Parser;

/// mimalloc in place of glibc's malloc: sled copies a leaf on every insert and frees the
/// old copy, so an import spent a sixth of its time in glibc's allocator; mimalloc's
/// per-thread free lists make that cheap (see bench/README.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = radar_cli::Cli::parse();
    // The terminal reader owns the screen: log lines would draw over it.
    if !matches!(cli.command, radar_cli::Command::Tui(_)) {
        radar_cli::install_logging(&cli.global);
    }
    match radar_cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // The reader closed the pipe (`| head -1`): it has what it wanted.
        Err(e) if radar_cli::output::is_broken_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            let usage = e.downcast_ref::<radar_cli::UsageError>().is_some();
            std::process::ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

//! The `radar` binary: parse arguments, install logging, run.

use clap::Parser;

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

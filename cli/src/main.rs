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
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

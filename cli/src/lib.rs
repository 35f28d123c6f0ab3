//! The `radar` command line: one clap tree whose subcommands are the daemon (`serve`),
//! the terminal reader (`tui`) and the admin commands. Each command group has its own
//! module under `commands/`.

pub mod admin_client;
pub mod commands;
pub mod output;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

/// Radar: a reader of AI news for professionals.
#[derive(Debug, Parser)]
#[command(name = "radar", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Settings shared by every command.
    #[command(flatten)]
    pub global: Global,
}

/// Settings shared by every command.
#[derive(Debug, clap::Args)]
pub struct Global {
    /// Data directory (default: $XDG_DATA_HOME/radar or ~/.local/share/radar).
    #[arg(long, global = true, env = "RADAR_DATA")]
    pub data: Option<PathBuf>,
    /// Keep the data in a shared PostgreSQL database instead of the embedded store in
    /// the data directory: `postgres://USER:PASSWORD@HOST:PORT/DB`, or
    /// `postgres:///DB?host=/socket/dir` over a Unix socket; `&pool_size=N` sets the
    /// connections per process (default 16). `radar serve` keeps only its search
    /// replica in --data; admin commands work on the database directly, with or
    /// without daemons running.
    #[arg(long, global = true, env = "RADAR_STORE", hide_env_values = true,
          value_parser = parse_store_url)]
    pub store: Option<String>,
    /// Log filter, e.g. `info` or `radar_daemon=debug` (also RUST_LOG).
    #[arg(long, global = true, env = "RADAR_LOG")]
    pub log: Option<String>,
    /// Start an empty store if the data directory holds none (serve, add, import and
    /// `users create` start one anyway; other commands refuse a missing store).
    #[arg(long, global = true)]
    pub create: bool,
    /// How long an admin command waits for a running daemon that sends nothing (it sends
    /// a keep-alive byte while it works, so long imports are not cut short): `30s`, `2m`.
    #[arg(long, global = true, env = "RADAR_ADMIN_TIMEOUT", default_value = "30s",
          value_parser = radar_daemon::config::parse_duration)]
    pub admin_timeout: std::time::Duration,
    /// Open the store even when its journal of marks and shares lacks changes it
    /// acknowledged (a journal file deleted or lost): go on with what the store holds.
    /// Without it such a start refuses, naming how many are missing.
    #[arg(long, global = true, env = "RADAR_ACCEPT_JOURNAL_LOSS",
          value_parser = clap::builder::FalseyValueParser::new())]
    pub accept_journal_loss: bool,
}

/// `--store`: a database URL; the embedded store is chosen by leaving it out.
fn parse_store_url(s: &str) -> Result<String, String> {
    if radar_store::is_database_url(s) {
        Ok(s.to_string())
    } else {
        Err(
            "expected a postgres:// URL (leave --store out for the embedded store in --data)"
                .into(),
        )
    }
}

impl Global {
    /// The data directory to use.
    pub fn data_dir(&self) -> PathBuf {
        self.data.clone().unwrap_or_else(default_data_dir)
    }
}

/// A mistake in the command line itself: `main` exits with status 2, as for clap's own.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Whether `data` holds a store (a running daemon always has one there).
fn store_exists(data: &Path) -> bool {
    data.join("db").is_dir()
}

/// The per-user data directory, following the XDG base directory convention.
fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("radar");
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".local/share/radar"),
        None => PathBuf::from(".radar"),
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the daemon: the JSON API, the auth service and the web app.
    Serve(Box<radar_daemon::Config>),
    /// Read the news in the terminal: Feed, Drops and TV mode (needs a running daemon).
    Tui(radar_tui::Args),
    /// Manage accounts (works with or without a running daemon).
    Users(commands::users::Args),
    /// Manage the premium waitlist.
    Waitlist(commands::waitlist::Args),
    /// Grant, revoke and list subscriptions.
    Subscribers(commands::subscribers::Args),
    /// Curate news items: add, import, list, remove.
    Items(commands::items::Args),
    /// Manage RSS, Atom and JSON feeds and fetch them.
    Feeds(commands::feeds::Args),
    /// Generate and manage weekly AI summaries.
    Summaries(commands::summaries::Args),
    /// Read the e-mails the daemon kept (sign-up confirmations, password resets).
    Outbox(commands::outbox::Args),
    /// Move an install between a data directory and a PostgreSQL database (either way),
    /// verified by counts; run it with no daemon on the source.
    Migrate(commands::migrate::Args),
}

/// Logs go to stderr, so stdout stays for results (and `serve`'s address line).
pub fn install_logging(global: &Global) {
    let filter = global
        .log
        .clone()
        .or_else(|| std::env::var("RUST_LOG").ok())
        .unwrap_or_else(|| "info,tower_http=warn".into());
    // Colours only for a person at a terminal: a log file or the journal gets plain text.
    let colours = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_ansi(colours)
        .try_init();
}

impl Command {
    /// Whether the command is one that puts data in a store, so may start a new one. The
    /// others on a directory without a store are refused: a mistyped `--data` would
    /// otherwise answer "no accounts" from an empty store made on the spot.
    fn creates_data(&self) -> bool {
        match self {
            // `migrate` names its own stores and checks them itself.
            Command::Serve(_) | Command::Tui(_) | Command::Migrate(_) => true,
            Command::Users(a) => a.creates_data(),
            Command::Items(a) => a.creates_data(),
            Command::Feeds(a) => a.creates_data(),
            Command::Waitlist(_)
            | Command::Subscribers(_)
            | Command::Summaries(_)
            | Command::Outbox(_) => false,
        }
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let data = cli.global.data_dir();
    if cli.global.store.is_none()
        && !cli.command.creates_data()
        && !cli.global.create
        && !store_exists(&data)
    {
        return Err(UsageError(format!(
            "no Radar store in {}: check --data (or RADAR_DATA); `radar serve` starts one there, \
             or pass --create to start an empty one",
            data.display()
        ))
        .into());
    }
    admin_client::set_silence_limit(cli.global.admin_timeout);
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Command::Serve(config) = &cli.command {
        radar_daemon::memory::tune_allocator();
        radar_daemon::memory::set_release(release_free_memory);
        if let Some(n) = config.workers {
            runtime.worker_threads(n.get());
        }
    }
    let runtime = runtime.enable_all().build()?;
    admin_client::accept_journal_loss(cli.global.accept_journal_loss);
    admin_client::use_database(cli.global.store.clone());
    match cli.command {
        Command::Serve(mut config) => {
            config.data_dir = cli.global.data_dir();
            config.accept_journal_loss = cli.global.accept_journal_loss;
            config.store_url.clone_from(&cli.global.store);
            runtime.block_on(radar_daemon::serve(*config))
        }
        Command::Tui(args) => runtime.block_on(radar_tui::run(args)),
        Command::Users(args) => {
            runtime.block_on(commands::users::run(args, &cli.global.data_dir()))
        }
        Command::Waitlist(args) => {
            runtime.block_on(commands::waitlist::run(args, &cli.global.data_dir()))
        }
        Command::Subscribers(args) => {
            runtime.block_on(commands::subscribers::run(args, &cli.global.data_dir()))
        }
        Command::Items(args) => {
            runtime.block_on(commands::items::run(args, &cli.global.data_dir()))
        }
        Command::Feeds(args) => {
            runtime.block_on(commands::feeds::run(args, &cli.global.data_dir()))
        }
        Command::Summaries(args) => {
            runtime.block_on(commands::summaries::run(args, &cli.global.data_dir()))
        }
        Command::Outbox(args) => {
            runtime.block_on(commands::outbox::run(args, &cli.global.data_dir()))
        }
        Command::Migrate(args) => {
            runtime.block_on(commands::migrate::run(args, cli.global.accept_journal_loss))
        }
    }
}

/// Hands mimalloc's free memory back to the system, abandoned thread heaps included: the
/// binary's allocator (see `main.rs`) keeps freed pages a while, and an idle daemon need
/// not hold a burst's.
fn release_free_memory() {
    // SAFETY: mi_collect only walks mimalloc's own heaps; no pointer is involved.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

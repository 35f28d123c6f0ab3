//! The daemon's settings. Each flag can also come from a `RADAR_*` environment variable;
//! the command line flattens these structs, so a setting is declared once, here.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Everything `radar serve` can be told.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// Address to listen on (port 0 picks a free port, printed at start).
    #[arg(long, env = "RADAR_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,

    /// Do not load the demo data set into an empty store.
    #[arg(long, env = "RADAR_NO_DEMO")]
    pub no_demo: bool,

    /// Public origin of this install, used in e-mailed links and redirects
    /// (default: http://ADDR as bound).
    #[arg(long, env = "RADAR_SITE_URL")]
    pub site_url: Option<url::Url>,

    /// User ids or e-mails always treated as subscribers (comma-separated).
    #[arg(long, env = "RADAR_COMPLIMENTARY", value_delimiter = ',')]
    pub complimentary: Vec<String>,

    /// Threads that answer requests (default: one per core). Password hashing, imports
    /// and the store's writers have threads of their own. On a machine shared with other
    /// busy processes, fewer workers than cores keep the slowest answers fast: a worker
    /// the kernel preempts holds its connections' answers for a whole time slice.
    #[arg(long, env = "RADAR_WORKERS")]
    pub workers: Option<std::num::NonZeroUsize>,

    /// How often, in seconds, due mails are looked for and sent: the alerts' (each alert
    /// mails at most once per its own interval whatever this is) and the weekly summary's.
    #[arg(long = "mail-every", env = "RADAR_MAIL_EVERY", default_value_t = 60)]
    pub mail_every_secs: u64,

    /// Upper bound of the store's page cache, in MiB.
    #[arg(long, env = "RADAR_CACHE_MB", default_value_t = 64)]
    pub cache_mb: u64,

    /// Free disk space the store keeps, in MiB: below it writes are answered 507
    /// `storage_full` (reads go on) until space is freed, and a quarter of it is held in
    /// DATA/reserve for the store to finish its own work when the disk fills. 0 turns
    /// the guard off.
    #[arg(long, env = "RADAR_DISK_RESERVE_MB", default_value_t = 64)]
    pub disk_reserve_mb: u64,

    /// Authentication settings.
    #[command(flatten)]
    pub auth: crate::auth::AuthConfig,

    /// Client connection limits and timeouts.
    #[command(flatten)]
    pub connections: crate::connections::ConnectionConfig,

    /// How many password hashes run and wait at once.
    #[command(flatten)]
    pub passwords: crate::auth::password::PasswordConfig,

    /// Feed polling and the weekly summary schedule.
    #[command(flatten)]
    pub ingest: crate::ingest::IngestConfig,

    /// Payment and subscription settings.
    #[command(flatten)]
    pub payments: crate::payments::PaymentsConfig,

    /// Public news API settings.
    #[command(flatten)]
    pub api: crate::public_api::ApiConfig,

    /// The data directory (set by the command line's global `--data`).
    #[arg(skip)]
    pub data_dir: PathBuf,

    /// Open the store even when its journal lacks acknowledged changes (set by the
    /// command line's global `--accept-journal-loss`).
    #[arg(skip)]
    pub accept_journal_loss: bool,

    /// The shared database to keep the data in, instead of the embedded store in the
    /// data directory (set by the command line's global `--store`). Never logged whole:
    /// see `radar_store::redact_url`.
    #[arg(skip)]
    pub store_url: Option<String>,
}

impl Config {
    /// Settings for tests: a data directory, a free port, no demo data.
    #[cfg(test)]
    pub(crate) fn for_tests(data_dir: PathBuf) -> Self {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            config: Config,
        }
        let mut config =
            Wrapper::parse_from(["radar", "--addr", "127.0.0.1:0", "--no-demo"]).config;
        config.data_dir = data_dir;
        config
    }

    /// The public origin, given the address actually bound.
    pub fn site_url(&self, bound: SocketAddr) -> url::Url {
        self.site_url.clone().unwrap_or_else(|| {
            url::Url::parse(&format!("http://{bound}")).expect("socket address forms a URL")
        })
    }
}

/// Reads a duration setting: humantime's forms (`90s`, `30m`, `2h`, `1d`, `1h 30m`,
/// `250ms`), or a bare number of seconds as earlier versions took. Zero is refused: every
/// duration setting is a wait or a limit that zero would turn into "never" or "at once".
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let parsed = match s.parse::<u64>() {
        Ok(secs) => Duration::from_secs(secs),
        Err(_) => humantime::parse_duration(s)
            .map_err(|e| format!("{s:?} is not a duration such as 30m, 2h or 45s ({e})"))?,
    };
    if parsed.is_zero() {
        return Err("the duration must be more than zero".into());
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_humantime_forms_and_bare_seconds() {
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration(" 45 "), Ok(Duration::from_secs(45)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("0").is_err());
        let wrong = parse_duration("soon").unwrap_err();
        assert!(wrong.contains("\"soon\" is not a duration"), "{wrong}");
        assert!(parse_duration("5 fortnights").is_err());
    }
}

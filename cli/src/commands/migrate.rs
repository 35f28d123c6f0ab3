//! `radar migrate --from SRC --to DST`: moves an install between the engines, a data
//! directory (the embedded store) to a PostgreSQL database or back, and verifies the
//! move by counting every kind of record on both sides (issue 31).
//!
//! It works on the stores directly, never through a daemon: the source must be at rest
//! (a daemon holding a data directory is refused, as sled's lock says), and the target
//! must be empty, so a move never merges two installs. A target data directory is made
//! private (0700, its files 0600) as `radar serve` makes one. What is deliberately not
//! moved is listed in `radar_store::backend::transfer`.

use anyhow::{Context, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use radar_store::backend::transfer::{self, Counts};
use radar_store::{Options, redact_url};

/// `radar migrate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where the install is now: a data directory, or a `postgres://` URL.
    #[arg(long, value_name = "DATA|URL")]
    pub from: String,
    /// Where to move it: a new or empty data directory, or an empty `postgres://`
    /// database (its schema is made here).
    #[arg(long, value_name = "DATA|URL")]
    pub to: String,
}

/// Moves the install, checks the counts and prints them.
pub async fn run(args: Args, accept_journal_loss: bool) -> anyhow::Result<()> {
    let (shown_from, shown_to) = (redact_url(&args.from), redact_url(&args.to));
    if args.from == args.to {
        bail!("--from and --to are the same store ({shown_from}): name another target");
    }
    let opts = Options {
        lock_wait: std::time::Duration::ZERO,
        accept_journal_loss,
        // Trends are the daemon's to serve.
        trends: false,
        ..Options::default()
    };
    let from = open_source(&args.from, &shown_from, &opts).await?;
    let to = transfer::open(&args.to, &opts)
        .await
        .with_context(|| format!("opening the target {shown_to}"))?;
    if transfer::holds_data(&*to).await? {
        bail!(
            "the target {shown_to} already holds data ({} accounts, {} items): `radar migrate` \
             moves an install into an empty store only",
            to.user_count().await?,
            to.item_count().await?
        );
    }
    let now = chrono::Utc::now();
    let source = transfer::count(&*from, now).await?;
    let bar = progress_bar(source.total());
    transfer::copy(&*from, &*to, now, &|n| bar.inc(n))
        .await
        .with_context(|| {
            format!(
                "moving {shown_from} to {shown_to} stopped part way: the target holds part of \
                 the install, so empty it (drop and create the database, or remove the \
                 directory) before running this again"
            )
        })?;
    bar.finish_and_clear();
    let target = transfer::count(&*to, now).await?;
    source
        .check(&target)
        .map_err(|e| anyhow!("{e} (source {shown_from}, target {shown_to})"))?;
    print_counts(&source, &shown_from, &shown_to);
    Ok(())
}

/// Opens the source, which must hold a store: a data directory without one is a
/// mistyped path, and a locked one has a daemon running on it.
async fn open_source(
    location: &str,
    shown: &str,
    opts: &Options,
) -> anyhow::Result<std::sync::Arc<dyn radar_store::backend::Backend>> {
    if !radar_store::is_database_url(location)
        && !std::path::Path::new(location).join("db").is_dir()
    {
        return Err(crate::UsageError(format!(
            "no Radar store in {location}: check --from (a data directory, or a postgres:// URL)"
        ))
        .into());
    }
    match transfer::open(location, opts).await {
        Ok(b) => Ok(b),
        Err(radar_store::Error::Locked(_)) => bail!(
            "the store in {shown} is in use by a running daemon (or another command): stop \
             it first (`radar migrate` moves a store at rest), then run this again"
        ),
        Err(e) => Err(anyhow!(e).context(format!("opening the source {shown}"))),
    }
}

/// A bar over the records to move, on stderr (hidden when stderr is not a terminal).
fn progress_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len).with_message("moving");
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} records {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

fn print_counts(counts: &Counts, from: &str, to: &str) {
    println!("moved {from} to {to}; the target holds the same counts:");
    for (kind, n) in &counts.0 {
        println!("  {kind:<22} {n}");
    }
}

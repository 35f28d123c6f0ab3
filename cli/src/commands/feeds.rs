//! `radar feeds add URL [--name NAME] | list | remove ID | fetch [ID...] | import-opml FILE | export-opml`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use radar_daemon::admin::{AdminRequest, AdminResponse};
use radar_daemon::ingest::FetchReport;

use crate::admin_client;
use crate::output::{Table, cut, json, maybe, out};

/// The RSS, Atom and JSON feeds the daemon polls.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    json: bool,
}

impl Args {
    /// `add` and `import-opml` may start a store (see `crate::Command::creates_data`).
    pub fn creates_data(&self) -> bool {
        matches!(
            self.command,
            Command::Add { .. } | Command::ImportOpml { .. }
        )
    }
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Subscribe to a feed.
    Add {
        /// The feed's URL (http or https).
        url: String,
        /// A display name (default: the feed's own title once fetched).
        #[arg(long)]
        name: Option<String>,
    },
    /// List the feeds: when each was last checked, how that went and when it is checked
    /// next (and why then: the interval, the source's Retry-After or max-age, back-off).
    List,
    /// Unsubscribe from a feed (its items stay).
    Remove {
        /// The feed's id (or URL).
        id: String,
    },
    /// Fetch feeds now: the given ones, or all.
    Fetch {
        /// Feed ids (or URLs); none means every feed.
        ids: Vec<String>,
        /// Give up on a feed after this many seconds (default: the daemon's --feed-timeout, 20 s offline).
        #[arg(long)]
        timeout: Option<u64>,
    },
    /// Subscribe to every feed in an OPML file ('-' for standard input).
    ImportOpml {
        /// The OPML file.
        file: PathBuf,
    },
    /// Print every feed as OPML.
    ExportOpml,
}

/// Runs the command; a fetch where a feed failed reports every feed, then fails (exit 1).
pub async fn run(args: Args, data: &Path) -> anyhow::Result<()> {
    let (req, slow) = match args.command {
        Command::Add { url, name } => (AdminRequest::FeedsAdd { url, name }, false),
        Command::List => (AdminRequest::FeedsList, false),
        Command::Remove { id } => (AdminRequest::FeedsRemove { id }, false),
        Command::Fetch { ids, timeout } => (
            AdminRequest::FeedsFetch {
                ids,
                timeout_secs: timeout,
            },
            true,
        ),
        Command::ImportOpml { file } => {
            let content = if file.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?
            } else {
                std::fs::read_to_string(&file)
                    .with_context(|| format!("cannot read {}", file.display()))?
            };
            (AdminRequest::FeedsImportOpml { content }, false)
        }
        Command::ExportOpml => (AdminRequest::FeedsExportOpml, false),
    };
    let answer = admin_client::run(data, req, slow).await?;
    let (failed, total) = match &answer {
        AdminResponse::Fetch(reports) => (
            reports.iter().filter(|r| r.status == "error").count(),
            reports.len(),
        ),
        _ => (0, 0),
    };
    if args.json {
        json(&answer)?;
    } else {
        print(answer)?;
    }
    if failed > 0 {
        let others = if failed == total {
            ""
        } else {
            "; the others were fetched"
        };
        anyhow::bail!(
            "{failed} feed(s) failed{others}. `radar feeds list` shows each feed's last error"
        );
    }
    Ok(())
}

/// When the daemon polls a feed next, and why when the source decided it (`retry-after`,
/// `max-age`) or failures did (`backoff`); a feed never fetched is polled at once.
fn next_check(f: &radar_store::Feed) -> String {
    match (f.next_due, f.next_due_reason.as_deref()) {
        (None, _) => "now".into(),
        (Some(due), None | Some("interval")) => maybe(Some(due)),
        (Some(due), Some(why)) => format!("{} ({why})", maybe(Some(due))),
    }
}

fn print(answer: AdminResponse) -> anyhow::Result<()> {
    match answer {
        AdminResponse::Feed(f) => out!("added feed {} ({})", f.id, f.url)?,
        AdminResponse::Feeds(feeds) => print_feeds(feeds)?,
        AdminResponse::Removed { id, .. } => out!("removed feed {id} (its items stay)")?,
        AdminResponse::Fetch(reports) if reports.is_empty() => {
            out!("no feeds to fetch; add one with `radar feeds add URL`")?;
        }
        AdminResponse::Fetch(reports) => reports.iter().try_for_each(print_fetch)?,
        AdminResponse::OpmlImport(r) => {
            out!(
                "{} added, {} already subscribed, {} invalid",
                r.added.len(),
                r.existing.len(),
                r.invalid.len()
            )?;
            for f in &r.added {
                out!("added {} ({})", f.id, f.url)?;
            }
            for why in &r.invalid {
                eprintln!("skipped: {why}");
            }
        }
        AdminResponse::Opml(doc) => std::io::stdout().write_all(doc.as_bytes())?,
        other => json(&other)?,
    }
    Ok(())
}

/// `radar feeds list`: one row per feed, with when it was checked and will be next.
fn print_feeds(feeds: Vec<radar_store::Feed>) -> anyhow::Result<()> {
    let mut t = Table::new(&[
        "ID",
        "NAME",
        "LAST CHECKED",
        "NEXT CHECK",
        "ITEMS",
        "STATUS",
        "URL",
    ]);
    for f in feeds {
        let status = match (&f.last_error, f.last_fetched_at) {
            (Some(e), _) => format!("error ({} in a row): {}", f.failures, cut(e, 60)),
            (None, Some(_)) => "ok".into(),
            (None, None) => "not fetched yet".into(),
        };
        let next = next_check(&f);
        t.row(vec![
            f.id,
            cut(f.name.as_deref().unwrap_or("-"), 30),
            maybe(f.last_fetched_at),
            next,
            f.items_added.to_string(),
            status,
            f.url,
        ]);
    }
    t.print("no feeds; add one with `radar feeds add URL`")?;
    Ok(())
}

/// One line of `radar feeds fetch` per feed.
fn print_fetch(r: &FetchReport) -> anyhow::Result<()> {
    // A fetch already running when this one was asked for was waited for.
    let joined = if r.joined {
        " (the fetch already running)"
    } else {
        ""
    };
    match r.status.as_str() {
        "ok" => out!(
            "{}  ok{joined}: {} added, {} updated, {} unchanged{}  {}",
            r.feed_id,
            r.added,
            r.updated,
            r.unchanged,
            if r.invalid > 0 {
                format!(", {} invalid", r.invalid)
            } else {
                String::new()
            },
            r.url
        )?,
        "not_modified" => out!("{}  not modified{joined}  {}", r.feed_id, r.url)?,
        "busy" => out!("{}  skipped: already being fetched  {}", r.feed_id, r.url)?,
        _ => out!(
            "{}  error{joined}: {}  {}",
            r.feed_id,
            r.error.as_deref().unwrap_or("unknown"),
            r.url
        )?,
    }
    Ok(())
}

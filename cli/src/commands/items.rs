//! `radar items add ... | import FILE | list | remove ID | reindex`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::{DateTime, Utc};
use radar_daemon::admin::{AdminRequest, AdminResponse};
use radar_store::NewItem;

use crate::admin_client;
use crate::output::{Table, cut, json, out, when};

/// Curate the news items.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    json: bool,
}

impl Args {
    /// `add` and `import` may start a store (see `crate::Command::creates_data`).
    pub fn creates_data(&self) -> bool {
        matches!(self.command, Command::Add { .. } | Command::Import { .. })
    }
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Add an item, or update the one with the same id or URL.
    Add {
        /// Headline.
        #[arg(long)]
        title: String,
        /// A paragraph or two.
        #[arg(long)]
        summary: String,
        /// Brief text for Drops.
        #[arg(long, default_value = "")]
        short: String,
        /// Full text.
        #[arg(long, default_value = "")]
        content: String,
        /// Link to the original.
        #[arg(long)]
        url: Option<String>,
        /// Publication time: YYYY-MM-DD, YYYY-MM-DD HH:MM (UTC) or RFC 3339; default now.
        #[arg(long, value_parser = super::published_date)]
        published: Option<DateTime<Utc>>,
        /// Update the item with this id (or create it with this id).
        #[arg(long)]
        id: Option<String>,
    },
    /// Import items from a JSON array or JSON Lines file ('-' for standard input).
    ///
    /// Each record has title, summary, published_date and optionally id, short, content
    /// and url. Records with the id or URL of an existing item update it; identical ones
    /// are skipped; invalid ones are reported with their line number.
    Import {
        /// The file.
        file: PathBuf,
    },
    /// List the newest items.
    List {
        /// How many.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Remove an item.
    Remove {
        /// The item's id.
        id: String,
    },
    /// Rebuild the search index from every item.
    ///
    /// Not needed in normal use: every write updates the index, and a missing or damaged
    /// index is rebuilt when the store opens. Searches keep answering meanwhile.
    Reindex,
}

/// Runs the command; an import with invalid records fails (exit 1) after importing the rest.
pub async fn run(args: Args, data: &Path) -> anyhow::Result<()> {
    let (req, slow) = match args.command {
        Command::Add {
            title,
            summary,
            short,
            content,
            url,
            published,
            id,
        } => {
            let item = NewItem {
                source: None,
                id,
                title,
                summary,
                short,
                content,
                url,
                published_date: published.unwrap_or_else(Utc::now),
            };
            (AdminRequest::ItemsAdd { item }, false)
        }
        Command::Import { file } if file.as_os_str() == "-" => {
            let content =
                std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?;
            (AdminRequest::ItemsImport { content }, true)
        }
        Command::Import { file } => {
            // Read as the import goes (see `AdminRequest::ItemsImportFile`); a file that
            // cannot be opened is said before any store is opened or created.
            std::fs::File::open(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            (AdminRequest::ItemsImportFile { path: file }, true)
        }
        Command::List { limit } => (AdminRequest::ItemsList { limit }, false),
        Command::Remove { id } => (AdminRequest::ItemsRemove { id }, false),
        Command::Reindex => (AdminRequest::ItemsReindex, true),
    };
    let answer = admin_client::run(data, req, slow).await?;
    let failed = match &answer {
        AdminResponse::Import(r) if !r.invalid.is_empty() => Some(r.invalid.len()),
        _ => None,
    };
    if args.json {
        json(&answer)?;
    } else {
        print(answer)?;
    }
    if let Some(n) = failed {
        anyhow::bail!(
            "{n} record(s) were invalid and not imported; fix them and import the file again (the rest is idempotent)"
        );
    }
    Ok(())
}

fn print(answer: AdminResponse) -> anyhow::Result<()> {
    match answer {
        AdminResponse::Items(items) => {
            let mut t = Table::new(&["ID", "PUBLISHED", "SOURCE", "TITLE"]);
            for i in items {
                t.row(vec![
                    i.id,
                    when(i.published_date),
                    i.source.unwrap_or_else(|| "-".into()),
                    cut(&i.title, 70),
                ]);
            }
            t.print("no items")?;
        }
        AdminResponse::Item { item, status } => {
            let verb = match status {
                radar_store::ImportStatus::Added => "added",
                radar_store::ImportStatus::Updated => "updated",
                radar_store::ImportStatus::Unchanged => "unchanged",
            };
            out!("{verb} item {}: {}", item.id, item.title)?;
        }
        AdminResponse::Import(r) => {
            out!(
                "{} records: {} added, {} updated, {} skipped (identical), {} invalid",
                r.total,
                r.added,
                r.updated,
                r.skipped,
                r.invalid.len()
            )?;
            for bad in &r.invalid {
                eprintln!("line {}: {}", bad.line, bad.reason);
            }
        }
        AdminResponse::Removed { id, .. } => out!("removed item {id}")?,
        AdminResponse::Reindexed { items, seconds } => {
            out!("search index rebuilt: {items} items in {seconds:.1} s")?;
        }
        other => json(&other)?,
    }
    Ok(())
}

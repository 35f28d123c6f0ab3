//! `radar summaries generate [--week YYYY-Www] [--force] | list | show ID | remove ID`.

use std::path::Path;

use radar_daemon::admin::{AdminRequest, AdminResponse};
use radar_daemon::summarize::week::Week;
use radar_store::WeeklySummary;

use crate::admin_client;
use crate::output::{Table, cut, json, out, when};

/// Weekly AI summaries.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Summarise one ISO week's items (Monday 00:00 to Monday 00:00 UTC).
    ///
    /// Uses the LLM at RADAR_LLM_URL (with RADAR_LLM_MODEL and RADAR_LLM_KEY) when set,
    /// falling back to the local summariser if it fails; otherwise the local one.
    Generate {
        /// The week, e.g. 2026-W47; default: the previous full week.
        #[arg(long, value_parser = iso_week)]
        week: Option<String>,
        /// Replace the week's existing summary.
        #[arg(long)]
        force: bool,
    },
    /// List summaries, newest week first.
    List,
    /// Show one summary in full.
    Show {
        /// Its id (the week, e.g. 2026-W47).
        id: String,
    },
    /// Remove a summary.
    Remove {
        /// Its id.
        id: String,
    },
}

/// `--week`: checked here, so a malformed week is a usage error (exit 2) like any other
/// bad argument, and the daemon receives the canonical `YYYY-Www`.
fn iso_week(s: &str) -> Result<String, String> {
    Week::parse(s).map(|w| w.label())
}

/// Runs the command.
pub async fn run(args: Args, data: &Path) -> anyhow::Result<()> {
    let (req, slow) = match args.command {
        Command::Generate { week, force } => {
            (AdminRequest::SummariesGenerate { week, force }, true)
        }
        Command::List => (AdminRequest::SummariesList, false),
        Command::Show { id } => (AdminRequest::SummariesShow { id }, false),
        Command::Remove { id } => (AdminRequest::SummariesRemove { id }, false),
    };
    let answer = admin_client::run(data, req, slow).await?;
    if let AdminResponse::Generated {
        warning: Some(w), ..
    } = &answer
    {
        eprintln!("warning: {w}");
    }
    if args.json {
        return json(&answer);
    }
    match answer {
        AdminResponse::Summaries(list) => {
            let mut t = Table::new(&["ID", "FROM", "TO", "ARTICLES", "GENERATED", "SUMMARY"]);
            for s in list {
                t.row(vec![
                    s.id,
                    s.start_date.date_naive().to_string(),
                    s.end_date.date_naive().to_string(),
                    s.article_count.to_string(),
                    when(s.generated_date),
                    cut(&s.summary, 60),
                ]);
            }
            t.print("no summaries; write one with `radar summaries generate`")?;
        }
        AdminResponse::Summary(s) => print_summary(&s)?,
        AdminResponse::Generated {
            summary, method, ..
        } => {
            out!(
                "wrote summary {} ({} articles, {} summariser)\n",
                summary.id,
                summary.article_count,
                method
            )?;
            print_summary(&summary)?;
        }
        AdminResponse::Removed { id, .. } => out!("removed summary {id}")?,
        other => json(&other)?,
    }
    Ok(())
}

fn print_summary(s: &WeeklySummary) -> std::io::Result<()> {
    out!("{}", s.title)?;
    out!(
        "{} to {} · {} articles · generated {}",
        s.start_date.date_naive(),
        s.end_date.date_naive(),
        s.article_count,
        when(s.generated_date)
    )?;
    out!()?;
    out!("{}", s.summary)?;
    for p in &s.content {
        out!()?;
        out!("{p}")?;
    }
    Ok(())
}

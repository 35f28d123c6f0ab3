//! `radar waitlist list [--csv] [--all] | approve EMAIL | remove EMAIL`.

use std::path::Path;

use chrono::{DateTime, Utc};
use radar_daemon::admin::{AdminRequest, AdminResponse};

use crate::admin_client;
use crate::output::{Table, json, maybe, out, when};

/// The premium waitlist.
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
    /// List the people waiting, first joiner first.
    List {
        /// Print CSV (email,user_id,joined_at,approved_at).
        #[arg(long, conflicts_with = "json")]
        csv: bool,
        /// Include approved entries (kept with their join and approval dates).
        #[arg(long)]
        all: bool,
    },
    /// Grant the subscription and take the entry off the waiting list (its dates are kept).
    Approve {
        /// The waitlisted account's e-mail.
        email: String,
        /// Last day of the granted subscription (YYYY-MM-DD); default: until revoked.
        #[arg(long, value_parser = super::until_date)]
        until: Option<DateTime<Utc>>,
    },
    /// Remove an entry without granting anything.
    Remove {
        /// The waitlisted account's e-mail.
        email: String,
    },
}

/// Runs the command.
pub async fn run(args: Args, data: &Path) -> anyhow::Result<()> {
    let mut csv = false;
    let req = match args.command {
        Command::List { csv: c, all } => {
            csv = c;
            AdminRequest::WaitlistList { all }
        }
        Command::Approve { email, until } => AdminRequest::WaitlistApprove { email, until },
        Command::Remove { email } => AdminRequest::WaitlistRemove { email },
    };
    let answer = admin_client::run(data, req, false).await?;
    if args.json {
        return json(&answer);
    }
    match answer {
        AdminResponse::Waitlist(entries) if csv => {
            out!("email,user_id,joined_at,approved_at")?;
            for e in entries {
                out!(
                    "{},{},{},{}",
                    csv_field(&e.email),
                    csv_field(&e.user_id),
                    e.joined_at.to_rfc3339(),
                    e.approved_at.map(|t| t.to_rfc3339()).unwrap_or_default()
                )?;
            }
        }
        AdminResponse::Waitlist(entries) => {
            let mut t = Table::new(&["EMAIL", "JOINED", "APPROVED", "USER ID"]);
            for e in entries {
                t.row(vec![
                    e.email,
                    when(e.joined_at),
                    maybe(e.approved_at),
                    e.user_id,
                ]);
            }
            t.print("nobody is waiting")?;
        }
        AdminResponse::WaitlistEntry(e) => match e.approved_at {
            Some(at) => out!(
                "approved {} (joined {}, approved {}); they are a subscriber now",
                e.email,
                when(e.joined_at),
                when(at)
            )?,
            None => out!(
                "removed {} from the waitlist (joined {})",
                e.email,
                when(e.joined_at)
            )?,
        },
        other => json(&other)?,
    }
    Ok(())
}

/// A CSV field, quoted when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

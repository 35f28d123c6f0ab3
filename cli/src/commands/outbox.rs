//! `radar outbox list | show ID`: the e-mails the embedded mailer kept.

use std::path::Path;

use radar_daemon::admin::{AdminRequest, AdminResponse};

use crate::admin_client;
use crate::output::{Table, cut, json, out, when};

/// Read the e-mails the daemon sent or kept (sign-up confirmations, password resets).
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
    /// List kept e-mails, newest first.
    List,
    /// Show one e-mail with its text.
    Show {
        /// The e-mail's id (from `radar outbox list`).
        id: String,
    },
}

/// Runs the command.
pub async fn run(args: Args, data: &Path) -> anyhow::Result<()> {
    let req = match args.command {
        Command::List => AdminRequest::OutboxList,
        Command::Show { id } => AdminRequest::OutboxShow { id },
    };
    let answer = admin_client::run(data, req, false).await?;
    if args.json {
        return json(&answer);
    }
    match answer {
        AdminResponse::Outbox(mails) => {
            let mut t = Table::new(&["ID", "KEPT", "TO", "KIND", "SUBJECT"]);
            for m in mails {
                t.row(vec![
                    m.id,
                    when(m.created_at),
                    m.to,
                    m.kind,
                    cut(&m.subject, 60),
                ]);
            }
            t.print("the outbox is empty")?;
        }
        AdminResponse::Mail(m) => {
            out!("id:      {}", m.id)?;
            out!("kept:    {}", when(m.created_at))?;
            out!("to:      {}", m.to)?;
            out!("kind:    {}", m.kind)?;
            out!("subject: {}", m.subject)?;
            out!()?;
            out!("{}", m.text)?;
        }
        other => json(&other)?,
    }
    Ok(())
}

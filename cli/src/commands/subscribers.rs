//! `radar subscribers list | grant EMAIL [--until DATE] | revoke EMAIL`.

use std::path::Path;

use chrono::{DateTime, Utc};
use radar_daemon::admin::{AdminRequest, AdminResponse};

use crate::admin_client;
use crate::output::{json, out, until};

/// Grant, revoke and list subscriptions.
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
    /// List every subscriber (granted, paying or complimentary).
    List,
    /// Grant a subscription.
    Grant {
        /// The account's e-mail.
        email: String,
        /// Last day of the subscription (YYYY-MM-DD, through the end of that day UTC, or an RFC 3339 time); default: until revoked.
        #[arg(long, value_parser = super::until_date)]
        until: Option<DateTime<Utc>>,
    },
    /// End a subscription (granted or paying).
    Revoke {
        /// The account's e-mail.
        email: String,
    },
}

/// Runs the command.
pub async fn run(args: Args, data: &Path) -> anyhow::Result<()> {
    let req = match args.command {
        Command::List => AdminRequest::SubscribersList,
        Command::Grant { email, until } => AdminRequest::SubscribersGrant { email, until },
        Command::Revoke { email } => AdminRequest::SubscribersRevoke { email },
    };
    let answer = admin_client::run(data, req, false).await?;
    if args.json {
        return json(&answer);
    }
    match answer {
        AdminResponse::Users(users) => super::users::print_users(&users)?,
        AdminResponse::User(u) if u.subscription.is_active => out!(
            "{} is a subscriber{}",
            u.email,
            u.subscription
                .until
                .map_or_else(|| " until revoked".into(), |t| format!(" {}", until(t)))
        )?,
        AdminResponse::User(u) if u.subscriber => out!(
            "revoked the subscription of {}, who stays a subscriber as a complimentary account",
            u.email
        )?,
        AdminResponse::User(u) => out!("{} is no longer a subscriber", u.email)?,
        other => json(&other)?,
    }
    Ok(())
}

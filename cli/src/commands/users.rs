//! `radar users list | show EMAIL | create EMAIL --password-stdin | delete EMAIL`.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};
use radar_daemon::admin::{AdminRequest, AdminResponse, Secret, UserView};

use crate::admin_client;
use crate::output::{Table, json, maybe, out, until, when};

/// Manage accounts.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    json: bool,
}

impl Args {
    /// `users create` may start a store (see `crate::Command::creates_data`).
    pub fn creates_data(&self) -> bool {
        matches!(self.command, Command::Create { .. })
    }
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// List every account.
    List,
    /// Show one account.
    Show {
        /// The account's e-mail.
        email: String,
    },
    /// Create a confirmed account; the password is read from standard input.
    Create {
        /// The new account's e-mail.
        email: String,
        /// Read the password from standard input (required: passwords never go on the command line).
        #[arg(long, required = true)]
        password_stdin: bool,
    },
    /// Delete an account and every record of it (sessions, marks, shares, profile, API key, waitlist entry, e-mails).
    Delete {
        /// The account's e-mail.
        email: String,
    },
}

/// Runs the command.
pub async fn run(args: Args, data: &Path) -> anyhow::Result<()> {
    let req = match args.command {
        Command::List => AdminRequest::UsersList,
        Command::Show { email } => AdminRequest::UsersShow { email },
        Command::Create {
            email,
            password_stdin,
        } => {
            debug_assert!(password_stdin);
            let mut password = String::new();
            std::io::stdin()
                .read_to_string(&mut password)
                .context("cannot read the password from standard input")?;
            let password = password.trim_end_matches(['\r', '\n']).to_string();
            if password.is_empty() {
                bail!(
                    "no password on standard input; pipe it in, e.g. `printf %s \"$PW\" | radar users create EMAIL --password-stdin`"
                );
            }
            AdminRequest::UsersCreate {
                email,
                password: Secret(password),
            }
        }
        Command::Delete { email } => AdminRequest::UsersDelete { email },
    };
    let answer = admin_client::run(data, req, false).await?;
    if args.json {
        return json(&answer);
    }
    match answer {
        AdminResponse::Users(users) => print_users(&users)?,
        AdminResponse::User(u) => print_user(&u)?,
        AdminResponse::Removed { id, .. } => out!("deleted {id} and every record of it")?,
        other => json(&other)?,
    }
    Ok(())
}

/// A table of accounts (also used by `subscribers list`).
pub fn print_users(users: &[UserView]) -> std::io::Result<()> {
    let mut t = Table::new(&[
        "EMAIL",
        "SUBSCRIBER",
        "ENDS",
        "CREATED",
        "LAST SIGN-IN",
        "ID",
    ]);
    for u in users {
        t.row(vec![
            u.email.clone(),
            if u.subscriber {
                "yes".into()
            } else {
                "no".into()
            },
            u.subscription.until.map_or_else(|| "-".to_string(), until),
            when(u.created_at),
            maybe(u.last_sign_in_at),
            u.id.clone(),
        ]);
    }
    t.print("no accounts")
}

/// One account, a field per line.
pub fn print_user(u: &UserView) -> std::io::Result<()> {
    out!("email:         {}", u.email)?;
    out!("id:            {}", u.id)?;
    out!("created:       {}", when(u.created_at))?;
    out!("confirmed:     {}", maybe(u.email_confirmed_at))?;
    out!("last sign-in:  {}", maybe(u.last_sign_in_at))?;
    out!("subscriber:    {}", if u.subscriber { "yes" } else { "no" })?;
    let s = &u.subscription;
    out!(
        "subscription:  {}{}{}",
        if s.is_active { "active" } else { "inactive" },
        s.until
            .map(|t| format!(", {}", until(t)))
            .unwrap_or_default(),
        s.customer_id
            .as_deref()
            .map(|c| format!(", customer {c}"))
            .unwrap_or_default()
    )
}

//! Radar's terminal reader, `radar tui`: Feed, Drops and TV mode, and once signed in
//! Favs, Read, Trash and Shared, over the daemon's HTTP API (docs/product.md §2 and §4).
//!
//! The shape follows the usual ratatui application: [`app::App`] holds the state and
//! changes only in [`app::App::update`], one match over [`app::Action`]s (keys, ticks,
//! answers); [`ui::render`] draws it and never waits; HTTP calls run in spawned tasks
//! ([`runtime`]) that send their answer back as an action. Every text is in [`strings`].
//!
//! Decisions where docs/product.md leaves room, for this client:
//! - TV mode is a view of its own (key 3) rather than a button of Drops; Esc leaves it
//!   for Drops, as the web app's Exit TV Mode does.
//! - Marks need an account: a signed-out reader pressing f, r or x is asked to sign in.
//! - Drops and TV mode show the feed as it was when the view opened, so marking the
//!   story under the reader read does not move it away (the web app does the same).
//! - A sign-out that the server cannot confirm keeps the session (the reader can retry);
//!   one the server answers 401 to counts as done.
//! - The TV gauge shows the time until the next story; 'n of m' gives the position.
//! - Links open with `$BROWSER` (a `:`-separated list of commands with arguments, `%u`
//!   for the URL; [`browser`]), else `xdg-open` (`open` on macOS). Share (`s`) opens
//!   the LinkedIn share link (URL, title, the first 100 characters of the summary) and,
//!   when signed in, records the share.
//! - An answer that no Radar server gives (a web page, JSON of another shape) is named
//!   by what answered (request, status, content type) and what Radar answers; its body
//!   is never shown ([`api`]).
//! - Keys can be changed in `keys.toml` next to the session ([`keyfile`]); a file with
//!   a mistake is refused with every problem and its line, and the reader does not start.
//! - The session file holds the auth service's session answer as JSON with the origin of
//!   the server that gave it (mode 0600, in a 0700 directory of that origin's own, with
//!   its waiting marks: [`session`]); it is refreshed within a quarter of the token's lifetime (at most
//!   a minute) of expiry, and at once after a 401, whose mark change is then sent again.
//!   A refresh the server refuses ends the session; one that gets no answer is retried
//!   after 30 s.
//! - Favs, Read, Trash and Shared reload in the background when opened; after mark
//!   changes settle, the matching list is fetched again (docs/product.md §7), except after a
//!   failure, when the local change stays (docs/product.md §8).
//! - A panic restores the terminal, prints the message and ends the process with 101,
//!   also when it happens in a spawned task.

pub mod api;
pub mod app;
pub mod browser;
pub mod drops;
pub mod format;
pub mod keyfile;
pub mod keys;
pub mod load;
pub mod marks;
pub mod pending;
#[cfg(test)]
mod render_tests;
pub mod runtime;
pub mod search;
pub mod session;
pub mod strings;
pub mod terminal;
#[cfg(test)]
mod testing;
pub mod theme;
pub mod tv;
pub mod ui;
pub mod widgets;

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::app::{Action, App};

/// `radar tui`'s arguments.
///
/// The session is kept per server in
/// `$RADAR_CONFIG_DIR/servers/<scheme>_<host>_<port>/session.json` (default
/// `$XDG_CONFIG_HOME/radar` or `~/.config/radar`); links open with `$BROWSER`;
/// `NO_COLOR` turns colours off. Press `?` in the reader for its keys; change them in
/// `keys.toml` in the config directory.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "Each server's session is kept in \
    $RADAR_CONFIG_DIR/servers/<scheme>_<host>_<port>/session.json (default \
    $XDG_CONFIG_HOME/radar or ~/.config/radar) and sent to that server only. Links open \
    with $BROWSER (else xdg-open). NO_COLOR turns colours off. Press ? in the reader for \
    its keys; change them in keys.toml in $RADAR_CONFIG_DIR (see the README).")]
pub struct Args {
    /// Address of the Radar daemon.
    #[arg(long, env = "RADAR_SERVER", default_value = "http://127.0.0.1:8080")]
    pub server: String,
    /// Seconds between re-reads of the subscription and retries of waiting marks
    /// (for tests; 30 by default).
    #[arg(long, env = "RADAR_TUI_RECHECK_SECS", default_value_t = 30, hide = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub recheck_secs: u64,
}

/// How often time moves on screen (TV countdown, status expiry).
const TICK: Duration = Duration::from_millis(250);

/// Puts back the marks that were waiting for the server when the reader last stopped;
/// answers the warning to show when their file could not be read. Such a file is kept
/// aside, not overwritten by the next mark: nothing is lost silently.
fn restore_pending(app: &mut App, file: &pending::PendingFile) -> Option<String> {
    match file.load() {
        Ok(pending) => {
            app.pending = pending;
            None
        }
        Err(e) => {
            let aside = file.path().with_extension("json.damaged");
            let _ = std::fs::rename(file.path(), &aside);
            Some(strings::pending_unreadable(
                &aside.display().to_string(),
                &e.to_string(),
            ))
        }
    }
}

/// Runs the reader until the user quits.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let server = url::Url::parse(&args.server).ok();
    if !server.is_some_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some()) {
        anyhow::bail!(
            "--server {:?} is not an http(s) URL; for example http://127.0.0.1:8080",
            args.server
        );
    }
    let origin = session::Origin::of(&args.server)
        .ok_or_else(|| anyhow::anyhow!("--server {:?} has no origin", args.server))?;
    let api = Arc::new(api::Api::new(&args.server)?);
    let config = session::config_dir();
    // A bad key file stops the reader before it takes the terminal, so the message stays.
    let keys = keyfile::load(config.as_deref())?;
    if let Some(config) = &config {
        session::retire_unkeyed(config);
    }
    // Only this server's session and marks: a token is never sent to another origin.
    let session_file = config
        .as_deref()
        .map(|c| session::SessionFile::of(c, &origin));
    let pending_file = config
        .as_deref()
        .map(|c| pending::PendingFile::of(c, &origin));
    let saved = session_file.as_ref().and_then(session::SessionFile::load);
    let mut app = App::new(&args.server, saved, theme::Theme::from_env());
    app.keys = keys;
    app.recheck_every = Duration::from_secs(args.recheck_secs);
    let unreadable = pending_file
        .as_ref()
        .and_then(|f| restore_pending(&mut app, f));
    app.start();
    if let Some(text) = unreadable {
        app.warn(text, Instant::now());
    }

    let (tx, mut rx) = mpsc::unbounded_channel();
    let runtime = runtime::Runtime {
        api,
        session_file,
        pending_file,
        tx: tx.clone(),
    };
    let (mut terminal, _restore) = terminal::init()?;
    let size = terminal.size()?;
    app.update(Action::Resize(size.width, size.height), Instant::now());
    terminal::spawn_input(tx, app.keys.has_alt());
    if std::env::var_os("RADAR_TUI_TEST_PANIC").is_some() {
        // For the end-to-end test of the panic hook: a task panics after the first frame.
        tokio::spawn(async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            panic!("RADAR_TUI_TEST_PANIC is set");
        });
    }
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);

    loop {
        if runtime.run(&mut app) {
            terminal::suspend(&mut terminal)?;
        }
        if app.quit {
            break;
        }
        terminal::draw(&mut terminal, |frame| ui::render(frame, &app))?;
        let first = tokio::select! {
            Some(action) = rx.recv() => action,
            _ = tick.tick() => Action::Tick,
        };
        app.clock = chrono::Utc::now();
        app.update(first, Instant::now());
        // Apply whatever else is waiting before drawing again: one frame per burst.
        while let Ok(action) = rx.try_recv() {
            app.update(action, Instant::now());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_file_of_waiting_marks_is_kept_aside_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let origin = session::Origin::of("http://127.0.0.1:8080").unwrap();
        let file = pending::PendingFile::of(dir.path(), &origin);
        std::fs::create_dir_all(file.path().parent().unwrap()).unwrap();
        std::fs::write(file.path(), "{ not json").unwrap();
        let mut app = App::new("http://127.0.0.1:8080", None, theme::Theme { color: false });
        let warning = restore_pending(&mut app, &file).expect("a warning");
        let aside = file.path().with_extension("json.damaged");
        assert!(warning.contains(&aside.display().to_string()), "{warning}");
        assert_eq!(std::fs::read_to_string(&aside).unwrap(), "{ not json");
        assert!(!file.path().exists());
    }
}

//! The reader's keys: one table ([`TABLE`]) says, for each place the reader can be in,
//! which command each key runs and how the help overlay describes it. Key handling
//! ([`KeyMap::command`]) and the help ([`KeyMap::help`]) both read it, so they cannot
//! disagree. Commands and contexts carry names and keys parse from text so that
//! `keys.toml` ([`crate::keyfile`]) can change them.

use std::collections::BTreeMap;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a key is pressed: each has its own keys, and [`Context::Global`]'s apply in every
/// view and over search results (not in the reader, whose `q` goes back, nor in the
/// search prompt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Context {
    /// Every view.
    Global,
    /// Feed, Favs, Read, Trash and Shared.
    List,
    /// The results of a search, over any view.
    Search,
    /// Drops.
    Drops,
    /// TV mode.
    Tv,
    /// The full-text reader.
    Reader,
    /// The help overlay.
    Help,
}

impl Context {
    /// Every context, in the order the help lists them.
    pub const ALL: [Context; 7] = [
        Context::Global,
        Context::List,
        Context::Search,
        Context::Drops,
        Context::Tv,
        Context::Reader,
        Context::Help,
    ];

    /// The section name in `keys.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Context::Global => "global",
            Context::List => "list",
            Context::Search => "search",
            Context::Drops => "drops",
            Context::Tv => "tv",
            Context::Reader => "reader",
            Context::Help => "help",
        }
    }

    /// The context whose section in `keys.toml` is called `name`.
    pub fn from_name(name: &str) -> Option<Context> {
        Context::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The commands the table has in this context, in its order.
    pub fn commands(self) -> Vec<Command> {
        TABLE
            .iter()
            .filter(|b| b.context == self)
            .map(|b| b.command)
            .collect()
    }

    /// The heading of the context's part of the help.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::List => "Lists (Feed, Favs, Read, Trash, Shared)",
            Context::Search => "Search results",
            Context::Drops => "Drops",
            Context::Tv => "TV mode",
            Context::Reader => "Reader",
            Context::Help => "This help",
        }
    }
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Command {
    /// Leave the reader.
    Quit,
    /// Show the keys.
    Help,
    /// Open view n (1-8).
    View(u8),
    /// The next tab.
    NextView,
    /// The previous tab.
    PreviousView,
    /// Load the view again.
    Reload,
    /// Sign in, or say who is signed in.
    SignIn,
    /// Sign out.
    SignOut,
    /// Suspend to the shell (Ctrl-Z).
    Suspend,
    /// Search (the server's full-text search).
    Search,
    /// The next search result.
    NextMatch,
    /// The previous search result.
    PreviousMatch,
    /// Open the subscribe page.
    Subscribe,
    /// Close, go back, clear the message.
    Back,
    /// Move down a row / scroll down a line / next story.
    Down,
    /// Move up a row / scroll up a line / previous story.
    Up,
    /// A page down.
    PageDown,
    /// A page up.
    PageUp,
    /// The first row / the top.
    Top,
    /// The last row / the bottom.
    Bottom,
    /// The next unread item.
    NextUnread,
    /// The previous unread item.
    PreviousUnread,
    /// Read the item's full text.
    Read,
    /// Open the source in the browser.
    OpenSource,
    /// Favourite / unfavourite.
    Favorite,
    /// Mark read / unread.
    MarkRead,
    /// Hide (move to Trash).
    Hide,
    /// Restore from Trash.
    Restore,
    /// Share on LinkedIn.
    Share,
    /// Read More (the next page of the feed).
    More,
    /// Mark the whole feed as read (one cut-off on the server).
    MarkFeedRead,
    /// Put back the cut-off the last [`Command::MarkFeedRead`] moved.
    UndoMarkFeedRead,
    /// Key takeaways.
    Takeaways,
    /// Trends: what rose and fell this week.
    Trends,
    /// Drops: the next story.
    NextStory,
    /// TV: pause or resume.
    Pause,
    /// TV: the next interval.
    Interval,
}

impl Command {
    /// The name in `keys.toml`.
    pub fn name(self) -> String {
        let fixed = match self {
            Command::View(n) => return format!("view_{n}"),
            Command::Quit => "quit",
            Command::Help => "help",
            Command::NextView => "next_view",
            Command::PreviousView => "previous_view",
            Command::Reload => "reload",
            Command::SignIn => "sign_in",
            Command::SignOut => "sign_out",
            Command::Suspend => "suspend",
            Command::Search => "search",
            Command::NextMatch => "next_match",
            Command::PreviousMatch => "previous_match",
            Command::Subscribe => "subscribe",
            Command::Back => "back",
            Command::Down => "down",
            Command::Up => "up",
            Command::PageDown => "page_down",
            Command::PageUp => "page_up",
            Command::Top => "top",
            Command::Bottom => "bottom",
            Command::NextUnread => "next_unread",
            Command::PreviousUnread => "previous_unread",
            Command::Read => "read",
            Command::OpenSource => "open",
            Command::Favorite => "favorite",
            Command::MarkRead => "mark_read",
            Command::Hide => "hide",
            Command::Restore => "restore",
            Command::Share => "share",
            Command::More => "more",
            Command::MarkFeedRead => "mark_feed_read",
            Command::UndoMarkFeedRead => "undo_mark_feed_read",
            Command::Takeaways => "takeaways",
            Command::Trends => "trends",
            Command::NextStory => "next_story",
            Command::Pause => "pause",
            Command::Interval => "interval",
        };
        fixed.to_string()
    }

    /// The command called `name` in `keys.toml`.
    pub fn from_name(name: &str) -> Option<Command> {
        TABLE.iter().map(|b| b.command).find(|c| c.name() == name)
    }
}

/// One row of the table: in `context`, `keys` run `command`; `help` describes it.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// Where.
    pub context: Context,
    /// What.
    pub command: Command,
    /// The default keys, as written in `keys.toml` (see [`parse_key`]).
    pub keys: &'static [&'static str],
    /// The help text.
    pub help: &'static str,
}

const fn bind(
    context: Context,
    command: Command,
    keys: &'static [&'static str],
    help: &'static str,
) -> Binding {
    Binding {
        context,
        command,
        keys,
        help,
    }
}

use Command as C;
use Context as X;

/// Every key of the reader, in the order the help lists them.
pub const TABLE: &[Binding] = &[
    bind(X::Global, C::View(1), &["1"], "Feed"),
    bind(X::Global, C::View(2), &["2"], "Drops"),
    bind(X::Global, C::View(3), &["3"], "TV mode"),
    bind(X::Global, C::View(4), &["4"], "Favs"),
    bind(X::Global, C::View(5), &["5"], "Read"),
    bind(X::Global, C::View(6), &["6"], "Trash"),
    bind(X::Global, C::View(7), &["7"], "Shared"),
    bind(X::Global, C::View(8), &["8"], "Alerts"),
    bind(X::Global, C::NextView, &["Tab", "l", "Right"], "next view"),
    bind(
        X::Global,
        C::PreviousView,
        &["BackTab", "h", "Left"],
        "previous view",
    ),
    bind(
        X::Global,
        C::Reload,
        &["r", "R", "F5"],
        "reload / try again",
    ),
    bind(
        X::Global,
        C::Search,
        &["/"],
        "search every item (signed in)",
    ),
    bind(
        X::Global,
        C::SignIn,
        &["i"],
        "sign in (or who is signed in)",
    ),
    bind(X::Global, C::SignOut, &["O"], "sign out"),
    bind(
        X::Global,
        C::Trends,
        &["T"],
        "trends: rising and falling this week (signed in)",
    ),
    bind(
        X::Global,
        C::Subscribe,
        &["S"],
        "Subscribe Now (opens the page)",
    ),
    bind(X::Global, C::Suspend, &["Ctrl-z"], "suspend to the shell"),
    bind(X::Global, C::Help, &["?"], "this help"),
    bind(X::Global, C::Back, &["Esc"], "close / back"),
    bind(X::Global, C::Quit, &["q", "Ctrl-c"], "quit"),
    bind(X::List, C::Down, &["j", "Down"], "next story"),
    bind(X::List, C::Up, &["k", "Up"], "previous story"),
    bind(X::List, C::PageDown, &["PageDown", "Space"], "a page down"),
    bind(X::List, C::PageUp, &["PageUp"], "a page up"),
    bind(X::List, C::Top, &["g", "Home"], "first story"),
    bind(X::List, C::Bottom, &["G", "End"], "last story"),
    bind(X::List, C::NextUnread, &["J"], "next unread"),
    bind(X::List, C::PreviousUnread, &["K"], "previous unread"),
    bind(X::List, C::Read, &["Enter"], "read the story in the reader"),
    bind(
        X::List,
        C::OpenSource,
        &["o"],
        "open the source in the browser",
    ),
    bind(X::List, C::Favorite, &["f"], "favourite / unfavourite"),
    bind(X::List, C::MarkRead, &["m"], "mark read / unread"),
    bind(X::List, C::Hide, &["x"], "hide (Trash: restore)"),
    bind(X::List, C::Restore, &["u"], "restore from Trash"),
    bind(X::List, C::Share, &["s"], "share on LinkedIn"),
    bind(X::List, C::More, &["M"], "Read More (subscribers)"),
    bind(
        X::List,
        C::MarkFeedRead,
        &["A"],
        "mark the feed as read (Feed)",
    ),
    bind(
        X::List,
        C::UndoMarkFeedRead,
        &["U"],
        "undo marking the feed as read",
    ),
    bind(
        X::List,
        C::Takeaways,
        &["t"],
        "key takeaways (Feed, subscribers)",
    ),
    bind(X::Search, C::NextMatch, &["n"], "next result (pages on)"),
    bind(X::Search, C::PreviousMatch, &["N"], "previous result"),
    bind(X::Search, C::Down, &["j", "Down"], "next result"),
    bind(X::Search, C::Up, &["k", "Up"], "previous result"),
    bind(
        X::Search,
        C::PageDown,
        &["PageDown", "Space"],
        "a page down",
    ),
    bind(X::Search, C::PageUp, &["PageUp"], "a page up"),
    bind(X::Search, C::Top, &["g", "Home"], "first result"),
    bind(X::Search, C::Bottom, &["G", "End"], "last result"),
    bind(X::Search, C::NextUnread, &["J"], "next unread"),
    bind(X::Search, C::PreviousUnread, &["K"], "previous unread"),
    bind(X::Search, C::Read, &["Enter"], "read the full text"),
    bind(X::Search, C::OpenSource, &["o"], "open the source"),
    bind(X::Search, C::Favorite, &["f"], "favourite / unfavourite"),
    bind(X::Search, C::MarkRead, &["m"], "mark read / unread"),
    bind(X::Search, C::Hide, &["x"], "hide"),
    bind(X::Search, C::Share, &["s"], "share on LinkedIn"),
    bind(X::Search, C::More, &["M"], "more results (subscribers)"),
    bind(X::Search, C::Back, &["Esc"], "leave the search"),
    bind(
        X::Drops,
        C::NextStory,
        &["Space", "j", "Down"],
        "next story",
    ),
    bind(X::Drops, C::Up, &["k", "Up"], "previous story"),
    bind(
        X::Drops,
        C::Read,
        &["Enter"],
        "read the full text (paywall: Subscribe Now)",
    ),
    bind(X::Drops, C::OpenSource, &["o"], "open the source"),
    bind(X::Drops, C::MarkRead, &["m"], "mark read / unread"),
    bind(X::Drops, C::Share, &["s"], "share on LinkedIn"),
    bind(X::Tv, C::Pause, &["Space"], "pause / resume"),
    bind(
        X::Tv,
        C::Interval,
        &["t"],
        "next interval (10, 15, 20, 5 s)",
    ),
    bind(X::Tv, C::Down, &["n", "j", "Down"], "next story"),
    bind(X::Tv, C::Up, &["p", "k", "Up"], "previous story"),
    bind(X::Tv, C::Read, &["Enter"], "read the full text"),
    bind(X::Reader, C::Down, &["j", "Down"], "scroll down"),
    bind(X::Reader, C::Up, &["k", "Up"], "scroll up"),
    bind(
        X::Reader,
        C::PageDown,
        &["Space", "PageDown"],
        "a page down",
    ),
    bind(X::Reader, C::PageUp, &["PageUp", "b"], "a page up"),
    bind(X::Reader, C::Top, &["g", "Home"], "top"),
    bind(X::Reader, C::Bottom, &["G", "End"], "bottom"),
    bind(X::Reader, C::NextUnread, &["J"], "next unread item"),
    bind(X::Reader, C::PreviousUnread, &["K"], "previous unread item"),
    bind(X::Reader, C::NextMatch, &["n"], "next search result"),
    bind(
        X::Reader,
        C::PreviousMatch,
        &["N"],
        "previous search result",
    ),
    bind(X::Reader, C::OpenSource, &["o"], "open the source"),
    bind(X::Reader, C::Favorite, &["f"], "favourite / unfavourite"),
    bind(X::Reader, C::MarkRead, &["m"], "mark read / unread"),
    bind(X::Reader, C::Hide, &["x"], "hide (Trash: restore)"),
    bind(X::Reader, C::Restore, &["u"], "restore from Trash"),
    bind(X::Reader, C::Share, &["s"], "share on LinkedIn"),
    bind(X::Reader, C::Back, &["Esc", "q"], "back"),
    bind(X::Help, C::Down, &["j", "Down"], "scroll down"),
    bind(X::Help, C::Up, &["k", "Up"], "scroll up"),
    bind(X::Help, C::PageDown, &["Space", "PageDown"], "a page down"),
    bind(X::Help, C::PageUp, &["PageUp", "b"], "a page up"),
    bind(X::Help, C::Back, &["Esc", "q", "?"], "close"),
];

/// A key as the terminal reports it, without the press/release kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Only Ctrl and Alt count; Shift is in the character itself.
    pub ctrl: bool,
    /// Alt held.
    pub alt: bool,
}

impl Key {
    /// The key of a terminal event.
    pub fn of(event: &KeyEvent) -> Key {
        let code = match event.code {
            // Some terminals report Shift-Tab as Tab with Shift.
            KeyCode::Tab if event.modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
            // A letter with Ctrl arrives lower- or upper-case depending on the terminal.
            KeyCode::Char(c) if event.modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            code => code,
        };
        Key {
            code,
            ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
            alt: event.modifiers.contains(KeyModifiers::ALT),
        }
    }
}

/// Reads a key as `keys.toml` and the table write it: a character (`j`, `G`, `?`), a
/// name (`Enter`, `Esc`, `Tab`, `BackTab`, `Space`, `Up`, `Down`, `Left`, `Right`,
/// `PageUp`, `PageDown`, `Home`, `End`, `Backspace`, `Delete`, `Insert`, `F1`-`F12`),
/// either with `Ctrl-` or `Alt-` before it.
pub fn parse_key(text: &str) -> Result<Key, String> {
    let mut rest = text;
    let (mut ctrl, mut alt) = (false, false);
    loop {
        let lower = rest.to_ascii_lowercase();
        if rest.chars().count() > 1 && (lower.starts_with("ctrl-") || lower.starts_with("c-")) {
            ctrl = true;
            rest = &rest[rest.find('-').expect("prefix has a dash") + 1..];
        } else if rest.chars().count() > 1 && (lower.starts_with("alt-") || lower.starts_with("m-"))
        {
            alt = true;
            rest = &rest[rest.find('-').expect("prefix has a dash") + 1..];
        } else {
            break;
        }
    }
    let mut chars = rest.chars();
    let code = match (chars.next(), chars.next()) {
        (Some(c), None) if ctrl => KeyCode::Char(c.to_ascii_lowercase()),
        (Some(c), None) => KeyCode::Char(c),
        _ => match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "backtab" | "shift-tab" => KeyCode::BackTab,
            "space" => KeyCode::Char(' '),
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" | "pgup" => KeyCode::PageUp,
            "pagedown" | "pgdn" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "insert" | "ins" => KeyCode::Insert,
            f if f.starts_with('f')
                && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) =>
            {
                KeyCode::F(f[1..].parse().expect("checked"))
            }
            _ => {
                return Err(format!(
                    "{text:?} is not a key; write a character (j, G, ?) or a name such as \
                     Enter, Esc, Space, Tab, Up, PageDown, F5, with Ctrl- or Alt- before it"
                ));
            }
        },
    };
    Ok(Key { code, ctrl, alt })
}

/// How the help writes a key.
pub fn key_name(key: &Key) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "Shift-Tab".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Backspace => "Backspace".into(),
        KeyCode::Delete => "Del".into(),
        KeyCode::Insert => "Ins".into(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    };
    match (key.ctrl, key.alt) {
        (true, _) => format!("Ctrl-{base}"),
        (_, true) => format!("Alt-{base}"),
        _ => base,
    }
}

/// The keys in force: the table, with `keys.toml`'s changes applied.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap {
    bindings: BTreeMap<(Context, Command), Vec<Key>>,
}

impl Default for KeyMap {
    fn default() -> Self {
        let bindings = TABLE
            .iter()
            .map(|b| {
                let keys = b
                    .keys
                    .iter()
                    .map(|k| parse_key(k).expect("the table's keys parse"))
                    .collect();
                ((b.context, b.command), keys)
            })
            .collect();
        Self { bindings }
    }
}

impl KeyMap {
    /// The command `key` runs in `context` (its own keys first, then the global ones,
    /// except in the reader and the help, whose keys are all their own).
    pub fn command(&self, context: Context, key: &KeyEvent) -> Option<Command> {
        let key = Key::of(key);
        let find = |ctx: Context| {
            self.bindings
                .iter()
                .find(|((c, _), keys)| *c == ctx && keys.contains(&key))
                .map(|((_, command), _)| *command)
        };
        match context {
            Context::Help => find(Context::Help),
            Context::Reader => find(Context::Reader).or_else(|| {
                // Quitting, suspending and help work in the reader too.
                find(Context::Global).filter(|c| matches!(c, C::Quit | C::Suspend | C::Help))
            }),
            ctx => find(ctx).or_else(|| find(Context::Global)),
        }
    }

    /// Whether any binding holds Alt. None of the table's do; `keys.toml` may add some.
    pub fn has_alt(&self) -> bool {
        self.bindings.values().flatten().any(|k| k.alt)
    }

    /// The keys of `command` in `context`, as the help writes them ("j ↓").
    pub fn keys_of(&self, context: Context, command: Command) -> String {
        self.bindings
            .get(&(context, command))
            .map(|keys| keys.iter().map(key_name).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }

    /// The first key of `command` in `context`, for hints ("m read").
    pub fn first_key(&self, context: Context, command: Command) -> String {
        self.bindings
            .get(&(context, command))
            .and_then(|keys| keys.first())
            .map_or_else(|| "-".into(), key_name)
    }

    /// The help: each context's title, then its (keys, what) rows.
    pub fn help(&self) -> Vec<(&'static str, Vec<(String, &'static str)>)> {
        let mut sections: Vec<(&'static str, Vec<(String, &'static str)>)> = Vec::new();
        for b in TABLE {
            let keys = self.keys_of(b.context, b.command);
            if keys.is_empty() {
                continue;
            }
            let title = b.context.title();
            match sections.last_mut() {
                Some((t, rows)) if *t == title => rows.push((keys, b.help)),
                _ => sections.push((title, vec![(keys, b.help)])),
            }
        }
        sections
    }

    /// Binds `command` to exactly `keys` in `context` (`keys.toml`'s entries), taking
    /// those keys from the context's other commands so the new binding wins. A context's
    /// own keys already win over [`Context::Global`]'s there, so other contexts keep
    /// theirs. Answers false, changing nothing, when the table does not have `command`
    /// in `context`.
    pub fn bind(&mut self, context: Context, command: Command, keys: &[Key]) -> bool {
        if !self.bindings.contains_key(&(context, command)) {
            return false;
        }
        for ((ctx, _), bound) in &mut self.bindings {
            if *ctx == context {
                bound.retain(|k| !keys.contains(k));
            }
        }
        self.bindings.insert((context, command), keys.to_vec());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The web app's key table (`web/src/features/news/key-table.json`) is this one: the
    /// web reads its keys and help from it, so the two readers cannot drift. After changing
    /// [`TABLE`], run `RADAR_UPDATE_KEYS=1 cargo test -p radar-tui keys` and commit the file.
    #[test]
    fn the_web_apps_copy_is_current() {
        let rows: Vec<serde_json::Value> = TABLE
            .iter()
            .map(|b| {
                serde_json::json!({
                    "context": b.context.name(),
                    "command": b.command.name(),
                    "keys": b.keys,
                    "help": b.help,
                })
            })
            .collect();
        let current = serde_json::to_string_pretty(&rows).unwrap() + "\n";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../web/src/features/news/key-table.json");
        if std::env::var_os("RADAR_UPDATE_KEYS").is_some() {
            std::fs::write(&path, &current).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == current,
            "web/src/features/news/key-table.json is not the terminal's key table: run \
             `RADAR_UPDATE_KEYS=1 cargo test -p radar-tui keys` and commit it"
        );
    }

    fn press(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn the_table_parses_and_names_are_unique_per_command() {
        let map = KeyMap::default();
        for b in TABLE {
            assert_eq!(Command::from_name(&b.command.name()), Some(b.command));
            // No key runs two commands in one place.
            for k in b.keys {
                let key = parse_key(k).unwrap();
                let owners: Vec<_> = TABLE
                    .iter()
                    .filter(|o| {
                        o.context == b.context && o.keys.iter().any(|x| parse_key(x) == Ok(key))
                    })
                    .collect();
                assert_eq!(owners.len(), 1, "{k} in {:?}", b.context);
            }
        }
        assert_eq!(map.command(X::List, &press('m')), Some(C::MarkRead));
        assert_eq!(map.command(X::List, &press('r')), Some(C::Reload));
        assert_eq!(map.command(X::Tv, &press(' ')), Some(C::Pause));
        assert_eq!(map.command(X::Drops, &press(' ')), Some(C::NextStory));
        assert_eq!(map.command(X::Reader, &press('q')), Some(C::Back));
        assert_eq!(
            map.command(X::Reader, &press('r')),
            None,
            "no reload in the reader"
        );
        let ctrl_z = KeyEvent::new(KeyCode::Char('Z'), KeyModifiers::CONTROL);
        assert_eq!(map.command(X::Reader, &ctrl_z), Some(C::Suspend));
    }

    #[test]
    fn keys_parse_as_written() {
        assert_eq!(parse_key("Ctrl-z").unwrap().code, KeyCode::Char('z'));
        assert!(parse_key("C-Z").unwrap().ctrl);
        assert_eq!(parse_key("Alt-x").unwrap().code, KeyCode::Char('x'));
        assert_eq!(parse_key("PageDown").unwrap().code, KeyCode::PageDown);
        assert_eq!(parse_key("F5").unwrap().code, KeyCode::F(5));
        assert_eq!(parse_key("-").unwrap().code, KeyCode::Char('-'));
        assert_eq!(parse_key("G").unwrap().code, KeyCode::Char('G'));
        assert!(
            parse_key("Hyper")
                .unwrap_err()
                .contains("\"Hyper\" is not a key")
        );
        assert!(parse_key("F13").is_err());
        assert_eq!(key_name(&parse_key("Ctrl-z").unwrap()), "Ctrl-z");
    }

    #[test]
    fn binding_takes_the_key_from_the_contexts_other_commands() {
        let mut map = KeyMap::default();
        assert!(map.bind(X::List, C::MarkRead, &[parse_key("x").unwrap()]));
        assert_eq!(map.command(X::List, &press('x')), Some(C::MarkRead));
        assert_eq!(map.command(X::List, &press('m')), None);
        assert_eq!(map.keys_of(X::List, C::Hide), "", "hide lost its only key");
        // Other contexts keep theirs.
        assert_eq!(map.command(X::Search, &press('x')), Some(C::Hide));
        assert_eq!(map.command(X::Drops, &press('m')), Some(C::MarkRead));
        // A list key wins over the global one there only.
        assert!(map.bind(X::List, C::Hide, &[parse_key("q").unwrap()]));
        assert_eq!(map.command(X::List, &press('q')), Some(C::Hide));
        assert_eq!(map.command(X::Drops, &press('q')), Some(C::Quit));
        // The help follows; a command without keys is left out.
        let help = map.help();
        assert_eq!(help[0].0, "Everywhere");
        let list = &help.iter().find(|(t, _)| t.starts_with("Lists")).unwrap().1;
        assert!(list.contains(&("x".into(), "mark read / unread")));
        assert!(list.contains(&("q".into(), "hide (Trash: restore)")));
        // Only where the table has the command.
        assert!(!map.bind(X::Tv, C::Hide, &[parse_key("x").unwrap()]));
        assert_eq!(map.command(X::Tv, &press('x')), None);
    }

    #[test]
    fn contexts_have_names() {
        for c in Context::ALL {
            assert_eq!(Context::from_name(c.name()), Some(c));
            assert!(!c.commands().is_empty());
        }
        assert_eq!(Context::from_name("feed"), None);
    }
}

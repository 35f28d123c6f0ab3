//! The reader's own keys: `keys.toml` in the config directory (next to the session)
//! changes the key table ([`crate::keys::TABLE`]) before the reader starts.
//!
//! One section per context, named as [`Context::name`] says, and in it one line per
//! command, named as [`Command::name`] says, giving all of that command's keys there:
//!
//! ```toml
//! [list]
//! hide = ["x", "Delete"]
//! mark_read = ["r"]      # takes r from reload in lists; elsewhere r still reloads
//!
//! [global]
//! quit = ["q", "Ctrl-c", "Alt-q"]
//! ```
//!
//! A key given to a command is taken from the section's other commands (the file wins
//! over the defaults); `[]` leaves a command without keys. A file that cannot be used is
//! refused as a whole, with every problem and its line, before the terminal is taken:
//! a reader that silently ignores half a key file would surprise more than one that
//! does not start.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use toml::Spanned;

use crate::keys::{Command, Context, Key, KeyMap, parse_key};

/// The file's name in the config directory.
pub const FILE_NAME: &str = "keys.toml";

/// A key file that cannot be used: where it is and what is wrong, by line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFileError {
    /// The file.
    pub path: PathBuf,
    /// Each problem: its line (1-based; none when the file could not be read) and what.
    pub problems: Vec<(Option<usize>, String)>,
}

impl fmt::Display for KeyFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        for (i, (line, what)) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match line {
                Some(line) => write!(f, "{path}, line {line}: {what}")?,
                None => write!(f, "{path}: {what}")?,
            }
        }
        write!(
            f,
            "\nFix or remove the file (the reader's keys are listed with ? and in the README)."
        )
    }
}

impl std::error::Error for KeyFileError {}

/// The keys in force: the table, changed by `dir/keys.toml` when there is one.
pub fn load(dir: Option<&Path>) -> Result<KeyMap, KeyFileError> {
    let Some(dir) = dir else {
        return Ok(KeyMap::default());
    };
    let path = dir.join(FILE_NAME);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&text).map_err(|problems| KeyFileError { path, problems }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KeyMap::default()),
        Err(e) => Err(KeyFileError {
            path,
            problems: vec![(None, format!("cannot be read: {e}"))],
        }),
    }
}

/// What a section holds: command name -> its keys.
type Section = BTreeMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>;

/// The shape of a key file, for the first hint of a misshapen one.
const SHAPE: &str = "a key file has sections such as [list] holding lines such as \
    hide = [\"x\", \"Delete\"]";

/// A problem of a key file, with its line when it has one.
type Problem = (Option<usize>, String);

/// The key table changed by the text of a key file, or every problem with its line.
pub fn parse(text: &str) -> Result<KeyMap, Vec<Problem>> {
    let line = |offset: usize| Some(text[..offset.min(text.len())].matches('\n').count() + 1);
    let file: BTreeMap<Spanned<String>, Spanned<Section>> = toml::from_str(text).map_err(|e| {
        let mut what = e.message().trim_end().to_string();
        if what.starts_with("invalid type") {
            what = format!("{what}; {SHAPE}");
        }
        vec![(e.span().and_then(|s| line(s.start)), what)]
    })?;

    let mut map = KeyMap::default();
    let mut problems = Vec::new();
    // In the file's order, so "bound twice" names the later line.
    let mut sections: Vec<_> = file.iter().collect();
    sections.sort_by_key(|(name, _)| name.span().start);
    for (section, commands) in sections {
        let Some(context) = Context::from_name(section.get_ref()) else {
            let names: Vec<&str> = Context::ALL.iter().map(|c| c.name()).collect();
            problems.push((
                line(section.span().start),
                format!(
                    "[{}] is not a section; the sections are {}",
                    section.get_ref(),
                    names.join(", ")
                ),
            ));
            continue;
        };
        // Each key of the section: who has it, for "bound twice".
        let mut owners = Owners::new();
        let mut entries: Vec<_> = commands.get_ref().iter().collect();
        entries.sort_by_key(|(name, _)| name.span().start);
        for (name, keys) in entries {
            let at = line(name.span().start);
            let command =
                Command::from_name(name.get_ref()).filter(|c| context.commands().contains(c));
            let Some(command) = command else {
                problems.push((at, not_a_command(context, name.get_ref())));
                continue;
            };
            let keys = keys_of(context, name.get_ref(), keys.get_ref(), &line, &mut owners);
            problems.extend(keys.problems);
            map.bind(context, command, &keys.parsed);
        }
    }
    if problems.is_empty() {
        Ok(map)
    } else {
        problems.sort_by_key(|(line, _)| *line);
        Err(problems)
    }
}

/// Each key of a section by its name: the command that has it and that command's line.
type Owners = BTreeMap<String, (String, Option<usize>)>;

/// Why `name` is not a command of `context`, and which are.
fn not_a_command(context: Context, name: &str) -> String {
    let known: Vec<String> = context.commands().iter().map(|c| c.name()).collect();
    if Command::from_name(name).is_some() {
        format!(
            "{name:?} is not a command of [{}]; its commands are {}",
            context.name(),
            known.join(", ")
        )
    } else {
        format!(
            "{name:?} is not a command; the commands of [{}] are {}",
            context.name(),
            known.join(", ")
        )
    }
}

/// A command's keys as read: those taken, and the problems of the others.
struct CommandKeys {
    parsed: Vec<Key>,
    problems: Vec<Problem>,
}

/// Reads the keys given to `command` in `context`, refusing a key that does not parse
/// and one that another line of the section has already.
fn keys_of(
    context: Context,
    command: &str,
    keys: &[Spanned<String>],
    line: &impl Fn(usize) -> Option<usize>,
    owners: &mut Owners,
) -> CommandKeys {
    let mut out = CommandKeys {
        parsed: Vec::new(),
        problems: Vec::new(),
    };
    for text in keys {
        let key_at = line(text.span().start);
        let key = match parse_key(text.get_ref()) {
            Ok(key) => key,
            Err(e) => {
                out.problems.push((key_at, e));
                continue;
            }
        };
        let id = crate::keys::key_name(&key);
        if let Some((other, other_at)) = owners.get(&id) {
            let first = other_at.map(|l| format!(" (line {l})")).unwrap_or_default();
            let what = if other == command {
                format!("{:?} is listed twice for {other}", text.get_ref())
            } else {
                format!(
                    "{:?} is bound twice in [{}]: to {other}{first} and to {command}",
                    text.get_ref(),
                    context.name(),
                )
            };
            out.problems.push((key_at, what));
        } else {
            owners.insert(id, (command.to_string(), key_at));
            out.parsed.push(key);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::Context as X;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn problems(text: &str) -> Vec<(Option<usize>, String)> {
        parse(text).expect_err("the file is refused")
    }

    #[test]
    fn a_file_changes_the_keys_of_its_sections() {
        let map = parse(
            "# my keys\n[list]\nhide = [\"X\", \"Delete\"]\nmark_read = [\"r\"]\n\n\
             [global]\nquit = [\"Q\"]\n[help]\nback = []\n",
        )
        .unwrap();
        let char = |c| press(KeyCode::Char(c));
        assert_eq!(map.command(X::List, &char('X')), Some(Command::Hide));
        assert_eq!(
            map.command(X::List, &press(KeyCode::Delete)),
            Some(Command::Hide)
        );
        assert_eq!(map.command(X::List, &char('x')), None);
        assert_eq!(map.command(X::List, &char('r')), Some(Command::MarkRead));
        assert_eq!(map.command(X::Drops, &char('r')), Some(Command::Reload));
        assert_eq!(map.command(X::List, &char('Q')), Some(Command::Quit));
        assert_eq!(map.command(X::List, &char('q')), None);
        assert_eq!(map.command(X::Help, &press(KeyCode::Esc)), None);
        // The help draws what is in force.
        assert_eq!(map.keys_of(X::List, Command::Hide), "X Del");
        assert_eq!(map.keys_of(X::Global, Command::Quit), "Q");
        assert_ne!(map, KeyMap::default());
        assert_eq!(parse("").unwrap(), KeyMap::default());
    }

    #[test]
    fn every_problem_is_named_with_its_line() {
        let found = problems(
            "[list]\nhide = [\"x\"]\nfavorite = [\"x\"]\nfly = [\"z\"]\n\
             pause = [\"p\"]\nshare = [\"Hyper\"]\n[feed]\nhide = [\"d\"]\n",
        );
        let lines: Vec<_> = found.iter().map(|(l, _)| l.unwrap()).collect();
        assert_eq!(lines, [3, 4, 5, 6, 7], "{found:?}");
        let text = |line: usize| &found.iter().find(|(l, _)| *l == Some(line)).unwrap().1;
        assert_eq!(
            text(3),
            "\"x\" is bound twice in [list]: to hide (line 2) and to favorite"
        );
        assert!(
            text(4).starts_with("\"fly\" is not a command; the commands of [list] are down, up,"),
            "{}",
            text(4)
        );
        assert!(text(5).starts_with("\"pause\" is not a command of [list]; its commands are"));
        assert!(text(6).contains("\"Hyper\" is not a key"));
        assert!(text(7).starts_with("[feed] is not a section; the sections are global, list,"));
    }

    #[test]
    fn a_misshapen_file_says_where_and_how_it_should_look() {
        let found = problems("[list]\nhide = \"x\"\n");
        assert_eq!(found[0].0, Some(2), "{found:?}");
        assert!(found[0].1.contains("invalid type"), "{found:?}");
        assert!(
            found[0].1.contains("hide = [\"x\", \"Delete\"]"),
            "{found:?}"
        );
        let found = problems("[list\nhide = [\"x\"]\n");
        assert_eq!(found[0].0, Some(1), "{found:?}");
        let found = problems("quit = [\"q\"]\n");
        assert_eq!(found[0].0, Some(1), "{found:?}");
        assert!(found[0].1.contains("[list]"), "{found:?}");
    }

    #[test]
    fn load_reads_the_config_dir_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(Some(dir.path())).unwrap(), KeyMap::default());
        assert_eq!(load(None).unwrap(), KeyMap::default());
        std::fs::write(dir.path().join(FILE_NAME), "[tv]\npause = [\"p\", \"p\"]\n").unwrap();
        let e = load(Some(dir.path())).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with(&format!(
                "{}, line 2: \"p\" is listed twice for pause",
                dir.path().join(FILE_NAME).display()
            )),
            "{text}"
        );
        assert!(text.ends_with(
            "Fix or remove the file (the reader's keys are listed with ? and in the README)."
        ));
    }
}

//! The terminal: raw mode and the alternate screen on the way in, both undone on the way
//! out, on errors and on panics (the panic hook restores the terminal before the panic
//! message prints, so the message is readable). Input is read on its own thread and
//! arrives as actions.

use std::cell::Cell;
use std::io::{Stdout, stdout};
use std::sync::{Mutex, PoisonError};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::{Frame, Terminal};
use tokio::sync::mpsc::UnboundedSender;

use crate::app::Action;

/// The reader's terminal.
pub type Tty = Terminal<CrosstermBackend<Stdout>>;

/// Held while a frame is written, and by a panicking thread until the process ends: a frame
/// hides the cursor and paints the screen, so one written on the main thread after a task's
/// panic restored the terminal would leave the cursor hidden and the message overwritten.
static SCREEN: Mutex<()> = Mutex::new(());

thread_local! {
    /// This thread holds [`SCREEN`] to write a frame (a panic while drawing must not wait for it).
    static DRAWING: Cell<bool> = const { Cell::new(false) };
}

/// Writes one frame, holding the screen (see [`SCREEN`]).
pub fn draw(terminal: &mut Tty, render: impl FnOnce(&mut Frame)) -> std::io::Result<()> {
    let _screen = SCREEN.lock().unwrap_or_else(PoisonError::into_inner);
    DRAWING.set(true);
    let drawn = terminal.draw(render).map(drop);
    DRAWING.set(false);
    drawn
}

/// Restores the terminal when dropped.
pub struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal in raw mode on the alternate screen, with a panic hook that
/// restores it first, then prints the panic and ends the process. Keep the returned
/// guard alive while the terminal is in use.
pub fn init() -> std::io::Result<(Tty, Restore)> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // Wait for a frame being written on another thread, then keep the screen until
        // the process ends, so nothing is drawn over the restored terminal.
        let _screen =
            (!DRAWING.get()).then(|| SCREEN.lock().unwrap_or_else(PoisonError::into_inner));
        restore();
        hook(info);
        // A panic in a spawned task would otherwise leave the reader running in a
        // terminal that is no longer in raw mode.
        std::process::exit(101);
    }));
    enable_raw_mode()?;
    let guard = Restore;
    execute!(stdout(), EnterAlternateScreen)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    terminal.clear()?;
    Ok((terminal, guard))
}

/// Leaves raw mode and the alternate screen and shows the cursor; errors are ignored
/// since this runs on the way out.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        stdout(),
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Ctrl-Z: gives the terminal back as it was, stops the process as the shell's job
/// control expects (SIGTSTP), and once continued (`fg`) takes the terminal again and
/// draws everything anew.
///
/// The redraw goes through `resize` (which also picks up a size changed while stopped)
/// rather than `Terminal::clear`: `clear` asks the terminal for the cursor position,
/// and that answer never arrives while the input thread waits in `event::read`, so
/// the reader would end with "The cursor position could not be read".
pub fn suspend(terminal: &mut Tty) -> std::io::Result<()> {
    restore();
    signal_hook::low_level::raise(signal_hook::consts::SIGTSTP)?;
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen)?;
    let size = terminal.size()?;
    terminal.resize(size.into())
}

/// Reads terminal events on a thread of its own (not the runtime's blocking pool, which
/// would hold up shutdown while the read blocks) and sends keys and resizes.
///
/// A terminal sends Alt+key as Esc followed by the key, so an Esc typed just before a key
/// (Esc to close the help, then Enter) can arrive in one read and be decoded as Alt+key.
/// Unless `alt_bound` (a `keys.toml` binds an Alt key), such an event is sent as what was
/// typed: Esc, then the key.
pub fn spawn_input(tx: UnboundedSender<Action>, alt_bound: bool) {
    std::thread::spawn(move || {
        loop {
            let actions = match event::read() {
                Ok(Event::Key(key)) if !alt_bound => {
                    split_alt(key).into_iter().map(Action::Key).collect()
                }
                Ok(Event::Key(key)) => vec![Action::Key(key)],
                Ok(Event::Resize(w, h)) => vec![Action::Resize(w, h)],
                Ok(_) => continue,
                Err(_) => break,
            };
            if actions.into_iter().any(|a| tx.send(a).is_err()) {
                break;
            }
        }
    });
}

/// An Alt+key event as the two keys a terminal sends for it, Esc and then the key; any
/// other event as it is.
fn split_alt(key: KeyEvent) -> Vec<KeyEvent> {
    if !key.modifiers.contains(KeyModifiers::ALT) {
        return vec![key];
    }
    vec![
        KeyEvent::new_with_kind(KeyCode::Esc, KeyModifiers::NONE, key.kind),
        KeyEvent::new_with_kind(key.code, key.modifiers - KeyModifiers::ALT, key.kind),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alt_and_a_key_is_esc_then_the_key() {
        let alt_enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT);
        let codes: Vec<_> = split_alt(alt_enter)
            .into_iter()
            .map(|k| (k.code, k.modifiers))
            .collect();
        assert_eq!(
            codes,
            [
                (KeyCode::Esc, KeyModifiers::NONE),
                (KeyCode::Enter, KeyModifiers::NONE)
            ]
        );
        let ctrl_alt_x = KeyEvent::new(
            KeyCode::Char('x'),
            KeyModifiers::ALT | KeyModifiers::CONTROL,
        );
        assert_eq!(split_alt(ctrl_alt_x)[1].modifiers, KeyModifiers::CONTROL);
        let j = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(split_alt(j), [j]);
    }
}

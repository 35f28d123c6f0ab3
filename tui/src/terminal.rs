//! The terminal: raw mode and the alternate screen on the way in, both undone on the way
//! out, on errors and on panics (the panic hook restores the terminal before the panic
//! message prints, so the message is readable). Input is read on its own thread and
//! arrives as actions.

use std::io::{Stdout, stdout};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use tokio::sync::mpsc::UnboundedSender;

use crate::app::Action;

/// The reader's terminal.
pub type Tty = Terminal<CrosstermBackend<Stdout>>;

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
pub fn spawn_input(tx: UnboundedSender<Action>) {
    std::thread::spawn(move || {
        loop {
            let action = match event::read() {
                Ok(Event::Key(key)) => Action::Key(key),
                Ok(Event::Resize(w, h)) => Action::Resize(w, h),
                Ok(_) => continue,
                Err(_) => break,
            };
            if tx.send(action).is_err() {
                break;
            }
        }
    });
}

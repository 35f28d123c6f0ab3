//! The key list over the current view (`?`), drawn from the key table in force, so it
//! shows the reader's own keys; it scrolls when the terminal is too short for it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};

use crate::keys::{Command, Context, KeyMap};
use crate::strings;
use crate::theme::Theme;

/// The help overlay.
pub struct HelpPopup<'a> {
    /// The keys in force.
    pub keys: &'a KeyMap,
    /// Rows scrolled.
    pub scroll: u16,
    /// Styles.
    pub theme: Theme,
}

/// The overlay's bottom line, with its keys in force.
fn close_hint(keys: &KeyMap) -> String {
    let key = |c| keys.first_key(Context::Help, c);
    strings::help_close(&key(Command::Down), &key(Command::Up), &key(Command::Back))
}

fn lines(keys: &KeyMap, t: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (i, (title, rows)) in keys.help().into_iter().enumerate() {
        if i > 0 {
            lines.push(Line::default());
        }
        lines.push(Line::styled(format!(" {title}"), t.strong()));
        for (keys, what) in rows {
            lines.push(Line::from(vec![
                Span::styled(format!("   {keys:<18}"), t.accent()),
                Span::raw(what),
            ]));
        }
    }
    lines
}

/// Where the popup goes in a screen of `area`.
fn popup(area: Rect, rows: usize) -> Rect {
    super::centered(area, 68, super::cells(rows).saturating_add(2))
}

/// How far the help can scroll in a terminal of `size`.
pub fn max_scroll(keys: &KeyMap, size: (u16, u16)) -> u16 {
    let rows = lines(keys, Theme { color: false }).len();
    let shown = popup(Rect::new(0, 0, size.0, size.1), rows)
        .height
        .saturating_sub(2);
    super::cells(rows).saturating_sub(shown)
}

impl Widget for HelpPopup<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let lines = lines(self.keys, t);
        let popup = popup(area, lines.len());
        Clear.render(popup, buf);
        let block = Block::bordered()
            .border_type(BorderType::Rounded)
            .title(Line::styled(
                format!(" {} ", strings::HELP_TITLE),
                t.accent(),
            ))
            .title_bottom(Line::styled(
                format!(" {} ", close_hint(self.keys)),
                t.dim(),
            ));
        Paragraph::new(lines)
            .block(block)
            .scroll((self.scroll, 0))
            .render(popup, buf);
    }
}

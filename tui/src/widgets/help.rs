//! The key list over the current view (`?`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};

use crate::strings;
use crate::theme::Theme;

/// The help overlay.
pub struct HelpPopup {
    /// Styles.
    pub theme: Theme,
}

impl Widget for HelpPopup {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let popup = super::centered(area, 60, strings::HELP.len() as u16 + 2);
        Clear.render(popup, buf);
        let block = Block::bordered()
            .border_type(BorderType::Rounded)
            .title(Line::styled(
                format!(" {} ", strings::HELP_TITLE),
                t.accent(),
            ))
            .title_bottom(Line::styled(format!(" {} ", strings::HELP_CLOSE), t.dim()));
        let lines: Vec<Line> = strings::HELP
            .iter()
            .map(|(keys, what)| {
                Line::from(vec![
                    Span::styled(format!(" {keys:<14}"), t.accent()),
                    Span::raw(*what),
                ])
            })
            .collect();
        Paragraph::new(lines).block(block).render(popup, buf);
    }
}

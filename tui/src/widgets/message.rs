//! A centred message: the loading, empty, signed-out and error states of a view.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::theme::Theme;

/// A title, an optional explanation and an optional hint, centred.
pub struct MessageWidget<'a> {
    /// The headline ('Trash is empty').
    pub title: &'a str,
    /// Its style.
    pub title_style: Style,
    /// More text (an error message).
    pub body: Option<&'a str>,
    /// What to do ('Press R to try again.').
    pub hint: Option<&'a str>,
    /// Styles.
    pub theme: Theme,
}

impl Widget for MessageWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let width = area.width.saturating_sub(4).min(72);
        let mut lines = vec![Line::styled(self.title.to_string(), self.title_style)];
        let mut height = super::wrapped_height(self.title, width);
        for (text, style) in [(self.body, Style::new()), (self.hint, self.theme.dim())] {
            if let Some(text) = text {
                lines.push(Line::default());
                lines.push(Line::styled(text.to_string(), style));
                height += 1 + super::wrapped_height(text, width);
            }
        }
        let box_ = super::centered(area, width, height);
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true })
            .render(box_, buf);
    }
}

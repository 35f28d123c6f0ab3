//! The key takeaways overlay: three cards, a summary line and how to close it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget, Wrap};

use crate::strings;
use crate::takeaways::Takeaways;
use crate::theme::Theme;

/// Draws takeaways centred over the view.
pub struct TakeawaysPopup<'a> {
    /// What to show.
    pub takeaways: &'a Takeaways,
    /// Styles.
    pub theme: Theme,
}

impl Widget for TakeawaysPopup<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let popup = super::centered(area, 76, 22);
        Clear.render(popup, buf);
        let block = Block::bordered()
            .border_type(BorderType::Rounded)
            .title(Line::styled(
                format!(" {} ", strings::TAKEAWAYS_TITLE),
                t.accent(),
            ))
            .title_bottom(Line::styled(
                format!(" {} ", strings::TAKEAWAYS_CLOSE),
                t.dim(),
            ));
        let mut lines = vec![
            Line::styled(self.takeaways.title.clone(), t.strong()),
            Line::default(),
        ];
        for (title, tags, description) in &self.takeaways.cards {
            let mut head = vec![Span::styled(title.to_string(), t.accent())];
            for tag in tags {
                head.push(Span::styled(format!("  [{tag}]"), t.dim()));
            }
            lines.push(Line::from(head));
            lines.push(Line::raw(description.to_string()));
            lines.push(Line::default());
        }
        lines.push(Line::styled(self.takeaways.summary.clone(), t.strong()));
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: true })
            .render(popup, buf);
    }
}

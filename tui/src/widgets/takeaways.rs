//! The key takeaways overlay: the server's three cards and summary line, or its loading
//! and error states, and how to close it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget, Wrap};

use crate::app::TakeawaysOverlay;
use crate::load::Load;
use crate::strings;
use crate::theme::Theme;

/// Draws takeaways centred over the view.
pub struct TakeawaysPopup<'a> {
    /// What to show.
    pub overlay: &'a TakeawaysOverlay,
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
            Line::styled(self.overlay.title.clone(), t.strong()),
            Line::default(),
        ];
        match &self.overlay.takeaways {
            Load::Idle | Load::Loading => {
                lines.push(Line::styled(strings::LOADING_TAKEAWAYS, t.dim()));
            }
            Load::Failed(e) => {
                lines.push(Line::styled(strings::TAKEAWAYS_FAILED, t.error()));
                lines.push(Line::raw(e.clone()));
            }
            Load::Loaded(takeaways) => {
                for card in &takeaways.cards {
                    let mut head = vec![Span::styled(card.title.clone(), t.accent())];
                    for tag in &card.tags {
                        head.push(Span::styled(format!("  [{tag}]"), t.dim()));
                    }
                    lines.push(Line::from(head));
                    lines.push(Line::raw(card.description.clone()));
                    lines.push(Line::default());
                }
                lines.push(Line::styled(takeaways.summary.clone(), t.strong()));
            }
        }
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: true })
            .render(popup, buf);
    }
}

//! A list of items, one per row: mark, date, relative time, source, title.

use chrono::{DateTime, Utc};
use radar_api::{Mark, NewsItem};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, List, ListItem, ListState, StatefulWidget};

use crate::format;
use crate::marks::Marks;
use crate::strings;
use crate::theme::Theme;

/// The list's state: which row is selected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ItemListState {
    /// The selected row.
    pub selected: usize,
}

/// Draws items as rows in a bordered block.
pub struct ItemListWidget<'a> {
    /// The rows.
    pub items: &'a [&'a NewsItem],
    /// Marks to show beside titles.
    pub marks: &'a Marks,
    /// For relative times.
    pub now: DateTime<Utc>,
    /// The block's title.
    pub title: &'a str,
    /// Drawn in the bottom border (Read More, Subscribe Now).
    pub footer: Option<Line<'a>>,
    /// Styles.
    pub theme: Theme,
}

impl StatefulWidget for ItemListWidget<'_> {
    type State = ItemListState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut ItemListState) {
        let t = self.theme;
        let mut block = Block::bordered()
            .border_type(BorderType::Rounded)
            .title(Line::styled(format!(" {} ", self.title), t.accent()));
        if let Some(footer) = self.footer {
            block = block.title_bottom(footer);
        }
        let rows: Vec<ListItem> = self
            .items
            .iter()
            .map(|item| {
                let mark = if self.marks.has(Mark::Favorite, &item.id) {
                    strings::MARK_FAVORITE
                } else if self.marks.has(Mark::Read, &item.id) {
                    strings::MARK_READ
                } else {
                    " "
                };
                ListItem::new(Line::from(vec![
                    Span::styled(format!("{mark} "), t.mark()),
                    Span::styled(
                        format!("{:<13}", format::date(item.published_date)),
                        t.dim(),
                    ),
                    Span::styled(
                        format!(
                            "{:<14}",
                            format::relative_time(item.published_date, self.now)
                        ),
                        t.dim(),
                    ),
                    Span::styled(
                        format!("{:<11} ", super::truncate(&format::source(item), 11)),
                        t.dim(),
                    ),
                    Span::raw(format::title(item)),
                ]))
            })
            .collect();
        let list = List::new(rows)
            .block(block)
            .highlight_style(t.selected())
            .highlight_symbol("▶ ");
        let mut list_state = ListState::default().with_selected(Some(state.selected));
        StatefulWidget::render(list, area, buf, &mut list_state);
    }
}

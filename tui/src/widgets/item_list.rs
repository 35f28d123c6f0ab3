//! A list of items, one per row: mark, date, relative time, source, title. The headline
//! keeps at least [`MIN_TITLE`] columns: as the list narrows, the date goes first, then
//! the age, then the source. Search results draw their headlines with the words the
//! server matched highlighted.

use chrono::{DateTime, Utc};
use radar_api::search::Highlighted;
use radar_api::{Mark, NewsItem};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, List, ListItem, ListState, StatefulWidget};

use crate::format;
use crate::marks::Marks;
use crate::search;
use crate::strings;
use crate::theme::Theme;

/// Columns every headline keeps, when the list is wide enough for that at all.
pub const MIN_TITLE: usize = 40;
/// Widths of the date, age and source columns, with their gaps.
const DATE: usize = 13;
const AGE: usize = 14;
const SOURCE: usize = 12;
/// The selection symbol and the mark before each row.
const PREFIX: usize = 4;

/// Which of date, age and source a list `width` columns wide (borders included) shows.
pub fn columns(width: u16) -> (bool, bool, bool) {
    let room = (width as usize).saturating_sub(2 + PREFIX);
    [
        (true, true, true),
        (false, true, true),
        (false, false, true),
    ]
    .into_iter()
    .find(|(d, a, s)| {
        let used = DATE * usize::from(*d) + AGE * usize::from(*a) + SOURCE * usize::from(*s);
        room >= used + MIN_TITLE
    })
    .unwrap_or((false, false, false))
}

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
    /// Per row, the headline as the search answered it, with its matched words
    /// (empty outside search results).
    pub titles: &'a [&'a Highlighted],
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
        let (show_date, show_age, show_source) = columns(area.width);
        let rows: Vec<ListItem> = self
            .items
            .iter()
            .enumerate()
            .map(|(row, item)| {
                let mark = if self.marks.has(Mark::Favorite, &item.id) {
                    strings::MARK_FAVORITE
                } else if self.marks.has(Mark::Read, &item.id) {
                    strings::MARK_READ
                } else {
                    " "
                };
                let mut spans = vec![Span::styled(format!("{mark} "), t.mark())];
                if show_date {
                    let date = format::date(item.published_date);
                    spans.push(Span::styled(format!("{date:<DATE$}"), t.dim()));
                }
                if show_age {
                    let age = format::relative_time(item.published_date, self.now);
                    spans.push(Span::styled(format!("{age:<AGE$}"), t.dim()));
                }
                if show_source {
                    let source = super::truncate(&format::source(item), SOURCE - 1);
                    spans.push(Span::styled(format!("{source:<0$} ", SOURCE - 1), t.dim()));
                }
                match self.titles.get(row) {
                    Some(h) => spans.extend(search::spans(
                        &h.text,
                        &h.ranges,
                        Style::new(),
                        t.highlight(),
                    )),
                    None => spans.push(Span::raw(item.title.clone())),
                }
                ListItem::new(Line::from(spans))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_go_date_first_then_age_then_source() {
        assert_eq!(columns(200), (true, true, true));
        assert_eq!(columns(98), (true, true, true));
        assert_eq!(columns(84), (false, true, true));
        assert_eq!(columns(60), (false, false, true));
        assert_eq!(columns(40), (false, false, false));
        for width in 46..200 {
            let (d, a, s) = columns(width);
            let used = DATE * usize::from(d) + AGE * usize::from(a) + SOURCE * usize::from(s);
            assert!(width as usize - 2 - PREFIX - used >= MIN_TITLE, "{width}");
        }
    }
}

//! A list of items, one per row: mark, date, relative time, source, how many sources
//! report its story, title. The headline keeps at least [`MIN_TITLE`] columns: as the
//! list narrows, the date goes first, then the age, then the count of sources, then the
//! source. The count's column is there only when some row stands for a story. Search
//! results draw their headlines with the words the server matched highlighted.

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
/// Widths of the date, age ("59 minutes ago"), source and sources ("12 sources")
/// columns, with their gaps.
const DATE: usize = 13;
const AGE: usize = 15;
const SOURCE: usize = 12;
const SOURCES: usize = 11;
/// The selection symbol and the mark before each row.
const PREFIX: usize = 4;

/// The columns a list shows before the headline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    /// "Jun 15, 2026".
    pub date: bool,
    /// "3 hours ago".
    pub age: bool,
    /// The source's name.
    pub source: bool,
    /// "5 sources", on rows that stand for a story.
    pub sources: bool,
}

impl Columns {
    fn width(self) -> usize {
        DATE * usize::from(self.date)
            + AGE * usize::from(self.age)
            + SOURCE * usize::from(self.source)
            + SOURCES * usize::from(self.sources)
    }
}

/// Which columns a list `width` columns wide (borders included) shows; `stories`: whether
/// some row stands for a story (else no column counts sources).
pub fn columns(width: u16, stories: bool) -> Columns {
    let room = (width as usize).saturating_sub(2 + PREFIX);
    let all = Columns {
        date: true,
        age: true,
        source: true,
        sources: stories,
    };
    [
        all,
        Columns { date: false, ..all },
        Columns {
            date: false,
            age: false,
            ..all
        },
        Columns {
            date: false,
            age: false,
            sources: false,
            source: true,
        },
    ]
    .into_iter()
    .find(|c| room >= c.width() + MIN_TITLE)
    .unwrap_or(Columns {
        date: false,
        age: false,
        source: false,
        sources: false,
    })
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
        let stories = self.items.iter().any(|i| i.story.is_some());
        let shown = columns(area.width, stories);
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
                if shown.date {
                    let date = format::date(item.published_date);
                    spans.push(Span::styled(format!("{date:<DATE$}"), t.dim()));
                }
                if shown.age {
                    let age = format::relative_time(item.published_date, self.now);
                    spans.push(Span::styled(format!("{age:<AGE$}"), t.dim()));
                }
                if shown.source {
                    let source = super::truncate(&format::source(item), SOURCE - 1);
                    spans.push(Span::styled(format!("{source:<0$} ", SOURCE - 1), t.dim()));
                }
                if shown.sources {
                    let sources = format::sources(item).unwrap_or_default();
                    let sources = super::truncate(&sources, SOURCES - 1);
                    spans.push(Span::styled(
                        format!("{sources:<0$} ", SOURCES - 1),
                        t.dim(),
                    ));
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
        let c = |width| {
            let c = columns(width, false);
            (c.date, c.age, c.source)
        };
        assert_eq!(c(200), (true, true, true));
        assert_eq!(c(98), (true, true, true));
        assert_eq!(c(84), (false, true, true));
        assert_eq!(c(60), (false, false, true));
        assert_eq!(c(40), (false, false, false));
        assert!((0..300).all(|w| !columns(w, false).sources));
    }

    #[test]
    fn the_count_of_sources_goes_after_the_age_and_before_the_source() {
        let c = |width| {
            let c = columns(width, true);
            (c.date, c.age, c.sources, c.source)
        };
        assert_eq!(c(200), (true, true, true, true));
        assert_eq!(c(97), (true, true, true, true));
        assert_eq!(c(96), (false, true, true, true));
        assert_eq!(c(84), (false, true, true, true));
        assert_eq!(c(83), (false, false, true, true));
        assert_eq!(c(80), (false, false, true, true));
        assert_eq!(c(69), (false, false, true, true));
        assert_eq!(c(68), (false, false, false, true));
        assert_eq!(c(40), (false, false, false, false));
    }

    #[test]
    fn headlines_keep_their_columns_with_or_without_stories() {
        for stories in [false, true] {
            for width in 46..200 {
                let used = columns(width, stories).width();
                assert!(
                    width as usize - 2 - PREFIX - used >= MIN_TITLE,
                    "{width} {stories}"
                );
            }
        }
    }
}

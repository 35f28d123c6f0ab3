//! The full-text reader (docs/product.md §4's full-screen card): one item's headline,
//! source, how many sources report its story, and dates, its whole `content` (or,
//! without one, its summary), the link, the story's other outlets, and the keys of the
//! view it was opened from, scrolled by rows.

use chrono::{DateTime, Utc};
use radar_api::{Mark, NewsItem};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};

use crate::app::View;
use crate::format;
use crate::keys::{Command, Context, KeyMap};
use crate::marks::Marks;
use crate::search;
use crate::strings;
use crate::theme::Theme;

/// Text columns at most: long lines are hard to read.
const MAX_WIDTH: u16 = 100;

/// The reader over the body of the screen.
pub struct ReaderWidget<'a> {
    /// The item.
    pub item: &'a NewsItem,
    /// The view it was opened from (decides the keys offered).
    pub from: View,
    /// Its marks.
    pub marks: &'a Marks,
    /// The keys in force, for the hints.
    pub keys: &'a KeyMap,
    /// For relative times.
    pub now: DateTime<Utc>,
    /// The first row shown.
    pub scroll: u16,
    /// Words to mark in the text (the search it was opened from matched them).
    pub matched: &'a [String],
    /// Styles.
    pub theme: Theme,
}

/// The text rows of the reader in a terminal of `size` (the screen less the header, the
/// status line and the border).
pub fn text_height(size: (u16, u16)) -> u16 {
    size.1.saturating_sub(5)
}

fn text_width(size: (u16, u16)) -> u16 {
    size.0.saturating_sub(2).clamp(1, MAX_WIDTH)
}

/// The reader's text, before wrapping.
fn text<'a>(
    item: &'a NewsItem,
    marks: &Marks,
    matched: &[String],
    now: DateTime<Utc>,
    t: Theme,
) -> Paragraph<'a> {
    let marked = |text: &str, plain| {
        Line::from(search::spans(
            text,
            &search::word_ranges(text, matched),
            plain,
            t.highlight(),
        ))
    };
    let mut meta = super::source_line(item, now, t);
    for (mark, glyph, label) in [
        (Mark::Favorite, strings::MARK_FAVORITE, strings::FAVOURITE),
        (Mark::Read, strings::MARK_READ, strings::READ),
    ] {
        if marks.has(mark, &item.id) {
            meta.push(Span::styled(format!("  {glyph} {label}"), t.mark()));
        }
    }
    let mut lines = vec![
        marked(&item.title, t.strong()),
        Line::from(meta),
        Line::default(),
    ];
    let body = if item.content.trim().is_empty() {
        lines.push(Line::styled(strings::NO_CONTENT, t.dim()));
        lines.push(Line::default());
        item.summary.as_str()
    } else {
        item.content.as_str()
    };
    lines.extend(body.lines().map(|l| marked(l, Style::default())));
    lines.push(Line::default());
    lines.push(match &item.url {
        Some(url) => Line::from(vec![
            Span::styled(format!("{}: ", strings::MORE), t.accent()),
            Span::raw(url.as_str()),
        ]),
        None => Line::styled(strings::NO_SOURCE_URL, t.dim()),
    });
    let outlets = format::outlets(item);
    if !outlets.is_empty() {
        lines.push(Line::default());
        lines.push(Line::styled(strings::OTHER_SOURCES, t.accent()));
        lines.extend(outlets.into_iter().map(Line::raw));
    }
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

/// How far the reader can scroll: the wrapped text's rows less those on screen.
pub fn max_scroll(
    item: &NewsItem,
    marks: &Marks,
    now: DateTime<Utc>,
    size: (u16, u16),
    t: Theme,
) -> u16 {
    // Marking words changes no row: none are passed.
    let rows = text(item, marks, &[], now, t).line_count(text_width(size));
    super::cells(rows).saturating_sub(text_height(size))
}

/// Where the reader is in its text, as pagers say it: `All` when it fits, `Top` at the
/// start, `Bot` at the end, else how far down it has scrolled, in percent.
pub fn position(scroll: u16, max_scroll: u16) -> String {
    match (scroll, max_scroll) {
        (_, 0) => "All".into(),
        (0, _) => "Top".into(),
        (s, max) if s >= max => "Bot".into(),
        (s, max) => format!("{}%", u32::from(s) * 100 / u32::from(max)),
    }
}

/// The reader's key hints: scrolling, the view's actions, back.
fn hints(keys: &KeyMap, from: View, item: &NewsItem, marks: &Marks) -> String {
    let key = |c| keys.first_key(Context::Reader, c);
    let mut pairs = vec![(
        format!("{}/{}", key(Command::Down), key(Command::Up)),
        strings::HINT_SCROLL.to_string(),
    )];
    pairs.extend(super::detail::action_hints(
        keys,
        Context::Reader,
        from,
        item,
        marks,
    ));
    pairs.push((key(Command::Back), strings::HINT_BACK.to_string()));
    pairs
        .iter()
        .map(|(k, what)| format!("{k} {what}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

impl Widget for ReaderWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let inner = Block::bordered().inner(area);
        let width = inner.width.min(MAX_WIDTH);
        let column = Rect {
            x: inner.x + (inner.width - width) / 2,
            width,
            ..inner
        };
        let text = text(self.item, self.marks, self.matched, self.now, t);
        let rows = u16::try_from(text.line_count(width)).unwrap_or(u16::MAX);
        let max_scroll = rows.saturating_sub(column.height);
        Block::bordered()
            .border_type(BorderType::Rounded)
            .title_bottom(Line::styled(
                format!(" {} ", hints(self.keys, self.from, self.item, self.marks)),
                t.dim(),
            ))
            .title_bottom(
                Line::styled(format!(" {} ", position(self.scroll, max_scroll)), t.dim())
                    .right_aligned(),
            )
            .render(area, buf);
        text.scroll((self.scroll, 0)).render(column, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn the_position_reads_as_a_pagers() {
        assert_eq!(position(0, 0), "All");
        assert_eq!(position(0, 40), "Top");
        assert_eq!(position(10, 40), "25%");
        assert_eq!(position(39, 40), "97%");
        assert_eq!(position(40, 40), "Bot");
        assert_eq!(position(u16::MAX, u16::MAX - 1), "Bot");
    }
}

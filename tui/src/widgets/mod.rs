//! The reader's widgets. Each draws one part of the screen from borrowed state; the few
//! with state of their own (the list selection, the sign-in form) are `StatefulWidget`s
//! with an `XState` beside them.

pub mod detail;
pub mod drops;
pub mod help;
pub mod item_list;
pub mod message;
pub mod reader;
pub mod sign_in;
pub mod takeaways;
pub mod trends;
pub mod tv;

use ratatui::layout::Rect;
use ratatui::text::Line;

/// A `width` x `height` box centred in `area` (shrunk to fit).
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// A count of terminal cells (rows or columns) as ratatui measures them, at most
/// `u16::MAX`.
pub(crate) fn cells(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// How many rows `text` takes when word-wrapped to `width` columns.
pub fn wrapped_height(text: &str, width: u16) -> u16 {
    let width = width.max(1) as usize;
    let mut rows = 0u16;
    for paragraph in text.split('\n') {
        let mut col = 0usize;
        rows += 1;
        for word in paragraph.split_whitespace() {
            let w = Line::raw(word).width();
            if col > 0 && col + 1 + w > width {
                rows += 1;
                col = 0;
            }
            // A word longer than the line is broken over several rows.
            if w > width {
                rows = rows.saturating_add(cells(w / width));
                col = w % width;
            } else {
                col += if col > 0 { 1 + w } else { w };
            }
        }
    }
    rows
}

/// Cuts `text` to `width` columns, ending in "…" when cut.
pub fn truncate(text: &str, width: usize) -> String {
    if Line::raw(text).width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for ch in text.chars() {
        let w = Line::raw(ch.to_string()).width();
        if used + w + 1 > width {
            break;
        }
        out.push(ch);
        used += w;
    }
    out.push('…');
    out
}

/// An item's source line as the detail pane and the reader start it: the source, the
/// story's count of sources, the date and how long ago.
pub(crate) fn source_line(
    item: &radar_api::NewsItem,
    now: chrono::DateTime<chrono::Utc>,
    t: crate::theme::Theme,
) -> Vec<ratatui::text::Span<'static>> {
    use ratatui::text::Span;
    let mut meta = vec![Span::styled(crate::format::source(item), t.accent())];
    if let Some(sources) = crate::format::sources(item) {
        meta.push(Span::styled(format!(" · {sources}"), t.accent()));
    }
    meta.push(Span::styled(
        format!(
            " · {} · {}",
            crate::format::date(item.published_date),
            crate::format::relative_time(item.published_date, now)
        ),
        t.dim(),
    ));
    meta
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_counts_rows() {
        assert_eq!(wrapped_height("", 10), 1);
        assert_eq!(wrapped_height("one two three", 7), 2);
        assert_eq!(wrapped_height("one two three", 13), 1);
        assert_eq!(wrapped_height("abcdefghijkl", 5), 3);
        assert_eq!(wrapped_height("a\nb", 10), 2);
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello world", 6), "hello…");
        let r = centered(Rect::new(0, 0, 80, 24), 100, 10);
        assert_eq!((r.x, r.y, r.width, r.height), (0, 7, 80, 10));
    }
}

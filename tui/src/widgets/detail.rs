//! The selected item in full: headline, source, how many sources report its story, and
//! dates, summary, link and the keys this view offers for it. The story's other outlets
//! are listed in the reader.

use chrono::{DateTime, Utc};
use radar_api::search::{Highlighted, Highlights};
use radar_api::{Mark, NewsItem};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};

use crate::app::{ItemAction, View};
use crate::format;
use crate::keys::{Command, Context, KeyMap};
use crate::marks::Marks;
use crate::search;
use crate::strings;
use crate::theme::Theme;

/// The detail pane.
pub struct DetailWidget<'a> {
    /// The item.
    pub item: &'a NewsItem,
    /// The view it is shown in (decides the keys offered).
    pub view: View,
    /// Whose keys the hints name: [`Context::List`], or [`Context::Search`] over results
    /// (`keys.toml` may bind them differently).
    pub context: Context,
    /// Its marks.
    pub marks: &'a Marks,
    /// The keys in force, for the hints.
    pub keys: &'a KeyMap,
    /// For relative times.
    pub now: DateTime<Utc>,
    /// An extra line (when it was shared).
    pub extra: Option<String>,
    /// Where a search matched it: the title and summary are drawn with the matched words
    /// highlighted, and the passage of the text that matched follows.
    pub highlights: Option<&'a Highlights>,
    /// Styles.
    pub theme: Theme,
}

/// The actions `view` offers for an item, each with its first key in `context`:
/// ("o", "open"), ("f", "favourite") ...
pub fn action_hints(
    keys: &KeyMap,
    context: Context,
    view: View,
    item: &NewsItem,
    marks: &Marks,
) -> Vec<(String, String)> {
    [
        (ItemAction::Open, Command::OpenSource, strings::HINT_OPEN),
        (
            ItemAction::Favorite,
            Command::Favorite,
            strings::hint_favorite(marks.has(Mark::Favorite, &item.id)),
        ),
        (
            ItemAction::Read,
            Command::MarkRead,
            strings::hint_read(marks.has(Mark::Read, &item.id)),
        ),
        (ItemAction::Hide, Command::Hide, strings::HINT_HIDE),
        (ItemAction::Restore, Command::Restore, strings::HINT_RESTORE),
        (ItemAction::Share, Command::Share, strings::HINT_SHARE),
    ]
    .iter()
    .filter(|(a, _, _)| a.allowed_in(view))
    .map(|(_, c, label)| (keys.first_key(context, *c), label.to_string()))
    .collect()
}

/// The keys offered for an item in a list `view`, as "Enter full text · o open ...",
/// from `context`'s keys.
pub fn key_hints(
    keys: &KeyMap,
    context: Context,
    view: View,
    item: &NewsItem,
    marks: &Marks,
) -> String {
    let mut pairs = vec![(
        keys.first_key(context, Command::Read),
        strings::HINT_READER.to_string(),
    )];
    pairs.extend(action_hints(keys, context, view, item, marks));
    pairs
        .iter()
        .map(|(k, what)| format!("{k} {what}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

impl Widget for DetailWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let item = self.item;
        let block = Block::bordered()
            .border_type(BorderType::Rounded)
            .title_bottom(Line::styled(
                format!(
                    " {} ",
                    key_hints(self.keys, self.context, self.view, item, self.marks)
                ),
                t.dim(),
            ));
        let mut meta = super::source_line(item, self.now, t);
        if self.marks.has(Mark::Favorite, &item.id) {
            meta.push(Span::styled(
                format!("  {} {}", strings::MARK_FAVORITE, strings::FAVOURITE),
                t.mark(),
            ));
        }
        if self.marks.has(Mark::Read, &item.id) {
            meta.push(Span::styled(
                format!("  {} {}", strings::MARK_READ, strings::READ),
                t.mark(),
            ));
        }
        let marked = |h: &Highlighted, plain| {
            Line::from(search::spans(&h.text, &h.ranges, plain, t.highlight()))
        };
        let mut lines = vec![
            match self.highlights {
                Some(h) => marked(&h.title, t.strong()),
                None => Line::styled(format::title(item), t.strong()),
            },
            Line::from(meta),
        ];
        if let Some(extra) = self.extra {
            lines.push(Line::styled(extra, t.dim()));
        }
        lines.push(Line::default());
        match self.highlights {
            Some(h) => lines.push(marked(&h.summary, Style::new())),
            None => lines.push(Line::raw(format::summary(item))),
        }
        lines.push(Line::default());
        if let Some(snippet) = self.highlights.and_then(|h| h.snippet.as_ref()) {
            let mut spans = vec![Span::styled("… ", t.dim())];
            spans.extend(search::spans(
                &snippet.text,
                &snippet.ranges,
                t.dim(),
                t.highlight(),
            ));
            spans.push(Span::styled(" …", t.dim()));
            lines.push(Line::from(spans));
            lines.push(Line::default());
        }
        if self.view != View::Trash {
            lines.push(match &item.url {
                Some(url) => Line::from(vec![
                    Span::styled(format!("{}: ", strings::MORE), t.accent()),
                    Span::raw(url.clone()),
                ]),
                None => Line::styled(strings::NO_SOURCE_URL, t.dim()),
            });
        }
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .render(area, buf);
    }
}

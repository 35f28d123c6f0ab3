//! Drops: one story, large and centred, with progress dots; or the paywall.

use radar_api::NewsItem;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};

use crate::drops::{DropsState, progress_dots};
use crate::format;
use crate::keys::{Command, Context, KeyMap};
use crate::strings;
use crate::theme::Theme;

/// The Drops view.
pub struct DropsWidget<'a> {
    /// The stories.
    pub stories: &'a [NewsItem],
    /// Where the reader is.
    pub state: &'a DropsState,
    /// Whether the current story is read.
    pub read: bool,
    /// The daemon's address, for the subscribe link.
    pub server: &'a str,
    /// The keys in force, for the hints.
    pub keys: &'a KeyMap,
    /// Styles.
    pub theme: Theme,
}

impl Widget for DropsWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let frame = super::centered(area, 96, area.height);
        let block = Block::bordered().border_type(BorderType::Rounded);
        let inner = block.inner(frame);
        block.render(frame, buf);
        if self.state.paywall {
            let text = strings::paywall(self.stories.len());
            return paywall(inner, buf, &text, self.server, self.keys, t);
        }
        let Some(story) = self.stories.get(self.state.index) else {
            return;
        };
        let [dots, body, link, foot] = Layout::vertical([
            Constraint::Length(2),
            Constraint::Fill(1),
            Constraint::Length(2),
            Constraint::Length(1),
        ])
        .areas(inner);

        let mut spans = Vec::new();
        for (i, current) in progress_dots(self.stories.len(), self.state.index)
            .into_iter()
            .enumerate()
        {
            let glyph = if i == 7 {
                if current { "•" } else { "·" }
            } else if current {
                "●"
            } else {
                "○"
            };
            spans.push(Span::styled(
                format!("{glyph} "),
                if current { t.accent() } else { t.dim() },
            ));
        }
        Line::from(spans)
            .alignment(Alignment::Center)
            .render(dots, buf);

        // The text block is centred as a whole: source (and how many report the story),
        // then the story in bold.
        let text_width = body.width.saturating_sub(8).clamp(1, 72);
        let text = format::drop_text(story);
        let height = 2 + super::wrapped_height(&text, text_width);
        let column = super::centered(body, text_width, height);
        let mut source = vec![Span::styled(
            format::source(story).to_uppercase(),
            t.accent(),
        )];
        if let Some(sources) = format::sources(story) {
            source.push(Span::styled(format!(" · {sources}"), t.accent()));
        }
        if self.read {
            source.push(Span::styled(format!("  {}", strings::MARK_READ), t.mark()));
        }
        Paragraph::new(vec![
            Line::from(source),
            Line::default(),
            Line::styled(text, t.strong()),
        ])
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .render(column, buf);

        let link_line = match &story.url {
            Some(url) => Line::from(vec![
                Span::styled(format!("{} (o): ", strings::MORE), t.accent()),
                Span::raw(super::truncate(url, link.width.saturating_sub(12) as usize)),
            ]),
            None => Line::styled(strings::NO_SOURCE_URL, t.dim()),
        };
        link_line.alignment(Alignment::Center).render(link, buf);
        // On narrow screens the keys are cut, never the position.
        let position = strings::position(self.state.index + 1, self.stories.len());
        let room = (foot.width as usize).saturating_sub(position.len() + 2);
        Line::from(vec![
            Span::styled(position, t.accent()),
            Span::styled(
                format!("  {}", super::truncate(&drops_hints(self.keys), room)),
                t.dim(),
            ),
        ])
        .alignment(Alignment::Center)
        .render(foot, buf);
    }
}

/// "space: next · k: back ...", from the keys in force.
fn drops_hints(keys: &KeyMap) -> String {
    let commands = [
        Command::NextStory,
        Command::Up,
        Command::Read,
        Command::MarkRead,
        Command::OpenSource,
        Command::Share,
    ];
    let pairs: Vec<(String, &str)> = commands
        .iter()
        .zip(strings::DROPS_HINTS)
        .map(|(c, what)| (keys.first_key(Context::Drops, *c), what))
        .collect();
    strings::hints(&pairs)
}

fn paywall_hints(keys: &KeyMap) -> String {
    let pairs: Vec<(String, &str)> = [
        keys.first_key(Context::Drops, Command::Read),
        keys.first_key(Context::Drops, Command::Up),
        keys.first_key(Context::Global, Command::View(1)),
    ]
    .into_iter()
    .zip(strings::PAYWALL_HINTS)
    .collect();
    strings::hints(&pairs)
}

/// The paywall after the last story the server allowed; `text` names how many that was.
fn paywall(area: Rect, buf: &mut Buffer, text: &str, server: &str, keys: &KeyMap, t: Theme) {
    let width = area.width.saturating_sub(6).clamp(1, 64);
    let lines = vec![
        Line::styled(strings::PREMIUM_CONTENT, t.accent()),
        Line::default(),
        Line::raw(text),
        Line::default(),
        Line::from(vec![
            Span::styled(format!("{}: ", strings::SUBSCRIBE_BUTTON), t.strong()),
            Span::raw(strings::subscribe_at(server)),
        ]),
        Line::default(),
        Line::styled(strings::PAYWALL_NOTE, t.dim()),
        Line::default(),
        Line::styled(paywall_hints(keys), t.dim()),
    ];
    let height = 6
        + super::wrapped_height(text, width)
        + super::wrapped_height(
            &format!(
                "{}: {}",
                strings::SUBSCRIBE_BUTTON,
                strings::subscribe_at(server)
            ),
            width,
        )
        + super::wrapped_height(strings::PAYWALL_NOTE, width)
        + 1;
    Paragraph::new(lines)
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .render(super::centered(area, width, height), buf);
}

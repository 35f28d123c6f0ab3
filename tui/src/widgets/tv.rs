//! TV mode: the current story full-size, the position, the countdown and its gauge.

use radar_api::NewsItem;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Gauge, Paragraph, Widget, Wrap};

use crate::format;
use crate::keys::{Command, Context, KeyMap};
use crate::strings;
use crate::theme::Theme;
use crate::tv::TvState;

/// The TV view.
pub struct TvWidget<'a> {
    /// The stories loaded (the server's allowance for this reader).
    pub stories: &'a [NewsItem],
    /// How many stories the reader can reach in all ('n of m').
    pub total: usize,
    /// The keys in force, for the hints.
    pub keys: &'a KeyMap,
    /// The slideshow's state.
    pub state: &'a TvState,
    /// Styles.
    pub theme: Theme,
}

impl Widget for TvWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let block = Block::bordered().border_type(BorderType::Rounded);
        let inner = block.inner(area);
        block.render(area, buf);
        let [body, info, gauge, keys] = Layout::vertical([
            Constraint::Fill(1),
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(inner);

        let count = self.stories.len();
        match self.stories.get(self.state.index) {
            Some(story) => {
                let width = body.width.saturating_sub(8).clamp(1, 80);
                let title = format::title(story);
                let text = format::drop_text(story);
                let height =
                    4 + super::wrapped_height(&title, width) + super::wrapped_height(&text, width);
                let mut source = vec![Span::styled(
                    format::source(story).to_uppercase(),
                    t.accent(),
                )];
                if let Some(sources) = format::sources(story) {
                    source.push(Span::styled(format!(" · {sources}"), t.accent()));
                }
                Paragraph::new(vec![
                    Line::from(source),
                    Line::default(),
                    Line::styled(title, t.strong()),
                    Line::default(),
                    Line::raw(text),
                ])
                .alignment(Alignment::Center)
                .wrap(Wrap { trim: true })
                .render(super::centered(body, width, height), buf);
            }
            None => Line::raw(strings::NO_NEWS)
                .alignment(Alignment::Center)
                .render(super::centered(body, body.width, 1), buf),
        }

        let position = strings::tv_position(
            if count == 0 { 0 } else { self.state.index + 1 },
            self.total.max(count),
        );
        let countdown = if self.state.paused {
            strings::PAUSED.to_string()
        } else {
            strings::next_in(self.state.remaining_secs())
        };
        let pad = (info.width as usize).saturating_sub(position.len() + countdown.len() + 2);
        Line::from(vec![
            Span::styled(format!(" {position}"), t.accent()),
            Span::raw(" ".repeat(pad)),
            Span::styled(format!("{countdown} "), t.accent()),
        ])
        .render(info, buf);
        Gauge::default()
            .gauge_style(t.gauge())
            .ratio(self.state.progress())
            .label("")
            .use_unicode(true)
            .render(gauge, buf);
        Line::styled(
            super::truncate(&tv_hints(self.keys, self.state), keys.width as usize),
            t.dim(),
        )
        .alignment(Alignment::Center)
        .render(keys, buf);
    }
}

/// "Space: Pause · t: interval 10s ...", from the keys in force.
fn tv_hints(keys: &KeyMap, state: &TvState) -> String {
    let commands = [
        Command::Pause,
        Command::Interval,
        Command::Down,
        Command::Up,
    ];
    let mut pairs: Vec<(String, String)> = commands
        .iter()
        .map(|c| keys.first_key(Context::Tv, *c))
        .chain([keys.first_key(Context::Global, Command::Back)])
        .zip(strings::tv_hints(state.paused, state.interval))
        .collect();
    // "n/p: next/previous" reads better than two entries.
    let previous = pairs.remove(3);
    pairs[2] = (
        format!("{}/{}", pairs[2].0, previous.0),
        format!("{}/{}", pairs[2].1, previous.1),
    );
    strings::hints(&pairs)
}

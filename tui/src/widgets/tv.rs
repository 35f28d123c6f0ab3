//! TV mode: the current story full-size, the position, the countdown and its gauge.

use radar_api::NewsItem;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Gauge, Paragraph, Widget, Wrap};

use crate::format;
use crate::strings;
use crate::theme::Theme;
use crate::tv::TvState;

/// The TV view.
pub struct TvWidget<'a> {
    /// The stories shown (already capped for free readers).
    pub stories: &'a [NewsItem],
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
                Paragraph::new(vec![
                    Line::styled(format::source(story).to_uppercase(), t.accent()),
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

        let position =
            strings::tv_position(if count == 0 { 0 } else { self.state.index + 1 }, count);
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
            super::truncate(
                &strings::tv_keys(self.state.paused, self.state.interval),
                keys.width as usize,
            ),
            t.dim(),
        )
        .alignment(Alignment::Center)
        .render(keys, buf);
    }
}

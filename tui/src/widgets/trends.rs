//! The trends overlay: the rising and falling terms, each with a sparkline of its weekly
//! counts, its change and its newest story; or the loading and error states.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Sparkline, Widget};

use crate::app::TrendsOverlay;
use crate::load::Load;
use crate::strings;
use crate::theme::Theme;
use radar_api::trends::{Trend, TrendsPage};

/// Draws the trends centred over the view.
pub struct TrendsPopup<'a> {
    /// What to show.
    pub overlay: &'a TrendsOverlay,
    /// Styles.
    pub theme: Theme,
}

/// One row of the overlay: text, or a trend (its line and a sparkline beside it).
enum Row<'a> {
    Text(Line<'a>),
    Trend(&'a Trend),
}

/// Rows of a trend: its line, then its newest story.
fn rows(page: &TrendsPage, t: Theme) -> Vec<Row<'_>> {
    let mut rows = Vec::new();
    for (title, list) in [
        (strings::RISING, &page.rising),
        (strings::FALLING, &page.falling),
    ] {
        rows.push(Row::Text(Line::styled(title, t.accent())));
        if list.is_empty() {
            rows.push(Row::Text(Line::styled(strings::NO_TRENDS, t.dim())));
        }
        for trend in list {
            rows.push(Row::Trend(trend));
            if let Some(story) = trend.stories.first() {
                let source = story.source.clone().unwrap_or_else(|| "Source".into());
                rows.push(Row::Text(Line::from(vec![
                    Span::raw("    "),
                    Span::raw(story.title.clone()),
                    Span::styled(format!(" · {source}"), t.dim()),
                ])));
            }
        }
        rows.push(Row::Text(Line::default()));
    }
    if !page.subscriber {
        rows.push(Row::Text(Line::styled(
            strings::trends_free_limit(page.limit),
            t.dim(),
        )));
    }
    rows
}

impl Widget for TrendsPopup<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let popup = super::centered(area, 80, area.height.saturating_sub(2).max(10));
        Clear.render(popup, buf);
        let block = Block::bordered()
            .border_type(BorderType::Rounded)
            .title(Line::styled(
                format!(" {} ", strings::TRENDS_TITLE),
                t.accent(),
            ))
            .title_bottom(Line::styled(format!(" {} ", strings::TRENDS_KEYS), t.dim()));
        let inner = block.inner(popup);
        block.render(popup, buf);
        let page = match &self.overlay.trends {
            Load::Idle | Load::Loading => {
                Paragraph::new(Line::styled(strings::LOADING_TRENDS, t.dim())).render(inner, buf);
                return;
            }
            Load::Failed(e) => {
                Paragraph::new(vec![
                    Line::styled(strings::TRENDS_FAILED, t.error()),
                    Line::raw(e.clone()),
                    Line::raw(strings::TRENDS_RETRY),
                ])
                .render(inner, buf);
                return;
            }
            Load::Loaded(page) => page,
        };
        Paragraph::new(Line::styled(strings::TRENDS_ABOUT, t.dim())).render(inner, buf);
        let chart_width = 8u16;
        let top = inner.y + 2;
        let rows = rows(page, t)
            .into_iter()
            .skip(usize::from(self.overlay.scroll));
        for (y, row) in (top..inner.bottom()).zip(rows) {
            let line_area = Rect::new(inner.x, y, inner.width, 1);
            match row {
                Row::Text(line) => Paragraph::new(line).render(line_area, buf),
                Row::Trend(trend) => {
                    let spark = Rect::new(inner.x + 2, y, chart_width.min(inner.width), 1);
                    // A week with any mention keeps at least the lowest bar (an eighth of
                    // the largest), so 1 beside 10 is not drawn as nothing.
                    let max = trend.weeks.iter().copied().max().unwrap_or(0);
                    let least = u64::from(max.div_ceil(8));
                    let weeks: Vec<u64> = trend
                        .weeks
                        .iter()
                        .map(|w| match u64::from(*w) {
                            0 => 0,
                            w => w.max(least),
                        })
                        .collect();
                    Sparkline::default()
                        .data(&weeks)
                        .style(t.accent())
                        .render(spark, buf);
                    let text_x = spark.right() + 2;
                    let text = Rect::new(text_x, y, inner.right().saturating_sub(text_x), 1);
                    let change_style = if trend.change >= 1.0 {
                        t.strong()
                    } else {
                        t.error()
                    };
                    Paragraph::new(Line::from(vec![
                        Span::styled(trend.term.clone(), t.strong()),
                        Span::raw("  "),
                        Span::styled(strings::trend_change(trend.change), change_style),
                        Span::styled(
                            format!("  {}", strings::trend_counts(trend.this_week, trend.before)),
                            t.dim(),
                        ),
                    ]))
                    .render(text, buf);
                }
            }
        }
    }
}

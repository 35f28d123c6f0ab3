//! Styles, with a plain variant for terminals without colour (`NO_COLOR`, see
//! <https://no-color.org>): then emphasis comes from bold, reverse and underline only.

use ratatui::style::{Color, Modifier, Style};

/// The reader's styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Whether colours may be used.
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to anything non-empty.
    pub fn from_env() -> Self {
        Self {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn pick(&self, colored: Style, plain: Style) -> Style {
        if self.color { colored } else { plain }
    }

    /// Titles, the product name, the active tab.
    pub fn accent(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }
    /// The selected row.
    pub fn selected(&self) -> Style {
        self.pick(
            Style::new()
                .bg(Color::DarkGray)
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }
    /// Secondary text: dates, sources, hints.
    pub fn dim(&self) -> Style {
        self.pick(Style::new().fg(Color::Gray), Style::new())
    }
    /// Strong text: headlines.
    pub fn strong(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }
    /// Errors.
    pub fn error(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }
    /// Warnings.
    pub fn warning(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Yellow),
            Style::new().add_modifier(Modifier::UNDERLINED),
        )
    }
    /// Confirmations.
    pub fn success(&self) -> Style {
        self.pick(Style::new().fg(Color::Green), Style::new())
    }
    /// Marks (favourite, read) in lists.
    pub fn mark(&self) -> Style {
        self.pick(Style::new().fg(Color::Magenta), Style::new())
    }
    /// Words that match the search.
    pub fn highlight(&self) -> Style {
        self.pick(
            Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }
    /// The TV progress gauge.
    pub fn gauge(&self) -> Style {
        self.pick(Style::new().fg(Color::Cyan).bg(Color::Black), Style::new())
    }
}

//! The sign-in form: e-mail and password over the current view.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, StatefulWidget, Widget, Wrap};

use crate::strings;
use crate::theme::Theme;

/// Which field has the cursor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Field {
    /// E-mail.
    #[default]
    Email,
    /// Password.
    Password,
}

/// The form's state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SignInState {
    /// Typed e-mail.
    pub email: String,
    /// Typed password (never drawn).
    pub password: String,
    /// The focused field.
    pub focus: Field,
    /// Whether the request is on its way.
    pub busy: bool,
    /// The last failure.
    pub error: Option<String>,
    /// Where the terminal cursor goes, set when drawn.
    pub cursor: Option<Position>,
}

/// What a key did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInInput {
    /// Typing or moving; nothing to do outside the form.
    Edited,
    /// Esc: close the form.
    Cancel,
    /// Enter with both fields filled: sign in.
    Submit {
        /// E-mail, trimmed.
        email: String,
        /// Password as typed.
        password: String,
    },
}

impl SignInState {
    /// Applies a key.
    pub fn input(&mut self, key: KeyEvent) -> SignInInput {
        if self.busy {
            return match key.code {
                KeyCode::Esc => SignInInput::Cancel,
                _ => SignInInput::Edited,
            };
        }
        let field = match self.focus {
            Field::Email => &mut self.email,
            Field::Password => &mut self.password,
        };
        match key.code {
            KeyCode::Esc => return SignInInput::Cancel,
            KeyCode::Tab | KeyCode::BackTab | KeyCode::Down | KeyCode::Up => {
                self.focus = match self.focus {
                    Field::Email => Field::Password,
                    Field::Password => Field::Email,
                }
            }
            KeyCode::Backspace => {
                field.pop();
            }
            KeyCode::Char(c) => field.push(c),
            KeyCode::Enter if self.focus == Field::Email && self.password.is_empty() => {
                self.focus = Field::Password;
            }
            KeyCode::Enter => {
                let email = self.email.trim().to_string();
                if email.is_empty() || self.password.is_empty() {
                    self.error = Some(strings::MISSING_FIELDS.to_string());
                    return SignInInput::Edited;
                }
                self.busy = true;
                self.error = None;
                return SignInInput::Submit {
                    email,
                    password: self.password.clone(),
                };
            }
            _ => {}
        }
        SignInInput::Edited
    }

    /// The request failed: show why and let the reader try again.
    pub fn failed(&mut self, message: String) {
        self.busy = false;
        self.error = Some(message);
        self.password.clear();
        self.focus = Field::Password;
    }
}

/// Draws the form centred in the area.
pub struct SignInPopup {
    /// Styles.
    pub theme: Theme,
}

impl StatefulWidget for SignInPopup {
    type State = SignInState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut SignInState) {
        let t = self.theme;
        let popup = super::centered(area, 60, 11);
        Clear.render(popup, buf);
        let block = Block::bordered()
            .border_type(BorderType::Rounded)
            .title(Line::styled(format!(" {} ", strings::SIGN_IN), t.accent()))
            .title_bottom(Line::styled(
                format!(" {} ", strings::SIGN_IN_KEYS),
                t.dim(),
            ));
        let inner = block.inner(popup);
        block.render(popup, buf);
        let label = |field: Field, text: &str| {
            let style = if state.focus == field {
                t.accent()
            } else {
                t.dim()
            };
            Span::styled(format!("{text:<10}"), style)
        };
        let masked = "•".repeat(state.password.chars().count());
        let mut lines = vec![
            Line::default(),
            Line::from(vec![
                label(Field::Email, strings::EMAIL),
                Span::raw(state.email.clone()),
            ]),
            Line::default(),
            Line::from(vec![
                label(Field::Password, strings::PASSWORD),
                Span::raw(masked.clone()),
            ]),
            Line::default(),
        ];
        if state.busy {
            lines.push(Line::styled(strings::SIGNING_IN, t.dim()));
        } else if let Some(e) = &state.error {
            lines.push(Line::styled(e.clone(), t.error()));
        }
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .render(inner, buf);
        let (row, text) = match state.focus {
            Field::Email => (1, state.email.as_str()),
            Field::Password => (3, masked.as_str()),
        };
        let col = super::cells(Line::raw(text).width()).saturating_add(10);
        state.cursor = (inner.height > row && col < inner.width)
            .then(|| Position::new(inner.x + col, inner.y + row));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(state: &mut SignInState, text: &str) {
        for c in text.chars() {
            state.input(key(KeyCode::Char(c)));
        }
    }

    #[test]
    fn both_fields_are_required() {
        let mut form = SignInState::default();
        typed(&mut form, "a@b.c");
        form.focus = Field::Password;
        assert_eq!(form.input(key(KeyCode::Enter)), SignInInput::Edited);
        assert_eq!(form.error.as_deref(), Some(strings::MISSING_FIELDS));
        typed(&mut form, "pw");
        assert_eq!(
            form.input(key(KeyCode::Enter)),
            SignInInput::Submit {
                email: "a@b.c".into(),
                password: "pw".into()
            }
        );
        assert!(form.busy);
        form.failed("Sign in failed - Invalid login credentials".into());
        assert!(!form.busy && form.password.is_empty());
    }

    #[test]
    fn enter_in_the_email_field_moves_on_and_q_is_just_a_letter() {
        let mut form = SignInState::default();
        typed(&mut form, "quinn@example.com");
        assert_eq!(form.input(key(KeyCode::Enter)), SignInInput::Edited);
        assert_eq!(form.focus, Field::Password);
        assert_eq!(form.email, "quinn@example.com");
        form.input(key(KeyCode::Backspace));
        assert_eq!(form.input(key(KeyCode::Esc)), SignInInput::Cancel);
    }
}

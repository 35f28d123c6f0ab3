//! E-mail addresses: the one rule every path applies (sign-up, sign-in, recovery, the
//! admin commands), so an address refused in one place is refused everywhere.
//!
//! The syntax is RFC 5321/5322's `dot-atom@domain` as the `email_address` crate parses
//! it, with a top-level domain and without display names, quoted local parts, comments
//! or IP literals. Internationalised addresses are welcome, but every character must be
//! one Unicode allows in identifiers (UTS #39), which leaves out controls, invisible
//! joiners and direction overrides; each part must be of one script (no Latin mixed
//! with Cyrillic look-alikes) and must not be a non-Latin spelling that looks exactly
//! like a Latin one (`аррӏе`), so one address cannot pass for another.

use email_address::{EmailAddress, Options};
use unicode_security::{GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection};

use crate::{Error, Result};

/// The longest address, in bytes (RFC 5321's path limit less its angle brackets).
/// Checked before anything else looks at the text.
pub const MAX_EMAIL_LEN: usize = 254;

/// Why an address was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailProblem {
    /// Nothing was given.
    Empty,
    /// Longer than [`MAX_EMAIL_LEN`].
    TooLong,
    /// Not `name@domain.tld`.
    Format,
    /// A control, invisible or direction-changing character.
    Character,
    /// Mixed scripts or a look-alike of a Latin spelling.
    Confusable,
}

impl EmailProblem {
    /// A sentence for people, saying what to change.
    pub fn message(self) -> &'static str {
        match self {
            Self::Empty => "An email address is required.",
            Self::TooLong => "Unable to validate email address: it is longer than 254 characters.",
            Self::Format => {
                "Unable to validate email address: invalid format. Use an address like name@example.com."
            }
            Self::Character => {
                "Unable to validate email address: it contains invisible or control characters."
            }
            Self::Confusable => {
                "Unable to validate email address: it mixes alphabets or imitates another address."
            }
        }
    }
}

impl std::fmt::Display for EmailProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

/// Checks an address and answers its stored form: trimmed and lower-cased.
pub fn check_email(raw: &str) -> std::result::Result<String, EmailProblem> {
    // The length first: nothing below should ever walk a megabyte of input.
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(EmailProblem::Empty);
    }
    if trimmed.len() > MAX_EMAIL_LEN {
        return Err(EmailProblem::TooLong);
    }
    let email = trimmed.to_lowercase();
    if !email.chars().all(allowed_char) {
        return Err(EmailProblem::Character);
    }
    let options = Options::default()
        .without_display_text()
        .without_domain_literal()
        .with_required_tld();
    let parsed =
        EmailAddress::parse_with_options(&email, options).map_err(|_| EmailProblem::Format)?;
    let (local, domain) = (parsed.local_part(), parsed.domain());
    if local.starts_with('"') || email.contains('(') || local.contains("..") {
        return Err(EmailProblem::Format);
    }
    if std::iter::once(local)
        .chain(domain.split('.'))
        .any(is_confusable)
    {
        return Err(EmailProblem::Confusable);
    }
    Ok(email)
}

/// [`check_email`] with the store's error type.
pub fn normalize_email(raw: &str) -> Result<String> {
    check_email(raw).map_err(|p| Error::Invalid(p.message().to_string()))
}

/// ASCII specials of a `dot-atom` besides letters and digits.
const ATEXT_SPECIALS: &str = "!#$%&'*+-/=?^_`{|}~.@";

/// Letters, digits and the specials of ASCII; beyond ASCII, what identifiers may hold.
fn allowed_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || ATEXT_SPECIALS.contains(c)
    } else {
        c.identifier_allowed()
    }
}

/// A part that mixes scripts beyond UTS #39's "highly restrictive" level, or a
/// non-ASCII part whose confusable skeleton is plain ASCII.
fn is_confusable(part: &str) -> bool {
    let letters: String = part
        .chars()
        .filter(|c| !ATEXT_SPECIALS.contains(*c))
        .collect();
    if letters.is_ascii() {
        return false;
    }
    let restricted = matches!(
        letters.detect_restriction_level(),
        RestrictionLevel::ASCIIOnly
            | RestrictionLevel::SingleScript
            | RestrictionLevel::HighlyRestrictive
    );
    !restricted || unicode_security::skeleton(&letters).all(|c| c.is_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_addresses_are_accepted_and_lower_cased() {
        for (raw, stored) in [
            ("Ann@Example.com", "ann@example.com"),
            (
                "  first.last+tag@sub.example.co.uk ",
                "first.last+tag@sub.example.co.uk",
            ),
            ("o'brien@example.ie", "o'brien@example.ie"),
            ("josé@exemple.fr", "josé@exemple.fr"),
            ("пользователь@пример.рф", "пользователь@пример.рф"),
            ("用户@例子.中国", "用户@例子.中国"),
        ] {
            assert_eq!(check_email(raw).as_deref(), Ok(stored), "{raw}");
        }
    }

    #[test]
    fn malformed_addresses_are_refused() {
        for raw in [
            "a@@b.com",
            "a@b",
            "not-an-email",
            "@example.com",
            "a@",
            "a..b@example.com",
            ".a@example.com",
            "a@example..com",
            "a@-example.com",
            "\"quoted name\"@example.com",
            "a(comment)@example.com",
            "a@[127.0.0.1]",
            "Ann <ann@example.com>",
            "<script>alert(1)</script>@example.com",
            "a b@example.com",
        ] {
            assert!(check_email(raw).is_err(), "{raw} was accepted");
        }
        assert_eq!(check_email("   "), Err(EmailProblem::Empty));
    }

    #[test]
    fn the_length_is_checked_first() {
        let long = format!("{}@example.com", "a".repeat(1_000_000));
        assert_eq!(check_email(&long), Err(EmailProblem::TooLong));
        let at_limit = format!("{}@{}.com", "a".repeat(64), "b".repeat(63));
        assert!(at_limit.len() <= MAX_EMAIL_LEN);
        assert!(check_email(&at_limit).is_ok());
    }

    #[test]
    fn invisible_and_control_characters_are_refused() {
        for raw in [
            "ann\u{200d}@example.com", // zero-width joiner
            "ann\u{200b}@example.com", // zero-width space
            "ann@exa\u{202e}mple.com", // right-to-left override
            "ann\u{2066}@example.com", // left-to-right isolate
            "ann\u{0007}@example.com", // bell
            "ann\u{feff}@example.com", // byte-order mark
            "ann\u{00ad}@example.com", // soft hyphen
        ] {
            assert_eq!(check_email(raw), Err(EmailProblem::Character), "{raw:?}");
        }
    }

    #[test]
    fn look_alikes_are_refused() {
        for raw in [
            "ann@exаmple.com",    // Cyrillic а in a Latin word
            "pаypal@example.com", // the same in the local part
            "ann@аррӏе.com",      // all-Cyrillic spelling of apple
            "ann@gοοgle.com",     // Greek omicrons
        ] {
            assert_eq!(check_email(raw), Err(EmailProblem::Confusable), "{raw}");
        }
    }
}

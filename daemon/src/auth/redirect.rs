//! Where an e-mailed link may land (`redirect_to`), as GoTrue's
//! `utilities.IsRedirectURLValid` decides it, minus its loopback allowance unless asked:
//! - the site URL's origin (scheme, host and port) is always allowed;
//! - an entry of `--redirect-allow` is a glob matched against the whole requested URL
//!   without its fragment, with `.` and `/` as separators (GoTrue compiles its
//!   `URI_ALLOW_LIST` entries with `glob.MustCompile(uri, '.', '/')`): `*` matches a run
//!   of characters without a separator, `**` any run, `?` one non-separator character;
//!   an entry without wildcards must match exactly (`/cb` does not allow `/cbx`);
//! - a host that is an IP address other than loopback, or has characters a host name
//!   does not use, is never allowed, even by the allow list;
//! - loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) on any port, and the site's host
//!   on another port, only with `--redirect-loopback`: GoTrue allows them for native
//!   apps, but with the implicit flow a session would reach whatever listens there.
//!
//! Anything else falls back to the site URL. The matcher is a few lines written here:
//! the glob crates match paths with `/` alone as the separator, and GoTrue's entries
//! need `.` as one too (`http://*.example.com` must not allow `a.b.example.com`).

use std::net::IpAddr;

use crate::state::AppState;

/// Checks an allow-list entry at start-up: non-empty, without spaces.
pub(crate) fn parse_pattern(raw: &str) -> Result<String, String> {
    let p = raw.trim();
    if p.is_empty() {
        return Err("an empty redirect allow-list entry".into());
    }
    if p.chars().any(char::is_whitespace) {
        return Err(format!("{p:?}: an allow-list entry has no spaces"));
    }
    Ok(p.to_string())
}

/// The redirect target to use for `requested`: it when allowed, else the site URL.
pub(crate) fn allowed_redirect(state: &AppState, requested: Option<&str>) -> url::Url {
    let auth = &state.config.auth;
    let site = state.site_url.as_ref();
    requested
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .and_then(|raw| check(site, &auth.redirect_allow, auth.redirect_loopback, raw))
        .unwrap_or_else(|| site.clone())
}

/// The rule of the module docs; `Some` with the URL to land on when `raw` is allowed.
fn check(site: &url::Url, allow: &[String], loopback: bool, raw: &str) -> Option<url::Url> {
    // A relative target is on the site itself.
    let wanted = site.join(raw).ok()?;
    let web = matches!(wanted.scheme(), "http" | "https");
    if web && wanted.origin() == site.origin() {
        return Some(wanted);
    }
    let host = wanted.host_str().unwrap_or_default();
    let ip = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .ok();
    let is_loopback = host == "localhost" || ip.is_some_and(|ip| ip.is_loopback());
    if web && loopback {
        let same_host = wanted.scheme() == site.scheme() && wanted.host() == site.host();
        if is_loopback || same_host {
            return Some(wanted);
        }
    }
    if ip.is_some_and(|ip| !ip.is_loopback()) || (web && !regular_host(raw)) {
        return None;
    }
    let without_fragment = raw.split('#').next().unwrap_or_default();
    allow
        .iter()
        .any(|p| glob_match(p, without_fragment))
        .then_some(wanted)
}

/// Whether the host as written in `raw` uses only the characters of a host name
/// (letters, digits, `-`, `.`; GoTrue's `regularHostname`): `japanese。.example.com`
/// would otherwise become `japanese..example.com` once parsed and match a glob.
fn regular_host(raw: &str) -> bool {
    let Some((_, rest)) = raw.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host_port,
    };
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.'))
}

fn is_separator(c: char) -> bool {
    c == '.' || c == '/'
}

/// Matches `text` against a glob with `.` and `/` as separators (see the module docs).
fn glob_match(pattern: &str, text: &str) -> bool {
    #[derive(Clone, Copy)]
    enum Token {
        Char(char),
        One,
        Star,
        Super,
    }
    let mut tokens = Vec::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '*' if chars.peek() == Some(&'*') => {
                while chars.peek() == Some(&'*') {
                    chars.next();
                }
                Token::Super
            }
            '*' => Token::Star,
            '?' => Token::One,
            c => Token::Char(c),
        });
    }
    let text: Vec<char> = text.chars().collect();
    // matched[j]: the tokens so far match text[..j].
    let mut matched = vec![false; text.len() + 1];
    matched[0] = true;
    for token in tokens {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match token {
                Token::Char(c) => j > 0 && matched[j - 1] && text[j - 1] == c,
                Token::One => j > 0 && matched[j - 1] && !is_separator(text[j - 1]),
                Token::Super => matched[j] || (j > 0 && next[j - 1]),
                Token::Star => matched[j] || (j > 0 && next[j - 1] && !is_separator(text[j - 1])),
            };
        }
        matched = next;
    }
    matched[text.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GoTrue internal/api/verify_test.go, `TestVerifySignupWithRedirectURLContainedPath`:
    /// (site URL, allow list, requested, where the link lands). Radar lands on the
    /// parsed URL, so a bare origin gains its `/`.
    #[test]
    fn gotrues_own_allow_list_cases() {
        let cases: &[(&str, &[&str], &str, &str)] = &[
            (
                "http://localhost:3000/#/",
                &["http://localhost:3000"],
                "http://localhost:3000/#/",
                "http://localhost:3000/#/",
            ),
            (
                "https://someapp-something.codemagic.app/#/",
                &["http://localhost:3000"],
                "http://localhost:3000",
                "http://localhost:3000/",
            ),
            (
                "https://someapp-something.codemagic.app/#/",
                &["http://localhost:3000"],
                "http://localhost:3000/docs",
                "https://someapp-something.codemagic.app/#/",
            ),
            (
                "http://sub.test.dev:3000/#/",
                &["http://*.test.dev:3000"],
                "http://sub.test.dev:3000/#/",
                "http://sub.test.dev:3000/#/",
            ),
            (
                "http://sub.test.dev/#/",
                &["http://*.other.dev:3000"],
                "http://sub.other.dev:3000",
                "http://sub.other.dev:3000/",
            ),
            (
                "http://test.dev:3000/#/",
                &["http://*.allowed.dev:3000"],
                "http://sub.test.dev:3000/#/",
                "http://test.dev:3000/#/",
            ),
            (
                "http://test.dev:3000/#/",
                &["twitter://timeline"],
                "twitter://timeline",
                "twitter://timeline",
            ),
            (
                "http://test.dev:3000/#/",
                &["com.example.app://**"],
                "com.example.app://sign-in/v2",
                "com.example.app://sign-in/v2",
            ),
            (
                "http://localhost:3000",
                &["http://*.*.dev:3000"],
                "http://foo.bar.dev:3000",
                "http://foo.bar.dev:3000/",
            ),
            (
                "http://localhost:3000",
                &["http://*.dev:3000"],
                "http://foo.bar.dev:3000",
                "http://localhost:3000/",
            ),
            (
                "http://localhost:3000",
                &["http://test.dev:3000/*/*"],
                "http://test.dev:3000/bar/foo",
                "http://test.dev:3000/bar/foo",
            ),
            (
                "http://localhost:3000",
                &["http://test.dev:3000/*"],
                "http://test.dev:3000/bar/foo",
                "http://localhost:3000/",
            ),
            (
                "http://localhost:3000",
                &["http://*.example.com/*"],
                "http://something#.example.com/abc",
                "http://localhost:3000/",
            ),
            (
                "http://localhost:3000",
                &["http://*.example.com/*"],
                "http://japanese。.example.com/abc",
                "http://localhost:3000/",
            ),
        ];
        for (site, allow, requested, lands) in cases {
            let site = url::Url::parse(site).unwrap();
            let allow: Vec<String> = allow.iter().map(std::string::ToString::to_string).collect();
            let got = check(&site, &allow, false, requested).unwrap_or_else(|| site.clone());
            assert_eq!(got.as_str(), *lands, "{requested} with {allow:?}");
        }
    }

    #[test]
    fn globs_with_two_separators() {
        assert!(glob_match(
            "http://localhost:4000/**",
            "http://localhost:4000/a/b"
        ));
        assert!(!glob_match(
            "http://localhost:4000/*",
            "http://localhost:4000/a/b"
        ));
        assert!(glob_match(
            "http://localhost:4000/cb",
            "http://localhost:4000/cb"
        ));
        assert!(!glob_match(
            "http://localhost:4000/cb",
            "http://localhost:4000/cbx"
        ));
        assert!(glob_match("https://?.example.com", "https://a.example.com"));
        assert!(!glob_match(
            "https://?.example.com",
            "https://ab.example.com"
        ));
        assert!(glob_match("**", ""));
    }

    #[test]
    fn loopback_and_other_ports_only_behind_the_flag() {
        let site = url::Url::parse("http://localhost:3000").unwrap();
        for (raw, alone) in [
            ("http://localhost:8080/cb", false),
            ("http://127.0.0.1:9999/cb", false),
            ("http://[::1]:9999/cb", false),
            ("http://localhost:3000/cb", true),
        ] {
            assert_eq!(check(&site, &[], false, raw).is_some(), alone, "{raw}");
            assert!(
                check(&site, &[], true, raw).is_some(),
                "{raw} with the flag"
            );
        }
        let site = url::Url::parse("https://radar.example.com").unwrap();
        assert!(check(&site, &[], false, "https://radar.example.com:8443/").is_none());
        assert!(check(&site, &[], true, "https://radar.example.com:8443/").is_some());
        assert!(check(&site, &[], true, "http://radar.example.com/").is_none());
        // Other IP addresses never, even allow-listed by a glob; a loopback one when
        // allow-listed.
        let allow = vec!["http://**".to_string()];
        assert!(check(&site, &allow, true, "http://10.0.0.1/").is_none());
        let allow = vec!["http://127.0.0.1:4000/**".to_string()];
        assert!(check(&site, &allow, false, "http://127.0.0.1:4000/cb").is_some());
        assert!(check(&site, &allow, false, "http://127.0.0.1:4001/cb").is_none());
    }
}

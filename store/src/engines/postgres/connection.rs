//! The store URL (`postgres://…`, or libpq's `key=value` form): what the pool is built
//! from, and how it is shown. The password in it never reaches a log or an error: the
//! URL is only ever shown through [`Redacted`].

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::config::SslMode;

use crate::{Error, Result};

/// Connections each process keeps to the database unless the URL says otherwise
/// (`?pool_size=N`). PostgreSQL admits 100 connections by default: three daemons at 16
/// each and a few admin commands stay well within that, and past about twice its cores
/// a database gains nothing from more busy connections; the rest of the 16 are there
/// for requests that wait on a commit's flush to disk, which PostgreSQL shares among
/// the transactions committing together.
pub(super) const DEFAULT_POOL_SIZE: usize = 16;

/// How long opening a connection may take, unless the URL sets `connect_timeout`.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a request waits for a free connection before it is answered as
/// unavailable (all connections busy, or the database unreachable).
pub(super) const WAIT_TIMEOUT: Duration = Duration::from_secs(5);

/// The pool's own parameter in the URL, taken out before the rest is given to the
/// client (which refuses parameters it does not know).
const POOL_SIZE_PARAM: &str = "pool_size";

/// A store URL, shown with its password replaced by `***`.
#[derive(Clone, Copy)]
pub(crate) struct Redacted<'a>(pub &'a str);

impl fmt::Display for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact(self.0))
    }
}

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact(self.0))
    }
}

/// The URL with any password replaced by `***`: the `user:password@` of a URL, a
/// `password` query parameter, or a `password=` pair of the key-value form.
pub(crate) fn redact(url: &str) -> String {
    if is_url(url) {
        redact_url(url)
    } else {
        redact_pairs(url)
    }
}

fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    // The authority ends at the first '/' or '?'; its user info at its last '@'.
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((user_info, hosts)) => match user_info.split_once(':') {
            Some((user, _)) => format!("{user}:***@{hosts}"),
            None => format!("{user_info}@{hosts}"),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _)) if k == "password" => format!("{k}=***"),
                    _ => pair.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// `key=value` pairs, values optionally single-quoted with backslash escapes (libpq's
/// form): every `password` value becomes `***`, whatever it holds.
fn redact_pairs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    loop {
        let trimmed = rest.trim_start();
        out.push_str(&rest[..rest.len() - trimmed.len()]);
        rest = trimmed;
        if rest.is_empty() {
            return out;
        }
        let Some(eq) = rest.find('=') else {
            out.push_str(rest);
            return out;
        };
        let key = rest[..eq].trim();
        let after = rest[eq + 1..].trim_start();
        let value_len = value_extent(after);
        out.push_str(&rest[..=eq]);
        if key == "password" {
            out.push_str("***");
        } else {
            out.push_str(&after[..value_len]);
        }
        rest = &after[value_len..];
    }
}

/// How many bytes of `s` the value at its start takes.
fn value_extent(s: &str) -> usize {
    if let Some(body) = s.strip_prefix('\'') {
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '\'' => return i + 2,
                _ => {}
            }
        }
        s.len()
    } else {
        s.find(char::is_whitespace).unwrap_or(s.len())
    }
}

/// A store URL taken apart: the client's configuration and the pool's size.
pub(super) struct Target {
    /// What the client connects with.
    pub config: tokio_postgres::Config,
    /// Connections in the pool.
    pub pool_size: usize,
}

/// Reads a store URL. Errors name the URL only redacted.
pub(super) fn parse(url: &str) -> Result<Target> {
    let (rest, pool_size) = take_pool_size(url)?;
    let mut config = tokio_postgres::Config::from_str(&rest).map_err(|e| {
        Error::Open(format!(
            "the store URL {} is not a PostgreSQL connection URL: {e}",
            Redacted(url)
        ))
    })?;
    if config.get_ssl_mode() == SslMode::Require {
        return Err(Error::Open(format!(
            "the store URL {} asks for TLS (sslmode=require), which this build of Radar \
             does not speak to PostgreSQL yet: connect over a private network or a Unix \
             socket with sslmode=disable or prefer",
            Redacted(url)
        )));
    }
    if config.get_hosts().is_empty() {
        return Err(Error::Open(format!(
            "the store URL {} names no host: write postgres://USER@HOST/DATABASE, or \
             ?host=/path/to/socket/dir for a Unix socket",
            Redacted(url)
        )));
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("radar");
    }
    Ok(Target {
        config,
        pool_size: pool_size.unwrap_or(DEFAULT_POOL_SIZE),
    })
}

/// Takes `pool_size` out of a URL's query or the key-value form.
fn take_pool_size(url: &str) -> Result<(String, Option<usize>)> {
    let bad = |v: &str| {
        Error::Open(format!(
            "pool_size in the store URL must be a whole number from 1 to 1000, not {v:?}"
        ))
    };
    let read = |v: &str| -> Result<usize> {
        match v.parse::<usize>() {
            Ok(n) if (1..=1000).contains(&n) => Ok(n),
            _ => Err(bad(v)),
        }
    };
    let mut size = None;
    if is_url(url) {
        let Some((head, query)) = url.split_once('?') else {
            return Ok((url.to_string(), None));
        };
        let mut kept = Vec::new();
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some((POOL_SIZE_PARAM, v)) => size = Some(read(v)?),
                _ => kept.push(pair),
            }
        }
        let rest = if kept.is_empty() {
            head.to_string()
        } else {
            format!("{head}?{}", kept.join("&"))
        };
        Ok((rest, size))
    } else {
        let mut rest = String::new();
        for part in url.split_whitespace() {
            if let Some((POOL_SIZE_PARAM, v)) = part.split_once('=') {
                size = Some(read(v)?);
            } else {
                if !rest.is_empty() {
                    rest.push(' ');
                }
                rest.push_str(part);
            }
        }
        // A quoted value with spaces would be split above: keep the form as given
        // when there was no pool size to take out.
        if size.is_none() {
            return Ok((url.to_string(), None));
        }
        Ok((rest, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        for (url, shown) in [
            (
                "postgres://radar:s3cr%40t@db.example:5432/radar",
                "postgres://radar:***@db.example:5432/radar",
            ),
            (
                "postgresql://radar:p@ss@db/radar?sslmode=disable",
                "postgresql://radar:***@db/radar?sslmode=disable",
            ),
            ("postgres://radar@db/radar", "postgres://radar@db/radar"),
            (
                "postgres:///radar?host=/run/pg&password=hunter2&user=radar",
                "postgres:///radar?host=/run/pg&password=***&user=radar",
            ),
            (
                "host=/run/pg user=radar password='it\\'s a secret' dbname=radar",
                "host=/run/pg user=radar password=*** dbname=radar",
            ),
            ("host=db password=plain", "host=db password=***"),
        ] {
            assert_eq!(redact(url), shown, "{url}");
            assert!(!format!("{}", Redacted(url)).contains("hunter2"));
            assert!(!format!("{:?}", Redacted(url)).contains("s3cr"));
        }
    }

    #[test]
    fn the_pool_size_is_taken_out_of_the_url() {
        let t = parse("postgres://radar@db/radar?pool_size=4&sslmode=disable").unwrap();
        assert_eq!(t.pool_size, 4);
        assert_eq!(t.config.get_dbname(), Some("radar"));
        assert_eq!(t.config.get_application_name(), Some("radar"));
        let t = parse("host=/run/pg user=radar pool_size=7").unwrap();
        assert_eq!(t.pool_size, 7);
        assert_eq!(
            parse("postgres://radar@db/radar").unwrap().pool_size,
            DEFAULT_POOL_SIZE
        );
        for bad in [
            "postgres://db/r?pool_size=0",
            "postgres://db/r?pool_size=many",
        ] {
            assert!(matches!(parse(bad), Err(Error::Open(_))), "{bad}");
        }
    }

    #[test]
    fn errors_name_the_url_without_its_password() {
        for url in [
            "postgres://radar:hunter2@db/radar?frobnicate=1",
            "postgres://radar:hunter2@db/radar?sslmode=require",
        ] {
            let Err(Error::Open(message)) = parse(url) else {
                panic!("{url} was accepted")
            };
            assert!(!message.contains("hunter2"), "{message}");
            assert!(message.contains("radar:***@db"), "{message}");
        }
    }
}

//! Fetching a feed document over HTTP with a timeout and a conditional GET: the ETag and
//! Last-Modified of the last good answer go back as If-None-Match and If-Modified-Since,
//! so an unchanged feed costs one 304. What the source says about the next poll comes
//! back too: `Cache-Control: max-age` of an answer, `Retry-After` of a 429 or 503 (see
//! [`super::schedule`]).

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use reqwest::header::{
    CACHE_CONTROL, CONTENT_TYPE, ETAG, HeaderMap, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED,
    RETRY_AFTER,
};

use radar_store::Feed;

/// Largest feed document accepted, in bytes.
pub const MAX_FEED_BYTES: usize = 10 * 1024 * 1024;

/// What the server answered.
#[derive(Debug)]
pub enum Fetched {
    /// 304: nothing new since the validators we sent.
    NotModified {
        /// Its Cache-Control max-age.
        max_age: Option<Duration>,
    },
    /// A new document, with the validators to send next time.
    Document {
        /// Its Cache-Control max-age.
        max_age: Option<Duration>,
        /// The body.
        body: Vec<u8>,
        /// The answer's Content-Type (its charset decides how the body is read).
        content_type: Option<String>,
        /// The answer's ETag.
        etag: Option<String>,
        /// The answer's Last-Modified.
        last_modified: Option<String>,
    },
}

/// Why a fetch failed.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchError {
    /// A sentence saying what went wrong.
    pub message: String,
    /// The source refused for now (429 or 503).
    pub refused: bool,
    /// How long it asked us to wait (its Retry-After).
    pub retry_after: Option<Duration>,
}

impl From<String> for FetchError {
    fn from(message: String) -> Self {
        Self {
            message,
            refused: false,
            retry_after: None,
        }
    }
}

/// GETs the feed; any failure (network, timeout, non-2xx status, oversized body) is a
/// sentence saying what went wrong, with the source's Retry-After for a 429 or 503 (read
/// against `now`, the scheduler's clock, when it is a date).
pub async fn fetch(
    http: &reqwest::Client,
    feed: &Feed,
    timeout: Duration,
    now: DateTime<Utc>,
) -> Result<Fetched, FetchError> {
    let mut req = http.get(&feed.url).timeout(timeout);
    if let Some(etag) = &feed.etag {
        req = req.header(IF_NONE_MATCH, etag);
    }
    if let Some(lm) = &feed.last_modified {
        req = req.header(IF_MODIFIED_SINCE, lm);
    }
    let mut res = req.send().await.map_err(|e| describe(&e, timeout))?;
    let status = res.status();
    let max_age = cache_max_age(res.headers());
    if status == StatusCode::NOT_MODIFIED {
        return Ok(Fetched::NotModified { max_age });
    }
    if matches!(
        status,
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
    ) {
        let retry_after = res
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| super::schedule::retry_after(v, now));
        let message = match retry_after {
            Some(wait) => format!(
                "the server answered {status} and asked to wait {} s",
                wait.as_secs()
            ),
            None => format!("the server answered {status}"),
        };
        return Err(FetchError {
            message,
            refused: true,
            retry_after,
        });
    }
    if !status.is_success() {
        return Err(format!("the server answered {status}").into());
    }
    let header = |name| {
        res.headers()
            .get(name)
            .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    let content_type = header(CONTENT_TYPE);
    let etag = header(ETAG);
    let last_modified = header(LAST_MODIFIED);
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(|e| describe(&e, timeout))? {
        if body.len() + chunk.len() > MAX_FEED_BYTES {
            return Err(format!(
                "the feed is larger than {} MiB",
                MAX_FEED_BYTES / 1024 / 1024
            )
            .into());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched::Document {
        max_age,
        body,
        content_type,
        etag,
        last_modified,
    })
}

fn cache_max_age(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get(CACHE_CONTROL)
        .and_then(|v| v.to_str().ok())
        .and_then(super::schedule::max_age)
}

fn describe(e: &reqwest::Error, timeout: Duration) -> String {
    if e.is_timeout() {
        format!("no answer within {} s (timed out)", timeout.as_secs_f32())
    } else if e.is_connect() {
        format!("cannot connect: {}", root_cause(e))
    } else {
        format!("request failed: {}", root_cause(e))
    }
}

fn root_cause(e: &dyn std::error::Error) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

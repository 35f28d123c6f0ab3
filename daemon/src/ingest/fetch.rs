//! Fetching a feed document over HTTP with a timeout and a conditional GET: the ETag and
//! Last-Modified of the last good answer go back as If-None-Match and If-Modified-Since,
//! so an unchanged feed costs one 304.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED};

use radar_store::Feed;

/// Largest feed document accepted, in bytes.
pub const MAX_FEED_BYTES: usize = 10 * 1024 * 1024;

/// What the server answered.
#[derive(Debug)]
pub enum Fetched {
    /// 304: nothing new since the validators we sent.
    NotModified,
    /// A new document, with the validators to send next time.
    Document {
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

/// GETs the feed; any failure (network, timeout, non-2xx status, oversized body) is a
/// sentence saying what went wrong.
pub async fn fetch(
    http: &reqwest::Client,
    feed: &Feed,
    timeout: Duration,
) -> Result<Fetched, String> {
    let mut req = http.get(&feed.url).timeout(timeout);
    if let Some(etag) = &feed.etag {
        req = req.header(IF_NONE_MATCH, etag);
    }
    if let Some(lm) = &feed.last_modified {
        req = req.header(IF_MODIFIED_SINCE, lm);
    }
    let mut res = req.send().await.map_err(|e| describe(&e, timeout))?;
    let status = res.status();
    if status == StatusCode::NOT_MODIFIED {
        return Ok(Fetched::NotModified);
    }
    if !status.is_success() {
        return Err(format!("the server answered {status}"));
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
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched::Document {
        body,
        content_type,
        etag,
        last_modified,
    })
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

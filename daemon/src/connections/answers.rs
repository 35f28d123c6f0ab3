//! Answers the connection layer writes itself, in the error shape of their surface.
//!
//! hyper refuses a request head it cannot parse before the application sees it, and
//! writes that refusal itself with an empty body: 400 for a malformed request line or
//! header (method, target, version, a header's name, `Content-Length` or
//! `Transfer-Encoding`), 414 for a target over 65,534 bytes, 431 for more than
//! [`MAX_HEADERS`] headers or a head over [`MAX_HEAD_BYTES`]. It has no hook for their
//! content, so the socket wrapper ([`super::activity::Watched`]) recognises such a
//! refusal as it is written (one of those statuses, `Content-Length: 0`, no other
//! header than `Date` and `Connection`, which no answer of the application has) and
//! writes this module's JSON answer of the same status in its place. Every other
//! status hyper can write comes from the application.

use std::pin::pin;
use std::task::{Context, Poll, Waker};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::auth::error::AuthError;
use crate::error::ApiError;

/// Headers a request may have; hyper's default, set explicitly so the 431 answer can say it.
pub(super) const MAX_HEADERS: usize = 100;
/// Largest request head in bytes, as hyper's read buffer bounds it (its default: 8 KiB
/// plus 100 headers of 4 KiB), set explicitly so the 431 answer can say it.
pub(super) const MAX_HEAD_BYTES: usize = 8192 + 4096 * 100;
/// hyper's limit on a request target (`u16::MAX - 1`), past which it answers 414.
const MAX_URI_BYTES: usize = 65_534;

/// The JSON answer standing for hyper's empty refusal `written`, or `None` when
/// `written` is anything else. `start` is the beginning of the refused request, when
/// known: a target under `/auth/v1` gets the auth protocol's shape.
pub(super) fn replace_automatic(written: &[u8], start: Option<&[u8]>) -> Option<Vec<u8>> {
    // The cheap test first: every write of every answer comes through here.
    let rest = written
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| written.strip_prefix(b"HTTP/1.0 "))?;
    let status = match rest.get(..4)? {
        b"400 " => StatusCode::BAD_REQUEST,
        b"414 " => StatusCode::URI_TOO_LONG,
        b"431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    let head = std::str::from_utf8(written)
        .ok()?
        .strip_suffix("\r\n\r\n")?;
    let mut empty = false;
    for line in head.split("\r\n").skip(1) {
        let (name, value) = line.split_once(':')?;
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" if value.trim() == "0" => empty = true,
            "date" | "connection" => {}
            _ => return None,
        }
    }
    if !empty {
        return None;
    }
    let (code, message) = match status {
        StatusCode::BAD_REQUEST => (
            "invalid_request",
            "The request is not valid HTTP/1.1: its request line or one of its headers is \
             malformed."
                .to_string(),
        ),
        StatusCode::URI_TOO_LONG => (
            "uri_too_long",
            format!(
                "The request's URI is longer than this server accepts ({MAX_URI_BYTES} bytes)."
            ),
        ),
        _ => (
            "headers_too_large",
            format!(
                "The request's headers are larger than this server accepts ({MAX_HEADERS} \
                 headers, {} KiB in all).",
                MAX_HEAD_BYTES / 1024
            ),
        ),
    };
    let e = ApiError::new(status, code, message);
    Some(if start.is_some_and(targets_auth) {
        raw(AuthError::from(e).into_response())
    } else {
        raw(e.into_response())
    })
}

/// The answer to a connection past its peer's cap, written before any request is read:
/// the target is unknown, so it has the daemon's own shape.
pub(super) fn too_many_connections(cap: usize) -> Vec<u8> {
    raw(ApiError::too_many(
        "too_many_connections",
        format!(
            "This client has too many connections open to the server (at most {cap}). \
             Close some, or try again shortly."
        ),
        1,
    )
    .into_response())
}

/// Whether a request starting with `start` (`METHOD SP target ...`) is for `/auth/v1`.
fn targets_auth(start: &[u8]) -> bool {
    let Some(space) = start.iter().position(|&b| b == b' ') else {
        return false;
    };
    match start[space + 1..].strip_prefix(b"/auth/v1") {
        Some(rest) => matches!(rest.first(), None | Some(b'/' | b'?' | b' ')),
        None => false,
    }
}

/// `res` as HTTP/1.1 bytes, closing the connection after it. Only for answers whose
/// body is already whole (an error's JSON), which one poll yields.
fn raw(res: Response) -> Vec<u8> {
    let (parts, body) = res.into_parts();
    let mut body_read = pin!(axum::body::to_bytes(body, usize::MAX));
    let Poll::Ready(Ok(body)) = body_read
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    else {
        unreachable!("an error answer's body is in memory")
    };
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        parts.status.as_str(),
        parts.status.canonical_reason().unwrap_or("")
    )
    .into_bytes();
    for (name, value) in &parts.headers {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(answer: &[u8]) -> serde_json::Value {
        let text = std::str::from_utf8(answer).unwrap();
        serde_json::from_str(&text[text.find("\r\n\r\n").unwrap() + 4..]).unwrap()
    }

    const HYPER_400: &[u8] =
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Tue, 01 Jul 2025 00:00:00 GMT\r\n\r\n";

    #[test]
    fn hyper_refusals_become_json_in_their_surface_shape() {
        let api = replace_automatic(HYPER_400, Some(b"GET /api/news HTTP/1.1\r\n")).unwrap();
        assert!(api.starts_with(b"HTTP/1.1 400 Bad Request\r\n"));
        assert_eq!(body(&api)["error"], "invalid_request");
        let auth = replace_automatic(HYPER_400, Some(b"POST /auth/v1/token?grant")).unwrap();
        // GoTrue's initial form: the request's version header is not known here.
        assert_eq!(body(&auth)["code"], 400);
        assert_eq!(body(&auth)["error_code"], "validation_failed");
        assert!(
            std::str::from_utf8(&auth)
                .unwrap()
                .contains("x-sb-error-code: validation_failed")
        );
        let unknown = replace_automatic(HYPER_400, None).unwrap();
        assert_eq!(body(&unknown)["error"], "invalid_request");
        let long = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(
            body(&replace_automatic(long, None).unwrap())["error"],
            "uri_too_long"
        );
    }

    #[test]
    fn answers_of_the_application_pass_unchanged() {
        for written in [
            &b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n",
            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nbody",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n",
            b"{\"items\": []}",
        ] {
            assert!(replace_automatic(written, None).is_none(), "{written:?}");
        }
    }

    #[test]
    fn only_the_auth_surface_is_recognised_as_auth() {
        assert!(targets_auth(b"GET /auth/v1/user HTTP/1.1"));
        assert!(targets_auth(b"GET /auth/v1?x HTTP/1.1"));
        assert!(!targets_auth(b"GET /auth/v10 HTTP/1.1"));
        assert!(!targets_auth(b"GET /api/auth/v1 HTTP/1.1"));
        assert!(!targets_auth(b"GARBAGE"));
    }
}

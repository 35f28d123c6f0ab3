//! The daemon's HTTP API as the reader uses it. Request and answer types are the API
//! contract's (`radar_api`); this module only adds the calls and turns failures into
//! messages for people.

use std::time::Duration;

use chrono::{DateTime, Utc};
use radar_api::account::UserMetadata;
use radar_api::auth::{AuthPasswordGrant, AuthRefreshGrant, AuthSession};
use radar_api::search::SearchPage;
use radar_api::{
    FeedPage, Mark, MarkOlderBody, MarkResult, NewsItem, OlderThan, OpenBody, Opened, OpenedFrom,
    ReadBeforeBody, ReadBeforeState, SharedItem, Takeaways, UnreadCount,
};
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, RequestBuilder};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::OnceCell;

use crate::strings;

/// A failed call: the HTTP status when the server answered, and a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The answer's status; `None` when there was no answer (down, slow, unreadable).
    pub status: Option<u16>,
    /// The server's message, or what went wrong on the way.
    pub message: String,
}

impl ApiError {
    /// Whether the server refused the credentials.
    pub fn is_unauthorized(&self) -> bool {
        self.status == Some(401)
    }

    /// Whether the server said only subscribers may do this (403 `subscription_required`):
    /// the reader's idea of its subscription is out of date.
    pub fn is_subscription_required(&self) -> bool {
        self.status == Some(403)
    }

    /// Whether the change never reached a working server (no answer, or the server
    /// failed): the reader keeps it and sends it again later.
    pub fn is_unsent(&self) -> bool {
        self.status.is_none_or(|s| s >= 500)
    }
}

impl std::fmt::Display for ApiError {
    /// docs/product.md §8: "the status code, a colon and a space, then the body text".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            Some(status) => write!(f, "{status}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The result of a call.
pub type ApiResult<T> = Result<T, ApiError>;

/// How long a call may take before the reader says the server is too slow.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A client of one daemon.
pub struct Api {
    http: reqwest::Client,
    base: String,
    anon_key: OnceCell<String>,
}

impl Api {
    /// A client of the daemon at `base` (`http://127.0.0.1:8080`).
    pub fn new(base: &str) -> anyhow::Result<Self> {
        Self::with_timeout(base, REQUEST_TIMEOUT)
    }

    /// A client whose calls give up after `timeout`.
    pub fn with_timeout(base: &str, timeout: Duration) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(3)))
            .timeout(timeout)
            .user_agent(concat!("radar-tui/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_string(),
            anon_key: OnceCell::new(),
        })
    }

    /// The server's address.
    pub fn base(&self) -> &str {
        &self.base
    }

    fn request(&self, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
        let req = self.http.request(method, format!("{}{path}", self.base));
        match token {
            Some(t) => req.bearer_auth(t),
            None => req,
        }
    }

    async fn send<T: DeserializeOwned>(&self, req: RequestBuilder) -> ApiResult<T> {
        let req = req.build().map_err(|e| self.transport(e))?;
        let asked = format!("{} {}", req.method(), req.url().path());
        let res = self
            .http
            .execute(req)
            .await
            .map_err(|e| self.transport(e))?;
        let status = res.status();
        let content_type = res
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .filter(|v| !v.is_empty());
        let text = res.text().await.map_err(|e| self.transport(e))?;
        let answered = Answered {
            asked,
            status,
            content_type,
        };
        // A web page is never Radar's answer, whatever its status: say what answered
        // instead of showing its HTML.
        if answered.is_html() || text.trim_start().starts_with('<') {
            return Err(self.not_radar(&answered, strings::RADAR_ANSWERS_JSON));
        }
        if !status.is_success() {
            return Err(ApiError {
                status: Some(status.as_u16()),
                message: error_message(&text, status),
            });
        }
        // An empty body reads as JSON null, so `()` answers work too.
        let body = if text.trim().is_empty() {
            "null"
        } else {
            &text
        };
        serde_json::from_str(body).map_err(|e| {
            let expected = if e.is_syntax() || e.is_eof() {
                strings::RADAR_ANSWERS_JSON.to_string()
            } else {
                strings::not_radars_json(&e.to_string())
            };
            self.not_radar(&answered, &expected)
        })
    }

    /// The answer did not come from a Radar server: no status (nothing Radar said), and a
    /// message naming the request, what answered and what Radar would have answered.
    fn not_radar(&self, answered: &Answered, expected: &str) -> ApiError {
        let what = format!(
            "{}, {}",
            answered.status,
            answered
                .content_type
                .as_deref()
                .unwrap_or("no content type")
        );
        ApiError {
            status: None,
            message: strings::not_radar(&self.base, &answered.asked, &what, expected),
        }
    }

    fn transport(&self, e: reqwest::Error) -> ApiError {
        let message = if e.is_timeout() {
            strings::too_slow(&self.base)
        } else {
            strings::unreachable(&self.base)
        };
        ApiError {
            status: None,
            message,
        }
    }

    /// `GET /api/news[?cursor=]`.
    pub async fn feed(&self, token: Option<&str>, cursor: Option<&str>) -> ApiResult<FeedPage> {
        let mut req = self.request(Method::GET, "/api/news", token);
        if let Some(c) = cursor {
            req = req.query(&[("cursor", c)]);
        }
        self.send(req).await
    }

    /// The first `pages` pages of the feed, each asked for with the previous one's
    /// `nextCursor`, as one page: the items in order, and the last page's cursor and
    /// state. This is how the reader refills what it has loaded after marks change.
    pub async fn feed_pages(&self, token: Option<&str>, pages: usize) -> ApiResult<FeedPage> {
        let mut all = self.feed(token, None).await?;
        for _ in 1..pages {
            let Some(cursor) = all.next_cursor.clone() else {
                break;
            };
            let next = self.feed(token, Some(&cursor)).await?;
            all.items.extend(next.items);
            all.next_cursor = next.next_cursor;
            all.has_more = next.has_more;
            all.subscriber = next.subscriber;
        }
        Ok(all)
    }

    /// `GET /api/search?q=[&cursor=]`: one page of results for a signed-in reader.
    pub async fn search(
        &self,
        token: &str,
        query: &str,
        cursor: Option<&str>,
    ) -> ApiResult<SearchPage> {
        let mut req = self
            .request(Method::GET, "/api/search", Some(token))
            .query(&[("q", query)]);
        if let Some(c) = cursor {
            req = req.query(&[("cursor", c)]);
        }
        self.send(req).await
    }

    /// `GET /api/trends`: this week's rising and falling terms.
    pub async fn trends(&self, token: &str) -> ApiResult<radar_api::trends::TrendsPage> {
        self.send(self.request(Method::GET, "/api/trends", Some(token)))
            .await
    }

    /// `GET /api/news/{id}/takeaways` (subscribers).
    pub async fn takeaways(&self, token: &str, id: &str) -> ApiResult<Takeaways> {
        let path = format!("/api/news/{}/takeaways", encode(id));
        self.send(self.request(Method::GET, &path, Some(token)))
            .await
    }

    /// `GET /api/user/metadata`: the server's word on the subscription.
    pub async fn metadata(&self, token: &str) -> ApiResult<UserMetadata> {
        self.send(self.request(Method::GET, "/api/user/metadata", Some(token)))
            .await
    }

    /// `GET /api/favorites`, `/api/hidden` or `/api/read`.
    pub async fn marked(&self, token: &str, mark: Mark) -> ApiResult<Vec<NewsItem>> {
        self.send(self.request(
            Method::GET,
            &format!("/api/{}", mark.path_segment()),
            Some(token),
        ))
        .await
    }

    /// `POST` (on) or `DELETE` (off) `/api/{mark}/{id}`; answers the item's marks now.
    pub async fn set_mark(
        &self,
        token: &str,
        mark: Mark,
        id: &str,
        on: bool,
    ) -> ApiResult<MarkResult> {
        let method = if on { Method::POST } else { Method::DELETE };
        let path = format!("/api/{}/{}", mark.path_segment(), encode(id));
        self.send(self.request(method, &path, Some(token))).await
    }

    /// `POST /api/news/{id}/open`: the reader opened an item from `from`; the server
    /// decides whether that reads it and answers its marks.
    pub async fn open_item(&self, token: &str, id: &str, from: OpenedFrom) -> ApiResult<Opened> {
        let path = format!("/api/news/{}/open", encode(id));
        let req = self
            .request(Method::POST, &path, Some(token))
            .json(&OpenBody { from });
        self.send(req).await
    }

    /// `GET /api/unread`: how many items the reader may still read in the feed.
    pub async fn unread(&self, token: &str) -> ApiResult<UnreadCount> {
        self.send(self.request(Method::GET, "/api/unread", Some(token)))
            .await
    }

    /// `POST /api/read-before` with `{"olderThan":"all"}`: every item of the feed without a
    /// mark counts as read, in one write on the server.
    pub async fn mark_feed_read(&self, token: &str) -> ApiResult<ReadBeforeState> {
        let req = self
            .request(Method::POST, "/api/read-before", Some(token))
            .json(&MarkOlderBody {
                older_than: OlderThan::All,
            });
        self.send(req).await
    }

    /// `PUT /api/read-before`: puts the cut-off `at` back (the undo of the above).
    pub async fn put_read_before(
        &self,
        token: &str,
        at: Option<DateTime<Utc>>,
    ) -> ApiResult<ReadBeforeState> {
        let req = self
            .request(Method::PUT, "/api/read-before", Some(token))
            .json(&ReadBeforeBody { read_before: at });
        self.send(req).await
    }

    /// `POST /api/shared/{id}` with `{"platform":"linkedin"}`.
    pub async fn share(&self, token: &str, id: &str) -> ApiResult<()> {
        let req = self
            .request(
                Method::POST,
                &format!("/api/shared/{}", encode(id)),
                Some(token),
            )
            .json(&serde_json::json!({"platform": "linkedin"}));
        self.send::<Value>(req).await.map(drop)
    }

    /// `GET /api/shared`.
    pub async fn shared(&self, token: &str) -> ApiResult<Vec<SharedItem>> {
        self.send(self.request(Method::GET, "/api/shared", Some(token)))
            .await
    }

    /// `GET /api/alerts`: the reader's alerts and the count of what they found unseen.
    pub async fn alerts(&self, token: &str) -> ApiResult<radar_api::alerts::AlertList> {
        self.send(self.request(Method::GET, "/api/alerts", Some(token)))
            .await
    }

    /// `GET /api/alerts/matches`: what the alerts found, newest first; the server counts
    /// it seen from then on.
    pub async fn alert_hits(&self, token: &str) -> ApiResult<radar_api::alerts::AlertHits> {
        self.send(self.request(Method::GET, "/api/alerts/matches", Some(token)))
            .await
    }

    /// The install's anonymous key (`GET /api/config`), fetched once.
    async fn anon_key(&self) -> ApiResult<&str> {
        let key = self
            .anon_key
            .get_or_try_init(|| async {
                let config: Value = self
                    .send(self.request(Method::GET, "/api/config", None))
                    .await?;
                config["anonKey"]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| ApiError {
                        status: None,
                        message: strings::not_radar(
                            &self.base,
                            "GET /api/config",
                            "JSON without anonKey",
                            strings::RADAR_HAS_ANON_KEY,
                        ),
                    })
            })
            .await?;
        Ok(key)
    }

    async fn token_grant(&self, grant: &str, body: Value) -> ApiResult<AuthSession> {
        let key = self.anon_key().await?.to_string();
        let req = self
            .request(Method::POST, "/auth/v1/token", None)
            .query(&[("grant_type", grant)])
            .header("apikey", key)
            .json(&body);
        self.send(req).await
    }

    /// Signs in with e-mail and password.
    pub async fn sign_in(&self, email: &str, password: &str) -> ApiResult<AuthSession> {
        let body = AuthPasswordGrant {
            email: email.to_string(),
            password: password.to_string(),
        };
        self.token_grant(
            "password",
            serde_json::to_value(body).expect("grant serialises"),
        )
        .await
    }

    /// Trades the refresh token for a new session.
    pub async fn refresh(&self, refresh_token: &str) -> ApiResult<AuthSession> {
        let body = AuthRefreshGrant {
            refresh_token: refresh_token.to_string(),
        };
        self.token_grant(
            "refresh_token",
            serde_json::to_value(body).expect("grant serialises"),
        )
        .await
    }

    /// Ends the session on the server.
    pub async fn sign_out(&self, token: &str) -> ApiResult<()> {
        let key = self.anon_key().await?.to_string();
        let req = self
            .request(Method::POST, "/auth/v1/logout", Some(token))
            .header("apikey", key);
        self.send::<Value>(req).await.map(drop)
    }
}

/// What answered a request, for the message when it was not Radar.
struct Answered {
    /// `GET /api/news`.
    asked: String,
    status: reqwest::StatusCode,
    /// The media type without parameters, lower-case.
    content_type: Option<String>,
}

impl Answered {
    fn is_html(&self) -> bool {
        self.content_type
            .as_deref()
            .is_some_and(|c| c.contains("html"))
    }
}

/// Percent-encodes an id for a path segment.
fn encode(id: &str) -> String {
    url::form_urlencoded::byte_serialize(id.as_bytes()).collect()
}

/// The message of an error answer: `message` of the API's `{"error","message"}`, `msg`
/// of the auth protocol's `{"code","error_code","msg"}`, or else the body or status text.
fn error_message(text: &str, status: reqwest::StatusCode) -> String {
    let json: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    for field in ["message", "msg", "error_description"] {
        if let Some(m) = json[field].as_str().filter(|m| !m.is_empty()) {
            return m.to_string();
        }
    }
    if !text.trim().is_empty() {
        return text.trim().chars().take(200).collect();
    }
    status.canonical_reason().unwrap_or("error").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_come_from_either_error_shape() {
        let s = reqwest::StatusCode::BAD_REQUEST;
        assert_eq!(
            error_message(r#"{"error":"x","message":"Bad cursor"}"#, s),
            "Bad cursor"
        );
        assert_eq!(
            error_message(
                r#"{"code":"invalid_credentials","error_code":"invalid_credentials","msg":"Invalid login credentials"}"#,
                s
            ),
            "Invalid login credentials"
        );
        assert_eq!(error_message("plain", s), "plain");
        assert_eq!(error_message("", s), "Bad Request");
        let e = ApiError {
            status: Some(503),
            message: "down".into(),
        };
        assert_eq!(e.to_string(), "503: down");
    }

    /// A stand-in web service on loopback that gives every request the same answer.
    async fn stand_in(status: &str, content_type: &str, body: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let answer = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = socket.write_all(answer.as_bytes()).await;
            }
        });
        base
    }

    const PAGE: &str = "<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>";

    #[tokio::test]
    async fn a_web_page_is_named_not_shown() {
        for status in ["200 OK", "404 Not Found", "502 Bad Gateway"] {
            let base = stand_in(status, "text/html; charset=utf-8", PAGE).await;
            let err = Api::new(&base).unwrap().feed(None, None).await.unwrap_err();
            assert_eq!(err.status, None, "no answer from Radar");
            assert!(err.is_unsent());
            assert_eq!(
                err.message,
                format!(
                    "{base} is not a Radar server: GET /api/news answered {status}, \
                     text/html; a Radar server answers JSON. Check --server (or RADAR_SERVER)."
                )
            );
        }
        // HTML without a content type is still a page.
        let base = stand_in("200 OK", "application/octet-stream", PAGE).await;
        let err = Api::new(&base).unwrap().feed(None, None).await.unwrap_err();
        assert!(!err.message.contains('<'), "{err}");
        assert!(
            err.message
                .contains("answered 200 OK, application/octet-stream")
        );
    }

    #[tokio::test]
    async fn json_of_another_shape_says_what_was_missing() {
        let base = stand_in("200 OK", "application/json", r#"{"status":"ok"}"#).await;
        let api = Api::new(&base).unwrap();
        let err = api.feed(None, None).await.unwrap_err();
        assert!(
            err.message.starts_with(&format!(
                "{base} is not a Radar server: GET /api/news answered 200 OK, application/json; \
                 its JSON is not in Radar's shape (missing field `items`"
            )),
            "{err}"
        );
        // Sign-in first reads the config, which has no anonKey there.
        let err = api.sign_in("a@example.com", "pw").await.unwrap_err();
        assert_eq!(
            err.message,
            format!(
                "{base} is not a Radar server: GET /api/config answered JSON without anonKey; \
                 a Radar server's config has its anonKey. Check --server (or RADAR_SERVER)."
            )
        );
        // Text that is not JSON at all.
        let base = stand_in("200 OK", "text/plain", "hello").await;
        let err = Api::new(&base).unwrap().feed(None, None).await.unwrap_err();
        assert!(
            err.message
                .contains("answered 200 OK, text/plain; a Radar server answers JSON"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn radars_own_errors_keep_their_message() {
        let base = stand_in(
            "400 Bad Request",
            "application/json",
            r#"{"error":"bad_request","message":"Bad cursor"}"#,
        )
        .await;
        let err = Api::new(&base).unwrap().feed(None, None).await.unwrap_err();
        assert_eq!(err.to_string(), "400: Bad cursor");
    }

    #[tokio::test]
    async fn a_slow_server_gives_a_clear_message() {
        // A server that accepts connections and never answers.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                open.push(socket);
            }
        });
        let api = Api::with_timeout(&base, Duration::from_millis(300)).unwrap();
        let err = api.feed(None, None).await.unwrap_err();
        assert_eq!(err.status, None);
        assert_eq!(err.message, strings::too_slow(&base));
    }

    #[tokio::test]
    async fn a_server_that_is_down_gives_a_clear_message() {
        // Port 9 on loopback: nothing listens there, the connection is refused.
        let api = Api::new("http://127.0.0.1:9").unwrap();
        let err = api.feed(None, None).await.unwrap_err();
        assert_eq!(err.status, None);
        assert!(
            err.message
                .contains("Cannot reach the Radar server at http://127.0.0.1:9"),
            "{err}"
        );
    }
}

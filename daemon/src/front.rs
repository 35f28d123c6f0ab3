//! The front of the application: what every request meets before the router, so that a
//! request pays only for the layers it needs.
//!
//! Measured with `bench/http.sh` and perf (see `bench/README.md`), a small read spent more
//! of its time in layers that had nothing to do for it than in its handler: tower-http's
//! CORS layer builds a header map and joins header lists for every request, `Origin` or
//! not, and its compression layer wraps the answer of a client that accepts no encoding.
//! So the application is kept three times, and each request takes the cheapest that does
//! all it needs:
//!
//! - a request naming an `Origin`, and every `OPTIONS`, goes through CORS and compression,
//!   as before;
//! - one without `Origin` skips CORS: the headers the layer would have added are the same
//!   for all such requests ([`crate::auth::cors_headers_without_origin`]), made once and
//!   added as they are; it goes through compression only when it accepts an encoding;
//! - the hot reads (`GET /api/news`'s first page, `GET /api/v1/news`) of a request without
//!   `Origin`, `Accept-Encoding` or a body are answered here, without the router:
//!   [`ready`] reads the caller and calls the handler's own function, whose answer
//!   is bytes the store keeps ready.
//!
//! Every guarantee holds on each path: bodies are limited and timed by the layers of
//! [`crate::app`] (a request answered here has none), a panic is answered 500 like
//! `CatchPanicLayer` answers it, and quotas are counted by the same function. With debug
//! logging on, every request goes through the router, so its trace layer sees them all.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::http::header::{ACCEPT_ENCODING, ORIGIN};
use axum::http::{HeaderName, HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt;
use tower::ServiceExt;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::Predicate;

use crate::compression::{compressible, vary_on_encoding};
use crate::connections::declares_body;
use crate::error::ApiError;
use crate::extract::MaybeAuthUser;
use crate::public_api::ApiKeyUser;
use crate::state::AppState;

/// The application, as each kind of request needs it.
#[derive(Clone)]
pub(crate) struct Front {
    state: AppState,
    /// Without CORS or compression.
    plain: Router,
    /// Compressing, without CORS.
    compressing: Router,
    /// Behind CORS and compression.
    full: Router,
    /// What CORS adds to an answer to a request without `Origin`.
    cors_without_origin: Arc<[(HeaderName, HeaderValue)]>,
    /// Whether the hot reads are answered without the router (not with debug logging).
    ready_reads: bool,
}

/// Which of the application's forms a request goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Plain,
    Compressing,
    Full,
}

impl Front {
    /// The front of [`crate::app`]`(state)`.
    pub(crate) fn new(state: AppState) -> Self {
        let app = crate::app(state.clone());
        let compression = CompressionLayer::new().compress_when(compressible());
        Self {
            full: app
                .clone()
                .layer(crate::auth::cors_layer(&state.config.auth, &state.site_url))
                .layer(compression.clone()),
            compressing: app.clone().layer(compression),
            plain: app,
            cors_without_origin: crate::auth::cors_headers_without_origin().into(),
            ready_reads: !tracing::enabled!(tracing::Level::DEBUG),
            state,
        }
    }

    /// Answers one request from `peer` (`None` outside the connection loop).
    pub(crate) fn answer<B>(
        &self,
        mut req: axum::http::Request<B>,
        peer: Option<SocketAddr>,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<B>
    where
        B: axum::body::HttpBody<Data = axum::body::Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        let headers = req.headers();
        let path = if req.method() == Method::OPTIONS || headers.contains_key(ORIGIN) {
            Path::Full
        } else if headers.contains_key(ACCEPT_ENCODING) {
            Path::Compressing
        } else {
            Path::Plain
        };
        let cors = (path != Path::Full).then(|| self.cors_without_origin.clone());
        let answer = if let Some(hot) = (path == Path::Plain && self.ready_reads)
            .then(|| hot(&req))
            .flatten()
        {
            Ok((self.state.clone(), hot, req.into_parts().0))
        } else {
            if let Some(peer) = peer {
                req.extensions_mut().insert(ConnectInfo(peer));
            }
            let app = match path {
                Path::Plain => self.plain.clone(),
                Path::Compressing => self.compressing.clone(),
                Path::Full => self.full.clone(),
            };
            Err(app.oneshot(req.map(axum::body::Body::new)))
        };
        async move {
            let mut res = match answer {
                Ok((state, hot, parts)) => ready(&state, hot, &parts).await,
                Err(routed) => routed.await?,
            };
            if let Some(cors) = cors {
                let headers = res.headers_mut();
                for (name, value) in cors.iter() {
                    headers.append(name, value.clone());
                }
            }
            if path == Path::Plain && compressible().should_compress(&res) {
                vary_on_encoding(res.headers_mut());
            }
            Ok(res)
        }
    }
}

/// A hot read: answered from ready bytes without the router.
#[derive(Debug, Clone, Copy)]
enum Hot {
    /// The first page of `GET /api/news`.
    Feed,
    /// `GET /api/v1/news`.
    Public,
}

/// Which hot read a request is, if any. Only a `GET` without a body qualifies (the
/// caller has checked `Origin` and `Accept-Encoding`).
fn hot<B>(req: &axum::http::Request<B>) -> Option<Hot> {
    if req.method() != Method::GET || declares_body(req.headers()) {
        return None;
    }
    match (req.uri().path(), req.uri().query()) {
        ("/api/news", None) => Some(Hot::Feed),
        ("/api/v1/news", _) => Some(Hot::Public),
        _ => None,
    }
}

/// The answer to a hot read, by the handler's own functions.
async fn ready(state: &AppState, hot: Hot, parts: &axum::http::request::Parts) -> Response {
    let headers = &parts.headers;
    let answer = async {
        match hot {
            Hot::Feed => match MaybeAuthUser::from_headers(headers, state).await {
                Ok(caller) => crate::news::feed(state, caller.0.as_ref(), None)
                    .await
                    .into_response(),
                Err(e) => e.into_response(),
            },
            Hot::Public => match ApiKeyUser::from_headers(headers, state).await {
                Ok(ApiKeyUser(owner)) => {
                    crate::public_api::public_news(state, &owner, parts.uri.query()).await
                }
                Err(e) => e.into_response(),
            },
        }
    };
    // As `CatchPanicLayer` answers a panic in the router.
    AssertUnwindSafe(answer)
        .catch_unwind()
        .await
        .unwrap_or_else(|_| ApiError::internal("a handler panicked").into_response())
}

/// Lets tests and callers outside the connection loop answer a request through the front.
impl tower::Service<Request> for Front {
    type Response = Response;
    type Error = Infallible;
    type Future = std::pin::Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        Box::pin(self.answer(req, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::tokens::{AUDIENCE, Claims, Tokens};
    use axum::body::Body;
    use http_body_util::BodyExt;
    use radar_api::auth::AuthAppMetadata;

    /// A state over a fresh store holding the demo items, a subscriber with a session's
    /// access token, and that subscriber's API key.
    async fn state(dir: &std::path::Path) -> (AppState, String, String) {
        let config = crate::Config::for_tests(dir.to_path_buf());
        let store = radar_store::Store::open(
            dir,
            radar_store::Options {
                disk_reserve: 0,
                ..Default::default()
            },
        )
        .await
        .unwrap();
        store.load_demo_if_empty().await.unwrap();
        let user = store
            .create_user(
                "reader@example.com",
                String::new(),
                Default::default(),
                true,
            )
            .await
            .unwrap();
        let session = store.sign_in(&user.id, "password").await.unwrap().session;
        let key = store.api_key(&user.id).await.unwrap();
        let tokens = Tokens::load(&store, Some(&"s".repeat(32))).await.unwrap();
        let now = chrono::Utc::now().timestamp();
        let token = tokens.sign(&Claims {
            aud: AUDIENCE.into(),
            exp: now + 600,
            iat: now,
            iss: String::new(),
            sub: user.id.clone(),
            email: user.email.clone(),
            role: "authenticated".into(),
            aal: "aal1".into(),
            amr: vec![],
            session_id: session.id.clone(),
            is_anonymous: false,
            phone: String::new(),
            app_metadata: AuthAppMetadata::default(),
            user_metadata: Default::default(),
        });
        let state = AppState::new(config, store, tokens, "127.0.0.1:8080".parse().unwrap());
        (state, token, key)
    }

    fn request(path: &str, headers: &[(&str, &str)]) -> Request {
        let mut req = Request::builder().uri(path);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.body(Body::empty()).unwrap()
    }

    /// Status, headers (sorted, without the quota left and the length) and body.
    async fn seen(res: Response) -> (u16, Vec<(String, String)>, Vec<u8>) {
        let status = res.status().as_u16();
        let mut headers: Vec<_> = res
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap().to_string()))
            // The router states the length of a body of known size; hyper writes the
            // same header on the wire for the front's answers, whose bodies are too.
            .filter(|(k, _)| k != "x-ratelimit-remaining" && k != "content-length")
            .collect();
        headers.sort();
        let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
        (status, headers, body)
    }

    /// What the daemon answered before the front: the router behind CORS, the plain
    /// path adding `Vary: Accept-Encoding` where compression would have applied.
    async fn through_the_router(state: &AppState, req: Request) -> Response {
        let app = crate::app(state.clone())
            .layer(crate::auth::cors_layer(&state.config.auth, &state.site_url));
        let mut res = app.oneshot(req).await.unwrap();
        if compressible().should_compress(&res) {
            vary_on_encoding(res.headers_mut());
        }
        res
    }

    #[tokio::test]
    async fn the_hot_reads_answer_exactly_as_the_router_does() {
        let dir = tempfile::tempdir().unwrap();
        let (state, token, key) = state(dir.path()).await;
        let front = Front::new(state.clone());
        let bearer = format!("Bearer {token}");
        let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
            ("/api/news", vec![]),
            ("/api/news", vec![("authorization", &bearer)]),
            ("/api/news", vec![("authorization", "Bearer not-a-token")]),
            ("/api/news", vec![("authorization", "Basic x")]),
            ("/api/v1/news", vec![("x-api-key", &key)]),
            ("/api/v1/news?limit=20&page=2", vec![("x-api-key", &key)]),
            ("/api/v1/news?limit=0", vec![("x-api-key", &key)]),
            ("/api/v1/news?limit=20", vec![("x-api-key", "rk_unknown")]),
            ("/api/v1/news", vec![]),
        ];
        for (path, headers) in cases {
            assert!(
                hot(&request(path, &headers)).is_some(),
                "{path} {headers:?} is a hot read"
            );
            let ours = seen(front.answer(request(path, &headers), None).await.unwrap()).await;
            let before = seen(through_the_router(&state, request(path, &headers)).await).await;
            assert_eq!(ours, before, "{path} {headers:?}");
        }
    }

    #[tokio::test]
    async fn requests_that_need_a_layer_go_through_the_router() {
        let dir = tempfile::tempdir().unwrap();
        let (state, _, key) = state(dir.path()).await;
        let front = Front::new(state.clone());
        for (path, headers) in [
            ("/api/news", vec![("origin", "http://127.0.0.1:8080")]),
            ("/api/news", vec![("accept-encoding", "gzip")]),
            ("/api/news", vec![("content-length", "5")]),
            ("/api/news", vec![("transfer-encoding", "chunked")]),
            ("/api/news?cursor=x", vec![]),
            ("/api/news/abc", vec![]),
        ] {
            let req = request(path, &headers);
            let routed = headers
                .iter()
                .any(|(k, _)| *k == "origin" || *k == "accept-encoding")
                || hot(&req).is_none();
            assert!(routed, "{path} {headers:?} goes through the router");
        }
        // CORS for a browser on the site's origin, compression for a client that asks.
        let res = front
            .answer(
                request("/api/news", &[("origin", "http://127.0.0.1:8080")]),
                None,
            )
            .await
            .unwrap();
        assert_eq!(
            res.headers()["access-control-allow-origin"],
            "http://127.0.0.1:8080"
        );
        let res = front
            .answer(
                request(
                    "/api/v1/news",
                    &[("x-api-key", &key), ("accept-encoding", "gzip")],
                ),
                None,
            )
            .await
            .unwrap();
        assert_eq!(res.headers()["content-encoding"], "gzip");
        assert!(res.headers().contains_key("x-ratelimit-remaining"));
    }

    #[tokio::test]
    async fn each_public_request_counts_once_against_the_quota() {
        let dir = tempfile::tempdir().unwrap();
        let (state, _, key) = state(dir.path()).await;
        let front = Front::new(state);
        let mut remaining = Vec::new();
        for accept in [None, Some("gzip"), None] {
            let mut headers = vec![("x-api-key", key.as_str())];
            headers.extend(accept.map(|a| ("accept-encoding", a)));
            let res = front
                .answer(request("/api/v1/news", &headers), None)
                .await
                .unwrap();
            remaining.push(
                res.headers()["x-ratelimit-remaining"]
                    .to_str()
                    .unwrap()
                    .to_string(),
            );
        }
        assert_eq!(remaining, ["99", "98", "97"]);
    }
}

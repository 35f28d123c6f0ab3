//! The request guard: every check the application makes of a request before its handler,
//! in one pass and one layer, where each was its own layer (tower-http's body timeout and
//! catch-panic layers and an axum middleware for the declared length): each layer wrapped
//! the request, the answer or its future again, allocating for every request whether it
//! had anything to do or not.
//!
//! - A `Content-Length` over `--max-body` is refused with 413 before any of the body is
//!   read, in the error shape of its surface.
//! - A body may pause at most `--body-timeout` between two pieces (tower-http's
//!   `TimeoutBody`, as its layer applies it); a request that declares no body has nothing
//!   to time.
//! - A handler that panics is answered 500 `internal`, as `CatchPanicLayer` answered it.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use tower_http::timeout::TimeoutBody;

use crate::error::ApiError;

/// Applies [`Guard`] to a service.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GuardLayer {
    /// `--max-body`.
    pub max_body: usize,
    /// `--body-timeout`.
    pub body_timeout: Duration,
}

impl<S> tower::Layer<S> for GuardLayer {
    type Service = Guard<S>;

    fn layer(&self, inner: S) -> Guard<S> {
        Guard {
            inner,
            limits: *self,
        }
    }
}

/// See the [module](self).
#[derive(Debug, Clone)]
pub(crate) struct Guard<S> {
    inner: S,
    limits: GuardLayer,
}

impl<S> tower::Service<Request> for Guard<S>
where
    S: tower::Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Guarded<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if let Some(refusal) = oversized(&req, self.limits.max_body) {
            return Guarded::Answered {
                answer: Some(refusal),
            };
        }
        let req = if declares_body(req.headers()) {
            let timeout = self.limits.body_timeout;
            req.map(|body| Body::new(TimeoutBody::new(timeout, body)))
        } else {
            req
        };
        match std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(req))) {
            Ok(future) => Guarded::Running { future },
            Err(panic) => Guarded::Answered {
                answer: Some(panicked(panic)),
            },
        }
    }
}

pin_project_lite::pin_project! {
    /// The answer of a [`Guard`]ed service.
    #[project = GuardedProj]
    pub enum Guarded<F> {
        /// Answered by the guard itself.
        Answered { answer: Option<Response> },
        /// The service's answer, a panic caught.
        Running { #[pin] future: F },
    }
}

impl<F, E> Future for Guarded<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            GuardedProj::Answered { answer } => {
                Poll::Ready(Ok(answer.take().expect("polled after it was answered")))
            }
            GuardedProj::Running { future } => {
                match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
                    Ok(poll) => poll,
                    Err(panic) => Poll::Ready(Ok(panicked(panic))),
                }
            }
        }
    }
}

/// Whether a request declares a body: any `Transfer-Encoding`, or a `Content-Length`
/// other than 0.
pub(crate) fn declares_body(headers: &HeaderMap) -> bool {
    headers.contains_key(TRANSFER_ENCODING)
        || headers
            .get_all(CONTENT_LENGTH)
            .iter()
            .any(|v| v.as_bytes().trim_ascii() != b"0")
}

/// The 413 for a request whose declared body is larger than `max`, in the error shape of
/// its surface.
fn oversized(req: &Request, max: usize) -> Option<Response> {
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u128>().ok())?;
    if declared <= max as u128 {
        return None;
    }
    let e = ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("The request body is larger than this server accepts ({max} bytes)."),
    );
    Some(if req.uri().path().starts_with("/auth/v1") {
        crate::auth::error::AuthError::from(e).into_response()
    } else {
        e.into_response()
    })
}

/// The answer to a handler's panic; the panic itself was reported by the panic hook.
fn panicked(_: Box<dyn Any + Send>) -> Response {
    ApiError::internal("a handler panicked").into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::routing::{get, post};
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    async fn panics() -> &'static str {
        panic!("a handler panicked on purpose")
    }

    fn app() -> Router {
        Router::new()
            .route("/echo", post(|body: axum::body::Bytes| async move { body }))
            .route("/auth/v1/signup", post(|| async { "ok" }))
            .route("/panics", get(panics))
            .layer(GuardLayer {
                max_body: 8,
                body_timeout: Duration::from_millis(100),
            })
    }

    async fn answer(req: Request) -> (StatusCode, String) {
        let res = app().oneshot(req).await.unwrap();
        let status = res.status();
        let body = res.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_in_its_surface_shape() {
        let post = |path: &str, len: &str| {
            Request::post(path)
                .header(CONTENT_LENGTH, len)
                .body(Body::empty())
                .unwrap()
        };
        let (status, body) = answer(post("/echo", "9")).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(body.contains(r#""error":"payload_too_large""#), "{body}");
        let (status, body) = answer(post("/auth/v1/signup", "100")).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(
            body.contains(r#""error_code":"payload_too_large""#),
            "{body}"
        );
        let ok = Request::post("/echo").body(Body::from("12345678")).unwrap();
        assert_eq!(answer(ok).await, (StatusCode::OK, "12345678".into()));
    }

    #[tokio::test]
    async fn a_panic_is_answered_500_in_our_shape() {
        let (status, body) = answer(Request::get("/panics").body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert!(body.contains(r#""error":"internal""#), "{body}");
    }

    #[tokio::test]
    async fn a_body_that_pauses_too_long_fails() {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<axum::body::Bytes, std::io::Error>>(1);
        let stream = tokio_stream_of(rx);
        let req = Request::post("/echo")
            .header(TRANSFER_ENCODING, "chunked")
            .body(Body::from_stream(stream))
            .unwrap();
        tx.send(Ok("ab".into())).await.unwrap();
        // The sender stays open and silent: the body pauses past the timeout.
        let (status, _) = answer(req).await;
        drop(tx);
        assert_ne!(status, StatusCode::OK);
    }

    fn tokio_stream_of<T: Send + 'static>(
        mut rx: tokio::sync::mpsc::Receiver<T>,
    ) -> impl futures_util::stream::Stream<Item = T> + Send + 'static {
        futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
    }

    #[test]
    fn a_declared_body_is_seen() {
        use axum::http::HeaderValue;
        let mut h = HeaderMap::new();
        assert!(!declares_body(&h));
        h.insert(CONTENT_LENGTH, HeaderValue::from_static("0"));
        assert!(!declares_body(&h));
        h.insert(CONTENT_LENGTH, HeaderValue::from_static("12"));
        assert!(declares_body(&h));
        let mut h = HeaderMap::new();
        h.insert(TRANSFER_ENCODING, HeaderValue::from_static("chunked"));
        assert!(declares_body(&h));
    }
}

//! Compressed answers for the clients that ask for them, without making the others pay.
//!
//! tower-http's compression layer wraps every response's future and body, which costs a
//! small read (an anonymous feed page) about a sixth of its time even when the client
//! accepts no encoding (measured with `bench/http.sh`). So the application is kept twice,
//! as is and behind the layer, and a request goes behind the layer only when it names an
//! encoding in `Accept-Encoding`. The plain path still marks a response that the layer
//! would have compressed with `Vary: Accept-Encoding`, as the layer does, so a shared
//! cache keeps the two forms apart.

use std::convert::Infallible;

use axum::Router;
use axum::extract::Request;
use axum::http::header::{ACCEPT_ENCODING, VARY};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use tower::ServiceExt;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};

/// The application, plain and compressing.
#[derive(Clone)]
pub struct WithCompression {
    plain: Router,
    compressing: Router,
}

impl WithCompression {
    /// `app` as is, and behind [`CompressionLayer`].
    pub fn new(app: Router) -> Self {
        Self {
            compressing: app.clone().layer(CompressionLayer::new()),
            plain: app,
        }
    }

    /// Answers one request through the application it asks for.
    pub fn answer(
        &self,
        req: Request,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<> {
        let accepts = req.headers().contains_key(ACCEPT_ENCODING);
        let app = if accepts {
            self.compressing.clone()
        } else {
            self.plain.clone()
        };
        async move {
            let mut res = app.oneshot(req).await?;
            if !accepts && DefaultPredicate::new().should_compress(&res) {
                vary_on_encoding(res.headers_mut());
            }
            Ok(res)
        }
    }
}

/// Adds `Accept-Encoding` to `Vary` unless it is there.
fn vary_on_encoding(headers: &mut HeaderMap) {
    let named = headers.get_all(VARY).iter().any(|v| {
        v.to_str().is_ok_and(|v| {
            v.split(',')
                .any(|name| name.trim().eq_ignore_ascii_case("accept-encoding"))
        })
    });
    if !named {
        headers.append(VARY, HeaderValue::from_static("accept-encoding"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;

    fn app() -> WithCompression {
        WithCompression::new(Router::new().route("/", get(|| async { "x".repeat(4096) })))
    }

    async fn get_with(headers: &[(&str, &str)]) -> Response {
        let mut req = Request::builder().uri("/");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        app()
            .answer(req.body(Body::empty()).unwrap())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn only_a_client_that_accepts_an_encoding_gets_one_and_both_vary() {
        let gz = get_with(&[("accept-encoding", "gzip")]).await;
        assert_eq!(gz.headers()["content-encoding"], "gzip");
        let plain = get_with(&[]).await;
        assert!(!plain.headers().contains_key("content-encoding"));
        for res in [gz, plain] {
            let vary: Vec<_> = res.headers().get_all(VARY).iter().collect();
            assert_eq!(vary, ["accept-encoding"]);
        }
    }

    #[test]
    fn vary_names_the_header_once() {
        let mut h = HeaderMap::new();
        h.append(VARY, HeaderValue::from_static("origin, Accept-Encoding"));
        vary_on_encoding(&mut h);
        assert_eq!(h.get_all(VARY).iter().count(), 1);
        let mut h = HeaderMap::new();
        h.append(VARY, HeaderValue::from_static("origin"));
        vary_on_encoding(&mut h);
        assert_eq!(h.get_all(VARY).iter().count(), 2);
    }
}

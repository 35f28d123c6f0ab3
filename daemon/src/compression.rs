//! Compressed answers for the clients that ask for them, without making the others pay.
//!
//! tower-http's compression layer wraps every response's future and body, which costs a
//! small read (an anonymous feed page) about a sixth of its time even when the client
//! accepts no encoding (measured with `bench/http.sh`). So a request goes behind the layer
//! only when it names an encoding in `Accept-Encoding` (see [`crate::front`]). The plain
//! path still marks a response that the layer would have compressed with
//! `Vary: Accept-Encoding`, as the layer does, so a shared cache keeps the two forms
//! apart. An answer marked [`Prepared`] (the web app's files, compressed at build time) is
//! never compressed again: it says its own `Vary`.

use axum::http::header::VARY;
use axum::http::{HeaderMap, HeaderValue};
use tower_http::compression::predicate::{DefaultPredicate, Predicate};

use crate::web::Prepared;

/// What the compression layer compresses: what tower-http would, except answers whose
/// bytes were prepared already.
pub(crate) fn compressible() -> impl Predicate {
    DefaultPredicate::new().and(
        |_: axum::http::StatusCode,
         _: axum::http::Version,
         _: &HeaderMap,
         extensions: &axum::http::Extensions| extensions.get::<Prepared>().is_none(),
    )
}

/// Adds `Accept-Encoding` to `Vary` unless it is there.
pub(crate) fn vary_on_encoding(headers: &mut HeaderMap) {
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
    use axum::Router;
    use axum::body::Body;
    use axum::extract::Request;
    use axum::response::IntoResponse;
    use axum::routing::get;
    use tower::ServiceExt;
    use tower_http::compression::CompressionLayer;

    async fn fetch(prepared: bool, accept: &str) -> axum::response::Response {
        let app = Router::new()
            .route(
                "/",
                get(move || async move {
                    let mut res = "x".repeat(4096).into_response();
                    if prepared {
                        res.extensions_mut().insert(Prepared);
                    }
                    res
                }),
            )
            .layer(CompressionLayer::new().compress_when(compressible()));
        let req = Request::builder()
            .uri("/")
            .header("accept-encoding", accept)
            .body(Body::empty())
            .unwrap();
        app.oneshot(req).await.unwrap()
    }

    #[tokio::test]
    async fn a_prepared_answer_is_never_compressed_again() {
        let made = fetch(false, "gzip").await;
        assert_eq!(made.headers()["content-encoding"], "gzip");
        let prepared = fetch(true, "gzip").await;
        assert!(!prepared.headers().contains_key("content-encoding"));
        assert!(!compressible().should_compress(&prepared));
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

//! The web app, embedded in the binary from `web/dist` at build time.
//!
//! Hashed assets under `/assets/` are cached for a year; `index.html` is never cached, so
//! a new release reaches browsers at once. A path that is one of the app's routes gets the
//! app with 200; any other path gets the app too (it renders its 404 page) but with status
//! 404, so crawlers and scripts learn the truth.
//!
//! `index.html` carries the client configuration (`GET /api/config`'s answer) inline, so the
//! app starts its auth client without a round trip first.

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::Embed;

use crate::error::ApiError;
use crate::state::AppState;

#[derive(Embed)]
#[folder = "../web/dist"]
struct Assets;

/// The app's client-side routes (spec section 2); everything else is its 404 page.
const APP_ROUTES: &[&str] = &[
    "/",
    "/register",
    "/forgot-password",
    "/reset-password",
    "/auth/callback",
    "/app",
    "/subscribe",
    "/subscribe/success",
    "/upcoming-features",
    "/api-docs",
    "/weekly-summary",
    "/profile",
    "/tv-mode",
];

fn is_app_route(path: &str) -> bool {
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    APP_ROUTES.contains(&path)
        || path
            .strip_prefix("/weekly-summary/")
            .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

/// Serves static files and the app's routes; unknown `/api` and `/auth` paths get JSON 404.
pub fn router() -> Router<AppState> {
    Router::new().fallback(serve_app)
}

/// Where the app's `index.html` expects the inline configuration.
const CONFIG_MARKER: &str = "<!--radar-config-->";

/// `index.html` with the client configuration in a JSON script element. `<` is escaped so no
/// value can close the element.
fn with_config(index: &[u8], config: &impl serde::Serialize) -> Vec<u8> {
    let html = String::from_utf8_lossy(index);
    let json = serde_json::to_string(config)
        .expect("the client config serializes")
        .replace('<', "\\u003c");
    let script = format!(r#"<script id="radar-config" type="application/json">{json}</script>"#);
    html.replacen(CONFIG_MARKER, &script, 1).into_bytes()
}

async fn serve_app(State(state): State<AppState>, uri: Uri) -> Response {
    let path = uri.path();
    if path == "/api" || path.starts_with("/api/") || path.starts_with("/auth/v1") {
        return ApiError::not_found(format!(
            "There is no endpoint at {path}. See /api/openapi.json for the API."
        ))
        .into_response();
    }
    if let Some(file) = path
        .strip_prefix('/')
        .filter(|p| !p.is_empty())
        .and_then(Assets::get)
    {
        let mime = mime_guess::from_path(path).first_or_octet_stream();
        let cache = if path.starts_with("/assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        return (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_str(mime.as_ref()).expect("mime types are valid headers"),
                ),
                (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
            ],
            file.data,
        )
            .into_response();
    }
    let status = if is_app_route(path) {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    };
    let config = crate::client_config::get_config(State(state)).await.0;
    match Assets::get("index.html") {
        Some(index) => (
            status,
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/html; charset=utf-8"),
                ),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
            with_config(&index.data, &config),
        )
            .into_response(),
        None => ApiError::not_found("The web app is not built into this binary.").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::{is_app_route, with_config};

    #[test]
    fn config_is_inlined_and_cannot_close_its_element() {
        let index = b"<head><!--radar-config--></head>";
        let html = String::from_utf8(with_config(
            index,
            &serde_json::json!({ "anonKey": "k</script><script>x" }),
        ))
        .unwrap();
        assert_eq!(
            html,
            r#"<head><script id="radar-config" type="application/json">{"anonKey":"k\u003c/script>\u003cscript>x"}</script></head>"#
        );
    }

    #[test]
    fn app_routes_include_summary_deep_links_only() {
        assert!(is_app_route("/"));
        assert!(is_app_route("/app/"));
        assert!(is_app_route("/weekly-summary/abc"));
        assert!(!is_app_route("/weekly-summary/abc/def"));
        assert!(!is_app_route("/nope"));
    }
}

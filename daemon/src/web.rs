//! The web app, embedded in the binary from `web/dist` at build time.
//!
//! Hashed assets under `/assets/` are cached for a year; `index.html` is never cached, so
//! a new release reaches browsers at once. A path that is one of the app's routes gets the
//! app with 200; any other path gets the app too (it renders its 404 page) but with status
//! 404, so crawlers and scripts learn the truth.

use axum::Router;
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

async fn serve_app(uri: Uri) -> Response {
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
            index.data,
        )
            .into_response(),
        None => ApiError::not_found("The web app is not built into this binary.").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::is_app_route;

    #[test]
    fn app_routes_include_summary_deep_links_only() {
        assert!(is_app_route("/"));
        assert!(is_app_route("/app/"));
        assert!(is_app_route("/weekly-summary/abc"));
        assert!(!is_app_route("/weekly-summary/abc/def"));
        assert!(!is_app_route("/nope"));
    }
}

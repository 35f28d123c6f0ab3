//! `GET /api/openapi.json`: an OpenAPI 3.1 document of every endpoint, generated from the
//! handlers' `#[utoipa::path]` annotations, so outside tools can read and test the API.
//!
//! Routes are declared once: each resource's router registers its handlers with
//! utoipa-axum's `routes!`, which adds the route and its OpenAPI entry together, so a
//! route cannot exist without its entry. The committed copy `web/openapi.json`, from
//! which the web app's types are generated, is checked against this document by a test.
//!
//! Security is stated per operation: calls that need a signed-in user carry the `bearer`
//! scheme (the access token of `/auth/v1`), the public news API the `api_key` scheme
//! (`X-API-Key`).

use std::sync::Arc;

use axum::Extension;
use utoipa::openapi::OpenApi as Document;
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::{Modify, OpenApi};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::Json;
use crate::state::AppState;

/// The document's frame: its title and description. Paths come from the routers
/// themselves (see [`crate::api_router`]), where each route is declared once with its
/// annotation.
#[derive(OpenApi)]
#[openapi(info(
    title = "Radar API",
    description = "The JSON API of Radar, an AI-news reader: the reader's calls (docs/product.md §7), payments, the public news API and the auth service."
))]
pub(crate) struct ApiDoc;

/// The whole document: every route of [`crate::api_router`], with security stated (the
/// served copy is made where the routes are mounted; tests check this one).
#[cfg(test)]
pub(crate) fn document() -> Document {
    let (_, doc) = crate::api_router().split_for_parts();
    finish(doc)
}

/// States each operation's security scheme, and the answers every operation of its
/// kind can give besides its own (see [`Statuses`]).
pub(crate) fn finish(mut doc: Document) -> Document {
    Security.modify(&mut doc);
    Statuses.modify(&mut doc);
    doc
}

/// Paths that need no bearer token (everything else under `/api` does).
const PUBLIC_PATHS: &[&str] = &[
    "/api/config",
    "/api/health/live",
    "/api/health/ready",
    "/api/news",
    "/api/news/{news_id}",
    "/api/openapi.json",
    "/api/stripe/webhook",
    "/api/unsubscribe",
    "/api/v1/news",
];

struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))),
        );
        for (path, item) in &mut doc.paths.paths {
            let scheme = if path == "/api/v1/news" {
                "api_key"
            } else if path.starts_with("/api/") && !PUBLIC_PATHS.contains(&path.as_str()) {
                "bearer"
            } else {
                continue;
            };
            let ops = [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ];
            for op in ops.into_iter().flatten() {
                op.security = Some(vec![SecurityRequirement::new(scheme, Vec::<String>::new())]);
            }
        }
    }
}

/// Answers that come from layers and shared extractors rather than from a handler, so
/// they are stated here once for every operation they apply to, each with its
/// surface's error body (`ErrorBody` under `/api`, `AuthErrorBody` under `/auth/v1`):
/// - a request body: 400 (not JSON of the right shape), 413 (over `--max-body`), 415
///   (JSON without its content type); any parameter: 400;
/// - a bearer token or API key: 401; `/auth/v1` calls with the `apikey`: 401; those of
///   a signed-in user: 403 when the session has ended;
/// - sign-in, sign-up and mailed links: 429 with Retry-After (rate limit); routes that
///   hash a password: 503 with Retry-After (the hashing pool is full).
struct Statuses;

/// `/auth/v1` operations that check a password, and those that count attempts.
const HASHING: &[(&str, &str)] = &[
    ("post", "/auth/v1/signup"),
    ("post", "/auth/v1/token"),
    ("put", "/auth/v1/user"),
];
const RATE_LIMITED: &[(&str, &str)] = &[
    ("post", "/auth/v1/signup"),
    ("post", "/auth/v1/token"),
    ("post", "/auth/v1/recover"),
    ("post", "/auth/v1/resend"),
];
/// `/auth/v1` operations of a signed-in user: an ended session is 403 `session_not_found`.
const AUTH_SESSION: &[(&str, &str)] = &[
    ("post", "/auth/v1/logout"),
    ("get", "/auth/v1/user"),
    ("put", "/auth/v1/user"),
];
/// `/auth/v1` operations open without the `apikey` (the mailed link, health, settings).
const AUTH_WITHOUT_KEY: &[(&str, &str)] = &[
    ("get", "/auth/v1/verify"),
    ("get", "/auth/v1/health"),
    ("get", "/auth/v1/settings"),
    ("get", "/auth/v1/authorize"),
];

impl Modify for Statuses {
    fn modify(&self, doc: &mut Document) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        for (path, item) in &mut doc.paths.paths {
            let auth = path.starts_with("/auth/v1");
            let body = if auth { "AuthErrorBody" } else { "ErrorBody" };
            let ops = [
                ("get", &mut item.get),
                ("post", &mut item.post),
                ("put", &mut item.put),
                ("patch", &mut item.patch),
                ("delete", &mut item.delete),
            ];
            for (method, op) in ops {
                let Some(op) = op else { continue };
                let key = (method, path.as_str());
                let mut add = |status: &str, why: &str| {
                    op.responses
                        .responses
                        .entry(status.to_string())
                        .or_insert_with(|| {
                            ResponseBuilder::new()
                                .description(why)
                                .content(
                                    "application/json",
                                    ContentBuilder::new()
                                        .schema(Some(Ref::from_schema_name(body)))
                                        .build(),
                                )
                                .build()
                                .into()
                        });
                };
                let json_body = op
                    .request_body
                    .as_ref()
                    .is_some_and(|b| b.content.contains_key("application/json"));
                if op.request_body.is_some() {
                    add("400", "The body is not JSON of the expected shape");
                    add("413", "The body is larger than the server accepts");
                }
                if json_body {
                    add("415", "The body is not sent as application/json");
                }
                if op.parameters.as_ref().is_some_and(|p| !p.is_empty()) {
                    add("400", "A parameter is malformed");
                }
                if op.security.is_some() || (auth && !AUTH_WITHOUT_KEY.contains(&key)) {
                    add("401", "Missing or invalid credentials");
                }
                if AUTH_SESSION.contains(&key) {
                    add("403", "The session has ended");
                }
                if RATE_LIMITED.contains(&key) {
                    add(
                        "429",
                        "Too many attempts for this e-mail or client; see Retry-After",
                    );
                }
                if HASHING.contains(&key) {
                    add("503", "Too many sign-ins at once; see Retry-After");
                }
            }
        }
    }
}

/// The OpenAPI route. The document it serves is built once by the application and
/// reaches the handler as an extension.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_openapi))
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", responses(
    (status = 200, content_type = "application/json", description = "An OpenAPI 3.1 document")))]
pub(crate) async fn get_openapi(Extension(doc): Extension<Arc<Document>>) -> Json<Document> {
    Json(doc.as_ref().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_lists_every_route_with_security() {
        let doc = serde_json::to_value(document()).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let paths = doc["paths"].as_object().unwrap();
        for p in [
            "/api/v1/news",
            "/api/news/{news_id}/takeaways",
            "/api/weekly-summary/{id}",
            "/api/favorites/{news_id}",
            "/auth/v1/signup",
            "/auth/v1/verify",
            "/checkout/{session_id}",
            "/api/openapi.json",
        ] {
            assert!(paths.contains_key(p), "{p} missing");
        }
        assert!(paths["/api/favorites/{news_id}"]["delete"].is_object());
        assert_eq!(
            paths["/api/key"]["get"]["security"][0]["bearer"],
            serde_json::json!([])
        );
        assert_eq!(
            paths["/api/v1/news"]["get"]["security"][0]["api_key"],
            serde_json::json!([])
        );
        assert!(paths["/api/config"]["get"].get("security").is_none());
        assert!(
            paths["/api/news/{news_id}"]["get"]
                .get("security")
                .is_none()
        );
        for p in paths["/api/v1/news"]["get"]["parameters"]
            .as_array()
            .unwrap()
        {
            let optional = p["in"] == "header" || p["required"] == false;
            assert!(
                optional,
                "query parameters of the public API have defaults: {p}"
            );
        }
    }

    /// `web/openapi.json` is the contract the web app's types are generated from: it must
    /// be this document. After changing an annotation, run
    /// `RADAR_UPDATE_OPENAPI=1 cargo test -p radar-daemon openapi` and then
    /// `npm --prefix web run api-types`.
    #[test]
    fn the_web_apps_copy_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/openapi.json");
        let current = serde_json::to_string_pretty(&document()).unwrap() + "\n";
        if std::env::var_os("RADAR_UPDATE_OPENAPI").is_some() {
            std::fs::write(&path, &current).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == current,
            "web/openapi.json is not the daemon's OpenAPI document: run \
             `RADAR_UPDATE_OPENAPI=1 cargo test -p radar-daemon openapi` and \
             `npm --prefix web run api-types`, and commit both"
        );
    }
}

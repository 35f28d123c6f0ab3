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
    description = "The JSON API of Radar, an AI-news reader: the reader's calls (spec section 7), payments, the public news API and the auth service."
))]
pub struct ApiDoc;

/// The whole document: every route of [`crate::api_router`], with security stated.
pub fn document() -> Document {
    let (_, doc) = crate::api_router().split_for_parts();
    finish(doc)
}

/// States each operation's security scheme.
pub fn finish(mut doc: Document) -> Document {
    Security.modify(&mut doc);
    doc
}

/// Paths that need no bearer token (everything else under `/api` does).
const PUBLIC_PATHS: &[&str] = &[
    "/api/config",
    "/api/news",
    "/api/news/{news_id}",
    "/api/openapi.json",
    "/api/stripe/webhook",
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
        for (path, item) in doc.paths.paths.iter_mut() {
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

/// The OpenAPI route. The document it serves is built once by the application and
/// reaches the handler as an extension.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_openapi))
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", responses(
    (status = 200, content_type = "application/json", description = "An OpenAPI 3.1 document")))]
pub async fn get_openapi(Extension(doc): Extension<Arc<Document>>) -> Json<Document> {
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

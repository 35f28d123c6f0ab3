//! `GET /api/openapi.json`: an OpenAPI 3.1 document of every endpoint, generated from the
//! handlers' `#[utoipa::path]` annotations, so outside tools can read and test the API.
//!
//! Security is stated per operation: calls that need a signed-in user carry the `bearer`
//! scheme (the access token of `/auth/v1`), the public news API the `api_key` scheme
//! (`X-API-Key`). The `/auth/v1` routes are listed from their annotations where they have
//! them; any of them still without one is listed by [`AUTH_ROUTES`] with a summary, so the
//! document never misses an endpoint.

use axum::Router;
use axum::routing::get;
use utoipa::openapi::path::{HttpMethod, OperationBuilder};
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{OpenApi as Document, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use crate::extract::Json;
use crate::state::AppState;

/// The document's source: every annotated handler.
#[derive(OpenApi)]
#[openapi(
    info(title = "Radar API", description = "The JSON API of Radar, an AI-news reader: the reader's calls (spec section 7), payments, the public news API and the auth service."),
    paths(
        crate::client_config::get_config,
        crate::news::get_news,
        crate::marks::get_favorites,
        crate::marks::post_favorite,
        crate::marks::delete_favorite,
        crate::marks::get_hidden,
        crate::marks::post_hidden,
        crate::marks::delete_hidden,
        crate::marks::get_read,
        crate::marks::post_read,
        crate::marks::delete_read,
        crate::marks::get_read_check,
        crate::marks::post_shared,
        crate::marks::get_shared,
        crate::waitlist::get_waitlist_status,
        crate::waitlist::post_waitlist_join,
        crate::profile::get_profile,
        crate::profile::patch_profile,
        crate::api_key::get_api_key,
        crate::api_key::post_api_key_rotate,
        crate::user_metadata::get_user_metadata,
        crate::weekly::get_weekly_archive,
        crate::weekly::get_weekly_summary,
        crate::payments::create_checkout_session,
        crate::payments::verify_subscription,
        crate::payments::checkout::get_checkout_page,
        crate::payments::checkout::post_checkout_pay,
        crate::payments::stripe::post_stripe_webhook,
        crate::public_api::get_public_news,
        crate::search::get_search,
        get_openapi,
    ),
    modifiers(&Security, &AuthRoutes),
)]
pub struct ApiDoc;

/// The `/auth/v1` endpoints (method, path, summary), listed when not annotated.
pub const AUTH_ROUTES: &[(&str, &str, &str)] = &[
    (
        "post",
        "/auth/v1/signup",
        "Signs a new user up (e-mail and password); answers a session.",
    ),
    (
        "post",
        "/auth/v1/token",
        "Signs in (grant_type=password) or refreshes a session (grant_type=refresh_token).",
    ),
    (
        "post",
        "/auth/v1/logout",
        "Signs out: ends the session of the bearer token.",
    ),
    ("get", "/auth/v1/user", "The signed-in user."),
    (
        "put",
        "/auth/v1/user",
        "Changes the signed-in user's password or metadata.",
    ),
    ("post", "/auth/v1/recover", "Sends a password reset e-mail."),
    (
        "post",
        "/auth/v1/resend",
        "Sends the sign-up confirmation link again.",
    ),
    (
        "get",
        "/auth/v1/verify",
        "Follows an e-mailed link (recovery, sign-up confirmation).",
    ),
    (
        "post",
        "/auth/v1/verify",
        "Verifies a one-time token from an e-mail.",
    ),
    (
        "get",
        "/auth/v1/settings",
        "The auth service's public settings.",
    ),
    ("get", "/auth/v1/health", "Liveness of the auth service."),
    (
        "get",
        "/auth/v1/authorize",
        "OAuth sign-in (Google sign-in is disabled).",
    ),
];

/// Paths that need no bearer token (everything else under `/api` does).
const PUBLIC_PATHS: &[&str] = &[
    "/api/config",
    "/api/news",
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

struct AuthRoutes;

impl Modify for AuthRoutes {
    fn modify(&self, doc: &mut Document) {
        for (method, path, summary) in AUTH_ROUTES {
            let method = match *method {
                "get" => HttpMethod::Get,
                "put" => HttpMethod::Put,
                _ => HttpMethod::Post,
            };
            let listed = doc
                .paths
                .get_path_item(path)
                .is_some_and(|item| match method {
                    HttpMethod::Get => item.get.is_some(),
                    HttpMethod::Put => item.put.is_some(),
                    _ => item.post.is_some(),
                });
            if !listed {
                let op = OperationBuilder::new()
                    .tag("auth")
                    .summary(Some(*summary))
                    .response(
                        "200",
                        ResponseBuilder::new()
                            .description("Success (Supabase Auth / GoTrue protocol)"),
                    )
                    .response("400", ResponseBuilder::new().description("Bad request"))
                    .build();
                doc.paths.add_path_operation(path, vec![method], op);
            }
        }
    }
}

/// The OpenAPI route.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/openapi.json", get(get_openapi))
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", responses(
    (status = 200, content_type = "application/json", description = "An OpenAPI 3.1 document")))]
pub async fn get_openapi() -> Json<Document> {
    Json(ApiDoc::openapi())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_lists_every_route_with_security() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let paths = doc["paths"].as_object().unwrap();
        for p in [
            "/api/v1/news",
            "/api/weekly-summary/{id}",
            "/api/favorites/{news_id}",
            "/auth/v1/signup",
            "/checkout/{session_id}",
        ] {
            assert!(paths.contains_key(p), "{p} missing");
        }
        assert_eq!(
            paths["/api/key"]["get"]["security"][0]["bearer"],
            serde_json::json!([])
        );
        assert_eq!(
            paths["/api/v1/news"]["get"]["security"][0]["api_key"],
            serde_json::json!([])
        );
        assert!(paths["/api/config"]["get"].get("security").is_none());
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
    /// Every `.route("...")` in the daemon's source (auth routes under `/auth/v1`; the
    /// admin socket is not part of the HTTP API) is in the document, so a new route
    /// without an annotation fails here.
    #[test]
    fn every_route_in_the_source_is_documented() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        let paths = doc["paths"].as_object().unwrap();
        let mut files = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
        let mut seen = 0;
        while let Some(f) = files.pop() {
            if f.is_dir() {
                files.extend(std::fs::read_dir(&f).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let rel = f.to_string_lossy().replace('\\', "/");
            // This file only mentions the pattern; its own route is checked above.
            if !rel.ends_with(".rs") || rel.contains("/admin/") || rel.ends_with("/openapi.rs") {
                continue;
            }
            let src = std::fs::read_to_string(&f).unwrap();
            let prefix = if rel.ends_with("/auth/mod.rs") {
                "/auth/v1"
            } else {
                ""
            };
            // rustfmt may break `.route(` and its path onto two lines.
            for part in src.split(".route(").skip(1) {
                let Some(path) = part.trim_start().strip_prefix('"') else {
                    continue;
                };
                let route = format!("{prefix}{}", &path[..path.find('"').unwrap()]);
                assert!(
                    paths.contains_key(&route),
                    "{route} (in {rel}) is not in the OpenAPI document"
                );
                seen += 1;
            }
        }
        assert!(seen >= 30, "found only {seen} routes in the source");
    }
}

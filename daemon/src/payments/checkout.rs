//! The test provider's checkout page: `GET /checkout/{session_id}` shows a small page with
//! a Pay button, whose form `POST` to the same address marks the session paid and sends
//! the browser to `/subscribe/success?session_id=...` with 303 See Other.
//!
//! The page needs no sign-in (a browser navigation carries no bearer token): like a
//! Stripe-hosted checkout URL, the unguessable session id (128 random bits) is the
//! capability, and only its owner can then verify it and get the subscription.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use radar_store::{CheckoutStatus, User};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::Path;
use crate::state::AppState;

/// The test checkout page routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_checkout_page, post_checkout_pay))
}

/// Creates a test checkout session for a user; answers the page's URL.
pub(crate) async fn create(s: &AppState, user: &User) -> Result<String> {
    let id = format!("cs_test_{}", hex::encode(rand::random::<[u8; 16]>()));
    s.store.create_checkout(&id, &user.id, "test").await?;
    let url = s
        .site_url
        .join(&format!("/checkout/{id}"))
        .map_err(crate::error::ApiError::internal)?;
    Ok(url.to_string())
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}}\
         button{{font-size:1rem;padding:.6rem 1.4rem;border:0;border-radius:.4rem;background:#4f46e5;color:#fff;cursor:pointer}}</style>\
         </head><body><main><h1>{title}</h1>{body}</main></body></html>"
    );
    (
        status,
        [(axum::http::header::CACHE_CONTROL, "no-store")],
        Html(html),
    )
        .into_response()
}

fn is_session_id(id: &str) -> bool {
    id.len() <= 64
        && id.starts_with("cs_test_")
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The test checkout page.
#[utoipa::path(get, path = "/checkout/{session_id}", tag = "payments", responses(
    (status = 200, content_type = "text/html", description = "The checkout page with a Pay button"),
    (status = 404, content_type = "text/html", description = "Unknown session"),
))]
pub(crate) async fn get_checkout_page(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response> {
    let session = if is_session_id(&id) {
        s.store.checkout(&id).await?
    } else {
        None
    };
    let Some(session) = session.filter(|c| c.provider == "test") else {
        return Ok(page(
            StatusCode::NOT_FOUND,
            "Checkout not found",
            "<p>This checkout session does not exist.</p>",
        ));
    };
    if session.status == CheckoutStatus::Paid {
        return Ok(Redirect::to(&success_path(&id)).into_response());
    }
    let body = format!(
        "<p>Radar Premium (test checkout): no card is needed and no money moves.</p>\
         <form method=\"post\" action=\"/checkout/{id}\"><button type=\"submit\">Pay</button></form>"
    );
    Ok(page(StatusCode::OK, "Radar Premium checkout", &body))
}

fn success_path(id: &str) -> String {
    format!("/subscribe/success?session_id={id}")
}

/// Pays a test checkout session and redirects to the success page.
#[utoipa::path(post, path = "/checkout/{session_id}", tag = "payments", responses(
    (status = 303, description = "Paid; Location is /subscribe/success?session_id=..."),
    (status = 404, content_type = "text/html", description = "Unknown session"),
))]
pub(crate) async fn post_checkout_pay(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response> {
    let session = if is_session_id(&id) {
        s.store.checkout(&id).await?
    } else {
        None
    };
    if session.is_none_or(|c| c.provider != "test") {
        return Ok(page(
            StatusCode::NOT_FOUND,
            "Checkout not found",
            "<p>This checkout session does not exist.</p>",
        ));
    }
    let customer = format!("cus_test_{}", hex::encode(rand::random::<[u8; 8]>()));
    s.store.mark_checkout_paid(&id, &customer).await?;
    Ok(Redirect::to(&success_path(&id)).into_response())
}

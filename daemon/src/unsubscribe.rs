//! Links in mails that stop them without signing in (docs/product.md §15, §12): an
//! alert's mail and the weekly summary's. The link carries a token signed for that
//! purpose alone (`Tokens::sign_link`), naming the reader and what to stop; the web
//! page `/unsubscribe` stops it on a click, and the `List-Unsubscribe` header's address
//! on one POST (RFC 8058).

use axum::extract::State;
use radar_api::alerts::Unsubscribed;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{Json, Query};
use crate::state::AppState;

/// The purpose of an alert's unsubscribe link; its subject is `user id` space `alert id`.
pub(crate) const ALERT: &str = "alert-unsubscribe";
/// The purpose of the weekly summary's unsubscribe link; its subject is the user id.
pub(crate) const WEEKLY: &str = "weekly-unsubscribe";
/// How long an unsubscribe link works.
const VALID_DAYS: i64 = 365;

/// The routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(unsubscribe))
}

/// A mail's two ways out: the web page for its text, the one-click address for its
/// `List-Unsubscribe` header.
pub(crate) struct Links {
    /// `/unsubscribe?token=…` on the site.
    pub page: url::Url,
    /// `/api/unsubscribe?token=…` on the site.
    pub one_click: url::Url,
}

/// The links of a mail that `purpose` stops for `subject`.
pub(crate) fn links(s: &AppState, purpose: &str, subject: &str) -> anyhow::Result<Links> {
    let token = s
        .tokens
        .sign_link(purpose, subject, chrono::Duration::days(VALID_DAYS));
    let mut page = s.site_url.join("unsubscribe")?;
    page.query_pairs_mut().append_pair("token", &token);
    let mut one_click = s.site_url.join("api/unsubscribe")?;
    one_click.query_pairs_mut().append_pair("token", &token);
    Ok(Links { page, one_click })
}

/// The unsubscribe link's token.
#[derive(Debug, Deserialize, IntoParams)]
pub(crate) struct UnsubscribeQuery {
    /// The token of the link in the mail.
    token: String,
}

/// Stops the mails a link came with: an alert's (its e-mail turned off; the alert stays)
/// or the weekly summary's. Works signed out: the signed token names the reader and what
/// to stop.
#[utoipa::path(post, path = "/api/unsubscribe", tag = "alerts", params(UnsubscribeQuery), responses(
    (status = 200, body = Unsubscribed),
    (status = 400, body = crate::error::ErrorBody, description = "The link is damaged or has expired"),
    (status = 404, body = crate::error::ErrorBody, description = "The alert was deleted"),
))]
pub(crate) async fn unsubscribe(
    State(s): State<AppState>,
    Query(q): Query<UnsubscribeQuery>,
) -> Result<Json<Unsubscribed>> {
    if let Some(subject) = s.tokens.verify_link(ALERT, &q.token)
        && let Some((user, alert)) = subject.split_once(' ')
    {
        let query = s.store.unsubscribe_alert(user, alert).await?;
        return Ok(Json(Unsubscribed {
            stopped: format!("the alert “{query}”"),
        }));
    }
    if let Some(user) = s.tokens.verify_link(WEEKLY, &q.token) {
        if s.store.user(&user).await?.is_none() {
            return Err(ApiError::not_found(
                "This account no longer exists: nothing is sent to it.",
            ));
        }
        s.store.set_weekly_email(&user, false).await?;
        return Ok(Json(Unsubscribed {
            stopped: "the weekly summary".into(),
        }));
    }
    Err(ApiError::bad_request(
        "invalid_link",
        "This unsubscribe link is damaged or has expired. Sign in and turn these e-mails off on the Alerts or Profile page.",
    ))
}

//! Custom news alerts (docs/product.md §15): a reader's saved searches, the matches they
//! announced, and the mail of each alert at most once per its interval, with a link that
//! stops it without signing in (`unsubscribe`).

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use chrono::Utc;
use radar_api::alerts::{Alert, AlertChange, AlertHits, AlertList, NewAlert};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::Result;
use crate::extract::{AuthUser, Json, Path};
use crate::state::AppState;

/// The lease the mail job holds while it sends, against other daemons sharing the store.
const MAIL_LEASE: &str = "alert-mail";

/// The alert routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_alerts, add_alert))
        .routes(routes!(change_alert, remove_alert))
        .routes(routes!(alert_matches))
}

/// The caller's alerts, oldest first, with how many they may keep and the badge's count.
#[utoipa::path(get, path = "/api/alerts", tag = "alerts", responses(
    (status = 200, body = AlertList), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn list_alerts(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<AlertList>> {
    Ok(Json(s.store.alerts(&caller.user).await?))
}

/// Saves a search as an alert. Free readers keep one alert, subscribers more (`limit` in
/// the list); items published from now on that match are announced.
#[utoipa::path(post, path = "/api/alerts", tag = "alerts", request_body = NewAlert, responses(
    (status = 201, body = Alert),
    (status = 400, body = crate::error::ErrorBody, description = "The query is not one the search box accepts; the message says why"),
    (status = 401, body = crate::error::ErrorBody),
    (status = 403, body = crate::error::ErrorBody, description = "The reader keeps as many alerts as they may; the message says how many"),
))]
pub(crate) async fn add_alert(
    State(s): State<AppState>,
    caller: AuthUser,
    Json(body): Json<NewAlert>,
) -> Result<(StatusCode, Json<Alert>)> {
    let alert = s.store.add_alert(&caller.user, body).await?;
    Ok((StatusCode::CREATED, Json(alert)))
}

/// Changes an alert's interval or whether it mails.
#[utoipa::path(patch, path = "/api/alerts/{id}", tag = "alerts", request_body = AlertChange,
    params(("id" = String, Path, description = "The alert")), responses(
    (status = 200, body = Alert), (status = 401, body = crate::error::ErrorBody),
    (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn change_alert(
    State(s): State<AppState>,
    caller: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<AlertChange>,
) -> Result<Json<Alert>> {
    Ok(Json(
        s.store.change_alert(&caller.user.id, &id, &body).await?,
    ))
}

/// Deletes an alert and what it announced.
#[utoipa::path(delete, path = "/api/alerts/{id}", tag = "alerts",
    params(("id" = String, Path, description = "The alert")), responses(
    (status = 204), (status = 401, body = crate::error::ErrorBody),
    (status = 404, body = crate::error::ErrorBody)))]
pub(crate) async fn remove_alert(
    State(s): State<AppState>,
    caller: AuthUser,
    Path(id): Path<String>,
) -> Result<StatusCode> {
    s.store.remove_alert(&caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// What the caller's alerts announced, newest first (the last 100); they count as seen
/// from then on.
#[utoipa::path(get, path = "/api/alerts/matches", tag = "alerts", responses(
    (status = 200, body = AlertHits), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn alert_matches(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<AlertHits>> {
    Ok(Json(AlertHits {
        items: s.store.alert_hits(&caller.user.id).await?,
    }))
}

/// Sends each due alert mail once: the lease keeps other daemons out meanwhile, and each
/// mail is claimed in the store before it is sent (`Store::claim_alert_mail`), so it goes
/// at most once even if this daemon's lease lapses on the way.
pub(crate) async fn send_due(s: &AppState, holder: &str, every: Duration) -> anyhow::Result<()> {
    let until = Utc::now() + chrono::Duration::from_std(every * 4)?;
    if !s.store.lease(MAIL_LEASE, holder, until).await? {
        return Ok(());
    }
    let now = Utc::now();
    for due in s.store.due_alert_mails(now).await? {
        let Some(user) = s.store.user(&due.user_id).await? else {
            continue;
        };
        let ids: Vec<String> = due.items.iter().map(|i| i.id.clone()).collect();
        if !s
            .store
            .claim_alert_mail(&due.user_id, &due.alert.id, &ids, now)
            .await?
        {
            continue;
        }
        let links = crate::unsubscribe::links(
            s,
            crate::unsubscribe::ALERT,
            &format!("{} {}", due.user_id, due.alert.id),
        )?;
        let (subject, text) = mail_text(&due, links.page.as_str());
        s.mailer
            .send_with_unsubscribe(
                &user.email,
                &subject,
                &text,
                "alert",
                links.one_click.as_str(),
            )
            .await?;
    }
    Ok(())
}

/// An alert mail's subject and text: each item's title, source and link, then how to
/// stop the mails.
fn mail_text(due: &radar_store::AlertMail, unsubscribe: &str) -> (String, String) {
    let n = due.items.len();
    let subject = format!(
        "Radar alert \"{}\": {n} new {}",
        due.alert.query,
        if n == 1 { "item" } else { "items" }
    );
    let mut text = format!("New items match your alert \"{}\":\n\n", due.alert.query);
    for item in &due.items {
        text.push_str(&format!("- {}", item.title));
        if let Some(source) = &item.source {
            text.push_str(&format!(" ({source})"));
        }
        text.push('\n');
        if let Some(url) = &item.url {
            text.push_str(&format!("  {url}\n"));
        }
    }
    text.push_str(&format!(
        "\nYou receive this because you saved this alert in Radar. To stop these e-mails, open:\n{unsubscribe}\n"
    ));
    (subject, text)
}

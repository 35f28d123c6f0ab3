//! Accounts, the waitlist and subscriptions, as operators manage them.

use chrono::{DateTime, Utc};
use radar_store::User;

use super::{AdminCtx, AdminError, AdminResponse, UserView};

/// The account with this e-mail, or an error saying how to find the right one.
fn user(ctx: &AdminCtx, email: &str) -> Result<User, AdminError> {
    ctx.store
        .user_by_email(email)?
        .ok_or_else(|| match radar_store::check_email(email) {
            Err(problem) => AdminError::new("invalid", problem.message()),
            Ok(_) => AdminError::new(
                "not_found",
                format!(
                    "no account with the e-mail {:?}; `radar users list` shows them",
                    email.trim()
                ),
            ),
        })
}

/// Every account, walked on the blocking pool with progress.
async fn all_users(ctx: &AdminCtx) -> Result<Vec<User>, AdminError> {
    let (store, progress) = (ctx.store.clone(), ctx.progress.clone());
    let users = tokio::task::spawn_blocking(move || {
        progress.begin(store.user_count() as u64, "users");
        let users = store.all_users(|| progress.step(""));
        progress.end();
        users
    })
    .await
    .map_err(|e| AdminError::new("internal", e.to_string()))??;
    Ok(users)
}

pub(super) async fn users_list(ctx: &AdminCtx) -> Result<AdminResponse, AdminError> {
    let users = all_users(ctx).await?;
    Ok(AdminResponse::Users(
        users.iter().map(|u| UserView::of(&ctx.store, u)).collect(),
    ))
}

pub(super) fn users_show(ctx: &AdminCtx, email: &str) -> Result<AdminResponse, AdminError> {
    Ok(AdminResponse::User(UserView::of(
        &ctx.store,
        &user(ctx, email)?,
    )))
}

pub(super) async fn users_create(
    ctx: &AdminCtx,
    email: &str,
    password: String,
) -> Result<AdminResponse, AdminError> {
    let email = radar_store::normalize_email(email)?;
    if ctx.store.user_by_email(&email)?.is_some() {
        return Err(AdminError::new(
            "conflict",
            format!("an account with the e-mail {email} already exists"),
        ));
    }
    let password = password.trim_end_matches(['\r', '\n']).to_string();
    crate::auth::password::check_strength(&password)
        .map_err(|e| AdminError::invalid(e.inner.message))?;
    let hash = crate::auth::password::hash(password)
        .await
        .map_err(|e| AdminError::new("internal", e.inner.message))?;
    let user = ctx
        .store
        .create_user(&email, hash, Default::default(), true)?;
    Ok(AdminResponse::User(UserView::of(&ctx.store, &user)))
}

pub(super) fn users_delete(ctx: &AdminCtx, email: &str) -> Result<AdminResponse, AdminError> {
    let u = user(ctx, email)?;
    ctx.store.purge_user(&u.id)?;
    Ok(AdminResponse::Removed {
        what: "user".into(),
        id: u.email,
    })
}

pub(super) fn waitlist_list(ctx: &AdminCtx, all: bool) -> Result<AdminResponse, AdminError> {
    let entries = ctx
        .store
        .waitlist()?
        .into_iter()
        .filter(|e| all || e.approved_at.is_none())
        .collect();
    Ok(AdminResponse::Waitlist(entries))
}

/// The waitlist entry of the account with this e-mail.
fn entry_of(ctx: &AdminCtx, email: &str) -> Result<User, AdminError> {
    let u = user(ctx, email)?;
    if ctx.store.waitlist_entry(&u.id)?.is_none() {
        return Err(AdminError::new(
            "not_found",
            format!(
                "{} is not on the waitlist; `radar waitlist list` shows it",
                u.email
            ),
        ));
    }
    Ok(u)
}

pub(super) fn waitlist_approve(
    ctx: &AdminCtx,
    email: &str,
    until: Option<DateTime<Utc>>,
) -> Result<AdminResponse, AdminError> {
    let u = entry_of(ctx, email)?;
    check_until(until)?;
    Ok(AdminResponse::WaitlistEntry(
        ctx.store.approve_waitlist(&u.id, until)?,
    ))
}

pub(super) fn waitlist_remove(ctx: &AdminCtx, email: &str) -> Result<AdminResponse, AdminError> {
    let u = entry_of(ctx, email)?;
    Ok(AdminResponse::WaitlistEntry(
        ctx.store.remove_from_waitlist(&u.id)?,
    ))
}

pub(super) async fn subscribers_list(ctx: &AdminCtx) -> Result<AdminResponse, AdminError> {
    let users = all_users(ctx).await?;
    let subs = users
        .iter()
        .filter(|u| ctx.store.is_subscriber(u))
        .map(|u| UserView::of(&ctx.store, u))
        .collect();
    Ok(AdminResponse::Users(subs))
}

fn check_until(until: Option<DateTime<Utc>>) -> Result<(), AdminError> {
    match until {
        Some(t) if t <= Utc::now() => Err(AdminError::invalid(format!(
            "--until {} is in the past; give a future date",
            t.date_naive()
        ))),
        _ => Ok(()),
    }
}

pub(super) fn subscribers_grant(
    ctx: &AdminCtx,
    email: &str,
    until: Option<DateTime<Utc>>,
) -> Result<AdminResponse, AdminError> {
    let u = user(ctx, email)?;
    check_until(until)?;
    let u = ctx.store.grant_subscription(&u.id, until)?;
    Ok(AdminResponse::User(UserView::of(&ctx.store, &u)))
}

pub(super) fn subscribers_revoke(ctx: &AdminCtx, email: &str) -> Result<AdminResponse, AdminError> {
    let u = user(ctx, email)?;
    let u = ctx.store.revoke_subscription(&u.id)?;
    Ok(AdminResponse::User(UserView::of(&ctx.store, &u)))
}

//! Accounts, the waitlist and subscriptions, as operators manage them.

use chrono::{DateTime, Utc};
use radar_store::User;

use super::{AdminCtx, AdminError, AdminResponse, UserView};

/// The account with this e-mail, or an error saying how to find the right one.
async fn user(ctx: &AdminCtx, email: &str) -> Result<User, AdminError> {
    ctx.store
        .user_by_email(email)
        .await?
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
    let users = super::on_blocking_pool(move || async move {
        progress.begin(store.user_count().await?, "users");
        let users = store.all_users(|| progress.step("")).await;
        progress.end();
        users
    })
    .await??;
    Ok(users)
}

pub(super) async fn users_list(ctx: &AdminCtx) -> Result<AdminResponse, AdminError> {
    let users = all_users(ctx).await?;
    Ok(AdminResponse::Users(
        users.iter().map(|u| UserView::of(&ctx.store, u)).collect(),
    ))
}

pub(super) async fn users_show(ctx: &AdminCtx, email: &str) -> Result<AdminResponse, AdminError> {
    Ok(AdminResponse::User(UserView::of(
        &ctx.store,
        &user(ctx, email).await?,
    )))
}

pub(super) async fn users_create(
    ctx: &AdminCtx,
    email: &str,
    password: String,
) -> Result<AdminResponse, AdminError> {
    let email = radar_store::normalize_email(email)?;
    if ctx.store.user_by_email(&email).await?.is_some() {
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
        .create_user(&email, hash, Default::default(), true)
        .await?;
    Ok(AdminResponse::User(UserView::of(&ctx.store, &user)))
}

pub(super) async fn users_delete(ctx: &AdminCtx, email: &str) -> Result<AdminResponse, AdminError> {
    let u = user(ctx, email).await?;
    ctx.store.purge_user(&u.id).await?;
    Ok(AdminResponse::Removed {
        what: "user".into(),
        id: u.email,
    })
}

pub(super) async fn waitlist_list(ctx: &AdminCtx, all: bool) -> Result<AdminResponse, AdminError> {
    let entries = ctx
        .store
        .waitlist()
        .await?
        .into_iter()
        .filter(|e| all || e.approved_at.is_none())
        .collect();
    Ok(AdminResponse::Waitlist(entries))
}

/// The waitlist entry of the account with this e-mail.
async fn entry_of(ctx: &AdminCtx, email: &str) -> Result<User, AdminError> {
    let u = user(ctx, email).await?;
    if ctx.store.waitlist_entry(&u.id).await?.is_none() {
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

pub(super) async fn waitlist_approve(
    ctx: &AdminCtx,
    email: &str,
    until: Option<DateTime<Utc>>,
) -> Result<AdminResponse, AdminError> {
    let u = entry_of(ctx, email).await?;
    check_until(until)?;
    Ok(AdminResponse::WaitlistEntry(
        ctx.store.approve_waitlist(&u.id, until).await?,
    ))
}

pub(super) async fn waitlist_remove(
    ctx: &AdminCtx,
    email: &str,
) -> Result<AdminResponse, AdminError> {
    let u = entry_of(ctx, email).await?;
    Ok(AdminResponse::WaitlistEntry(
        ctx.store.remove_from_waitlist(&u.id).await?,
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

pub(super) async fn subscribers_grant(
    ctx: &AdminCtx,
    email: &str,
    until: Option<DateTime<Utc>>,
) -> Result<AdminResponse, AdminError> {
    let u = user(ctx, email).await?;
    check_until(until)?;
    let u = ctx.store.grant_subscription(&u.id, until).await?;
    Ok(AdminResponse::User(UserView::of(&ctx.store, &u)))
}

pub(super) async fn subscribers_revoke(
    ctx: &AdminCtx,
    email: &str,
) -> Result<AdminResponse, AdminError> {
    let u = user(ctx, email).await?;
    let u = ctx.store.revoke_subscription(&u.id).await?;
    Ok(AdminResponse::User(UserView::of(&ctx.store, &u)))
}
/// `radar outbox show`.
pub(super) async fn outbox_show(ctx: &AdminCtx, id: &str) -> Result<AdminResponse, AdminError> {
    let mail = ctx.store.outbox_get(id).await?.ok_or_else(|| {
        AdminError::new(
            "not_found",
            format!("no e-mail with id {id} in the outbox; `radar outbox list` shows them"),
        )
    })?;
    Ok(AdminResponse::Mail(mail))
}

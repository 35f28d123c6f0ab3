//! E-mail change, as GoTrue's secure e-mail change (user.go, mail.go, verify.go):
//! `PUT /user {"email"}` answers the user with `new_email` and mails a link to the new
//! address and, unless `--single-email-change-confirm`, one to the current address;
//! both are `GET /verify?type=email_change` links (or `POST /verify` with the token as
//! `token_hash`). The first of two answers "Confirmation link accepted. Please proceed
//! to confirm link sent to the other email"; the last one changes the address, signs in
//! (or lands with `?code=` for a PKCE request) and mails a notice to the old address.
//! The account's sessions stay valid. `/resend {"type":"email_change"}` mails the links
//! again. A new address another account has is refused when asked (422 `email_exists`,
//! as GoTrue) and again when the last link is followed, should it have been taken since.

use radar_store::{EmailChangeStep, PkceChallenge, User};

use super::error::{AuthError, AuthResult};
use super::recovery::{link_to, mail_minutes};
use crate::state::AppState;

/// GoTrue's `singleConfirmationAccepted` (verify.go).
pub(crate) const FIRST_OF_TWO: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

/// 422 `email_exists` (GoTrue's `DuplicateEmailMsg`).
pub(crate) fn email_exists() -> AuthError {
    AuthError::unprocessable(
        "email_exists",
        "A user with this email address has already been registered",
    )
}

/// Issues the links of a change of `user`'s address to `new_email` and mails them;
/// answers the user with `new_email` set.
pub(crate) async fn start(
    state: &AppState,
    user: &User,
    new_email: &str,
    redirect_to: Option<&str>,
    pkce: Option<PkceChallenge>,
) -> AuthResult<User> {
    let ttl = chrono::Duration::seconds(state.config.auth.otp_expiry);
    let double = !state.config.auth.single_email_change_confirm;
    let links = state
        .store
        .request_email_change(&user.id, new_email, ttl, double, pkce)
        .await
        .map_err(|e| match e {
            radar_store::Error::Conflict(_) => email_exists(),
            e => e.into(),
        })?;
    let minutes = mail_minutes(state);
    let new_link = link_to(state, &links.new, "email_change", redirect_to);
    let text = format!(
        "Someone asked to move a Radar account to this address, from {old}.\n\n\
         To confirm this address, open this link (it works once, for {minutes} minutes):\n\n{new_link}\n\n\
         If it was not you, ignore this message; nothing changes.\n",
        old = user.email,
    );
    send(
        state,
        new_email,
        "Confirm your new Radar e-mail address",
        &text,
    )
    .await?;
    if let Some(current) = &links.current {
        let link = link_to(state, current, "email_change", redirect_to);
        let text = format!(
            "Someone asked to change the e-mail address of your Radar account to {new_email}.\n\n\
             To confirm the change, open this link (it works once, for {minutes} minutes); \
             the new address must confirm it too:\n\n{link}\n\n\
             If it was not you, do not open it, and change your password.\n"
        );
        send(
            state,
            &user.email,
            "Confirm your Radar e-mail address change",
            &text,
        )
        .await?;
    }
    Ok(links.user)
}

/// Mails the old address that the change happened (GoTrue's e-mail changed
/// notification). A failure is logged, not answered: the change has happened.
pub(crate) async fn notify_old_address(state: &AppState, old_email: &str, user: &User) {
    let text = format!(
        "The e-mail address of your Radar account changed from {old_email} to {new}.\n\n\
         If it was not you, reply to this message at once.\n",
        new = user.email,
    );
    if let Err(e) = send(
        state,
        old_email,
        "Your Radar e-mail address was changed",
        &text,
    )
    .await
    {
        tracing::warn!(error = %e.inner.message, "could not mail the e-mail change notice");
    }
}

async fn send(state: &AppState, to: &str, subject: &str, text: &str) -> AuthResult<()> {
    state
        .mailer
        .send(to, subject, text, "email_change")
        .await
        .map_err(AuthError::internal)
}

/// What following an e-mail change link answers, apart from the session.
pub(crate) enum Followed {
    /// The first of two links: the other is still to follow.
    FirstOfTwo,
    /// The address changed: sign in (or issue a code for `pkce`).
    Changed(Box<User>, Option<PkceChallenge>),
}

/// Spends an e-mail change link's token; the errors are GoTrue's.
pub(crate) async fn follow(state: &AppState, token: &str) -> AuthResult<Followed> {
    match state.store.confirm_email_change(token).await? {
        EmailChangeStep::Pending => Ok(Followed::FirstOfTwo),
        EmailChangeStep::Changed {
            user,
            old_email,
            pkce,
        } => {
            notify_old_address(state, &old_email, &user).await;
            Ok(Followed::Changed(user, pkce))
        }
        EmailChangeStep::Taken => Err(email_exists()),
        EmailChangeStep::Invalid | EmailChangeStep::Expired => Err(AuthError::forbidden(
            "otp_expired",
            "Email link is invalid or has expired",
        )),
    }
}

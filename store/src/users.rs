//! Accounts: e-mail, password hash, metadata and subscription (docs/product.md §3's auth user),
//! and the one-time links mailed to them.
//!
//! E-mails are trimmed and compared case-insensitively; the backend keeps them unique.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::backend::SecretLookup;
use crate::email::normalize_email;
use crate::pkce::PkceChallenge;
use crate::secrets::{SecretRecord, SecretUse};
use crate::{Error, Result, Store, from_json, to_json};

/// A subscription as docs/product.md §3's user metadata has it, plus when it ends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// Set when a payment or an operator activated the subscription.
    pub is_active: bool,
    /// The payment provider's customer id, once there is one.
    #[serde(default)]
    pub customer_id: Option<String>,
    /// When a granted subscription ends; none means it runs until revoked.
    #[serde(default)]
    pub until: Option<DateTime<Utc>>,
}

/// An account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// UUID, as the auth protocol expects.
    pub id: String,
    /// Normalised (trimmed, lower-case) e-mail.
    pub email: String,
    /// argon2id PHC string; never leaves the store except to verify a password.
    pub password_hash: String,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
    /// Last change of the record.
    pub updated_at: DateTime<Utc>,
    /// When the e-mail was confirmed (at sign-up unless confirmation is on).
    #[serde(default)]
    pub email_confirmed_at: Option<DateTime<Utc>>,
    /// Last successful sign-in.
    #[serde(default)]
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// When the last confirmation link was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    /// When the last password-reset link was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_sent_at: Option<DateTime<Utc>>,
    /// The address an e-mail change waits to move to (GoTrue's `new_email`), until
    /// its links are followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_email: Option<String>,
    /// When the links of the pending e-mail change were mailed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_change_sent_at: Option<DateTime<Utc>>,
    /// When the last reauthentication code was mailed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reauthentication_sent_at: Option<DateTime<Utc>>,
    /// Free-form metadata the client may set (avatar_url...).
    #[serde(default)]
    pub user_metadata: serde_json::Map<String, serde_json::Value>,
    /// Subscription state.
    #[serde(default)]
    pub subscription: Subscription,
}

/// What an e-mailed one-time link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OneTimeKind {
    /// A password reset (`type=recovery`).
    Recovery,
    /// Confirming the e-mail after sign-up (`type=signup`).
    Confirmation,
    /// An e-mail change, the link mailed to the current address (`type=email_change`).
    EmailChangeCurrent,
    /// An e-mail change, the link mailed to the new address (`type=email_change`).
    EmailChangeNew,
    /// The code `GET /reauthenticate` mails, which a password change may need.
    Reauthentication,
}

/// A one-time token as stored under its hash.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct OneTimeRecord {
    pub(crate) user_id: String,
    pub(crate) kind: OneTimeKind,
    pub(crate) expires_at: DateTime<Utc>,
    /// The client's code challenge when it asked for a PKCE link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pkce: Option<PkceChallenge>,
    /// Wrong guesses so far (reauthentication codes, which are short).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) attempts: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What redeeming a one-time token gave.
#[derive(Debug, Clone)]
pub enum Redeemed {
    /// The token was good and is now spent; the e-mail counts as confirmed.
    Valid {
        /// The user, confirmed (boxed: the other answers are empty).
        user: Box<User>,
        /// The code challenge of a PKCE link: the caller issues an authorization code
        /// for it instead of a session.
        pkce: Option<PkceChallenge>,
    },
    /// Unknown, already used, replaced by a newer one, or for another purpose.
    Invalid,
    /// It was good but its time ran out (it is spent now too).
    Expired,
}

/// The prefix of a PKCE link's token, as the protocol has it (GoTrue tells the two
/// flows' links apart by it).
pub const PKCE_PREFIX: &str = "pkce_";

/// The user-metadata keys the server owns; a client's `data` cannot set them.
const SERVER_METADATA: [&str; 2] = ["subscription", "has_active_subscription"];

impl Store {
    /// Creates an account; an e-mail already registered is a conflict.
    pub async fn create_user(
        &self,
        email: &str,
        password_hash: String,
        user_metadata: serde_json::Map<String, serde_json::Value>,
        confirmed: bool,
    ) -> Result<User> {
        let user = new_user(email, password_hash, user_metadata, confirmed)?;
        self.backend().insert_user(&user).await?;
        Ok(user)
    }

    /// A user as a fresh, unconfirmed sign-up with `email` and `user_metadata` would
    /// get, never stored: what a sign-up with a registered address answers while
    /// confirmations are on (GoTrue's `sanitizeUser`), so the answer does not tell that
    /// the address is taken. The same checks as [`Store::create_user`] apply.
    pub fn stand_in_user(
        &self,
        email: &str,
        user_metadata: serde_json::Map<String, serde_json::Value>,
    ) -> Result<User> {
        let mut user = new_user(email, String::new(), user_metadata, false)?;
        user.confirmation_sent_at = Some(user.created_at);
        Ok(user)
    }

    /// One user by id.
    pub async fn user(&self, id: &str) -> Result<Option<User>> {
        Ok(self.user_shared(id).await?.map(Arc::unwrap_or_clone))
    }

    /// One user by id, shared: what a request's sign-in or API key check reads (a
    /// backend may keep recently read accounts parsed).
    pub async fn user_shared(&self, id: &str) -> Result<Option<Arc<User>>> {
        self.backend().user(id).await
    }

    /// One user by e-mail (any case, surrounding spaces ignored). An address that breaks
    /// today's rule is still looked up as given (within the length limit), so accounts
    /// made before the rule tightened stay reachable by their operators.
    pub async fn user_by_email(&self, email: &str) -> Result<Option<User>> {
        let key = match normalize_email(email) {
            Ok(e) => e,
            Err(_) if email.trim().len() <= crate::MAX_EMAIL_LEN => email.trim().to_lowercase(),
            Err(_) => return Ok(None),
        };
        Ok(self
            .backend()
            .user_by_email(&key)
            .await?
            .map(Arc::unwrap_or_clone))
    }

    /// Applies `change` to a user record atomically and returns the new record.
    pub async fn update_user(
        &self,
        id: &str,
        change: impl Fn(&mut User) + Send + Sync,
    ) -> Result<User> {
        self.backend()
            .update_user(id, &mut |u| {
                change(u);
                u.updated_at = Utc::now();
                Ok(())
            })
            .await
    }

    /// Deletes an account and every record of it: sessions, secrets, marks and shares,
    /// profile, API key and quota counts, waitlist entry and checkouts.
    pub async fn delete_user(&self, id: &str) -> Result<User> {
        let user = self
            .backend()
            .delete_user(id)
            .await?
            .ok_or(Error::NotFound("user"))?;
        self.pages().forget_reader(id);
        self.forget_reader_docs(id).await?;
        Ok(user)
    }

    /// Subscriber status as docs/product.md §4 defines it: a complimentary account (by id or
    /// e-mail), an active subscription that has not ended, or a payment customer id.
    pub fn is_subscriber(&self, user: &User) -> bool {
        let comp = &self.options().complimentary;
        if comp
            .iter()
            .any(|c| c == &user.id || c.eq_ignore_ascii_case(&user.email))
        {
            return true;
        }
        let s = &user.subscription;
        let not_ended = s.until.is_none_or(|until| until > Utc::now());
        not_ended && (s.is_active || s.customer_id.is_some())
    }
}

impl Store {
    /// Issues a one-time token (e-mailed link) for a user, valid for `ttl`. It replaces
    /// the user's previous token of the same kind; only its hash is stored, with the
    /// client's code challenge when `pkce` is given (the token then starts with
    /// [`PKCE_PREFIX`]).
    pub async fn issue_one_time_token(
        &self,
        user_id: &str,
        kind: OneTimeKind,
        ttl: chrono::Duration,
        pkce: Option<PkceChallenge>,
    ) -> Result<String> {
        let secret = crate::sessions::new_secret();
        let token = match pkce {
            Some(_) => format!("{PKCE_PREFIX}{secret}"),
            None => secret,
        };
        let now = Utc::now();
        let record = OneTimeRecord {
            user_id: user_id.to_string(),
            kind,
            expires_at: now + ttl,
            pkce,
            attempts: 0,
        };
        let stored = record.stored(crate::secrets::secret_hash(&token));
        self.backend()
            .put_secret(
                &stored,
                Some(&mut |user: &mut User| {
                    *sent_at(user, kind) = Some(now);
                    Ok(())
                }),
            )
            .await?;
        Ok(token)
    }

    /// Spends a one-time token of `kind`. A good one also confirms the user's e-mail
    /// (the link reached the mailbox).
    pub async fn redeem_one_time_token(&self, token: &str, kind: OneTimeKind) -> Result<Redeemed> {
        self.redeem_link(token, &[kind]).await.map(|(_, r)| r)
    }

    /// Spends a one-time token of any of `kinds` (GoTrue's `type=email` takes a
    /// confirmation or a recovery link alike) and says which kind it was. A good one
    /// also confirms the user's e-mail (the link reached the mailbox).
    pub async fn redeem_link(
        &self,
        token: &str,
        kinds: &[OneTimeKind],
    ) -> Result<(Option<OneTimeKind>, Redeemed)> {
        let hash = crate::secrets::secret_hash(token);
        let now = Utc::now();
        let mut read: Option<OneTimeRecord> = None;
        self.backend()
            .use_secret(SecretLookup::Hash(&hash), &mut |found, _| {
                read = found.and_then(|s| from_json::<OneTimeRecord>(&s.body).ok());
                match &read {
                    Some(r) if kinds.contains(&r.kind) => SecretUse::Spend,
                    _ => SecretUse::Keep,
                }
            })
            .await?;
        let Some(record) = read.filter(|r| kinds.contains(&r.kind)) else {
            return Ok((None, Redeemed::Invalid));
        };
        let kind = record.kind;
        if record.expires_at <= now {
            return Ok((Some(kind), Redeemed::Expired));
        }
        // The link is spent; the address it reached counts as confirmed. (A crash
        // between the two steps leaves a spent link and an unconfirmed address, which a
        // new link mends.)
        let confirmed = self
            .backend()
            .update_user(&record.user_id, &mut |u| {
                if u.email_confirmed_at.is_none() {
                    u.email_confirmed_at = Some(now);
                    u.updated_at = now;
                }
                Ok(())
            })
            .await;
        let user = match confirmed {
            Ok(user) => user,
            Err(Error::NotFound(_)) => return Ok((Some(kind), Redeemed::Invalid)),
            Err(e) => return Err(e),
        };
        Ok((
            Some(kind),
            Redeemed::Valid {
                user: Box::new(user),
                pkce: record.pkce,
            },
        ))
    }

    /// Merges client-set metadata into a user's (a null value removes a key); keys the
    /// server owns are ignored.
    pub async fn merge_user_metadata(
        &self,
        user_id: &str,
        data: serde_json::Map<String, serde_json::Value>,
    ) -> Result<User> {
        self.backend()
            .update_user(user_id, &mut |u| {
                let mut merged = u.user_metadata.clone();
                merge_metadata(&mut merged, &data);
                check_metadata_size(&merged)?;
                u.user_metadata = merged;
                u.updated_at = Utc::now();
                Ok(())
            })
            .await
    }
}

/// The field of the account that records when a link of `kind` was last sent.
fn sent_at(user: &mut User, kind: OneTimeKind) -> &mut Option<DateTime<Utc>> {
    match kind {
        OneTimeKind::Confirmation => &mut user.confirmation_sent_at,
        OneTimeKind::Recovery => &mut user.recovery_sent_at,
        OneTimeKind::EmailChangeCurrent | OneTimeKind::EmailChangeNew => {
            &mut user.email_change_sent_at
        }
        OneTimeKind::Reauthentication => &mut user.reauthentication_sent_at,
    }
}

impl OneTimeRecord {
    /// The record as a backend stores it, under the hash of its secret.
    pub(crate) fn stored(&self, hash: [u8; 32]) -> SecretRecord {
        SecretRecord {
            hash,
            owner: self.user_id.clone(),
            purpose: kind_name(self.kind).to_string(),
            body: to_json(self),
        }
    }
}

/// Client metadata without the keys the server owns.
pub fn client_metadata(
    data: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    data.into_iter()
        .filter(|(k, _)| !SERVER_METADATA.contains(&k.as_str()))
        .collect()
}

fn merge_metadata(
    into: &mut serde_json::Map<String, serde_json::Value>,
    data: &serde_json::Map<String, serde_json::Value>,
) {
    for (k, v) in data {
        if SERVER_METADATA.contains(&k.as_str()) {
            continue;
        }
        if v.is_null() {
            into.remove(k);
        } else {
            into.insert(k.clone(), v.clone());
        }
    }
}

/// The most user metadata one account may keep, as JSON bytes.
pub(crate) const MAX_METADATA_BYTES: usize = 16 * 1024;

/// A new account's record, checked: a new id, now, the normalised address.
fn new_user(
    email: &str,
    password_hash: String,
    user_metadata: serde_json::Map<String, serde_json::Value>,
    confirmed: bool,
) -> Result<User> {
    let email = normalize_email(email)?;
    check_metadata_size(&user_metadata)?;
    let now = Utc::now();
    Ok(User {
        id: uuid::Uuid::new_v4().to_string(),
        email,
        password_hash,
        created_at: now,
        updated_at: now,
        email_confirmed_at: confirmed.then_some(now),
        last_sign_in_at: None,
        confirmation_sent_at: None,
        recovery_sent_at: None,
        new_email: None,
        email_change_sent_at: None,
        reauthentication_sent_at: None,
        user_metadata,
        subscription: Subscription::default(),
    })
}

fn check_metadata_size(meta: &serde_json::Map<String, serde_json::Value>) -> Result<()> {
    if to_json(meta).len() > MAX_METADATA_BYTES {
        return Err(Error::Invalid(format!(
            "User metadata may hold at most {MAX_METADATA_BYTES} bytes of JSON."
        )));
    }
    Ok(())
}

/// The user's slot a one-time token of `kind` holds (one live token per slot).
pub(crate) fn kind_name(kind: OneTimeKind) -> &'static str {
    match kind {
        OneTimeKind::Recovery => "recovery",
        OneTimeKind::Confirmation => "confirmation",
        OneTimeKind::EmailChangeCurrent => "email_change_current",
        OneTimeKind::EmailChangeNew => "email_change_new",
        OneTimeKind::Reauthentication => "reauthentication",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;
    use crate::{Options, Store};

    /// What the auth protocol's user object shows of an account's metadata and
    /// subscription: the daemon builds that object (`auth::user_shape::auth_user` in the
    /// daemon) from these parts of the store, and the test reads only them.
    struct AuthUser {
        user_metadata: serde_json::Map<String, serde_json::Value>,
        has_active_subscription: bool,
    }

    fn auth_user(store: &Store, user: &User) -> AuthUser {
        let mut meta = user.user_metadata.clone();
        meta.insert(
            "subscription".into(),
            serde_json::json!(store.subscription_status(user)),
        );
        meta.entry("avatar_url").or_insert(serde_json::Value::Null);
        AuthUser {
            user_metadata: meta,
            has_active_subscription: store.is_subscriber(user),
        }
    }

    store_tests! {
        async fn emails_are_unique_ignoring_case_and_spaces(store) {
            let u = store
                .create_user(" Ada@Example.com ", "h".into(), Default::default(), true)
                .await
                .unwrap();
            assert_eq!(u.email, "ada@example.com");
            assert!(matches!(
                store
                    .create_user("ADA@example.com", "h".into(), Default::default(), true)
                    .await,
                Err(Error::Conflict(_))
            ));
            assert_eq!(
                store
                    .user_by_email("ada@EXAMPLE.com")
                    .await
                    .unwrap()
                    .unwrap()
                    .id,
                u.id
            );
            assert!(
                store
                    .create_user("not-an-email", "h".into(), Default::default(), true)
                    .await
                    .is_err()
            );
        }

        #[options = Options {
            complimentary: vec!["vip@example.com".into()],
            ..Default::default()
        }]
        async fn subscriber_rules(store) {
            let vip = store
                .create_user("vip@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            let free = store
                .create_user("free@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            assert!(store.is_subscriber(&vip));
            assert!(!store.is_subscriber(&free));
            let paid = store
                .update_user(&free.id, |u| {
                    u.subscription.customer_id = Some("cus_1".into());
                })
                .await
                .unwrap();
            assert!(store.is_subscriber(&paid));
            let ended = store
                .update_user(&free.id, |u| {
                    u.subscription = Subscription {
                        is_active: true,
                        customer_id: None,
                        until: Some(Utc::now() - chrono::Duration::days(1)),
                    }
                })
                .await
                .unwrap();
            assert!(!store.is_subscriber(&ended));
        }

        async fn one_time_tokens_are_single_use_replaced_by_newer_and_expire(store) {
            let u = store
                .create_user("r@example.com", "h".into(), Default::default(), false)
                .await
                .unwrap();
            let first = store
                .issue_one_time_token(
                    &u.id,
                    OneTimeKind::Recovery,
                    chrono::Duration::hours(1),
                    None,
                )
                .await
                .unwrap();
            let second = store
                .issue_one_time_token(
                    &u.id,
                    OneTimeKind::Recovery,
                    chrono::Duration::hours(1),
                    None,
                )
                .await
                .unwrap();
            assert!(matches!(
                store
                    .redeem_one_time_token(&first, OneTimeKind::Recovery)
                    .await
                    .unwrap(),
                Redeemed::Invalid
            ));
            assert!(matches!(
                store
                    .redeem_one_time_token(&second, OneTimeKind::Confirmation)
                    .await
                    .unwrap(),
                Redeemed::Invalid
            ));
            let Redeemed::Valid { user, pkce: None } = store
                .redeem_one_time_token(&second, OneTimeKind::Recovery)
                .await
                .unwrap()
            else {
                panic!()
            };
            assert!(
                user.email_confirmed_at.is_some(),
                "a redeemed link confirms the e-mail"
            );
            assert!(matches!(
                store
                    .redeem_one_time_token(&second, OneTimeKind::Recovery)
                    .await
                    .unwrap(),
                Redeemed::Invalid
            ));
            let old = store
                .issue_one_time_token(
                    &u.id,
                    OneTimeKind::Recovery,
                    chrono::Duration::seconds(-1),
                    None,
                )
                .await
                .unwrap();
            assert!(matches!(
                store
                    .redeem_one_time_token(&old, OneTimeKind::Recovery)
                    .await
                    .unwrap(),
                Redeemed::Expired
            ));
        }

        async fn pkce_links_carry_their_challenge_to_redemption(store) {
            let u = store
                .create_user("p@example.com", "h".into(), Default::default(), false)
                .await
                .unwrap();
            let challenge = PkceChallenge {
                challenge: "c".repeat(43),
                method: crate::ChallengeMethod::Plain,
            };
            let token = store
                .issue_one_time_token(
                    &u.id,
                    OneTimeKind::Confirmation,
                    chrono::Duration::hours(1),
                    Some(challenge.clone()),
                )
                .await
                .unwrap();
            assert!(token.starts_with(PKCE_PREFIX), "{token}");
            let Redeemed::Valid { pkce, .. } = store
                .redeem_one_time_token(&token, OneTimeKind::Confirmation)
                .await
                .unwrap()
            else {
                panic!("a good PKCE link")
            };
            assert_eq!(pkce, Some(challenge));
        }

        async fn auth_user_carries_subscription_and_avatar_and_clients_cannot_set_them(store) {
            let data = client_metadata(
                serde_json::json!({"subscription": {"isActive": true}, "name": "Ada"})
                    .as_object()
                    .unwrap()
                    .clone(),
            );
            let u = store
                .create_user("m@example.com", "h".into(), data, true)
                .await
                .unwrap();
            let a = auth_user(&store, &u);
            assert_eq!(
                a.user_metadata["subscription"],
                serde_json::json!({"isActive": false, "customerId": null})
            );
            assert_eq!(a.user_metadata["avatar_url"], serde_json::Value::Null);
            assert_eq!(a.user_metadata["name"], "Ada");
            assert!(!a.has_active_subscription);
            let patch = serde_json::json!({"avatar_url": "https://example.com/a.png", "name": null, "has_active_subscription": true});
            let u = store
                .merge_user_metadata(&u.id, patch.as_object().unwrap().clone())
                .await
                .unwrap();
            let a = auth_user(&store, &u);
            assert_eq!(a.user_metadata["avatar_url"], "https://example.com/a.png");
            assert!(a.user_metadata.get("name").is_none());
            assert!(!a.has_active_subscription);
            let huge = serde_json::json!({"bio": "x".repeat(MAX_METADATA_BYTES)});
            assert!(matches!(
                store
                    .merge_user_metadata(&u.id, huge.as_object().unwrap().clone())
                    .await,
                Err(Error::Invalid(_))
            ));
        }
    }
}

//! Accounts: e-mail, password hash, metadata and subscription (spec section 3's auth user).
//!
//! E-mails are trimmed and compared case-insensitively; `email_userid` keeps them unique.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::Transactional;
use utoipa::ToSchema;

use crate::{Error, Result, Store, from_json, to_json};

/// A subscription as spec section 3's user metadata has it, plus when it ends.
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
    /// Free-form metadata the client may set (avatar_url...).
    #[serde(default)]
    pub user_metadata: serde_json::Map<String, serde_json::Value>,
    /// Subscription state.
    #[serde(default)]
    pub subscription: Subscription,
}

/// Trims and lower-cases an e-mail, and checks its shape.
pub fn normalize_email(email: &str) -> Result<String> {
    let e = email.trim().to_lowercase();
    let valid = e.len() <= 254
        && e.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.starts_with('.') && !domain.ends_with('.')
        })
        && !e.chars().any(|c| c.is_whitespace() || c.is_control());
    if valid { Ok(e) } else { Err(Error::Invalid(format!("{:?} is not a valid e-mail address", email.trim()))) }
}

impl Store {
    /// Creates an account; an e-mail already registered is a conflict.
    pub fn create_user(
        &self,
        email: &str,
        password_hash: String,
        user_metadata: serde_json::Map<String, serde_json::Value>,
        confirmed: bool,
    ) -> Result<User> {
        let email = normalize_email(email)?;
        let now = Utc::now();
        let user = User {
            id: uuid::Uuid::new_v4().to_string(),
            email: email.clone(),
            password_hash,
            created_at: now,
            updated_at: now,
            email_confirmed_at: confirmed.then_some(now),
            last_sign_in_at: None,
            user_metadata,
            subscription: Subscription::default(),
        };
        (&self.t.users, &self.t.email_userid).transaction(|(users, emails)| {
            if emails.get(email.as_bytes())?.is_some() {
                return Err(Error::Conflict("User already registered".into()).into());
            }
            emails.insert(email.as_bytes(), user.id.as_bytes())?;
            users.insert(user.id.as_bytes(), to_json(&user))?;
            Ok(())
        })?;
        self.flush()?;
        Ok(user)
    }

    /// One user by id.
    pub fn user(&self, id: &str) -> Result<Option<User>> {
        self.t.users.get(id)?.map(|v| from_json(&v)).transpose()
    }

    /// One user by e-mail (any case, surrounding spaces ignored).
    pub fn user_by_email(&self, email: &str) -> Result<Option<User>> {
        let Ok(email) = normalize_email(email) else { return Ok(None) };
        match self.t.email_userid.get(email)? {
            Some(id) => self.user(&String::from_utf8_lossy(&id)),
            None => Ok(None),
        }
    }

    /// Saves a changed user record (e-mail changes are not supported here).
    pub fn save_user(&self, user: &User) -> Result<()> {
        let mut user = user.clone();
        user.updated_at = Utc::now();
        if !self.t.users.contains_key(&user.id)? {
            return Err(Error::NotFound("user"));
        }
        self.t.users.insert(user.id.as_bytes(), to_json(&user))?;
        self.flush()
    }

    /// Applies `change` to a user record atomically and returns the new record.
    pub fn update_user(&self, id: &str, change: impl Fn(&mut User)) -> Result<User> {
        let updated = self.t.users.transaction(|users| {
            let Some(raw) = users.get(id.as_bytes())? else {
                return Err(Error::NotFound("user").into());
            };
            let mut user: User = from_json(&raw)?;
            change(&mut user);
            user.updated_at = Utc::now();
            users.insert(id.as_bytes(), to_json(&user))?;
            Ok(user)
        })?;
        self.flush()?;
        Ok(updated)
    }

    /// Deletes an account and every record of it: sessions, marks and shares.
    pub fn delete_user(&self, id: &str) -> Result<User> {
        let user = self.user(id)?.ok_or(Error::NotFound("user"))?;
        for session in self.user_session_ids(id)? {
            self.revoke_session(&session)?;
        }
        self.forget_marks(id)?;
        (&self.t.users, &self.t.email_userid).transaction(|(users, emails)| {
            users.remove(id.as_bytes())?;
            emails.remove(user.email.as_bytes())?;
            Ok(())
        })?;
        self.flush()?;
        Ok(user)
    }

    /// Subscriber status as spec section 4 defines it: a complimentary account (by id or
    /// e-mail), an active subscription that has not ended, or a payment customer id.
    pub fn is_subscriber(&self, user: &User) -> bool {
        let comp = &self.options().complimentary;
        if comp.iter().any(|c| c == &user.id || c.eq_ignore_ascii_case(&user.email)) {
            return true;
        }
        let s = &user.subscription;
        let not_ended = s.until.is_none_or(|until| until > Utc::now());
        (s.is_active && not_ended) || (s.customer_id.is_some() && not_ended)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_store;
    use crate::{Options, Store};

    #[test]
    fn emails_are_unique_ignoring_case_and_spaces() {
        let (_d, store) = test_store();
        let u = store.create_user(" Ada@Example.com ", "h".into(), Default::default(), true).unwrap();
        assert_eq!(u.email, "ada@example.com");
        assert!(matches!(store.create_user("ADA@example.com", "h".into(), Default::default(), true), Err(Error::Conflict(_))));
        assert_eq!(store.user_by_email("ada@EXAMPLE.com").unwrap().unwrap().id, u.id);
        assert!(store.create_user("not-an-email", "h".into(), Default::default(), true).is_err());
    }

    #[test]
    fn subscriber_rules() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Options { complimentary: vec!["vip@example.com".into()], ..Default::default() }).unwrap();
        let vip = store.create_user("vip@example.com", "h".into(), Default::default(), true).unwrap();
        let free = store.create_user("free@example.com", "h".into(), Default::default(), true).unwrap();
        assert!(store.is_subscriber(&vip));
        assert!(!store.is_subscriber(&free));
        let paid = store.update_user(&free.id, |u| u.subscription.customer_id = Some("cus_1".into())).unwrap();
        assert!(store.is_subscriber(&paid));
        let ended = store
            .update_user(&free.id, |u| {
                u.subscription = Subscription { is_active: true, customer_id: None, until: Some(Utc::now() - chrono::Duration::days(1)) }
            })
            .unwrap();
        assert!(!store.is_subscriber(&ended));
    }
}

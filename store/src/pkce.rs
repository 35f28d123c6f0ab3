//! PKCE (RFC 7636) for e-mailed links, as the Supabase Auth service (GoTrue) does it: a
//! client that asks for a link with a `code_challenge` gets a link whose token starts
//! with `pkce_`; following it gives an authorization code (not a session) in the
//! redirect's query, which only the holder of the matching `code_verifier` can exchange
//! for a session, once, within the code's lifetime.
//!
//! The challenge travels inside the one-time token's record (see `users.rs`) until the
//! link is followed; then it moves to the authorization code's record. Codes are stored
//! under their SHA-256, one live code per user and purpose: a newer one replaces it.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::backend::SecretLookup;
use crate::secrets::{SecretRecord, SecretUse, secret_hash};
use crate::{Result, Store, from_json, to_json};

/// How the challenge was derived from the verifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChallengeMethod {
    /// `challenge = base64url(SHA-256(verifier))`.
    S256,
    /// `challenge = verifier`.
    Plain,
}

impl ChallengeMethod {
    /// Parses `s256` or `plain`, in any case (GoTrue accepts both spellings).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "s256" => Some(Self::S256),
            "plain" => Some(Self::Plain),
            _ => None,
        }
    }
}

/// A client's code challenge, kept until its code is exchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PkceChallenge {
    /// The challenge as the client sent it.
    pub challenge: String,
    /// How it was derived.
    pub method: ChallengeMethod,
}

impl PkceChallenge {
    /// Whether `verifier` is the one this challenge was made from (compared in constant
    /// time).
    pub fn verifies(&self, verifier: &str) -> bool {
        let expected = match self.method {
            ChallengeMethod::S256 => {
                use base64::Engine;
                use sha2::Digest;
                base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .encode(sha2::Sha256::digest(verifier.as_bytes()))
            }
            ChallengeMethod::Plain => verifier.to_string(),
        };
        constant_time_eq(expected.as_bytes(), self.challenge.as_bytes())
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An authorization code as stored under its hash.
#[derive(Debug, Serialize, Deserialize)]
struct AuthCodeRecord {
    user_id: String,
    /// The user's slot this code holds (`recovery`, `signup`).
    purpose: String,
    /// The sign-in method the session will name (`recovery`, `email/signup`).
    method: String,
    challenge: PkceChallenge,
    issued_at: DateTime<Utc>,
}

/// What exchanging an authorization code gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exchanged {
    /// The code and verifier matched; the code is spent. Start a session for the user.
    Valid {
        /// Whose code it was.
        user_id: String,
        /// The sign-in method for the session (`recovery`, `email/signup`).
        method: String,
    },
    /// Unknown or already exchanged.
    NotFound,
    /// Too old (it is spent now too).
    Expired,
    /// The verifier does not match the challenge; the code stays usable until it expires.
    BadVerifier,
}

impl Store {
    /// Issues an authorization code for `user_id` bound to the client's `challenge`,
    /// replacing the user's previous code for the same `purpose`; only its hash is kept.
    pub async fn issue_auth_code(
        &self,
        user_id: &str,
        purpose: &str,
        method: &str,
        challenge: PkceChallenge,
    ) -> Result<String> {
        let code = uuid::Uuid::new_v4().to_string();
        let record = AuthCodeRecord {
            user_id: user_id.to_string(),
            purpose: purpose.to_string(),
            method: method.to_string(),
            challenge,
            issued_at: Utc::now(),
        };
        let stored = SecretRecord {
            hash: secret_hash(&code),
            owner: user_id.to_string(),
            purpose: format!("code:{purpose}"),
            body: to_json(&record),
        };
        self.backend().put_secret(&stored, None).await?;
        Ok(code)
    }

    /// Exchanges an authorization code and its verifier: a good pair spends the code
    /// and names the user; a wrong verifier leaves the code for the right one; an
    /// expired code is spent and refused.
    pub async fn exchange_auth_code(
        &self,
        code: &str,
        verifier: &str,
        ttl: Duration,
    ) -> Result<Exchanged> {
        let hash = secret_hash(code);
        let now = Utc::now();
        let mut out = Exchanged::NotFound;
        self.backend()
            .use_secret(SecretLookup::Hash(&hash), &mut |found, _| {
                let Some(record) = found
                    .filter(|s| s.purpose.starts_with("code:"))
                    .and_then(|s| from_json::<AuthCodeRecord>(&s.body).ok())
                else {
                    out = Exchanged::NotFound;
                    return SecretUse::Keep;
                };
                let expired = record.issued_at + ttl <= now;
                if !expired && !record.challenge.verifies(verifier) {
                    out = Exchanged::BadVerifier;
                    return SecretUse::Keep;
                }
                out = if expired {
                    Exchanged::Expired
                } else {
                    Exchanged::Valid {
                        user_id: record.user_id,
                        method: record.method,
                    }
                };
                SecretUse::Spend
            })
            .await?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{store_tests, user_with_id};

    fn s256(verifier: &str) -> PkceChallenge {
        use base64::Engine;
        use sha2::Digest;
        PkceChallenge {
            challenge: base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(verifier.as_bytes())),
            method: ChallengeMethod::S256,
        }
    }

    #[test]
    fn challenges_verify_only_their_own_verifier() {
        let v = "a-verifier-of-at-least-forty-three-characters-long";
        assert!(s256(v).verifies(v));
        assert!(!s256(v).verifies("another verifier"));
        let plain = PkceChallenge {
            challenge: v.into(),
            method: ChallengeMethod::Plain,
        };
        assert!(plain.verifies(v));
        assert!(!plain.verifies(&v[1..]));
        assert_eq!(ChallengeMethod::parse("S256"), Some(ChallengeMethod::S256));
        assert_eq!(
            ChallengeMethod::parse("plain"),
            Some(ChallengeMethod::Plain)
        );
        assert_eq!(ChallengeMethod::parse("md5"), None);
    }

    store_tests! {
        async fn codes_exchange_once_with_the_right_verifier_and_expire(store) {
            let v = "verifier-0123456789-0123456789-0123456789-xyz";
            let ttl = Duration::seconds(300);
            // A code belongs to an account.
            user_with_id(&store, "u1").await;
            let code = store
                .issue_auth_code("u1", "recovery", "recovery", s256(v))
                .await
                .unwrap();
            assert_eq!(
                store.exchange_auth_code(&code, "wrong", ttl).await.unwrap(),
                Exchanged::BadVerifier
            );
            assert_eq!(
                store.exchange_auth_code(&code, v, ttl).await.unwrap(),
                Exchanged::Valid {
                    user_id: "u1".into(),
                    method: "recovery".into()
                }
            );
            assert_eq!(
                store.exchange_auth_code(&code, v, ttl).await.unwrap(),
                Exchanged::NotFound,
                "one use"
            );
            // A newer code replaces the older one of the same purpose.
            let old = store
                .issue_auth_code("u1", "signup", "email/signup", s256(v))
                .await
                .unwrap();
            let new = store
                .issue_auth_code("u1", "signup", "email/signup", s256(v))
                .await
                .unwrap();
            assert_eq!(
                store.exchange_auth_code(&old, v, ttl).await.unwrap(),
                Exchanged::NotFound
            );
            assert_eq!(
                store
                    .exchange_auth_code(&new, v, Duration::zero())
                    .await
                    .unwrap(),
                Exchanged::Expired
            );
            assert_eq!(
                store.exchange_auth_code(&new, v, ttl).await.unwrap(),
                Exchanged::NotFound,
                "an expired code is spent"
            );
        }
    }
}

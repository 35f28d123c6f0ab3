//! Reauthentication codes (GoTrue's nonce): six digits mailed to the signed-in user,
//! which a password change needs with `--secure-password-change`.
//!
//! Six digits are guessable where a link's token is not, so a code is stored under the
//! hash of the user id with it (two users' equal codes do not meet), one live per user,
//! and [`MAX_NONCE_ATTEMPTS`] wrong guesses spend it.

use chrono::{Duration, Utc};

use crate::backend::SecretLookup;
use crate::secrets::{SecretUse, secret_hash};
use crate::users::{OneTimeKind, OneTimeRecord, User, kind_name};
use crate::{Result, Store, from_json, to_json};

/// Wrong codes a reauthentication code survives; the next wrong one spends it.
pub const MAX_NONCE_ATTEMPTS: u32 = 5;

fn nonce_key(user_id: &str, nonce: &str) -> [u8; 32] {
    secret_hash(&format!("reauthentication\u{0}{user_id}\u{0}{nonce}"))
}

impl Store {
    /// Issues a 6-digit reauthentication code for the user, valid for `ttl`, replacing
    /// the previous one, and records when it was sent.
    pub async fn issue_reauthentication_nonce(
        &self,
        user_id: &str,
        ttl: Duration,
    ) -> Result<String> {
        let nonce = format!("{:06}", rand::random::<u32>() % 1_000_000);
        let now = Utc::now();
        let record = OneTimeRecord {
            user_id: user_id.to_string(),
            kind: OneTimeKind::Reauthentication,
            expires_at: now + ttl,
            pkce: None,
            attempts: 0,
        };
        let stored = record.stored(nonce_key(user_id, &nonce));
        self.backend()
            .put_secret(
                &stored,
                Some(&mut |user: &mut User| {
                    user.reauthentication_sent_at = Some(now);
                    Ok(())
                }),
            )
            .await?;
        Ok(nonce)
    }

    /// Spends the user's reauthentication code if `nonce` is it and it has not expired.
    /// A wrong guess is counted; past [`MAX_NONCE_ATTEMPTS`] of them the code is spent.
    pub async fn spend_reauthentication_nonce(&self, user_id: &str, nonce: &str) -> Result<bool> {
        let given = nonce_key(user_id, nonce.trim());
        let purpose = kind_name(OneTimeKind::Reauthentication);
        let now = Utc::now();
        let mut ok = false;
        self.backend()
            .use_secret(
                SecretLookup::Slot {
                    owner: user_id,
                    purpose,
                },
                &mut |found, _| {
                    ok = false;
                    let Some(live) = found else {
                        return SecretUse::Keep;
                    };
                    let Ok(mut record) = from_json::<OneTimeRecord>(&live.body) else {
                        return SecretUse::Spend;
                    };
                    let right = live.hash == given;
                    record.attempts += u32::from(!right);
                    ok = right && record.expires_at > now;
                    if right || record.attempts > MAX_NONCE_ATTEMPTS || record.expires_at <= now {
                        SecretUse::Spend
                    } else {
                        SecretUse::Update(to_json(&record))
                    }
                },
            )
            .await?;
        Ok(ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;

    store_tests! {
        async fn a_code_works_once_and_wrong_guesses_spend_it(store) {
            let u = store
                .create_user("n@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            let nonce = store
                .issue_reauthentication_nonce(&u.id, Duration::hours(1))
                .await
                .unwrap();
            assert_eq!(nonce.len(), 6);
            assert!(
                store
                    .user(&u.id)
                    .await
                    .unwrap()
                    .unwrap()
                    .reauthentication_sent_at
                    .is_some()
            );
            assert!(
                store
                    .spend_reauthentication_nonce(&u.id, &nonce)
                    .await
                    .unwrap()
            );
            assert!(
                !store
                    .spend_reauthentication_nonce(&u.id, &nonce)
                    .await
                    .unwrap()
            );

            let nonce = store
                .issue_reauthentication_nonce(&u.id, Duration::hours(1))
                .await
                .unwrap();
            let wrong = if nonce == "000000" {
                "000001"
            } else {
                "000000"
            };
            for _ in 0..=MAX_NONCE_ATTEMPTS {
                assert!(
                    !store
                        .spend_reauthentication_nonce(&u.id, wrong)
                        .await
                        .unwrap()
                );
            }
            assert!(
                !store
                    .spend_reauthentication_nonce(&u.id, &nonce)
                    .await
                    .unwrap(),
                "too many wrong guesses spend the code"
            );

            let nonce = store
                .issue_reauthentication_nonce(&u.id, Duration::seconds(-1))
                .await
                .unwrap();
            assert!(
                !store
                    .spend_reauthentication_nonce(&u.id, &nonce)
                    .await
                    .unwrap()
            );
        }
    }
}

//! Signed tokens: HS256 JWTs with the claims the Supabase Auth protocol puts in them.
//!
//! The signing secret is generated on first start and kept in the data directory with
//! mode 0600, unless configuration provides one. The public anonymous key is a JWT of the
//! same secret with `role: "anon"`, so clients can send it where the protocol expects one.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use radar_api::auth::AuthAppMetadata;
use serde::{Deserialize, Serialize};

/// The audience of user access tokens.
pub(crate) const AUDIENCE: &str = "authenticated";

/// Claims of a link sent by mail (see [`Tokens::sign_link`]).
#[derive(Debug, Serialize, Deserialize)]
struct LinkClaims {
    aud: String,
    sub: String,
    exp: i64,
}

/// Claims of a user's access token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// Always [`AUDIENCE`].
    pub aud: String,
    /// Expiry, seconds since the epoch.
    pub exp: i64,
    /// Issue time.
    pub iat: i64,
    /// Issuer: this install's auth URL.
    #[serde(default)]
    pub iss: String,
    /// The user id.
    pub sub: String,
    /// The user's e-mail.
    pub email: String,
    /// `authenticated`.
    pub role: String,
    /// Authenticator assurance level: `aal1`.
    pub aal: String,
    /// How the session was authenticated.
    pub amr: Vec<AmrEntry>,
    /// The session this token belongs to; revoked sessions invalidate their tokens.
    pub session_id: String,
    /// Always false: anonymous sign-ins are not offered.
    pub is_anonymous: bool,
    /// The user's phone: always empty (Radar has no phone sign-in), present because
    /// GoTrue's tokens carry it.
    #[serde(default)]
    pub phone: String,
    /// How the account signs in, as on the user at issue time.
    #[serde(default)]
    pub app_metadata: AuthAppMetadata,
    /// The user's metadata at issue time (GoTrue's claim, which apps read without a
    /// `GET /user`); a change shows in the next refreshed token. Radar's own checks
    /// (the subscription) read the store, never this copy.
    #[serde(default)]
    pub user_metadata: serde_json::Map<String, serde_json::Value>,
}

/// One authentication method reference.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AmrEntry {
    /// `password` or `recovery`.
    pub method: String,
    /// When, seconds since the epoch.
    pub timestamp: i64,
}

#[derive(Serialize, Deserialize)]
struct AnonClaims {
    iss: String,
    role: String,
    iat: i64,
    exp: i64,
}

/// Shards of the verified-token cache, each behind its own lock.
const VERIFIED_SHARDS: usize = 8;
/// Tokens each shard remembers: 4,096 in all, about 5 MB at their largest (a token and
/// its claims are about 1.2 KB). Past that the least recently used is forgotten and
/// verified again when it comes back.
const VERIFIED_PER_SHARD: usize = 512;

/// A token whose signature was checked, with its claims.
struct Verified {
    token: Box<str>,
    claims: Arc<Claims>,
}

/// One shard of the verified-token cache, by signature.
type VerifiedShard = Mutex<LruCache<Box<str>, Verified>>;

/// Keys for signing and checking tokens, and the anonymous key derived from them.
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// Recently verified tokens by their signature. A signed-in reader sends the same
    /// token with every request for an hour; checking its HMAC, decoding its base64 and
    /// parsing its claims each time was a tenth of a feed request. Only a token that
    /// passed [`Tokens::verify`] in full enters, a hit must equal it byte for byte, and
    /// its expiry is checked again on every hit, so the cache answers exactly what a
    /// full check would. Revocation is unaffected: sessions are checked in the store.
    verified: Box<[VerifiedShard]>,
    /// The public anonymous key.
    pub anon_key: String,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens { .. }")
    }
}

impl Tokens {
    /// Keys from a secret.
    pub fn from_secret(secret: &[u8]) -> Self {
        let encoding = EncodingKey::from_secret(secret);
        let decoding = DecodingKey::from_secret(secret);
        // The anon key must stay the same across restarts: fix its times.
        let anon = AnonClaims {
            iss: "radar".into(),
            role: "anon".into(),
            iat: 1_700_000_000,
            exp: 4_102_444_800,
        };
        let anon_key = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &anon, &encoding)
            .expect("HS256 signing cannot fail");
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[AUDIENCE]);
        validation.leeway = 0;
        let per_shard = NonZeroUsize::new(VERIFIED_PER_SHARD).expect("non-zero");
        Self {
            encoding,
            decoding,
            validation,
            verified: (0..VERIFIED_SHARDS)
                .map(|_| Mutex::new(LruCache::new(per_shard)))
                .collect(),
            anon_key,
        }
    }

    /// Keys from the configured secret, or from the store's shared secret `jwt_secret`
    /// (made on first use, and the same for every daemon sharing the store; the embedded
    /// backend keeps it in `DATA/jwt_secret`, mode 0600).
    pub async fn load(
        store: &radar_store::Store,
        configured: Option<&str>,
    ) -> anyhow::Result<Self> {
        if let Some(secret) = configured {
            anyhow::ensure!(
                secret.len() >= 32,
                "the JWT secret must be at least 32 characters"
            );
            return Ok(Self::from_secret(secret.as_bytes()));
        }
        let make = || hex::encode(rand::random::<[u8; 32]>()).into_bytes();
        let secret = store.shared_secret("jwt_secret", &make).await?;
        Ok(Self::from_secret(&secret))
    }

    /// Signs user claims.
    pub fn sign(&self, claims: &Claims) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .expect("HS256 signing cannot fail")
    }

    /// Checks a user access token: signature, expiry and audience. Anon keys fail here.
    /// A token verified recently is answered from memory (see `verified`).
    pub fn verify(&self, token: &str) -> Result<Arc<Claims>, jsonwebtoken::errors::Error> {
        // The signature is an HMAC of the rest: a good key for the token, and cheap to hash.
        let signature = token.rsplit('.').next().unwrap_or_default();
        let now = chrono::Utc::now().timestamp();
        let shard = &self.verified[shard_of(signature)];
        if let Some(hit) = shard.lock().expect("token cache lock").get(signature)
            && *hit.token == *token
            && hit.claims.exp > now
        {
            return Ok(hit.claims.clone());
        }
        let claims = Arc::new(
            jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)?.claims,
        );
        shard.lock().expect("token cache lock").put(
            signature.into(),
            Verified {
                token: token.into(),
                claims: claims.clone(),
            },
        );
        Ok(claims)
    }

    /// Signs a link sent by mail that acts without signing in (an alert's unsubscribe
    /// link): `subject` says what it acts on, `purpose` what it does. Its audience is the
    /// purpose's own, so it is never taken for an access token nor for another link.
    pub fn sign_link(&self, purpose: &str, subject: &str, valid_for: chrono::Duration) -> String {
        let claims = LinkClaims {
            aud: format!("radar-link:{purpose}"),
            sub: subject.to_string(),
            exp: (chrono::Utc::now() + valid_for).timestamp(),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail")
    }

    /// The subject of a link signed by [`Tokens::sign_link`] for `purpose`, if its
    /// signature, audience and expiry hold.
    pub fn verify_link(&self, purpose: &str, token: &str) -> Option<String> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[format!("radar-link:{purpose}")]);
        validation.leeway = 0;
        jsonwebtoken::decode::<LinkClaims>(token, &self.decoding, &validation)
            .ok()
            .map(|t| t.claims.sub)
    }

    /// True when the token is this install's anonymous key.
    pub fn is_anon_key(&self, token: &str) -> bool {
        token == self.anon_key
    }
}

/// The shard of the verified-token cache a signature belongs to.
#[expect(
    clippy::cast_possible_truncation,
    reason = "a hash's low bits pick the shard"
)]
fn shard_of(signature: &str) -> usize {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(signature) as usize % VERIFIED_SHARDS
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn claims(exp_in: i64) -> Claims {
        let now = Utc::now().timestamp();
        Claims {
            aud: AUDIENCE.into(),
            exp: now + exp_in,
            iat: now,
            iss: String::new(),
            sub: "u".into(),
            email: "a@example.com".into(),
            role: "authenticated".into(),
            aal: "aal1".into(),
            amr: vec![],
            session_id: "s".into(),
            is_anonymous: false,
            phone: String::new(),
            app_metadata: AuthAppMetadata::default(),
            user_metadata: Default::default(),
        }
    }

    #[test]
    fn tokens_verify_only_with_their_own_secret_and_before_expiry() {
        let a = Tokens::from_secret(b"0123456789abcdef0123456789abcdef");
        let b = Tokens::from_secret(b"fedcba9876543210fedcba9876543210");
        let t = a.sign(&claims(3600));
        assert_eq!(a.verify(&t).unwrap().sub, "u");
        assert!(b.verify(&t).is_err());
        assert!(a.verify(&a.sign(&claims(-10))).is_err());
        assert!(
            a.verify(&a.anon_key).is_err(),
            "the anon key is not a user token"
        );
        assert!(a.is_anon_key(&a.anon_key));
    }

    #[test]
    fn a_remembered_token_is_answered_only_for_the_same_bytes_and_until_it_expires() {
        let a = Tokens::from_secret(b"0123456789abcdef0123456789abcdef");
        let t = a.sign(&claims(3600));
        let first = a.verify(&t).unwrap();
        assert!(Arc::ptr_eq(&first, &a.verify(&t).unwrap()), "a hit");

        // Another payload under the remembered signature: checked in full, and refused.
        let mut other = claims(3600);
        other.sub = "someone else".into();
        let forged = a.sign(&other);
        let (forged_head, _) = forged.rsplit_once('.').unwrap();
        let (_, signature) = t.rsplit_once('.').unwrap();
        assert!(a.verify(&format!("{forged_head}.{signature}")).is_err());

        // A remembered token past its expiry is refused like any other.
        let short = a.sign(&claims(1));
        assert_eq!(a.verify(&short).unwrap().sub, "u");
        std::thread::sleep(std::time::Duration::from_millis(2100));
        assert!(a.verify(&short).is_err());
    }

    #[tokio::test]
    async fn secret_file_is_private_and_stable() {
        let dir = tempfile::tempdir().unwrap();
        let store = radar_store::Store::open(dir.path(), Default::default())
            .await
            .unwrap();
        let first = Tokens::load(&store, None).await.unwrap();
        let again = Tokens::load(&store, None).await.unwrap();
        assert_eq!(first.anon_key, again.anon_key);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("jwt_secret"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}

//! Passwords: the strength rule (spec section 9: at least 6 characters) and argon2id
//! hashing, which runs on the blocking pool so it never stalls the server.

use std::sync::LazyLock;

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

use super::error::{AuthError, AuthResult};

/// The shortest password accepted, in characters.
pub const MIN_LENGTH: usize = 6;
/// The longest, so hashing cost stays bounded.
pub const MAX_LENGTH: usize = 1024;

/// Refuses passwords that break the rule, in the protocol's `weak_password` form.
pub fn check_strength(password: &str) -> AuthResult<()> {
    let n = password.chars().count();
    if n < MIN_LENGTH {
        return Err(AuthError::weak_password(
            format!("Password should be at least {MIN_LENGTH} characters."),
            &["length"],
        ));
    }
    if n > MAX_LENGTH {
        return Err(AuthError::unprocessable(
            "validation_failed",
            format!("Password should be at most {MAX_LENGTH} characters."),
        ));
    }
    Ok(())
}

/// An argon2id PHC string for a password.
pub async fn hash(password: String) -> AuthResult<String> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(AuthError::internal)
    })
    .await
    .map_err(AuthError::internal)?
}

/// A hash of nothing in particular, verified when the e-mail is unknown so that an
/// unknown address takes as long as a wrong password.
static DECOY: LazyLock<String> = LazyLock::new(|| {
    Argon2::default()
        .hash_password(b"radar decoy password")
        .expect("argon2 hashes with default parameters")
        .to_string()
});

/// Whether `password` matches `stored`; with no stored hash, spends the same time and
/// answers false.
pub async fn verify(password: String, stored: Option<String>) -> AuthResult<bool> {
    tokio::task::spawn_blocking(move || {
        let known = stored.is_some();
        let hash = stored.unwrap_or_else(|| DECOY.clone());
        let ok = Argon2::default()
            .verify_password(password.as_bytes(), hash.as_str())
            .is_ok();
        ok && known
    })
    .await
    .map_err(AuthError::internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_and_verify() {
        let h = hash("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(
            verify("correct horse".into(), Some(h.clone()))
                .await
                .unwrap()
        );
        assert!(!verify("wrong horse".into(), Some(h)).await.unwrap());
        assert!(!verify("radar decoy password".into(), None).await.unwrap());
    }

    #[test]
    fn strength_counts_characters() {
        assert!(check_strength("12345").is_err());
        assert!(check_strength("éééééé").is_ok());
        assert_eq!(
            check_strength("abc").unwrap_err().weak_password,
            Some(vec!["length".to_string()])
        );
    }
}

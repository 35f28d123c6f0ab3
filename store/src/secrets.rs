//! One-time secrets as the backends keep them: e-mailed links (confirmation, recovery,
//! e-mail change), reauthentication codes and PKCE authorization codes. Each is stored
//! by the SHA-256 of the secret, so a copy of the database holds no usable link, and an
//! owner holds at most one live secret per purpose: issuing a new link spends the old.

/// A stored secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretRecord {
    /// SHA-256 of the secret.
    pub hash: [u8; 32],
    /// The user it was issued to.
    pub owner: String,
    /// What it is for (one live secret per owner and purpose): a one-time link's kind
    /// (`recovery`, `confirmation`, `email_change_new`...) or `code:` and an
    /// authorization code's purpose.
    pub purpose: String,
    /// The rules' record of it as JSON (expiry, PKCE challenge, attempts...).
    pub body: Vec<u8>,
}

/// What the rule presenting a secret decides (see
/// [`crate::backend::SecretStore::use_secret`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretUse {
    /// Leave it as it is.
    Keep,
    /// Keep it with this new body (a wrong guess counted).
    Update(Vec<u8>),
    /// Delete it: it is spent (used, expired, or guessed at too often).
    Spend,
}

/// The SHA-256 of a secret: what a backend keeps in place of it.
pub(crate) fn secret_hash(secret: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(secret.as_bytes()).into()
}

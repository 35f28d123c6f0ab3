//! The signed-in session, kept between runs in the user's config directory
//! (`$RADAR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/radar`, else `~/.config/radar`) as
//! `session.json`, readable only by its owner: it holds a refresh token.

use std::io::Write;
use std::path::{Path, PathBuf};

use radar_api::auth::AuthSession;

/// The directory for the reader's files.
pub fn config_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("RADAR_CONFIG_DIR") {
        return Some(dir);
    }
    if let Some(dir) = var("XDG_CONFIG_HOME") {
        return Some(dir.join("radar"));
    }
    var("HOME").map(|home| home.join(".config/radar"))
}

/// Where the session lives.
#[derive(Debug, Clone)]
pub struct SessionFile {
    path: PathBuf,
}

impl SessionFile {
    /// The session file in `dir`.
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            path: dir.join("session.json"),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The saved session; none when there is no file or it cannot be read (a damaged file
    /// means signing in again, not failing to start).
    pub fn load(&self) -> Option<AuthSession> {
        let bytes = std::fs::read(&self.path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Saves the session, privately (see [`write_private`]).
    pub fn save(&self, session: &AuthSession) -> std::io::Result<()> {
        write_private(
            &self.path,
            &serde_json::to_vec_pretty(session).expect("sessions serialise"),
        )
    }

    /// Removes the session (sign-out). A missing file is fine.
    pub fn remove(&self) -> std::io::Result<()> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// Writes `bytes` to a private temporary file, then renames it over `path`, so the file
/// is never partly written nor readable by others; the directory is made 0700.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Whether the access token should be refreshed now: within a quarter of its lifetime
/// (at most a minute) of expiring, or already expired.
pub fn needs_refresh(session: &AuthSession, now_unix: i64) -> bool {
    let margin = (session.expires_in / 4).clamp(1, 60);
    now_unix >= session.expires_at - margin
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use radar_api::auth::{AuthAppMetadata, AuthUser};

    pub(crate) fn session(email: &str, subscriber: bool, expires_at: i64) -> AuthSession {
        let now = chrono::Utc::now();
        AuthSession {
            access_token: "access".into(),
            token_type: "bearer".into(),
            expires_in: 3600,
            expires_at,
            refresh_token: "refresh".into(),
            user: AuthUser {
                id: "11111111-2222-3333-4444-555555555555".into(),
                aud: "authenticated".into(),
                role: "authenticated".into(),
                email: email.into(),
                phone: String::new(),
                email_confirmed_at: None,
                confirmed_at: None,
                last_sign_in_at: None,
                confirmation_sent_at: None,
                recovery_sent_at: None,
                new_email: None,
                email_change_sent_at: None,
                reauthentication_sent_at: None,
                app_metadata: AuthAppMetadata {
                    provider: "email".into(),
                    providers: vec!["email".into()],
                },
                user_metadata: Default::default(),
                identities: vec![],
                created_at: now,
                updated_at: now,
                is_anonymous: false,
                has_active_subscription: subscriber,
            },
        }
    }

    #[test]
    fn saves_privately_loads_and_removes() {
        let dir = tempfile::tempdir().unwrap();
        let file = SessionFile::in_dir(&dir.path().join("nested"));
        assert!(file.load().is_none());
        let s = session("a@example.com", false, 100);
        file.save(&s).unwrap();
        file.save(&s).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(file.load().unwrap(), s);
        file.remove().unwrap();
        assert!(file.load().is_none());
        file.remove().unwrap();
    }

    #[test]
    fn refreshes_a_minute_before_expiry() {
        let s = session("a@example.com", false, 10_000);
        assert!(!needs_refresh(&s, 9_939));
        assert!(needs_refresh(&s, 9_940));
        assert!(needs_refresh(&s, 20_000));
    }
}

//! The signed-in session, kept between runs in the user's config directory
//! (`$RADAR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/radar`, else `~/.config/radar`),
//! readable only by its owner: it holds a refresh token.
//!
//! A session belongs to the server that issued it. Each server origin (scheme, host and
//! port, see [`Origin`]) has a directory of its own, `servers/<scheme>_<host>_<port>/`,
//! holding its `session.json` and its waiting marks ([`crate::pending`]); the session
//! file also names its origin, and one naming another is not used. So `--server`
//! pointed elsewhere never sends a token or a mark meant for another server, and signing
//! in on one server leaves the session of every other where it is.
//!
//! A `session.json` directly in the config directory comes from readers that kept one
//! session for whatever `--server` they were given: it names no server, so no server can
//! be trusted with it, and it is removed at start ([`retire_unkeyed`]); its reader signs
//! in again. Its `pending-marks.json` beside it is left where it is, unused.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use radar_api::auth::AuthSession;
use serde::{Deserialize, Serialize};

/// A server's origin: what a session and its waiting marks belong to, as browsers tie
/// cookies and tokens to one. The host is as the URL parser normalises it (lower case,
/// IDNA, IPv6 in brackets) and the port is explicit, so `http://Example.org` and
/// `http://example.org:80/radar` are one origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// The origin of an http(s) URL; none for another scheme or a URL without a host.
    pub fn of(server: &str) -> Option<Origin> {
        let url = url::Url::parse(server).ok()?;
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        Some(Origin {
            scheme: url.scheme().to_string(),
            host: url.host()?.to_string(),
            port: url.port_or_known_default()?,
        })
    }

    /// The name of the origin's directory: `http_127.0.0.1_8080`. Every byte of the host
    /// outside `a-z0-9.-` is written `_xx`, so two origins never share a directory.
    pub fn dir_name(&self) -> String {
        let mut host = String::new();
        for b in self.host.bytes() {
            match b {
                b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' => host.push(b as char),
                other => host.push_str(&format!("_{other:02x}")),
            }
        }
        format!("{}_{host}_{}", self.scheme, self.port)
    }

    /// The directory in `config` that holds this origin's session and marks.
    pub fn dir_in(&self, config: &Path) -> PathBuf {
        config.join("servers").join(self.dir_name())
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// Removes a session saved without a server (see the module's notes). Answers whether
/// there was one.
pub fn retire_unkeyed(config: &Path) -> bool {
    let path = config.join("session.json");
    let _ = std::fs::remove_file(config.join("session.json.tmp"));
    std::fs::remove_file(path).is_ok()
}

/// The session file's content: the session, and the origin it belongs to.
#[derive(Serialize, Deserialize)]
struct Saved<S> {
    origin: String,
    #[serde(flatten)]
    session: S,
}

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

/// Where the session of one server lives.
#[derive(Debug, Clone)]
pub struct SessionFile {
    path: PathBuf,
    origin: String,
}

impl SessionFile {
    /// The session file of `origin` in the config directory `config`.
    pub fn of(config: &Path, origin: &Origin) -> Self {
        Self {
            path: origin.dir_in(config).join("session.json"),
            origin: origin.to_string(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The saved session; none when there is no file, it cannot be read (a damaged file
    /// means signing in again, not failing to start) or it names another origin.
    pub fn load(&self) -> Option<AuthSession> {
        let bytes = std::fs::read(&self.path).ok()?;
        let saved: Saved<AuthSession> = serde_json::from_slice(&bytes).ok()?;
        (saved.origin == self.origin).then_some(saved.session)
    }

    /// Saves the session with its origin, privately (see [`write_private`]).
    pub fn save(&self, session: &AuthSession) -> std::io::Result<()> {
        let saved = Saved {
            origin: self.origin.clone(),
            session,
        };
        write_private(
            &self.path,
            &serde_json::to_vec_pretty(&saved).expect("sessions serialise"),
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

    fn origin(server: &str) -> Origin {
        Origin::of(server).unwrap()
    }

    #[test]
    fn origins_are_normalised_and_name_distinct_directories() {
        let o = origin("http://127.0.0.1:8080/");
        assert_eq!(o.to_string(), "http://127.0.0.1:8080");
        assert_eq!(o.dir_name(), "http_127.0.0.1_8080");
        assert_eq!(
            origin("HTTP://Example.ORG/radar?x=1"),
            origin("http://example.org:80")
        );
        assert_eq!(
            origin("https://example.org").to_string(),
            "https://example.org:443"
        );
        assert_ne!(origin("http://example.org"), origin("https://example.org"));
        assert_ne!(
            origin("http://127.0.0.1:8080"),
            origin("http://127.0.0.1:8081")
        );
        assert_eq!(
            origin("http://[::1]:8080").dir_name(),
            "http__5b_3a_3a1_5d_8080"
        );
        assert!(Origin::of("ftp://example.org").is_none());
        assert!(Origin::of("not a url").is_none());
        assert_ne!(
            origin("http://a-b.example").dir_name(),
            origin("http://a.example").dir_name()
        );
    }

    #[test]
    fn each_server_keeps_its_own_session() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (
            origin("http://127.0.0.1:8080"),
            origin("http://127.0.0.1:9090"),
        );
        let (file_a, file_b) = (
            SessionFile::of(dir.path(), &a),
            SessionFile::of(dir.path(), &b),
        );
        let on_a = session("a@example.com", false, 100);
        file_a.save(&on_a).unwrap();
        assert!(file_b.load().is_none(), "A's session is not B's");
        let on_b = session("b@example.com", true, 200);
        file_b.save(&on_b).unwrap();
        assert_eq!(
            file_a.load(),
            Some(on_a.clone()),
            "signing in on B keeps A's"
        );
        assert_eq!(file_b.load(), Some(on_b));
        file_b.remove().unwrap();
        assert_eq!(
            file_a.load(),
            Some(on_a.clone()),
            "signing out of B keeps A's"
        );

        // A file that names another origin (copied by hand) is not used.
        std::fs::create_dir_all(b.dir_in(dir.path())).unwrap();
        std::fs::copy(file_a.path(), file_b.path()).unwrap();
        assert!(file_b.load().is_none());
        let text = std::fs::read_to_string(file_a.path()).unwrap();
        assert!(
            text.contains("\"origin\": \"http://127.0.0.1:8080\""),
            "{text}"
        );
    }

    #[test]
    fn a_session_saved_without_a_server_is_never_used() {
        let dir = tempfile::tempdir().unwrap();
        // As earlier readers wrote it: the session alone, in the config directory.
        let old = session("old@example.com", false, 100);
        std::fs::write(
            dir.path().join("session.json"),
            serde_json::to_vec(&old).unwrap(),
        )
        .unwrap();
        let file = SessionFile::of(dir.path(), &origin("http://127.0.0.1:8080"));
        assert!(file.load().is_none());
        assert!(retire_unkeyed(dir.path()));
        assert!(!dir.path().join("session.json").exists());
        assert!(!retire_unkeyed(dir.path()));
        // The same bytes where a keyed file belongs are not used either.
        std::fs::create_dir_all(file.path().parent().unwrap()).unwrap();
        std::fs::write(file.path(), serde_json::to_vec(&old).unwrap()).unwrap();
        assert!(file.load().is_none());
    }

    #[test]
    fn saves_privately_loads_and_removes() {
        let dir = tempfile::tempdir().unwrap();
        let file = SessionFile::of(&dir.path().join("nested"), &origin("http://127.0.0.1:1"));
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

//! A throwaway PostgreSQL for the tests of one process.
//!
//! The first test that asks starts a server: `initdb` in a fresh directory under
//! `/tmp` (as the `postgres` system user when the tests run as root, since `initdb`
//! refuses root; `/tmp`, not `$TMPDIR`, so that user can reach it), then `pg_ctl start`
//! with its Unix socket in that directory and no TCP at all (`listen_addresses=''`),
//! `fsync` off (a test never outlives the server). It migrates one template database;
//! each test then gets a database of its own copied from it (`CREATE DATABASE …
//! TEMPLATE`, tens of milliseconds), dropped when the test lets go of it. The server is
//! stopped and its directory removed when the process exits; a server left behind by a
//! process that was killed is stopped and removed by the next one to start.
//!
//! Where PostgreSQL is not installed, [`database`] prints a notice and answers `None`,
//! and the test returns early; when the environment variable `CI` is set it panics
//! instead, so CI cannot pass by skipping. `RADAR_PG_BIN` names another directory of
//! PostgreSQL's programs.
//!
//! Nothing here depends on `cfg(test)`: the end-to-end tests use [`database`] (a URL to
//! start `radar serve --store` with) through `radar_store::postgres_testing`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::PostgresBackend;

/// The database every test's database is copied from.
const TEMPLATE: &str = "radar_template";

/// Where test servers live: a directory the `postgres` user can reach.
const ROOT: &str = "/tmp";

/// The prefix of a test server's directory.
const PREFIX: &str = "radar-pg-";

/// The role the server is created with (trusted: the socket is in a private directory).
const ROLE: &str = "radar";

/// A running test server.
pub struct Server {
    /// Its directory: `data/`, the socket, `log`, `owner.pid`.
    dir: PathBuf,
    bin: PathBuf,
    next: AtomicU64,
}

static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();

/// A database of one test, dropped when this is.
pub struct TestDatabase {
    /// Its store URL: `postgres:///NAME?host=DIR&user=radar`.
    pub url: String,
    name: String,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Some(Ok(server)) = SERVER.get() {
            let sql = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name);
            // A database left behind goes with the server at exit.
            let _ = server.admin(&sql);
        }
    }
}

impl TestDatabase {
    /// Cuts every connection to this database, as a restart or fail-over of the server
    /// would.
    pub fn cut_connections(&self) {
        let server = SERVER
            .get()
            .and_then(|s| s.as_ref().ok())
            .expect("a test database has a server");
        server
            .admin(&format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = '{}'",
                self.name
            ))
            .unwrap_or_else(|e| panic!("cutting connections failed: {e}"));
    }
}

/// A backend over a fresh database, for one test; the database is dropped with it.
pub struct TestBackend {
    // Declared first, dropped first: its connections go before the database.
    backend: PostgresBackend,
    /// The database.
    pub database: TestDatabase,
}

impl TestBackend {
    /// The database (to keep while the backend is used) and the backend.
    pub fn into_parts(self) -> (TestDatabase, PostgresBackend) {
        (self.database, self.backend)
    }
}

impl std::ops::Deref for TestBackend {
    type Target = PostgresBackend;
    fn deref(&self) -> &PostgresBackend {
        &self.backend
    }
}

/// A fresh, migrated database on this process's test server, or `None` (with a
/// notice) when PostgreSQL is not installed and `CI` is not set.
pub fn database() -> Option<TestDatabase> {
    let server = match SERVER.get_or_init(Server::start) {
        Ok(server) => server,
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("PostgreSQL is needed for this test and CI is set: {why}")
        }
        Err(why) => {
            // Once per process, past the test harness's capture of eprintln!.
            static TOLD: std::sync::Once = std::sync::Once::new();
            TOLD.call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "notice: skipping the PostgreSQL tests: {why}"
                );
            });
            return None;
        }
    };
    let n = server.next.fetch_add(1, Ordering::Relaxed);
    let name = format!("test_{n}");
    server
        .admin(&format!("CREATE DATABASE \"{name}\" TEMPLATE {TEMPLATE}"))
        .unwrap_or_else(|e| panic!("creating a test database failed: {e}"));
    Some(TestDatabase {
        url: server.url(&name),
        name,
    })
}

/// A [`PostgresBackend`] over a fresh database (see [`database`]).
pub async fn backend() -> Option<TestBackend> {
    let database = database()?;
    let backend = PostgresBackend::open(&database.url)
        .await
        .unwrap_or_else(|e| panic!("opening the test database failed: {e}"));
    Some(TestBackend { backend, database })
}

/// Where PostgreSQL's programs are, if it is installed.
fn find_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("RADAR_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let preferred = Path::new("/usr/lib/postgresql/15/bin");
    if preferred.join("initdb").exists() {
        return Some(preferred.to_path_buf());
    }
    // Another Debian major version: the newest.
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let major = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((major, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The `postgres` system user's uid and gid.
fn postgres_user() -> Option<(libc::uid_t, libc::gid_t)> {
    // SAFETY: the name is a NUL-terminated literal; the answer is read at once, before
    // any other call could reuse getpwnam's static buffer (tests start the server
    // inside a OnceLock, one thread at a time).
    unsafe {
        let pw = libc::getpwnam(c"postgres".as_ptr());
        (!pw.is_null()).then(|| ((*pw).pw_uid, (*pw).pw_gid))
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let found = unsafe { libc::kill(pid, 0) } == 0;
    found || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

impl Server {
    /// Starts the server of this process, or says why it cannot.
    fn start() -> Result<Server, String> {
        let bin = find_bin().ok_or(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; \
             apt-get install postgresql, or set RADAR_PG_BIN)",
        )?;
        Self::remove_stale(&bin);
        let dir = PathBuf::from(ROOT).join(format!(
            "{PREFIX}{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_micros()
        ));
        std::fs::create_dir(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        std::fs::write(dir.join("owner.pid"), std::process::id().to_string())
            .map_err(|e| format!("writing {}/owner.pid: {e}", dir.display()))?;
        if is_root() {
            let (uid, gid) = postgres_user()
                .ok_or("running as root, and there is no postgres system user to run initdb as")?;
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|e| format!("handing {} to postgres: {e}", dir.display()))?;
        }
        let server = Server {
            dir,
            bin,
            next: AtomicU64::new(0),
        };
        // SAFETY: `stop_at_exit` is an `extern "C" fn()` that does not unwind.
        unsafe { libc::atexit(stop_at_exit) };
        if let Err(why) = server.init() {
            server.stop();
            return Err(why);
        }
        Ok(server)
    }

    /// Creates the cluster, starts it and makes the template.
    fn init(&self) -> Result<(), String> {
        self.run(
            "initdb",
            &[
                "-D",
                &self.data(),
                "--no-sync",
                "-A",
                "trust",
                "-U",
                ROLE,
                "-E",
                "UTF8",
                "--locale=C",
            ],
        )?;
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c full_page_writes=off \
             -c max_connections=300 -c shared_buffers=32MB",
            self.dir.display()
        );
        let log = self.dir.join("log").display().to_string();
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-l",
                &log,
                "-o",
                &options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )?;
        self.make_template()
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    /// The store URL of a database of this server.
    fn url(&self, database: &str) -> String {
        format!(
            "postgres:///{database}?host={}&user={ROLE}",
            self.dir.display()
        )
    }

    /// Runs one of PostgreSQL's programs, as the postgres user when we are root.
    fn run(&self, program: &str, args: &[&str]) -> Result<(), String> {
        let path = self.bin.join(program);
        let mut cmd = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        let out = cmd
            .args(args)
            .current_dir(&self.dir)
            .output()
            .map_err(|e| format!("running {}: {e}", path.display()))?;
        if out.status.success() {
            return Ok(());
        }
        let log = std::fs::read_to_string(self.dir.join("log")).unwrap_or_default();
        Err(format!(
            "{program} failed ({}): {}{}\n{log}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }

    /// Runs one SQL command in the `postgres` database, on a thread of its own (so it
    /// may be called from a test's runtime or from none).
    fn admin(&self, sql: &str) -> Result<(), String> {
        let url = self.url("postgres");
        let sql = sql.to_string();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            rt.block_on(async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .map_err(|e| e.to_string())?;
                tokio::spawn(connection);
                client.batch_execute(&sql).await.map_err(|e| e.to_string())
            })
        })
        .join()
        .map_err(|_| "the admin thread panicked".to_string())?
    }

    /// Creates and migrates the template database, then closes it to connections (a
    /// database is copied only while no one is connected to it).
    fn make_template(&self) -> Result<(), String> {
        self.admin(&format!("CREATE DATABASE {TEMPLATE}"))?;
        let url = self.url(TEMPLATE);
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            rt.block_on(async move {
                PostgresBackend::open(&url)
                    .await
                    .map(drop)
                    .map_err(|e| format!("migrating the template: {e}"))
            })
        })
        .join()
        .map_err(|_| "the migration thread panicked".to_string())??;
        self.admin(&format!(
            "ALTER DATABASE {TEMPLATE} WITH ALLOW_CONNECTIONS false IS_TEMPLATE true; \
             SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = '{TEMPLATE}'"
        ))
    }

    /// Stops the server and removes its directory.
    fn stop(&self) {
        let _ = self.run(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    /// Stops and removes the servers of test processes that are gone (killed before
    /// their exit could).
    fn remove_stale(bin: &Path) {
        let Ok(entries) = std::fs::read_dir(ROOT) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if !name.to_string_lossy().starts_with(PREFIX) {
                continue;
            }
            let dir = entry.path();
            let owner = std::fs::read_to_string(dir.join("owner.pid"))
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok());
            if owner.is_some_and(|pid| !alive(pid)) {
                let stale = Server {
                    dir,
                    bin: bin.to_path_buf(),
                    next: AtomicU64::new(0),
                };
                stale.stop();
            }
        }
    }
}

extern "C" fn stop_at_exit() {
    if let Some(Ok(server)) = SERVER.get() {
        server.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Coordination;

    #[tokio::test]
    async fn each_test_gets_a_migrated_database_of_its_own() {
        let (Some(a), Some(b)) = (backend().await, backend().await) else {
            return;
        };
        assert_ne!(a.database.url, b.database.url);
        assert_eq!(
            a.schema_version().await.unwrap(),
            super::super::schema::LATEST
        );
        assert!(a.set_flag("only-in-a").await.unwrap());
        assert!(!b.flag("only-in-a").await.unwrap());
        // The server listens on its socket only.
        assert!(a.database.url.contains("host=/tmp/radar-pg-"));
        let server = SERVER.get().unwrap().as_ref().unwrap();
        let opts = std::fs::read_to_string(server.dir.join("data/postmaster.opts")).unwrap();
        assert!(opts.contains("listen_addresses="), "{opts}");
    }
}

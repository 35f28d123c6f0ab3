//! Starts the real `radar` binary on a temporary data directory and a free port, and
//! offers small helpers to talk to it. Every end-to-end test goes through here.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The `radar` binary under test.
pub(crate) fn radar_bin() -> &'static str {
    env!("CARGO_BIN_EXE_radar")
}

/// Whether the suite runs on a shared PostgreSQL database (`RADAR_TEST_STORE=postgres`)
/// rather than the embedded store: then every data directory a test names is paired with
/// a fresh database of its own on the tests' throwaway server, and every `radar` command
/// on that directory gets `--store` with its URL (`RADAR_STORE`).
pub(crate) fn on_postgres() -> bool {
    std::env::var("RADAR_TEST_STORE").is_ok_and(|v| v == "postgres")
}

/// Says why a test about the embedded store's own files (its journal, its disk, its
/// directory's lock) does not run on PostgreSQL; the test returns when this is true.
pub(crate) fn embedded_only(why: &str) -> bool {
    if on_postgres() {
        eprintln!("not on PostgreSQL: {why}");
    }
    on_postgres()
}

/// The database paired with the data directory `data` (see [`on_postgres`]). Databases
/// live as long as the test process; the server removes them when it exits.
pub(crate) fn database_of(data: &Path) -> String {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static DATABASES: OnceLock<
        Mutex<HashMap<PathBuf, radar_store::postgres_testing::TestDatabase>>,
    > = OnceLock::new();
    let mut all = DATABASES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    all.entry(data.to_path_buf())
        .or_insert_with(|| {
            radar_store::postgres_testing::database()
                .expect("RADAR_TEST_STORE=postgres needs PostgreSQL installed")
        })
        .url
        .clone()
}

/// A `radar` command on a data directory, with logs quiet; on PostgreSQL (see
/// [`on_postgres`]) with that directory's database as its store.
pub(crate) fn radar(data: &Path) -> Command {
    let mut cmd = Command::new(radar_bin());
    cmd.arg("--data")
        .arg(data)
        .env("RADAR_LOG", "warn")
        .env_remove("RADAR_ADDR")
        .env_remove("RADAR_STORE");
    if on_postgres() {
        cmd.env("RADAR_STORE", database_of(data));
    }
    cmd
}

/// A running daemon. Dropping it kills the process; the data directory lives as long as
/// the `TempDir` it came from.
pub(crate) struct Daemon {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The data directory.
    pub data: PathBuf,
    /// The install's public anonymous key.
    pub anon_key: String,
    /// Where the daemon's stderr goes (read it when a test fails).
    pub log: PathBuf,
    /// A client for requests.
    pub http: reqwest::Client,
}

impl Daemon {
    /// Starts `radar serve` on `data` with extra arguments and environment.
    pub(crate) fn start_with(data: &Path, args: &[&str], envs: &[(&str, &str)]) -> Daemon {
        Self::start_under(&[], data, args, envs)
    }

    /// As [`Daemon::start_with`], with `radar` run by a wrapper command (`strace ...`,
    /// `sh -c '...; exec "$0" "$@"'`) that ends by running its arguments.
    pub(crate) fn start_under(
        wrapper: &[&str],
        data: &Path,
        args: &[&str],
        envs: &[(&str, &str)],
    ) -> Daemon {
        std::fs::create_dir_all(data).unwrap();
        let log = data.with_extension("log");
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let mut cmd = radar(data);
        if let Some((program, rest)) = wrapper.split_first() {
            let radar = cmd;
            cmd = Command::new(program);
            cmd.args(rest)
                .arg(radar.get_program())
                .args(radar.get_args())
                .env("RADAR_LOG", "warn")
                .env_remove("RADAR_ADDR");
            if on_postgres() {
                cmd.env("RADAR_STORE", database_of(data));
            }
        }
        cmd.arg("serve");
        // A free port, unless the test asks for one (a restart on the same address).
        if !args.contains(&"--addr") {
            cmd.args(["--addr", "127.0.0.1:0"]);
        }
        cmd.args(args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("start radar serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut base = None;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(b) = line.strip_prefix("listening on ") {
                    base = Some(b.trim().to_string());
                }
                if let (Some(b), Some(key)) = (&base, line.strip_prefix("anon key: ")) {
                    let _ = tx.send((b.clone(), key.trim().to_string()));
                }
            }
        });
        let (base, anon_key) = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!(
                    "radar serve did not start; its log:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            });
        Daemon {
            child,
            base,
            data: data.to_path_buf(),
            anon_key,
            log,
            http: reqwest::Client::new(),
        }
    }

    /// Starts `radar serve --no-demo` on `data`.
    pub(crate) fn start(data: &Path) -> Daemon {
        Self::start_with(data, &["--no-demo"], &[])
    }

    /// The daemon's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The absolute URL of a path.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Stops the daemon with SIGTERM and waits for it to exit; panics if it does not
    /// exit cleanly within 20 s.
    pub(crate) fn stop(mut self) {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "radar serve exited with {status}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "radar serve did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the daemon with SIGKILL, as a crash would.
    pub(crate) fn crash(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// GET with an optional bearer token; answers (status, JSON body or Null).
    pub(crate) async fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let mut req = self.http.get(self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        answer(req.send().await.unwrap()).await
    }

    /// A request with a method, an optional token and an optional JSON body.
    pub(crate) async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = self.http.request(method.parse().unwrap(), self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        answer(req.send().await.unwrap()).await
    }

    /// Signs a new user up through the auth service; answers the access token.
    pub(crate) async fn sign_up(&self, email: &str, password: &str) -> String {
        self.session_token("/auth/v1/signup", email, password).await
    }

    /// Signs an existing user in with a password; answers the access token.
    pub(crate) async fn sign_in(&self, email: &str, password: &str) -> String {
        self.session_token("/auth/v1/token?grant_type=password", email, password)
            .await
    }

    /// POSTs e-mail and password to an auth endpoint that answers a session.
    async fn session_token(&self, path: &str, email: &str, password: &str) -> String {
        let res = self
            .http
            .post(self.url(path))
            .header("apikey", &self.anon_key)
            .json(&json!({"email": email, "password": password}))
            .send()
            .await
            .unwrap();
        let (status, body) = answer(res).await;
        assert_eq!(status, 200, "{path} failed: {body}");
        body["access_token"]
            .as_str()
            .expect("the answer is a session")
            .to_string()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Status and JSON body (Null when the body is empty or not JSON).
pub(crate) async fn answer(res: reqwest::Response) -> (u16, Value) {
    let status = res.status().as_u16();
    let text = res.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Asserts the daemon's error shape and status; answers the error code.
pub(crate) fn assert_error(got: &(u16, Value), status: u16) -> String {
    assert_eq!(got.0, status, "unexpected answer: {}", got.1);
    let msg = got.1["message"].as_str().unwrap_or_default();
    assert!(!msg.is_empty(), "error without a message: {}", got.1);
    got.1["error"]
        .as_str()
        .expect("error body has a code")
        .to_string()
}

/// The ids of a JSON array of items, in order.
pub(crate) fn ids(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

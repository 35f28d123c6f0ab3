//! The admin commands (issue 7): every command with and without a running daemon on the
//! same data directory, exit codes 0/1/2, the admin socket's mode and lifetime, a command
//! while the daemon serves requests with nothing lost, and item imports with valid,
//! duplicate and invalid lines. Issue 15: the commands behave like Unix tools (a closed
//! pipe ends them quietly with 0, a missing store is refused, dates read the same on the
//! command line and in imports, an empty import fails, a wait for the lock says so).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::util::{Daemon, radar};

/// What a finished `radar` command gave.
#[derive(Debug)]
pub(crate) struct Out {
    /// Exit status.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Out {
    /// Standard output as JSON; panics with the whole output when it is not.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }

    /// Asserts success and answers the JSON output.
    pub(crate) fn ok_json(&self) -> Value {
        assert_eq!(self.code, 0, "command failed: {self:?}");
        self.json()
    }
}

/// Runs `radar --data DIR ARGS...` with standard input and extra environment.
pub(crate) async fn cli_with(dir: &Path, args: &[&str], stdin: &str, envs: &[(&str, &str)]) -> Out {
    let mut cmd = tokio::process::Command::from(radar(dir));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run radar");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let out = child.wait_with_output().await.unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `radar --data DIR ARGS...`.
pub(crate) async fn cli(dir: &Path, args: &[&str]) -> Out {
    cli_with(dir, args, "", &[]).await
}

/// A fixture file under tests/fixtures.
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

fn fixture_str(name: &str) -> String {
    fixture(name).to_str().unwrap().to_string()
}

/// Walks every command on `dir` and checks each answer; the same walk runs with and
/// without a daemon, so both paths give the same answers.
async fn every_command(dir: &Path) {
    // users
    let created = cli_with(
        dir,
        &[
            "users",
            "create",
            "ada@example.com",
            "--password-stdin",
            "--json",
        ],
        "secret-1\n",
        &[],
    )
    .await;
    let ada = created.ok_json();
    assert_eq!(ada["email"], "ada@example.com");
    assert!(
        ada.get("password_hash").is_none(),
        "the hash never leaves the store"
    );
    let again = cli_with(
        dir,
        &["users", "create", "ADA@example.com", "--password-stdin"],
        "secret-1",
        &[],
    )
    .await;
    assert_eq!(again.code, 1, "{again:?}");
    assert!(again.stderr.contains("already exists"), "{again:?}");
    let weak = cli_with(
        dir,
        &["users", "create", "weak@example.com", "--password-stdin"],
        "123",
        &[],
    )
    .await;
    assert_eq!(weak.code, 1);
    assert!(weak.stderr.contains("at least 6"), "{weak:?}");
    cli_with(
        dir,
        &["users", "create", "bob@example.com", "--password-stdin"],
        "secret-2",
        &[],
    )
    .await
    .ok_json_or_text();
    let list = cli(dir, &["users", "list", "--json"]).await.ok_json();
    let emails: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["email"].as_str().unwrap())
        .collect();
    assert_eq!(emails, ["ada@example.com", "bob@example.com"]);
    let table = cli(dir, &["users", "list"]).await;
    assert!(
        table.stdout.starts_with("EMAIL") && table.stdout.contains("bob@example.com"),
        "{table:?}"
    );
    assert_eq!(
        cli(dir, &["users", "show", "Ada@Example.com", "--json"])
            .await
            .ok_json()["id"],
        ada["id"]
    );

    // subscribers
    let granted = cli(
        dir,
        &[
            "subscribers",
            "grant",
            "ada@example.com",
            "--until",
            "2099-12-31",
            "--json",
        ],
    )
    .await
    .ok_json();
    assert_eq!(granted["subscriber"], true);
    assert_eq!(granted["subscription"]["until"], "2100-01-01T00:00:00Z");
    let subs = cli(dir, &["subscribers", "list", "--json"]).await.ok_json();
    assert_eq!(subs.as_array().unwrap().len(), 1);
    assert_eq!(subs[0]["email"], "ada@example.com");
    let past = cli(
        dir,
        &[
            "subscribers",
            "grant",
            "bob@example.com",
            "--until",
            "2001-01-01",
        ],
    )
    .await;
    assert_eq!(past.code, 1);
    assert!(past.stderr.contains("past"), "{past:?}");
    let revoked = cli(dir, &["subscribers", "revoke", "ada@example.com"]).await;
    assert_eq!(revoked.code, 0, "{revoked:?}");
    assert!(
        revoked.stdout.contains("no longer a subscriber"),
        "{revoked:?}"
    );
    assert_eq!(
        cli(dir, &["subscribers", "list", "--json"]).await.ok_json(),
        json!([])
    );

    // items
    let added = cli(
        dir,
        &[
            "items",
            "add",
            "--title",
            "Hand-picked",
            "--summary",
            "An editor's pick [1]. More.",
            "--url",
            "https://pick.example/1",
            "--published",
            "2026-11-18",
            "--json",
        ],
    )
    .await
    .ok_json();
    assert_eq!(added["status"], "added");
    let id = added["item"]["id"].as_str().unwrap().to_string();
    assert_eq!(added["item"]["source"], "Pick");
    let same = cli(
        dir,
        &[
            "items",
            "add",
            "--title",
            "Hand-picked",
            "--summary",
            "An editor's pick [1]. More.",
            "--url",
            "https://pick.example/1",
            "--published",
            "2026-11-18",
            "--json",
        ],
    )
    .await
    .ok_json();
    assert_eq!(
        (same["status"].as_str(), same["item"]["id"].as_str()),
        (Some("unchanged"), Some(id.as_str()))
    );
    let listed = cli(dir, &["items", "list", "--json"]).await.ok_json();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let bad = cli(
        dir,
        &[
            "items",
            "add",
            "--title",
            "x",
            "--summary",
            "y",
            "--url",
            "ftp://nope/1",
        ],
    )
    .await;
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("http"), "{bad:?}");
    assert_eq!(cli(dir, &["items", "remove", &id]).await.code, 0);
    let gone = cli(dir, &["items", "remove", &id]).await;
    assert_eq!(gone.code, 1);
    assert!(gone.stderr.contains("no item with id"), "{gone:?}");

    // feeds (no fetching here: see the feeds tests)
    let feed = cli(
        dir,
        &[
            "feeds",
            "add",
            "https://lab.example/rss.xml",
            "--name",
            "Lab",
            "--json",
        ],
    )
    .await
    .ok_json();
    let feed_id = feed["id"].as_str().unwrap().to_string();
    assert_eq!(
        cli(dir, &["feeds", "add", "https://lab.example/rss.xml"])
            .await
            .code,
        1
    );
    let opml = cli(
        dir,
        &["feeds", "import-opml", &fixture_str("feeds.opml"), "--json"],
    )
    .await
    .ok_json();
    assert_eq!(opml["added"].as_array().unwrap().len(), 1, "{opml}");
    assert_eq!(opml["existing"], json!(["https://lab.example/rss.xml"]));
    assert_eq!(opml["invalid"].as_array().unwrap().len(), 1);
    let feeds = cli(dir, &["feeds", "list", "--json"]).await.ok_json();
    assert_eq!(feeds.as_array().unwrap().len(), 2);
    let exported = cli(dir, &["feeds", "export-opml"]).await;
    assert_eq!(exported.code, 0);
    assert!(
        exported
            .stdout
            .contains("xmlUrl=\"https://chips.example/atom.xml\""),
        "{exported:?}"
    );
    assert!(exported.stdout.contains("title=\"Lab\""), "{exported:?}");
    assert_eq!(cli(dir, &["feeds", "remove", &feed_id]).await.code, 0);
    assert_eq!(
        cli(dir, &["feeds", "list", "--json"])
            .await
            .ok_json()
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // summaries: a week with one item
    cli(
        dir,
        &[
            "items",
            "add",
            "--title",
            "Chips",
            "--summary",
            "A chip maker shipped a faster accelerator for inference workloads this week.",
            "--published",
            "2026-11-18T10:00:00Z",
        ],
    )
    .await
    .ok_json_or_text();
    let generated = cli(
        dir,
        &["summaries", "generate", "--week", "2026-W47", "--json"],
    )
    .await
    .ok_json();
    assert_eq!(generated["summary"]["id"], "2026-W47");
    assert_eq!(generated["summary"]["article_count"], 1);
    assert_eq!(generated["method"], "local");
    let exists = cli(dir, &["summaries", "generate", "--week", "2026-W47"]).await;
    assert_eq!(exists.code, 1);
    assert!(exists.stderr.contains("--force"), "{exists:?}");
    assert_eq!(
        cli(
            dir,
            &["summaries", "generate", "--week", "2026-W47", "--force"]
        )
        .await
        .code,
        0
    );
    let list = cli(dir, &["summaries", "list", "--json"]).await.ok_json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let shown = cli(dir, &["summaries", "show", "2026-W47"]).await;
    assert!(
        shown.stdout.starts_with("Chips\n"),
        "the title is the week's lead story: {shown:?}"
    );
    assert_eq!(cli(dir, &["summaries", "remove", "2026-W47"]).await.code, 0);
    assert_eq!(cli(dir, &["summaries", "show", "2026-W47"]).await.code, 1);

    // outbox: empty here (the auth tests fill it)
    assert_eq!(
        cli(dir, &["outbox", "list", "--json"]).await.ok_json(),
        json!([])
    );
    assert_eq!(cli(dir, &["outbox", "show", "nope"]).await.code, 1);

    // delete
    let deleted = cli(dir, &["users", "delete", "bob@example.com"]).await;
    assert_eq!(deleted.code, 0, "{deleted:?}");
    assert_eq!(
        cli(dir, &["users", "show", "bob@example.com"]).await.code,
        1
    );
}

trait OkText {
    fn ok_json_or_text(&self);
}
impl OkText for Out {
    fn ok_json_or_text(&self) {
        assert_eq!(self.code, 0, "command failed: {self:?}");
    }
}

#[tokio::test]
async fn every_command_works_without_a_daemon() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    every_command(&dir).await;
    assert!(!dir.join("admin.sock").exists());
}

#[tokio::test]
async fn every_command_works_through_the_running_daemon() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(&dir, &["--no-demo", "--no-feed-polling"], &[]);
    let sock = dir.join("admin.sock");
    let mode = std::fs::metadata(&sock).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the admin socket is the owner's only");
    every_command(&dir).await;
    // The daemon saw the writes: ada signs in with the password set by the command.
    let (status, body) = d
        .http
        .post(d.url("/auth/v1/token?grant_type=password"))
        .header("apikey", &d.anon_key)
        .json(&json!({"email": "ada@example.com", "password": "secret-1"}))
        .send()
        .await
        .map(|r| (r.status().as_u16(), r))
        .unwrap();
    assert_eq!(status, 200, "{:?}", body.text().await);
    d.stop();
    assert!(!sock.exists(), "a clean stop removes the socket");
}

#[tokio::test]
async fn waitlist_approve_and_remove_live_and_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(&dir, &["--no-demo", "--no-feed-polling"], &[]);
    let mut tokens = Vec::new();
    for who in ["w1@example.com", "w2@example.com", "w3@example.com"] {
        let token = d.sign_up(who, "secret-1").await;
        let (status, _) = d
            .call("POST", "/api/waitlist/join", Some(&token), None)
            .await;
        assert_eq!(status, 200);
        tokens.push(token);
    }
    let list = cli(&dir, &["waitlist", "list", "--json"]).await.ok_json();
    let emails: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["email"].as_str().unwrap())
        .collect();
    assert_eq!(
        emails,
        ["w1@example.com", "w2@example.com", "w3@example.com"]
    );
    let csv = cli(&dir, &["waitlist", "list", "--csv"]).await;
    assert!(
        csv.stdout
            .starts_with("email,user_id,joined_at,approved_at\nw1@example.com,"),
        "{csv:?}"
    );
    assert_eq!(csv.stdout.lines().count(), 4);

    let approved = cli(&dir, &["waitlist", "approve", "w1@example.com", "--json"])
        .await
        .ok_json();
    assert_eq!(
        approved["joined_at"], list[0]["joined_at"],
        "the join date is kept"
    );
    assert!(approved["approved_at"].is_string());
    let (_, meta) = d.get("/api/user/metadata", Some(&tokens[0])).await;
    assert_eq!(meta["subscription"]["isActive"], true, "{meta}");
    let pending = cli(&dir, &["waitlist", "list", "--json"]).await.ok_json();
    assert_eq!(
        pending.as_array().unwrap().len(),
        2,
        "approved entries leave the pending list"
    );
    let all = cli(&dir, &["waitlist", "list", "--all", "--json"])
        .await
        .ok_json();
    assert_eq!(
        all.as_array().unwrap().len(),
        3,
        "and are kept with their dates"
    );
    assert_eq!(
        cli(&dir, &["waitlist", "approve", "nobody@example.com"])
            .await
            .code,
        1
    );

    // The outbox: without SMTP, a password-reset mail is kept for the operator to read.
    let res = d
        .http
        .post(d.url("/auth/v1/recover"))
        .header("apikey", &d.anon_key)
        .json(&json!({"email": "w2@example.com"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let outbox = cli(&dir, &["outbox", "list", "--json"]).await.ok_json();
    let mail = outbox
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["to"] == "w2@example.com")
        .expect("the reset mail is kept")
        .clone();
    let id = mail["id"].as_str().unwrap().to_string();
    let shown = cli(&dir, &["outbox", "show", &id]).await;
    assert_eq!(shown.code, 0);
    assert!(
        shown.stdout.contains("to:      w2@example.com")
            && shown.stdout.contains("/auth/v1/verify"),
        "{shown:?}"
    );
    let table = cli(&dir, &["outbox", "list"]).await;
    assert!(
        table.stdout.starts_with("ID") && table.stdout.contains(&id),
        "{table:?}"
    );
    d.stop();
    assert_eq!(
        cli(&dir, &["outbox", "show", &id, "--json"])
            .await
            .ok_json()["id"],
        id.as_str(),
        "offline too"
    );

    // Offline, on the same directory.
    assert_eq!(
        cli(&dir, &["waitlist", "remove", "w2@example.com"])
            .await
            .code,
        0
    );
    let approved = cli(
        &dir,
        &[
            "waitlist",
            "approve",
            "w3@example.com",
            "--until",
            "2099-01-01",
            "--json",
        ],
    )
    .await
    .ok_json();
    assert!(approved["approved_at"].is_string());
    assert_eq!(
        cli(&dir, &["waitlist", "list", "--json"]).await.ok_json(),
        json!([])
    );
    let subs = cli(&dir, &["subscribers", "list", "--json"])
        .await
        .ok_json();
    let emails: Vec<_> = subs
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["email"].as_str().unwrap())
        .collect();
    assert_eq!(emails, ["w1@example.com", "w3@example.com"]);
    let removed_twice = cli(&dir, &["waitlist", "remove", "w2@example.com"]).await;
    assert_eq!(removed_twice.code, 1);
    assert!(
        removed_twice.stderr.contains("not on the waitlist"),
        "{removed_twice:?}"
    );
}

#[tokio::test]
async fn users_delete_removes_every_record() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(&dir, &[], &[]);
    let token = d.sign_up("gone@example.com", "secret-1").await;
    d.call("POST", "/api/waitlist/join", Some(&token), None)
        .await;
    d.call(
        "PATCH",
        "/api/user/profile",
        Some(&token),
        Some(json!({"resume": "ML engineer"})),
    )
    .await;
    let (_, feed) = d.get("/api/news", Some(&token)).await;
    let first = feed["items"][0]["id"]
        .as_str()
        .or_else(|| feed[0]["id"].as_str())
        .unwrap()
        .to_string();
    assert_eq!(
        d.call(
            "POST",
            &format!("/api/favorites/{first}"),
            Some(&token),
            None
        )
        .await
        .0,
        200
    );
    assert_eq!(
        cli(&dir, &["users", "delete", "gone@example.com"])
            .await
            .code,
        0
    );
    // The old token no longer works and the e-mail is free again.
    assert_eq!(d.get("/api/favorites", Some(&token)).await.0, 401);
    assert_eq!(
        cli(&dir, &["waitlist", "list", "--all", "--json"])
            .await
            .ok_json(),
        json!([])
    );
    let token = d.sign_up("gone@example.com", "secret-2").await;
    let (_, favs) = d.get("/api/favorites", Some(&token)).await;
    assert_eq!(favs.as_array().map(Vec::len), Some(0), "{favs}");
    let (_, profile) = d.get("/api/user/profile", Some(&token)).await;
    assert_eq!(profile["resume"], "");
}

#[tokio::test]
async fn exit_codes_are_0_1_and_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    assert_eq!(cli(&dir, &["users", "list", "--create"]).await.code, 0);
    let missing = cli(&dir, &["users", "show", "nobody@example.com"]).await;
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("no account") && missing.stderr.contains("radar users list"),
        "{missing:?}"
    );
    assert_eq!(cli(&dir, &["users", "frobnicate"]).await.code, 2);
    assert_eq!(
        cli(&dir, &["users", "create", "x@example.com"]).await.code,
        2,
        "--password-stdin is required"
    );
    assert_eq!(
        cli(
            &dir,
            &[
                "subscribers",
                "grant",
                "x@example.com",
                "--until",
                "someday"
            ]
        )
        .await
        .code,
        2
    );
    // A malformed or impossible week is a usage error like any other bad argument.
    for week in ["foo", "2026-W99"] {
        let out = cli(&dir, &["summaries", "generate", "--week", week]).await;
        assert_eq!(out.code, 2, "{out:?}");
        assert!(
            out.stderr.contains("YYYY-Www") || out.stderr.contains("no ISO week"),
            "{out:?}"
        );
    }
    for group in [
        "users",
        "waitlist",
        "subscribers",
        "items",
        "feeds",
        "summaries",
        "outbox",
    ] {
        let help = cli(&dir, &[group, "--help"]).await;
        assert_eq!(help.code, 0, "{group} --help: {help:?}");
        assert!(help.stdout.contains("Usage"), "{help:?}");
    }
}

/// Sends `signal` (`-STOP`, `-CONT`) to a process.
fn signal(signal: &str, pid: &str) {
    let status = std::process::Command::new("kill")
        .args([signal, pid])
        .status()
        .unwrap();
    assert!(status.success(), "kill {signal} {pid}");
}

/// Resumes a stopped process when dropped, also when a test fails half-way, so the
/// daemon can still be stopped.
struct Resume(String);

impl Drop for Resume {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-CONT", &self.0])
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_daemon_is_given_up_on_within_the_admin_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(&dir, &["--no-demo", "--no-feed-polling"], &[]);
    let pid = d.pid().to_string();
    let resume = Resume(pid.clone());
    signal("-STOP", &pid);

    let started = std::time::Instant::now();
    let out = cli(&dir, &["--admin-timeout", "2s", "users", "list"]).await;
    let took = started.elapsed();
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        // The upper bound leaves room for a loaded machine; without a deadline it hangs.
        took >= std::time::Duration::from_secs(2) && took < std::time::Duration::from_secs(15),
        "gave up after {took:?}"
    );
    for words in [
        format!("the daemon (pid {pid}) did not answer on"),
        "admin.sock within 2 s".to_string(),
        "stopped or overloaded".to_string(),
        format!("kill -CONT {pid}"),
    ] {
        assert!(out.stderr.contains(&words), "{words:?} in {out:?}");
    }
    // The environment sets it too, after the subcommand as well as before.
    let out = cli_with(
        &dir,
        &["users", "list", "--json"],
        "",
        &[("RADAR_ADMIN_TIMEOUT", "1s")],
    )
    .await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("within 1 s"), "{out:?}");
    let bad = cli(&dir, &["users", "list", "--admin-timeout", "soon"]).await;
    assert_eq!(bad.code, 2, "{bad:?}");

    // Resumed, the daemon answers the same command.
    drop(resume);
    assert_eq!(
        cli(&dir, &["users", "list", "--json"]).await.ok_json(),
        json!([])
    );
    d.stop();
}

#[tokio::test]
async fn a_stale_socket_is_replaced_and_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    drop(
        radar_store::Store::open(&dir, radar_store::Options::default())
            .await
            .unwrap(),
    );
    // A socket file nobody listens on, as a crash leaves it.
    drop(std::os::unix::net::UnixListener::bind(dir.join("admin.sock")).unwrap());
    assert!(dir.join("admin.sock").exists());
    assert_eq!(
        cli(&dir, &["users", "list", "--json"]).await.ok_json(),
        json!([]),
        "offline despite the stale socket"
    );
    let d = Daemon::start_with(&dir, &["--no-demo", "--no-feed-polling"], &[]);
    assert_eq!(
        cli(&dir, &["users", "list", "--json"]).await.ok_json(),
        json!([])
    );
    d.crash();
    // After a crash the socket stays behind; commands still work, offline.
    assert_eq!(
        cli(&dir, &["users", "list", "--json"]).await.ok_json(),
        json!([])
    );
}

#[tokio::test]
async fn commands_while_the_daemon_serves_requests_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let d = Daemon::start_with(&dir, &["--no-demo", "--no-feed-polling"], &[]);
    let lines: String = (0..300)
        .map(|i| {
            format!(
                "{}\n",
                json!({"title": format!("Story {i}"), "summary": format!("Summary {i}."), "url": format!("https://load.example/{i}"), "published_date": format!("2026-11-{:02}T{:02}:00:00Z", 1 + i % 28, i % 24)})
            )
        })
        .collect();
    let file = tmp.path().join("load.jsonl");
    std::fs::write(&file, lines).unwrap();

    // Five readers, and twenty items they favourite while the import and grants run.
    let mut tokens = Vec::new();
    for i in 0..5 {
        tokens.push(
            d.sign_up(&format!("reader{i}@example.com"), "secret-1")
                .await,
        );
    }
    let mut ids = Vec::new();
    for i in 0..20 {
        let title = format!("Base {i}");
        let url = format!("https://base.example/{i}");
        let added = cli(
            &dir,
            &[
                "items",
                "add",
                "--title",
                &title,
                "--summary",
                "Base.",
                "--url",
                &url,
                "--json",
            ],
        )
        .await
        .ok_json();
        ids.push(added["item"]["id"].as_str().unwrap().to_string());
    }
    let http = {
        let (base, tokens, ids) = (d.base.clone(), tokens.clone(), ids.clone());
        tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut statuses = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                let token = &tokens[i % tokens.len()];
                let r = client
                    .get(format!("{base}/api/news"))
                    .bearer_auth(token)
                    .send()
                    .await
                    .unwrap();
                statuses.push(r.status().as_u16());
                let r = client
                    .post(format!("{base}/api/favorites/{id}"))
                    .bearer_auth(token)
                    .send()
                    .await
                    .unwrap();
                statuses.push(r.status().as_u16());
            }
            statuses
        })
    };
    let import_args = ["items", "import", file.to_str().unwrap(), "--json"];
    let import = cli(&dir, &import_args);
    let users = async {
        let mut codes = Vec::new();
        for i in 0..10 {
            let email = format!("cli{i}@example.com");
            codes.push(
                cli_with(
                    &dir,
                    &["users", "create", &email, "--password-stdin"],
                    "secret-1",
                    &[],
                )
                .await
                .code,
            );
            codes.push(cli(&dir, &["subscribers", "grant", &email]).await.code);
        }
        codes
    };
    let (import, codes, statuses) = tokio::join!(import, users, http);
    let report = import.ok_json();
    assert_eq!(
        (
            report["added"].as_u64(),
            report["invalid"].as_array().map(Vec::len)
        ),
        (Some(300), Some(0)),
        "{report}"
    );
    assert!(codes.iter().all(|c| *c == 0), "{codes:?}");
    let statuses = statuses.unwrap();
    assert!(
        statuses.iter().all(|s| *s == 200),
        "every API request succeeded: {statuses:?}"
    );

    let items = cli(&dir, &["items", "list", "--limit", "1000", "--json"])
        .await
        .ok_json();
    assert_eq!(items.as_array().unwrap().len(), 320);
    let subs = cli(&dir, &["subscribers", "list", "--json"])
        .await
        .ok_json();
    assert_eq!(subs.as_array().unwrap().len(), 10);
    let users = cli(&dir, &["users", "list", "--json"]).await.ok_json();
    assert_eq!(users.as_array().unwrap().len(), 15);
    for token in &tokens {
        let (_, favs) = d.get("/api/favorites", Some(token)).await;
        assert_eq!(
            favs.as_array().unwrap().len(),
            4,
            "every favourite was kept: {favs}"
        );
    }
    d.stop();
    // Durable: the same counts offline after the daemon stopped.
    assert_eq!(
        cli(&dir, &["items", "list", "--limit", "1000", "--json"])
            .await
            .ok_json()
            .as_array()
            .unwrap()
            .len(),
        320
    );
    assert_eq!(
        cli(&dir, &["users", "list", "--json"])
            .await
            .ok_json()
            .as_array()
            .unwrap()
            .len(),
        15
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_held_by_a_starting_daemon_is_waited_for() {
    if crate::util::embedded_only("the embedded store's lock; a database has none to wait for") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    // Another process part-way through start-up: it holds the store, its socket is not up.
    let store = radar_store::Store::open(&dir, radar_store::Options::default())
        .await
        .unwrap();
    let release = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        drop(store);
    });
    let started = std::time::Instant::now();
    let out = cli(&dir, &["users", "list", "--json"]).await;
    assert_eq!(
        out.ok_json(),
        json!([]),
        "the command waits instead of failing on the lock"
    );
    // Issue 15: the wait is never silent; it names the lock it waits for.
    let lock = dir.join("db").display().to_string();
    assert!(
        out.stderr
            .contains("waiting up to 10 s for the store lock on")
            && out.stderr.contains(&lock),
        "{out:?}"
    );
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "it did wait"
    );
    release.await.unwrap();

    // Held for longer than the command waits: a clear message, exit 1.
    let _held = radar_store::Store::open(&dir, radar_store::Options::default())
        .await
        .unwrap();
    let out = cli_with(
        &dir,
        &["users", "list"],
        "",
        &[("RADAR_ADMIN_WAIT_MS", "300")],
    )
    .await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("in use by another process") && out.stderr.contains("try again"),
        "{out:?}"
    );
    assert!(out.stderr.contains("waiting up to 0.3 s"), "{out:?}");
}

/// The report of importing the fixture with valid, duplicate and invalid lines.
fn check_first_import(report: &Value) {
    assert_eq!(report["total"], 9, "{report}");
    assert_eq!(report["added"], 3, "{report}");
    assert_eq!(report["updated"], 1, "{report}");
    assert_eq!(
        report["skipped"], 1,
        "the repeated line is skipped: {report}"
    );
    let invalid: Vec<(u64, String)> = report["invalid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["line"].as_u64().unwrap(),
                l["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let lines: Vec<u64> = invalid.iter().map(|l| l.0).collect();
    assert_eq!(lines, [5, 6, 7, 8], "{report}");
    assert!(invalid[0].1.contains("title"), "{invalid:?}");
    assert!(
        invalid[1].1.contains("EOF") || invalid[1].1.contains("expected"),
        "{invalid:?}"
    );
    assert!(invalid[2].1.contains("http"), "{invalid:?}");
    assert!(invalid[3].1.contains("published_date"), "{invalid:?}");
}

#[tokio::test]
async fn import_reports_added_updated_skipped_and_invalid_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let file = fixture_str("import.jsonl");
    let existing = [
        "items",
        "add",
        "--title",
        "Existing story",
        "--summary",
        "Old text.",
        "--url",
        "https://existing.example/story",
    ];
    assert_eq!(cli(&dir, &existing).await.code, 0);
    // Offline: the human report, exit 1 because of the invalid lines.
    let first = cli(&dir, &["items", "import", &file]).await;
    assert_eq!(first.code, 1, "{first:?}");
    assert!(
        first
            .stdout
            .contains("9 records: 3 added, 1 updated, 1 skipped (identical), 4 invalid"),
        "{first:?}"
    );
    assert!(
        first.stderr.contains("line 5: title must not be empty"),
        "{first:?}"
    );
    // Importing again changes nothing: idempotent.
    let again = cli(&dir, &["items", "import", &file, "--json"]).await;
    assert_eq!(again.code, 1);
    let r = again.json();
    assert_eq!(
        (
            r["added"].as_u64(),
            r["updated"].as_u64(),
            r["skipped"].as_u64()
        ),
        (Some(0), Some(0), Some(5)),
        "{r}"
    );
    assert_eq!(r["invalid"].as_array().unwrap().len(), 4);
    let items = cli(&dir, &["items", "list", "--json"]).await.ok_json();
    let mut titles: Vec<_> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap().to_string())
        .collect();
    titles.sort();
    assert_eq!(
        titles,
        [
            "Existing story, edited",
            "First story",
            "Second story",
            "Third story"
        ]
    );
    assert!(
        items
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == "manual-1")
    );

    // Live, in a fresh directory: the same report through the daemon.
    let dir2 = tmp.path().join("live");
    let d = Daemon::start_with(&dir2, &["--no-demo", "--no-feed-polling"], &[]);
    assert_eq!(cli(&dir2, &existing).await.code, 0);
    check_first_import(
        &cli(&dir2, &["items", "import", &file, "--json"])
            .await
            .json(),
    );
    let (_, news) = d.get("/api/news", None).await;
    assert!(
        news.to_string().contains("Third story"),
        "the daemon serves what was imported: {news}"
    );

    // A JSON array reports the line where each bad record starts.
    let arr = cli(
        &dir2,
        &["items", "import", &fixture_str("import.json"), "--json"],
    )
    .await;
    let r = arr.json();
    assert_eq!(
        (r["total"].as_u64(), r["added"].as_u64()),
        (Some(3), Some(2)),
        "{r}"
    );
    assert_eq!(r["invalid"][0]["line"], 8, "{r}");
    // Standard input works too.
    let stdin = cli_with(
        &dir2,
        &["items", "import", "-", "--json"],
        "{\"title\":\"Piped\",\"summary\":\"S.\",\"published_date\":\"2026-11-20T00:00:00Z\"}\n",
        &[],
    )
    .await;
    assert_eq!(stdin.ok_json()["added"], 1);
    // A file that is not JSON at all is refused as a whole.
    let broken = cli_with(&dir2, &["items", "import", "-"], "[{\"title\": ", &[]).await;
    assert_eq!(broken.code, 1);
    assert!(
        broken.stderr.contains("not a valid JSON array"),
        "{broken:?}"
    );
    let missing = cli(&dir2, &["items", "import", "/nonexistent/file.jsonl"]).await;
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("cannot read"), "{missing:?}");
}

/// Runs `radar --data DIR ARGS...` with its standard output already closed by the
/// reader, as `| head -1` leaves it once it has its line: the command's first write fails.
fn with_closed_stdout(dir: &Path, args: &[&str]) -> Out {
    let mut child = radar(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run radar");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Regression (issue 15): `radar items list --limit 300 | head -1` panicked with "failed
/// printing to stdout: Broken pipe" and exit 101; so did `feeds list` and `feeds export-opml`.
#[tokio::test]
async fn a_closed_pipe_ends_every_printing_command_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let lines: String = (0..300)
        .map(|i| {
            format!(
                "{}\n",
                json!({"title": format!("Story {i}"), "summary": "S.", "url": format!("https://pipe.example/{i}"), "published_date": "2026-11-20"})
            )
        })
        .collect();
    assert_eq!(
        cli_with(&dir, &["items", "import", "-"], &lines, &[])
            .await
            .code,
        0
    );
    cli(&dir, &["feeds", "add", "https://feeds.example/rss"])
        .await
        .ok_json_or_text();
    cli_with(
        &dir,
        &["users", "create", "ada@example.com", "--password-stdin"],
        "secret-1",
        &[],
    )
    .await
    .ok_json_or_text();
    for args in [
        &["items", "list", "--limit", "300"][..],
        &["items", "list", "--limit", "300", "--json"],
        &["feeds", "list"],
        &["feeds", "export-opml"],
        &["users", "list"],
        &["users", "show", "ada@example.com"],
        &["waitlist", "list", "--csv"],
        &["subscribers", "list"],
        &["summaries", "list"],
        &["outbox", "list"],
    ] {
        let out = with_closed_stdout(&dir, args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(
            !out.stderr.contains("panicked") && !out.stderr.contains("Broken pipe"),
            "{args:?}: {out:?}"
        );
    }
    // The pipeline of the report itself.
    let piped = std::process::Command::new("bash")
        .args([
            "-c",
            r#""$0" --data "$1" items list --limit 300 | head -1; exit "${PIPESTATUS[0]}""#,
            crate::util::radar_bin(),
        ])
        .arg(&dir)
        .envs(crate::util::on_postgres().then(|| ("RADAR_STORE", crate::util::database_of(&dir))))
        .env("RADAR_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        piped.status.success(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&piped.stdout).trim_end(),
        "ID                PUBLISHED         SOURCE  TITLE"
    );
    assert!(piped.stderr.is_empty(), "{piped:?}");
}

/// Regression (issue 15): a mistyped `--data` silently made an empty store and answered
/// "no accounts".
#[tokio::test]
async fn a_missing_store_is_refused_unless_the_command_creates_data() {
    if crate::util::embedded_only(
        "a data directory without a store; a migrated database always holds one",
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let typo = tmp.path().join("dtaa");
    for args in [
        &["users", "list"][..],
        &["users", "show", "ada@example.com"],
        &["items", "list"],
        &["feeds", "list"],
        &["feeds", "fetch"],
        &["summaries", "generate"],
        &["outbox", "list"],
        &["waitlist", "list"],
    ] {
        let out = cli(&typo, args).await;
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(
            out.stderr
                .contains(&format!("no Radar store in {}", typo.display()))
                && out.stderr.contains("--create"),
            "{args:?}: {out:?}"
        );
        assert!(!typo.exists(), "{args:?} left nothing behind");
    }
    // --create asks for the empty store.
    let created = cli(&typo, &["users", "list", "--create", "--json"]).await;
    assert_eq!(created.ok_json(), json!([]));
    assert!(typo.join("db").is_dir());
    assert_eq!(cli(&typo, &["outbox", "list"]).await.code, 0);

    // Commands that put data in a store start one.
    for (name, args, stdin) in [
        (
            "add",
            &["items", "add", "--title", "T", "--summary", "S."][..],
            "",
        ),
        (
            "import",
            &["items", "import", "-"],
            "{\"title\":\"T\",\"summary\":\"S.\",\"published_date\":\"2026-11-20\"}",
        ),
        ("feed", &["feeds", "add", "https://feeds.example/rss"], ""),
        (
            "user",
            &["users", "create", "ada@example.com", "--password-stdin"],
            "secret-1",
        ),
    ] {
        let dir = tmp.path().join(name);
        let out = cli_with(&dir, args, stdin, &[]).await;
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(dir.join("db").is_dir(), "{args:?}");
    }
}

/// Regression (issue 15): `"published_date":"2026-11-20"` failed an import with "premature
/// end of input" while `items add --published 2026-11-20` took it.
#[tokio::test]
async fn dates_read_the_same_in_items_add_and_import() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let forms = [
        ("2026-11-20", "2026-11-20T00:00:00Z"),
        ("2026-11-20 10:00", "2026-11-20T10:00:00Z"),
        ("2026-11-20T10:00:30", "2026-11-20T10:00:30Z"),
        ("2026-11-20T12:00:00+02:00", "2026-11-20T10:00:00Z"),
    ];
    for (i, (written, stored)) in forms.iter().enumerate() {
        let id = format!("add-{i}");
        let added = cli(
            &dir,
            &[
                "items",
                "add",
                "--id",
                &id,
                "--title",
                "T",
                "--summary",
                "S.",
                "--published",
                written,
                "--json",
            ],
        )
        .await
        .ok_json();
        assert_eq!(added["item"]["published_date"], *stored, "{written}");
    }
    let lines: String = forms
        .iter()
        .enumerate()
        .map(|(i, (written, _))| {
            format!(
                "{}\n",
                json!({"id": format!("import-{i}"), "title": "T", "summary": "S.", "published_date": written})
            )
        })
        .collect();
    let report = cli_with(&dir, &["items", "import", "-", "--json"], &lines, &[])
        .await
        .ok_json();
    assert_eq!(report["added"], 4, "{report}");
    let items = cli(&dir, &["items", "list", "--json"]).await.ok_json();
    for (i, (written, stored)) in forms.iter().enumerate() {
        let date = |id: String| {
            items
                .as_array()
                .unwrap()
                .iter()
                .find(|it| it["id"] == id)
                .map(|it| it["published_date"].clone())
        };
        assert_eq!(
            date(format!("import-{i}")),
            Some(json!(stored)),
            "{written}"
        );
    }

    // A wrong date names the field and the accepted forms, in both places.
    let add = cli(
        &dir,
        &[
            "items",
            "add",
            "--title",
            "T",
            "--summary",
            "S.",
            "--published",
            "20.11.2026",
        ],
    )
    .await;
    assert_eq!(add.code, 2, "{add:?}");
    assert!(
        add.stderr.contains("--published")
            && add.stderr.contains("YYYY-MM-DD HH:MM")
            && add.stderr.contains("RFC 3339"),
        "{add:?}"
    );
    let import = cli_with(
        &dir,
        &["items", "import", "-"],
        "{\"title\":\"T\",\"summary\":\"S.\",\"published_date\":\"20.11.2026\"}\n",
        &[],
    )
    .await;
    assert_eq!(import.code, 1, "{import:?}");
    assert!(
        import
            .stderr
            .contains("line 1: published_date: \"20.11.2026\" is not a date; write YYYY-MM-DD"),
        "{import:?}"
    );
}

/// A file is read a line at a time when the command opens the store itself: a line that
/// is not UTF-8 is one invalid record, with its line, and the lines around it are imported
/// (reading the whole file first refused all of it).
#[tokio::test]
async fn an_import_file_line_that_is_not_utf8_is_one_invalid_record() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let file = tmp.path().join("mixed.jsonl");
    let record = |title: &str| {
        format!(
            "{{\"title\":\"{title}\",\"summary\":\"S.\",\"published_date\":\"2026-11-20T00:00:00Z\"}}\n"
        )
        .into_bytes()
    };
    let mut bytes = record("Before");
    bytes.extend_from_slice(b"{\"title\":\"Caf\xe9\"}\n\n");
    bytes.extend(record("After"));
    std::fs::write(&file, bytes).unwrap();
    let out = cli(&dir, &["items", "import", file.to_str().unwrap(), "--json"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    let r = out.json();
    assert_eq!(
        (r["total"].as_u64(), r["added"].as_u64()),
        (Some(3), Some(2)),
        "{r}"
    );
    assert_eq!(r["invalid"][0]["line"], 2, "{r}");
    assert!(
        r["invalid"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8"),
        "{r}"
    );
    let items = cli(&dir, &["items", "list", "--json"]).await.ok_json();
    let mut titles: Vec<_> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].clone())
        .collect();
    titles.sort_by_key(ToString::to_string);
    assert_eq!(titles, ["After", "Before"]);
}

/// A file that is a pipe (`<(zcat items.jsonl.gz)`, /dev/stdin) can be read only once, so
/// it is read whole rather than a line at a time after counting its lines.
#[tokio::test]
async fn an_import_from_a_pipe_is_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let lines = "{\"title\":\"Piped\",\"summary\":\"S.\",\"published_date\":\"2026-11-20T00:00:00Z\"}\n\
                 {\"title\":\"Piped too\",\"summary\":\"S.\",\"published_date\":\"2026-11-21T00:00:00Z\"}\n";
    let out = cli_with(
        &dir,
        &["items", "import", "/dev/stdin", "--json"],
        lines,
        &[],
    )
    .await;
    assert_eq!(out.ok_json()["added"], 2, "{out:?}");
}

/// Regression (issue 15): an empty import file exited 0.
#[tokio::test]
async fn an_empty_import_is_a_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let file = tmp.path().join("empty.jsonl");
    std::fs::write(&file, "").unwrap();
    let out = cli(&dir, &["items", "import", file.to_str().unwrap()]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("holds no records"), "{out:?}");
    let d = Daemon::start_with(&dir, &["--no-demo", "--no-feed-polling"], &[]);
    for empty in ["\n\n", "[]"] {
        let out = cli_with(&dir, &["items", "import", "-"], empty, &[]).await;
        assert_eq!(out.code, 1, "{empty:?}: {out:?}");
        assert!(out.stderr.contains("holds no records"), "{out:?}");
    }
    d.stop();
}

#[test]
fn fixtures_exist() {
    for f in [
        "import.jsonl",
        "import.json",
        "rss.xml",
        "atom.xml",
        "feed.json",
        "malformed.xml",
        "feeds.opml",
    ] {
        assert!(fixture(f).exists(), "{f}");
    }
}

//! The daemon on the open internet: connections that stall are closed, bodies that
//! cannot fit are refused at once, sign-ins cannot run memory up, the data directory is
//! private, every write is synced before its answer, and e-mails follow one rule.
//! Regression tests of the hardening issue: each names what used to go wrong.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{Daemon, answer, radar};

/// A raw client socket to the daemon, with a read limit long enough that only a
/// daemon which never closes makes it fail.
pub(crate) fn connect(d: &Daemon) -> TcpStream {
    let addr = d.base.trim_start_matches("http://");
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

/// Reads until the daemon closes the connection; answers what came before. Fails if
/// the daemon keeps the connection open past the read limit.
#[track_caller]
pub(crate) fn read_until_closed(s: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!(
                "the daemon kept the connection open: {e}; got {:?}",
                String::from_utf8_lossy(&got)
            ),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// Reads one whole answer (head and Content-Length body) from a kept-alive connection.
pub(crate) fn read_answer(s: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the answer");
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            if got.len() >= end + 4 + len {
                return text;
            }
        }
    }
}

pub(crate) fn body_of(answer: &str) -> Value {
    let body = &answer[answer.find("\r\n\r\n").unwrap() + 4..];
    serde_json::from_str(body).unwrap_or(Value::Null)
}

#[test]
fn silent_half_sent_idle_and_stalled_connections_are_closed_after_their_timeouts() {
    // Before: each of these stayed open forever, and 1,100 of them stopped the service.
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &[
            "--no-demo",
            "--header-timeout",
            "1s",
            "--idle-timeout",
            "2s",
            "--body-timeout",
            "1s",
        ],
        &[],
    );
    // A connection that never says anything.
    let mut silent = connect(&d);
    // Half a request head.
    let mut half = connect(&d);
    half.write_all(b"GET /api/config HTTP/1.1\r\nHost: radar\r\nX-Slow:")
        .unwrap();
    // A body that stops after 10 of 100 declared bytes.
    let mut stalled = connect(&d);
    stalled
        .write_all(
            format!(
                "POST /auth/v1/recover HTTP/1.1\r\nHost: radar\r\napikey: {}\r\n\
                 Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"email\":",
                d.anon_key
            )
            .as_bytes(),
        )
        .unwrap();
    // A kept-alive connection after one good answer.
    let mut idle = connect(&d);
    idle.write_all(b"GET /api/config HTTP/1.1\r\nHost: radar\r\n\r\n")
        .unwrap();
    let first = read_answer(&mut idle);
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");

    assert_eq!(read_until_closed(&mut silent), "");
    assert_eq!(read_until_closed(&mut half), "");
    assert_eq!(read_until_closed(&mut idle), "");
    let answer = read_until_closed(&mut stalled);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 4"),
        "a stalled body got {answer}"
    );
    // The daemon still serves.
    let mut fresh = connect(&d);
    fresh
        .write_all(b"GET /api/config HTTP/1.1\r\nHost: radar\r\nConnection: close\r\n\r\n")
        .unwrap();
    assert!(read_until_closed(&mut fresh).starts_with("HTTP/1.1 200"));
}

/// A 413 answer in its surface's error shape: `code_field` is `error` under `/api`,
/// `error_code` under `/auth/v1` (GoTrue's initial form, for a request without
/// `X-Supabase-Api-Version`).
#[track_caller]
fn assert_payload_too_large(answer: &str, path: &str, code_field: &str) {
    assert!(answer.starts_with("HTTP/1.1 413"), "{path}: {answer}");
    assert_eq!(
        body_of(answer)[code_field],
        "payload_too_large",
        "{path}: {answer}"
    );
}

#[test]
fn an_impossible_content_length_is_refused_at_once_in_each_surface_shape() {
    // Before: `Content-Length: 1000000000000000` was never answered.
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    for (path, code_field) in [
        ("/api/profile", "error"),
        ("/api/stripe/webhook", "error"),
        ("/auth/v1/signup", "error_code"),
    ] {
        let mut s = connect(&d);
        s.write_all(
            format!(
                "POST {path} HTTP/1.1\r\nHost: radar\r\napikey: {}\r\n\
                 Content-Type: application/json\r\nContent-Length: 1000000000000000\r\n\r\n{{",
                d.anon_key
            )
            .as_bytes(),
        )
        .unwrap();
        assert_payload_too_large(&read_answer(&mut s), path, code_field);
    }
}

#[test]
fn a_chunked_body_over_the_limit_is_refused_in_each_surface_shape() {
    // Before: a body without Content-Length found too large while read answered 413
    // with the code `invalid_body` instead of `payload_too_large`.
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--max-body", "1024"],
        &[],
    );
    let token = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(d.sign_up("ada@example.com", "correct horse"));
    for (method, path, code_field) in [
        ("PATCH", "/api/user/profile", "error"),
        ("POST", "/api/stripe/webhook", "error"),
        ("POST", "/auth/v1/signup", "error_code"),
    ] {
        let mut s = connect(&d);
        let chunk = format!("{{\"resume\":\"{}\"}}", "x".repeat(4096));
        s.write_all(
            format!(
                "{method} {path} HTTP/1.1\r\nHost: radar\r\napikey: {}\r\n\
                 Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
                 Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
                d.anon_key,
                chunk.len()
            )
            .as_bytes(),
        )
        .unwrap();
        assert_payload_too_large(&read_answer(&mut s), path, code_field);
    }
}

#[test]
fn connections_past_the_cap_wait_for_a_free_slot_and_the_log_says_so() {
    // Before: past the open-file limit, accept failed and the service stopped.
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--max-connections", "2"],
        &[],
    );
    let holders = [connect(&d), connect(&d)];
    let mut waiting = connect(&d);
    waiting
        .write_all(b"GET /api/config HTTP/1.1\r\nHost: radar\r\nConnection: close\r\n\r\n")
        .unwrap();
    // While both slots are held the third connection is not served...
    waiting
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 16];
    assert!(waiting.read(&mut buf).is_err(), "served past the cap");
    // ...and once one closes, it is.
    drop(holders);
    waiting
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    assert!(read_until_closed(&mut waiting).starts_with("HTTP/1.1 200"));
    let log = std::fs::read_to_string(&d.log).unwrap();
    assert!(log.contains("connection limit reached"), "{log}");
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

/// Every entry under `dir`, folders first.
fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        out.push(p.clone());
        if p.is_dir() {
            walk(&p, out);
        }
    }
}

#[tokio::test]
async fn the_data_directory_is_private_whatever_the_umask() {
    // Before: the directory was 0755 and the store 0644, readable by any local user.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(data.join("left-over.txt"), "x").unwrap();
    std::fs::set_permissions(
        data.join("left-over.txt"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let d = Daemon::start_under(
        &["sh", "-c", "umask 000; exec \"$0\" \"$@\""],
        &data,
        &["--no-demo"],
        &[],
    );
    d.sign_up("ada@example.com", "password1").await;
    let mut entries = Vec::new();
    walk(&data, &mut entries);
    if crate::util::on_postgres() {
        // Only the search replica is local; the data and the secret are in the database.
        assert!(entries.iter().any(|p| p.ends_with("search")));
    } else {
        assert!(entries.iter().any(|p| p.ends_with("db")));
        assert!(entries.iter().any(|p| p.ends_with("jwt_secret")));
    }
    assert_eq!(mode(&data), 0o700);
    for p in &entries {
        // A file the running daemon removed since the walk (sled replaces its snapshot,
        // tantivy its segments) has no mode left to check.
        let Ok(meta) = std::fs::symlink_metadata(p) else {
            continue;
        };
        let want = if meta.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(meta.permissions().mode() & 0o777, want, "{}", p.display());
    }
}

#[tokio::test]
async fn an_acknowledged_write_is_synced_to_disk_before_its_answer() {
    if crate::util::embedded_only(
        "the embedded store's journal fsync; PostgreSQL commits with synchronous_commit",
    ) {
        return;
    }
    // Before: the answer went out after sync_file_range only; fsync came up to 0.5 s later.
    // A favourite is a journaled change: its record is written to the journal file (over
    // zeros written ahead, with pwrite) and that file synced before the answer.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let trace = dir.path().join("strace.txt");
    let trace_arg = trace.to_string_lossy().into_owned();
    let d = Daemon::start_under(
        &[
            "strace",
            "-f",
            "-qq",
            "-y",
            "-s",
            "16",
            "-e",
            "trace=fdatasync,write,pwrite64,writev,sendto,sendmsg",
            "-e",
            "signal=none",
            "-o",
            &trace_arg,
        ],
        &data,
        &["--no-feed-polling"],
        &[],
    );
    let token = d.sign_up("ada@example.com", "password1").await;
    let (_, page) = d.get("/api/news", Some(&token)).await;
    let item = page["items"][0]["id"].as_str().unwrap().to_string();
    let before = usize::try_from(std::fs::metadata(&trace).unwrap().len()).unwrap();
    let (status, _) = d
        .call(
            "POST",
            &format!("/api/favorites/{item}"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, 200);
    stop_traced(d);
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = text[before..].lines().collect();
    let journal = "/journal/journal-";
    let written = lines
        .iter()
        .position(|l| (l.contains("write(") || l.contains("pwrite64(")) && l.contains(journal))
        .unwrap_or_else(|| panic!("no journal record of the write:\n{}", lines.join("\n")));
    let synced = lines
        .iter()
        .position(|l| l.contains("fdatasync") && l.contains(journal) && l.ends_with("= 0"))
        .or_else(|| {
            lines
                .iter()
                .position(|l| l.contains("<... fdatasync resumed>") && l.ends_with("= 0"))
        })
        .unwrap_or_else(|| {
            panic!(
                "no fdatasync of the journal after the write:\n{}",
                lines.join("\n")
            )
        });
    assert!(written < synced, "synced before the record was written");
    let answered = lines
        .iter()
        .position(|l| l.contains("HTTP/1.1 200"))
        .unwrap_or_else(|| panic!("no answer in the trace:\n{}", lines.join("\n")));
    assert!(
        synced < answered,
        "the answer went out before the sync:\n{}",
        lines.join("\n")
    );
}

/// Stops the `radar` that runs under strace with SIGTERM, so the trace is complete.
fn stop_traced(d: Daemon) {
    let tracer = d.pid();
    let children =
        std::fs::read_to_string(format!("/proc/{tracer}/task/{tracer}/children")).unwrap();
    let radar_pid = children
        .split_whitespace()
        .next()
        .expect("strace runs radar");
    std::process::Command::new("kill")
        .args(["-TERM", radar_pid])
        .status()
        .unwrap();
    let gone = std::time::Instant::now() + Duration::from_secs(20);
    while Path::new(&format!("/proc/{radar_pid}")).exists() {
        assert!(std::time::Instant::now() < gone, "radar did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(d);
}

/// `VmRSS` and `VmHWM` (peak) of a process, in bytes.
fn memory_of(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap()
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

const MIB: u64 = 1024 * 1024;

#[tokio::test]
async fn concurrent_sign_ins_stay_within_the_hashing_bound_and_memory_goes_back() {
    // Before: 64 concurrent sign-ins took the daemon from 14 MB to 1.5 GB, and it kept
    // 1.46 GB afterwards.
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &[
            "--no-demo",
            "--hash-concurrency",
            "2",
            "--hash-queue",
            "256",
            "--hash-wait",
            "120s",
            "--sign-in-rate",
            "100000",
        ],
        &[],
    );
    d.sign_up("ada@example.com", "password1").await;
    let (_, peak_before) = memory_of(d.pid());
    for _round in 0..2 {
        let tries: Vec<_> = (0..64)
            .map(|_| {
                let wrong = json!({"email": "ada@example.com", "password": "wrong-password"});
                spawn_auth_post(&d, "/auth/v1/token?grant_type=password", wrong)
            })
            .collect();
        for t in tries {
            let (status, body, _) = t.await.unwrap();
            assert_eq!(
                (status, body["error_code"].as_str()),
                (400, Some("invalid_credentials"))
            );
        }
    }
    let (settled, peak) = memory_of(d.pid());
    // Two argon2 computations of 19 MiB at a time, plus the requests' own small needs.
    let bound = peak_before + 2 * 19 * MIB + 64 * MIB;
    assert!(
        peak <= bound,
        "peak {} MiB over the bound {} MiB",
        peak / MIB,
        bound / MIB
    );
    assert!(
        settled <= peak_before + 32 * MIB,
        "{} MiB kept after the burst (peak before it {} MiB)",
        settled / MIB,
        peak_before / MIB
    );
}

#[tokio::test]
async fn past_the_hashing_queue_sign_ins_get_503_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &[
            "--no-demo",
            "--hash-concurrency",
            "1",
            "--hash-queue",
            "1",
            "--sign-in-rate",
            "100000",
        ],
        &[],
    );
    let tries: Vec<_> = (0..24)
        .map(|i| {
            let wrong = json!({"email": format!("u{i}@example.com"), "password": "wrong-password"});
            spawn_auth_post(&d, "/auth/v1/token?grant_type=password", wrong)
        })
        .collect();
    let mut busy = 0;
    for t in tries {
        let (status, body, retry) = t.await.unwrap();
        match status {
            400 => assert_eq!(body["error_code"], "invalid_credentials"),
            503 => {
                assert_eq!(body["error_code"], "over_capacity", "{body}");
                assert!(retry.is_some(), "503 without Retry-After");
                busy += 1;
            }
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert!(
        busy > 0,
        "24 sign-ins at once fit one slot and one queue place"
    );
}

#[tokio::test]
async fn a_flood_of_huge_emails_is_refused_before_counting_and_memory_stays_flat() {
    // Before: 200 sign-ins with a 1 MB e-mail added 200 MB, never given back.
    let dir = tempfile::tempdir().unwrap();
    // The mail send interval is off: the end counts the limiter's whole allowance.
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--email-max-frequency", "0"],
        &[],
    );
    let huge = format!("{}@example.com", "a".repeat(1024 * 1024));
    let send = |path: &'static str| {
        auth_post(
            &d,
            path,
            json!({"email": huge.clone(), "password": "password1"}),
        )
    };
    // Warm up the paths once, then measure.
    send("/auth/v1/token?grant_type=password").await;
    let (before, _) = memory_of(d.pid());
    for i in 0..200 {
        let path = match i % 3 {
            0 => "/auth/v1/token?grant_type=password",
            1 => "/auth/v1/recover",
            _ => "/auth/v1/signup",
        };
        let (status, body) = send(path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["error_code"], "validation_failed", "{path}: {body}");
    }
    let (after, _) = memory_of(d.pid());
    assert!(
        after <= before + 16 * MIB,
        "memory grew from {} to {} MiB",
        before / MIB,
        after / MIB
    );
    // The limiter never counted them: a real address still has its whole allowance.
    for _ in 0..10 {
        let (status, body) =
            auth_post(&d, "/auth/v1/recover", json!({"email": "ada@example.com"})).await;
        assert_eq!(status, 200, "{body}");
    }
}

/// POSTs JSON to an auth route with the anonymous key, as a task of its own, so many
/// can run at once: status, JSON body and Retry-After.
fn spawn_auth_post(
    d: &Daemon,
    path: &str,
    body: Value,
) -> tokio::task::JoinHandle<(u16, Value, Option<String>)> {
    let req = d
        .http
        .post(d.url(path))
        .header("apikey", &d.anon_key)
        .json(&body);
    tokio::spawn(async move {
        let res = req.send().await.unwrap();
        let retry = res
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let (status, body) = answer(res).await;
        (status, body, retry)
    })
}

/// POSTs JSON to an auth route with the anonymous key.
async fn auth_post(d: &Daemon, path: &str, body: Value) -> (u16, Value) {
    let (status, body, _) = spawn_auth_post(d, path, body).await.unwrap();
    (status, body)
}

#[tokio::test]
async fn every_route_refuses_malformed_invisible_and_look_alike_emails() {
    // Before: `a@@b.com`, `a@b`, joiners, overrides and homoglyphs signed up; recovery
    // took `not-an-email` and the web app said "Check Your Email".
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let bad = [
        "a@@b.com",
        "a@b",
        "not-an-email",
        "ann\u{200d}@example.com",
        "ann@exa\u{202e}mple.com",
        "ann@exаmple.com",
        "<script>x</script>@example.com",
    ];
    for email in bad {
        for path in [
            "/auth/v1/signup",
            "/auth/v1/token?grant_type=password",
            "/auth/v1/recover",
        ] {
            let (status, body) =
                auth_post(&d, path, json!({"email": email, "password": "password1"})).await;
            assert_eq!(status, 400, "{path} {email:?}: {body}");
            assert_eq!(body["error_code"], "validation_failed", "{path} {email:?}");
            assert!(
                body["msg"]
                    .as_str()
                    .unwrap()
                    .starts_with("Unable to validate email address")
            );
        }
        let (status, _) = auth_post(
            &d,
            "/auth/v1/resend",
            json!({"type": "signup", "email": email}),
        )
        .await;
        assert_eq!(status, 400, "resend {email:?}");
    }
    // Good addresses, international ones included, go through.
    d.sign_up("José@Exemple.fr", "password1").await;
    let (status, _) = auth_post(&d, "/auth/v1/recover", json!({"email": "jose@example.com"})).await;
    assert_eq!(status, 200);
    // The admin commands apply the same rule.
    let out = radar(&d.data)
        .args(["users", "create", "a@@b.com", "--password-stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(b"password1\n")?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Unable to validate email address"), "{err}");
}

/// `--workers` sets how many threads answer requests (the bench runs one, as nginx runs
/// one worker); each daemon still serves. The count is the runtime's own (its metrics, in
/// the start's log line): the threads of its blocking pool carry the same name as its
/// workers, and how many of those exist at a moment depends on the start's work.
#[tokio::test]
async fn workers_sets_the_threads_that_answer_requests() {
    let dir = tempfile::tempdir().unwrap();
    for workers in ["1", "4"] {
        let d = Daemon::start_with(
            &dir.path().join("data"),
            &["--workers", workers],
            &[("RADAR_LOG", "info")],
        );
        assert_eq!(d.get("/api/news", None).await.0, 200);
        let log = std::fs::read_to_string(&d.log).unwrap();
        assert!(
            !log.contains('\u{1b}'),
            "a log file gets no colour codes: {log}"
        );
        // The log file is appended to by each start on the data directory: the last line.
        let serving = log
            .lines()
            .rfind(|l| l.contains("radar is serving"))
            .unwrap_or_else(|| panic!("no start line in {log}"));
        assert!(serving.contains(&format!("workers={workers}")), "{serving}");
        d.stop();
    }
}

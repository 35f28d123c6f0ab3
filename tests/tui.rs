//! The terminal reader end to end: the real daemon with the demo data, the real
//! `radar tui` in a detached tmux session of its own (own socket, 120x40), driven with
//! `send-keys` and read with `capture-pane`.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::admin::cli_with;
use crate::util::{Daemon, radar, radar_bin};
use radar_store::{FREE_LIMIT, SUBSCRIBER_PAGE};

/// How long a screen may take to show what a test waits for.
const WAIT: Duration = Duration::from_secs(10);
/// Drops ignores a step within 300 ms of the last one.
const DROPS_STEP: Duration = Duration::from_millis(350);

/// A tmux server running one `radar tui`; dropping it kills the server, also when a test
/// fails half-way.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `radar tui --server <base>` with its config in `config` and a browser that
    /// does nothing. The shell around it prints the exit status and stays, so a crash
    /// leaves its message on screen for the failure report.
    fn start(base: &str, config: &Path) -> Tmux {
        Self::start_with(base, config, "")
    }

    /// As `start`, with extra `NAME=value` environment; after the reader exits the shell
    /// also prints whether the terminal is back in canonical (cooked) mode.
    fn start_with(base: &str, config: &Path, env: &str) -> Tmux {
        Self::start_sized(base, config, env, (120, 40))
    }

    /// As `start_with`, in a terminal of `(columns, rows)`.
    fn start_sized(base: &str, config: &Path, env: &str, size: (u16, u16)) -> Tmux {
        // `timeout` bounds what a killed test run (whose Drop never runs) leaves behind.
        let command = format!(
            "timeout --foreground 300 {}; \
             echo \"EXITED $?\"; stty -a | grep -o -- '-*icanon' | sed 's/^/MODE /'; sleep 60",
            reader_command(base, config, env)
        );
        Self::new_session(&command, size)
    }

    /// An interactive shell with job control (prompt `$ `), for what needs one (Ctrl-Z, fg).
    fn shell(size: (u16, u16)) -> Tmux {
        Self::new_session(
            "env PS1='$ ' timeout --foreground 300 bash --norc --noprofile -i",
            size,
        )
    }

    fn new_session(command: &str, (columns, rows): (u16, u16)) -> Tmux {
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "radar-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let tmux = Tmux { socket };
        tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "radar",
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
            command,
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("the tui tests need tmux (apt-get install -y tmux)");
        assert!(
            out.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Sends keys by tmux name (`Enter`, `Tab`, `Space`, `j`).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "radar"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Types text literally.
    fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "radar", "-l", text]);
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "radar"])
    }

    /// Waits until the screen satisfies `ok`; answers the screen.
    #[track_caller]
    fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(
                Instant::now() <= deadline,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Signs in with the form (`i`, e-mail, Tab, password, Enter).
    fn sign_in(&self, email: &str, password: &str) {
        self.keys(&["i"]);
        self.type_text(email);
        self.keys(&["Tab"]);
        self.type_text(password);
        self.keys(&["Enter"]);
    }

    /// Waits until `text` is on screen.
    #[track_caller]
    fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("{text:?}"), |s| s.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let tmux = |args: &[&str]| {
            Command::new("tmux")
                .arg("-L")
                .arg(&self.socket)
                .args(args)
                .output()
        };
        let socket = tmux(&["display-message", "-p", "#{socket_path}"]).ok();
        let _ = tmux(&["kill-server"]);
        // tmux leaves its socket file behind.
        if let Some(out) = socket.filter(|o| o.status.success()) {
            let _ = std::fs::remove_file(String::from_utf8_lossy(&out.stdout).trim());
        }
    }
}

/// The command line that runs `radar tui --server <base>` with its config in `config`,
/// a browser that does nothing, no colours and the extra `NAME=value` environment `env`.
fn reader_command(base: &str, config: &Path, env: &str) -> String {
    format!(
        "env RADAR_CONFIG_DIR='{}' BROWSER=true NO_COLOR=1 {env} '{}' tui --server '{}'",
        config.display(),
        radar_bin(),
        base
    )
}

/// The directory of the reader's files for the server at `base` (`http://HOST:PORT`).
fn server_dir(config: &Path, base: &str) -> std::path::PathBuf {
    let (host, port) = base
        .strip_prefix("http://")
        .and_then(|a| a.rsplit_once(':'))
        .unwrap_or_else(|| panic!("not http://HOST:PORT: {base}"));
    config.join("servers").join(format!("http_{host}_{port}"))
}

/// The first characters of a title: enough to find its row, short enough to fit.
fn head(title: &str) -> String {
    title.chars().take(16).collect()
}

/// The selected row of the list on screen.
fn selected_row(screen: &str) -> &str {
    screen.lines().find(|l| l.contains('▶')).unwrap_or("")
}

fn titles(feed: &Value) -> Vec<String> {
    feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| head(i["title"].as_str().unwrap()))
        .collect()
}

/// The reader's list at `path` once the server holds `n` items in it: the reader shows a
/// mark at once and sends it meanwhile, so the server is asked until it agrees.
async fn listed(daemon: &Daemon, path: &str, token: &str, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + WAIT;
    loop {
        let (_, list) = daemon.get(path, Some(token)).await;
        let list = list.as_array().cloned().unwrap_or_default();
        if list.len() == n {
            return list;
        }
        assert!(
            Instant::now() < deadline,
            "{path} holds {} items, not {n}",
            list.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn free_reader_signs_in_marks_items_reads_drops_and_watches_tv() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(&dir.path().join("data"), &[], &[]);
    let token = daemon.sign_up("reader@example.com", "correct horse").await;
    let (_, feed) = daemon.get("/api/news", None).await;
    let t = titles(&feed);
    assert_eq!(t.len(), FREE_LIMIT);
    let config = dir.path().join("config");
    let tui = Tmux::start(&daemon.base, &config);

    // Signed out: Feed, Drops and TV only; the free cap's hint.
    let screen = tui.wait_for(&t[0]);
    assert!(
        screen.contains("Not signed in") && !screen.contains("4 Favs"),
        "{screen}"
    );
    assert!(screen.contains("Subscribe Now"), "{screen}");

    // Sign in: a wrong password first, then the right one.
    tui.keys(&["i"]);
    tui.wait_for("Sign in");
    tui.type_text("reader@example.com");
    tui.keys(&["Tab"]);
    tui.type_text("wrong password");
    tui.keys(&["Enter"]);
    tui.wait_for("Sign in failed - Invalid login credentials");
    tui.type_text("correct horse");
    tui.keys(&["Enter"]);
    tui.wait_for("Welcome back!");
    // The signed-in feed has arrived (its unread count is in the tab): keys act on it.
    tui.wait_for("1 Feed (");
    let screen = tui.wait_for("4 Favs");
    assert!(screen.contains("reader@example.com"), "{screen}");
    let session = server_dir(&config, &daemon.base).join("session.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&session)
            .expect("session saved")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Move through the feed and favourite the third item; it shows under Favs.
    tui.keys(&["j", "j"]);
    tui.wait_until("the third item selected", |s| {
        selected_row(s).contains(&t[2])
    });
    tui.keys(&["f"]);
    tui.wait_for("Added to Favs");
    tui.keys(&["4"]);
    tui.wait_until("the favourite under Favs", |s| {
        s.contains("╭ Favs") && selected_row(s).contains(&t[2])
    });
    let favs = listed(&daemon, "/api/favorites", &token, 1).await;
    assert_eq!(favs[0]["title"].as_str().map(head), Some(t[2].clone()));

    // Hide the second item: it leaves the feed, shows in Trash, and Restore brings it back.
    tui.keys(&["1", "k"]);
    tui.wait_until("the second item selected", |s| {
        selected_row(s).contains(&t[1])
    });
    tui.keys(&["x"]);
    tui.wait_until("the item out of the feed", |s| {
        s.contains("Moved to Trash") && !s.contains(&t[1])
    });
    tui.keys(&["6"]);
    tui.wait_until("the item in Trash", |s| {
        s.contains("╭ Trash") && selected_row(s).contains(&t[1])
    });
    listed(&daemon, "/api/hidden", &token, 1).await;
    tui.keys(&["u"]);
    tui.wait_for("Item restored");
    tui.wait_for("Trash is empty");
    tui.keys(&["1"]);
    tui.wait_until("the item back in the feed", |s| {
        s.contains("╭ Feed") && s.contains(&t[1])
    });
    listed(&daemon, "/api/hidden", &token, 0).await;

    // Three marked read and two hidden: the server refills, and the reader still shows five stories.
    for key in ["m", "m", "m", "x", "x"] {
        let (_, feed) = daemon.get("/api/news", Some(&token)).await;
        let now = titles(&feed);
        assert_eq!(now.len(), FREE_LIMIT, "{feed}");
        tui.wait_until("the server's five stories on screen", |s| {
            now.iter().all(|t| s.contains(t.as_str()))
        });
        tui.keys(&[key]);
        let deadline = Instant::now() + WAIT;
        loop {
            let (_, feed) = daemon.get("/api/news", Some(&token)).await;
            if titles(&feed) != now {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "'{key}' did not reach the server"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let (_, feed) = daemon.get("/api/news", Some(&token)).await;
    let left = titles(&feed);
    assert_eq!(left.len(), FREE_LIMIT, "{feed}");
    tui.wait_until("five fresh stories after 3 read + 2 hidden", |s| {
        left.iter().all(|t| s.contains(t.as_str()))
    });

    // Drops: the allowance's stories, then the paywall.
    tui.keys(&["2"]);
    tui.wait_for(&format!("1 / {FREE_LIMIT}"));
    for n in 2..=FREE_LIMIT {
        std::thread::sleep(DROPS_STEP);
        tui.keys(&["Space"]);
        tui.wait_for(&format!("{n} / {FREE_LIMIT}"));
    }
    std::thread::sleep(DROPS_STEP);
    tui.keys(&["j"]);
    tui.wait_for("Premium Content");
    let screen = tui.wait_for(&format!(
        "You've reached the free limit of {FREE_LIMIT} stories."
    ));
    assert!(
        screen.contains("Premium members get unlimited drops"),
        "{screen}"
    );

    // TV mode: counts down, pauses, resumes, cycles the interval.
    tui.keys(&["3"]);
    tui.wait_for(&format!("1 of {FREE_LIMIT}"));
    tui.wait_for("Next in");
    tui.keys(&["Space"]);
    tui.wait_for("Paused");
    std::thread::sleep(Duration::from_millis(1200));
    let screen = tui.screen();
    assert!(
        screen.contains("Paused") && screen.contains(&format!("1 of {FREE_LIMIT}")),
        "{screen}"
    );
    tui.keys(&["Space"]);
    tui.wait_for("Next in");
    tui.keys(&["t"]);
    tui.wait_for("interval 15s");
    tui.keys(&["n"]);
    tui.wait_for(&format!("2 of {FREE_LIMIT}"));

    // Sign out removes the session file; q quits cleanly.
    tui.keys(&["Escape", "1", "O"]);
    tui.wait_for("Signed out - You have been successfully signed out");
    assert!(!session.exists(), "sign-out removes the session");
    tui.keys(&["q"]);
    tui.wait_for("EXITED 0");
}

#[tokio::test(flavor = "multi_thread")]
async fn subscriber_reads_more_and_past_five_drops() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(
        &dir.path().join("data"),
        &["--complimentary", "vip@example.com"],
        &[],
    );
    let token = daemon.sign_up("vip@example.com", "correct horse").await;
    let (_, first) = daemon.get("/api/news", Some(&token)).await;
    assert_eq!(first["limit"], SUBSCRIBER_PAGE);
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a subscriber gets a cursor");
    let (_, second) = daemon
        .get(&format!("/api/news?cursor={cursor}"), Some(&token))
        .await;
    let (first, second) = (titles(&first), titles(&second));
    let config = dir.path().join("config");
    let tui = Tmux::start(&daemon.base, &config);
    tui.wait_for("Not signed in");
    tui.sign_in("vip@example.com", "correct horse");
    tui.wait_for("Radar Premium");
    tui.wait_for("M: Read More");
    // Key takeaways: subscribers, Feed only.
    tui.keys(&["t"]);
    tui.wait_for("Personalized Key Takeaways");
    tui.wait_for("This story matters most for");
    tui.keys(&["Escape"]);
    tui.wait_until("the takeaways closed", |s| {
        !s.contains("Personalized Key Takeaways")
    });
    tui.keys(&["G"]);
    tui.wait_until("the 20th item selected", |s| {
        selected_row(s).contains(&first[19])
    });
    // Reaching the end asked for the next page by itself: j goes on to the 21st item.
    let deadline = Instant::now() + WAIT;
    while !selected_row(&tui.screen()).contains(&second[0]) {
        assert!(
            Instant::now() < deadline,
            "the feed did not page on past the 20th item"
        );
        tui.keys(&["j"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    // Read More asks for the page after that: G then reaches an item of neither page.
    tui.keys(&["M"]);
    let deadline = Instant::now() + WAIT;
    loop {
        tui.keys(&["G"]);
        std::thread::sleep(Duration::from_millis(100));
        let row = tui.screen();
        let row = selected_row(&row);
        if !row.is_empty()
            && !first
                .iter()
                .chain(&second)
                .any(|t| row.contains(t.as_str()))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "Read More did not bring a third page: {row}"
        );
    }

    tui.keys(&["2"]);
    tui.wait_for("1 / ");
    for n in 2..=6 {
        std::thread::sleep(DROPS_STEP);
        tui.keys(&["Space"]);
        tui.wait_for(&format!("{n} / "));
    }
    assert!(!tui.screen().contains("Premium Content"));

    // A new run picks the saved session up.
    tui.keys(&["q"]);
    tui.wait_for("EXITED 0");
    drop(tui);
    let again = Tmux::start(&daemon.base, &config);
    again.wait_for("vip@example.com");
    again.wait_for("Radar Premium");
}

#[tokio::test(flavor = "multi_thread")]
async fn subscriber_marks_twenty_gets_twenty_new_and_tv_reaches_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(
        &dir.path().join("data"),
        &["--complimentary", "vip@example.com"],
        &[],
    );
    let token = daemon.sign_up("vip@example.com", "correct horse").await;
    let config = dir.path().join("config");
    let tui = Tmux::start(&daemon.base, &config);
    tui.wait_for("Not signed in");
    tui.sign_in("vip@example.com", "correct horse");
    tui.wait_for("Radar Premium");

    // Twenty marked read, one at a time: each leaves the server's feed and the reader refills.
    let (_, feed) = daemon.get("/api/news", Some(&token)).await;
    let first = titles(&feed);
    assert_eq!(first.len(), 20, "{feed}");
    for _ in 0..20 {
        let (_, feed) = daemon.get("/api/news", Some(&token)).await;
        let now = titles(&feed);
        // A 40-row pane shows the first sixteen rows.
        tui.wait_until("the server's feed on screen", |s| {
            now.iter().take(10).all(|t| s.contains(t.as_str()))
        });
        tui.keys(&["m"]);
        let deadline = Instant::now() + WAIT;
        loop {
            let (_, feed) = daemon.get("/api/news", Some(&token)).await;
            if titles(&feed) != now {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the mark did not reach the server"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let (_, feed) = daemon.get("/api/news", Some(&token)).await;
    let fresh = titles(&feed);
    assert_eq!(fresh.len(), 20, "{feed}");
    assert!(fresh.iter().all(|t| !first.contains(t)), "{feed}");
    tui.wait_until("twenty new stories", |s| {
        fresh.iter().take(10).all(|t| s.contains(t.as_str()))
    });

    // Read More still pages on after the refill: M brings the server's next page, whose
    // last story G then selects.
    let cursor = feed["nextCursor"]
        .as_str()
        .expect("a subscriber's refilled page still has a cursor");
    let (_, second) = daemon
        .get(&format!("/api/news?cursor={cursor}"), Some(&token))
        .await;
    let last_of_second = titles(&second).pop().expect("a second page");
    tui.keys(&["M"]);
    let deadline = Instant::now() + WAIT;
    while !tui.screen().contains(&last_of_second) {
        assert!(
            Instant::now() < deadline,
            "Read More did not bring {last_of_second:?}"
        );
        tui.keys(&["G"]);
        std::thread::sleep(Duration::from_millis(50));
    }

    // TV counts the whole unread feed and steps (paging on) to its last story.
    let total = feed["total"]
        .as_u64()
        .expect("the feed answer carries total");
    tui.keys(&["3"]);
    tui.wait_for(&format!("1 of {total}"));
    let last = format!("{total} of {total}");
    let deadline = Instant::now() + WAIT * 3;
    while !tui.screen().contains(&last) {
        assert!(Instant::now() < deadline, "TV did not reach {last}");
        tui.keys(&["n"]);
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What a stand-in web server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    authorization: Option<String>,
}

/// A stand-in server on 127.0.0.1 that answers `GET /api/news` with `feed` (so the
/// reader draws a feed) and 404 to the rest, and records every request it gets.
async fn stand_in(feed: Value) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
        let (log, feed) = (log.clone(), feed.clone());
        async move {
            let path = req.uri().path().to_string();
            log.lock().unwrap().push(Seen {
                method: req.method().to_string(),
                path: path.clone(),
                authorization: req
                    .headers()
                    .get(axum::http::header::AUTHORIZATION)
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
            });
            use axum::response::IntoResponse;
            if path == "/api/news" && req.method() == axum::http::Method::GET {
                axum::Json(feed).into_response()
            } else {
                (
                    axum::http::StatusCode::NOT_FOUND,
                    axum::Json(serde_json::json!({"error": "not_found", "message": "no"})),
                )
                    .into_response()
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, seen)
}

/// The issue's case: a reader with a session and a waiting mark for server A, pointed at
/// another server, must send neither there and show that server signed out; back on A
/// (restarted on the same address) the session is still there and the mark arrives.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_and_its_waiting_mark_go_to_their_server_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let daemon = Daemon::start_with(&data, &[], &[]);
    let token = daemon.sign_up("reader@example.com", "correct horse").await;
    let (_, feed) = daemon.get("/api/news", Some(&token)).await;
    let t = titles(&feed);
    let (_, public_feed) = daemon.get("/api/news", None).await;
    let config = dir.path().join("config");
    let recheck = "RADAR_TUI_RECHECK_SECS=1";
    let tui = Tmux::start_with(&daemon.base, &config, recheck);
    tui.wait_for("Not signed in");
    tui.sign_in("reader@example.com", "correct horse");
    tui.wait_for("4 Favs");
    tui.wait_until("the first item selected", |s| {
        selected_row(s).contains(&t[0])
    });

    // The daemon goes away; the mark is kept on disk, beside A's session.
    let base_a = daemon.base.clone();
    daemon.stop();
    tui.keys(&["m"]);
    tui.wait_for("Server had issues marking this item as read");
    let pending = server_dir(&config, &base_a).join("pending-marks.json");
    let deadline = Instant::now() + WAIT;
    while !pending.exists() {
        assert!(Instant::now() < deadline, "no {}", pending.display());
        std::thread::sleep(Duration::from_millis(100));
    }
    tui.keys(&["q"]);
    tui.wait_for("EXITED 0");
    drop(tui);

    // Another server: signed out there, and it never sees A's token or mark.
    let (other, seen) = stand_in(public_feed).await;
    let tui = Tmux::start_with(&other, &config, recheck);
    let screen = tui.wait_until("the other server's feed", |s| s.contains(&t[1]));
    assert!(
        screen.contains("Not signed in") && !screen.contains("4 Favs"),
        "{screen}"
    );
    // Nothing to wait for can show that something is not sent: watch for two of the
    // reader's re-check periods (1 s each, when waiting marks are sent again), after a
    // reload has gone through.
    tui.keys(&["r"]);
    let deadline = Instant::now() + WAIT;
    while seen
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.path == "/api/news")
        .count()
        < 2
    {
        assert!(Instant::now() < deadline, "no reload reached the stand-in");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(2500));
    let requests = seen.lock().unwrap().clone();
    assert!(
        requests.iter().all(|r| r.authorization.is_none()),
        "a token went to another server: {requests:?}"
    );
    assert!(
        requests
            .iter()
            .all(|r| r.method == "GET" && r.path == "/api/news"),
        "only the public feed was asked for: {requests:?}"
    );
    tui.keys(&["q"]);
    tui.wait_for("EXITED 0");
    drop(tui);
    assert!(pending.exists(), "A's waiting mark is still kept for A");

    // Back on A, on its address: still signed in, and the kept mark is sent.
    let addr = base_a.strip_prefix("http://").unwrap();
    let daemon = Daemon::start_with(&data, &["--addr", addr], &[]);
    assert_eq!(daemon.base, base_a);
    let (_, feed) = daemon.get("/api/news", Some(&token)).await;
    assert!(titles(&feed).contains(&t[0]), "{feed}");
    let tui = Tmux::start_with(&daemon.base, &config, recheck);
    tui.wait_for("4 Favs");
    let deadline = Instant::now() + WAIT;
    loop {
        let (_, feed) = daemon.get("/api/news", Some(&token)).await;
        if !titles(&feed).contains(&t[0]) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the kept mark never reached the server"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_subscription_downgrades_an_open_reader() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let daemon = Daemon::start_with(&data, &[], &[]);
    daemon.sign_up("paid@example.com", "correct horse").await;
    let admin = |args: &[&str]| {
        let out = radar(&data).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
    };
    admin(&["subscribers", "grant", "paid@example.com"]);
    let config = dir.path().join("config");
    let tui = Tmux::start_with(&daemon.base, &config, "RADAR_TUI_RECHECK_SECS=1");
    tui.wait_for("Not signed in");
    tui.sign_in("paid@example.com", "correct horse");
    tui.wait_for("Radar Premium");
    tui.wait_for("M: Read More");

    // Revoked from the admin command: the next re-check drops the reader to the free feed.
    admin(&["subscribers", "revoke", "paid@example.com"]);
    tui.wait_until("the reader downgraded", |s| {
        !s.contains("Radar Premium") && s.contains("Subscribe Now")
    });
}

#[test]
fn a_server_that_is_down_gives_a_message_and_a_retry_key() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 9 of loopback.
    let tui = Tmux::start("http://127.0.0.1:9", dir.path());
    tui.wait_for("Error loading news");
    tui.wait_for("Cannot reach the Radar server at http://127.0.0.1:9");
    tui.wait_for("Press r to try again.");
    tui.keys(&["r"]);
    tui.wait_for("Error loading news");
    tui.keys(&["q"]);
    tui.wait_for("EXITED 0");
}

/// The screen as one line of words, for text that may wrap.
fn words(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread")]
async fn headlines_keep_forty_columns_at_80x24_100x30_and_200x60() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(&dir.path().join("data"), &[], &[]);
    let (_, feed) = daemon.get("/api/news", None).await;
    let items = feed["items"].as_array().unwrap();
    let forty: Vec<String> = items
        .iter()
        .map(|i| i["title"].as_str().unwrap().chars().take(40).collect())
        .collect();
    assert!(forty.iter().all(|t| t.chars().count() == 40), "{forty:?}");
    for size in [(80, 24), (100, 30), (200, 60)] {
        let tui = Tmux::start_sized(&daemon.base, &dir.path().join("config"), "", size);
        let screen = tui.wait_until("every headline", |s| {
            forty.iter().all(|t| s.contains(t.as_str()))
        });
        let rows: Vec<&str> = forty
            .iter()
            .map(|t| screen.lines().find(|l| l.contains(t.as_str())).unwrap())
            .collect();
        // The date goes first as the list narrows, the age next; at 200 both fit.
        let dated = rows.iter().filter(|r| r.contains(", 20")).count();
        let aged = rows.iter().filter(|r| r.contains(" ago")).count();
        match size.0 {
            80 => assert_eq!((dated, aged), (0, FREE_LIMIT), "{screen}"),
            _ => assert_eq!((dated, aged), (FREE_LIMIT, FREE_LIMIT), "{screen}"),
        }
        if size == (80, 24) {
            // The help is longer than the screen and scrolls to its end.
            tui.keys(&["?"]);
            tui.wait_for("Everywhere");
            tui.keys(&["PageDown"; 10]);
            tui.wait_until("the end of the help", |s| {
                s.contains("This help") && !s.contains("Everywhere")
            });
            tui.keys(&["Escape"]);
            // The reader view scrolls the full text to its end.
            let content = items[0]["content"].as_str().unwrap();
            let first: String = content
                .split_whitespace()
                .take(4)
                .collect::<Vec<_>>()
                .join(" ");
            let all: Vec<&str> = content.split_whitespace().collect();
            let last = all[all.len() - 4..].join(" ");
            tui.keys(&["Enter"]);
            let screen = tui.wait_until("the reader", |s| words(s).contains(&first));
            assert!(!words(&screen).contains(&last), "{screen}");
            tui.keys(&["G"]);
            tui.wait_until("the end of the text", |s| {
                words(s).contains(&last) && !words(s).contains(&first)
            });
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn big_j_and_k_step_over_read_items() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(&dir.path().join("data"), &[], &[]);
    let token = daemon.sign_up("unread@example.com", "correct horse").await;
    let (_, feed) = daemon.get("/api/news", None).await;
    let t = titles(&feed);
    let tui = Tmux::start_sized(&daemon.base, &dir.path().join("config"), "", (100, 30));
    tui.wait_for(&t[0]);
    tui.sign_in("unread@example.com", "correct horse");
    tui.wait_for("Welcome back!");
    // The signed-in feed has arrived (its unread count is in the tab): keys act on it.
    tui.wait_for("1 Feed (");
    // Three shared, the middle one of them read.
    for (n, title) in t[..3].iter().enumerate() {
        if n > 0 {
            tui.keys(&["j"]);
        }
        tui.wait_until("the row", |s| selected_row(s).contains(title.as_str()));
        tui.keys(&["s"]);
        let shares = || async {
            let (_, shared) = daemon.get("/api/shared", Some(&token)).await;
            shared.as_array().map_or(0, Vec::len)
        };
        let deadline = Instant::now() + WAIT;
        while shares().await <= n {
            assert!(Instant::now() < deadline, "share {n} not recorded");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    tui.keys(&["k"]);
    tui.wait_until("the second row", |s| selected_row(s).contains(&t[1]));
    tui.keys(&["m"]);
    tui.wait_for("Marked as read");
    tui.keys(&["7"]);
    let screen = tui.wait_until("Shared", |s| {
        s.contains("╭ Shared") && t[..3].iter().all(|x| s.contains(x.as_str()))
    });
    let order: Vec<&String> = screen
        .lines()
        .filter_map(|l| t[..3].iter().find(|x| l.contains(x.as_str())))
        .collect();
    assert_eq!(order[1], &t[1], "the read one in the middle: {screen}");
    tui.keys(&["g", "J"]);
    tui.wait_until("the next unread, past the read one", |s| {
        selected_row(s).contains(order[2].as_str())
    });
    tui.keys(&["K"]);
    tui.wait_until("the previous unread", |s| {
        selected_row(s).contains(order[0].as_str())
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn enter_then_esc_reads_the_item_and_the_header_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(
        &dir.path().join("data"),
        &["--complimentary", "opener@example.com"],
        &[],
    );
    let token = daemon.sign_up("opener@example.com", "correct horse").await;
    let (_, feed) = daemon.get("/api/news", Some(&token)).await;
    let unread = feed["total"].as_u64().unwrap();
    let first = titles(&feed).swap_remove(0);
    let first_id = feed["items"][0]["id"].as_str().unwrap().to_string();
    let tui = Tmux::start_sized(&daemon.base, &dir.path().join("config"), "", (100, 30));
    tui.wait_for("Not signed in");
    tui.sign_in("opener@example.com", "correct horse");
    tui.wait_for(&format!("1 Feed ({unread})"));
    tui.wait_until("the first item selected", |s| {
        selected_row(s).contains(first.as_str())
    });
    tui.keys(&["Enter"]);
    tui.wait_until("the reader", |s| s.contains("scroll") && s.contains("back"));
    // The header counts the item read as the reader opens it: the feed is back only
    // once the reader's key line has gone.
    tui.keys(&["Escape"]);
    let screen = tui.wait_until("the feed, with the item read", |s| {
        s.contains(&format!("1 Feed ({})", unread - 1)) && !s.contains("Esc back")
    });
    assert!(
        selected_row(&screen).contains(first.as_str()),
        "the item read on opening stays selected in the feed: {screen}"
    );
    let (_, check) = daemon
        .get(&format!("/api/read/check/{first_id}"), Some(&token))
        .await;
    assert_eq!(check["read"], true);
    // A reload shows the feed as the server has it: without the item read.
    tui.keys(&["r"]);
    tui.wait_until("the feed without it", |s| {
        s.contains(&format!("1 Feed ({})", unread - 1)) && !s.contains(first.as_str())
    });
    // A marks the whole feed read on the server, U puts it back.
    tui.keys(&["A"]);
    tui.wait_for("1 Feed (0)");
    tui.wait_for("Press U to undo");
    let (_, count) = daemon.get("/api/unread", Some(&token)).await;
    assert_eq!(count["unread"], 0);
    tui.keys(&["U"]);
    tui.wait_for(&format!("1 Feed ({})", unread - 1));
    tui.wait_for("Undone.");
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_z_suspends_to_the_shell_and_fg_redraws() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(&dir.path().join("data"), &[], &[]);
    let (_, feed) = daemon.get("/api/news", None).await;
    let t = titles(&feed);
    let tui = Tmux::shell((100, 30));
    tui.wait_until("the prompt", |s| s.starts_with('$'));
    tui.type_text(&reader_command(
        &daemon.base,
        &dir.path().join("config"),
        "",
    ));
    tui.keys(&["Enter"]);
    tui.wait_for(&t[0]);
    tui.keys(&["j"]);
    tui.wait_until("the second row selected", |s| {
        selected_row(s).contains(&t[1])
    });
    tui.keys(&["C-z"]);
    // The shell's own screen is back, with its job stopped.
    let screen = tui.wait_for("Stopped");
    assert!(!screen.contains(&t[0]), "{screen}");
    tui.type_text("fg");
    tui.keys(&["Enter"]);
    // Drawn anew, where it was.
    tui.wait_until("the reader again", |s| selected_row(s).contains(&t[1]));
    tui.keys(&["q"]);
    // Typed before the reader has given the terminal back, the command would go to the
    // reader, not the shell: wait for the shell's prompt.
    tui.wait_until("the shell's prompt", |s| {
        s.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::trim_end)
            == Some("$")
    });
    tui.type_text("echo back $?");
    tui.keys(&["Enter"]);
    tui.wait_for("back 0");
}

#[tokio::test(flavor = "multi_thread")]
async fn another_web_service_is_named_and_its_page_never_shown() {
    // A stand-in web service that is not Radar: a web page, then JSON of another shape.
    let answer = Arc::new(Mutex::new((
        "text/html; charset=utf-8",
        "<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>",
    )));
    let served = answer.clone();
    let app = axum::Router::new().fallback(move || {
        let served = served.clone();
        async move {
            let (content_type, body) = *served.lock().unwrap();
            ([(axum::http::header::CONTENT_TYPE, content_type)], body)
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let dir = tempfile::tempdir().unwrap();
    let tui = Tmux::start(&base, dir.path());
    // The message wraps: read the screen as one line of words.
    let screen = tui.wait_until("the error", |s| words(s).contains("not a Radar server"));
    let screen = words(&screen);
    assert!(
        screen.contains(&format!(
            "{base} is not a Radar server: GET /api/news answered 200 OK, text/html; \
             a Radar server answers JSON. Check --server (or RADAR_SERVER)."
        )),
        "{screen}"
    );
    assert!(
        !screen.contains('<') && !screen.contains("nginx"),
        "{screen}"
    );

    *answer.lock().unwrap() = ("application/json", r#"{"status":"ok"}"#);
    tui.keys(&["r"]);
    let screen = tui.wait_until("the next error", |s| words(s).contains("Radar's shape"));
    let screen = words(&screen);
    assert!(
        screen.contains("answered 200 OK, application/json; its JSON is not in Radar's shape"),
        "{screen}"
    );
    tui.keys(&["q"]);
    tui.wait_for("EXITED 0");
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_are_refreshed_before_they_expire() {
    let dir = tempfile::tempdir().unwrap();
    // Access tokens live 4 s: the reader must refresh to keep working.
    let daemon = Daemon::start_with(&dir.path().join("data"), &["--jwt-expiry", "4"], &[]);
    daemon.sign_up("short@example.com", "correct horse").await;
    let config = dir.path().join("config");
    let tui = Tmux::start(&daemon.base, &config);
    tui.wait_for("Not signed in");
    tui.sign_in("short@example.com", "correct horse");
    tui.wait_for("Welcome back!");
    // The signed-in feed has arrived (its unread count is in the tab): keys act on it.
    tui.wait_for("1 Feed (");
    let session = server_dir(&config, &daemon.base).join("session.json");
    let first = std::fs::read_to_string(&session).unwrap();
    // The reader refreshes the four-second token before it expires: wait for the saved
    // session to change, not for a fixed time.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&session).unwrap() == first {
        assert!(
            std::time::Instant::now() < deadline,
            "the saved session was not refreshed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // And the first token has expired, so the favourite below can only be sent with the
    // refreshed one.
    let old: serde_json::Value = serde_json::from_str(&first).unwrap();
    let old = old["access_token"].as_str().unwrap();
    while daemon.get("/api/favorites", Some(old)).await.0 != 401 {
        assert!(
            std::time::Instant::now() < deadline,
            "the first token never expired"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tui.keys(&["f"]);
    let screen = tui.wait_for("Added to Favs");
    assert!(
        screen.contains("short@example.com") && !screen.contains("Warning"),
        "{screen}"
    );
    let deadline = Instant::now() + WAIT;
    loop {
        // Read Favs with a token of its own: the stored favourite proves the reader's
        // refreshed token was accepted.
        let fresh = daemon.sign_in("short@example.com", "correct horse").await;
        let (_, favs) = daemon.get("/api/favorites", Some(&fresh)).await;
        if favs.as_array().is_some_and(|f| f.len() == 1) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the favourite was not stored: {favs}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A task panics while the main loop draws on its own: the terminal comes back whole each
/// time (several runs, since a frame written after the restore was a matter of timing).
#[test]
fn a_panic_restores_the_terminal() {
    for run in 1..=5 {
        let dir = tempfile::tempdir().unwrap();
        let tui = Tmux::start_with(
            "http://127.0.0.1:9",
            dir.path(),
            "RADAR_TUI_TEST_PANIC=1 RUST_BACKTRACE=0",
        );
        let screen = tui.wait_for("EXITED 101");
        assert!(
            screen.contains("RADAR_TUI_TEST_PANIC is set"),
            "run {run}: the panic message is readable:\n{screen}"
        );
        let screen = tui.wait_for("MODE ");
        assert!(
            screen.contains("MODE icanon"),
            "run {run}: raw mode is off again:\n{screen}"
        );
        assert!(
            !screen.contains("Not signed in"),
            "run {run}: the alternate screen is left:\n{screen}"
        );
        assert_eq!(
            tui.run(&["display-message", "-p", "-t", "radar", "#{cursor_flag}"])
                .trim(),
            "1",
            "run {run}: the cursor is visible again"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn open_and_share_use_the_browser_and_record_the_share() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(&dir.path().join("data"), &[], &[]);
    let token = daemon.sign_up("sharer@example.com", "correct horse").await;
    let (_, feed) = daemon.get("/api/news", None).await;
    let url = feed["items"][0]["url"]
        .as_str()
        .expect("the first demo item has a URL")
        .to_string();
    // A "browser" that notes its arguments, given with arguments of its own and %u as
    // $BROWSER allows.
    let opened = dir.path().join("opened.txt");
    let browser = dir.path().join("my browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\n", opened.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let config = dir.path().join("config");
    let tui = Tmux::start_with(
        &daemon.base,
        &config,
        &format!("BROWSER=\"'{}' --new-tab %u --x\"", browser.display()),
    );
    tui.wait_for("Not signed in");
    tui.sign_in("sharer@example.com", "correct horse");
    tui.wait_for("Welcome back!");
    // The signed-in feed has arrived (its unread count is in the tab): keys act on it.
    tui.wait_for("1 Feed (");
    // The signed-in feed is asked for after the greeting: o acts on the selected row.
    let first = titles(&feed).swap_remove(0);
    tui.wait_until("the first item selected", |s| {
        selected_row(s).contains(first.as_str())
    });

    let read_opened = || std::fs::read_to_string(&opened).unwrap_or_default();
    let wait_opened = |what: &str, ok: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + WAIT;
        while !ok(&read_opened()) {
            assert!(
                Instant::now() < deadline,
                "the browser was not asked to open {what}: {:?}",
                read_opened()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    tui.keys(&["o"]);
    wait_opened("the story", &|o| {
        o.lines().any(|l| l == format!("--new-tab {url} --x"))
    });
    tui.keys(&["s"]);
    tui.wait_for("Shared on LinkedIn");
    wait_opened("the share link", &|o| {
        o.contains("https://www.linkedin.com/shareArticle?mini=true&url=")
    });
    tui.keys(&["7"]);
    tui.wait_until("the item under Shared", |s| {
        s.contains("╭ Shared") && s.contains("Shared on LinkedIn just now")
    });
    let (_, shared) = daemon.get("/api/shared", Some(&token)).await;
    assert_eq!(shared[0]["platform"], "linkedin");
    assert_eq!(shared[0]["url"].as_str(), Some(url.as_str()));
}

/// Items that all hold "quokka": two named ones and `reports` numbered reports, as JSON
/// Lines for `radar items import`.
fn quokka_items(reports: usize) -> String {
    let item = |id: String, title: String, summary: &str, day: usize| {
        serde_json::json!({"id": id, "title": title, "summary": summary,
                           "url": format!("https://quokka.example/{day}"),
                           "published_date": format!("2026-10-{:02}T00:00:00Z", 1 + day % 28)})
        .to_string()
            + "\n"
    };
    let mut lines = item(
        "q-robotics".into(),
        "Quokka robotics lab opens".into(),
        "A lab builds robots.",
        0,
    );
    lines += &item(
        "q-vision".into(),
        "Quokka vision model released".into(),
        "A model that sees.",
        1,
    );
    for n in 0..reports {
        lines += &item(
            format!("q-report-{n:02}"),
            format!("Report {n:02} on quokka habitats"),
            "Field notes.",
            2 + n,
        );
    }
    lines
}

/// The titles `q` finds for `token`, first page, as the list shows their heads.
async fn search_titles(daemon: &Daemon, token: &str, q: &str) -> Vec<String> {
    let mut url = reqwest::Url::parse("http://radar/api/search").unwrap();
    url.query_pairs_mut().append_pair("q", q);
    let (status, page) = daemon
        .get(
            &format!("/api/search?{}", url.query().unwrap()),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    titles(&page)
}

#[tokio::test(flavor = "multi_thread")]
async fn search_uses_the_server_and_n_steps_through_results() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let daemon = Daemon::start_with(&data, &["--complimentary", "vip@example.com"], &[]);
    let import = cli_with(
        &data,
        &["items", "import", "-", "--json"],
        &quokka_items(23),
        &[],
    )
    .await;
    assert_eq!(import.ok_json()["added"], 25);
    let free = daemon.sign_up("reader@example.com", "correct horse").await;
    let vip = daemon.sign_up("vip@example.com", "correct horse").await;
    let (_, feed) = daemon.get("/api/news", Some(&free)).await;
    // A story of the feed that no search here finds.
    let feed_first = titles(&feed)
        .into_iter()
        .find(|t| !t.contains("uokka") && !t.starts_with("Report"))
        .expect("a demo story in the first five");
    let config = dir.path().join("config");
    let tui = Tmux::start(&daemon.base, &config);
    tui.wait_for("Not signed in");
    tui.sign_in("reader@example.com", "correct horse");
    tui.wait_for("4 Favs");

    // A word: the server's best five for a free reader, and its paywall line.
    let found = search_titles(&daemon, &free, "quokka").await;
    assert_eq!(found.len(), FREE_LIMIT);
    tui.keys(&["/"]);
    tui.type_text("quokka");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for(&format!("{FREE_LIMIT}+ results for \"quokka\""));
    assert!(
        found.iter().all(|t| screen.contains(t.as_str())),
        "{screen}"
    );
    assert!(!screen.contains(&feed_first), "{screen}");
    assert!(screen.contains("Subscribe Now"), "{screen}");
    assert!(selected_row(&screen).contains(&found[0]), "{screen}");
    // n moves the selection down the results, N back.
    tui.keys(&["n"]);
    tui.wait_until("the second result selected", |s| {
        selected_row(s).contains(&found[1])
    });
    tui.wait_for(&format!("Result 2 of {FREE_LIMIT}+ for \"quokka\""));
    tui.keys(&["N"]);
    tui.wait_until("the first result selected", |s| {
        selected_row(s).contains(&found[0])
    });
    // In the reader opened from the results, n reads the next result.
    tui.keys(&["Enter"]);
    tui.wait_until("the reader on the first result", |s| {
        s.contains("scroll") && s.contains(&found[0]) && !s.contains(&found[1])
    });
    tui.keys(&["n"]);
    tui.wait_until("the reader on the second result", |s| {
        s.contains("scroll") && s.contains(&found[1]) && !s.contains(&found[0])
    });
    tui.keys(&["Escape"]);
    tui.wait_until("the results, the second selected", |s| {
        selected_row(s).contains(&found[1])
    });
    // Esc goes back to the feed.
    tui.keys(&["Escape"]);
    tui.wait_for(&feed_first);

    // A phrase, then an exclusion, narrow it.
    tui.keys(&["/"]);
    tui.type_text("\"quokka robotics\"");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("1 result for \"\"quokka robotics\"\"");
    assert!(screen.contains("Quokka robotics lab opens"), "{screen}");
    assert!(!screen.contains("Quokka vision"), "{screen}");
    assert!(!screen.contains("Report 0"), "{screen}");
    // Esc on its own: followed at once by a key, the terminal would read Alt and that key.
    tui.keys(&["Escape"]);
    tui.wait_for(&feed_first);
    tui.keys(&["/"]);
    tui.type_text("quokka -habitats");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("2 results for \"quokka -habitats\"");
    assert!(screen.contains("Quokka vision model released"), "{screen}");
    assert!(!screen.contains("Report 0"), "{screen}");

    // A malformed query: the server's message.
    tui.keys(&["Escape"]);
    tui.wait_for(&feed_first);
    tui.keys(&["/"]);
    tui.type_text("\"quokka");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Search failed");
    assert!(screen.contains("is not closed"), "{screen}");
    tui.keys(&["q"]);
    tui.wait_for("EXITED 0");
    drop(tui);

    // A subscriber pages on: n past the twentieth result fetches the next page.
    let found = search_titles(&daemon, &vip, "quokka").await;
    assert_eq!(found.len(), SUBSCRIBER_PAGE);
    let config = dir.path().join("config-vip");
    let tui = Tmux::start(&daemon.base, &config);
    tui.wait_for("Not signed in");
    tui.sign_in("vip@example.com", "correct horse");
    tui.wait_for("Radar Premium");
    tui.keys(&["/"]);
    tui.type_text("quokka");
    tui.keys(&["Enter"]);
    tui.wait_for("25 results for \"quokka\"");
    tui.keys(&["G", "n"]);
    tui.wait_for("Result 21 of 25 for \"quokka\"");
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_come_from_keys_toml_in_the_xdg_config_dir() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(&dir.path().join("data"), &[], &[]);
    daemon.sign_up("keys@example.com", "correct horse").await;
    let (_, feed) = daemon.get("/api/news", None).await;
    let t = titles(&feed);
    let xdg = dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("radar")).unwrap();
    let file = xdg.join("radar/keys.toml");

    // A mistake: the reader does not start, and says where and what.
    std::fs::write(&file, "[list]\nhide = [\"d\"]\nfavorite = [\"d\"]\n").unwrap();
    let out = Command::new(radar_bin())
        .args(["tui", "--server", &daemon.base])
        .env_remove("RADAR_CONFIG_DIR")
        .env("XDG_CONFIG_HOME", &xdg)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}, line 3: \"d\" is bound twice in [list]: to hide (line 2) and to favorite",
            file.display()
        )),
        "{stderr}"
    );

    // A good file: d and Delete hide in lists, H is the help, which shows them.
    std::fs::write(
        &file,
        "[list]\nhide = [\"d\", \"Delete\"]\n\n[global]\nhelp = [\"H\"]\n",
    )
    .unwrap();
    let env = format!("RADAR_CONFIG_DIR= XDG_CONFIG_HOME='{}'", xdg.display());
    let tui = Tmux::start_with(&daemon.base, &dir.path().join("unused"), &env);
    tui.wait_for(&t[0]);
    tui.sign_in("keys@example.com", "correct horse");
    tui.wait_for("Welcome back!");
    // The signed-in feed has arrived (its unread count is in the tab): keys act on it.
    tui.wait_for("1 Feed (");
    // x no longer hides: once the help that H opens is up, x has been handled too.
    tui.keys(&["x", "H"]);
    let help = tui.wait_for("hide (Trash: restore)");
    let row = help
        .lines()
        .find(|l| l.contains("hide (Trash: restore)"))
        .unwrap();
    assert!(row.contains("d Del "), "{help}");
    assert!(
        help.lines()
            .any(|l| l.contains(" H ") && l.contains("this help")),
        "{help}"
    );
    tui.keys(&["Escape"]);
    let screen = tui.wait_until("the help closed", |s| !s.contains("hide (Trash: restore)"));
    assert!(selected_row(&screen).contains(&t[0]), "{screen}");
    tui.keys(&["d"]);
    tui.wait_until("the first item hidden", |s| !s.contains(&t[0]));
    assert!(!dir.path().join("unused/keys.toml").exists());
}

/// What an alert found: the tab counts it new, `8` lists it with the alert that found it,
/// and once listed the count goes.
#[tokio::test(flavor = "multi_thread")]
async fn the_alerts_tab_counts_and_lists_what_an_alert_found() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let daemon = Daemon::start_with(&data, &[], &[]);
    let token = daemon.sign_up("watcher@example.com", "correct horse").await;
    let (status, _) = daemon
        .call(
            "POST",
            "/api/alerts",
            Some(&token),
            Some(serde_json::json!({"query": "quokka"})),
        )
        .await;
    assert_eq!(status, 201);
    let added = crate::admin::cli(
        &data,
        &[
            "items",
            "add",
            "--title",
            "A quokka learns to code",
            "--summary",
            "A report.",
            "--url",
            "https://zoo.example/quokka",
        ],
    )
    .await;
    assert_eq!(added.code, 0, "{added:?}");
    let tui = Tmux::start_sized(&daemon.base, &dir.path().join("config"), "", (120, 30));
    tui.wait_for("Not signed in");
    tui.sign_in("watcher@example.com", "correct horse");
    tui.wait_for("8 Alerts (1 new)");
    tui.keys(&["8"]);
    // The feed lists the item too: wait for what only the Alerts tab shows.
    let screen = tui.wait_for("Found by your alert “quokka”");
    assert!(screen.contains("A quokka learns to code"), "{screen}");
    tui.wait_until("the count gone once listed", |s| {
        s.contains("8 Alerts") && !s.contains("(1 new)")
    });
}

/// Trends (issue 28): `T` asks a signed-out reader to sign in; signed in, it shows the
/// term that rose from nothing first among the rising ones, with its sparkline and
/// change, the falling one, and Esc closes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trends_open_with_big_t_and_rank_a_rise_first() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let daemon = Daemon::start_with(&data, &["--no-demo"], &[]);
    let mut all = String::new();
    for week in 0..5 {
        all += &crate::trends::items("Acme Robotics", 40, week * 7 + 1, "");
    }
    all += &crate::trends::items("Zephyr Labs", 12, 2, "");
    for week in 1..5 {
        all += &crate::trends::items("Borealis Systems", 10, week * 7 + 2, "");
    }
    let import = cli_with(&data, &["items", "import", "-", "--json"], &all, &[]).await;
    assert_eq!(import.ok_json()["added"], 200 + 12 + 40);
    daemon.sign_up("reader@example.com", "correct horse").await;
    let config = dir.path().join("config");
    let tui = Tmux::start(&daemon.base, &config);
    tui.wait_for("Not signed in");
    tui.keys(&["T"]);
    tui.wait_for("Sign in to see Trends");
    tui.sign_in("reader@example.com", "correct horse");
    tui.wait_for("4 Favs");
    tui.keys(&["T"]);
    // The feed lists a Zephyr Labs story too: wait for the overlay's own lists.
    let screen = tui.wait_until("the trends", |s| {
        s.contains("Rising") && s.contains("Falling") && s.contains("Borealis Systems")
    });
    let rising = screen.find("Rising").expect("the rising list");
    let falling = screen.find("Falling").expect("the falling list");
    let zephyr = screen.find("Zephyr Labs").unwrap();
    assert!(rising < zephyr && zephyr < falling, "{screen}");
    assert!(
        !screen.contains("Acme Robotics"),
        "steady is neither: {screen}"
    );
    let row = screen.lines().find(|l| l.contains("Zephyr Labs")).unwrap();
    assert!(row.contains("×13") && row.contains("12 this week"), "{row}");
    // The sparkline: seven empty weeks, then a full bar.
    assert!(row.contains('█'), "{row}");
    let borealis = screen.find("Borealis Systems").expect("falling");
    assert!(borealis > falling, "{screen}");
    assert!(
        screen.contains("Story "),
        "a story under each trend: {screen}"
    );
    assert!(screen.contains("Free accounts see the top 3"), "{screen}");
    tui.keys(&["Escape"]);
    tui.wait_until("the overlay closed", |s| !s.contains("Rising"));
}

/// Five outlets' reports of one event (2 to 3 sentences that share most words) and one
/// unrelated item, published in the last hour (grouping looks back 14 days only), as
/// JSON Lines for `radar items import`: (id, URL, headline, summary, minutes ago).
const ONE_EVENT: [(&str, &str, &str, &str, i64); 6] = [
    (
        "amazon-reuters",
        "https://www.reuters.com/a",
        "Amazon to invest another $4 billion in Anthropic",
        "Amazon will invest another $4 billion in Anthropic, doubling its total commitment to \
         $8 billion. Anthropic will train its models on Amazon's Trainium chips. The deal makes \
         AWS Anthropic's primary cloud partner.",
        50,
    ),
    (
        "amazon-techcrunch",
        "https://techcrunch.com/b",
        "Anthropic raises another $4 billion from Amazon",
        "Amazon will invest an additional $4 billion in Anthropic, doubling its total \
         commitment to $8 billion. Anthropic will train its future models on Amazon's Trainium \
         chips. AWS becomes Anthropic's primary cloud and training partner.",
        40,
    ),
    (
        "amazon-verge",
        "https://www.theverge.com/c",
        "Amazon doubles its Anthropic investment to $8 billion",
        "Amazon is investing another $4 billion in Anthropic, doubling its total commitment to \
         $8 billion. In return Anthropic will train its models on Amazon's Trainium chips, with \
         AWS as its primary cloud partner.",
        30,
    ),
    (
        "amazon-bloomberg",
        "https://www.bloomberg.com/d",
        "Amazon adds $4 billion to its Anthropic stake",
        "Amazon will put another $4 billion into Anthropic, doubling its total commitment to \
         $8 billion. Anthropic will train its models on Amazon's Trainium chips and use AWS as \
         its primary cloud partner.",
        20,
    ),
    (
        "amazon-ft",
        "https://www.ft.com/e",
        "Amazon deepens Anthropic ties with fresh $4bn investment",
        "Amazon will invest a further $4 billion in Anthropic, doubling its total commitment \
         to $8 billion. Anthropic agreed to train its models on Amazon's Trainium chips. AWS \
         remains Anthropic's primary cloud partner.",
        10,
    ),
    (
        "octopus-gripper",
        "https://www.wired.com/f",
        "Octopus-inspired gripper lets robots pick fragile fruit",
        "Engineers built a soft robotic gripper modelled on octopus suckers. It picks \
         strawberries and tomatoes without bruising them. The team plans field trials next \
         spring.",
        70,
    ),
];

fn one_event_items() -> String {
    let now = chrono::Utc::now();
    ONE_EVENT
        .iter()
        .map(|(id, url, title, summary, minutes)| {
            let published = now - chrono::Duration::minutes(*minutes);
            serde_json::json!({"id": id, "url": url, "title": title, "summary": summary,
                               "published_date": published.to_rfc3339()})
            .to_string()
                + "\n"
        })
        .collect()
}

/// One card per story (issue: stories): the feed lists five outlets' reports of one event
/// once, with "5 sources", beside the unrelated item; Drops counts them too; the reader
/// lists the other four outlets under "Other sources".
#[tokio::test(flavor = "multi_thread")]
async fn a_story_is_one_card_with_its_sources_and_the_reader_lists_the_other_outlets() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let daemon = Daemon::start_with(&data, &["--no-demo"], &[]);
    let import = cli_with(
        &data,
        &["items", "import", "-", "--json"],
        &one_event_items(),
        &[],
    )
    .await;
    assert_eq!(import.ok_json()["added"], 6);
    // The server's grouping, which the reader draws: the story's card first (newest).
    let (_, feed) = daemon.get("/api/news", None).await;
    let cards = feed["items"].as_array().unwrap();
    assert_eq!(cards.len(), 2, "{feed}");
    let card = &cards[0];
    assert_eq!(card["story"]["sources"], 5, "{feed}");
    let lead = card["title"].as_str().unwrap().to_string();
    let outlets: Vec<(String, String)> = card["story"]["outlets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let name = o["source"].as_str().unwrap_or("Source").to_string();
            (name, o["title"].as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(outlets.len(), 4, "{feed}");
    let names = [
        "Reuters",
        "TechCrunch",
        "The Verge",
        "Bloomberg",
        "Financial Times",
    ];
    assert!(
        outlets
            .iter()
            .all(|(name, _)| names.contains(&name.as_str())),
        "{outlets:?}"
    );
    let unrelated = head(ONE_EVENT[5].2);

    let tui = Tmux::start(&daemon.base, &dir.path().join("config"));
    // The detail pane draws once the story's sources have arrived: wait for it too, or a
    // slow machine reads the screen while the pane is still a skeleton.
    let screen = tui.wait_until("the two cards and the selected story's detail", |s| {
        s.contains(&head(&lead)) && s.contains(&unrelated) && s.matches("5 sources").count() == 2
    });
    // The event once, counted; the other outlets' headlines are not in the feed.
    let row = selected_row(&screen);
    assert!(
        row.contains(&head(&lead)) && row.contains("5 sources"),
        "{screen}"
    );
    for (_, title) in &outlets {
        assert!(!screen.contains(&head(title)), "{title}: {screen}");
    }
    let other = screen.lines().find(|l| l.contains(&unrelated)).unwrap();
    assert!(!other.contains("sources"), "{screen}");
    assert_eq!(
        screen.matches("5 sources").count(),
        2,
        "row and detail: {screen}"
    );

    // Drops starts at the story: its source and count.
    tui.keys(&["2"]);
    tui.wait_until("the story in Drops", |s| {
        s.contains("1 / 2") && s.contains(" · 5 sources")
    });
    tui.keys(&["1"]);
    tui.wait_until("the feed again", |s| selected_row(s).contains(&head(&lead)));

    // The reader: the other four outlets, each with its headline, under the heading.
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Other sources");
    let heading = screen.find("Other sources").unwrap();
    for (name, title) in &outlets {
        let line = format!("{name} — {title}");
        let at = screen
            .find(&line)
            .unwrap_or_else(|| panic!("{line:?}: {screen}"));
        assert!(at > heading, "{line:?} under the heading: {screen}");
    }
    assert!(screen.contains("5 sources"), "{screen}");
}

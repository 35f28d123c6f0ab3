//! A full disk is an answer, not an outage, and start-up errors name their real cause.
//! Regression tests of "Nothing acknowledged is ever lost", points 3 and 4: before, a
//! full disk made every write and `GET /api/news` answer 500 until a restart, a restart
//! on the full disk was refused, SIGTERM then exited 1, and every start-up error asked
//! whether another `radar serve` was using the data directory.
//!
//! The full disk is a small tmpfs mounted on the data directory itself (so the daemon's
//! log, beside it, stays on the real disk), filled by this test as another process
//! would. Mounting needs root: without it the tests print why and skip, unless `CI` is
//! set, where they fail.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Daemon, answer, radar};

/// The space guard's reserve in these tests (`--disk-reserve-mb`); the ballast is a
/// quarter of it.
const RESERVE_MB: &str = "8";

/// A tmpfs mounted on a fresh directory; unmounted when dropped, also when a test fails.
struct Tmpfs {
    _root: tempfile::TempDir,
    /// The mount point, used as the data directory.
    dir: PathBuf,
}

impl Tmpfs {
    /// Mounts `size_mb` MiB, or answers `None` (after saying why) where mounting is not
    /// allowed and `CI` is unset.
    fn mount(size_mb: u32) -> Option<Tmpfs> {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size_mb}m,mode=0700")])
            .arg("tmpfs")
            .arg(&dir)
            .output();
        let refused = match out {
            Ok(o) if o.status.success() => None,
            Ok(o) => Some(String::from_utf8_lossy(&o.stderr).into_owned()),
            Err(e) => Some(e.to_string()),
        };
        if let Some(why) = refused {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set and a tmpfs cannot be mounted for the full-disk tests: {why}"
            );
            eprintln!("skipped: cannot mount a tmpfs (needs root): {why}");
            return None;
        }
        Some(Tmpfs { _root: root, dir })
    }

    /// Fills the disk as another process would: writes until the disk refuses.
    fn fill(&self) -> PathBuf {
        let path = self.dir.join("filler");
        let mut f = std::fs::File::create(&path).unwrap();
        let chunk = vec![0xa5u8; 64 * 1024];
        loop {
            match f.write_all(&chunk) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(28) => break,
                Err(e) => panic!("filling the disk: {e}"),
            }
        }
        // Whatever is left is smaller than a chunk: take it too.
        for size in [4096usize, 512, 1] {
            while f.write_all(&vec![0u8; size]).is_ok() {}
        }
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            // Something still holds a file there: detach it now, it goes once released.
            let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        }
    }
}

/// Starts the daemon with the demo items and the tests' reserve.
fn start(data: &Path) -> Daemon {
    Daemon::start_with(data, &["--disk-reserve-mb", RESERVE_MB], &[])
}

/// A request's status, Retry-After header and JSON body.
async fn send(
    d: &Daemon,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Option<String>, Value) {
    let mut req = d.http.request(method.parse().unwrap(), d.url(path));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req = req.header("apikey", &d.anon_key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.unwrap();
    let retry = res
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let (status, body) = answer(res).await;
    (status, retry, body)
}

/// Asserts a 507 `storage_full` with Retry-After, in the daemon's shape or the auth
/// service's initial form (`error_code`, `msg`).
fn assert_full(got: &(u16, Option<String>, Value)) {
    let (status, retry, body) = got;
    assert_eq!(*status, 507, "{body}");
    let code = body["error"].as_str().or(body["error_code"].as_str());
    assert_eq!(code, Some("storage_full"), "{body}");
    let message = body["message"].as_str().or(body["msg"].as_str());
    assert!(
        message.is_some_and(|m| m.contains("disk is full")),
        "{body}"
    );
    let secs: u64 = retry.as_deref().expect("Retry-After").parse().unwrap();
    assert!(secs > 0);
}

/// Runs `radar ARGS` on `data` (through the daemon's socket when one runs), with a
/// deadline; answers (success, stdout, stderr).
fn run(data: &Path, args: &[&str]) -> (bool, String, String) {
    let child = radar(data)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("radar {args:?} did not finish in 60 s"))
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An import file (on the real disk) of one item titled `title`.
fn import_file(dir: &Path, title: &str) -> PathBuf {
    let path = dir.join(format!("{title}.jsonl"));
    let record = json!({
        "title": title,
        "summary": "An item imported while the disk was full or after.",
        "published_date": "2026-01-02T03:04:05Z",
        "url": format!("https://example.com/{title}"),
    });
    std::fs::write(&path, format!("{record}\n")).unwrap();
    path
}

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .or(body["items"].as_array())
        .unwrap_or_else(|| panic!("no items in {body}"))
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_full_disk_answers_507_to_writes_keeps_reads_and_writes_resume_without_a_restart() {
    if crate::util::embedded_only(
        "the embedded store's disk guard; PostgreSQL's disk is the database's",
    ) {
        return;
    }
    let Some(disk) = Tmpfs::mount(40) else { return };
    let files = tempfile::tempdir().unwrap();
    let d = start(&disk.dir);
    let ada = d.sign_up("ada@example.com", "password1").await;
    let (_, _, feed) = send(&d, "GET", "/api/news", Some(&ada), None).await;
    let feed = ids(&feed);
    let (first, second) = (&feed[0], &feed[1]);
    let (status, _, body) = send(
        &d,
        "POST",
        &format!("/api/favorites/{first}"),
        Some(&ada),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(disk.dir.join("reserve").exists(), "the ballast is kept");

    let filler = disk.fill();

    // Writes of every surface: a mark, a sign-up (the auth service's shape), an import
    // through the admin socket.
    let fav = format!("/api/favorites/{second}");
    assert_full(&send(&d, "POST", &fav, Some(&ada), None).await);
    let grace = json!({"email": "grace@example.com", "password": "password1"});
    assert_full(&send(&d, "POST", "/auth/v1/signup", None, Some(grace.clone())).await);
    let while_full = import_file(files.path(), "while-full");
    let (ok, _, err) = run(
        &disk.dir,
        &["items", "import", while_full.to_str().unwrap()],
    );
    assert!(!ok, "an import on a full disk succeeded");
    assert!(
        err.contains(&format!("the disk holding {} is full", disk.dir.display())),
        "{err}"
    );
    assert!(
        !disk.dir.join("reserve").exists(),
        "the ballast was not given back"
    );

    // Reads go on: the anonymous feed, a signed-in feed, a reader's favourites.
    let (status, _, body) = send(&d, "GET", "/api/news", None, None).await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = send(&d, "GET", "/api/news", Some(&ada), None).await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = send(&d, "GET", "/api/favorites", Some(&ada), None).await;
    assert_eq!((status, ids(&body)), (200, vec![first.clone()]), "{body}");

    // Space comes back: writes resume by themselves.
    std::fs::remove_file(&filler).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = send(&d, "POST", &fav, Some(&ada), None).await;
        if got.0 == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "writes did not resume: {got:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, _, body) = send(&d, "POST", "/auth/v1/signup", None, Some(grace)).await;
    assert_eq!(status, 200, "{body}");
    let after = import_file(files.path(), "after-space-came-back");
    let (ok, out, err) = run(&disk.dir, &["items", "import", after.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(disk.dir.join("reserve").exists(), "the ballast is back");

    // Everything answered 2xx is there after a restart, and nothing answered 507 is.
    d.stop();
    let d = start(&disk.dir);
    let ada = d.sign_in("ada@example.com", "password1").await;
    let (_, _, body) = send(&d, "GET", "/api/favorites", Some(&ada), None).await;
    let mut favs = ids(&body);
    favs.sort();
    let mut want = vec![first.clone(), second.clone()];
    want.sort();
    assert_eq!(favs, want);
    d.sign_in("grace@example.com", "password1").await;
    let (ok, listed, err) = run(&disk.dir, &["items", "list", "--limit", "1000", "--json"]);
    assert!(ok, "{err}");
    assert!(listed.contains("after-space-came-back"), "{listed}");
    assert!(!listed.contains("while-full"), "{listed}");
    d.stop();
}

#[tokio::test]
async fn a_start_on_a_full_disk_serves_reads_says_so_once_and_stops_with_status_0() {
    if crate::util::embedded_only(
        "the embedded store's disk guard; PostgreSQL's disk is the database's",
    ) {
        return;
    }
    let Some(disk) = Tmpfs::mount(40) else { return };
    let d = start(&disk.dir);
    let ada = d.sign_up("ada@example.com", "password1").await;
    d.stop();
    disk.fill();

    let d = start(&disk.dir);
    let log = std::fs::read_to_string(&d.log).unwrap();
    let said: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("refusing writes"))
        .collect();
    assert_eq!(said.len(), 1, "{log}");
    assert!(said[0].contains("is full"), "{log}");
    let (status, _, body) = send(&d, "GET", "/api/news", None, None).await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = send(&d, "GET", "/api/news", Some(&ada), None).await;
    assert_eq!(status, 200, "{body}");
    let item = &ids(&body)[0];
    assert_full(
        &send(
            &d,
            "POST",
            &format!("/api/favorites/{item}"),
            Some(&ada),
            None,
        )
        .await,
    );
    // Stops cleanly (status 0) though its last flush may find no room.
    d.stop();
}

#[test]
fn a_new_store_on_a_full_disk_is_refused_naming_the_full_disk() {
    let Some(disk) = Tmpfs::mount(8) else { return };
    disk.fill();
    let (ok, _, err) = run(&disk.dir, &["serve", "--addr", "127.0.0.1:0", "--no-demo"]);
    assert!(!ok, "radar serve started a new store on a full disk");
    let error = err.lines().find(|l| l.starts_with("error:"));
    assert!(
        error.unwrap_or_default().starts_with(&format!(
            "error: the disk holding {} is full: free space there and start again",
            disk.dir.display()
        )),
        "{err}"
    );
    assert!(!err.contains("another `radar serve`"), "{err}");
}

#[test]
fn a_file_where_the_search_folder_belongs_is_named_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("search"), "not a folder").unwrap();
    let (ok, _, err) = run(&data, &["serve", "--addr", "127.0.0.1:0", "--no-demo"]);
    assert!(!ok, "radar serve started with a file as DATA/search");
    assert!(
        err.starts_with(&format!(
            "error: {} is a file, where Radar keeps the search index in a folder: move that \
             file away",
            data.join("search").display()
        )),
        "{err}"
    );
    assert!(!err.contains("another `radar serve`"), "{err}");
}

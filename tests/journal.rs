//! Nothing acknowledged is lost: a favourite acknowledged on an item of an import still
//! in progress survives a kill -9 with its item, and a start that finds the journal of
//! marks deleted refuses, naming how many changes, unless told to accept the loss.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::admin::cli;
use crate::util::{Daemon, ids, radar};

fn start(data: &Path) -> Daemon {
    Daemon::start_with(data, &["--no-demo", "--no-feed-polling"], &[])
}

/// A JSON Lines file of `n` items with ids `{prefix}-0` ... `{prefix}-{n-1}`.
fn items_file(path: &Path, prefix: &str, n: usize) {
    let lines: String = (0..n)
        .map(|i| {
            format!(
                "{}\n",
                json!({
                    "id": format!("{prefix}-{i}"),
                    "title": format!("Story {prefix} {i}"),
                    "summary": format!("A summary of story {i} of batch {prefix}."),
                    "url": format!("https://{prefix}.example/{i}"),
                    "published_date": format!("2026-05-{:02}T{:02}:00:00Z", 1 + i % 28, i % 24),
                })
            )
        })
        .collect();
    std::fs::write(path, lines).unwrap();
}

#[tokio::test]
async fn a_favourite_acknowledged_during_an_import_survives_kill_9_with_its_item() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut d = start(&data);
    // The signing secret is kept in the data directory, so the token outlives restarts.
    let token = d.sign_up("mark@example.com", "secret-password").await;
    let items = 2500;
    let mut won_the_race = 0;
    for trial in 0..20 {
        let prefix = format!("t{trial}");
        let file = tmp.path().join(format!("{prefix}.jsonl"));
        items_file(&file, &prefix, items);
        let late = format!("{prefix}-{}", items - 1);
        let mut import = tokio::process::Command::from(radar(&data));
        let mut import = import
            .args(["items", "import"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Mark the last item as soon as it exists, then crash at once.
        let deadline = Instant::now() + Duration::from_secs(60);
        let path = format!("/api/favorites/{late}");
        loop {
            let (status, body) = d.call("POST", &path, Some(&token), None).await;
            if status == 200 {
                break;
            }
            assert_eq!(status, 404, "trial {trial}: {body}");
            assert!(
                Instant::now() < deadline,
                "trial {trial}: the import never wrote {late}"
            );
        }
        if import.try_wait().unwrap().is_none() {
            won_the_race += 1;
        }
        d.crash();
        let _ = import.wait().await;

        d = start(&data);
        let (status, body) = d.get(&format!("/api/news/{late}"), Some(&token)).await;
        assert_eq!(
            status, 200,
            "trial {trial}: the marked item is lost: {body}"
        );
        let (status, favourites) = d.get("/api/favorites", Some(&token)).await;
        assert_eq!(status, 200, "{favourites}");
        let favourites = ids(&favourites);
        for t in 0..=trial {
            let want = format!("t{t}-{}", items - 1);
            assert!(
                favourites.contains(&want),
                "trial {trial}: the favourite of {want} is lost: {favourites:?}"
            );
        }
    }
    // The import was still running when the mark was answered in some trials: the case
    // under test happened (its process ends only after the store is flushed).
    assert!(
        won_the_race > 0,
        "every import ended before its item was marked"
    );
}

/// Runs `radar serve` expecting it to refuse to start; answers its stderr.
fn serve_refuses(data: &Path, args: &[&str]) -> String {
    let mut child = radar(data)
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--no-demo",
            "--no-feed-polling",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(!status.success(), "serve exited cleanly: {stderr}");
            return stderr;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("radar serve started without its journal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The number of acknowledged changes the refusal names.
fn assert_names_the_loss(stderr: &str) {
    assert!(stderr.contains("--accept-journal-loss"), "{stderr}");
    assert!(stderr.contains("is missing"), "{stderr}");
    let count = stderr
        .split("the database holds ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok());
    assert!(count.is_some(), "no count in: {stderr}");
}

#[tokio::test]
async fn a_deleted_journal_refuses_the_start_naming_the_count_until_the_loss_is_accepted() {
    if crate::util::embedded_only("the embedded store's journal file") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let d = start(&data);
    let token = d.sign_up("gone@example.com", "secret-password").await;
    let file = tmp.path().join("items.jsonl");
    items_file(&file, "j", 20);
    assert_eq!(
        cli(&data, &["items", "import", file.to_str().unwrap()])
            .await
            .code,
        0
    );
    for i in 0..10 {
        let (status, body) = d
            .call("POST", &format!("/api/favorites/j-{i}"), Some(&token), None)
            .await;
        assert_eq!(status, 200, "{body}");
    }
    d.crash();
    std::fs::remove_dir_all(data.join("journal")).unwrap();

    assert_names_the_loss(&serve_refuses(&data, &[]));
    // Offline admin commands open the store too, and refuse the same way.
    let listed = cli(&data, &["users", "list", "--json"]).await;
    assert_ne!(listed.code, 0, "{listed:?}");
    assert_names_the_loss(&listed.stderr);
    assert!(data.join("db").is_dir(), "nothing was removed");

    // With the flag the daemon starts on what the store holds...
    let d = Daemon::start_with(
        &data,
        &["--no-demo", "--no-feed-polling", "--accept-journal-loss"],
        &[],
    );
    let (status, _) = d.get("/api/favorites", Some(&token)).await;
    assert_eq!(status, 200);
    let (status, body) = d
        .call("POST", "/api/favorites/j-15", Some(&token), None)
        .await;
    assert_eq!(status, 200, "{body}");
    d.crash();
    // ...and so does an offline command, with the variable.
    std::fs::remove_dir_all(data.join("journal")).unwrap();
    assert_names_the_loss(&serve_refuses(&data, &[]));
    let listed = crate::admin::cli_with(
        &data,
        &["users", "list", "--json"],
        "",
        &[("RADAR_ACCEPT_JOURNAL_LOSS", "1")],
    )
    .await;
    assert_eq!(listed.code, 0, "{listed:?}");
    // Once accepted, the store starts again without the flag.
    start(&data).stop();
}

/// The daemon knows which items exist without reading them (it reads their ids when it
/// starts, and keeps those its marks confirm): an item removed while it runs is still
/// refused, and so is one that never existed.
#[tokio::test]
async fn a_removed_item_cannot_be_favourited_though_the_daemon_knew_it() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("items.jsonl");
    items_file(&file, "k", 50);
    assert_eq!(
        cli(&data, &["items", "import", file.to_str().unwrap()])
            .await
            .code,
        0
    );
    let d = start(&data);
    let token = d.sign_up("known@example.com", "secret-password").await;
    let (status, body) = d
        .call("POST", "/api/favorites/k-7", Some(&token), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(cli(&data, &["items", "remove", "k-7"]).await.code, 0);
    for path in [
        "/api/favorites/k-7",
        "/api/read/k-7",
        "/api/favorites/k-nope",
    ] {
        let (status, body) = d.call("POST", path, Some(&token), None).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let (status, body) = d.call("POST", "/api/hidden/k-8", Some(&token), None).await;
    assert_eq!(status, 200, "{body}");
}

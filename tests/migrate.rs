//! `radar migrate` (issue 31): an install moved from a data directory to PostgreSQL and
//! back keeps its readers, their passwords, marks and API keys, and its feed; a running
//! daemon on the source and a target that holds data are refused.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use crate::util::{Daemon, embedded_only, ids, radar};

const READER: &str = "ada@example.com";
const PASSWORD: &str = "a long passphrase";

/// `radar migrate --from FROM --to TO`, with a data directory of its own that it never
/// uses.
fn migrate(scratch: &Path, from: &str, to: &str) -> Output {
    radar(&scratch.join("unused"))
        .args(["migrate", "--from", from, "--to", to])
        .output()
        .unwrap()
}

fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "radar migrate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn refused(out: &Output, why: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "radar migrate should have failed");
    assert!(stderr.contains(why), "{stderr}");
}

/// The reader's favourites, the feed's first page and whether their API key works.
async fn reader_view(d: &Daemon, key: &str) -> (Vec<String>, Vec<String>, u16) {
    let token = d.sign_in(READER, PASSWORD).await;
    let (status, favs) = d.get("/api/favorites", Some(&token)).await;
    assert_eq!(status, 200, "{favs}");
    let (status, feed) = d.get("/api/news", Some(&token)).await;
    assert_eq!(status, 200, "{feed}");
    let api = d
        .http
        .get(d.url("/api/v1/news"))
        .header("x-api-key", key)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16();
    (ids(&favs), ids(&feed["items"]), api)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_install_moves_to_postgres_and_back() {
    if embedded_only("it moves a data directory") {
        return;
    }
    let Some(database) = radar_store::postgres_testing::database() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data_arg = data.to_str().unwrap();
    let args = ["--complimentary", READER];
    let d = Daemon::start_with(&data, &args, &[]);
    let token = d.sign_up(READER, PASSWORD).await;
    let (_, feed) = d.get("/api/news", Some(&token)).await;
    let favourite = ids(&feed["items"])[2].clone();
    let fav = d
        .call(
            "POST",
            &format!("/api/favorites/{favourite}"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(fav.0, 200, "{}", fav.1);
    let (_, key) = d.get("/api/key", Some(&token)).await;
    let key = key["apiKey"].as_str().unwrap().to_string();
    let before = reader_view(&d, &key).await;
    assert_eq!(before.0, [favourite]);
    assert_eq!(before.2, 200);

    refused(
        &migrate(dir.path(), data_arg, &database.url),
        "stop it first",
    );
    d.stop();

    let out = succeeded(&migrate(dir.path(), data_arg, &database.url));
    assert!(out.contains("accounts") && out.contains("items"), "{out}");
    let node = dir.path().join("node");
    let store_args = ["--store", &database.url, "--complimentary", READER];
    let pg = Daemon::start_with(&node, &store_args, &[]);
    assert_eq!(reader_view(&pg, &key).await, before);
    pg.stop();
    refused(
        &migrate(dir.path(), data_arg, &database.url),
        "already holds data",
    );

    let back = dir.path().join("back");
    succeeded(&migrate(dir.path(), &database.url, back.to_str().unwrap()));
    for (path, mode) in [(back.clone(), 0o700), (back.join("jwt_secret"), 0o600)] {
        let got = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(got, mode, "{}", path.display());
    }
    let d = Daemon::start_with(&back, &args, &[]);
    assert_eq!(reader_view(&d, &key).await, before);
    d.stop();
}

//! The web app served from inside the binary: routes, deep links, the 404 status, cache
//! headers and compression. (The app's own behaviour is tested in a browser under web/e2e.)

use crate::util::{Daemon, assert_error};

/// The first `/assets/...js` path referenced by the served index.html.
fn first_script(index: &str) -> String {
    let start = index
        .find("/assets/")
        .expect("index.html references hashed assets: build the web app first (make web)");
    let rest = &index[start..];
    rest[..rest.find('"').unwrap()].to_string()
}

#[tokio::test]
async fn app_routes_deep_links_and_unknown_paths() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    for path in [
        "/",
        "/app",
        "/weekly-summary/abc",
        "/reset-password",
        "/auth/callback",
    ] {
        let res = d.http.get(d.url(path)).send().await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["cache-control"], "no-cache", "{path}");
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        assert!(
            res.text().await.unwrap().contains("<div id=\"root\""),
            "{path} serves the app"
        );
    }
    // Unknown paths still load the app (which shows its 404 page), with status 404.
    let res = d.http.get(d.url("/no/such/page")).send().await.unwrap();
    assert_eq!(res.status(), 404);
    assert!(res.text().await.unwrap().contains("<div id=\"root\""));
    // Unknown API paths stay JSON.
    assert_error(&d.get("/api/no/such/endpoint", None).await, 404);
}

#[tokio::test]
async fn hashed_assets_are_cached_for_a_year_and_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let index = d
        .http
        .get(d.url("/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let script = first_script(&index);
    let res = d
        .http
        .get(d.url(&script))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    assert_eq!(res.headers()["content-encoding"], "gzip");
}

/// What makes the app installable and readable offline: the manifest, the service worker
/// (never cached, so a new one is found at once), and `/index.html`, which the worker keeps
/// to start the app offline, served with the configuration in it like every route.
#[tokio::test]
async fn the_manifest_the_service_worker_and_the_kept_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let page = d
        .http
        .get(d.url("/index.html?__WB_REVISION__=x"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("id=\"radar-config\""), "{html}");
    assert!(html.contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\">"));

    let manifest = d
        .http
        .get(d.url("/manifest.webmanifest"))
        .send()
        .await
        .unwrap();
    assert_eq!(manifest.status(), 200);
    let manifest: serde_json::Value = manifest.json().await.unwrap();
    assert_eq!(manifest["name"], "Radar");
    assert_eq!(manifest["start_url"], "/app");
    assert_eq!(manifest["display"], "standalone");
    for icon in manifest["icons"].as_array().unwrap() {
        let src = icon["src"].as_str().unwrap();
        let res = d.http.get(d.url(src)).send().await.unwrap();
        assert_eq!(res.status(), 200, "{src}");
        assert_eq!(res.headers()["content-type"], "image/png", "{src}");
    }

    let worker = d.http.get(d.url("/sw.js")).send().await.unwrap();
    assert_eq!(worker.status(), 200);
    assert_eq!(worker.headers()["cache-control"], "no-cache");
    assert!(
        worker.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    assert!(worker.text().await.unwrap().contains("radar-api"));
}

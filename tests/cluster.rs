//! Several `radar serve` over one PostgreSQL database (issue 31): whatever node a
//! request reaches, it sees what every other node and every admin command wrote, and
//! the limits that must be global (API quotas, the sign-in limiter) count once for the
//! whole install. Each test starts its own daemons on a fresh database of the tests'
//! throwaway PostgreSQL server, each daemon with a data directory of its own (its search
//! replica). No sleeps: every check is the next request after the write it looks for,
//! except for stories, which one process groups for all a second or so behind the writes:
//! that test asks again until they are there.

use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use crate::util::{Daemon, answer, ids, on_postgres, radar};

/// A database and `n` daemons serving it, each on its own data directory.
struct Cluster {
    // Declared first, dropped first: the daemons stop before their database goes.
    nodes: Vec<Daemon>,
    url: String,
    dir: TempDir,
    database: radar_store::postgres_testing::TestDatabase,
}

/// These tests always run on PostgreSQL: the suite's second pass on it
/// (`RADAR_TEST_STORE=postgres`, `make test-postgres`) would run them again for nothing.
fn already_ran() -> bool {
    if on_postgres() {
        eprintln!("the cluster tests run on PostgreSQL in the first pass already");
    }
    on_postgres()
}

impl Cluster {
    /// Starts `n` daemons on a fresh database with `args`, or answers `None` where
    /// PostgreSQL is not installed (and `CI` is not set: there it panics).
    fn start(n: usize, args: &[&str]) -> Option<Cluster> {
        let mut c = Cluster::empty()?;
        c.add_nodes(n, args, &[]);
        Some(c)
    }

    /// A fresh database with no daemon yet (for admin commands to prepare it), or `None`
    /// as [`Cluster::start`].
    fn empty() -> Option<Cluster> {
        if already_ran() {
            return None;
        }
        let database = radar_store::postgres_testing::database()?;
        Some(Cluster {
            nodes: Vec::new(),
            url: database.url.clone(),
            dir: TempDir::new().unwrap(),
            database,
        })
    }

    /// Starts `n` daemons one after the other, each on its own data directory, with
    /// `args` and `envs`.
    fn add_nodes(&mut self, n: usize, args: &[&str], envs: &[(&str, &str)]) {
        for _ in 0..n {
            let data = self.dir.path().join(format!("node{}", self.nodes.len()));
            let mut all = vec!["--no-demo", "--store", &self.url];
            all.extend_from_slice(args);
            self.nodes.push(Daemon::start_with(&data, &all, envs));
        }
    }

    /// `radar --store URL ARGS…`, run as an operator would on any machine: with a data
    /// directory of its own that holds nothing. Panics unless it succeeds.
    fn admin(&self, args: &[&str]) -> String {
        self.admin_in(&self.dir.path().join("admin"), args)
    }

    /// Runs `radar ARGS` on the database with `data` as its data directory: through the
    /// daemon serving `data` when one does.
    fn admin_in(&self, data: &Path, args: &[&str]) -> String {
        let mut cmd = radar(data);
        cmd.env("RADAR_STORE", &self.url);
        let out = cmd.args(args).output().unwrap();
        assert!(
            out.status.success(),
            "radar {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// Writes `n` items for `radar items import` whose titles all hold `word`.
fn import_file(dir: &Path, word: &str, n: usize) -> String {
    let path = dir.join(format!("{word}.jsonl"));
    let lines: Vec<String> = (0..n)
        .map(|i| {
            serde_json::json!({
                "title": format!("{word} story {i}"),
                "summary": format!("What happened to {word} on day {i}."),
                "url": format!("https://{word}.example/{i}"),
                "published_date": format!("2026-11-{:02}T09:00:00Z", 1 + i),
            })
            .to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    path.to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_node_serves_one_install() {
    let Some(c) = Cluster::start(3, &["--complimentary", "sub@example.com"]) else {
        return;
    };
    let [a, b, n3] = &c.nodes[..] else {
        unreachable!()
    };
    for node in &c.nodes {
        let (status, body) = node.get("/api/health/ready", None).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["store"], "postgres");
    }

    // Items imported by a command on the database, no daemon involved, are in every
    // node's feed and search once it has exited.
    let file = import_file(c.dir.path(), "zeppelin", 8);
    c.admin(&["items", "import", &file]);
    let token = a.sign_up("sub@example.com", "a long passphrase").await;
    for node in &c.nodes {
        let (status, feed) = node.get("/api/news", Some(&token)).await;
        assert_eq!(status, 200, "{feed}");
        assert_eq!(feed["items"].as_array().unwrap().len(), 8, "{feed}");
        let (status, found) = node.get("/api/search?q=zeppelin", Some(&token)).await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["total"], 8, "{found}");
    }

    // Signed up through one node, signed in through another; each token works on all.
    let again = b.sign_in("sub@example.com", "a long passphrase").await;
    for t in [&token, &again] {
        for node in &c.nodes {
            assert_eq!(node.get("/api/favorites", Some(t)).await.0, 200);
        }
    }

    // A mark made on one node is in every node's lists on the next request, and takes
    // the item out of every node's feed.
    let (_, feed) = a.get("/api/news", Some(&token)).await;
    let first = ids(&feed["items"])[0].clone();
    let (status, body) = b
        .call("POST", &format!("/api/hidden/{first}"), Some(&token), None)
        .await;
    assert!(status < 300, "{status} {body}");
    for node in &c.nodes {
        let (_, hidden) = node.get("/api/hidden", Some(&again)).await;
        assert_eq!(ids(&hidden), vec![first.clone()], "{hidden}");
        let (_, feed) = node.get("/api/news", Some(&again)).await;
        assert!(!ids(&feed["items"]).contains(&first));
        // Search leaves hidden items out on every node too.
        let (_, found) = node.get("/api/search?q=zeppelin", Some(&again)).await;
        assert_eq!(found["total"], 7, "{found}");
    }

    // An item written through one node's admin socket is found by a search on the others
    // (their replicas follow the database's change log).
    c.admin_in(
        &a.data,
        &[
            "items",
            "add",
            "--title",
            "Quokka sighting",
            "--summary",
            "A rare quokka.",
            "--url",
            "https://quokka.example/1",
        ],
    );
    for node in [b, n3] {
        let (_, found) = node.get("/api/search?q=quokka", Some(&token)).await;
        assert_eq!(found["total"], 1, "{found}");
    }
}

/// Trends need no job: every node counts from the same change log, so each answers the
/// same ranking after a write made anywhere, and a node started later counts the same
/// from the items of the last weeks.
#[tokio::test(flavor = "multi_thread")]
async fn every_node_ranks_the_same_trends() {
    let Some(mut c) = Cluster::start(2, &[]) else {
        return;
    };
    let mut all = String::new();
    for week in 0..5 {
        all += &crate::trends::items("Acme Robotics", 40, week * 7 + 1, "");
    }
    all += &crate::trends::items("Zephyr Labs", 12, 2, "");
    let path = c.dir.path().join("trends.jsonl");
    std::fs::write(&path, all).unwrap();
    c.admin(&["items", "import", path.to_str().unwrap()]);
    let token = c.nodes[0]
        .sign_up("reader@example.com", "a long passphrase")
        .await;
    let rising = |page: &Value| page["rising"].clone();
    let (_, first) = c.nodes[0].get("/api/trends", Some(&token)).await;
    assert_eq!(first["rising"][0]["term"], "Zephyr Labs", "{first}");
    assert_eq!(first["rising"][0]["thisWeek"], 12, "{first}");
    let (_, second) = c.nodes[1].get("/api/trends", Some(&token)).await;
    assert_eq!(rising(&second), rising(&first));

    // A removal through one node's socket is taken back on both.
    c.admin_in(&c.nodes[0].data, &["items", "remove", "zephyr-labs-2-0"]);
    for node in &c.nodes {
        let (_, page) = node.get("/api/trends", Some(&token)).await;
        assert_eq!(page["rising"][0]["thisWeek"], 11, "{page}");
    }
    let (_, now) = c.nodes[1].get("/api/trends", Some(&token)).await;
    c.add_nodes(1, &[], &[]);
    let (_, late) = c.nodes[2].get("/api/trends", Some(&token)).await;
    assert_eq!(rising(&late), rising(&now));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_free_api_quota_is_exact_across_nodes() {
    let Some(c) = Cluster::start(2, &[]) else {
        return;
    };
    let [a, b] = &c.nodes[..] else { unreachable!() };
    let token = a.sign_up("free@example.com", "a long passphrase").await;
    let key = b.get("/api/key", Some(&token)).await.1["apiKey"]
        .as_str()
        .expect("the key")
        .to_string();
    // 60 calls to each node at once: the free quota of 100 a day gives exactly 20 429s.
    let mut calls = Vec::new();
    for _ in 0..60 {
        for node in [a, b] {
            let req = node
                .http
                .get(node.url("/api/v1/news?limit=1"))
                .header("X-API-Key", &key);
            calls.push(tokio::spawn(async move {
                answer(req.send().await.unwrap()).await.0
            }));
        }
    }
    let mut statuses = Vec::new();
    for call in calls {
        statuses.push(call.await.unwrap());
    }
    let refused = statuses.iter().filter(|s| **s == 429).count();
    let served = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!((served, refused), (100, 20), "{statuses:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sign_in_limiter_counts_across_nodes() {
    let Some(c) = Cluster::start(3, &["--sign-in-rate", "4"]) else {
        return;
    };
    c.nodes[0]
        .sign_up("limited@example.com", "a long passphrase")
        .await;
    // Four wrong passwords, spread over the nodes, use up the minute's allowance for
    // this e-mail: the fifth attempt is refused wherever it lands, even a right one.
    for i in 0..4 {
        let node = &c.nodes[i % 3];
        let status = sign_in_status(node, "limited@example.com", "wrong").await;
        assert_eq!(status, 400, "attempt {i}");
    }
    for node in &c.nodes {
        let status = sign_in_status(node, "limited@example.com", "a long passphrase").await;
        assert_eq!(status, 429);
    }
}

/// What the stand-ins for the outside world (feeds and an LLM) were asked, by path.
#[derive(Default)]
struct Asked(std::sync::Mutex<std::collections::HashMap<String, usize>>);

impl Asked {
    fn count(&self, path: &str) {
        *self.0.lock().unwrap().entry(path.to_string()).or_default() += 1;
    }

    fn times(&self, path: &str) -> usize {
        self.0.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

/// Feeds at `/feed/N.xml` (one item each) and an LLM at `/v1/chat/completions`, each
/// answering after `delay` so that work started by one node is still under way when the
/// others look for it. Answers the base URL.
async fn outside_world(asked: std::sync::Arc<Asked>, delay: std::time::Duration) -> String {
    use axum::extract::{Path as UrlPath, State};
    use axum::routing::{get, post};
    async fn feed(
        State((asked, delay)): State<(std::sync::Arc<Asked>, std::time::Duration)>,
        UrlPath(name): UrlPath<String>,
    ) -> ([(&'static str, &'static str); 1], String) {
        asked.count(&format!("/feed/{name}"));
        tokio::time::sleep(delay).await;
        let rss = format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Feed {name}</title>\
             <item><title>Story of feed {name}</title><link>https://feeds.example/{name}</link>\
             <description>What feed {name} reported.</description></item></channel></rss>"
        );
        ([("content-type", "application/rss+xml")], rss)
    }
    async fn chat(
        State((asked, delay)): State<(std::sync::Arc<Asked>, std::time::Duration)>,
    ) -> axum::Json<Value> {
        asked.count("/v1/chat/completions");
        tokio::time::sleep(delay).await;
        axum::Json(
            serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant",
            "content": "Title: Airships return\nThe gist of the week.\n\nAirships paragraph."}}]}),
        )
    }
    let app = axum::Router::new()
        .route("/feed/{name}", get(feed))
        .route("/v1/chat/completions", post(chat))
        .with_state((asked, delay));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

/// `radar feeds list --json` on the database.
fn feeds(c: &Cluster) -> Vec<Value> {
    let list: Value = serde_json::from_str(&c.admin(&["feeds", "list", "--json"])).unwrap();
    list.as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_due_feed_is_fetched_once_and_the_weekly_summary_written_once() {
    let Some(mut c) = Cluster::empty() else {
        return;
    };
    let asked = std::sync::Arc::new(Asked::default());
    let base = outside_world(asked.clone(), std::time::Duration::from_secs(3)).await;
    // Before any node runs: four feeds, all due, and items of last week to summarise.
    for n in 0..4 {
        c.admin(&["feeds", "add", &format!("{base}/feed/{n}.xml")]);
    }
    let last_week = (chrono::Utc::now() - chrono::Duration::days(7)).to_rfc3339();
    let lines: Vec<String> = (0..3)
        .map(|i| {
            serde_json::json!({"title": format!("Airship story {i}"),
                "summary": format!("An airship flew on day {i}."),
                "url": format!("https://airships.example/{i}"), "published_date": last_week})
            .to_string()
        })
        .collect();
    let file = c.dir.path().join("last-week.jsonl");
    std::fs::write(&file, lines.join("\n")).unwrap();
    c.admin(&["items", "import", file.to_str().unwrap()]);

    // Three daemons, each polling and running the summary schedule from its start. Each
    // answer takes 3 s, so the later nodes start while the first one's work is under way.
    let llm = format!("{base}/v1");
    let env = [
        ("RADAR_LLM_URL", llm.as_str()),
        ("RADAR_LLM_MODEL", "test-model"),
        ("RADAR_LLM_KEY", "sk-test"),
        ("RADAR_LLM_TIMEOUT", "30"),
    ];
    c.add_nodes(3, &["--summary-schedule", "--feed-interval", "1h"], &env);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let fetched = feeds(&c)
            .iter()
            .filter(|f| !f["last_fetched_at"].is_null())
            .count();
        let summaries: Value =
            serde_json::from_str(&c.admin(&["summaries", "list", "--json"])).unwrap();
        if fetched == 4 && !summaries.as_array().unwrap().is_empty() {
            assert_eq!(summaries.as_array().unwrap().len(), 1, "{summaries}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{fetched} feeds fetched; summaries {summaries}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    for n in 0..4 {
        assert_eq!(asked.times(&format!("/feed/{n}.xml")), 1, "feed {n}");
    }
    assert_eq!(
        asked.times("/v1/chat/completions"),
        1,
        "the LLM was asked once"
    );
    // The fetched items are the newest, at the top of every node's feed.
    for node in &c.nodes {
        let (_, page) = node.get("/api/news", None).await;
        let titles = page["items"].to_string();
        assert_eq!(titles.matches("Story of feed").count(), 4, "{page}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_is_ready_only_with_its_database_and_heals_by_itself() {
    let Some(c) = Cluster::start(1, &[]) else {
        return;
    };
    let node = &c.nodes[0];
    assert_eq!(node.get("/api/health/live", None).await.0, 200);
    assert_eq!(node.get("/api/health/ready", None).await.0, 200);
    // Every connection cut, as a database restart would: the pool notices and replaces
    // them; no request fails with a 500, and the node is ready again without a restart.
    c.database.cut_connections();
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(node.get("/api/news", None).await.0);
    }
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "{statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&200), "{statuses:?}");
    assert_eq!(node.get("/api/health/ready", None).await.0, 200);
}

async fn sign_in_status(node: &Daemon, email: &str, password: &str) -> u16 {
    let res = node
        .http
        .post(node.url("/auth/v1/token?grant_type=password"))
        .header("apikey", &node.anon_key)
        .json(&serde_json::json!({"email": email, "password": password}))
        .send()
        .await
        .unwrap();
    let (status, _): (u16, Value) = answer(res).await;
    status
}

/// The path segments of the marks' routes (`/api/favorites/{id}`, …).
const MARK_SEGMENTS: [&str; 3] = ["favorites", "hidden", "read"];

/// The recipe of `deploy/cluster.sh`: PostgreSQL, three daemons and haproxy.
struct Deployed {
    dir: TempDir,
    base: String,
    http: reqwest::Client,
}

impl Deployed {
    /// Starts the recipe with this build's binary, or answers `None` where PostgreSQL or
    /// haproxy is not installed (and `CI` is not set: there it panics).
    fn start() -> Option<Deployed> {
        if already_ran() {
            return None;
        }
        let missing = ["/usr/sbin/haproxy", "/usr/bin/haproxy"]
            .iter()
            .all(|p| !Path::new(p).exists())
            || std::fs::read_dir("/usr/lib/postgresql").is_err();
        if missing {
            assert!(
                std::env::var_os("CI").is_none(),
                "haproxy and PostgreSQL are needed for this test and CI is set"
            );
            eprintln!("notice: skipping the haproxy test: haproxy or PostgreSQL is not installed");
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix("radar-deploy-")
            .tempdir_in("/tmp")
            .unwrap();
        // Four ports in a row: haproxy's and one per node.
        let port = free_port_run(4);
        let out = Self::script(
            &dir,
            "start",
            &[
                ("PORT", port.to_string()),
                ("RADAR_COMPLIMENTARY", "ha@example.com".into()),
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let deployed = Deployed {
            dir,
            base: format!("http://127.0.0.1:{port}"),
            // A connection per request: haproxy closes kept-alive connections when its
            // backends go down, and a request sent on one as it closes would fail in the
            // client, not in Radar.
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .unwrap(),
        };
        Some(deployed)
    }

    fn script(dir: &TempDir, cmd: &str, envs: &[(&str, String)]) -> std::process::Output {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/cluster.sh");
        std::process::Command::new("bash")
            .arg(script)
            .args([cmd, dir.path().to_str().unwrap()])
            .env("RADAR_BIN", crate::util::radar_bin())
            .env("RADAR_LOG", "warn")
            .envs(envs.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap()
    }

    fn node_pid(&self, n: usize) -> i32 {
        std::fs::read_to_string(self.dir.path().join(format!("node{n}.pid")))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    async fn call(&self, method: &str, path: &str, token: Option<&str>) -> reqwest::Response {
        self.try_call(method, path, token).await.unwrap()
    }

    /// The answer, or `None` when the connection closed without one.
    async fn try_call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
    ) -> Option<reqwest::Response> {
        let mut req = self
            .http
            .request(method.parse().unwrap(), format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send().await.ok()
    }

    /// An answer's status and JSON body; panics when the connection closes without one.
    async fn json(&self, method: &str, path: &str, token: &str) -> (u16, Value) {
        answer(self.call(method, path, Some(token)).await).await
    }

    /// What haproxy thinks of a node (`UP`, `DOWN`, …), from its stats socket.
    fn server_status(&self, node: &str) -> String {
        self.server_stat(node).0
    }

    /// A node's status and the result of its last health check (`L7OK`, `L7STS`, …;
    /// `INI` before the first), from haproxy's stats socket.
    fn server_stat(&self, node: &str) -> (String, String) {
        use std::io::{Read, Write};
        let mut sock =
            std::os::unix::net::UnixStream::connect(self.dir.path().join("haproxy.sock")).unwrap();
        sock.write_all(b"show stat\n").unwrap();
        let mut csv = String::new();
        sock.read_to_string(&mut csv).unwrap();
        // `# pxname,svname,…`: the status is the 18th field, the check's the 37th.
        csv.lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|f| f.len() > 36 && f[0] == "nodes" && f[1] == node)
            .map(|f| (f[17].to_string(), f[36].to_string()))
            .unwrap_or_default()
    }

    /// Waits until haproxy sends traffic to each of `nodes`: each has passed its health
    /// checks (every half second). haproxy takes a server as up
    /// until its first check, and spreads the first checks over the interval, so a
    /// ready answer from one node says nothing yet of the others.
    async fn until_up(&self, nodes: &[&str]) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let stats: Vec<_> = nodes.iter().map(|n| self.server_stat(n)).collect();
            if stats
                .iter()
                .all(|(status, check)| status == "UP" && check == "L7OK")
            {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "not every node came up: {nodes:?} {stats:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Deployed {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // What the nodes logged (warnings and errors) says why an answer was wrong.
            for n in 1..=3 {
                let log = std::fs::read_to_string(self.dir.path().join(format!("node{n}.log")));
                let log = log.unwrap_or_default();
                let tail: Vec<_> = log.lines().rev().take(20).collect();
                eprintln!("node{n}.log, last lines:");
                for line in tail.into_iter().rev() {
                    eprintln!("  {line}");
                }
            }
        }
        let _ = Self::script(&self.dir, "stop", &[]);
    }
}

/// The first of `n` consecutive free ports on 127.0.0.1.
fn free_port_run(n: u16) -> u16 {
    loop {
        let first = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if first > u16::MAX - n {
            continue;
        }
        let all_free =
            (first..first + n).all(|p| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok());
        if all_free {
            return first;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn behind_haproxy_nothing_is_lost_when_a_node_dies_or_the_database_restarts() {
    let Some(d) = Deployed::start() else {
        return;
    };
    d.until_up(&["node1", "node2", "node3"]).await;
    // The demo data was loaded once, by whichever node won the lease.
    let feed: Value = d.call("GET", "/api/news", None).await.json().await.unwrap();
    assert!(
        feed["items"]
            .as_array()
            .is_some_and(|items| !items.is_empty()),
        "{feed}"
    );
    let res = d
        .http
        .post(format!("{}/auth/v1/signup", d.base))
        .header(
            "apikey",
            std::fs::read_to_string(d.dir.path().join("node1.out"))
                .unwrap()
                .lines()
                .find_map(|l| l.strip_prefix("anon key: "))
                .unwrap()
                .trim(),
        )
        .json(&serde_json::json!({"email": "ha@example.com", "password": "a long passphrase"}))
        .send()
        .await
        .unwrap();
    let session: Value = res.json().await.unwrap();
    let token = session["access_token"]
        .as_str()
        .expect("a session")
        .to_string();
    let page: Value = d
        .call("GET", "/api/news", Some(&token))
        .await
        .json()
        .await
        .unwrap();
    let items = ids(&page["items"]);

    // Mixed writes from four clients at once through haproxy: each favourites, hides or
    // marks read its share of the page. Node 2 is killed once six are answered. Only the
    // writes in flight at the kill may fail; every write answered 2xx is kept.
    assert!(items.len() >= 20, "a subscriber's page: {page}");
    const WRITERS: usize = 4;
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let sixth = std::sync::Arc::new(tokio::sync::Notify::new());
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let share: Vec<(usize, String)> = items
            .iter()
            .cloned()
            .enumerate()
            .filter(|(n, _)| n % WRITERS == w)
            .collect();
        let (answered, sixth) = (answered.clone(), sixth.clone());
        let (http, base, token) = (d.http.clone(), d.base.clone(), token.clone());
        writers.push(tokio::spawn(async move {
            let mut acknowledged = Vec::new();
            let mut failed = 0;
            for (n, id) in share {
                let kind = MARK_SEGMENTS[n % MARK_SEGMENTS.len()];
                let res = http
                    .post(format!("{base}/api/{kind}/{id}"))
                    .bearer_auth(&token)
                    .send()
                    .await;
                if res.is_ok_and(|r| r.status().is_success()) {
                    acknowledged.push((kind, id));
                    if answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == 6 {
                        sixth.notify_one();
                    }
                } else {
                    failed += 1;
                }
            }
            (acknowledged, failed)
        }));
    }
    sixth.notified().await;
    // SAFETY: kill has no preconditions; the pid is the node's, written by the script.
    assert_eq!(unsafe { libc::kill(d.node_pid(2), libc::SIGKILL) }, 0);
    let (mut acknowledged, mut failed) = (Vec::new(), 0);
    for w in writers {
        let (a, f) = w.await.unwrap();
        acknowledged.extend(a);
        failed += f;
    }
    assert!(failed <= WRITERS, "{failed} writes failed around the kill");
    eprintln!(
        "{} writes acknowledged, {failed} failed around the kill",
        acknowledged.len()
    );
    for kind in MARK_SEGMENTS {
        let (_, kept) = d.json("GET", &format!("/api/{kind}"), &token).await;
        let kept = ids(&kept);
        for (_, id) in acknowledged.iter().filter(|(k, _)| *k == kind) {
            assert!(kept.contains(id), "{kind} {id} was acknowledged and lost");
        }
    }

    // Once haproxy has marked the dead node down, no request fails.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while d.server_status("node2") != "DOWN" {
        assert!(
            std::time::Instant::now() < deadline,
            "node2 never went down"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    for id in &items {
        let res = d
            .try_call("DELETE", &format!("/api/favorites/{id}"), Some(&token))
            .await;
        assert!(
            res.is_some_and(|r| r.status().is_success()),
            "unfavourite {id}"
        );
        let res = d.try_call("GET", "/api/news", Some(&token)).await;
        assert!(res.is_some_and(|r| r.status() == 200), "the feed");
    }

    // The database stops: every answer is a 503 with Retry-After (a node's, or
    // haproxy's own once no node is ready), never another error.
    let out = Deployed::script(&d.dir, "db-stop", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // First the nodes answer; once haproxy's checks have marked them all down, haproxy
    // answers itself (its answer lacks the headers the nodes add for CORS).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    // Connections are sometimes closed without an answer while the database goes down
    // (0 to 9 a run; the cause is not found yet, see deploy/README.md). A client retries
    // a reset GET, as this loop does; every answer must be the 503.
    let (mut from_nodes, mut from_haproxy, mut closed) = (0, 0, 0);
    while from_haproxy < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "haproxy never took over"
        );
        let Some(res) = d.try_call("GET", "/api/favorites", Some(&token)).await else {
            closed += 1;
            continue;
        };
        assert_eq!(res.status(), 503);
        assert!(res.headers().contains_key("retry-after"));
        if res.headers().contains_key("access-control-expose-headers") {
            from_nodes += 1;
        } else {
            from_haproxy += 1;
        }
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], "unavailable", "{body}");
    }
    assert!(from_nodes + from_haproxy >= 3);
    eprintln!("{closed} connections closed without an answer while the database went down");
    // It starts again: full service, from the same processes.
    let out = Deployed::script(&d.dir, "db-start", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    d.until_up(&["node1", "node3"]).await;
    for _ in 0..20 {
        assert_eq!(
            d.call("GET", "/api/favorites", Some(&token)).await.status(),
            200
        );
    }
    for n in [1, 3] {
        // SAFETY: signal 0 only checks that the process exists.
        assert_eq!(
            unsafe { libc::kill(d.node_pid(n), 0) },
            0,
            "node {n} restarted"
        );
    }
}

/// Stories over a cluster: items imported through two nodes are grouped by one process
/// for all (the `story-grouping` lease), a second or so after they arrive, and every node
/// serves the same story.
#[tokio::test(flavor = "multi_thread")]
async fn items_arriving_through_two_nodes_are_grouped_into_one_story() {
    let Some(c) = Cluster::start(2, &[]) else {
        return;
    };
    let outlets = crate::stories::five_outlets();
    for (n, part) in [&outlets[..2], &outlets[2..]].into_iter().enumerate() {
        let path = c.dir.path().join(format!("outlets{n}.jsonl"));
        let lines: Vec<String> = part.iter().map(Value::to_string).collect();
        std::fs::write(&path, lines.join("\n")).unwrap();
        c.admin_in(
            c.nodes[n].data.as_path(),
            &["items", "import", path.to_str().unwrap()],
        );
    }
    for node in &c.nodes {
        let mut waited = 0;
        let feed = loop {
            let (status, feed) = node.get("/api/news", None).await;
            assert_eq!(status, 200, "{feed}");
            if feed["items"][0]["story"]["sources"] == 5 || waited >= 200 {
                break feed;
            }
            // The grouping job runs with each process's upkeep, about once a second.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            waited += 1;
        };
        assert_eq!(ids(&feed["items"]), ["reuters"], "{feed}");
        assert_eq!(feed["items"][0]["story"]["sources"], 5, "{feed}");
    }
}

//! Stories: the same event from several outlets is one card with its sources, read and
//! hidden whole, counted once; a reader may switch it off. Items are constructed here,
//! published in the last hours (grouping looks at the last fortnight only).

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::admin::{cli, cli_with};
use crate::util::{Daemon, ids};

/// One outlet's item: an id, a URL, a headline and a summary, published `hours` ago.
fn item(id: &str, url: &str, title: &str, summary: &str, hours: i64) -> Value {
    json!({
        "id": id,
        "url": url,
        "title": title,
        "summary": summary,
        "published_date": (Utc::now() - Duration::hours(hours)).to_rfc3339(),
    })
}

/// Five outlets' reports of one event, the oldest (Reuters) first.
pub(crate) fn five_outlets() -> Vec<Value> {
    vec![
        item(
            "reuters",
            "https://www.reuters.com/technology/amazon-anthropic-investment/",
            "Amazon to invest additional $4 billion in AI startup Anthropic",
            "Amazon will invest another $4 billion in Anthropic, doubling its total commitment to $8 billion, and Anthropic will train its models on Amazon's Trainium chips.",
            20,
        ),
        item(
            "techcrunch",
            "https://techcrunch.com/anthropic-raises-4b-from-amazon/",
            "Anthropic raises another $4B from Amazon",
            "Anthropic has raised an additional $4 billion from Amazon, bringing the retailer's total investment to $8 billion. AWS becomes Anthropic's primary training partner for Trainium.",
            19,
        ),
        item(
            "verge",
            "https://www.theverge.com/amazon-anthropic-8-billion",
            "Amazon doubles down on Anthropic with $4 billion more",
            "Amazon's total stake in the Claude maker reaches $8 billion after a new $4 billion investment; Anthropic commits to training on Trainium chips.",
            17,
        ),
        item(
            "cnbc",
            "https://www.cnbc.com/amazon-anthropic-4-billion-investment.html",
            "Amazon invests $4 billion more in Anthropic, total reaches $8 billion",
            "Amazon is investing a further $4 billion in Anthropic. Anthropic named AWS its primary cloud and training partner and will use Trainium chips.",
            15,
        ),
        item(
            "ft",
            "https://www.ft.com/content/amazon-anthropic-trainium",
            "Amazon deepens Anthropic ties with fresh $4bn investment",
            "The $4bn injection brings Amazon's investment in Anthropic to $8bn, with the start-up agreeing to use Amazon's Trainium chips to train its models.",
            10,
        ),
    ]
}

/// An item about Amazon and Anthropic too, but another event.
fn bedrock() -> Value {
    item(
        "bedrock",
        "https://www.aboutamazon.com/news/aws/claude-bedrock-agents",
        "Amazon brings Anthropic's Claude agents to Bedrock customers",
        "AWS customers can now build agents with Anthropic's Claude models in Amazon Bedrock, with new tools for enterprise deployment.",
        12,
    )
}

/// A sixth outlet's report of the five outlets' event.
fn sixth_outlet() -> Value {
    item(
        "bloomberg",
        "https://www.bloomberg.com/news/amazon-anthropic-4-billion",
        "Amazon adds $4 billion to its Anthropic investment",
        "Amazon will invest a further $4 billion in Anthropic, taking its total to $8 billion; Anthropic will train its models on Amazon's Trainium chips.",
        2,
    )
}

/// A made-up word of its own for each number: events built from them share nothing.
fn word(n: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "bo", "da", "fi", "gu", "he",
        "jo",
    ];
    let mut out = String::from("q");
    let mut n = n + 16 * 16;
    while n > 0 {
        out.push_str(SYLLABLES[n % 16]);
        n /= 16;
    }
    out
}

/// Event `k` as told by outlet `outlet` (0 or 1): the event's fourteen words, the second
/// outlet with two of them changed. Published `hours` ago.
fn event(k: usize, outlet: usize, hours: i64) -> Value {
    let mut words: Vec<String> = (0..14).map(|j| word(k * 100 + j)).collect();
    if outlet == 1 {
        words[12] = word(k * 100 + 50);
        words[13] = word(k * 100 + 51);
    }
    item(
        &format!("e{k}-{outlet}"),
        &format!("https://outlet{outlet}.example/e{k}"),
        &words[..5].join(" "),
        &format!("{}.", words.join(" ")),
        hours,
    )
}

/// Imports items through the admin command while the daemon runs.
async fn import(d: &Daemon, items: &[Value]) {
    let lines: String = items.iter().map(|i| format!("{i}\n")).collect();
    let out = cli_with(&d.data, &["items", "import", "-"], &lines, &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// A signed-up reader, made a subscriber when `subscriber`.
async fn reader(d: &Daemon, email: &str, subscriber: bool) -> String {
    let token = d.sign_up(email, "secret-password").await;
    if subscriber {
        let out = cli(&d.data, &["subscribers", "grant", email]).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    token
}

async fn feed(d: &Daemon, token: Option<&str>) -> Value {
    let (status, page) = d.get("/api/news", token).await;
    assert_eq!(status, 200, "{page}");
    page
}

/// The card of `id` on a feed page.
fn card<'a>(page: &'a Value, id: &str) -> &'a Value {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id)
        .unwrap_or_else(|| panic!("no card {id} in {page}"))
}

fn outlet_ids(story: &Value) -> Vec<String> {
    ids(&story["outlets"])
}

#[tokio::test]
async fn five_outlets_are_one_story_with_five_sources_and_a_lookalike_stays_apart() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let mut items = five_outlets();
    items.push(bedrock());
    import(&d, &items).await;

    let page = feed(&d, None).await;
    assert_eq!(
        ids(&page["items"]),
        ["bedrock", "reuters"],
        "one card per story: {page}"
    );
    let story = &card(&page, "reuters")["story"];
    assert_eq!(story["id"], "reuters");
    assert_eq!(story["sources"], 5);
    assert_eq!(
        outlet_ids(story),
        ["techcrunch", "verge", "cnbc", "ft"],
        "the other outlets, in the order they joined"
    );
    assert_eq!(
        card(&page, "reuters")["title"],
        "Amazon to invest additional $4 billion in AI startup Anthropic"
    );
    assert!(card(&page, "bedrock").get("story").is_none(), "{page}");

    // The reader of any member lists the others.
    let (status, ft) = d.get("/api/news/ft", None).await;
    assert_eq!(status, 200, "{ft}");
    assert_eq!(ft["story"]["id"], "reuters");
    assert_eq!(
        outlet_ids(&ft["story"]),
        ["reuters", "techcrunch", "verge", "cnbc"]
    );
    assert_eq!(ft["story"]["outlets"][0]["source"], "Reuters");

    // A subscriber's total counts stories.
    let sub = reader(&d, "sub@example.com", true).await;
    assert_eq!(feed(&d, Some(&sub)).await["total"], 2);
}

#[tokio::test]
async fn reading_a_story_reads_every_outlet_and_new_coverage_does_not_bring_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let mut items = five_outlets();
    items.push(bedrock());
    import(&d, &items).await;
    let sub = reader(&d, "sub@example.com", true).await;

    let (status, _) = d.call("POST", "/api/read/reuters", Some(&sub), None).await;
    assert_eq!(status, 200);
    let (_, read) = d.get("/api/read", Some(&sub)).await;
    let mut read_ids = ids(&read);
    read_ids.sort();
    assert_eq!(
        read_ids,
        ["cnbc", "ft", "reuters", "techcrunch", "verge"],
        "{read}"
    );
    let page = feed(&d, Some(&sub)).await;
    assert_eq!(ids(&page["items"]), ["bedrock"]);
    assert_eq!(page["total"], 1);

    import(&d, &[sixth_outlet()]).await;
    let page = feed(&d, Some(&sub)).await;
    assert_eq!(
        ids(&page["items"]),
        ["bedrock"],
        "a read story stays read: {page}"
    );
    assert_eq!(page["total"], 1);
    let (_, sixth) = d.get("/api/news/bloomberg", Some(&sub)).await;
    assert_eq!(
        (&sixth["story"]["id"], &sixth["story"]["sources"]),
        (&json!("reuters"), &json!(6))
    );

    // Unreading the story brings it back whole, with its sixth source.
    let (status, _) = d.call("DELETE", "/api/read/ft", Some(&sub), None).await;
    assert_eq!(status, 200);
    let page = feed(&d, Some(&sub)).await;
    assert_eq!(ids(&page["items"]), ["bedrock", "reuters"]);
    assert_eq!(card(&page, "reuters")["story"]["sources"], 6);
    // Another reader's feed was never touched.
    let other = reader(&d, "other@example.com", true).await;
    assert_eq!(feed(&d, Some(&other)).await["total"], 2);
}

#[tokio::test]
async fn hiding_a_story_hides_every_outlet_but_a_favourite_keeps_its_own_marks() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let mut items = five_outlets();
    items.push(bedrock());
    import(&d, &items).await;
    let sub = reader(&d, "sub@example.com", true).await;
    let (status, _) = d
        .call("POST", "/api/favorites/verge", Some(&sub), None)
        .await;
    assert_eq!(status, 200);

    let (status, _) = d
        .call("POST", "/api/hidden/reuters", Some(&sub), None)
        .await;
    assert_eq!(status, 200);
    let (_, hidden) = d.get("/api/hidden", Some(&sub)).await;
    let mut hidden_ids = ids(&hidden);
    hidden_ids.sort();
    assert_eq!(
        hidden_ids,
        ["cnbc", "ft", "reuters", "techcrunch"],
        "every outlet but the favourite: {hidden}"
    );
    let (_, favourites) = d.get("/api/favorites", Some(&sub)).await;
    assert_eq!(ids(&favourites), ["verge"]);
    let page = feed(&d, Some(&sub)).await;
    assert_eq!(ids(&page["items"]), ["bedrock"], "{page}");
    assert_eq!(page["total"], 1);

    // Shown again, the story comes back whole.
    let (status, _) = d
        .call("DELETE", "/api/hidden/reuters", Some(&sub), None)
        .await;
    assert_eq!(status, 200);
    let (_, hidden) = d.get("/api/hidden", Some(&sub)).await;
    assert_eq!(ids(&hidden), Vec::<String>::new(), "{hidden}");
    let page = feed(&d, Some(&sub)).await;
    assert_eq!(ids(&page["items"]), ["bedrock", "reuters"]);
    assert_eq!(card(&page, "reuters")["story"]["sources"], 5);
}

#[tokio::test]
async fn a_free_reader_sees_five_stories_and_may_open_every_source_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let items: Vec<Value> = (0..7)
        .flat_map(|k| {
            let hours = 2 * i64::try_from(k).unwrap();
            [event(k, 0, hours + 1), event(k, 1, hours)]
        })
        .collect();
    import(&d, &items).await;
    let free = reader(&d, "free@example.com", false).await;
    let page = feed(&d, Some(&free)).await;
    assert_eq!(
        ids(&page["items"]),
        ["e0-0", "e1-0", "e2-0", "e3-0", "e4-0"],
        "one card per story, the first outlet's: {page}"
    );
    assert_eq!(
        (&page["total"], &page["hasMore"]),
        (&json!(5), &json!(true))
    );
    for card in page["items"].as_array().unwrap() {
        assert_eq!(card["story"]["sources"], 2, "{card}");
    }
    let (status, second) = d.get("/api/news/e4-1", Some(&free)).await;
    assert_eq!(
        status, 200,
        "the other source of a story on the page: {second}"
    );
    let (status, beyond) = d.get("/api/news/e5-1", Some(&free)).await;
    assert_eq!(status, 403, "past the allowance: {beyond}");
    // A subscriber reaches all seven.
    let sub = reader(&d, "sub@example.com", true).await;
    assert_eq!(feed(&d, Some(&sub)).await["total"], 7);
}

#[tokio::test]
async fn a_merge_keeps_the_older_id_and_a_cursor_from_before_still_pages() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    // Twenty-five unrelated items, the newest, then two halves of one event that share
    // too little to be grouped on their own.
    let mut items: Vec<Value> = (0..25)
        .map(|k| event(100 + k, 0, i64::try_from(k).unwrap() + 1))
        .collect();
    items.push(item(
        "deal",
        "https://a.example/deal",
        "Amazon invests $4 billion more in Anthropic",
        "Amazon will invest another $4 billion in Anthropic, bringing its total to $8 billion.",
        40,
    ));
    items.push(item(
        "chips",
        "https://b.example/chips",
        "Anthropic picks Trainium chips as AWS becomes primary training partner",
        "Anthropic will train future Claude models on AWS Trainium chips, naming AWS its primary training partner.",
        38,
    ));
    import(&d, &items).await;
    let sub = reader(&d, "sub@example.com", true).await;
    let first = feed(&d, Some(&sub)).await;
    assert_eq!(first["total"], 27);
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_string();

    // An item telling both halves links the two stories: the older one survives.
    import(&d, &[item(
        "both",
        "https://c.example/both",
        "Amazon invests $4 billion more in Anthropic, which picks Trainium chips",
        "Amazon will invest another $4 billion in Anthropic, bringing its total to $8 billion; Anthropic will train future Claude models on AWS Trainium chips, naming AWS its primary training partner.",
        37,
    )])
    .await;
    let (_, chips) = d.get("/api/news/chips", Some(&sub)).await;
    assert_eq!(
        (&chips["story"]["id"], &chips["story"]["sources"]),
        (&json!("deal"), &json!(3))
    );

    let (status, second) = d
        .get(&format!("/api/news?cursor={cursor}"), Some(&sub))
        .await;
    assert_eq!(status, 200, "{second}");
    let mut expected: Vec<String> = (20..25).map(|k| format!("e{}-0", 100 + k)).collect();
    expected.push("deal".into());
    assert_eq!(
        ids(&second["items"]),
        expected,
        "the page after the cursor, the merged story once"
    );
    assert_eq!(card(&second, "deal")["story"]["sources"], 3);
    assert_eq!(feed(&d, Some(&sub)).await["total"], 26);
}

#[tokio::test]
async fn a_reader_who_switches_stories_off_gets_every_item_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let mut items = five_outlets();
    items.push(bedrock());
    import(&d, &items).await;
    let sub = reader(&d, "sub@example.com", true).await;
    let (status, profile) = d
        .call(
            "PATCH",
            "/api/user/profile",
            Some(&sub),
            Some(json!({"stories": false})),
        )
        .await;
    assert_eq!(
        (status, &profile["stories"]),
        (200, &json!(false)),
        "{profile}"
    );

    let page = feed(&d, Some(&sub)).await;
    assert_eq!(
        ids(&page["items"]),
        ["ft", "bedrock", "cnbc", "verge", "techcrunch", "reuters"],
        "{page}"
    );
    assert_eq!(page["total"], 6);
    assert!(
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i.get("story").is_none())
    );
    // Reading one item reads that item alone.
    d.call("POST", "/api/read/reuters", Some(&sub), None).await;
    assert_eq!(feed(&d, Some(&sub)).await["total"], 5);

    let (_, profile) = d
        .call(
            "PATCH",
            "/api/user/profile",
            Some(&sub),
            Some(json!({"stories": true})),
        )
        .await;
    assert_eq!(profile["stories"], true);
    let page = feed(&d, Some(&sub)).await;
    assert_eq!(
        ids(&page["items"]),
        ["bedrock"],
        "the story's lead was read: {page}"
    );
    let (status, bad) = d
        .call(
            "PATCH",
            "/api/user/profile",
            Some(&sub),
            Some(json!({"stories": "no"})),
        )
        .await;
    assert_eq!(status, 400, "{bad}");
}

#[tokio::test]
async fn search_lists_a_story_once_at_its_best_ranked_item() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let mut items = five_outlets();
    items.push(bedrock());
    import(&d, &items).await;
    let sub = reader(&d, "sub@example.com", true).await;
    let (status, found) = d.get("/api/search?q=Anthropic", Some(&sub)).await;
    assert_eq!(status, 200, "{found}");
    let found_ids = ids(&found["items"]);
    assert_eq!(
        found_ids.len(),
        2,
        "the story once, and the other event: {found}"
    );
    assert!(found_ids.contains(&"bedrock".to_string()), "{found}");
    let story = found["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] != "bedrock")
        .unwrap();
    assert_eq!(
        (&story["story"]["id"], &story["story"]["sources"]),
        (&json!("reuters"), &json!(5))
    );

    d.call(
        "PATCH",
        "/api/user/profile",
        Some(&sub),
        Some(json!({"stories": false})),
    )
    .await;
    let (_, found) = d.get("/api/search?q=Anthropic", Some(&sub)).await;
    assert_eq!(ids(&found["items"]).len(), 6, "item by item: {found}");
}

//! Store benchmark at product scale: loads N items and U users' marks, then measures the
//! calls every request makes. Run with `bash bench/run.sh` (release build).
//!
//! Usage: feed_bench [ITEMS] [USERS]   (defaults 1,000,000 and 100,000)

#![expect(
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    reason = "benchmark arithmetic on counts"
)]

use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use radar_store::{Mark, NewItem, Options, Store, Viewer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n_items: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let n_users: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(100_000);
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path(), Options::default()).await?;
    let base = Utc.with_ymd_and_hms(2020, 1, 1, 0, 0, 0).unwrap();

    let started = Instant::now();
    let batch = 10_000;
    for start in (0..n_items).step_by(batch) {
        let items = (start..(start + batch).min(n_items)).map(|i| NewItem {
            title: format!("Item {i}: a model, a chip and a policy walk into a lab"),
            summary: "A short summary of the story, long enough to look like one.".into(),
            url: Some(format!("https://source{}.example/story/{i}", i % 50)),
            published_date: base + chrono::Duration::minutes(i as i64),
            ..Default::default()
        });
        store.upsert_items(items).await?;
    }
    let load = started.elapsed();
    println!(
        "load        {n_items} items in {:.1} s ({:.0} items/s)",
        load.as_secs_f64(),
        n_items as f64 / load.as_secs_f64()
    );

    // Every user marks a few items near the top of the feed, as real readers do.
    let newest: Vec<String> = store
        .feed_page(
            &Viewer {
                user_id: None,
                subscriber: true,
            },
            None,
        )
        .await?
        .items
        .into_iter()
        .map(|i| i.id)
        .collect();
    let started = Instant::now();
    for u in 0..n_users {
        let user = format!("user-{u:06}");
        store
            .set_mark(&user, &newest[u % newest.len()], Mark::Read)
            .await?;
    }
    let marks = started.elapsed();
    println!(
        "marks       {n_users} users x 1 durable mark: {:.0} µs each",
        marks.as_micros() as f64 / n_users as f64
    );

    // A heavy reader who hid the newest 1,000 items: the feed must skip them.
    let heavy = "user-heavy";
    let mut cursor = None;
    let sub = Viewer {
        user_id: None,
        subscriber: true,
    };
    let mut hidden = 0;
    while hidden < 1_000 {
        let page = store.feed_page(&sub, cursor.as_deref()).await?;
        for item in &page.items {
            store.set_mark(heavy, &item.id, Mark::Hidden).await?;
            hidden += 1;
        }
        cursor = page.next_cursor;
    }

    // A macro, not a closure: the timed body awaits.
    macro_rules! time {
        ($label:expr, $runs:expr, $body:block $(,)?) => {{
            let (label, runs): (&str, u32) = (&$label, $runs);
            let started = Instant::now();
            for _ in 0..runs {
                $body
            }
            let each: Duration = started.elapsed() / runs;
            println!("{label:<44} {:>8.1} µs", each.as_secs_f64() * 1e6);
        }};
    }
    time!("feed: anonymous first page (5)", 2_000, {
        store.feed_page(&Viewer::default(), None).await.unwrap();
    });
    let reader = Viewer {
        user_id: Some("user-000001".into()),
        subscriber: true,
    };
    time!("feed: subscriber first page (20)", 2_000, {
        store.feed_page(&reader, None).await.unwrap();
    });
    let mut deep = None;
    for _ in 0..50 {
        deep = store.feed_page(&reader, deep.as_deref()).await?.next_cursor;
    }
    time!("feed: subscriber page 51 (by cursor)", 2_000, {
        store.feed_page(&reader, deep.as_deref()).await.unwrap();
    });
    let heavy_viewer = Viewer {
        user_id: Some(heavy.into()),
        subscriber: true,
    };
    time!("feed: reader who hid the newest 1,000", 200, {
        store.feed_page(&heavy_viewer, None).await.unwrap();
    });
    time!("marks: favourite + durable flush", 500, {
        store
            .set_mark("user-000002", &newest[3], Mark::Favorite)
            .await
            .unwrap();
    });
    time!("lists: a user's Trash of 1,000", 200, {
        store.marked_items(heavy, Mark::Hidden).await.unwrap();
    });

    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in status
        .lines()
        .filter(|l| l.starts_with("VmHWM") || l.starts_with("VmRSS"))
    {
        println!("memory      {line}");
    }
    Ok(())
}

//! Benchmark of the public news API's store calls at scale: loads N items, then times a
//! page of `public_page` at the start, the middle and the end of each sort order, and
//! the per-request key lookup and quota count. A bounded listing shows near-constant
//! times at the ends and at worst `total / 2` key reads in the middle.
//!
//! Usage: cargo run --release -p radar-store --example catalogue_bench [ITEMS]
//! (default 200,000)

#![expect(clippy::cast_possible_wrap, reason = "benchmark arithmetic on counts")]

use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use radar_store::{NewItem, Options, SortBy, SortOrder, Store};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n_items: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(200_000);
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path(), Options::default()).await?;
    let base = Utc.with_ymd_and_hms(2020, 1, 1, 0, 0, 0).unwrap();

    let started = Instant::now();
    let batch = 10_000;
    for start in (0..n_items).step_by(batch) {
        let items = (start..(start + batch as u64).min(n_items)).map(|i| NewItem {
            // Titles in an order unrelated to dates.
            title: format!(
                "{:08x} story about models",
                (i.wrapping_mul(2_654_435_761)) % n_items
            ),
            summary: "A short summary of the story, long enough to look like one.".into(),
            url: Some(format!("https://source{}.example/story/{i}", i % 50)),
            published_date: base + chrono::Duration::minutes(i as i64),
            ..Default::default()
        });
        store.upsert_items(items).await?;
    }
    println!(
        "load        {n_items} items in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // A macro, not a closure: the timed body awaits.
    macro_rules! time {
        ($label:expr, $runs:expr, $body:block $(,)?) => {{
            let (label, runs): (&str, u32) = (&$label, $runs);
            let started = Instant::now();
            for _ in 0..runs {
                $body
            }
            let each: Duration = started.elapsed() / runs;
            println!("{label:<52} {:>10.1} µs", each.as_secs_f64() * 1e6);
        }};
    }
    let last_page = n_items.div_ceil(100);
    for sort in [SortBy::PublishedDate, SortBy::Title, SortBy::Id] {
        for (name, page) in [("first", 1), ("middle", last_page / 2), ("last", last_page)] {
            time!(
                &format!("public_page {sort:?} desc, {name} page of 100"),
                20,
                {
                    let (items, _) = store
                        .public_page(sort, SortOrder::Desc, page, 100)
                        .await
                        .unwrap();
                    assert!(!items.is_empty());
                },
            );
        }
    }
    let key = store.api_key("bench-user").await?;
    time!("api_key_owner (per request)", 10_000, {
        store.api_key_owner(&key).await.unwrap().unwrap();
    });
    time!("consume_quota with durable flush (per request)", 500, {
        store
            .consume_quota("bench-user", u64::MAX, Utc::now())
            .await
            .unwrap();
    },);
    Ok(())
}

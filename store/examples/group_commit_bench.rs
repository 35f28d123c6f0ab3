//! Durable writes with group commit: W writer tasks each favourite and un-favourite
//! items (every call returns only once its write is on disk), for 1, 4 and 32 writers.
//! Prints writes per second and how many writes one wait for the disk covered.
//!
//!   cargo run --release -p radar-store --example group_commit_bench [DIR]
//!
//! DIR (default: a temporary directory) should be on the disk the daemon would use.

#![expect(clippy::cast_precision_loss, reason = "benchmark arithmetic on counts")]

use std::sync::Arc;
use std::time::Instant;

use radar_store::{Mark, Options, Store, Viewer};

#[tokio::main]
async fn main() -> radar_store::Result<()> {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| tmp.path().to_path_buf(), std::path::PathBuf::from);
    let store = Store::open(&dir, Options::default()).await?;
    store.load_demo_if_empty().await?;
    let viewer = Viewer {
        user_id: None,
        subscriber: true,
    };
    let items: Arc<Vec<String>> = Arc::new(
        store
            .feed_page(&viewer, None)
            .await?
            .items
            .into_iter()
            .map(|i| i.id)
            .collect(),
    );
    let per_writer = 400;
    for writers in [1usize, 4, 32] {
        let syncs_before = store.durable_syncs();
        let start = Instant::now();
        let threads: Vec<_> = (0..writers)
            .map(|w| {
                let (store, items) = (store.clone(), items.clone());
                tokio::spawn(async move {
                    let user = format!("bench-writer-{w}");
                    for i in 0..per_writer / 2 {
                        let item = &items[i % items.len()];
                        store.set_mark(&user, item, Mark::Favorite).await.unwrap();
                        store.clear_mark(&user, item, Mark::Favorite).await.unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.await.expect("a writer panicked");
        }
        let secs = start.elapsed().as_secs_f64();
        let writes = (writers * per_writer) as f64;
        let syncs = (store.durable_syncs() - syncs_before) as f64;
        println!(
            "{writers:>2} writers: {:>7.0} durable writes/s, {:.1} writes per fdatasync",
            writes / secs,
            writes / syncs
        );
    }
    Ok(())
}

//! Search benchmark at product scale: loads N items of news-sized text, rebuilds the
//! search index from them, and times two-word searches. Run with `bash bench/search.sh`
//! (release build).
//!
//! Usage: search_bench [ITEMS] [QUERIES]   (defaults 1,000,000 and 1,000)
//!
//! With `SEARCH_STORE=DIR` the store is kept in DIR and a later run that finds the same
//! number of items there skips loading them (at a million items loading takes minutes;
//! the rebuild and the searches are what is measured).
//!
//! Text is drawn from a synthetic vocabulary of 30,000 words with a Zipf distribution, as
//! natural language has; an item has a 10-word title, a 45-word summary, a 15-word short
//! text and 200 words of content (about 1.7 KB, like the demo items). Queries are two
//! words drawn the same way from all but the 50 most common words (which play the part of
//! "the", "of", "and": nobody searches for those).

#![expect(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    clippy::cast_sign_loss,
    reason = "benchmark arithmetic on counts"
)]

use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use radar_store::{NewItem, Options, SearchQuery, Store, Viewer};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const VOCABULARY: usize = 30_000;
const COMMON: usize = 50;

/// Words and a Zipf sampler over them.
struct Words {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Words {
    fn new() -> Self {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pre", "tra", "mon", "sel", "dor",
            "qui", "ban", "fel", "gro", "hin", "jas", "ple", "cor", "den", "sti", "wal",
        ];
        let words = (0..VOCABULARY)
            .map(|i| {
                let (a, b, c) = (i % 24, (i / 24) % 24, i / 576);
                let tail = match c {
                    0 => String::new(),
                    1..24 => SYLLABLES[c].to_string(),
                    _ => format!("{}{}", SYLLABLES[c % 24], SYLLABLES[c / 24]),
                };
                format!("{}{}{tail}", SYLLABLES[a], SYLLABLES[b])
            })
            .collect();
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY)
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Self { words, cumulative }
    }

    /// A word's rank, Zipf-distributed, at least `from`.
    fn rank(&self, rng: &mut StdRng, from: usize) -> usize {
        let lo = if from == 0 {
            0.0
        } else {
            self.cumulative[from - 1]
        };
        let x = rng.random_range(lo..*self.cumulative.last().unwrap());
        self.cumulative.partition_point(|c| *c < x)
    }

    fn text(&self, rng: &mut StdRng, n: usize) -> String {
        let mut s = String::with_capacity(n * 8);
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&self.words[self.rank(rng, 0)]);
        }
        s
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn dir_size(path: &std::path::Path) -> u64 {
    std::fs::read_dir(path).map_or(0, |entries| {
        entries
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
            .sum()
    })
}

/// Writes `n_items` items through the store, as imports do, in batches of 10,000.
async fn load(
    store: &Store,
    words: &Words,
    rng: &mut StdRng,
    n_items: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let base = Utc.with_ymd_and_hms(2020, 1, 1, 0, 0, 0).unwrap();
    let started = Instant::now();
    let batch = 10_000;
    for start in (0..n_items).step_by(batch) {
        let items: Vec<NewItem> = (start..(start + batch).min(n_items))
            .map(|i| NewItem {
                title: words.text(rng, 10),
                summary: words.text(rng, 45),
                short: words.text(rng, 15),
                content: words.text(rng, 200),
                url: Some(format!("https://source{}.example/story/{i}", i % 50)),
                published_date: base + chrono::Duration::minutes(i as i64),
                ..Default::default()
            })
            .collect();
        store.upsert_items(items).await?;
    }
    let load = started.elapsed();
    println!(
        "load        {n_items} items written and indexed in batches of {batch}: {:.1} s ({:.0} items/s)",
        load.as_secs_f64(),
        n_items as f64 / load.as_secs_f64()
    );
    Ok(())
}

/// CPU time of the whole process so far (every thread, user and system).
fn cpu_time() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &raw mut usage);
        usage
    };
    let tv = |t: libc::timeval| {
        Duration::new(
            u64::try_from(t.tv_sec).unwrap_or(0),
            u32::try_from(t.tv_usec).unwrap_or(0) * 1000,
        )
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n_items: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let n_queries: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1_000);
    let kept = std::env::var_os("SEARCH_STORE").map(std::path::PathBuf::from);
    let temporary = tempfile::tempdir()?;
    let dir = kept.as_deref().unwrap_or(temporary.path());
    let words = Words::new();
    let store = Store::open(dir, Options::default()).await?;
    match store.item_count().await? {
        0 => load(&store, &words, &mut StdRng::seed_from_u64(16), n_items).await?,
        n if n == n_items as u64 => println!("load        {n} items already in {}", dir.display()),
        n => return Err(format!("{} holds {n} items, not {n_items}", dir.display()).into()),
    }

    let (started, cpu) = (Instant::now(), cpu_time());
    let built = store.reindex(|| {}).await?;
    let (build, cpu) = (started.elapsed(), cpu_time().checked_sub(cpu).unwrap());
    println!(
        "build       index rebuilt from the store: {built} items in {:.1} s ({:.0} items/s; {:.0} µs of CPU per item, {:.0}% of one core)",
        build.as_secs_f64(),
        built as f64 / build.as_secs_f64(),
        cpu.as_secs_f64() * 1e6 / built as f64,
        cpu.as_secs_f64() * 100.0 / build.as_secs_f64(),
    );
    // Reopen, as a restarted daemon would, so searches run on the committed index alone.
    drop(store);
    let store = Store::open(dir, Options::default()).await?;
    let index_bytes = dir_size(&dir.join("search"));
    println!(
        "size        index on disk: {:.0} MB ({:.0} bytes per item)",
        index_bytes as f64 / 1e6,
        index_bytes as f64 / n_items as f64
    );

    let viewer = Viewer {
        user_id: Some("bench-reader".into()),
        subscriber: true,
    };
    // Queries have their own seed, so they are the same whether the items were loaded now.
    let mut rng = StdRng::seed_from_u64(61);
    let queries: Vec<SearchQuery> = (0..n_queries)
        .map(|_| {
            let a = &words.words[words.rank(&mut rng, COMMON)];
            let b = &words.words[words.rank(&mut rng, COMMON)];
            SearchQuery::parse(&format!("{a} {b}"))
        })
        .collect::<Result<_, _>>()?;
    // One pass to warm the page cache, as a serving daemon's would be.
    for q in queries.iter().take(100) {
        store.search(&viewer, q, None).await?;
    }
    let mut times = Vec::with_capacity(n_queries);
    let mut empty = 0;
    for q in &queries {
        let started = Instant::now();
        let page = store.search(&viewer, q, None).await?;
        times.push(started.elapsed());
        empty += usize::from(page.hits.is_empty());
    }
    times.sort();
    println!(
        "search      {n_queries} two-word queries, first page of 20 with highlights: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({empty} found nothing)",
        percentile(&times, 0.50).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3,
    );
    Ok(())
}

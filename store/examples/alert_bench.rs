//! The CPU cost of matching one arriving item against every reader's alert.
//!
//! ALERTS queries (default 100,000) are written as readers would type them, from a Zipf
//! vocabulary of 60,000 words: one to three words, one in ten a two-word phrase, one in
//! twenty a `source:` alone, one in twenty a word and a `source:`, one in twenty with an
//! exclusion. They are filed in the index the store keeps (`store/src/alerts.rs`), then
//! PROBE news-sized items (a title of 8 words, a 45-word summary, 200 words of content,
//! drawn from the same vocabulary) are matched one at a time, each timed alone by this
//! thread's CPU time (the machine is shared; wall time counts others' work). The index holds
//! alerts only: how many items the store already holds does not enter the matching,
//! which reads no stored item.
//!
//! ```sh
//! cargo run --release -p radar-store --example alert_bench   # ALERTS=100000 PROBE=20000 QUERY_FROM=100
//! ```

#![expect(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::cast_sign_loss,
    reason = "benchmark arithmetic on counts"
)]

use chrono::{Duration, Utc};
use radar_store::{AlertBenchIndex, NewsItem};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: a small fixed generator, so every run files the same alerts.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// CPU time of this thread, in microseconds.
fn thread_cpu_us() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut ts) };
    ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 / 1e3
}

/// A Zipf vocabulary of `n` words (`w0` the commonest).
struct Vocabulary {
    cumulative: Vec<f64>,
}

impl Vocabulary {
    fn new(n: usize) -> Self {
        let mut total = 0.0;
        let cumulative = (1..=n)
            .map(|r| {
                total += 1.0 / r as f64;
                total
            })
            .collect();
        Self { cumulative }
    }

    /// A word drawn by its frequency, of rank `from` or rarer.
    fn word(&self, rng: &mut Rng, from: usize) -> String {
        let low = if from == 0 {
            0.0
        } else {
            self.cumulative[from - 1]
        };
        let high = *self.cumulative.last().unwrap();
        let x = low + (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * (high - low);
        format!("w{}", self.cumulative.partition_point(|c| *c < x))
    }

    fn text(&self, rng: &mut Rng, n: usize) -> String {
        (0..n)
            .map(|_| self.word(rng, 0))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn main() {
    let alerts = env("ALERTS", 100_000);
    let probe = env("PROBE", 20_000);
    // Readers alert on names and terms, not on the commonest words: query words are
    // drawn from rank QUERY_FROM on (default 100) of a 60,000-word vocabulary.
    let from = env("QUERY_FROM", 100);
    let vocabulary = Vocabulary::new(60_000);
    let sources = ["theverge", "wired", "techcrunch", "arxiv.org", "reuters"];
    let mut rng = Rng(0x5eed);
    let queries: Vec<String> = (0..alerts)
        .map(|_| match rng.below(20) {
            0 | 1 => format!(
                "\"{} {}\"",
                vocabulary.word(&mut rng, from),
                vocabulary.word(&mut rng, from)
            ),
            2 => format!("source:{}", sources[rng.below(sources.len())]),
            3 => format!(
                "{} source:{}",
                vocabulary.word(&mut rng, from),
                sources[rng.below(sources.len())]
            ),
            4 => format!(
                "{} -{}",
                vocabulary.word(&mut rng, from),
                vocabulary.word(&mut rng, from)
            ),
            _ => (0..=rng.below(3))
                .map(|_| vocabulary.word(&mut rng, from))
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect();
    let saved_at = Utc::now() - Duration::days(1);
    let started = thread_cpu_us();
    let (index, refused) = AlertBenchIndex::new(&queries, saved_at);
    let filing_ms = (thread_cpu_us() - started) / 1e3;
    let mut costs = Vec::with_capacity(probe);
    let mut matched = 0usize;
    for n in 0..probe {
        // A news-sized item: a title, a 45-word summary and 200 words of content.
        let item = NewsItem {
            story: None,
            id: format!("probe-{n}"),
            title: vocabulary.text(&mut rng, 8),
            summary: vocabulary.text(&mut rng, 45),
            short: String::new(),
            content: vocabulary.text(&mut rng, 200),
            url: Some(format!(
                "https://{}/{n}",
                ["www.theverge.com", "wired.com", "example.org"][rng.below(3)]
            )),
            source: None,
            published_date: Utc::now(),
        };
        let t = thread_cpu_us();
        matched += index.matches(&item);
        costs.push(thread_cpu_us() - t);
    }
    costs.sort_by(f64::total_cmp);
    let mean = costs.iter().sum::<f64>() / costs.len() as f64;
    let at = |q: f64| costs[((costs.len() - 1) as f64 * q) as usize];
    println!(
        "alerts {alerts} ({refused} refused), filed in {filing_ms:.0} ms of CPU; {probe} items: \
         {:.1} alerts matched per item; CPU per item: mean {mean:.0} µs, p50 {:.0} µs, \
         p99 {:.0} µs, max {:.0} µs",
        matched as f64 / probe as f64,
        at(0.5),
        at(0.99),
        costs[costs.len() - 1],
    );
}

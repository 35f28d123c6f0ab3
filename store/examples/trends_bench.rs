//! The CPU cost of trends at product scale: ITEMS news-like items (default 1,000,000)
//! over the 8 weeks the counts keep are counted, then each of the next PROBE items
//! (default 10,000) is timed alone as it arrives (term extraction from title and summary,
//! taking back what its id counted, counting it), then REQUESTS trends requests (default
//! 20) are timed (ranking every term kept, and picking each trend's stories).
//!
//! Timed by the thread's CPU time (the machine is shared: wall time counts others' work).
//! A request's few reads of story items from the backend are not included.
//!
//! `cargo run --release -p radar-store --example trends_bench`
//! (`ITEMS=200000 PROBE=20000 REQUESTS=50` to change the scale).
//!
//! Text: titles and summaries of lowercase words from a Zipf vocabulary of 30,000, with
//! one or two names per item drawn from a Zipf list of 50,000 two-word capitalised names
//! (so a few names are everywhere and most are rare, as in the news), one item in four
//! naming a topic, and stop words capitalised at sentence starts and mid-sentence.

#![expect(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    clippy::cast_sign_loss,
    reason = "benchmark arithmetic on counts"
)]

use std::time::Instant;

use chrono::{Duration, Utc};
use radar_store::{CountsForBench, NewsItem};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A Zipf sampler over `n` ranks.
struct Zipf(Vec<f64>);

impl Zipf {
    fn new(n: usize) -> Self {
        let mut total = 0.0;
        let mut c: Vec<f64> = (1..=n)
            .map(|r| {
                total += 1.0 / r as f64;
                total
            })
            .collect();
        for x in &mut c {
            *x /= total;
        }
        Self(c)
    }
    fn draw(&self, rng: &mut StdRng) -> usize {
        let u: f64 = rng.random();
        self.0.partition_point(|c| *c < u).min(self.0.len() - 1)
    }
}

fn syllables(mut n: usize, capital: bool) -> String {
    const S: [&str; 16] = [
        "ka", "lo", "mi", "ren", "tas", "vo", "zu", "bel", "dri", "fen", "gor", "hal", "jin",
        "qua", "sto", "wex",
    ];
    let mut w = String::new();
    for _ in 0..3 {
        w.push_str(S[n % 16]);
        n /= 16;
    }
    w.push_str(S[n % 16]);
    if capital {
        let mut c = w.chars();
        let first = c.next().unwrap().to_ascii_uppercase();
        w = std::iter::once(first).chain(c).collect();
    }
    w
}

const TOPICS: [&str; 8] = [
    "robotics",
    "regulation",
    "funding",
    "chips",
    "agents",
    "copyright",
    "safety",
    "reasoning",
];
const STARTS: [&str; 6] = ["The", "This", "On Monday,", "In March", "Why", "How"];

struct Gen {
    rng: StdRng,
    words: Zipf,
    names: Zipf,
    n: usize,
}

impl Gen {
    fn word(&mut self) -> String {
        syllables(self.words.draw(&mut self.rng), false)
    }
    fn name(&mut self) -> String {
        let r = self.names.draw(&mut self.rng);
        format!("{} {}", syllables(r, true), syllables(r * 7 + 3, true))
    }
    fn item(&mut self, published: chrono::DateTime<Utc>) -> NewsItem {
        self.n += 1;
        let name = self.name();
        let mut title = format!("{} {name}", STARTS[self.n % STARTS.len()]);
        for _ in 0..6 {
            title.push(' ');
            title.push_str(&self.word());
        }
        let mut summary = String::from("The");
        for i in 0..40 {
            summary.push(' ');
            if i == 12 && self.n.is_multiple_of(2) {
                summary.push_str(&self.name());
            } else if i == 20 && self.n.is_multiple_of(4) {
                summary.push_str(TOPICS[self.n / 4 % TOPICS.len()]);
            } else if i == 25 {
                summary.push_str("This.");
            } else {
                summary.push_str(&self.word());
            }
        }
        summary.push('.');
        NewsItem {
            story: None,
            id: format!("item-{}", self.n),
            title,
            summary,
            short: String::new(),
            content: String::new(),
            url: Some(format!("https://example.org/{}", self.n)),
            published_date: published,
            source: Some("Example".into()),
        }
    }
}

fn thread_cpu_us() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut ts) };
    ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 / 1e3
}

fn vm_hwm_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn summary(label: &str, mut times: Vec<f64>) {
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "{label}: mean {mean:.1} µs, p50 {:.1}, p99 {:.1}, max {:.1} (CPU, {} timed)",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times.last().unwrap(),
        times.len()
    );
}

fn main() {
    let items = env("ITEMS", 1_000_000);
    let probe = env("PROBE", 10_000);
    let requests = env("REQUESTS", 20);
    let now = Utc::now();
    let span_ms = Duration::days(55).num_milliseconds();
    let mut g = Gen {
        rng: StdRng::seed_from_u64(28),
        words: Zipf::new(30_000),
        names: Zipf::new(50_000),
        n: 0,
    };
    let mut counts = CountsForBench::new(now);
    let started = Instant::now();
    let cpu = thread_cpu_us();
    for _ in 0..items {
        let at = now - Duration::milliseconds(g.rng.random_range(0..span_ms));
        let item = g.item(at);
        counts.write(&item);
    }
    println!(
        "counted {} items in {:.1} s ({:.1} s of CPU with generating them)",
        counts.items(),
        started.elapsed().as_secs_f64(),
        (thread_cpu_us() - cpu) / 1e6
    );

    let mut arriving = Vec::with_capacity(probe);
    let mut updated = Vec::with_capacity(probe);
    for i in 0..probe {
        let item = g.item(now - Duration::minutes(i as i64));
        let t = thread_cpu_us();
        counts.write(&item);
        arriving.push(thread_cpu_us() - t);
        // The same item written again (an update): its old count taken back first.
        let t = thread_cpu_us();
        counts.write(&item);
        updated.push(thread_cpu_us() - t);
    }
    summary("an arriving item", arriving);
    summary("an item written again", updated);

    let mut ranked = Vec::with_capacity(requests);
    let mut sizes = (0, 0);
    for _ in 0..requests {
        let t = thread_cpu_us();
        sizes = counts.rank();
        ranked.push(thread_cpu_us() - t);
    }
    summary("a trends request (ranking)", ranked);
    println!(
        "{} rising, {} falling; peak memory {:.0} MB",
        sizes.0,
        sizes.1,
        vm_hwm_mb().unwrap_or(f64::NAN)
    );
}

//! The CPU cost of grouping one arriving item when many are already grouped.
//!
//! Groups ITEMS news-like items (default 1,000,000) spread over DAYS days (default 30, a
//! dense stream: 33,000 items a day) into an in-memory index, then times each of the next
//! PROBE items (default 10,000) one by one: features, MinHash, the bucket and member
//! lookups, the decision and its write. Items come from events (1 to 6 outlets each) whose
//! words are drawn from a Zipf vocabulary, so buckets fill as real ones do: common words
//! collide, names do not.
//!
//! `cargo run --release -p radar-stories --example grouping_bench`
//! (`ITEMS=200000 DAYS=365 PROBE=20000` to change the scale).

#![expect(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    clippy::cast_sign_loss,
    reason = "benchmark arithmetic on counts"
)]

use std::time::Instant;

use radar_stories::{Article, Grouper, MemoryIndex, Tier};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: a small fixed generator, so every run groups the same items.
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
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A Zipf vocabulary of `n` words.
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
    fn word(&self, rng: &mut Rng) -> String {
        let x = rng.unit() * self.cumulative.last().unwrap();
        let rank = self.cumulative.partition_point(|c| *c < x);
        format!("w{rank}")
    }
}

/// One event: its words and names, and when it happened.
struct Event {
    words: Vec<String>,
    names: Vec<String>,
    at: i64,
}

struct Generated {
    id: String,
    url: String,
    title: String,
    summary: String,
    published: i64,
}

fn item(rng: &mut Rng, vocabulary: &Vocabulary, event: &Event, n: usize) -> Generated {
    let mut pick = |k: usize, from_event: f64| -> Vec<String> {
        (0..k)
            .map(|_| {
                if rng.unit() < from_event {
                    event.words[rng.below(event.words.len())].clone()
                } else {
                    vocabulary.word(rng)
                }
            })
            .collect()
    };
    let mut title = pick(6, 0.7);
    let mut summary = pick(28, 0.5);
    title.insert(1, event.names[0].clone());
    summary.insert(3, event.names[0].clone());
    summary.insert(9, event.names[1].clone());
    let published = event.at + (rng.below(36 * 3600)) as i64;
    Generated {
        id: format!("item-{n}"),
        url: format!("https://outlet{}.example/{n}", rng.below(500)),
        title: title.join(" "),
        summary: format!("The {}.", summary.join(" ")),
        published,
    }
}

/// CPU time of this thread, in microseconds: the measure, since wall-clock time on a
/// machine shared with other work counts the time others ran.
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

fn main() {
    let items = env("ITEMS", 1_000_000);
    let days = env("DAYS", 30).max(1) as i64;
    let probe = env("PROBE", 10_000);
    let vocabulary = Vocabulary::new(60_000);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start = 1_790_000_000i64;
    let span = days * 86_400;

    let grouper = Grouper::default();
    let mut index = MemoryIndex::new();
    let mut n = 0usize;
    let mut event_no = 0usize;
    let mut make_events = |rng: &mut Rng, total: usize, n: &mut usize| -> Vec<Generated> {
        let mut out = Vec::with_capacity(total);
        while out.len() < total {
            event_no += 1;
            let event = Event {
                words: (0..14).map(|_| vocabulary.word(rng)).collect(),
                names: vec![format!("Name{event_no}a"), format!("Name{event_no}b")],
                at: start + (rng.below(span as usize)) as i64,
            };
            let outlets = 1 + rng.below(6);
            for _ in 0..outlets {
                *n += 1;
                out.push(item(rng, &vocabulary, &event, *n));
            }
        }
        out.truncate(total);
        out
    };

    println!("grouping {items} items over {days} days...");
    let loaded = Instant::now();
    let mut batch = make_events(&mut rng, items, &mut n);
    // Items arrive roughly in publication order.
    batch.sort_by_key(|g| g.published);
    let mut tiers = [0usize; 5];
    for (k, g) in batch.iter().enumerate() {
        let texts = [g.summary.as_str()];
        let a = Article {
            id: &g.id,
            url: Some(&g.url),
            title: &g.title,
            texts: &texts,
            content: "",
            published: g.published,
        };
        let d = grouper.assign(&mut index, &a, k as i64).unwrap();
        tiers[tier_no(d.tier)] += 1;
        if (k + 1) % 200_000 == 0 {
            println!(
                "  {} grouped, {:.1} s",
                k + 1,
                loaded.elapsed().as_secs_f64()
            );
        }
    }
    let load_secs = loaded.elapsed().as_secs_f64();
    let load_cpu = thread_cpu_us() / 1e6;
    drop(batch);
    println!(
        "grouped {items} items in {load_secs:.1} s, {load_cpu:.1} s of CPU with generating them ({:.1} µs of CPU an item on average); {} stories, the largest of {}; new {}, same url {}, near-duplicate {}, same event {}",
        load_cpu * 1e6 / items as f64,
        index.story_count(),
        index.largest_story(),
        tiers[0],
        tiers[2],
        tiers[3],
        tiers[4]
    );

    // The probe: items arriving now, among the newest days of the stream.
    let mut probes = make_events(&mut rng, probe, &mut n);
    for p in &mut probes {
        p.published = start + span - 3 * 86_400 + (p.published - start) % (3 * 86_400);
    }
    let mut times = Vec::with_capacity(probe);
    let mut joined = 0;
    for (k, g) in probes.iter().enumerate() {
        let texts = [g.summary.as_str()];
        let a = Article {
            id: &g.id,
            url: Some(&g.url),
            title: &g.title,
            texts: &texts,
            content: "",
            published: g.published,
        };
        let t = thread_cpu_us();
        let d = grouper.assign(&mut index, &a, (items + k) as i64).unwrap();
        times.push(thread_cpu_us() - t);
        if d.tier != Tier::New {
            joined += 1;
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "CPU time of each of the next {probe} items with {items} grouped: mean {mean:.1} µs, p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({joined} joined a story)",
        q(0.5),
        q(0.99),
        times.last().unwrap()
    );
    if let Some(mb) = vm_hwm_mb() {
        println!("peak memory (VmHWM) {mb:.0} MB");
    }
}

fn tier_no(t: Tier) -> usize {
    match t {
        Tier::New => 0,
        Tier::Known => 1,
        Tier::SameUrl => 2,
        Tier::NearDuplicate => 3,
        Tier::SameEvent => 4,
    }
}

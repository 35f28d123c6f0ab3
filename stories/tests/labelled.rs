//! The grouping's quality on the labelled set `tests/fixtures/stories/labelled.jsonl` (see
//! the README beside it): every item is grouped as it would arrive, and the outcome is
//! measured by pairwise precision and recall over same-story pairs. A pair of items is
//! predicted when the grouping put both in one story and true when the labels do;
//! precision = correct predicted pairs / predicted pairs, recall = correct predicted pairs
//! / true pairs. The test fails below precision 0.95 or recall 0.85, in publication
//! order and in a shuffled arrival order.
//!
//! `cargo test -p radar-stories --test labelled -- --nocapture` prints the figures and
//! every wrong or missed pair.

use std::collections::{HashMap, HashSet};

use radar_stories::{Article, Grouper, MemoryIndex};
use serde::Deserialize;

#[derive(Deserialize)]
struct Labelled {
    id: String,
    story: String,
    url: Option<String>,
    published_date: String,
    title: String,
    summary: String,
}

fn load() -> Vec<Labelled> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/stories/labelled.jsonl"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SSZ`.
fn epoch(date: &str) -> i64 {
    let n = |a: usize, b: usize| date[a..b].parse::<i64>().unwrap();
    let (y, m, d) = (n(0, 4), n(5, 7), n(8, 10));
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400 + n(11, 13) * 3600 + n(14, 16) * 60 + n(17, 19)
}

type Pair = (String, String);

fn pairs(groups: &HashMap<String, Vec<String>>) -> HashSet<Pair> {
    let mut out = HashSet::new();
    for members in groups.values() {
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                let (a, b) = if a < b { (a, b) } else { (b, a) };
                out.insert((a.clone(), b.clone()));
            }
        }
    }
    out
}

struct Figures {
    precision: f64,
    recall: f64,
    predicted: usize,
    truth: usize,
    stories: usize,
}

/// `part / whole` of two counts of pairs.
#[expect(
    clippy::cast_precision_loss,
    reason = "counts of a labelled set's pairs"
)]
fn ratio(part: usize, whole: usize) -> f64 {
    part as f64 / whole as f64
}

/// Groups the items in the given order and measures the outcome against the labels.
fn measure(items: &[&Labelled], report: bool) -> Figures {
    let g = Grouper::default();
    let mut index = MemoryIndex::new();
    for (arrived, it) in (0..).zip(items) {
        let texts = [it.summary.as_str()];
        let article = Article {
            id: &it.id,
            url: it.url.as_deref(),
            title: &it.title,
            texts: &texts,
            content: "",
            published: epoch(&it.published_date),
        };
        g.assign(&mut index, &article, arrived).unwrap();
    }
    let mut predicted: HashMap<String, Vec<String>> = HashMap::new();
    for (item, story) in index.assignments() {
        predicted.entry(story.to_string()).or_default().push(item);
    }
    let mut labelled: HashMap<String, Vec<String>> = HashMap::new();
    for it in items {
        labelled
            .entry(it.story.clone())
            .or_default()
            .push(it.id.clone());
    }
    let p = pairs(&predicted);
    let t = pairs(&labelled);
    let correct = p.intersection(&t).count();
    if report {
        let title: HashMap<&str, &str> = items
            .iter()
            .map(|i| (i.id.as_str(), i.title.as_str()))
            .collect();
        let mut wrong: Vec<&Pair> = p.difference(&t).collect();
        wrong.sort();
        for (a, b) in wrong {
            println!(
                "wrongly together: {a} {:?} / {b} {:?}",
                title[a.as_str()],
                title[b.as_str()]
            );
        }
        let mut missed: Vec<&Pair> = t.difference(&p).collect();
        missed.sort();
        for (a, b) in missed {
            println!(
                "missed: {a} {:?} / {b} {:?}",
                title[a.as_str()],
                title[b.as_str()]
            );
        }
    }
    Figures {
        precision: if p.is_empty() {
            1.0
        } else {
            ratio(correct, p.len())
        },
        recall: ratio(correct, t.len()),
        predicted: p.len(),
        truth: t.len(),
        stories: predicted.len(),
    }
}

fn check(name: &str, f: &Figures) {
    println!(
        "{name}: precision {:.3}, recall {:.3} ({} predicted pairs, {} true pairs, {} stories)",
        f.precision, f.recall, f.predicted, f.truth, f.stories
    );
    assert!(
        f.precision >= 0.95 && f.recall >= 0.85,
        "{name}: precision {:.3} (target 0.95), recall {:.3} (target 0.85)",
        f.precision,
        f.recall
    );
}

#[test]
fn the_labelled_set_is_as_described() {
    let items = load();
    let mut sizes: HashMap<&str, usize> = HashMap::new();
    for it in &items {
        *sizes.entry(it.story.as_str()).or_default() += 1;
    }
    let multi = sizes.values().filter(|n| **n > 1).count();
    assert!(items.len() >= 300, "{} items", items.len());
    assert!(multi >= 40, "{multi} multi-source stories");
    let ids: HashSet<&str> = items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids.len(), items.len(), "ids are unique");
}

#[test]
fn grouping_meets_the_targets_in_publication_order() {
    let items = load();
    let mut order: Vec<&Labelled> = items.iter().collect();
    order.sort_by(|a, b| {
        epoch(&a.published_date)
            .cmp(&epoch(&b.published_date))
            .then(a.id.cmp(&b.id))
    });
    check("publication order", &measure(&order, true));
}

#[test]
fn grouping_meets_the_targets_in_a_shuffled_arrival_order() {
    // Feeds are polled at different times: an item often arrives after later ones.
    let items = load();
    let mut order: Vec<&Labelled> = items.iter().collect();
    order.sort_by_key(|i| {
        i.id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    });
    check("shuffled order", &measure(&order, false));
}

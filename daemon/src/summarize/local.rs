//! The local, deterministic summariser: extractive, no network.
//!
//! 1. The week's items are split into sentences (citation markers stripped).
//! 2. Each sentence becomes a TF-IDF vector over its content words; its centrality is the
//!    cosine similarity to the week's centroid, so sentences about what many items talk
//!    about rank high and one-off details rank low.
//! 3. Each item is represented by its most central sentence and goes to the topic whose
//!    keywords its title and summary mention most (models, research,
//!    chips and compute, business, policy, open source, robotics, safety, tools).
//! 4. Per topic, the most central items are kept (one sentence each, so a topic
//!    paragraph draws on several stories); topics come in a fixed order.
//!
//! Ties break on item date, item id and position, so the same items always give the same
//! summary.

use std::collections::{BTreeMap, HashMap, HashSet};

use radar_store::NewsItem;
use radar_store::display::strip_citations;

use super::Draft;
use crate::ingest::clean::sentences;

/// Topics in the order they appear, with the keywords that place a sentence in them.
const TOPICS: &[(&str, &[&str])] = &[
    (
        "Models",
        &[
            "model",
            "models",
            "llm",
            "gpt",
            "claude",
            "gemini",
            "llama",
            "multimodal",
            "reasoning",
            "benchmark",
            "release",
            "released",
            "launch",
            "launched",
            "context",
            "tokens",
        ],
    ),
    (
        "Research",
        &[
            "research",
            "researchers",
            "paper",
            "study",
            "scientists",
            "university",
            "arxiv",
            "findings",
            "experiment",
            "dataset",
            "discovery",
        ],
    ),
    (
        "Chips & compute",
        &[
            "chip",
            "chips",
            "gpu",
            "gpus",
            "nvidia",
            "amd",
            "tsmc",
            "semiconductor",
            "compute",
            "datacenter",
            "data",
            "inference",
            "accelerator",
            "hardware",
            "power",
        ],
    ),
    (
        "Business",
        &[
            "funding",
            "raised",
            "valuation",
            "revenue",
            "investment",
            "investors",
            "acquisition",
            "acquire",
            "startup",
            "billion",
            "million",
            "customers",
            "enterprise",
            "market",
            "shares",
            "deal",
        ],
    ),
    (
        "Policy",
        &[
            "regulation",
            "regulators",
            "law",
            "act",
            "policy",
            "government",
            "eu",
            "commission",
            "congress",
            "senate",
            "court",
            "lawsuit",
            "copyright",
            "ban",
            "rules",
            "compliance",
        ],
    ),
    (
        "Open source",
        &[
            "open",
            "source",
            "weights",
            "hugging",
            "github",
            "license",
            "community",
            "open-source",
            "open-weight",
        ],
    ),
    (
        "Robotics",
        &[
            "robot",
            "robots",
            "robotics",
            "humanoid",
            "autonomous",
            "driving",
            "drone",
            "drones",
            "vehicle",
            "vehicles",
        ],
    ),
    (
        "Safety",
        &[
            "safety",
            "alignment",
            "risk",
            "risks",
            "misuse",
            "evaluation",
            "evaluations",
            "red",
            "security",
            "jailbreak",
            "harm",
            "harmful",
            "safeguards",
        ],
    ),
    (
        "Tools",
        &[
            "tool",
            "tools",
            "agent",
            "agents",
            "api",
            "developers",
            "coding",
            "assistant",
            "app",
            "apps",
            "plugin",
            "sdk",
            "integration",
            "feature",
            "features",
        ],
    ),
];
/// Sentences that match no topic.
const OTHER: &str = "Also this week";

/// Kept per topic.
const PER_TOPIC: usize = 3;
/// Sentences shorter or longer than this (in characters) make poor summary material.
const MIN_SENTENCE: usize = 40;
const MAX_SENTENCE: usize = 400;

const STOPWORDS: &[&str] = &[
    "the", "and", "for", "that", "with", "this", "from", "are", "was", "were", "has", "have",
    "had", "its", "it's", "but", "not", "you", "your", "our", "their", "they", "them", "his",
    "her", "she", "him", "will", "would", "can", "could", "should", "may", "might", "into", "than",
    "then", "there", "these", "those", "which", "who", "whom", "what", "when", "where", "why",
    "how", "all", "any", "each", "more", "most", "other", "some", "such", "only", "own", "same",
    "also", "just", "over", "about", "after", "before", "between", "through", "during", "under",
    "again", "further", "once", "been", "being", "does", "did", "doing", "said", "says", "say",
    "new", "one", "two", "out", "off", "very", "too", "now", "while", "because", "both", "per",
];

struct Sentence {
    text: String,
    item: usize,
    position: usize,
    terms: HashMap<String, f64>,
}

fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| {
            w.chars().count() >= 3
                && !STOPWORDS.contains(&w.as_str())
                && !w.chars().all(|c| c.is_ascii_digit())
        })
}

/// Summarises the week's items; `items` must be non-empty.
pub fn summarize(items: &[NewsItem]) -> Draft {
    // A stable order whatever order the store gave: date, then id.
    let mut items: Vec<&NewsItem> = items.iter().collect();
    items.sort_by(|a, b| {
        a.published_date
            .cmp(&b.published_date)
            .then_with(|| a.id.cmp(&b.id))
    });

    let mut seen = HashSet::new();
    let mut sents: Vec<Sentence> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let text = strip_citations(&format!("{}\n\n{}", item.summary, item.content));
        for (p, s) in text.split("\n\n").flat_map(sentences).enumerate() {
            let n = s.chars().count();
            if !(MIN_SENTENCE..=MAX_SENTENCE).contains(&n) || !seen.insert(s.to_lowercase()) {
                continue;
            }
            let mut terms = HashMap::new();
            for w in words(&s) {
                *terms.entry(w).or_insert(0.0) += 1.0;
            }
            if !terms.is_empty() {
                sents.push(Sentence {
                    text: s,
                    item: i,
                    position: p,
                    terms,
                });
            }
        }
    }

    // TF-IDF weights, unit length.
    let n = sents.len().max(1) as f64;
    let mut df: HashMap<&str, f64> = HashMap::new();
    for s in &sents {
        for t in s.terms.keys() {
            *df.entry(t.as_str()).or_insert(0.0) += 1.0;
        }
    }
    let idf: HashMap<String, f64> = df
        .iter()
        .map(|(t, d)| (t.to_string(), (n / d).ln() + 1.0))
        .collect();
    let vectors: Vec<BTreeMap<&str, f64>> = sents
        .iter()
        .map(|s| {
            let mut v: BTreeMap<&str, f64> = s
                .terms
                .iter()
                .map(|(t, tf)| (t.as_str(), tf * idf[t]))
                .collect();
            let norm = v
                .values()
                .map(|x| x * x)
                .sum::<f64>()
                .sqrt()
                .max(f64::MIN_POSITIVE);
            v.values_mut().for_each(|x| *x /= norm);
            v
        })
        .collect();
    let mut centroid: BTreeMap<&str, f64> = BTreeMap::new();
    for v in &vectors {
        for (t, x) in v {
            *centroid.entry(t).or_insert(0.0) += x / n;
        }
    }
    let cnorm = centroid
        .values()
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt()
        .max(f64::MIN_POSITIVE);
    let score: Vec<f64> = vectors
        .iter()
        .map(|v| {
            v.iter()
                .map(|(t, x)| x * centroid.get(t).unwrap_or(&0.0))
                .sum::<f64>()
                / cnorm
        })
        .collect();

    // Each item is represented by its most central sentence, a lead sentence slightly
    // preferred (leads carry the news); the item ranks by that sentence's score.
    const LEAD_BONUS: f64 = 0.15;
    let mut best: Vec<Option<usize>> = vec![None; items.len()];
    for (i, s) in sents.iter().enumerate() {
        let value = |j: usize| {
            score[j]
                + if sents[j].position == 0 {
                    LEAD_BONUS
                } else {
                    0.0
                }
        };
        let slot = &mut best[s.item];
        // Strictly greater keeps the earlier sentence on ties: deterministic.
        if slot.is_none_or(|b| value(i) > value(b)) {
            *slot = Some(i);
        }
    }
    // An item's topic comes from its title (counted twice) and summary.
    let topic_of = |item: &NewsItem| -> usize {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for w in words(&item.title) {
            *counts.entry(w).or_insert(0) += 2;
        }
        for w in words(&strip_citations(&item.summary)) {
            *counts.entry(w).or_insert(0) += 1;
        }
        let hits = |kw: &[&str]| {
            kw.iter()
                .map(|k| counts.get(*k).copied().unwrap_or(0))
                .sum::<usize>()
        };
        let (best, count) = TOPICS
            .iter()
            .enumerate()
            .map(|(i, (_, kw))| (i, hits(kw)))
            .fold(
                (TOPICS.len(), 0),
                |acc, (i, h)| if h > acc.1 { (i, h) } else { acc },
            );
        if count == 0 { TOPICS.len() } else { best }
    };
    let mut per_topic: Vec<Vec<usize>> = vec![Vec::new(); TOPICS.len() + 1];
    for (item, b) in best.iter().enumerate() {
        if let Some(b) = b {
            per_topic[topic_of(items[item])].push(*b);
        }
    }
    // The overall ranking of sentences, for the summary's lead.
    let by_score = |a: &usize, b: &usize| {
        score[*b]
            .partial_cmp(&score[*a])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(sents[*a].item.cmp(&sents[*b].item))
            .then(sents[*a].position.cmp(&sents[*b].position))
    };
    let mut ranked: Vec<usize> = best.iter().flatten().copied().collect();
    ranked.sort_by(by_score);

    let mut content = Vec::new();
    let mut topic_sizes: Vec<(usize, &str)> = Vec::new();
    for (t, candidates) in per_topic.iter_mut().enumerate() {
        if candidates.is_empty() {
            continue;
        }
        let name = TOPICS.get(t).map_or(OTHER, |(name, _)| name);
        if t < TOPICS.len() {
            topic_sizes.push((candidates.len(), name));
        }
        candidates.sort_by(by_score);
        let mut picked: Vec<usize> = candidates.iter().take(PER_TOPIC).copied().collect();
        // Within a paragraph, the stories read in date order.
        picked.sort_by_key(|&i| (sents[i].item, sents[i].position));
        let text: Vec<&str> = picked.iter().map(|&i| sents[i].text.as_str()).collect();
        content.push(format!("{name}: {}", text.join(" ")));
    }
    if content.is_empty() {
        // Items too short for sentence extraction: list their titles.
        content = items
            .iter()
            .map(|i| format!("{}: {}", i.title, strip_citations(&i.summary)))
            .collect();
    }

    topic_sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let names: Vec<String> = topic_sizes
        .iter()
        .take(3)
        .map(|(_, n)| n.to_lowercase())
        .collect();
    let count = items.len();
    let mut summary = format!(
        "{count} {} this week",
        if count == 1 { "story" } else { "stories" }
    );
    match names.as_slice() {
        [] => summary.push('.'),
        [a] => summary.push_str(&format!(", mostly about {a}.")),
        [a, b] => summary.push_str(&format!(", mostly about {a} and {b}.")),
        [a, b, c, ..] => summary.push_str(&format!(", mostly about {a}, {b} and {c}.")),
    }
    if let Some(&top) = ranked.first() {
        summary.push(' ');
        summary.push_str(&sents[top].text);
    }
    Draft { summary, content }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn item(id: &str, summary: &str, content: &str, day: u32) -> NewsItem {
        NewsItem {
            id: id.into(),
            title: format!("Title {id}"),
            summary: summary.into(),
            short: String::new(),
            content: content.into(),
            url: None,
            published_date: format!("2026-11-{day:02}T10:00:00Z")
                .parse::<DateTime<Utc>>()
                .unwrap(),
            source: None,
        }
    }

    fn week() -> Vec<NewsItem> {
        vec![
            item(
                "a",
                "A lab released a new reasoning model with a longer context window [1].",
                "The model beats earlier models on coding benchmarks by a wide margin. Pricing stays the same for developers.",
                16,
            ),
            item(
                "b",
                "Nvidia said demand for its datacenter GPUs keeps growing this quarter.",
                "The chip maker expects compute demand for inference to double next year.",
                17,
            ),
            item(
                "c",
                "European regulators opened a consultation on rules for general-purpose AI models.",
                "The commission wants comments on copyright and transparency obligations by March.",
                18,
            ),
            item(
                "d",
                "Another lab released an open-weight model under a permissive license on GitHub.",
                "The open source community has already fine-tuned the weights for several languages.",
                19,
            ),
        ]
    }

    #[test]
    fn is_deterministic_whatever_the_input_order() {
        let mut items = week();
        let a = summarize(&items);
        items.reverse();
        let b = summarize(&items);
        assert_eq!(a, b);
    }

    #[test]
    fn groups_by_topic_and_strips_citations() {
        let d = summarize(&week());
        assert!(
            d.summary.starts_with("4 stories this week"),
            "{}",
            d.summary
        );
        let all = d.content.join("\n");
        assert!(!all.contains("[1]"));
        assert!(d.content.iter().any(|p| p.starts_with("Models: ")), "{all}");
        assert!(
            d.content
                .iter()
                .any(|p| p.starts_with("Chips & compute: ") || p.starts_with("Business: ")),
            "{all}"
        );
        assert!(d.content.iter().any(|p| p.starts_with("Policy: ")), "{all}");
        // Every sentence comes from the items.
        let source: String = week()
            .iter()
            .map(|i| format!("{} {}", i.summary, i.content))
            .collect();
        for p in &d.content {
            let body = p.split_once(": ").unwrap().1;
            for s in sentences(body) {
                assert!(
                    strip_citations(&source).contains(&s),
                    "{s:?} is not from the items"
                );
            }
        }
    }

    #[test]
    fn tiny_items_still_give_content() {
        let d = summarize(&[item("x", "Short.", "", 16)]);
        assert_eq!(d.content, ["Title x: Short."]);
        assert!(d.summary.starts_with("1 story this week"));
    }
}

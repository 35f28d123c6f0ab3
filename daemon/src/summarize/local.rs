//! The local, deterministic summariser: extractive, no network.
//!
//! 1. The week's items are split into sentences (citation markers stripped).
//! 2. Each sentence becomes a TF-IDF vector over its content words; its centrality is the
//!    cosine similarity to the week's centroid, so sentences about what many items talk
//!    about rank high and one-off details rank low.
//! 3. Each item is represented by its most central sentence and goes to the topic its own
//!    headline names most (models, research, chips and compute, business, policy, open
//!    source, robotics, safety, tools; the more specific wins a tie), or, when the headline
//!    names none, the topic its summary names at least twice. Keywords that turn up in any
//!    story are not keywords, so a stray word does not file an app update under chips.
//!    Stories no topic claims go to "Also this week".
//! 4. The most central story leads the summary. Per topic, the most central stories are
//!    kept, one sentence each, each followed by its source and link; the lead story
//!    appears there with another of its sentences (or not at all), never word for word
//!    again. Topics come in a fixed order.
//! 5. The title names the week's biggest topics.
//!
//! Ties break on item date, item id and position, so the same items always give the same
//! summary.

use std::collections::{BTreeMap, HashMap, HashSet};

use radar_store::NewsItem;
use radar_store::display::strip_citations;

use super::Draft;
use crate::ingest::clean::sentences;

/// Topics in the order they appear, with the words that place a story in them (a keyword
/// of several words matches them in sequence). Words that turn up in any kind of story
/// ("model", "researchers", "data", "power", "open", "release", "law") are left out on
/// purpose: they filed stories by accident.
const TOPICS: &[(&str, &[&str])] = &[
    (
        "Models",
        &[
            "llm",
            "llms",
            "gpt",
            "claude",
            "gemini",
            "llama",
            "qwen",
            "multimodal",
            "reasoning",
            "benchmark",
            "benchmarks",
            "language model",
            "foundation model",
            "frontier model",
            "mixture-of-experts",
            "parameters",
        ],
    ),
    (
        "Research",
        &[
            "research",
            "paper",
            "preprint",
            "study",
            "university",
            "arxiv",
            "findings",
            "experiment",
            "dataset",
            "interpretability",
            "scaling laws",
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
            "semiconductors",
            "compute",
            "data center",
            "data centers",
            "datacenter",
            "datacenters",
            "accelerator",
            "accelerators",
            "hardware",
            "silicon",
            "high-bandwidth",
            "packaging",
            "interconnect",
        ],
    ),
    (
        "Business",
        &[
            "funding",
            "raises",
            "raised",
            "valuation",
            "valuations",
            "revenue",
            "investment",
            "investors",
            "acquisition",
            "acquires",
            "startup",
            "startups",
            "billion",
            "million",
            "customers",
            "enterprise",
            "enterprises",
            "market",
            "deal",
            "deals",
            "business",
            "pricing",
            "series a",
            "series b",
            "series c",
            "seed round",
        ],
    ),
    (
        "Policy",
        &[
            "regulation",
            "regulators",
            "regulatory",
            "laws",
            "legislation",
            "legislatures",
            "lawmakers",
            "bills",
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
            "guidance",
            "exports",
            "code of practice",
        ],
    ),
    (
        "Open source",
        &[
            "open source",
            "open-source",
            "open-weight",
            "open weights",
            "fully open",
            "hugging face",
            "apache",
            "license",
        ],
    ),
    (
        "Robotics",
        &[
            "robot",
            "robots",
            "robotics",
            "humanoid",
            "humanoids",
            "autonomous",
            "driverless",
            "drone",
            "drones",
            "vehicle",
            "vehicles",
            "trucks",
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
            "red-teaming",
            "red team",
            "security",
            "jailbreak",
            "hijacked",
            "prompt injection",
            "harm",
            "harmful",
            "safeguards",
            "incident",
            "reward hacking",
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
            "assistants",
            "app",
            "apps",
            "plugin",
            "sdk",
            "copilot",
            "chatgpt",
            "workspaces",
            "projects",
            "features",
        ],
    ),
];
/// Which topic wins when a story's words name two equally: the specific before the
/// general (a red-teaming contest of agents is safety news before it is tools news).
const PRECEDENCE: &[&str] = &[
    "Safety",
    "Policy",
    "Robotics",
    "Open source",
    "Chips & compute",
    "Research",
    "Models",
    "Business",
    "Tools",
];
/// A story whose sentence is this similar (cosine of TF-IDF vectors) to the lead sentence
/// tells the lead story again, from another source or in other words.
const SAME_STORY: f64 = 0.5;
/// A headline without a topic's keyword needs this many in its summary to be filed there.
const MIN_SUMMARY_HITS: usize = 2;
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

/// The topic a story belongs to, by its own words: an index into [`TOPICS`], or
/// `TOPICS.len()` for "Also this week".
fn topic_of(item: &NewsItem) -> usize {
    // The headline decides; the summary only when the headline names no topic.
    [
        (tokens(&item.title), 1),
        (tokens(&strip_citations(&item.summary)), MIN_SUMMARY_HITS),
    ]
    .iter()
    .find_map(|(words, least)| {
        TOPICS
            .iter()
            .enumerate()
            .map(|(i, (_, keywords))| {
                let hits: usize = keywords.iter().map(|kw| occurrences(words, kw)).sum();
                (i, hits)
            })
            .filter(|(_, hits)| hits >= least)
            .max_by_key(|&(i, hits)| (hits, std::cmp::Reverse(precedence(i))))
            .map(|(i, _)| i)
    })
    .unwrap_or(TOPICS.len())
}

/// The words of `text`, lower-cased, hyphens kept inside words.
fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// How often a keyword (a word, or words separated by spaces) occurs in `words`.
fn occurrences(words: &[String], keyword: &str) -> usize {
    let parts: Vec<&str> = keyword.split(' ').collect();
    words
        .windows(parts.len())
        .filter(|w| w.iter().zip(&parts).all(|(a, b)| a == b))
        .count()
}

/// A topic's rank in [`PRECEDENCE`] (lower wins).
fn precedence(topic: usize) -> usize {
    PRECEDENCE
        .iter()
        .position(|p| *p == TOPICS[topic].0)
        .unwrap_or(PRECEDENCE.len())
}

/// The week's topics by how many stories each has, biggest first (ties in topic order);
/// "Also this week" is not a topic.
fn topics_by_size(items: &[&NewsItem]) -> Vec<(usize, usize)> {
    let mut sizes = vec![0; TOPICS.len()];
    for item in items {
        if let Some(n) = sizes.get_mut(topic_of(item)) {
            *n += 1;
        }
    }
    let mut ranked: Vec<(usize, usize)> = sizes
        .into_iter()
        .enumerate()
        .filter(|(_, n)| *n > 0)
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked
}

/// "a", "a and b", "a, b and c".
fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A title that says what the week was about: its biggest topics, as in "AI this week:
/// models, policy and robotics". `None` when no story has a topic (then the summary keeps
/// the default title).
pub fn title(items: &[NewsItem]) -> Option<String> {
    let items: Vec<&NewsItem> = items.iter().collect();
    title_of(&topics_by_size(&items))
}

fn title_of(topics: &[(usize, usize)]) -> Option<String> {
    let names: Vec<String> = topics
        .iter()
        .take(3)
        .map(|(t, _)| TOPICS[*t].0.to_lowercase())
        .collect();
    (!names.is_empty()).then(|| format!("AI this week: {}", and_list(&names)))
}

/// A story as a section cites it: the sentence, then its source and link, so every story
/// in the content leads to the original.
fn cited(sentence: &str, item: &NewsItem) -> String {
    match &item.url {
        Some(url) => {
            let source = item.source.as_deref().unwrap_or("Source");
            format!("{sentence} ({source}: {url})")
        }
        None => sentence.to_string(),
    }
}

/// What stands for a story in its section.
#[derive(Debug, Clone, Copy)]
enum Shown {
    /// One of its sentences.
    Sentence(usize),
    /// Its title.
    Headline,
}

/// A title as a sentence: with a full stop unless it ends in punctuation.
fn headline(title: &str) -> String {
    let title = title.trim();
    if title.ends_with(['.', '!', '?', '…']) {
        title.to_string()
    } else {
        format!("{title}.")
    }
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
    let sents = sentences_of(&items);
    let weighed = Weighed::new(&sents);
    let (best, second) = weighed.best_per_item(items.len());
    // The overall ranking of sentences, for the summary's lead.
    let mut ranked: Vec<usize> = best.iter().flatten().copied().collect();
    ranked.sort_by(|a, b| weighed.by_score(*a, *b));
    let lead = ranked.first().copied();

    let mut content = sections(&items, &weighed, &best, &second, lead);
    if content.is_empty() && lead.is_none() {
        // Items too short for sentence extraction: list their titles.
        content = items
            .iter()
            .map(|i| cited(&format!("{}: {}", i.title, strip_citations(&i.summary)), i))
            .collect();
    }

    let topics = topics_by_size(&items);
    let names: Vec<String> = topics
        .iter()
        .take(3)
        .map(|(t, _)| TOPICS[*t].0.to_lowercase())
        .collect();
    let count = items.len();
    let mut summary = format!(
        "{count} {} this week",
        if count == 1 { "story" } else { "stories" }
    );
    if names.is_empty() {
        summary.push('.');
    } else {
        summary.push_str(&format!(", mostly about {}.", and_list(&names)));
    }
    if let Some(top) = lead {
        summary.push(' ');
        summary.push_str(&sents[top].text);
    }
    Draft {
        title: title_of(&topics),
        summary,
        content,
    }
}

/// Every usable sentence of the items' summaries and contents, once each (the same
/// sentence in two items counts once), with its terms.
fn sentences_of(items: &[&NewsItem]) -> Vec<Sentence> {
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
    sents
}

/// The sentences as TF-IDF vectors of unit length, each scored by its closeness to the
/// week's centroid.
struct Weighed<'a> {
    sents: &'a [Sentence],
    vectors: Vec<BTreeMap<&'a str, f64>>,
    score: Vec<f64>,
}

/// A vector's length, never zero (it divides).
fn length(v: &BTreeMap<&str, f64>) -> f64 {
    v.values()
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt()
        .max(f64::MIN_POSITIVE)
}

/// How much a lead sentence is preferred: leads carry the news.
const LEAD_BONUS: f64 = 0.15;

impl<'a> Weighed<'a> {
    fn new(sents: &'a [Sentence]) -> Self {
        #[expect(clippy::cast_precision_loss, reason = "a count of sentences")]
        let n = sents.len().max(1) as f64;
        let mut df: HashMap<&str, f64> = HashMap::new();
        for s in sents {
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
                let norm = length(&v);
                for x in v.values_mut() {
                    *x /= norm;
                }
                v
            })
            .collect();
        let mut centroid: BTreeMap<&str, f64> = BTreeMap::new();
        for v in &vectors {
            for (t, x) in v {
                *centroid.entry(t).or_insert(0.0) += x / n;
            }
        }
        let cnorm = length(&centroid);
        let score: Vec<f64> = vectors
            .iter()
            .map(|v| {
                v.iter()
                    .map(|(t, x)| x * centroid.get(t).unwrap_or(&0.0))
                    .sum::<f64>()
                    / cnorm
            })
            .collect();
        Weighed {
            sents,
            vectors,
            score,
        }
    }

    /// A sentence's score with the lead's bonus.
    fn value(&self, j: usize) -> f64 {
        self.score[j]
            + if self.sents[j].position == 0 {
                LEAD_BONUS
            } else {
                0.0
            }
    }

    /// Best score first; ties by item, then place in it.
    fn by_score(&self, a: usize, b: usize) -> std::cmp::Ordering {
        self.score[b]
            .partial_cmp(&self.score[a])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(self.sents[a].item.cmp(&self.sents[b].item))
            .then(self.sents[a].position.cmp(&self.sents[b].position))
    }

    fn cosine(&self, a: usize, b: usize) -> f64 {
        self.vectors[a]
            .iter()
            .map(|(t, x)| x * self.vectors[b].get(t).unwrap_or(&0.0))
            .sum()
    }

    /// Each item is represented by its most central sentence, a lead sentence slightly
    /// preferred; the item ranks by that sentence's score. Its runner-up stands in for it
    /// where that first sentence is already used. Answers both per item.
    fn best_per_item(&self, items: usize) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
        let mut best: Vec<Option<usize>> = vec![None; items];
        let mut second: Vec<Option<usize>> = vec![None; items];
        for (i, sentence) in self.sents.iter().enumerate() {
            let item = sentence.item;
            // Strictly greater keeps the earlier sentence on ties: deterministic.
            if best[item].is_none_or(|b| self.value(i) > self.value(b)) {
                second[item] = best[item];
                best[item] = Some(i);
            } else if second[item].is_none_or(|b| self.value(i) > self.value(b)) {
                second[item] = Some(i);
            }
        }
        (best, second)
    }
}

/// The summary's paragraphs: stories by topic, each with what represents it. The lead's
/// best sentence opens the summary, so the lead story shows its runner-up sentence, or its
/// headline when that sentence only says the same again; other stories that retell the
/// lead are left out.
fn sections(
    items: &[&NewsItem],
    weighed: &Weighed<'_>,
    best: &[Option<usize>],
    second: &[Option<usize>],
    lead: Option<usize>,
) -> Vec<String> {
    let sents = weighed.sents;
    let retells_lead = |i: usize| lead.is_some_and(|l| weighed.cosine(i, l) >= SAME_STORY);
    let mut per_topic: Vec<Vec<(usize, Shown)>> = vec![Vec::new(); TOPICS.len() + 1];
    for (item, b) in best.iter().enumerate() {
        let Some(b) = *b else { continue };
        let shown = if Some(b) == lead {
            match second[item] {
                Some(r) if !retells_lead(r) => Shown::Sentence(r),
                _ => Shown::Headline,
            }
        } else if retells_lead(b) {
            continue;
        } else {
            Shown::Sentence(b)
        };
        per_topic[topic_of(items[item])].push((b, shown));
    }
    let mut content = Vec::new();
    for (t, stories) in per_topic.iter_mut().enumerate() {
        if stories.is_empty() {
            continue;
        }
        let name = TOPICS.get(t).map_or(OTHER, |(name, _)| name);
        // The most central stories of the topic, ranked by their best sentence.
        stories.sort_by(|a, b| weighed.by_score(a.0, b.0));
        let mut picked: Vec<(usize, Shown)> = stories.iter().take(PER_TOPIC).copied().collect();
        // Within a paragraph, the stories read in date order.
        picked.sort_by_key(|&(b, _)| sents[b].item);
        let text: Vec<String> = picked
            .iter()
            .map(|&(b, shown)| {
                let item = items[sents[b].item];
                match shown {
                    Shown::Sentence(i) => cited(&sents[i].text, item),
                    Shown::Headline => cited(&headline(&item.title), item),
                }
            })
            .collect();
        content.push(format!("{name}: {}", text.join(" ")));
    }
    content
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
        let titled = |title: &str, i: NewsItem| NewsItem {
            title: title.into(),
            ..i
        };
        vec![
            titled(
                "Lab releases a reasoning model with a longer context",
                item(
                    "a",
                    "A lab released a new reasoning model with a longer context window [1].",
                    "The model beats earlier models on coding benchmarks by a wide margin. Pricing stays the same for developers.",
                    16,
                ),
            ),
            titled(
                "Nvidia says datacenter GPU demand keeps growing",
                item(
                    "b",
                    "Nvidia said demand for its datacenter GPUs keeps growing this quarter.",
                    "The chip maker expects compute demand for inference to double next year.",
                    17,
                ),
            ),
            titled(
                "EU regulators consult on rules for general-purpose AI",
                item(
                    "c",
                    "European regulators opened a consultation on rules for general-purpose AI models.",
                    "The commission wants comments on copyright and transparency obligations by March.",
                    18,
                ),
            ),
            titled(
                "Another lab publishes an open-weight model",
                item(
                    "d",
                    "Another lab released an open-weight model under a permissive license on GitHub.",
                    "The open source community has already fine-tuned the weights for several languages.",
                    19,
                ),
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

    fn story(id: &str, title: &str, summary: &str, url: &str, day: u32) -> NewsItem {
        NewsItem {
            title: title.into(),
            url: Some(url.into()),
            source: radar_store::display::source_name(Some(url)),
            ..item(id, summary, "", day)
        }
    }

    /// Stories of the demo data, with the section each belongs in.
    fn filed() -> Vec<(NewsItem, &'static str)> {
        vec![
            (
                story(
                    "1",
                    "ChatGPT adds shared projects with common memory for business workspaces",
                    "OpenAI is adding shared projects to ChatGPT business plans, letting teams collaborate in a workspace with shared files and instructions.",
                    "https://openai.com/index/shared-projects",
                    16,
                ),
                "Tools",
            ),
            (
                story(
                    "2",
                    "Utilities sign nuclear power deals with data center operators as AI demand grows",
                    "US utilities and independent power producers have signed long-term agreements to supply electricity to data centers being built for AI workloads.",
                    "https://www.utilitydive.com/news/nuclear",
                    16,
                ),
                "Chips & compute",
            ),
            (
                story(
                    "3",
                    "Warehouse humanoid startup Lattice Robotics raises $180M Series B",
                    "Lattice Robotics, which builds wheeled humanoid robots for warehouse picking and tote handling, has raised a Series B round to expand deployments.",
                    "https://techcrunch.com/lattice",
                    17,
                ),
                "Business",
            ),
            (
                story(
                    "7",
                    "Vantor Dynamics begins humanoid robot pilot at a European automotive parts plant",
                    "Humanoid developer Vantor Dynamics has started a six-month pilot at a European automotive parts supplier, moving bins between lines.",
                    "https://www.therobotreport.com/vantor",
                    18,
                ),
                "Robotics",
            ),
            (
                story(
                    "4",
                    "EU AI Office publishes draft guidance on serious incident reporting for general-purpose AI models",
                    "The European Commission's AI Office has released draft guidance explaining how providers must report serious incidents to regulators.",
                    "https://digital-strategy.ec.europa.eu/guidance",
                    17,
                ),
                "Policy",
            ),
            (
                story(
                    "5",
                    "Mistral releases open-weight coding model under Apache 2.0 license",
                    "Mistral AI has released a new open-weight model specialized for code, licensed under Apache 2.0 and available on Hugging Face.",
                    "https://mistral.ai/news/code",
                    18,
                ),
                "Open source",
            ),
            (
                story(
                    "6",
                    "Grocery chain Harborline credits AI demand forecasting with cutting fresh-food waste",
                    "Regional grocery chain Harborline says machine learning forecasts for fresh produce have cut waste across its stores this year.",
                    "https://www.grocerydive.com/harborline",
                    19,
                ),
                OTHER,
            ),
        ]
    }

    /// The section holding a story's link.
    fn section_of<'a>(d: &'a Draft, url: &str) -> Option<&'a str> {
        d.content
            .iter()
            .find(|p| p.contains(url))
            .map(|p| p.split_once(": ").unwrap().0)
    }

    #[test]
    fn stories_are_filed_by_their_own_words() {
        // Regression (issue 15): "Chips & compute: ... OpenAI is adding shared projects to
        // ChatGPT business plans".
        let stories = filed();
        for (s, want) in &stories {
            assert_eq!(
                TOPICS.get(topic_of(s)).map_or(OTHER, |t| t.0),
                *want,
                "{}",
                s.title
            );
        }
        let items: Vec<NewsItem> = stories.into_iter().map(|(s, _)| s).collect();
        let d = summarize(&items);
        assert_eq!(
            section_of(&d, "https://openai.com/index/shared-projects"),
            Some("Tools"),
            "{d:#?}"
        );
        assert_eq!(
            section_of(&d, "https://www.therobotreport.com/vantor"),
            Some("Robotics")
        );
    }

    #[test]
    fn the_lead_is_never_repeated_and_every_story_is_linked() {
        // Regression (issue 15): the lead story was repeated word for word below.
        let items: Vec<NewsItem> = week()
            .into_iter()
            .map(|i| NewsItem {
                url: Some(format!("https://news.example/{}", i.id)),
                source: Some("Example".into()),
                ..i
            })
            .collect();
        let d = summarize(&items);
        let lead = sentences(&d.summary).last().unwrap().clone();
        assert!(lead.chars().count() >= MIN_SENTENCE, "{}", d.summary);
        for p in &d.content {
            assert!(!p.contains(&lead), "{lead:?} again in {p:?}");
            let body = p.split_once(": ").unwrap().1;
            for s in sentences(body).iter().filter(|s| !s.starts_with('(')) {
                let item = items
                    .iter()
                    .find(|i| format!("{} {}", i.summary, i.content).contains(s.as_str()))
                    .unwrap_or_else(|| panic!("{s:?} is from no item"));
                let link = format!("{s} (Example: {})", item.url.as_deref().unwrap());
                assert!(
                    p.contains(&link),
                    "{s:?} is not followed by its link in {p:?}"
                );
            }
        }
    }

    #[test]
    fn the_title_names_the_biggest_topics() {
        let d = summarize(&week());
        assert_eq!(
            d.title.as_deref(),
            Some("AI this week: models, chips & compute and policy"),
            "{d:#?}"
        );
        assert_eq!(summarize(&[item("x", "Short.", "", 16)]).title, None);
        assert_eq!(
            and_list(&["a".into(), "b".into(), "c".into()]),
            "a, b and c"
        );
    }

    /// The demo data set as of a fixed time, by ISO week.
    fn demo_weeks() -> Vec<Vec<NewsItem>> {
        let demo: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../../store/src/demo_items.json")).unwrap();
        let now: DateTime<Utc> = "2026-11-22T12:00:00Z".parse().unwrap();
        let mut weeks: BTreeMap<String, Vec<NewsItem>> = BTreeMap::new();
        for d in demo {
            let url = d["url"].as_str().map(String::from);
            let published_date = now - chrono::Duration::hours(d["age_hours"].as_i64().unwrap());
            let item = NewsItem {
                id: d["id"].as_str().unwrap().into(),
                title: d["title"].as_str().unwrap().into(),
                summary: d["summary"].as_str().unwrap().into(),
                short: String::new(),
                content: d["content"].as_str().unwrap().into(),
                source: radar_store::display::source_name(url.as_deref()),
                url,
                published_date,
            };
            let week = crate::summarize::week::Week::containing(published_date).label();
            weeks.entry(week).or_default().push(item);
        }
        weeks.into_values().filter(|w| w.len() >= 3).collect()
    }

    #[test]
    fn demo_weeks_read_well() {
        for week in demo_weeks() {
            let d = summarize(&week);
            let title = d.title.clone().unwrap();
            assert!(title.starts_with("AI this week: "), "{title}");
            // The lead: what follows "N stories this week, mostly about ...".
            let lead = d.summary.split_once(". ").unwrap().1;
            for p in &d.content {
                assert!(!p.contains(lead), "the lead {lead:?} again in {p:?}");
                // Each story is followed by the link of the item it comes from.
                let body = p.split_once(": ").unwrap().1;
                for (story, rest) in body.split(" (").zip(body.split(" (").skip(1)) {
                    let story = story.rsplit(") ").next().unwrap();
                    let url = rest.split_once(": ").unwrap().1.split(')').next().unwrap();
                    let item = week.iter().find(|i| i.url.as_deref() == Some(url)).unwrap();
                    let own = strip_citations(&format!(
                        "{}. {} {}",
                        item.title, item.summary, item.content
                    ));
                    assert!(
                        own.contains(story.trim_end_matches('.')),
                        "{story:?} is not from {url}"
                    );
                }
            }
        }
        let all: Vec<NewsItem> = demo_weeks().into_iter().flatten().collect();
        for (title, want) in [
            ("Public red-teaming contest", "Safety"),
            ("Researchers find AI browser agents", "Safety"),
            ("Utilities sign nuclear power deals", "Chips & compute"),
            ("Law firms move contract-review agents", "Tools"),
            ("Ai2 releases fully open model", "Open source"),
            ("ChatGPT adds shared projects", "Tools"),
            ("Anthropic releases new Claude model", "Models"),
            ("California finalizes rules", "Policy"),
        ] {
            let item = all.iter().find(|i| i.title.starts_with(title)).unwrap();
            assert_eq!(
                TOPICS.get(topic_of(item)).map_or(OTHER, |t| t.0),
                want,
                "{title}"
            );
        }
    }

    #[test]
    fn tiny_items_still_give_content() {
        let d = summarize(&[item("x", "Short.", "", 16)]);
        assert_eq!(d.content, ["Title x: Short."]);
        assert!(d.summary.starts_with("1 story this week"));
    }
}

//! The local, deterministic summariser: extractive, no network.
//!
//! 1. The week's items are split into sentences (citation markers stripped).
//! 2. Each sentence becomes a TF-IDF vector over its content words; its centrality is the
//!    cosine similarity to the week's centroid, so sentences about what many items talk
//!    about rank high and one-off details rank low.
//! 3. Each item is represented by its most central sentence and goes to the topic its own
//!    headline names most (models, research, chips and compute, business, policy, open
//!    source, robotics, safety, health, developer tools, agents, assistants and apps; the
//!    more specific wins a tie), or, when the headline names none, the topic its summary
//!    names at least twice. A keyword of several words takes its words for itself
//!    ("scaling laws" is research, not the "laws" of policy). Stories no topic claims are
//!    left out: there is no catch-all section.
//! 4. The most central story with a link leads the summary (the most central of all in a
//!    week without links), cited with its publication and link, and its headline is the
//!    title. Per topic, the most central stories are
//!    kept, one sentence each, each followed by its publication and link. A story is told
//!    once: an item that reports the same event as one already told (the lead's, or an
//!    earlier one's, judged as story grouping judges it: weighted Jaccard of the items'
//!    features, see `radar_stories`) is left out, and so is an item without a link.
//!    Topics come in a fixed order.
//!
//! Ties break on item date, item id and position, so the same items always give the same
//! summary.

use std::collections::{BTreeMap, HashMap, HashSet};

use radar_store::NewsItem;
use radar_store::display::strip_citations;
use radar_store::topics::{TOPICS, topic_of};

use super::Draft;
use crate::ingest::clean::sentences;

/// A story whose sentence is this similar (cosine of TF-IDF vectors) to the lead sentence
/// tells the lead story again, from another source or in other words.
const SAME_STORY: f64 = 0.5;

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

/// The week's topics by how many stories each has, biggest first (ties in topic order).
fn topics_by_size(items: &[&NewsItem]) -> Vec<(usize, usize)> {
    let mut sizes = vec![0; TOPICS.len()];
    for item in items {
        if let Some(t) = topic_of(item) {
            sizes[t] += 1;
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

/// A title that says what the week was about: the headline of its lead story (see
/// [`summarize`]). `None` when no item has a sentence to lead with (then the summary keeps
/// the default title).
pub fn title(items: &[NewsItem]) -> Option<String> {
    summarize(items).title
}

/// A headline as a title: no full stop at the end.
fn as_title(headline: &str) -> String {
    headline.trim().trim_end_matches('.').to_string()
}

/// The name a story is cited under: its publication's (the store names every item with
/// a link, docs/product.md §3), else "Source" as the reader shows it.
fn publication(item: &NewsItem) -> &str {
    item.source.as_deref().unwrap_or("Source")
}

/// A story as the summary cites it: the sentence, then its publication's name and its
/// link, so every story leads to the original.
fn cited(sentence: &str, item: &NewsItem) -> String {
    match &item.url {
        Some(url) => format!("{sentence} ({}: {url})", publication(item)),
        None => sentence.to_string(),
    }
}

/// The items in a stable order whatever order the store gave: date, then id.
fn by_date(items: &[NewsItem]) -> Vec<&NewsItem> {
    let mut items: Vec<&NewsItem> = items.iter().collect();
    items.sort_by(|a, b| {
        a.published_date
            .cmp(&b.published_date)
            .then_with(|| a.id.cmp(&b.id))
    });
    items
}

/// Summarises the week's items; `items` must be non-empty.
pub fn summarize(items: &[NewsItem]) -> Draft {
    let items = by_date(items);
    let sents = sentences_of(&items);
    let weighed = Weighed::new(&sents);
    let best = weighed.best_per_item(items.len());
    // The lead is the first whose item has a link (a week of items without links takes
    // the first).
    let ranked = weighed.ranked(&best);
    let lead = ranked
        .iter()
        .copied()
        .find(|&s| items[sents[s].item].url.is_some())
        .or(ranked.first().copied());

    let mut told = Told::new(&items);
    if let Some(l) = lead {
        told.join_or_tell(sents[l].item);
    }
    let mut content = sections(&items, &weighed, &best, lead, &mut told);
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
        summary.push_str(&cited(&sents[top].text, items[sents[top].item]));
    }
    Draft {
        title: lead.map(|l| as_title(&items[sents[l].item].title)),
        summary,
        content,
    }
}

/// The stories told so far, to tell each once: an item is the same story as one told when
/// story grouping would group them (weighted Jaccard of their features at least the
/// same-event bar, which rises with the days between them; see `radar_stories`).
struct Told<'a> {
    items: &'a [&'a NewsItem],
    extractor: radar_stories::features::Extractor,
    params: radar_stories::Params,
    told: Vec<(i64, Vec<radar_stories::features::Feature>)>,
}

impl<'a> Told<'a> {
    fn new(items: &'a [&'a NewsItem]) -> Self {
        Self {
            items,
            extractor: radar_stories::features::Extractor::default(),
            params: radar_stories::Params::default(),
            told: Vec::new(),
        }
    }

    fn features(&self, item: usize) -> (i64, Vec<radar_stories::features::Feature>) {
        let item = self.items[item];
        let summary = strip_citations(&item.summary);
        let features = self.extractor.features(
            &item.title,
            &[summary.as_str()],
            &strip_citations(&item.content),
        );
        (item.published_date.timestamp(), features)
    }

    /// Which of the stories told so far (in the order they were told) the item reports;
    /// when it reports none, its story is told now and `None` answered. The item's
    /// features are made once either way.
    fn join_or_tell(&mut self, item: usize) -> Option<usize> {
        let (at, features) = self.features(item);
        let known = self.told.iter().position(|(then, other)| {
            #[expect(clippy::cast_precision_loss, reason = "days within a week")]
            let days = (at - then).abs() as f32 / 86_400.0;
            radar_stories::features::weighted_jaccard(&features, other)
                >= self.params.same_event + self.params.rise_per_day * days
        });
        if known.is_none() {
            self.told.push((at, features));
        }
        known
    }
}

/// Bullets of "All You Need to Know".
pub const KEY_POINTS: usize = 5;
/// Items read to find the week's stories, the most central first: grouping compares each
/// item with the stories found so far, so this bounds the work on a crowded week.
const KEY_POINT_ITEMS: usize = 1_000;

/// A story's weight: its outlets, plus one for each doubling of its readers
/// (`outlets + log2(1 + readers)`), so a story twice as read weighs as one more outlet
/// reporting it. Coverage leads; reads decide between stories of like coverage and can
/// lift a much-read story over one a single outlet more reported.
#[expect(
    clippy::cast_precision_loss,
    reason = "counts far below 2^52 weighed, not counted"
)]
fn weight(outlets: usize, readers: u64) -> f64 {
    outlets as f64 + (1.0 + readers as f64).log2()
}

/// A story of the week: its reports (indexes into the items by date, the most central
/// first) and the sentence that tells it.
struct Story {
    sentence: usize,
    members: Vec<usize>,
}

/// The week's stories with a link, biggest first by [`weight`] (outlets: the distinct
/// links of its reports; readers: the sum of its reports' readers, from `readers` by
/// item id), then by how central they are. Items are grouped into stories as story
/// grouping would group them.
fn ranked_stories<S: std::hash::BuildHasher>(
    items: &[&NewsItem],
    sents: &[Sentence],
    readers: &HashMap<String, u64, S>,
) -> Vec<(Story, usize)> {
    let weighed = Weighed::new(sents);
    let ranked = weighed.ranked(&weighed.best_per_item(items.len()));
    // Stories in order of their most central report, which comes first among members.
    let mut told = Told::new(items);
    let mut stories: Vec<Story> = Vec::new();
    for &b in ranked.iter().take(KEY_POINT_ITEMS) {
        let item = sents[b].item;
        match told.join_or_tell(item) {
            Some(k) => stories[k].members.push(item),
            None => stories.push(Story {
                sentence: b,
                members: vec![item],
            }),
        }
    }
    let mut weighted: Vec<(f64, usize, Story, usize)> = stories
        .into_iter()
        .enumerate()
        .filter_map(|(rank, story)| {
            let mut links: Vec<&str> = story
                .members
                .iter()
                .filter_map(|m| items[*m].url.as_deref())
                .collect();
            links.sort_unstable();
            links.dedup();
            let read: u64 = story
                .members
                .iter()
                .map(|m| readers.get(&items[*m].id).copied().unwrap_or(0))
                .sum();
            (!links.is_empty()).then(|| (weight(links.len(), read), rank, story, links.len()))
        })
        .collect();
    // Heaviest first; among equals, the more central. Stable, so deterministic.
    weighted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    weighted
        .into_iter()
        .map(|(_, _, story, outlets)| (story, outlets))
        .collect()
}

/// "All You Need to Know": the week's biggest stories by coverage and reads (see
/// [`weight`]; `readers` gives each item's readers); one sentence each (the most central
/// sentence of its most central report), with every outlet that reported it. Stories
/// without a link are not among them. At most [`KEY_POINTS`].
pub fn key_points<S: std::hash::BuildHasher>(
    items: &[NewsItem],
    readers: &HashMap<String, u64, S>,
) -> Vec<radar_store::KeyPoint> {
    let items = by_date(items);
    let sents = sentences_of(&items);
    ranked_stories(&items, &sents, readers)
        .into_iter()
        .take(KEY_POINTS)
        .map(|(story, _)| {
            let mut sources: Vec<radar_store::SourceLink> = Vec::new();
            for m in story.members {
                let item = items[m];
                let Some(url) = &item.url else { continue };
                if sources.iter().any(|s| &s.url == url) {
                    continue;
                }
                sources.push(radar_store::SourceLink {
                    name: publication(item).to_string(),
                    url: url.clone(),
                });
            }
            radar_store::KeyPoint {
                text: sents[story.sentence].text.clone(),
                sources,
            }
        })
        .collect()
}

/// The week's stories for the Insights tab, biggest first as [`key_points`] ranks them:
/// each story's item ids (its most central report first) and its outlets.
pub fn week_stories<S: std::hash::BuildHasher>(
    items: &[NewsItem],
    readers: &HashMap<String, u64, S>,
) -> Vec<radar_store::WeekStory> {
    let items = by_date(items);
    let sents = sentences_of(&items);
    ranked_stories(&items, &sents, readers)
        .into_iter()
        .map(|(story, outlets)| radar_store::WeekStory {
            items: story.members.iter().map(|m| items[*m].id.clone()).collect(),
            outlets: outlets as u64,
        })
        .collect()
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
    /// preferred; the item ranks by that sentence's score.
    fn best_per_item(&self, items: usize) -> Vec<Option<usize>> {
        let mut best: Vec<Option<usize>> = vec![None; items];
        for (i, sentence) in self.sents.iter().enumerate() {
            let item = sentence.item;
            // Strictly greater keeps the earlier sentence on ties: deterministic.
            if best[item].is_none_or(|b| self.value(i) > self.value(b)) {
                best[item] = Some(i);
            }
        }
        best
    }

    /// The items' best sentences, the most central first: the items in the order the
    /// summary considers them.
    fn ranked(&self, best: &[Option<usize>]) -> Vec<usize> {
        let mut ranked: Vec<usize> = best.iter().flatten().copied().collect();
        ranked.sort_by(|a, b| self.by_score(*a, *b));
        ranked
    }
}

/// The summary's paragraphs: stories by topic, each told once in one sentence with its
/// publication and link. The lead opens the summary and is not told again, nor is any
/// story the lead or an earlier pick reports (in other words or from another outlet);
/// items without a link are left out, as are stories no topic claims.
fn sections(
    items: &[&NewsItem],
    weighed: &Weighed<'_>,
    best: &[Option<usize>],
    lead: Option<usize>,
    told: &mut Told<'_>,
) -> Vec<String> {
    let sents = weighed.sents;
    let mut per_topic: Vec<Vec<usize>> = vec![Vec::new(); TOPICS.len()];
    for (item, b) in best.iter().enumerate() {
        let Some(b) = *b else { continue };
        if lead.is_some_and(|l| sents[l].item == item) || items[item].url.is_none() {
            continue;
        }
        if let Some(t) = topic_of(items[item]) {
            per_topic[t].push(b);
        }
    }
    let mut content = Vec::new();
    for (t, stories) in per_topic.iter_mut().enumerate() {
        // The most central stories of the topic, ranked by their best sentence, each a
        // story not told yet.
        stories.sort_by(|a, b| weighed.by_score(*a, *b));
        let mut picked: Vec<usize> = Vec::new();
        for &b in stories.iter() {
            if picked.len() == PER_TOPIC {
                break;
            }
            let item = sents[b].item;
            if lead.is_some_and(|l| weighed.cosine(b, l) >= SAME_STORY)
                || told.join_or_tell(item).is_some()
            {
                continue;
            }
            picked.push(b);
        }
        if picked.is_empty() {
            continue;
        }
        // Within a paragraph, the stories read in date order.
        picked.sort_by_key(|&b| sents[b].item);
        let text: Vec<String> = picked
            .iter()
            .map(|&b| cited(&sents[b].text, items[sents[b].item]))
            .collect();
        content.push(format!("{}: {}", TOPICS[t].0, text.join(" ")));
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn item(id: &str, summary: &str, content: &str, day: u32) -> NewsItem {
        NewsItem {
            story: None,
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
            url: Some(format!("https://news.example/{}", i.id)),
            source: Some("Example".into()),
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
        assert!(!all.contains("[1]") && !d.summary.contains("[1]"));
        // The models story leads (the most central), so it is not told again below.
        assert_eq!(
            d.title.as_deref(),
            Some("Lab releases a reasoning model with a longer context")
        );
        assert!(!all.contains("https://news.example/a"), "{all}");
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
            for (s, _, _) in cited_in(body) {
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
    fn filed() -> Vec<(NewsItem, Option<&'static str>)> {
        vec![
            (
                story(
                    "1",
                    "ChatGPT adds shared projects with common memory for business workspaces",
                    "OpenAI is adding shared projects to ChatGPT business plans, letting teams collaborate in a workspace with shared files and instructions.",
                    "https://openai.com/index/shared-projects",
                    16,
                ),
                Some("Assistants & apps"),
            ),
            (
                story(
                    "2",
                    "Utilities sign nuclear power deals with data center operators as AI demand grows",
                    "US utilities and independent power producers have signed long-term agreements to supply electricity to data centers being built for AI workloads.",
                    "https://www.utilitydive.com/news/nuclear",
                    16,
                ),
                Some("Chips & compute"),
            ),
            (
                story(
                    "3",
                    "Warehouse humanoid startup Lattice Robotics raises $180M Series B",
                    "Lattice Robotics, which builds wheeled humanoid robots for warehouse picking and tote handling, has raised a Series B round to expand deployments.",
                    "https://techcrunch.com/lattice",
                    17,
                ),
                Some("Business"),
            ),
            (
                story(
                    "7",
                    "Vantor Dynamics begins humanoid robot pilot at a European automotive parts plant",
                    "Humanoid developer Vantor Dynamics has started a six-month pilot at a European automotive parts supplier, moving bins between lines.",
                    "https://www.therobotreport.com/vantor",
                    18,
                ),
                Some("Robotics"),
            ),
            (
                story(
                    "4",
                    "EU AI Office publishes draft guidance on serious incident reporting for general-purpose AI models",
                    "The European Commission's AI Office has released draft guidance explaining how providers must report serious incidents to regulators.",
                    "https://digital-strategy.ec.europa.eu/guidance",
                    17,
                ),
                Some("Policy"),
            ),
            (
                story(
                    "5",
                    "Mistral releases open-weight coding model under Apache 2.0 license",
                    "Mistral AI has released a new open-weight model specialized for code, licensed under Apache 2.0 and available on Hugging Face.",
                    "https://mistral.ai/news/code",
                    18,
                ),
                Some("Open source"),
            ),
            (
                story(
                    "6",
                    "Grocery chain Harborline credits AI demand forecasting with cutting fresh-food waste",
                    "Regional grocery chain Harborline says machine learning forecasts for fresh produce have cut waste across its stores this year.",
                    "https://www.grocerydive.com/harborline",
                    19,
                ),
                None,
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
            assert_eq!(topic_of(s).map(|t| TOPICS[t].0), *want, "{}", s.title);
        }
        let items: Vec<NewsItem> = stories.into_iter().map(|(s, _)| s).collect();
        let d = summarize(&items);
        for (url, want) in [
            (
                "https://openai.com/index/shared-projects",
                "Assistants & apps",
            ),
            ("https://www.therobotreport.com/vantor", "Robotics"),
        ] {
            if !d.summary.contains(url) {
                assert_eq!(section_of(&d, url), Some(want), "{d:#?}");
            }
        }
        // A story no topic claims is in no section: there is no catch-all.
        assert_eq!(
            section_of(&d, "https://www.grocerydive.com/harborline"),
            None
        );
    }

    /// (Topics themselves are tested where they live, `radar_store::topics`.)
    #[test]
    fn and_list_joins_the_last_with_and() {
        assert_eq!(
            and_list(&["a".into(), "b".into(), "c".into()]),
            "a, b and c"
        );
    }

    #[test]
    fn the_lead_is_cited_and_never_told_again_and_every_story_is_linked() {
        // Regression (issues 15 and 28): the lead story was repeated below, word for word
        // and then in another of its sentences, and the lead had no link.
        let items = week();
        let d = summarize(&items);
        let (lead, citation) = d.summary.rsplit_once(" (Example: ").unwrap();
        let lead_url = citation.trim_end_matches(')');
        let lead_item = items
            .iter()
            .find(|i| i.url.as_deref() == Some(lead_url))
            .unwrap();
        assert!(
            strip_citations(&lead_item.summary).contains(lead.rsplit(". ").next().unwrap()),
            "{d:#?}"
        );
        assert_eq!(d.title.as_deref(), Some(lead_item.title.as_str()));
        for p in &d.content {
            assert!(!p.contains(lead_url), "the lead's story again in {p:?}");
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

    /// [`week`] with the event of item "b" reported again by another outlet, in other
    /// words.
    fn week_with_nvidia_elsewhere() -> Vec<NewsItem> {
        let mut items = week();
        items.push(NewsItem {
            id: "b2".into(),
            title: "Nvidia: demand for datacenter GPUs still growing".into(),
            summary: "Demand for Nvidia's datacenter GPUs is still growing this quarter, the company said.".into(),
            content: "Nvidia expects demand for inference compute to double next year.".into(),
            url: Some("https://other.example/nvidia".into()),
            source: Some("Other".into()),
            ..items[1].clone()
        });
        items
    }

    #[test]
    fn another_outlets_report_of_a_told_story_is_left_out() {
        let items = week_with_nvidia_elsewhere();
        let d = summarize(&items);
        let all = format!("{} {}", d.summary, d.content.join(" "));
        let told = ["https://news.example/b", "https://other.example/nvidia"]
            .iter()
            .filter(|url| all.contains(*url))
            .count();
        assert_eq!(told, 1, "{d:#?}");
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
                story: None,
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

    /// The stories a text tells: each citation's sentence, publication and link.
    fn cited_in(body: &str) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        let mut rest = body;
        while let Some((sentence, after)) = rest.split_once(" (") {
            let (source, after) = after.split_once(": ").unwrap();
            let (url, after) = after.split_once(')').unwrap();
            out.push((
                sentence.trim().to_string(),
                source.to_string(),
                url.to_string(),
            ));
            rest = after;
        }
        out
    }

    #[test]
    fn demo_weeks_read_well() {
        // Regression (issue 28): over four weeks of the demo data, the lead was told again
        // below in 4 of 4 weeks, "Tools" held unrelated stories, "Also this week" had an
        // item without a source, and every title was "AI this week: X, Y and Z".
        let weeks = demo_weeks();
        assert!(weeks.len() >= 4);
        let mut titles = HashSet::new();
        for week in &weeks {
            let d = summarize(week);
            let by_url = |url: &str| week.iter().find(|i| i.url.as_deref() == Some(url)).unwrap();
            let lead = cited_in(d.summary.split_once(". ").unwrap().1);
            assert_eq!(lead.len(), 1, "{}", d.summary);
            // The title is the lead's headline, and says something of its own each week.
            assert_eq!(d.title, Some(as_title(&by_url(&lead[0].2).title)));
            assert!(titles.insert(d.title.clone()), "{:?} again", d.title);
            let mut cited = lead.clone();
            for p in &d.content {
                let (name, body) = p.split_once(": ").unwrap();
                let stories = cited_in(body);
                assert!(!stories.is_empty(), "{p}");
                // Every story of a section is there by its own words: no catch-all.
                for (_, _, url) in &stories {
                    let item = by_url(url);
                    assert_eq!(
                        topic_of(item).map(|t| TOPICS[t].0),
                        Some(name),
                        "{}",
                        item.title
                    );
                }
                cited.extend(stories);
            }
            assert!(cited.len() >= 4, "{d:#?}");
            let week_refs: Vec<&NewsItem> = week.iter().collect();
            let mut told = Told::new(&week_refs);
            for (sentence, source, url) in &cited {
                // No link and no sentence twice.
                assert_eq!(
                    cited.iter().filter(|c| &c.2 == url).count(),
                    1,
                    "{url} twice: {d:#?}"
                );
                assert_eq!(
                    cited.iter().filter(|c| &c.0 == sentence).count(),
                    1,
                    "{sentence:?} twice"
                );
                // No story twice: no item reports the event of one cited before it.
                let n = week_refs
                    .iter()
                    .position(|i| i.url.as_deref() == Some(url))
                    .unwrap();
                assert!(
                    told.join_or_tell(n).is_none(),
                    "{url} retells a story told before it: {d:#?}"
                );
                // The sentence is the item's own, and the publication has its proper name.
                let item = by_url(url);
                let own = strip_citations(&format!("{} {}", item.summary, item.content));
                assert!(
                    own.contains(sentence.trim_end_matches('.')),
                    "{sentence:?} is not from {url}"
                );
                assert_eq!(Some(source), item.source.as_ref(), "{url}");
                assert!(!source.contains('.'), "{source} is a host, not a name");
            }
        }
        let all: Vec<NewsItem> = weeks.into_iter().flatten().collect();
        for (title, want) in [
            ("Public red-teaming contest", Some("Safety")),
            ("Researchers find AI browser agents", Some("Safety")),
            (
                "Utilities sign nuclear power deals",
                Some("Chips & compute"),
            ),
            ("Law firms move contract-review agents", Some("Agents")),
            ("Ai2 releases fully open model", Some("Open source")),
            ("ChatGPT adds shared projects", Some("Assistants & apps")),
            ("Anthropic releases new Claude model", Some("Models")),
            ("California finalizes rules", Some("Policy")),
        ] {
            let item = all.iter().find(|i| i.title.starts_with(title)).unwrap();
            assert_eq!(topic_of(item).map(|t| TOPICS[t].0), want, "{title}");
        }
    }

    #[test]
    fn key_points_put_the_most_covered_story_first_with_all_its_sources() {
        let items = week_with_nvidia_elsewhere();
        let points = key_points(&items, &HashMap::new());
        assert_eq!(points.len(), 4, "one per story: {points:#?}");
        let urls: Vec<&str> = points[0].sources.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(urls.len(), 2, "{points:#?}");
        assert!(
            urls.contains(&"https://news.example/b")
                && urls.contains(&"https://other.example/nvidia")
        );
        assert!(points[0].text.contains("Nvidia"), "{points:#?}");
        assert!(points[1..].iter().all(|p| p.sources.len() == 1));
    }

    #[test]
    fn reads_lift_a_much_read_story_over_a_more_covered_one() {
        let items = week_with_nvidia_elsewhere();
        let unread = key_points(&items, &HashMap::new());
        assert_eq!(
            unread[0].sources.len(),
            2,
            "coverage leads unread: {unread:#?}"
        );
        // The last single-outlet story, read by 3 readers: 1 + log2(4) = 3 > 2 + log2(1).
        let last = unread.last().unwrap().sources[0].url.clone();
        let id = items
            .iter()
            .find(|i| i.url.as_deref() == Some(last.as_str()))
            .unwrap()
            .id
            .clone();
        let read = key_points(&items, &HashMap::from([(id, 3)]));
        assert_eq!(read[0].sources[0].url, last, "{read:#?}");
        assert_eq!(read[1].sources.len(), 2, "the covered story comes next");
        // One reader is not enough: 1 + log2(2) = 2, a tie the more central wins.
        let one = key_points(
            &items,
            &HashMap::from([(
                items
                    .iter()
                    .find(|i| i.url.as_deref() == Some(last.as_str()))
                    .unwrap()
                    .id
                    .clone(),
                1,
            )]),
        );
        assert_eq!(one[0].sources.len(), 2, "{one:#?}");
    }

    #[test]
    fn every_demo_week_has_five_key_points_with_their_sources() {
        for week in demo_weeks() {
            let points = key_points(&week, &HashMap::new());
            assert_eq!(points.len(), KEY_POINTS, "{points:#?}");
            for p in &points {
                assert!(!p.sources.is_empty());
                // The sentence is from one of its sources' items.
                assert!(
                    p.sources.iter().any(|s| {
                        let item = week
                            .iter()
                            .find(|i| i.url.as_deref() == Some(&s.url))
                            .unwrap();
                        assert_eq!(item.source.as_deref(), Some(s.name.as_str()));
                        strip_citations(&format!("{} {}", item.summary, item.content))
                            .contains(&p.text)
                    }),
                    "{p:#?}"
                );
            }
            let texts: HashSet<&str> = points.iter().map(|p| p.text.as_str()).collect();
            assert_eq!(texts.len(), KEY_POINTS, "no story twice");
            // Sorted by how many outlets reported each.
            assert!(
                points
                    .windows(2)
                    .all(|w| w[0].sources.len() >= w[1].sources.len())
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

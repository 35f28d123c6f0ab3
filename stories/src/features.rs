//! What an item is about, as a small weighted set of word stems: the words that tell one
//! event from another (names, figures, the title's words) weigh more than the rest, and
//! the words every item shares (function words, "said", weekdays) are left out. Two items
//! are compared by the weighted Jaccard similarity of these sets.
//!
//! The hash of a stem is part of what a backend stores, so it is a fixed function
//! (FNV-1a), never a hasher whose output may change between versions.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// One stem and its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feature {
    /// FNV-1a of the stem, folded to 32 bits: two different stems of two items collide
    /// with odds of about one in a million per pair of items, which moves a similarity
    /// by one feature at most, and half the size keeps members small.
    pub hash: u32,
    /// 1 (a word of the text) to [`MAX_WEIGHT`] (a name or figure in the title).
    pub weight: u8,
}

/// The largest weight of a feature.
pub const MAX_WEIGHT: u8 = 4;
/// Most features kept of one item (the heaviest).
pub const MAX_FEATURES: usize = 64;
/// Words of the content read after the title, summary and short text: the lead is what
/// outlets share about an event; the rest is each outlet's own.
const CONTENT_WORDS: usize = 80;

/// Words too common in news to tell events apart.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "across",
    "after",
    "again",
    "against",
    "ago",
    "all",
    "almost",
    "also",
    "although",
    "am",
    "among",
    "an",
    "and",
    "announce",
    "announced",
    "announces",
    "another",
    "any",
    "are",
    "around",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "company",
    "could",
    "day",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "early",
    "either",
    "even",
    "ever",
    "every",
    "few",
    "for",
    "friday",
    "from",
    "further",
    "get",
    "gets",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "last",
    "late",
    "later",
    "latest",
    "less",
    "like",
    "made",
    "make",
    "makes",
    "many",
    "may",
    "me",
    "might",
    "monday",
    "more",
    "most",
    "much",
    "must",
    "my",
    "new",
    "news",
    "next",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "out",
    "over",
    "own",
    "per",
    "report",
    "reported",
    "reports",
    "said",
    "saturday",
    "say",
    "says",
    "see",
    "she",
    "should",
    "since",
    "so",
    "some",
    "still",
    "such",
    "sunday",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "thursday",
    "to",
    "today",
    "too",
    "tuesday",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "use",
    "used",
    "uses",
    "using",
    "very",
    "via",
    "was",
    "way",
    "we",
    "wednesday",
    "week",
    "well",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "year",
    "yet",
    "you",
    "your",
];

/// Unit words after a figure, written out, so `$4B`, `$4bn` and `$4 billion` agree.
fn unit(word: &str) -> Option<&'static str> {
    Some(match word {
        "k" | "thousand" => "thousand",
        "m" | "mn" | "mln" | "million" | "millions" => "million",
        "b" | "bn" | "bln" | "billion" | "billions" => "billion",
        "t" | "tn" | "trillion" | "trillions" => "trillion",
        _ => return None,
    })
}

/// A word of a field, as written.
struct Word<'a> {
    text: &'a str,
    /// It begins a sentence (or the field), so its capital says nothing.
    initial: bool,
}

/// Splits a text into words: runs of letters and digits; `.` and `,` inside a figure
/// (`2.5`, `40,000`) and `-` inside a word (`GPT-5`) stay part of it.
fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    let mut initial = true;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        let joins = |prev: Option<&(usize, char)>, next: Option<&(usize, char)>| {
            let (Some(&(_, p)), Some(&(_, n))) = (prev, next) else {
                return false;
            };
            match c {
                '.' | ',' => p.is_ascii_digit() && n.is_ascii_digit(),
                '-' => p.is_alphanumeric() && n.is_alphanumeric(),
                _ => false,
            }
        };
        let inside = c.is_alphanumeric()
            || (start.is_some() && joins(i.checked_sub(1).map(|p| &chars[p]), chars.get(i + 1)));
        match (inside, start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push(Word {
                    text: &text[s..at],
                    initial,
                });
                initial = false;
                start = None;
            }
            _ => {}
        }
        if !inside && matches!(c, '.' | '!' | '?' | ':' | ';' | '\n' | '"' | '\u{201c}') {
            initial = true;
        }
    }
    if let Some(s) = start {
        out.push(Word {
            text: &text[s..],
            initial,
        });
    }
    out
}

fn capitalised(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
}

/// Whether most of a field's words are capitalised (a Title Case headline), in which case
/// a capital marks no name.
fn title_case(words: &[Word<'_>]) -> bool {
    let long: Vec<_> = words.iter().filter(|w| w.text.len() > 3).collect();
    long.len() >= 3 && long.iter().filter(|w| capitalised(w.text)).count() * 10 >= long.len() * 6
}

/// The stable hash of a stem.
#[expect(
    clippy::cast_possible_truncation,
    reason = "the 64-bit FNV hash folded into 32 bits"
)]
pub fn stem_hash(stem: &str) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in stem.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 32)) as u32
}

/// Turns an item's texts into its features. One per process is enough (it holds the
/// stemmer); it is cheap to make.
pub struct Extractor {
    stemmer: frostem::Stemmer,
}

impl Default for Extractor {
    fn default() -> Self {
        Self {
            stemmer: frostem::Stemmer::new(frostem::Algorithm::English),
        }
    }
}

/// Names: words written with a capital inside a sentence of a field that is not in
/// Title Case, lower-cased, sorted and once each. A headline's own capitals then count
/// only if the text agrees.
fn names(split: &[(Vec<Word<'_>>, u8)]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (ws, _) in split {
        if title_case(ws) {
            continue;
        }
        for w in ws {
            if !w.initial && capitalised(w.text) {
                names.push(w.text.to_lowercase());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The tokens of one lower-cased word, and whether it is a figure: `180M`, `4bn` give
/// the figure, then its unit written out; a unit after a figure is written out too.
fn tokens(lower: &str, previous_figure: bool) -> (Vec<Cow<'_, str>>, bool) {
    let lower = lower.trim_start_matches('$');
    let figure = lower.chars().next().is_some_and(|c| c.is_ascii_digit());
    let mut tokens: Vec<Cow<'_, str>> = Vec::with_capacity(2);
    if figure {
        let digits_end = lower
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(lower.len());
        let (num, rest) = lower.split_at(digits_end);
        let num = num.replace(',', "");
        match unit(rest) {
            Some(u) => {
                tokens.push(Cow::Owned(num));
                tokens.push(Cow::Borrowed(u));
            }
            None if rest.is_empty() => tokens.push(Cow::Owned(num)),
            None => tokens.push(Cow::Borrowed(lower)),
        }
    } else if previous_figure && let Some(u) = unit(lower) {
        tokens.push(Cow::Borrowed(u));
    } else {
        tokens.push(Cow::Borrowed(lower));
    }
    (tokens, figure)
}

impl Extractor {
    /// The weighted features of an item's texts, sorted by hash, at most
    /// [`MAX_FEATURES`] (the heaviest). Title words count double; a name (a word
    /// capitalised inside a sentence) or a figure counts double again.
    pub fn features(&self, title: &str, texts: &[&str], content: &str) -> Vec<Feature> {
        let content: String = content
            .split_whitespace()
            .take(CONTENT_WORDS)
            .collect::<Vec<_>>()
            .join(" ");
        let mut fields: Vec<(&str, u8)> = vec![(title, 2)];
        fields.extend(texts.iter().map(|t| (*t, 1)));
        fields.push((content.as_str(), 1));

        let split: Vec<(Vec<Word<'_>>, u8)> =
            fields.iter().map(|(text, w)| (words(text), *w)).collect();
        let names = names(&split);

        let mut out: Vec<Feature> = Vec::new();
        for (ws, field_weight) in &split {
            let mut previous_figure = false;
            for w in ws {
                let lower = w.text.to_lowercase();
                let (tokens, figure) = tokens(&lower, previous_figure);
                previous_figure = figure;
                for token in tokens {
                    let token = token.trim_matches('-');
                    if token.is_empty() || STOPWORDS.binary_search(&token).is_ok() {
                        continue;
                    }
                    let numeric = token.chars().any(|c| c.is_ascii_digit());
                    if !numeric && token.chars().count() < 2 {
                        continue;
                    }
                    let named =
                        numeric || names.binary_search_by(|n| n.as_str().cmp(token)).is_ok();
                    let stem = if numeric {
                        Cow::Borrowed(token)
                    } else {
                        self.stemmer.stem(token)
                    };
                    let weight = (field_weight + if named { 2 } else { 0 }).min(MAX_WEIGHT);
                    out.push(Feature {
                        hash: stem_hash(&stem),
                        weight,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.hash.cmp(&b.hash).then(b.weight.cmp(&a.weight)));
        out.dedup_by_key(|f| f.hash);
        if out.len() > MAX_FEATURES {
            out.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.hash.cmp(&b.hash)));
            out.truncate(MAX_FEATURES);
            out.sort_by_key(|f| f.hash);
        }
        out
    }
}

/// The weighted Jaccard similarity of two feature sets sorted by hash: the sum of the
/// smaller weights over the sum of the larger ones, 0 for two empty sets.
#[expect(
    clippy::cast_precision_loss,
    reason = "sums of weights, at most 2 × MAX_FEATURES × MAX_WEIGHT (512) for extracted sets"
)]
pub fn weighted_jaccard(a: &[Feature], b: &[Feature]) -> f32 {
    let (mut i, mut j) = (0, 0);
    let (mut min, mut max) = (0u32, 0u32);
    while i < a.len() && j < b.len() {
        match a[i].hash.cmp(&b[j].hash) {
            std::cmp::Ordering::Equal => {
                min += u32::from(a[i].weight.min(b[j].weight));
                max += u32::from(a[i].weight.max(b[j].weight));
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                max += u32::from(a[i].weight);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                max += u32::from(b[j].weight);
                j += 1;
            }
        }
    }
    max += a[i..].iter().map(|f| u32::from(f.weight)).sum::<u32>();
    max += b[j..].iter().map(|f| u32::from(f.weight)).sum::<u32>();
    if max == 0 {
        0.0
    } else {
        min as f32 / max as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(title: &str, summary: &str) -> Vec<Feature> {
        Extractor::default().features(title, &[summary], "")
    }

    fn weight_of(features: &[Feature], stem: &str) -> Option<u8> {
        features
            .iter()
            .find(|f| f.hash == stem_hash(stem))
            .map(|f| f.weight)
    }

    #[test]
    fn stopwords_are_sorted_for_the_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn figures_agree_however_they_are_written() {
        let a = f("Startup raises $4B", "");
        let b = f("Startup raises $4 billion", "");
        let c = f("Startup raises 4bn", "");
        assert_eq!(a, b);
        assert_eq!(b, c);
        let d = f("Bank rolls out assistants to 40,000 employees", "");
        assert!(weight_of(&d, "40000").is_some(), "{d:?}");
        assert!(weight_of(&f("Model GPT-5.5 is out", ""), "gpt-5.5").is_some());
    }

    #[test]
    fn names_and_title_words_weigh_more() {
        let fs = f(
            "Lab ships a model",
            "The lab said Anthropic engineers helped. Models shipped.",
        );
        assert_eq!(weight_of(&fs, "lab"), Some(2), "a title word");
        assert_eq!(weight_of(&fs, "anthrop"), Some(3), "a name in the text");
        assert_eq!(weight_of(&fs, "engin"), Some(1));
        assert_eq!(weight_of(&fs, "the"), None, "a stopword");
        // A Title Case headline's capitals mark no names.
        let tc = f("Nvidia Says Rack Systems Are On Track", "Shipping goes on.");
        assert_eq!(weight_of(&tc, "rack"), Some(2));
    }

    #[test]
    #[allow(clippy::float_cmp, reason = "the bounds are exact")]
    fn weighted_jaccard_bounds() {
        let a = f("Anthropic raises $4 billion from Amazon", "");
        assert_eq!(weighted_jaccard(&a, &a), 1.0);
        let b = f("Completely unrelated weather words here", "");
        assert_eq!(weighted_jaccard(&a, &b), 0.0);
        assert_eq!(weighted_jaccard(&[], &[]), 0.0);
        let c = f("Amazon invests $4 billion more in Anthropic", "");
        let s = weighted_jaccard(&a, &c);
        assert!(s > 0.3 && s < 1.0, "{s}");
    }
}

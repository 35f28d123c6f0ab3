//! Which terms an item mentions: named things (runs of capitalised words that are more
//! than a sentence's first word, names with digits such as "GPT-5", the field's known
//! names) and topics (the field's keyword list), never a stop word.
//!
//! Rules, in order:
//! - The text is the title, then the summary; each starts a sentence, as does the word
//!   after `.`, `!`, `?` or `:`.
//! - A stop word ("The", "This", pronouns, weekdays, months, headline verbs...) is never
//!   part of a term: it ends a run of capitalised words.
//! - A run of capitalised words (and names with digits) ends at a lowercase word, a
//!   number, a stop word or punctuation. A run of one word that starts a sentence is kept
//!   only when that word is a known name, has a digit or has a capital inside it
//!   ("OpenAI"): otherwise its capital says nothing.
//! - A title written in Title Case (most of its longer words capitalised) carries no
//!   information in its capitals: from it only known names, names with digits and words
//!   with a capital inside are taken.
//! - An item counts once per term, whatever its number of mentions. Terms are compared
//!   without case ("OpenAI" and "OPENAI" are one); the first form seen is displayed.

use radar_api::trends::TrendKind;

/// A term an item mentions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Term {
    /// What terms are compared by: the text in lower case.
    pub key: String,
    /// The text as written (or a known name's usual spelling).
    pub text: String,
    /// A name or a topic.
    pub kind: TrendKind,
}

/// Words that are never a term nor part of one (compared in lower case).
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "against",
    "ai",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "best",
    "between",
    "both",
    "breaking",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "done",
    "down",
    "during",
    "each",
    "even",
    "every",
    "exclusive",
    "few",
    "first",
    "for",
    "from",
    "further",
    "get",
    "gets",
    "had",
    "has",
    "have",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "inside",
    "into",
    "is",
    "it",
    "its",
    "just",
    "last",
    "latest",
    "let",
    "like",
    "live",
    "made",
    "make",
    "makes",
    "many",
    "may",
    "me",
    "meet",
    "more",
    "most",
    "mr",
    "mrs",
    "ms",
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
    "pm",
    "q1",
    "q2",
    "q3",
    "q4",
    "report",
    "reports",
    "said",
    "same",
    "say",
    "says",
    "see",
    "she",
    "should",
    "so",
    "some",
    "such",
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
    "to",
    "today",
    "tomorrow",
    "too",
    "top",
    "two",
    "under",
    "until",
    "up",
    "update",
    "us",
    "very",
    "via",
    "vs",
    "was",
    "we",
    "week",
    "weekly",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "without",
    "would",
    "year",
    "yesterday",
    "yet",
    "you",
    "your",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "mon",
    "tue",
    "wed",
    "thu",
    "fri",
    "sat",
    "sun",
    "utc",
    "etc",
    "per",
    "yes",
    "okay",
    "ok",
    "why's",
];

/// Names of the field, in their usual spelling: recognised even as a sentence's first
/// word or in a Title Case headline.
const KNOWN_NAMES: &[&str] = &[
    "OpenAI",
    "Anthropic",
    "Google",
    "DeepMind",
    "Meta",
    "Microsoft",
    "Nvidia",
    "Apple",
    "Amazon",
    "AWS",
    "Mistral",
    "xAI",
    "Cohere",
    "Perplexity",
    "Hugging Face",
    "Stability AI",
    "Midjourney",
    "Runway",
    "Inflection",
    "DeepSeek",
    "Alibaba",
    "Baidu",
    "Tencent",
    "Huawei",
    "ByteDance",
    "Samsung",
    "Intel",
    "AMD",
    "TSMC",
    "Qualcomm",
    "Arm",
    "IBM",
    "Oracle",
    "Salesforce",
    "Tesla",
    "SpaceX",
    "Databricks",
    "Snowflake",
    "Scale AI",
    "Figure",
    "ChatGPT",
    "Claude",
    "Gemini",
    "Llama",
    "Grok",
    "Copilot",
    "Sora",
    "Qwen",
    "Phi",
    "Gemma",
    "Midjourney",
    "Stable Diffusion",
    "Whisper",
    "Altman",
    "Musk",
    "Zuckerberg",
    "Nadella",
    "Pichai",
    "Amodei",
    "Hassabis",
    "LeCun",
    "Hinton",
    "Bengio",
    "EU",
    "FTC",
    "SEC",
    "Congress",
    "White House",
];

/// The field's topics: how each is written, and the topic it counts for.
const TOPICS: &[(&str, &str)] = &[
    ("agent", "agents"),
    ("agents", "agents"),
    ("agentic", "agents"),
    ("robot", "robotics"),
    ("robots", "robotics"),
    ("robotics", "robotics"),
    ("humanoid", "humanoid robots"),
    ("humanoids", "humanoid robots"),
    ("regulation", "regulation"),
    ("regulations", "regulation"),
    ("regulators", "regulation"),
    ("copyright", "copyright"),
    ("lawsuit", "lawsuits"),
    ("lawsuits", "lawsuits"),
    ("antitrust", "antitrust"),
    ("privacy", "privacy"),
    ("funding", "funding"),
    ("raises", "funding"),
    ("valuation", "funding"),
    ("acquisition", "acquisitions"),
    ("acquisitions", "acquisitions"),
    ("acquires", "acquisitions"),
    ("ipo", "IPO"),
    ("layoffs", "layoffs"),
    ("chip", "chips"),
    ("chips", "chips"),
    ("semiconductor", "chips"),
    ("semiconductors", "chips"),
    ("gpu", "GPUs"),
    ("gpus", "GPUs"),
    ("data center", "data centers"),
    ("data centers", "data centers"),
    ("datacenter", "data centers"),
    ("open source", "open source"),
    ("open-source", "open source"),
    ("open weights", "open source"),
    ("reasoning", "reasoning"),
    ("benchmark", "benchmarks"),
    ("benchmarks", "benchmarks"),
    ("safety", "safety"),
    ("alignment", "safety"),
    ("self-driving", "self-driving"),
    ("autonomous driving", "self-driving"),
    ("quantum", "quantum computing"),
    ("energy", "energy"),
    ("education", "education"),
    ("healthcare", "health"),
    ("health", "health"),
    ("security", "security"),
    ("cybersecurity", "security"),
    ("deepfake", "deepfakes"),
    ("deepfakes", "deepfakes"),
    ("misinformation", "misinformation"),
    ("chatbot", "chatbots"),
    ("chatbots", "chatbots"),
    ("video generation", "video generation"),
    ("image generation", "image generation"),
    ("coding", "coding"),
    ("search", "search"),
];

/// Whether `lower` (a word in lower case) is a stop word.
pub(crate) fn is_stop_word(lower: &str) -> bool {
    STOP_WORDS.contains(&lower)
}

/// A known name's usual spelling, compared without case.
fn known_name(lower: &str) -> Option<&'static str> {
    KNOWN_NAMES
        .iter()
        .find(|n| n.len() == lower.len() && n.eq_ignore_ascii_case(lower))
        .copied()
}

/// The topic a word or two-word phrase (in lower case) counts for.
fn topic(lower: &str) -> Option<&'static str> {
    TOPICS.iter().find(|(w, _)| *w == lower).map(|(_, t)| *t)
}

/// One word of the text, its punctuation taken off.
struct Word<'a> {
    text: &'a str,
    lower: String,
    /// It starts a sentence.
    starts: bool,
    /// Punctuation after it ends a run (and maybe the sentence).
    breaks_after: bool,
}

impl Word<'_> {
    fn capitalised(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }
    /// A name with digits: "GPT-5", "H100", "o3" (starts with a letter, holds a digit).
    fn numbered(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_alphabetic)
            && self.text.chars().any(|c| c.is_ascii_digit())
    }
    /// A capital after the first letter: "OpenAI", "DeepMind", "NVIDIA".
    fn inner_capital(&self) -> bool {
        self.text.chars().skip(1).any(char::is_uppercase)
    }
    /// Says something whatever its place: known, numbered or with an inner capital.
    fn name_like(&self) -> bool {
        known_name(&self.lower).is_some() || self.numbered() || self.inner_capital()
    }
}

/// The words of one text (a title or a summary).
fn words(text: &str) -> Vec<Word<'_>> {
    const OPEN: &[char] = &['"', '\'', '“', '‘', '(', '[', '{', '«'];
    const CLOSE: &[char] = &[
        '"', '\'', '”', '’', ')', ']', '}', '»', '.', ',', ';', ':', '!', '?', '…',
    ];
    let mut out = Vec::new();
    let mut starts = true;
    for raw in text.split_whitespace() {
        let trimmed = raw.trim_start_matches(OPEN);
        let core = trimmed.trim_end_matches(CLOSE);
        let tail = &trimmed[core.len()..];
        let core = core
            .strip_suffix("'s")
            .or_else(|| core.strip_suffix("’s"))
            .unwrap_or(core);
        let ends_sentence = tail.contains(['.', '!', '?', ':', '…']);
        if !core.is_empty() && core.chars().any(char::is_alphanumeric) {
            out.push(Word {
                text: core,
                lower: core.to_lowercase(),
                starts,
                breaks_after: !tail.is_empty() || trimmed.len() != raw.len(),
            });
        } else if let Some(last) = out.last_mut() {
            // A dash or a lone symbol between words: the run stops there.
            last.breaks_after = true;
        }
        // A lone symbol ("—", "|") neither starts nor ends a sentence.
        starts = if raw.chars().any(char::is_alphanumeric) {
            ends_sentence
        } else {
            starts || ends_sentence
        };
    }
    out
}

/// Whether a title is in Title Case: most of its words of four letters or more start
/// with a capital.
fn title_case(words: &[Word<'_>]) -> bool {
    let long: Vec<&Word<'_>> = words
        .iter()
        .filter(|w| w.text.chars().count() >= 4)
        .collect();
    long.len() >= 3 && long.iter().filter(|w| w.capitalised()).count() * 10 >= long.len() * 7
}

/// The terms of an item with this title and summary, each once, in order of first mention.
pub(crate) fn terms(title: &str, summary: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let mut push = |text: String, kind: TrendKind| {
        let key = text.to_lowercase();
        if !out.iter().any(|t| t.key == key) {
            out.push(Term { key, text, kind });
        }
    };
    for (i, text) in [title, summary].into_iter().enumerate() {
        let words = words(text);
        let plain = i == 0 && title_case(&words);
        // Topics: a two-word phrase first, else the word.
        let mut j = 0;
        while j < words.len() {
            if j + 1 < words.len() && !words[j].breaks_after {
                let pair = format!("{} {}", words[j].lower, words[j + 1].lower);
                if let Some(t) = topic(&pair) {
                    push(t.to_string(), TrendKind::Topic);
                    j += 2;
                    continue;
                }
            }
            if let Some(t) = topic(&words[j].lower) {
                push(t.to_string(), TrendKind::Topic);
            }
            j += 1;
        }
        // Names.
        let mut run: Vec<&Word<'_>> = Vec::new();
        let mut flush = |run: &mut Vec<&Word<'_>>| {
            if let Some(name) = name_of(run, plain) {
                push(name, TrendKind::Name);
            }
            run.clear();
        };
        for w in &words {
            if w.starts {
                flush(&mut run);
            }
            let candidate = !is_stop_word(&w.lower)
                && if plain {
                    w.name_like()
                } else {
                    w.capitalised() || w.numbered()
                };
            if candidate {
                run.push(w);
            } else {
                flush(&mut run);
            }
            if w.breaks_after || plain {
                flush(&mut run);
            }
        }
        flush(&mut run);
    }
    out
}

/// The name a run of words makes, if it makes one.
fn name_of(run: &[&Word<'_>], plain: bool) -> Option<String> {
    let first = run.first()?;
    if run.len() == 1 && (first.starts || plain) && !first.name_like() {
        return None;
    }
    if run.len() == 1
        && let Some(known) = known_name(&first.lower)
    {
        return Some(known.to_string());
    }
    let text = run.iter().map(|w| w.text).collect::<Vec<_>>().join(" ");
    Some(known_name(&text.to_lowercase()).map_or(text, str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(title: &str, summary: &str) -> Vec<String> {
        terms(title, summary).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn capitalised_runs_names_with_digits_and_known_names() {
        assert_eq!(
            names(
                "OpenAI ships GPT-5 to developers",
                "The release follows talks with Sam Altman and Microsoft in Redmond."
            ),
            ["OpenAI", "GPT-5", "Sam Altman", "Microsoft", "Redmond"]
        );
    }

    #[test]
    fn a_sentences_first_word_alone_is_not_a_name() {
        assert_eq!(
            names("Researchers find a new trick", "Engineers were surprised."),
            Vec::<String>::new()
        );
        // Two capitalised words at the start are a name; a known name is one anywhere.
        assert_eq!(
            names("Jensen Huang talks", "Nvidia sold out."),
            ["Jensen Huang", "Nvidia"]
        );
    }

    #[test]
    fn stop_words_weekdays_and_months_are_never_terms() {
        let found = names(
            "The This That Monday",
            "On Monday, The Verge said This week in March. The Lab. In July The Company met Tuesday.",
        );
        for t in &found {
            assert!(
                !t.split(' ').any(|w| is_stop_word(&w.to_lowercase())),
                "{t:?} holds a stop word: {found:?}"
            );
        }
        assert_eq!(found, ["Verge", "Lab", "Company"]);
    }

    #[test]
    fn title_case_headlines_give_only_name_like_words() {
        assert_eq!(
            names(
                "How Anthropic Built Its Newest Model With Claude 4 Tools",
                ""
            ),
            ["Anthropic", "Claude"]
        );
    }

    #[test]
    fn topics_and_one_count_per_item() {
        let t = terms(
            "Robotics startup raises funding",
            "Robots and more robots; open source agents. Funding again.",
        );
        let topics: Vec<&str> = t
            .iter()
            .filter(|t| t.kind == TrendKind::Topic)
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(topics, ["robotics", "funding", "open source", "agents"]);
    }
}

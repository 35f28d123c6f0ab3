//! The topics stories are filed under (docs/product.md §3, §13): the weekly summary's
//! sections and the Insights tab's reads by topic use this one rule.
//!
//! A story goes to the topic its own headline names most (the more specific wins a tie),
//! or, when the headline names none, the topic its summary names at least twice. A
//! keyword of several words takes its words for itself ("scaling laws" is research, not
//! the "laws" of policy). A story no topic claims has none.

use crate::NewsItem;
use crate::display::strip_citations;

/// Topics in the order they appear, with the words that place a story in them (a keyword
/// of several words matches them in sequence). Words that turn up in any kind of story
/// ("model", "researchers", "data", "power", "open", "release", "law") are left out on
/// purpose: they filed stories by accident.
pub const TOPICS: &[(&str, &[&str])] = &[
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
        "Health",
        &[
            "health",
            "healthcare",
            "hospital",
            "hospitals",
            "medical",
            "clinical",
            "clinicians",
            "patients",
            "fda",
            "drug",
            "drugs",
            "scribe",
            "surgical",
            "surgery",
            "diagnosis",
        ],
    ),
    (
        "Developer tools",
        &[
            "api",
            "apis",
            "sdk",
            "developer",
            "developers",
            "coding",
            "framework",
            "frameworks",
            "pytorch",
            "protocol",
            "plugin",
            "plugins",
            "ide",
            "webhooks",
            "github",
        ],
    ),
    ("Agents", &["agent", "agents", "agentic"]),
    (
        "Assistants & apps",
        &[
            "assistant",
            "assistants",
            "chatbot",
            "chatbots",
            "app",
            "apps",
            "chatgpt",
            "copilot",
            "alexa",
            "siri",
            "search",
            "workspaces",
            "projects",
        ],
    ),
];
/// Which topic wins when a story's words name two equally: the specific before the
/// general (a red-teaming contest of agents is safety news before it is tools news).
const PRECEDENCE: &[&str] = &[
    "Safety",
    "Policy",
    "Robotics",
    "Health",
    "Open source",
    "Chips & compute",
    "Research",
    "Models",
    "Business",
    "Developer tools",
    "Agents",
    "Assistants & apps",
];
/// A headline without a topic's keyword needs this many in its summary to be filed there.
const MIN_SUMMARY_HITS: usize = 2;

/// The topic a story belongs to, by its own words: an index into [`TOPICS`], or none
/// when its words name no topic (it is then left out of the sections).
pub fn topic_of(item: &NewsItem) -> Option<usize> {
    // The headline decides; the summary only when the headline names no topic.
    [
        (tokens(&item.title), 1),
        (tokens(&strip_citations(&item.summary)), MIN_SUMMARY_HITS),
    ]
    .iter()
    .find_map(|(words, least)| {
        topic_hits(words)
            .into_iter()
            .enumerate()
            .filter(|(_, hits)| hits >= least)
            .max_by_key(|&(i, hits)| (hits, std::cmp::Reverse(precedence(i))))
            .map(|(i, _)| i)
    })
}

/// How many of each topic's keywords `words` holds. Longer keywords are matched first and
/// take their words: "scaling laws" counts for research and its "laws" not for policy.
pub fn topic_hits(words: &[String]) -> Vec<usize> {
    let mut keywords: Vec<(usize, Vec<&str>)> = TOPICS
        .iter()
        .enumerate()
        .flat_map(|(t, (_, kws))| kws.iter().map(move |kw| (t, kw.split(' ').collect())))
        .collect();
    // Stable: among keywords of one length, topic order.
    keywords.sort_by_key(|(_, parts)| std::cmp::Reverse(parts.len()));
    let mut taken = vec![false; words.len()];
    let mut hits = vec![0; TOPICS.len()];
    for (topic, parts) in &keywords {
        for start in 0..words.len().saturating_sub(parts.len() - 1) {
            let span = start..start + parts.len();
            if !taken[span.clone()].iter().any(|t| *t)
                && words[span.clone()].iter().zip(parts).all(|(w, p)| w == p)
            {
                taken[span].fill(true);
                hits[*topic] += 1;
            }
        }
    }
    hits
}

/// The words of `text`, lower-cased, hyphens kept inside words.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A topic's rank in [`PRECEDENCE`] (lower wins).
fn precedence(topic: usize) -> usize {
    PRECEDENCE
        .iter()
        .position(|p| *p == TOPICS[topic].0)
        .unwrap_or(PRECEDENCE.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyword_of_several_words_takes_its_words() {
        let words = tokens("Preprint fits scaling laws for reinforcement learning");
        let hits = topic_hits(&words);
        let of = |name: &str| hits[TOPICS.iter().position(|t| t.0 == name).unwrap()];
        assert_eq!((of("Research"), of("Policy")), (2, 0), "{hits:?}");
        let policy = TOPICS.iter().position(|t| t.0 == "Policy").unwrap();
        assert_eq!(topic_hits(&tokens("New laws for chatbots"))[policy], 1);
    }
}

//! Whether one item matches a query, without the index: what alerts ask of every arriving
//! item. The item's texts are analysed once, as the index analyses them, and a query is
//! then a few set lookups ([`SearchQuery::matches`]), so the same words find the same
//! items here and in the search box.

use std::collections::HashSet;

use chrono::{NaiveTime, TimeZone, Utc};

use super::index::source_terms;
use super::query::{SearchQuery, Text, analyzer};
use crate::NewsItem;

/// An item's terms: each text's in order (a phrase must be inside one text), every term
/// once, the `source:` terms and the publication time.
#[derive(Debug)]
pub(crate) struct ItemTerms {
    texts: Vec<Vec<String>>,
    all: HashSet<String>,
    sources: Vec<String>,
    published_ms: i64,
}

impl ItemTerms {
    /// Analyses an item's title, summary, short text and content.
    pub(crate) fn of(item: &NewsItem) -> Self {
        let mut analyzer = analyzer();
        let texts: Vec<Vec<String>> = [&item.title, &item.summary, &item.short, &item.content]
            .into_iter()
            .map(|text| {
                let mut terms = Vec::new();
                let mut stream = analyzer.token_stream(text);
                while let Some(token) = stream.next() {
                    terms.push(token.text.clone());
                }
                terms
            })
            .collect();
        let all = texts.iter().flatten().cloned().collect();
        Self {
            texts,
            all,
            sources: source_terms(item),
            published_ms: item.published_date.timestamp_millis(),
        }
    }

    /// Every distinct term of the texts.
    pub(crate) fn terms(&self) -> impl Iterator<Item = &str> {
        self.all.iter().map(String::as_str)
    }

    /// The `source:` terms.
    pub(crate) fn sources(&self) -> &[String] {
        &self.sources
    }

    /// Whether one text holds the word, or the phrase's words next to each other.
    fn has(&self, text: &Text) -> bool {
        match text.0.as_slice() {
            [] => true,
            [word] => self.all.contains(word),
            words => {
                words.iter().all(|w| self.all.contains(w))
                    && self
                        .texts
                        .iter()
                        .any(|t| t.windows(words.len()).any(|w| w == words))
            }
        }
    }
}

impl SearchQuery {
    /// Whether the item matches: every word and phrase, no exclusion, one of the
    /// `source:` terms if any, and the dates.
    pub(crate) fn matches(&self, item: &ItemTerms) -> bool {
        let day_ms = |d: chrono::NaiveDate| {
            Utc.from_utc_datetime(&d.and_time(NaiveTime::MIN))
                .timestamp_millis()
        };
        self.must.iter().all(|t| item.has(t))
            && !self.must_not.iter().any(|t| item.has(t))
            && (self.sources.is_empty() || self.sources.iter().any(|s| item.sources.contains(s)))
            && !self.not_sources.iter().any(|s| item.sources.contains(s))
            && self.after.is_none_or(|d| item.published_ms >= day_ms(d))
            && self.before.is_none_or(|d| item.published_ms < day_ms(d))
    }

    /// The term an index of queries files this one under: a term every matching item
    /// holds, the longest of its words (long words are rare ones), else `None` when the
    /// query has no word or phrase (then every `source:` term, see [`Self::sources`]).
    pub(crate) fn key_term(&self) -> Option<&str> {
        self.must
            .iter()
            .flat_map(|t| t.0.iter())
            .max_by_key(|w| w.len())
            .map(String::as_str)
    }

    /// The `source:` terms, one of which every matching item holds (none: any source).
    pub(crate) fn source_terms(&self) -> &[String] {
        &self.sources
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::item;

    fn stored(title: &str, summary: &str, url: &str, date: &str) -> NewsItem {
        let new = item(title, summary, url, date);
        NewsItem {
            story: None,
            id: "i".into(),
            source: new.source_name(),
            title: new.title,
            summary: new.summary,
            short: new.short,
            content: new.content,
            url: new.url,
            published_date: new.published_date,
        }
    }

    fn matches(q: &str, item: &NewsItem) -> bool {
        SearchQuery::parse(q).unwrap().matches(&ItemTerms::of(item))
    }

    #[test]
    fn a_query_matches_one_item_as_the_search_box_finds_it() {
        let it = stored(
            "Anthropic distilled a smaller Claude",
            "The open weights model runs on a laptop.",
            "https://www.theverge.com/a",
            "2026-03-10T08:00:00Z",
        );
        assert!(
            matches("distillation claude", &it),
            "another form of a word"
        );
        assert!(matches("\"open weights\"", &it));
        assert!(
            !matches("\"weights open\"", &it),
            "a phrase keeps its order"
        );
        assert!(!matches("claude gemini", &it), "every word must match");
        assert!(!matches("claude -laptop", &it));
        assert!(matches("claude source:theverge", &it));
        assert!(!matches("claude source:wired", &it));
        assert!(!matches("claude -source:theverge.com", &it));
        assert!(matches("claude after:2026-03-10", &it));
        assert!(!matches("claude after:2026-03-11", &it));
        assert!(!matches("claude before:2026-03-10", &it));
        assert!(
            !matches("\"claude the\"", &it),
            "a phrase is not made across two texts"
        );
    }

    #[test]
    fn a_query_is_filed_under_its_longest_word() {
        let q = SearchQuery::parse("ai \"open weights\" -rumour").unwrap();
        assert_eq!(q.key_term(), Some("weight"));
        let q = SearchQuery::parse("source:wired").unwrap();
        assert_eq!(
            (q.key_term(), q.source_terms()),
            (None, &["wired".to_string()][..])
        );
    }
}

//! Every reader's alerts, filed by one term each matching item holds
//! ([`SearchQuery::key_term`]): an arriving item looks up its own terms, and only the
//! alerts filed under them run their query. Built from the `alerts` documents, and built
//! again when their kind's version moves, which only a change of an alert itself does
//! (what alerts found is kept apart, in `alert-hits`), so recording matches never costs
//! the next batch a rebuild.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};
use radar_api::alerts::AlertInterval;

use super::{ALERTS, Book, Saved};
use crate::search::SearchQuery;
use crate::search::matcher::ItemTerms;
use crate::{NewsItem, Result, Store};

/// Documents read per page when the index is built.
const PAGE: usize = 500;

/// Every alert, filed by one term each matching item holds.
#[derive(Default)]
pub(crate) struct AlertIndex {
    version: u64,
    alerts: Vec<Indexed>,
    by_term: HashMap<String, Vec<usize>>,
    by_source: HashMap<String, Vec<usize>>,
    /// Alerts of dates alone: every item is a candidate.
    always: Vec<usize>,
}

struct Indexed {
    user_id: String,
    alert_id: String,
    created_at: DateTime<Utc>,
    query: SearchQuery,
}

impl AlertIndex {
    fn add(&mut self, user_id: &str, a: &Saved) {
        let Ok(query) = SearchQuery::parse(&a.query) else {
            return;
        };
        let at = self.alerts.len();
        match query.key_term() {
            Some(term) => self.by_term.entry(term.to_string()).or_default().push(at),
            None if !query.source_terms().is_empty() => {
                for s in query.source_terms() {
                    self.by_source.entry(s.clone()).or_default().push(at);
                }
            }
            None => self.always.push(at),
        }
        self.alerts.push(Indexed {
            user_id: user_id.to_string(),
            alert_id: a.id.clone(),
            created_at: a.created_at,
            query,
        });
    }

    /// The alerts an item matches: (user id, alert id). An item published before an
    /// alert was saved never triggers it.
    pub(crate) fn matching(&self, item: &NewsItem) -> Vec<(&str, &str)> {
        if self.alerts.is_empty() {
            return Vec::new();
        }
        let terms = ItemTerms::of(item);
        let mut candidates: Vec<usize> = terms
            .terms()
            .filter_map(|t| self.by_term.get(t))
            .chain(terms.sources().iter().filter_map(|s| self.by_source.get(s)))
            .flatten()
            .chain(&self.always)
            .copied()
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .map(|i| &self.alerts[i])
            .filter(|a| item.published_date >= a.created_at && a.query.matches(&terms))
            .map(|a| (a.user_id.as_str(), a.alert_id.as_str()))
            .collect()
    }
}

/// An index of alerts for the matching benchmark (`store/examples/alert_bench.rs`): the
/// same index and the same matching the store runs on every written item.
#[doc(hidden)]
pub struct BenchIndex(AlertIndex);

impl BenchIndex {
    /// Files every query (each one reader's alert, saved at `saved_at`); answers the index
    /// and how many queries the search box would refuse (left out).
    pub fn new(queries: &[String], saved_at: DateTime<Utc>) -> (Self, usize) {
        let mut index = AlertIndex::default();
        let mut refused = 0;
        for (i, query) in queries.iter().enumerate() {
            if SearchQuery::parse(query).is_err() {
                refused += 1;
                continue;
            }
            let saved = Saved {
                id: format!("alert-{i}"),
                query: query.clone(),
                interval: AlertInterval::Daily,
                email: true,
                created_at: saved_at,
            };
            index.add(&format!("reader-{i}"), &saved);
        }
        (Self(index), refused)
    }

    /// How many alerts the item matches.
    pub fn matches(&self, item: &NewsItem) -> usize {
        self.0.matching(item).len()
    }
}

/// This process's copy of the alert index.
#[derive(Default)]
pub(crate) struct AlertCache(pub(crate) Mutex<Option<Arc<AlertIndex>>>);

impl Store {
    /// The alert index, built again when any reader's alerts changed.
    pub(super) async fn alert_index(&self) -> Result<Arc<AlertIndex>> {
        let version = self.backend().docs_version(ALERTS).await?;
        if let Some(index) = self
            .alert_cache()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            && index.version == version
        {
            return Ok(index.clone());
        }
        let mut index = AlertIndex {
            version,
            ..AlertIndex::default()
        };
        let mut after: Option<String> = None;
        loop {
            let keys = self
                .backend()
                .doc_keys(ALERTS, after.as_deref(), PAGE)
                .await?;
            for user_id in &keys {
                let book: Book = self.doc_of(ALERTS, user_id).await?.0;
                for a in &book.alerts {
                    index.add(user_id, a);
                }
            }
            match keys.last() {
                Some(last) if keys.len() == PAGE => after = Some(last.clone()),
                _ => break,
            }
        }
        let index = Arc::new(index);
        *self
            .alert_cache()
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(index.clone());
        Ok(index)
    }
}

//! Custom news alerts (docs/product.md §15): a reader saves a search; new items that
//! match are announced in the app and, at most once per the alert's interval, by mail.
//!
//! A reader's alerts and their recent matches are one document (`alerts`, keyed by user
//! id) changed by compare-and-set, so processes sharing the store never lose a change
//! and the per-reader limit holds exactly. A reader whose e-mail alerts have matches not
//! mailed yet also has an `alert-mail` document: the mail job walks those only.
//!
//! Matching runs where items are written ([`Store::upsert_items`]), once per item
//! however many daemons share the store, over an index of every alert by one term each
//! matching item must hold ([`SearchQuery::key_term`]): an arriving item looks up its
//! own terms, and only the alerts filed under them run their query. The index is built
//! again when the documents' version moves, so an alert saved on another daemon matches
//! from the next batch on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use radar_api::alerts::{Alert, AlertChange, AlertHit, AlertInterval, AlertList, NewAlert};

use crate::backend::READER_DOCS;
use crate::search::SearchQuery;
use crate::search::matcher::ItemTerms;
use crate::{Error, NewsItem, Result, Store, User};

/// How many alerts a free reader may keep.
pub const FREE_ALERTS: usize = 1;
/// How many alerts a subscriber may keep.
pub const SUBSCRIBER_ALERTS: usize = 25;
/// How many matches a reader's document keeps, newest first.
const KEPT_MATCHES: usize = 100;
/// The document kind of readers' alerts.
const ALERTS: &str = READER_DOCS[0];
/// The document kind that lists readers with mail to send.
const MAIL_DUE: &str = READER_DOCS[1];
/// How many times a compare-and-set is tried before giving up.
const TRIES: usize = 20;

/// One reader's alerts and recent matches, as stored.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Book {
    alerts: Vec<Saved>,
    /// Newest first.
    matches: Vec<Matched>,
}

/// An alert as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Saved {
    id: String,
    query: String,
    interval: AlertInterval,
    email: bool,
    created_at: DateTime<Utc>,
    mailed_at: Option<DateTime<Utc>>,
}

/// A match as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Matched {
    alert_id: String,
    item_id: String,
    at: DateTime<Utc>,
    seen: bool,
    mailed: bool,
}

impl Book {
    fn view(&self, a: &Saved) -> Alert {
        Alert {
            id: a.id.clone(),
            query: a.query.clone(),
            interval: a.interval,
            email: a.email,
            created_at: a.created_at,
            mailed_at: a.mailed_at,
            unseen: self
                .matches
                .iter()
                .filter(|m| m.alert_id == a.id && !m.seen)
                .count() as u64,
        }
    }

    /// Whether a mail is waiting: an e-mail alert with a match not mailed.
    fn mail_waiting(&self) -> bool {
        self.matches
            .iter()
            .any(|m| !m.mailed && self.alerts.iter().any(|a| a.id == m.alert_id && a.email))
    }
}

/// A mail an alert is due to send.
#[derive(Debug, Clone)]
pub struct AlertMail {
    /// The reader.
    pub user_id: String,
    /// The alert.
    pub alert: Alert,
    /// The items matched since its last mail, newest first.
    pub items: Vec<NewsItem>,
}

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
                mailed_at: None,
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
    /// A reader's document and its version (0: none yet).
    async fn book(&self, user_id: &str) -> Result<(Book, u64)> {
        match self.backend().doc(ALERTS, user_id).await? {
            Some(doc) => Ok((serde_json::from_slice(&doc.json)?, doc.version)),
            None => Ok((Book::default(), 0)),
        }
    }

    /// Changes a reader's document with `change` (run again on a fresh copy when another
    /// process changed it meanwhile), then records whether a mail waits.
    async fn change_book<T>(
        &self,
        user_id: &str,
        mut change: impl FnMut(&mut Book) -> Result<T>,
    ) -> Result<T> {
        for _ in 0..TRIES {
            let (mut book, version) = self.book(user_id).await?;
            let answer = change(&mut book)?;
            let json = serde_json::to_vec(&book)?;
            let kept = if book.alerts.is_empty() && book.matches.is_empty() {
                None
            } else {
                Some(json.as_slice())
            };
            if self
                .backend()
                .put_doc(ALERTS, user_id, kept, version)
                .await?
            {
                self.mark_mail_due(user_id, book.mail_waiting()).await?;
                return Ok(answer);
            }
        }
        Err(Error::Unavailable(
            "the alerts changed too often meanwhile: try again".into(),
        ))
    }

    async fn mark_mail_due(&self, user_id: &str, due: bool) -> Result<()> {
        let doc = self.backend().doc(MAIL_DUE, user_id).await?;
        match (due, doc) {
            (true, None) => {
                // Lost to another writer that set it: it is set either way.
                self.backend()
                    .put_doc(MAIL_DUE, user_id, Some(b"{}"), 0)
                    .await?;
            }
            (false, Some(doc)) => {
                self.backend()
                    .put_doc(MAIL_DUE, user_id, None, doc.version)
                    .await?;
            }
            _ => {}
        }
        Ok(())
    }

    /// How many alerts `user` may keep.
    pub fn alert_limit(&self, user: &User) -> usize {
        if self.is_subscriber(user) {
            SUBSCRIBER_ALERTS
        } else {
            FREE_ALERTS
        }
    }

    /// The reader's alerts, oldest first, with the badge's count.
    pub async fn alerts(&self, user: &User) -> Result<AlertList> {
        let (book, _) = self.book(&user.id).await?;
        let alerts: Vec<Alert> = book.alerts.iter().map(|a| book.view(a)).collect();
        Ok(AlertList {
            unseen: alerts.iter().map(|a| a.unseen).sum(),
            alerts,
            limit: self.alert_limit(user) as u64,
        })
    }

    /// Saves a new alert; the query must be one the search box accepts, and the reader
    /// must have room for it ([`Store::alert_limit`]).
    pub async fn add_alert(&self, user: &User, new: NewAlert) -> Result<Alert> {
        let query = new.query.trim().to_string();
        SearchQuery::parse(&query).map_err(|e| Error::Invalid(e.0))?;
        let limit = self.alert_limit(user);
        let subscriber = self.is_subscriber(user);
        let saved = Saved {
            id: uuid::Uuid::new_v4().to_string(),
            query,
            interval: new.interval.unwrap_or(AlertInterval::Daily),
            email: new.email.unwrap_or(true),
            created_at: Utc::now(),
            mailed_at: None,
        };
        self.change_book(&user.id, |book| {
            if book.alerts.len() >= limit {
                return Err(Error::Forbidden(if subscriber {
                    format!(
                        "You have {limit} alerts, the most a reader can keep. Delete one to add another."
                    )
                } else {
                    format!(
                        "Free readers can keep {FREE_ALERTS} alert. Delete it to add another, or subscribe to keep up to {SUBSCRIBER_ALERTS}."
                    )
                }));
            }
            book.alerts.push(saved.clone());
            Ok(book.view(&saved))
        })
        .await
    }

    /// Changes an alert's interval or mail.
    pub async fn change_alert(
        &self,
        user_id: &str,
        alert_id: &str,
        change: &AlertChange,
    ) -> Result<Alert> {
        self.change_book(user_id, |book| {
            let a = book
                .alerts
                .iter_mut()
                .find(|a| a.id == alert_id)
                .ok_or(Error::NotFound("alert"))?;
            if let Some(interval) = change.interval {
                a.interval = interval;
            }
            if let Some(email) = change.email {
                a.email = email;
            }
            let a = a.clone();
            Ok(book.view(&a))
        })
        .await
    }

    /// Deletes an alert with its matches.
    pub async fn remove_alert(&self, user_id: &str, alert_id: &str) -> Result<()> {
        self.change_book(user_id, |book| {
            let before = book.alerts.len();
            book.alerts.retain(|a| a.id != alert_id);
            if book.alerts.len() == before {
                return Err(Error::NotFound("alert"));
            }
            book.matches.retain(|m| m.alert_id != alert_id);
            Ok(())
        })
        .await
    }

    /// What the reader's alerts announced, newest first (items removed since are left
    /// out); they count as seen from now on.
    pub async fn alert_hits(&self, user_id: &str) -> Result<Vec<AlertHit>> {
        let (book, _) = self.book(user_id).await?;
        let mut hits = Vec::new();
        for m in &book.matches {
            let (Some(alert), Some(item)) = (
                book.alerts.iter().find(|a| a.id == m.alert_id),
                self.item(&m.item_id).await?,
            ) else {
                continue;
            };
            hits.push(AlertHit {
                alert_id: m.alert_id.clone(),
                query: alert.query.clone(),
                matched_at: m.at,
                seen: m.seen,
                item,
            });
        }
        if book.matches.iter().any(|m| !m.seen) {
            self.change_book(user_id, |book| {
                for m in &mut book.matches {
                    m.seen = true;
                }
                Ok(())
            })
            .await?;
        }
        Ok(hits)
    }

    /// Turns an alert's mail off (the unsubscribe link); answers its query.
    pub async fn unsubscribe_alert(&self, user_id: &str, alert_id: &str) -> Result<String> {
        let change = AlertChange {
            email: Some(false),
            interval: None,
        };
        Ok(self.change_alert(user_id, alert_id, &change).await?.query)
    }

    /// Forgets a reader's documents: alerts, mail due, the weekly mail (a deleted account).
    pub(crate) async fn forget_reader_docs(&self, user_id: &str) -> Result<()> {
        for kind in READER_DOCS {
            for _ in 0..TRIES {
                let version = self
                    .backend()
                    .doc(kind, user_id)
                    .await?
                    .map_or(0, |d| d.version);
                if self.backend().put_doc(kind, user_id, None, version).await? {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The alert index, built again when any reader's alerts changed.
    async fn alert_index(&self) -> Result<Arc<AlertIndex>> {
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
                .doc_keys(ALERTS, after.as_deref(), 500)
                .await?;
            for user_id in &keys {
                let (book, _) = self.book(user_id).await?;
                for a in &book.alerts {
                    index.add(user_id, a);
                }
            }
            match keys.last() {
                Some(last) if keys.len() == 500 => after = Some(last.clone()),
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

    /// Matches newly written items against every alert and records what matched.
    pub(crate) async fn match_alerts(&self, items: &[&NewsItem]) -> Result<()> {
        if items.is_empty() || self.backend().docs_version(ALERTS).await? == 0 {
            return Ok(());
        }
        let index = self.alert_index().await?;
        let mut by_user: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for item in items {
            for (user, alert) in index.matching(item) {
                by_user
                    .entry(user.to_string())
                    .or_default()
                    .push((alert.to_string(), item.id.clone()));
            }
        }
        let now = Utc::now();
        for (user_id, found) in by_user {
            self.change_book(&user_id, |book| {
                for (alert_id, item_id) in &found {
                    let known = book
                        .matches
                        .iter()
                        .any(|m| &m.alert_id == alert_id && &m.item_id == item_id);
                    if !known && book.alerts.iter().any(|a| &a.id == alert_id) {
                        book.matches.insert(
                            0,
                            Matched {
                                alert_id: alert_id.clone(),
                                item_id: item_id.clone(),
                                at: now,
                                seen: false,
                                mailed: false,
                            },
                        );
                    }
                }
                book.matches.truncate(KEPT_MATCHES);
                Ok(())
            })
            .await?;
        }
        Ok(())
    }

    /// The mails alerts are due to send at `now`: for each e-mail alert with matches
    /// not mailed, once its interval has passed since its last mail.
    pub async fn due_alert_mails(&self, now: DateTime<Utc>) -> Result<Vec<AlertMail>> {
        let mut due = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let keys = self
                .backend()
                .doc_keys(MAIL_DUE, after.as_deref(), 500)
                .await?;
            for user_id in &keys {
                let (book, _) = self.book(user_id).await?;
                for a in book.alerts.iter().filter(|a| a.email) {
                    if a.mailed_at
                        .is_some_and(|at| now - at < a.interval.duration())
                    {
                        continue;
                    }
                    let mut items = Vec::new();
                    for m in book
                        .matches
                        .iter()
                        .filter(|m| m.alert_id == a.id && !m.mailed)
                    {
                        if let Some(item) = self.item(&m.item_id).await? {
                            items.push(item);
                        }
                    }
                    if !items.is_empty() {
                        due.push(AlertMail {
                            user_id: user_id.clone(),
                            alert: book.view(a),
                            items,
                        });
                    }
                }
            }
            match keys.last() {
                Some(last) if keys.len() == 500 => after = Some(last.clone()),
                _ => break,
            }
        }
        Ok(due)
    }

    /// Records that an alert's mail was sent at `at` with these items.
    pub async fn alert_mailed(
        &self,
        user_id: &str,
        alert_id: &str,
        item_ids: &[String],
        at: DateTime<Utc>,
    ) -> Result<()> {
        self.change_book(user_id, |book| {
            if let Some(a) = book.alerts.iter_mut().find(|a| a.id == alert_id) {
                a.mailed_at = Some(at);
            }
            for m in &mut book.matches {
                if m.alert_id == alert_id && item_ids.contains(&m.item_id) {
                    m.mailed = true;
                }
            }
            Ok(())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::items::tests::new_item;
    use crate::testing::store_tests;

    fn alert(query: &str) -> NewAlert {
        NewAlert {
            query: query.into(),
            interval: Some(AlertInterval::Hourly),
            email: Some(true),
        }
    }

    fn at(t: DateTime<Utc>) -> String {
        t.to_rfc3339()
    }

    store_tests! {
        async fn a_free_reader_keeps_one_alert_and_a_subscriber_more(store) {
            let u = store
                .create_user("a@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            store.add_alert(&u, alert("claude")).await.unwrap();
            match store.add_alert(&u, alert("gemini")).await {
                Err(Error::Forbidden(m)) => assert!(m.contains("Free readers can keep 1 alert"), "{m}"),
                other => panic!("a second free alert: {other:?}"),
            }
            match store.add_alert(&u, alert("\"unclosed")).await {
                Err(Error::Invalid(m)) => assert!(m.contains("quote"), "{m}"),
                other => panic!("a bad query: {other:?}"),
            }
            let u = store.grant_subscription(&u.id, None).await.unwrap();
            store.add_alert(&u, alert("gemini")).await.unwrap();
            let list = store.alerts(&u).await.unwrap();
            assert_eq!(list.limit, SUBSCRIBER_ALERTS as u64);
            assert_eq!(
                list.alerts.iter().map(|a| a.query.as_str()).collect::<Vec<_>>(),
                ["claude", "gemini"]
            );
        }

        async fn new_items_that_match_are_announced_once_and_mailed_per_interval(store) {
            let u = store
                .create_user("b@example.com", "h".into(), Default::default(), true)
                .await
                .unwrap();
            let saved = store.add_alert(&u, alert("\"open weights\"")).await.unwrap();
            let now = Utc::now();
            let later = at(now + Duration::seconds(5));
            store
                .upsert_items([
                    new_item("Open weights model ships", Some("https://a.example/1"), &later),
                    new_item("Closed model ships", Some("https://a.example/2"), &later),
                    new_item(
                        "Open weights, before the alert",
                        Some("https://a.example/3"),
                        &at(now - Duration::hours(2)),
                    ),
                ])
                .await
                .unwrap();
            // Written again: not a new match.
            store
                .upsert_item(new_item("Open weights model ships", Some("https://a.example/1"), &later))
                .await
                .unwrap();
            let list = store.alerts(&u).await.unwrap();
            assert_eq!(list.unseen, 1);
            let due = store.due_alert_mails(now).await.unwrap();
            assert_eq!(due.len(), 1);
            assert_eq!(due[0].alert.id, saved.id);
            assert_eq!(
                due[0].items.iter().map(|i| i.title.as_str()).collect::<Vec<_>>(),
                ["Open weights model ships"]
            );
            let ids: Vec<String> = due[0].items.iter().map(|i| i.id.clone()).collect();
            store.alert_mailed(&u.id, &saved.id, &ids, now).await.unwrap();
            assert!(store.due_alert_mails(now).await.unwrap().is_empty());
            store
                .upsert_item(new_item("More open weights", Some("https://a.example/4"), &later))
                .await
                .unwrap();
            assert!(
                store.due_alert_mails(now + Duration::minutes(30)).await.unwrap().is_empty(),
                "within the interval"
            );
            let due = store.due_alert_mails(now + Duration::minutes(61)).await.unwrap();
            assert_eq!(due.len(), 1);
            assert_eq!(due[0].items[0].title, "More open weights");
            // Reading the matches in the app marks them seen.
            let hits = store.alert_hits(&u.id).await.unwrap();
            assert_eq!(hits.len(), 2);
            assert!(hits.iter().all(|h| !h.seen));
            assert_eq!(store.alerts(&u).await.unwrap().unseen, 0);
            // Unsubscribed, nothing is due; deleted, nothing is kept.
            store.unsubscribe_alert(&u.id, &saved.id).await.unwrap();
            assert!(store.due_alert_mails(now + Duration::days(1)).await.unwrap().is_empty());
            store.delete_user(&u.id).await.unwrap();
            assert!(store.backend().doc(ALERTS, &u.id).await.unwrap().is_none());
        }
    }
}

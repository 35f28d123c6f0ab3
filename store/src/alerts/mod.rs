//! Custom news alerts (docs/product.md §15): a reader saves a search; new items that
//! match are announced in the app and, at most once per the alert's interval, by mail.
//!
//! Each reader has up to three documents, each changed by compare-and-set, so processes
//! sharing the store never lose a change and the per-reader limit holds exactly:
//! `alerts` (the alerts themselves), `alert-hits` (what they found, newest first, and
//! when each last mailed) and `alert-mail` (present while a mail waits: the mail job
//! walks those readers only). The alerts are apart from what they found so that
//! recording a match leaves the alert index ([`index`]) as it is.
//!
//! Matching runs where items are written ([`Store::upsert_items`]), once per item
//! however many daemons share the store.

mod index;

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use radar_api::alerts::{Alert, AlertChange, AlertHit, AlertInterval, AlertList, NewAlert};

use crate::backend::READER_DOCS;
use crate::search::SearchQuery;
use crate::{Error, NewsItem, Result, Store, User};

#[doc(hidden)]
pub use index::BenchIndex;
pub(crate) use index::{AlertCache, AlertIndex};

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
/// The document kind of what readers' alerts found.
const HITS: &str = READER_DOCS[3];
/// How many times a compare-and-set is tried before giving up.
const TRIES: usize = 20;
/// Readers walked per page by the mail job.
const PAGE: usize = 500;

/// One reader's alerts, as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Book {
    alerts: Vec<Saved>,
}

/// An alert as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Saved {
    id: String,
    query: String,
    interval: AlertInterval,
    email: bool,
    created_at: DateTime<Utc>,
}

/// What one reader's alerts found, as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Hits {
    /// Newest first.
    matches: Vec<Matched>,
    /// When each alert last mailed, by alert id.
    mailed_at: BTreeMap<String, DateTime<Utc>>,
}

/// A match as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Matched {
    alert_id: String,
    item_id: String,
    at: DateTime<Utc>,
    seen: bool,
    mailed: bool,
}

/// An alert as its reader sees it.
fn view(a: &Saved, hits: &Hits) -> Alert {
    Alert {
        id: a.id.clone(),
        query: a.query.clone(),
        interval: a.interval,
        email: a.email,
        created_at: a.created_at,
        mailed_at: hits.mailed_at.get(&a.id).copied(),
        unseen: hits
            .matches
            .iter()
            .filter(|m| m.alert_id == a.id && !m.seen)
            .count() as u64,
    }
}

/// Whether a mail waits: an e-mail alert with a match not mailed.
fn mail_waiting(book: &Book, hits: &Hits) -> bool {
    hits.matches
        .iter()
        .any(|m| !m.mailed && book.alerts.iter().any(|a| a.id == m.alert_id && a.email))
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

impl Store {
    /// A reader's document of `kind` and its version (the default and 0: none yet).
    async fn doc_of<T: DeserializeOwned + Default>(
        &self,
        kind: &str,
        user_id: &str,
    ) -> Result<(T, u64)> {
        match self.backend().doc(kind, user_id).await? {
            Some(doc) => Ok((serde_json::from_slice(&doc.json)?, doc.version)),
            None => Ok((T::default(), 0)),
        }
    }

    /// Changes a reader's document of `kind` with `change`, run again on a fresh copy when
    /// another process changed it meanwhile. Nothing is written when nothing changed, and
    /// a document back to its default is removed.
    async fn change_doc<T, R>(
        &self,
        kind: &str,
        user_id: &str,
        mut change: impl FnMut(&mut T) -> Result<R>,
    ) -> Result<R>
    where
        T: Serialize + DeserializeOwned + Default + PartialEq,
    {
        for _ in 0..TRIES {
            let (mut doc, version) = self.doc_of::<T>(kind, user_id).await?;
            let before = serde_json::to_vec(&doc)?;
            let answer = change(&mut doc)?;
            let json = serde_json::to_vec(&doc)?;
            if json == before {
                return Ok(answer);
            }
            let kept = (doc != T::default()).then_some(json.as_slice());
            if self.backend().put_doc(kind, user_id, kept, version).await? {
                return Ok(answer);
            }
        }
        Err(Error::Unavailable(
            "the alerts changed too often meanwhile: try again".into(),
        ))
    }

    /// Records whether a mail waits for the reader, after a change of their alerts or of
    /// what they found.
    async fn note_mail_due(&self, user_id: &str) -> Result<()> {
        let book: Book = self.doc_of(ALERTS, user_id).await?.0;
        let hits: Hits = self.doc_of(HITS, user_id).await?.0;
        let due = mail_waiting(&book, &hits);
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
        let book: Book = self.doc_of(ALERTS, &user.id).await?.0;
        let hits: Hits = self.doc_of(HITS, &user.id).await?.0;
        let alerts: Vec<Alert> = book.alerts.iter().map(|a| view(a, &hits)).collect();
        Ok(AlertList {
            unseen: alerts.iter().map(|a| a.unseen).sum(),
            alerts,
            limit: self.alert_limit(user) as u64,
        })
    }

    /// Saves a new alert; the query must be one the search box accepts, and the reader
    /// must have room for it ([`Store::alert_limit`]).
    pub async fn add_alert(&self, user: &User, new: NewAlert) -> Result<Alert> {
        // One space between words: the search reads it the same, and a line break never
        // reaches the subject of the alert's mail.
        let query = new.query.split_whitespace().collect::<Vec<_>>().join(" ");
        SearchQuery::parse(&query).map_err(|e| Error::Invalid(e.0))?;
        let limit = self.alert_limit(user);
        let subscriber = self.is_subscriber(user);
        let saved = Saved {
            id: uuid::Uuid::new_v4().to_string(),
            query,
            interval: new.interval.unwrap_or(AlertInterval::Daily),
            email: new.email.unwrap_or(true),
            created_at: Utc::now(),
        };
        self.change_doc(ALERTS, &user.id, |book: &mut Book| {
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
            Ok(())
        })
        .await?;
        Ok(view(&saved, &Hits::default()))
    }

    /// Changes an alert's interval or mail.
    pub async fn change_alert(
        &self,
        user_id: &str,
        alert_id: &str,
        change: &AlertChange,
    ) -> Result<Alert> {
        let saved = self
            .change_doc(ALERTS, user_id, |book: &mut Book| {
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
                Ok(a.clone())
            })
            .await?;
        self.note_mail_due(user_id).await?;
        let hits: Hits = self.doc_of(HITS, user_id).await?.0;
        Ok(view(&saved, &hits))
    }

    /// Deletes an alert with what it found.
    pub async fn remove_alert(&self, user_id: &str, alert_id: &str) -> Result<()> {
        self.change_doc(ALERTS, user_id, |book: &mut Book| {
            let before = book.alerts.len();
            book.alerts.retain(|a| a.id != alert_id);
            if book.alerts.len() == before {
                return Err(Error::NotFound("alert"));
            }
            Ok(())
        })
        .await?;
        self.change_doc(HITS, user_id, |hits: &mut Hits| {
            hits.matches.retain(|m| m.alert_id != alert_id);
            hits.mailed_at.remove(alert_id);
            Ok(())
        })
        .await?;
        self.note_mail_due(user_id).await
    }

    /// What the reader's alerts announced, newest first (items removed since are left
    /// out); they count as seen from now on.
    pub async fn alert_hits(&self, user_id: &str) -> Result<Vec<AlertHit>> {
        let book: Book = self.doc_of(ALERTS, user_id).await?.0;
        let hits: Hits = self.doc_of(HITS, user_id).await?.0;
        let mut out = Vec::new();
        for m in &hits.matches {
            let (Some(alert), Some(item)) = (
                book.alerts.iter().find(|a| a.id == m.alert_id),
                self.item(&m.item_id).await?,
            ) else {
                continue;
            };
            out.push(AlertHit {
                alert_id: m.alert_id.clone(),
                query: alert.query.clone(),
                matched_at: m.at,
                seen: m.seen,
                item,
            });
        }
        self.change_doc(HITS, user_id, |hits: &mut Hits| {
            for m in &mut hits.matches {
                m.seen = true;
            }
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Turns an alert's mail off (the unsubscribe link); answers its query.
    pub async fn unsubscribe_alert(&self, user_id: &str, alert_id: &str) -> Result<String> {
        let change = AlertChange {
            email: Some(false),
            interval: None,
        };
        Ok(self.change_alert(user_id, alert_id, &change).await?.query)
    }

    /// Forgets a reader's documents: alerts, what they found, mail due, the weekly mail
    /// (a deleted account).
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
            self.change_doc(HITS, &user_id, |hits: &mut Hits| {
                for (alert_id, item_id) in &found {
                    let known = hits
                        .matches
                        .iter()
                        .any(|m| &m.alert_id == alert_id && &m.item_id == item_id);
                    if !known {
                        hits.matches.insert(
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
                hits.matches.truncate(KEPT_MATCHES);
                Ok(())
            })
            .await?;
            self.note_mail_due(&user_id).await?;
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
                .doc_keys(MAIL_DUE, after.as_deref(), PAGE)
                .await?;
            for user_id in &keys {
                let book: Book = self.doc_of(ALERTS, user_id).await?.0;
                let hits: Hits = self.doc_of(HITS, user_id).await?.0;
                for a in book.alerts.iter().filter(|a| a.email) {
                    if hits
                        .mailed_at
                        .get(&a.id)
                        .is_some_and(|at| now - *at < a.interval.duration())
                    {
                        continue;
                    }
                    let mut items = Vec::new();
                    for m in hits
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
                            alert: view(a, &hits),
                            items,
                        });
                    }
                }
            }
            match keys.last() {
                Some(last) if keys.len() == PAGE => after = Some(last.clone()),
                _ => break,
            }
        }
        Ok(due)
    }

    /// Claims an alert's mail of these items at `at`, before it is sent: true when the
    /// alert is still due (its e-mail on, its interval passed since its last mail) and at
    /// least one of the items is not mailed yet; the items count as mailed from then on.
    /// In one compare-and-set of what the reader's alerts found, so two daemons never
    /// both send it: at most one mail per alert per interval, even when one daemon's
    /// lease lapses while it sends.
    pub async fn claim_alert_mail(
        &self,
        user_id: &str,
        alert_id: &str,
        item_ids: &[String],
        at: DateTime<Utc>,
    ) -> Result<bool> {
        let book: Book = self.doc_of(ALERTS, user_id).await?.0;
        let Some(alert) = book.alerts.iter().find(|a| a.id == alert_id && a.email) else {
            return Ok(false);
        };
        let every = alert.interval.duration();
        let claimed = self
            .change_doc(HITS, user_id, |hits: &mut Hits| {
                if hits
                    .mailed_at
                    .get(alert_id)
                    .is_some_and(|last| at - *last < every)
                {
                    return Ok(false);
                }
                let mut claimed = false;
                for m in &mut hits.matches {
                    if m.alert_id == alert_id && !m.mailed && item_ids.contains(&m.item_id) {
                        m.mailed = true;
                        claimed = true;
                    }
                }
                if claimed {
                    hits.mailed_at.insert(alert_id.to_string(), at);
                }
                Ok(claimed)
            })
            .await?;
        self.note_mail_due(user_id).await?;
        Ok(claimed)
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
            let spaced = store.add_alert(&u, alert(" claude \r\n  code ")).await.unwrap();
            assert_eq!(spaced.query, "claude code", "one space between words");
            store.remove_alert(&u.id, &spaced.id).await.unwrap();
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
            // What the alert found is kept apart from it: recording it leaves the alert
            // index's version, so the next batch does not build the index again.
            let version = store.backend().docs_version(ALERTS).await.unwrap();
            store
                .upsert_item(new_item("Open weights again", Some("https://a.example/5"), &later))
                .await
                .unwrap();
            assert_eq!(store.backend().docs_version(ALERTS).await.unwrap(), version);
            assert_eq!(store.alerts(&u).await.unwrap().unseen, 2);
            let due = store.due_alert_mails(now).await.unwrap();
            assert_eq!(due.len(), 1);
            assert_eq!(due[0].alert.id, saved.id);
            assert_eq!(
                due[0].items.iter().map(|i| i.title.as_str()).collect::<Vec<_>>(),
                ["Open weights again", "Open weights model ships"]
            );
            let ids: Vec<String> = due[0].items.iter().map(|i| i.id.clone()).collect();
            assert!(store.claim_alert_mail(&u.id, &saved.id, &ids, now).await.unwrap());
            assert!(
                !store.claim_alert_mail(&u.id, &saved.id, &ids, now).await.unwrap(),
                "claimed once"
            );
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
            assert_eq!(hits.len(), 3);
            assert!(hits.iter().all(|h| !h.seen));
            assert_eq!(store.alerts(&u).await.unwrap().unseen, 0);
            // Unsubscribed, nothing is due; deleted, nothing is kept.
            store.unsubscribe_alert(&u.id, &saved.id).await.unwrap();
            assert!(store.due_alert_mails(now + Duration::days(1)).await.unwrap().is_empty());
            store.delete_user(&u.id).await.unwrap();
            assert!(store.backend().doc(ALERTS, &u.id).await.unwrap().is_none());
            assert!(store.backend().doc(HITS, &u.id).await.unwrap().is_none());
        }
    }
}

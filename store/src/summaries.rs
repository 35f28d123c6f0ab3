//! Weekly AI news summaries (docs/product.md §2 and §3): written by the generator (`radar
//! summaries generate`), read on /weekly-summary.
//!
//! The backend keeps each summary by id and in order of the week it covers, so the
//! archive reads newest first.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{Error, Result, Store};

/// The title a summary gets when none is given.
pub const DEFAULT_SUMMARY_TITLE: &str = "Weekly AI News Summary";

fn default_title() -> String {
    DEFAULT_SUMMARY_TITLE.to_string()
}

/// A weekly summary, with docs/product.md §3's field names (snake_case on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WeeklySummary {
    /// Stable identifier (letters, digits, '-', '_' or '.').
    pub id: String,
    /// Headline; 'Weekly AI News Summary' unless set.
    #[serde(default = "default_title")]
    pub title: String,
    /// A short paragraph for the archive list.
    pub summary: String,
    /// The full text, one string per paragraph.
    pub content: Vec<String>,
    /// First day of the week covered.
    pub start_date: DateTime<Utc>,
    /// Last day of the week covered.
    pub end_date: DateTime<Utc>,
    /// When it was generated.
    pub generated_date: DateTime<Utc>,
    /// How many items it covers.
    pub article_count: u64,
    /// "All You Need to Know": the week's biggest stories, one sentence each with every
    /// outlet that reported it (none in summaries written before there were any).
    #[serde(default)]
    pub key_points: Vec<KeyPoint>,
}

/// One of the week's biggest stories, told in a sentence, with its sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct KeyPoint {
    /// The sentence.
    pub text: String,
    /// Every outlet that reported the story, the one the sentence is from first.
    pub sources: Vec<SourceLink>,
}

/// A publication's report of a story.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SourceLink {
    /// The publication's name, as the reader shows it (docs/product.md §3).
    pub name: String,
    /// The report's link.
    pub url: String,
}

impl WeeklySummary {
    /// Checks the fields: a usable id, a start before the end, a non-empty text.
    pub fn validate(mut self) -> Result<Self> {
        let id_ok = !self.id.is_empty()
            && self.id.len() <= 128
            && self
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
        if !id_ok {
            return Err(Error::Invalid(
                "summary id must be 1 to 128 letters, digits, '-', '_' or '.'".into(),
            ));
        }
        if self.title.trim().is_empty() {
            self.title = default_title();
        }
        if self.start_date > self.end_date {
            return Err(Error::Invalid(
                "start_date must not be after end_date".into(),
            ));
        }
        if self.summary.trim().is_empty() && self.content.iter().all(|p| p.trim().is_empty()) {
            return Err(Error::Invalid(
                "a summary needs a summary or content".into(),
            ));
        }
        Ok(self)
    }
}

impl Store {
    /// Adds or replaces a summary (checked first). Durable on return.
    pub async fn put_summary(&self, summary: WeeklySummary) -> Result<()> {
        let summary = summary.validate()?;
        self.backend().put_summary(&summary).await
    }

    /// Adds a summary unless the week already has one: answers whether it was added.
    /// What the daemons' schedule writes, so that the week's summary is written once
    /// however many of them run it.
    pub async fn put_summary_once(&self, summary: WeeklySummary) -> Result<bool> {
        let summary = summary.validate()?;
        self.backend().put_summary_once(&summary).await
    }

    /// One summary.
    pub async fn summary(&self, id: &str) -> Result<Option<WeeklySummary>> {
        self.backend().summary(id).await
    }

    /// Every summary, newest week first.
    pub async fn summaries(&self) -> Result<Vec<WeeklySummary>> {
        self.backend().summaries().await
    }

    /// Removes a summary.
    pub async fn remove_summary(&self, id: &str) -> Result<WeeklySummary> {
        self.backend()
            .remove_summary(id)
            .await?
            .ok_or(Error::NotFound("weekly summary"))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::store_tests;

    pub(crate) fn week(id: &str, start: &str) -> WeeklySummary {
        let start = DateTime::parse_from_rfc3339(start)
            .unwrap()
            .with_timezone(&Utc);
        WeeklySummary {
            id: id.into(),
            title: String::new(),
            summary: format!("Week {id}"),
            content: vec!["First paragraph.".into(), "Second paragraph.".into()],
            start_date: start,
            end_date: start + chrono::Duration::days(6),
            generated_date: start + chrono::Duration::days(7),
            article_count: 12,
            key_points: Vec::new(),
        }
    }

    store_tests! {
        async fn archive_is_newest_first_and_replacing_moves_the_index(store) {
            store
                .put_summary(week("w1", "2026-11-02T00:00:00Z"))
                .await
                .unwrap();
            store
                .put_summary(week("w3", "2026-11-16T00:00:00Z"))
                .await
                .unwrap();
            store
                .put_summary(week("w2", "2026-11-09T00:00:00Z"))
                .await
                .unwrap();
            let ids: Vec<_> = store
                .summaries()
                .await
                .unwrap()
                .into_iter()
                .map(|s| s.id)
                .collect();
            assert_eq!(ids, ["w3", "w2", "w1"]);
            assert_eq!(
                store.summary("w1").await.unwrap().unwrap().title,
                DEFAULT_SUMMARY_TITLE
            );
            // w1 re-generated for a later week: one entry, new position.
            store
                .put_summary(week("w1", "2026-11-23T00:00:00Z"))
                .await
                .unwrap();
            let ids: Vec<_> = store
                .summaries()
                .await
                .unwrap()
                .into_iter()
                .map(|s| s.id)
                .collect();
            assert_eq!(ids, ["w1", "w3", "w2"]);
            if let Some(engine) = store.internals() {
                assert_eq!(engine.index_len("start_summaryid"), 3);
            }
            store.remove_summary("w3").await.unwrap();
            assert!(store.summary("w3").await.unwrap().is_none());
            assert!(matches!(
                store.remove_summary("w3").await,
                Err(Error::NotFound(_))
            ));
            assert_eq!(store.summaries().await.unwrap().len(), 2);
        }

        async fn invalid_summaries_are_refused(store) {
            let mut bad = week("a b", "2026-11-02T00:00:00Z");
            assert!(store.put_summary(bad.clone()).await.is_err());
            bad.id = "ok".into();
            bad.end_date = bad.start_date - chrono::Duration::days(1);
            assert!(store.put_summary(bad).await.is_err());
        }
    }

    #[test]
    fn json_fields_are_the_specs() {
        let v = serde_json::to_value(week("w1", "2026-11-02T00:00:00Z")).unwrap();
        for f in [
            "id",
            "title",
            "summary",
            "content",
            "start_date",
            "end_date",
            "generated_date",
            "article_count",
        ] {
            assert!(v.get(f).is_some(), "missing {f}");
        }
        assert!(v["content"].is_array());
    }
}

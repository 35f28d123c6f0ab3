//! Weekly summaries: a week's items become one [`WeeklySummary`] (docs/product.md §3).
//!
//! The local summariser ([`local`]) is the default and always available; the LLM one
//! ([`llm`]) is used when configured, and any failure of it falls back to the local one
//! with a warning. A summary's id is its ISO week (`2026-W47`), so each week has at most
//! one; `start_date` is Monday 00:00 UTC and `end_date` Sunday 23:59:59 UTC.
//!
//! The title says what the week was about: the LLM's own title line, else the week's
//! biggest topics as the local summariser files its stories ("AI this week: models,
//! policy and robotics"); the default title (docs/product.md §3) only when no story has a
//! topic. Every story in the content is followed by its source and link (the LLM's text
//! gets a closing "Sources:" paragraph for that).

pub(crate) mod digest;
pub mod llm;
pub mod local;
pub mod week;

use chrono::Utc;
use radar_store::{DEFAULT_SUMMARY_TITLE, Store, WeeklySummary};

use llm::LlmConfig;
use week::Week;

/// Most items one summary reads.
const MAX_ITEMS: usize = 5_000;

/// A summary's text before it gets its dates.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// What the week was about; `None` keeps the default title (docs/product.md §3).
    pub title: Option<String>,
    /// The short paragraph.
    pub summary: String,
    /// The paragraphs.
    pub content: Vec<String>,
}

/// A generated summary and how it was made.
#[derive(Debug)]
pub struct Generated {
    /// The stored summary.
    pub summary: WeeklySummary,
    /// `local` or `llm`.
    pub method: &'static str,
    /// Why the LLM was not used although configured.
    pub warning: Option<String>,
}

/// What writing a summary needs: the store it reads the week from and writes to, and the
/// LLM summariser when one is configured. The admin commands and the daemon's schedule
/// both build one from what they hold.
pub struct Summarizer<'a> {
    /// The store.
    pub store: &'a Store,
    /// The client the LLM is called with.
    pub http: &'a reqwest::Client,
    /// The LLM summariser, when configured.
    pub llm: Option<&'a LlmConfig>,
}

/// Why no summary was written.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The week has a summary and `force` was not given.
    #[error(
        "the summary of {0} exists already; add --force to replace it, or `radar summaries show {0}`"
    )]
    Exists(String),
    /// No item was published in the week.
    #[error(
        "no items were published in {week} ({from} to {to}); nothing to summarise. Pick another week with --week YYYY-Www"
    )]
    EmptyWeek {
        /// The week's label.
        week: String,
        /// Its first day.
        from: chrono::NaiveDate,
        /// Its last day.
        to: chrono::NaiveDate,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] radar_store::Error),
    /// The local summariser's task ended without an answer (it panicked).
    #[error("the local summariser stopped: {0}")]
    Internal(String),
}

/// Writes the summary of `week`; an existing one is replaced only with `force`, and a week
/// without items is [`SummaryError::EmptyWeek`].
pub async fn generate(
    with: &Summarizer<'_>,
    week: &Week,
    force: bool,
) -> Result<Generated, SummaryError> {
    let id = week.label();
    if !force && with.store.summary(&id).await?.is_some() {
        return Err(SummaryError::Exists(id));
    }
    let items = with
        .store
        .items_between(week.start(), week.end(), MAX_ITEMS)
        .await?;
    if items.is_empty() {
        return Err(SummaryError::EmptyWeek {
            week: id,
            from: week.start().date_naive(),
            to: week.last_second().date_naive(),
        });
    }
    let (mut draft, method, mut warning) = match with.llm {
        Some(cfg) => match llm::summarize(with.http, cfg, &items, week).await {
            Ok(d) => (d, "llm", None),
            Err(e) => {
                tracing::warn!(error = %e, "the LLM summariser failed; using the local one");
                let items = items.clone();
                (
                    local_draft(items).await?,
                    "local",
                    Some(format!("{e}; used the local summariser instead")),
                )
            }
        },
        None => (local_draft(items.clone()).await?, "local", None),
    };
    if draft.title.is_none() {
        // The LLM gave no title line: the lead story's headline, as the local one does.
        draft.title = local::title(&items);
    }
    // "All You Need to Know": the stories and their sources are chosen by the local
    // ranking whichever summariser wrote the text; the model, when it wrote the text,
    // tells each story in a sentence of its own (else the most central sentence stays).
    // Ranked by coverage and reads: each item's readers from the week's start until now
    // (a report is read during its week and after it).
    let readers = with.store.item_readers(week.start(), Utc::now()).await?;
    let mut key_points = {
        let items = items.clone();
        tokio::task::spawn_blocking(move || local::key_points(&items, &readers))
            .await
            .map_err(|e| SummaryError::Internal(e.to_string()))?
    };
    if let (Some(cfg), "llm", false) = (with.llm, method, key_points.is_empty()) {
        match llm::key_point_sentences(with.http, cfg, &key_points, &items).await {
            Ok(sentences) => {
                for (point, sentence) in key_points.iter_mut().zip(sentences) {
                    point.text = sentence;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "the LLM did not write the key points; keeping the extracted ones");
                warning = Some(format!("{e}; kept the key points extracted from the items"));
            }
        }
    }
    let summary = WeeklySummary {
        id,
        title: draft
            .title
            .unwrap_or_else(|| DEFAULT_SUMMARY_TITLE.to_string()),
        summary: draft.summary,
        content: draft.content,
        start_date: week.start(),
        end_date: week.last_second(),
        generated_date: Utc::now(),
        article_count: items.len() as u64,
        key_points,
    };
    if force {
        with.store.put_summary(summary.clone()).await?;
    } else if !with.store.put_summary_once(summary.clone()).await? {
        // Written meanwhile, by another process sharing the store: theirs stays.
        return Err(SummaryError::Exists(summary.id));
    }
    Ok(Generated {
        summary,
        method,
        warning,
    })
}

async fn local_draft(items: Vec<radar_store::NewsItem>) -> Result<Draft, SummaryError> {
    tokio::task::spawn_blocking(move || local::summarize(&items))
        .await
        .map_err(|e| SummaryError::Internal(e.to_string()))
}

/// How long the schedule's writer holds a week against the other processes sharing the
/// store: longer than the LLM may take for its two calls (the summary, then the key
/// points), then the summary is stored.
fn summary_lease(with: &Summarizer<'_>) -> chrono::Duration {
    let llm = with
        .llm
        .map_or(std::time::Duration::ZERO, |cfg| cfg.timeout * 2);
    chrono::Duration::from_std(llm).unwrap_or(chrono::Duration::MAX) + chrono::Duration::minutes(5)
}

/// The daemon's schedule: writes the previous week's summary once, if it is missing. A
/// week handled once (written, already there, or empty) is not looked at again, so a
/// summary the operator removed stays removed; a failure is retried at the next check.
///
/// Every daemon sharing the store runs the schedule; the week's lease
/// (`weekly-summary:<week>`, taken as `holder`) lets one of them write it, so the LLM is
/// asked once a week, not once per daemon. The others look again at their next check,
/// when the week is handled or the writer's lease has lapsed.
pub async fn scheduled(with: &Summarizer<'_>, holder: &str) {
    let week = Week::previous(Utc::now());
    let label = week.label();
    match with.store.summary_scheduled(&label).await {
        Ok(false) => {}
        Ok(true) => return,
        Err(e) => return tracing::warn!(error = %e, "cannot read the summary schedule"),
    }
    let until = Utc::now() + summary_lease(with);
    match with
        .store
        .lease(&format!("weekly-summary:{label}"), holder, until)
        .await
    {
        Ok(true) => {}
        Ok(false) => return tracing::debug!(week = %label, "another process writes the summary"),
        Err(e) => return tracing::warn!(error = %e, "cannot lease the weekly summary"),
    }
    let handled = match generate(with, &week, false).await {
        Ok(g) => {
            tracing::info!(week = %label, method = g.method, articles = g.summary.article_count, "weekly summary written");
            true
        }
        Err(SummaryError::EmptyWeek { .. }) => {
            tracing::info!(week = %label, "no items last week; no summary");
            true
        }
        Err(SummaryError::Exists(_)) => true,
        Err(e) => {
            tracing::warn!(week = %label, error = %e, "cannot write the weekly summary; will retry");
            false
        }
    };
    if handled && let Err(e) = with.store.record_summary_scheduled(&label).await {
        tracing::warn!(error = %e, "cannot record the summary schedule");
    }
}

//! `GET /api/insights`: a subscriber's reading of the week set against all readers'
//! (docs/product.md §16).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A reader's week: what they read, how it compares with all readers, the biggest
/// stories they missed and the terms of their resume the week's items named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Insights {
    /// The week's start: seven days before `until`.
    pub since: DateTime<Utc>,
    /// When the answer was made.
    pub until: DateTime<Utc>,
    /// How many items the reader read this week (each item once).
    pub reads: u64,
    /// The reader's reads by topic, most read first (items no topic claims are left out).
    pub topics: Vec<TopicReads>,
    /// The reader's reads by source, most read first.
    pub sources: Vec<SourceReads>,
    /// The comparison with all readers, or why it is hidden.
    pub comparison: Comparison,
    /// The week's biggest stories (by coverage and reads) the reader read no report of.
    pub missed: Vec<MissedStory>,
    /// Terms of the reader's resume that this week's items name, the most named first.
    pub resume_terms: Vec<ResumeTerm>,
    /// Whether the reader has saved a resume at all.
    pub has_resume: bool,
}

/// Reads of one topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicReads {
    /// The topic's name (the weekly summary's sections).
    pub topic: String,
    /// Items of that topic the reader read.
    pub reads: u64,
}

/// Reads of one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceReads {
    /// The publication's name.
    pub source: String,
    /// Items of that source the reader read.
    pub reads: u64,
}

/// The reader's share of reads per topic against all readers'. Shown only when enough
/// readers read this week that no one's reading can be inferred.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// Whether `topics` holds the comparison.
    pub shown: bool,
    /// Readers who read this week, as last counted.
    pub readers: u64,
    /// Fewest readers the comparison is shown with.
    pub min_readers: u64,
    /// Why it is hidden, when it is.
    pub hidden_reason: Option<String>,
    /// When all readers' reads were last counted.
    pub counted_at: Option<DateTime<Utc>>,
    /// Per topic, the share of the reader's reads and of all readers' reads (0 to 1).
    pub topics: Vec<TopicShare>,
}

/// One topic's share of reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicShare {
    /// The topic.
    pub topic: String,
    /// Its share of the reader's reads.
    pub yours: f64,
    /// Its share of all readers' reads.
    pub everyone: f64,
}

/// A story of the week the reader did not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MissedStory {
    /// Its lead report's item id.
    pub id: String,
    /// Its lead report's title.
    pub title: String,
    /// Its lead report's link.
    pub url: Option<String>,
    /// Its lead report's publication.
    pub source: String,
    /// How many outlets reported it.
    pub outlets: u64,
    /// How many reads its reports had this week; none while fewer readers read this week
    /// than the comparison needs (a count of one or two would tell who read what).
    pub readers: Option<u64>,
}

/// A resume term the week's items named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResumeTerm {
    /// The term, as the week's items spell it in lower case.
    pub term: String,
    /// How many of the week's items name it.
    pub items: u64,
}

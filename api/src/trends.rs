//! The answer of `GET /api/trends` and `GET /api/v1/trends`: the named things and topics
//! whose weekly mentions moved most this week against the weeks before, ranked by change
//! rather than size, each with its weekly counts (for a small chart) and the stories
//! behind it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What kind of term a trend is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrendKind {
    /// A named thing: a company, a model, a lab, a person (a run of capitalised words, a
    /// name with digits such as "GPT-5", or a known name of the field).
    Name,
    /// A topic of the field's keyword list ("robotics", "regulation"...).
    Topic,
}

/// One of this week's stories behind a trend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendStory {
    /// The item's id.
    pub id: String,
    /// Its headline.
    pub title: String,
    /// Link to the original, when there is one.
    pub url: Option<String>,
    /// The publisher's name (null without a URL).
    pub source: Option<String>,
    /// When it was published.
    pub published_date: DateTime<Utc>,
}

/// A term whose mentions rose or fell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trend {
    /// The term as first written in a story ("OpenAI", "GPT-5", "robotics").
    pub term: String,
    /// A name or a topic.
    pub kind: TrendKind,
    /// Items mentioning it per week, oldest first; the last is this week (the 7 days
    /// ending at `at`), each earlier one the 7 days before the next.
    pub weeks: Vec<u32>,
    /// Items mentioning it this week (the last of `weeks`).
    pub this_week: u32,
    /// The mean of the previous four weeks.
    pub before: f64,
    /// `(thisWeek + 1) / (before + 1)`: above 1 rising, below 1 falling.
    pub change: f64,
    /// A few of this week's items mentioning it, newest first (for a falling term, the
    /// most recent ones it still has, possibly none).
    pub stories: Vec<TrendStory>,
}

/// The trends at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendsPage {
    /// The end of this week: the moment the counts were read at (now).
    pub at: DateTime<Utc>,
    /// Rising terms, the largest change first.
    pub rising: Vec<Trend>,
    /// Falling terms, the largest drop first.
    pub falling: Vec<Trend>,
    /// The most trends each list holds for this caller.
    pub limit: usize,
    /// Whether the caller was counted as a subscriber.
    pub subscriber: bool,
}

//! The answer of `GET /api/search`: results with where they matched, marked by ranges
//! rather than markup, so no client ever parses HTML.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A text with the words a search matched. `ranges` are `[start, end)` pairs counted in
/// Unicode code points of `text` (in JavaScript, index `Array.from(text)`), sorted and never
/// overlapping; no markup is ever inside `text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Highlighted {
    /// The text as cards show it (citation markers such as `[1]` removed).
    pub text: String,
    /// The matched words.
    #[schema(value_type = Vec<Vec<u32>>)]
    pub ranges: Vec<[usize; 2]>,
}

/// A passage of an item's content (or short text) around the words a search matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Snippet {
    /// Which field it is cut from: `content` or `short`.
    pub field: String,
    /// The passage, about 200 characters, cut at word boundaries (no ellipsis added).
    pub text: String,
    /// The matched words, as in [`Highlighted`].
    #[schema(value_type = Vec<Vec<u32>>)]
    pub ranges: Vec<[usize; 2]>,
}

/// Where a result matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Highlights {
    /// The whole title, marked.
    pub title: Highlighted,
    /// The whole summary, marked.
    pub summary: Highlighted,
    /// A marked passage of the content or short text, when either matched; else null.
    pub snippet: Option<Snippet>,
}

/// One search result: the item, as in the feed, and its highlights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchHit {
    /// The item.
    #[serde(flatten)]
    pub item: crate::NewsItem,
    /// Where it matched.
    pub highlights: Highlights,
}

/// `GET /api/search`: one page of results, best first. `hasMore` and `nextCursor` work as
/// in the feed: free readers get the best few (the free allowance, `limit`) and no cursor,
/// subscribers pages of `limit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchPage {
    /// The results, best first (newer first among equally good ones).
    pub items: Vec<SearchHit>,
    /// Opaque position after the last result, for `?cursor=` with the same `q`; null when
    /// there is nothing more or the reader is not a subscriber.
    pub next_cursor: Option<String>,
    /// Whether more results remain after these.
    pub has_more: bool,
    /// The most results a page holds for this reader (5 or 20).
    pub limit: usize,
    /// How many results the reader can reach from the first page, this one included: the
    /// matches the reader has not hidden, up to the reader's allowance and the search's depth.
    pub total: u64,
    /// Whether the server counted the reader as a subscriber for this answer.
    pub subscriber: bool,
}

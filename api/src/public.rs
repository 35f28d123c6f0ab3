//! The public news API, `GET /api/v1/news` with an API key.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::NewsItem;

/// One item of the public news API: docs/product.md §3's public fields only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PublicItem {
    /// Stable identifier.
    pub id: String,
    /// Headline.
    pub title: String,
    /// A paragraph or two.
    pub summary: String,
    /// Full text.
    pub content: String,
    /// When the source published it (RFC 3339).
    pub published_date: DateTime<Utc>,
    /// Link to the original, when there is one.
    pub url: Option<String>,
}

impl From<NewsItem> for PublicItem {
    fn from(i: NewsItem) -> Self {
        Self {
            id: i.id,
            title: i.title,
            summary: i.summary,
            content: i.content,
            published_date: i.published_date,
            url: i.url,
        }
    }
}

/// Position of a public API page in the whole listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    /// How many items there are in all.
    pub total: u64,
    /// This page's number, from 1.
    pub page: u64,
    /// Items per page.
    pub limit: u64,
    /// How many pages there are (0 when there are no items).
    pub total_pages: u64,
    /// Whether a later page has items.
    pub has_next: bool,
    /// Whether this is not the first page.
    pub has_prev: bool,
}

impl Pagination {
    /// Where page `page` (from 1) of `limit` items sits among `total`.
    pub fn of(total: u64, page: u64, limit: u64) -> Self {
        let total_pages = total.div_ceil(limit.max(1));
        Self {
            total,
            page,
            limit,
            total_pages,
            has_next: page < total_pages,
            has_prev: page > 1,
        }
    }
}

/// `GET /api/v1/news`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PublicPage {
    /// Where this page sits.
    pub pagination: Pagination,
    /// The items of this page.
    pub items: Vec<PublicItem>,
}

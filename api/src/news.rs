//! The reader's stream: items, the feed page, the three marks, shares and key takeaways.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A news item (docs/product.md §3), as the store keeps it and every view shows it.
///
/// Text fields are ready to draw: citation markers such as `[1]` are already gone, and
/// `source` is the publisher's name, so clients neither clean text nor derive names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NewsItem {
    /// Stable identifier.
    pub id: String,
    /// Headline.
    pub title: String,
    /// A paragraph or two.
    pub summary: String,
    /// Brief text for Drops; may be empty, then clients show the summary.
    #[serde(default)]
    pub short: String,
    /// The full text, paragraphs separated by blank lines.
    #[serde(default)]
    pub content: String,
    /// Link to the original, when there is one.
    #[serde(default)]
    pub url: Option<String>,
    /// When the source published it (RFC 3339).
    pub published_date: DateTime<Utc>,
    /// The publisher's name, from the URL's host (null without a URL: clients show
    /// "Source").
    #[serde(default)]
    pub source: Option<String>,
    /// The story this item's card stands for, when other outlets reported the same
    /// event: only in the answers of a reader who groups stories (the default), and only
    /// on the story's card (its lead) and in the reader. Never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub story: Option<Story>,
}

/// Every outlet's coverage of one event, as its card and the reader show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Story {
    /// The story's id: the id of the item that founded it. Stable: when two stories
    /// merge, the older one's id survives.
    pub id: String,
    /// How many items report it, this one included ("5 sources").
    pub sources: u32,
    /// The other items, in the order they joined the story.
    pub outlets: Vec<Outlet>,
}

/// One outlet's item in a story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Outlet {
    /// The item's id (opens it in the reader).
    pub id: String,
    /// Its headline.
    pub title: String,
    /// The publisher's name (null without a URL: clients show "Source").
    pub source: Option<String>,
    /// Link to the original.
    pub url: Option<String>,
}

/// One page of `GET /api/news`: everything a client needs to draw the Feed, Drops and TV
/// mode without knowing the product's caps or who is a subscriber.
///
/// How clients use it:
/// - show every item of every page loaded, in order, and nothing else: the server has
///   already left out what the caller hid or read and applied the caller's allowance;
/// - after hiding, reading, restoring or unreading an item, fetch the pages again from the
///   first one (passing each answer's `nextCursor` on), so the list is refilled;
/// - `nextCursor` not null: more can be read now (Read More; Drops and TV page on);
/// - `hasMore` with a null `nextCursor`: the caller has reached their allowance (Subscribe
///   Now; the Drops paywall after the last story);
/// - `total` is how many items the caller can reach from the first page ("n of m");
/// - `subscriber` is the server's decision for this answer: a client that believed
///   otherwise reads the account again (`GET /api/user/metadata`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedPage {
    /// The items, newest first.
    pub items: Vec<NewsItem>,
    /// Opaque position after the last item, for `?cursor=`; null when nothing more may be
    /// read now.
    pub next_cursor: Option<String>,
    /// Whether more items exist after these, readable or not.
    pub has_more: bool,
    /// The most items a page holds for this caller.
    pub limit: usize,
    /// How many items the caller can reach from the first page, this one included.
    pub total: u64,
    /// Whether the server counted the caller as a subscriber for this answer.
    pub subscriber: bool,
}

/// One of the three mutually exclusive marks (docs/product.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// In Favs.
    Favorite,
    /// In Trash, out of the feed.
    Hidden,
    /// Read, out of the feed.
    Read,
}

impl Mark {
    /// Every mark.
    pub const ALL: [Mark; 3] = [Mark::Favorite, Mark::Hidden, Mark::Read];

    /// The path segment of the mark's routes: `/api/{segment}` and `/api/{segment}/{id}`.
    pub fn path_segment(self) -> &'static str {
        match self {
            Mark::Favorite => "favorites",
            Mark::Hidden => "hidden",
            Mark::Read => "read",
        }
    }

    /// The mark's place in [`Mark::ALL`]: an index for tables of one entry per mark.
    pub fn index(self) -> usize {
        match self {
            Mark::Favorite => 0,
            Mark::Hidden => 1,
            Mark::Read => 2,
        }
    }

    /// Whether an item with this mark is out of the feed.
    pub fn leaves_feed(self) -> bool {
        matches!(self, Mark::Hidden | Mark::Read)
    }
}

/// The caller's marks on one item after a change; at most one is true.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ItemMarks {
    /// In Favs.
    pub favorite: bool,
    /// In Trash.
    pub hidden: bool,
    /// Read.
    pub read: bool,
}

impl ItemMarks {
    /// No mark.
    pub const NONE: ItemMarks = ItemMarks {
        favorite: false,
        hidden: false,
        read: false,
    };

    /// Only `mark`: usable in constants, where [`ItemMarks::set`] is not.
    pub const fn only(mark: Mark) -> ItemMarks {
        let mut marks = ItemMarks::NONE;
        match mark {
            Mark::Favorite => marks.favorite = true,
            Mark::Hidden => marks.hidden = true,
            Mark::Read => marks.read = true,
        }
        marks
    }

    /// Whether the item carries `mark`.
    pub fn has(&self, mark: Mark) -> bool {
        match mark {
            Mark::Favorite => self.favorite,
            Mark::Hidden => self.hidden,
            Mark::Read => self.read,
        }
    }

    /// Removes `mark`.
    pub fn unset(&mut self, mark: Mark) {
        match mark {
            Mark::Favorite => self.favorite = false,
            Mark::Hidden => self.hidden = false,
            Mark::Read => self.read = false,
        }
    }

    /// Sets `mark` (the caller keeps the marks exclusive).
    pub fn set(&mut self, mark: Mark) {
        match mark {
            Mark::Favorite => self.favorite = true,
            Mark::Hidden => self.hidden = true,
            Mark::Read => self.read = true,
        }
    }
}

/// Answer of every mark change (`POST`/`DELETE /api/{favorites,hidden,read}/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkResult {
    /// Always true on a 200 answer.
    pub success: bool,
    /// False: the server stored the change (the client refetches its lists).
    pub client_side_only: bool,
    /// The item's marks now, as stored.
    pub marks: ItemMarks,
}

/// The list an item was opened from (`POST /api/news/{id}/open`): opening from the
/// reader's own lists (Favs, Trash, Read, Shared) leaves its marks alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OpenedFrom {
    /// The feed.
    Feed,
    /// Drops.
    Drops,
    /// TV mode.
    Tv,
    /// Search results.
    Search,
    /// Favs.
    Favorites,
    /// Trash.
    Hidden,
    /// Read.
    Read,
    /// Shared.
    Shared,
}

impl OpenedFrom {
    /// Whether opening from this list reads the item: only the lists of what is new.
    pub fn reads(self) -> bool {
        matches!(
            self,
            OpenedFrom::Feed | OpenedFrom::Drops | OpenedFrom::Tv | OpenedFrom::Search
        )
    }
}

/// Body of `POST /api/news/{id}/open`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct OpenBody {
    /// Where the reader opened the item from.
    pub from: OpenedFrom,
}

/// Answer of `POST /api/news/{id}/open`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    /// Whether this opening marked the item read (it had no mark, it was opened from the
    /// feed, Drops, TV or search, and the reader keeps mark-on-open on). A client keeps
    /// such an item in the list it is showing, dimmed, until that list is read again.
    pub marked_read: bool,
    /// The item's marks now, as stored.
    pub marks: ItemMarks,
}

/// Answer of `GET /api/unread`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UnreadCount {
    /// Items the caller may still read in their feed: the first feed page's `total`
    /// (for a reader who is not a subscriber, at most the free allowance).
    pub unread: u64,
}

/// How far back "mark as read" reaches (`POST /api/read-before`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OlderThan {
    /// Every item published until now.
    All,
    /// Items published more than a day ago.
    Day,
    /// Items published more than a week ago.
    Week,
}

/// Body of `POST /api/read-before`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkOlderBody {
    /// Which items to count as read.
    pub older_than: OlderThan,
}

/// Body of `PUT /api/read-before`: the cut-off to put back (an undo), or null for none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadBeforeBody {
    /// Items published before this and without a mark count as read.
    pub read_before: Option<DateTime<Utc>>,
}

/// Answer of `POST` and `PUT /api/read-before`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadBeforeState {
    /// The cut-off now: items published before it that carry no mark count as read.
    pub read_before: Option<DateTime<Utc>>,
    /// The cut-off before this change: `PUT` it back to undo.
    pub previous: Option<DateTime<Utc>>,
    /// What the caller may still read in their feed now (as `GET /api/unread`).
    pub unread: u64,
}

/// Answer of `GET /api/read/check/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ReadCheck {
    /// Whether the caller has read the item.
    pub read: bool,
}

/// Where an item can be shared (docs/product.md §7: LinkedIn only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// LinkedIn.
    Linkedin,
}

impl Platform {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Linkedin => "linkedin",
        }
    }
}

/// Body of `POST /api/shared/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ShareBody {
    /// Where the item was shared.
    pub platform: Platform,
}

/// Answer of a recorded share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ShareResult {
    /// Always true on a 200 answer.
    pub success: bool,
}

/// A shared item with when and where it was last shared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedItem {
    /// The item.
    #[serde(flatten)]
    pub item: NewsItem,
    /// When the user last shared it.
    pub shared_at: DateTime<Utc>,
    /// Where it was shared.
    pub platform: String,
}

/// One card of key takeaways.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TakeawayCard {
    /// The card's heading.
    pub title: String,
    /// Short labels, the reader's own interests first.
    pub tags: Vec<String>,
    /// What to take from the story.
    pub description: String,
}

/// `GET /api/news/{id}/takeaways`: three cards for one item, ranked for the reader.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Takeaways {
    /// The item they are about.
    pub item_id: String,
    /// Three cards, most relevant to the reader first.
    pub cards: Vec<TakeawayCard>,
    /// One line: what the story matters most for.
    pub summary: String,
    /// Whether the reader's stored resume ranked the cards.
    pub personalized: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The web app's list of mark kinds (`web/src/lib/api/mark-kinds.ts`) is written from
    /// [`Mark::ALL`], so a new kind reaches the web app's sets, storage and feed filter
    /// without a hand-kept copy. After changing [`Mark`], run
    /// `RADAR_UPDATE_MARKS=1 cargo test -p radar-api marks` and commit the file.
    #[test]
    fn the_web_apps_mark_kinds_are_current() {
        let rows: String = Mark::ALL
            .iter()
            .map(|m| {
                let name = serde_json::to_value(m).unwrap();
                format!(
                    "  {{ mark: '{}', segment: '{}', leavesFeed: {} }},\n",
                    name.as_str().unwrap(),
                    m.path_segment(),
                    m.leaves_feed()
                )
            })
            .collect();
        let current = format!(
            "// Written from `Mark::ALL` (api/src/news.rs) by\n\
             // `RADAR_UPDATE_MARKS=1 cargo test -p radar-api marks`: do not edit by hand.\n\
             import type {{ components }} from '@/lib/api/schema';\n\
             \n\
             /** Every mark kind, with its routes' path segment and whether it takes an item out of the feed. */\n\
             export const MARK_KINDS = [\n{rows}] as const satisfies readonly {{ mark: keyof components['schemas']['ItemMarks']; segment: string; leavesFeed: boolean }}[];\n"
        );
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../web/src/lib/api/mark-kinds.ts");
        if std::env::var_os("RADAR_UPDATE_MARKS").is_some() {
            std::fs::write(&path, &current).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == current,
            "web/src/lib/api/mark-kinds.ts is not Mark::ALL: run \
             `RADAR_UPDATE_MARKS=1 cargo test -p radar-api marks` and commit it"
        );
    }

    #[test]
    fn every_mark_has_its_own_place_and_segment() {
        for (i, m) in Mark::ALL.into_iter().enumerate() {
            assert_eq!(m.index(), i);
            let mut marks = ItemMarks::default();
            marks.set(m);
            assert!(marks.has(m));
            assert_eq!(Mark::ALL.iter().filter(|o| marks.has(**o)).count(), 1);
            marks.unset(m);
            assert_eq!(marks, ItemMarks::default());
        }
        let segments: std::collections::HashSet<_> =
            Mark::ALL.iter().map(|m| m.path_segment()).collect();
        assert_eq!(segments.len(), Mark::ALL.len());
    }
}

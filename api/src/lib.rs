//! Radar's API contract: the JSON shapes of the daemon's requests and answers, and nothing
//! else. The daemon serves these types, the terminal reader and the admin commands read
//! them, and the web app's TypeScript types are generated from the OpenAPI document they
//! describe (`web/src/lib/api/schema.d.ts`), so every client speaks one contract.
//!
//! The crate holds no storage and no product rule: which items a caller may see, the caps
//! of the free tier and who is a subscriber are decided by the store and the daemon, and
//! every answer says what a client needs to draw (see [`news::FeedPage`]). Field names
//! follow docs/product.md §3; change them only together with every client.
#![deny(missing_docs)]

pub mod account;
pub mod alerts;
pub mod auth;
pub mod error;
pub mod insights;
pub mod news;
pub mod public;
pub mod search;
pub mod trends;

pub use error::ErrorBody;
pub use news::{
    FeedPage, ItemMarks, Mark, MarkOlderBody, MarkResult, NewsItem, OlderThan, OpenBody, Opened,
    OpenedFrom, Outlet, Platform, ReadBeforeBody, ReadBeforeState, ReadCheck, ShareBody,
    ShareResult, SharedItem, Story, TakeawayCard, Takeaways, UnreadCount,
};

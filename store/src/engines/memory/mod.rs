//! An in-memory backend, for tests: every trait of [`crate::backend`] over plain maps.
//!
//! All state sits behind one mutex, so each method is one atomic step, which is what the
//! interface asks of every backend; the rules a method is handed run inside that step
//! and their answers are applied before the lock is let go. Nothing is kept on disk, so
//! [`Backend::flush`] has nothing to do. It exists to prove that the seam is real (the
//! rules need nothing that only sled offers) and to run the contract suite
//! (`crate::backend::contract`) in milliseconds; it is built for clarity, not for a
//! million items: a few listings sort what they return on each call.

mod accounts;
mod billing;
mod coordination;
mod items;
mod keys;
mod marks;
mod reading;
mod records;
mod secrets;
mod sessions;
mod sources;
mod stories;

use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::Result;
use crate::backend::Backend;

/// A backend that keeps everything in memory; see the module doc.
#[derive(Default)]
pub(crate) struct MemoryBackend {
    state: Mutex<State>,
}

/// Everything the backend keeps, one part per aggregate.
#[derive(Default)]
struct State {
    items: items::Items,
    marks: marks::Marks,
    accounts: accounts::Accounts,
    sessions: sessions::Sessions,
    secrets: secrets::Secrets,
    keys: keys::Keys,
    billing: billing::Billing,
    sources: sources::Sources,
    records: records::Records,
    reading: reading::Reading,
    stories: stories::Stories,
    coordination: coordination::Coordination,
}

impl MemoryBackend {
    /// An empty backend.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The state, for one atomic step. A rule that panicked in an earlier step changed
    /// nothing (rules run on copies, before any write), so a poisoned lock is taken as is.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait::async_trait]
impl Backend for MemoryBackend {
    fn engine(&self) -> &'static str {
        "memory"
    }

    async fn flush(&self) -> Result<()> {
        Ok(())
    }

    async fn upkeep(&self) -> Result<()> {
        Ok(())
    }
}

/// What only this backend promises; the interface's contract runs on it in
/// `crate::backend::contract`.
#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::MemoryBackend;
    use crate::backend::{AccountStore, Backend, ItemStore, StoredItem};
    use crate::{Error, NewsItem, User};

    fn item(id: &str) -> StoredItem {
        StoredItem::new(
            serde_json::from_value::<NewsItem>(serde_json::json!({
                "id": id,
                "title": "T",
                "summary": "S",
                "published_date": "2026-01-01T00:00:00Z",
            }))
            .unwrap(),
        )
    }

    #[tokio::test]
    async fn forgotten_changes_are_deleted_as_one_replica_needs() {
        let b = MemoryBackend::new();
        assert_eq!(b.engine(), "memory");
        let written = b.put_items(&[item("a"), item("b")]).await.unwrap();
        b.forget_item_changes(&[written[0].change]).await.unwrap();
        let left: Vec<u64> = b
            .item_changes(0, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|c| c.seq)
            .collect();
        assert_eq!(left, [written[1].change]);
    }

    #[tokio::test]
    async fn a_rule_that_panics_changes_nothing_and_the_backend_goes_on() {
        let b = Arc::new(MemoryBackend::new());
        let user: User = serde_json::from_value(serde_json::json!({
            "id": "u",
            "email": "u@example.com",
            "password_hash": "hash",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }))
        .unwrap();
        b.insert_user(&user).await.unwrap();
        let panicking = b.clone();
        let joined = tokio::spawn(async move {
            panicking
                .update_user("u", &mut |u: &mut User| -> crate::Result<()> {
                    u.email = "v@example.com".into();
                    panic!("a rule with a bug")
                })
                .await
        })
        .await;
        assert!(joined.is_err(), "the task panicked");
        assert_eq!(b.user("u").await.unwrap().as_deref(), Some(&user));
        assert!(b.user_by_email("v@example.com").await.unwrap().is_none());
        assert!(matches!(
            b.insert_user(&user).await,
            Err(Error::Conflict(_))
        ));
    }
}

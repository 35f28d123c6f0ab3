//! A user's marks on items (spec section 4): favourite, hidden and read are mutually
//! exclusive, so setting one clears the other two in the same transaction; shares are
//! recorded separately and do not interact with them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::Transactional;
use utoipa::ToSchema;

use crate::{Error, NewsItem, Result, Store, from_json, keys, to_json};

/// One of the three mutually exclusive marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// In Favs.
    Favorite,
    /// In Trash, out of the feed.
    Hidden,
    /// Read, out of the feed.
    Read,
}

/// A shared item with when and where it was last shared.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedItem {
    /// The item.
    #[serde(flatten)]
    pub item: NewsItem,
    /// When the user last shared it.
    pub shared_at: DateTime<Utc>,
    /// Where it was shared ("linkedin").
    pub platform: String,
}

#[derive(Serialize, Deserialize)]
struct ShareRecord {
    at: DateTime<Utc>,
    platform: String,
}

impl Store {
    fn mark_tree(&self, mark: Mark) -> &sled::Tree {
        match mark {
            Mark::Favorite => &self.t.userid_favorites,
            Mark::Hidden => &self.t.userid_hidden,
            Mark::Read => &self.t.userid_read,
        }
    }

    /// Marks an item, clearing the other two marks atomically. Unknown items are refused.
    pub fn set_mark(&self, user: &str, item: &str, mark: Mark) -> Result<()> {
        let key = keys::join(user.as_bytes(), item.as_bytes());
        let now = keys::time(Utc::now());
        let t = &self.t;
        (
            &t.items,
            &t.userid_favorites,
            &t.userid_hidden,
            &t.userid_read,
        )
            .transaction(|(items, fav, hid, read)| {
                if items.get(item.as_bytes())?.is_none() {
                    return Err(Error::NotFound("item").into());
                }
                for (m, tree) in [
                    (Mark::Favorite, fav),
                    (Mark::Hidden, hid),
                    (Mark::Read, read),
                ] {
                    if m == mark {
                        tree.insert(key.as_slice(), &now)?;
                    } else {
                        tree.remove(key.as_slice())?;
                    }
                }
                Ok(())
            })?;
        self.flush()
    }

    /// Removes one mark and leaves the others alone. Unknown items are refused; clearing a
    /// mark the item does not have is not an error.
    pub fn clear_mark(&self, user: &str, item: &str, mark: Mark) -> Result<()> {
        if !self.item_exists(item)? {
            return Err(Error::NotFound("item"));
        }
        self.mark_tree(mark)
            .remove(keys::join(user.as_bytes(), item.as_bytes()))?;
        self.flush()
    }

    /// Whether the item carries the mark for this user.
    pub fn has_mark(&self, user: &str, item: &str, mark: Mark) -> Result<bool> {
        Ok(self
            .mark_tree(mark)
            .contains_key(keys::join(user.as_bytes(), item.as_bytes()))?)
    }

    /// Whether the item is out of this user's feed.
    pub fn is_hidden_or_read(&self, user: &str, item: &str) -> Result<bool> {
        let key = keys::join(user.as_bytes(), item.as_bytes());
        Ok(self.t.userid_hidden.contains_key(&key)? || self.t.userid_read.contains_key(&key)?)
    }

    /// The user's items with this mark, most recently marked first. Walks only this
    /// user's keys.
    pub fn marked_items(&self, user: &str, mark: Mark) -> Result<Vec<NewsItem>> {
        let mut marked = Vec::new();
        for entry in self.mark_tree(mark).scan_prefix(keys::prefix(user)) {
            let (key, at) = entry?;
            if let Some(item) = keys::last_part(&key)
                .map(|id| self.item(id))
                .transpose()?
                .flatten()
            {
                marked.push((at.to_vec(), item));
            }
        }
        marked.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(marked.into_iter().map(|(_, item)| item).collect())
    }

    /// Records that the user shared an item on a platform (the latest share is kept).
    pub fn record_share(&self, user: &str, item: &str, platform: &str) -> Result<()> {
        if !self.item_exists(item)? {
            return Err(Error::NotFound("item"));
        }
        let rec = ShareRecord {
            at: Utc::now(),
            platform: platform.to_string(),
        };
        self.t
            .userid_shared
            .insert(keys::join(user.as_bytes(), item.as_bytes()), to_json(&rec))?;
        self.flush()
    }

    /// The user's shared items, newest share first.
    pub fn shared_items(&self, user: &str) -> Result<Vec<SharedItem>> {
        let mut out = Vec::new();
        for entry in self.t.userid_shared.scan_prefix(keys::prefix(user)) {
            let (key, rec) = entry?;
            let rec: ShareRecord = from_json(&rec)?;
            if let Some(item) = keys::last_part(&key)
                .map(|id| self.item(id))
                .transpose()?
                .flatten()
            {
                out.push(SharedItem {
                    item,
                    shared_at: rec.at,
                    platform: rec.platform,
                });
            }
        }
        out.sort_by_key(|s| std::cmp::Reverse(s.shared_at));
        Ok(out)
    }

    /// Deletes every mark and share of a user (account deletion).
    pub(crate) fn forget_marks(&self, user: &str) -> Result<()> {
        for tree in [
            &self.t.userid_favorites,
            &self.t.userid_hidden,
            &self.t.userid_read,
            &self.t.userid_shared,
        ] {
            for key in tree.scan_prefix(keys::prefix(user)).keys() {
                tree.remove(key?)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::tests::new_item;
    use crate::test_store;

    #[test]
    fn marks_are_mutually_exclusive() {
        let (_d, store) = test_store();
        let id = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .unwrap()
            .id;
        let all = |s: &Store| {
            [Mark::Favorite, Mark::Hidden, Mark::Read].map(|m| s.has_mark("u", &id, m).unwrap())
        };
        store.set_mark("u", &id, Mark::Favorite).unwrap();
        assert_eq!(all(&store), [true, false, false]);
        store.set_mark("u", &id, Mark::Read).unwrap();
        assert_eq!(all(&store), [false, false, true]);
        store.set_mark("u", &id, Mark::Hidden).unwrap();
        assert_eq!(all(&store), [false, true, false]);
        store.set_mark("u", &id, Mark::Favorite).unwrap();
        assert_eq!(all(&store), [true, false, false]);
        store.clear_mark("u", &id, Mark::Favorite).unwrap();
        assert_eq!(all(&store), [false, false, false]);
    }

    #[test]
    fn unknown_items_cannot_be_marked() {
        let (_d, store) = test_store();
        assert!(matches!(
            store.set_mark("u", "nope", Mark::Read),
            Err(Error::NotFound("item"))
        ));
        assert!(matches!(
            store.record_share("u", "nope", "linkedin"),
            Err(Error::NotFound("item"))
        ));
    }

    #[test]
    fn lists_belong_to_one_user() {
        let (_d, store) = test_store();
        let a = store
            .upsert_item(new_item("A", None, "2026-01-01T00:00:00Z"))
            .unwrap()
            .id;
        let b = store
            .upsert_item(new_item("B", None, "2026-01-02T00:00:00Z"))
            .unwrap()
            .id;
        store.set_mark("u1", &a, Mark::Favorite).unwrap();
        store.set_mark("u10", &b, Mark::Favorite).unwrap();
        let mine: Vec<_> = store
            .marked_items("u1", Mark::Favorite)
            .unwrap()
            .into_iter()
            .map(|i| i.id)
            .collect();
        assert_eq!(mine, vec![a.clone()]);
        store.record_share("u1", &a, "linkedin").unwrap();
        assert_eq!(store.shared_items("u1").unwrap().len(), 1);
        assert!(store.shared_items("u10").unwrap().is_empty());
        store.forget_marks("u1").unwrap();
        assert!(store.marked_items("u1", Mark::Favorite).unwrap().is_empty());
        assert_eq!(store.marked_items("u10", Mark::Favorite).unwrap().len(), 1);
    }
}

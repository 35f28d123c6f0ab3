//! What operators need beyond the readers' methods: idempotent imports that say what they
//! did, and listings for the admin commands. The listings that walk every user are for
//! operators only and never run inside a request handler.

use serde::{Deserialize, Serialize};

use crate::{NewItem, NewsItem, Result, Store, User, display, keys};

/// What importing one item did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportStatus {
    /// A new item.
    Added,
    /// An existing item (same id or URL) got new content.
    Updated,
    /// An existing item already held exactly this content; nothing was written.
    Unchanged,
}

/// The result of [`Store::import_item`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportOutcome {
    /// The item's id.
    pub id: String,
    /// What happened.
    pub status: ImportStatus,
}

/// True when storing `new` over `old` would change nothing a reader sees.
fn same_content(old: &NewsItem, new: &NewItem) -> bool {
    old.title == new.title
        && old.summary == new.summary
        && old.short == new.short
        && old.content == new.content
        && old.url == new.url
        && old.published_date == new.published_date
        && old.source == display::source_name(new.url.as_deref())
}

/// Items an import writes before it syncs and commits the search index: a search index
/// commit writes a segment and syncs its files, which costs about as much as indexing a
/// thousand small items, so it is paid once per this many. About 30 MB of news-sized
/// items are held at once.
pub const IMPORT_BATCH: usize = 16 * 1024;

impl Store {
    /// Adds or updates an item like [`Store::upsert_item`], but leaves an identical item
    /// untouched and says which of the three happened. Durable on return.
    pub fn import_item(&self, new: NewItem) -> Result<ImportOutcome> {
        let new = new.validate()?;
        if let Some(old) = self.existing_item(&new)?
            && same_content(&old, &new)
        {
            return Ok(ImportOutcome {
                id: old.id,
                status: ImportStatus::Unchanged,
            });
        }
        let up = self.upsert_item(new)?;
        let status = if up.created {
            ImportStatus::Added
        } else {
            ImportStatus::Updated
        };
        Ok(ImportOutcome { id: up.id, status })
    }

    /// Imports many items like [`Store::import_item`], in batches of [`IMPORT_BATCH`]:
    /// each batch is written [`crate::items::ITEMS_PER_WRITE`] items at a time,
    /// then synced once and committed to the search index once, instead of once per
    /// item. Items are taken from `items` as they are needed, so a caller that parses
    /// them lazily holds one batch at a time. Each input's outcome is told to `outcome`
    /// with its position among the inputs (an invalid one with its reason), not always in
    /// input order; a storage failure stops the import and is the error. Two inputs for
    /// the same id or URL are applied in order, so an exact repeat counts as unchanged.
    pub fn import_items(
        &self,
        items: impl IntoIterator<Item = NewItem>,
        mut outcome: impl FnMut(usize, Result<ImportOutcome>),
    ) -> Result<()> {
        let mut pending: Vec<(usize, NewItem)> = Vec::new();
        let mut pending_keys = std::collections::HashSet::new();
        let commit = |pending: &mut Vec<(usize, NewItem)>,
                      outcome: &mut dyn FnMut(usize, Result<ImportOutcome>)|
         -> Result<()> {
            let (at, batch): (Vec<usize>, Vec<NewItem>) = pending.drain(..).unzip();
            for (i, up) in at
                .into_iter()
                .zip(self.upsert_checked(batch.into_iter().map(Ok))?)
            {
                let status = if up.created {
                    ImportStatus::Added
                } else {
                    ImportStatus::Updated
                };
                outcome(i, Ok(ImportOutcome { id: up.id, status }));
            }
            Ok(())
        };
        for (i, item) in items.into_iter().enumerate() {
            let item = match item.validate() {
                Ok(item) => item,
                Err(e) => {
                    outcome(i, Err(e));
                    continue;
                }
            };
            let key = item.id.clone().or_else(|| item.url.clone());
            if key.as_ref().is_some_and(|k| pending_keys.contains(k)) {
                commit(&mut pending, &mut outcome)?;
                pending_keys.clear();
            }
            if let Some(old) = self.existing_item(&item)?
                && same_content(&old, &item)
            {
                let status = ImportStatus::Unchanged;
                outcome(i, Ok(ImportOutcome { id: old.id, status }));
                continue;
            }
            pending_keys.extend(key);
            pending.push((i, item));
            if pending.len() >= IMPORT_BATCH {
                commit(&mut pending, &mut outcome)?;
                pending_keys.clear();
            }
        }
        commit(&mut pending, &mut outcome)
    }

    /// Whether the daemon's schedule already wrote (or tried to write) the summary of
    /// `week`, so a summary the operator removed is not written again behind their back.
    pub fn summary_scheduled(&self, week: &str) -> Result<bool> {
        Ok(self
            .t
            .meta
            .contains_key(format!("summary_scheduled:{week}"))?)
    }

    /// Records that the schedule handled the summary of `week`. Durable on return.
    pub fn record_summary_scheduled(&self, week: &str) -> Result<()> {
        self.writable()?;
        self.t
            .meta
            .insert(format!("summary_scheduled:{week}"), &[1])?;
        self.flush()
    }

    /// The newest `limit` items, newest first (for operators' listings).
    pub fn newest_items(&self, limit: usize) -> Result<Vec<NewsItem>> {
        let mut out = Vec::new();
        for key in self.t.published_itemid.iter().keys().rev() {
            if out.len() == limit {
                break;
            }
            let key = key?;
            if let Some(item) = keys::published_item_id(&key)
                .map(|id| self.item(id))
                .transpose()?
                .flatten()
            {
                out.push(item);
            }
        }
        Ok(out)
    }

    /// How many accounts there are (sled counts the tree; cheap but not constant time).
    pub fn user_count(&self) -> usize {
        self.t.users.len()
    }

    /// Every account in e-mail order, calling `progress` after each one. Walks all users:
    /// for operators only, never inside a request handler.
    pub fn all_users(&self, mut progress: impl FnMut()) -> Result<Vec<User>> {
        let mut out = Vec::new();
        for entry in self.t.email_userid.iter() {
            let (_, id) = entry?;
            if let Some(user) = self.user(&String::from_utf8_lossy(&id))? {
                out.push(user);
            }
            progress();
        }
        Ok(out)
    }

    /// Deletes an account and every record of it anywhere in the store: API key, quota
    /// counters, waitlist entry, profile, one-time links, checkouts, kept e-mails, then
    /// (through [`Store::delete_user`]) sessions, marks, shares and the account itself.
    /// The account goes last, so a purge cut short can simply be run again.
    pub fn purge_user(&self, id: &str) -> Result<User> {
        self.writable()?;
        let user = self.user(id)?.ok_or(crate::Error::NotFound("user"))?;
        let t = &self.t;
        self.remove_api_key(id)?;
        if self.waitlist_entry(id)?.is_some() {
            self.remove_from_waitlist(id)?;
        }
        t.userid_profile.remove(id)?;
        self.forget_quotas(id)?;
        for entry in t.userid_onetime.scan_prefix(keys::prefix(id)) {
            let (key, secret) = entry?;
            t.onetime_tokens.remove(secret)?;
            t.userid_onetime.remove(key)?;
        }
        for entry in t.checkouts.iter() {
            let (key, value) = entry?;
            let owner = serde_json::from_slice::<serde_json::Value>(&value)
                .ok()
                .and_then(|v| v["user_id"].as_str().map(str::to_string));
            if owner.as_deref() == Some(id) {
                t.checkouts.remove(key)?;
            }
        }
        for mail in self.outbox_list()? {
            if mail.to.eq_ignore_ascii_case(&user.email) {
                t.mails.remove(mail.id.as_bytes())?;
                t.sent_mailid
                    .remove(keys::published(mail.created_at, &mail.id))?;
            }
        }
        self.delete_user(id)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Imports `items` and answers each one's outcome, in input order; fails the test if
    /// any input has none or two.
    pub(crate) fn import_all(store: &Store, items: Vec<NewItem>) -> Vec<Result<ImportOutcome>> {
        let mut out: Vec<Option<Result<ImportOutcome>>> =
            std::iter::repeat_with(|| None).take(items.len()).collect();
        store
            .import_items(items, |i, o| assert!(out[i].replace(o).is_none()))
            .unwrap();
        out.into_iter().map(|o| o.expect("an outcome")).collect()
    }
    use crate::items::tests::new_item;
    use crate::test_store;

    #[test]
    fn import_says_added_updated_or_unchanged() {
        let (_d, store) = test_store();
        let item = new_item("A", Some("https://a.example/1"), "2026-01-01T00:00:00Z");
        let a = store.import_item(item.clone()).unwrap();
        assert_eq!(a.status, ImportStatus::Added);
        assert_eq!(
            store.import_item(item.clone()).unwrap(),
            ImportOutcome {
                id: a.id.clone(),
                status: ImportStatus::Unchanged
            }
        );
        let edited = NewItem {
            summary: "New summary".into(),
            ..item
        };
        assert_eq!(
            store.import_item(edited).unwrap().status,
            ImportStatus::Updated
        );
        assert_eq!(store.item_count().unwrap(), 1);
    }

    #[test]
    fn batch_import_applies_repeats_in_order() {
        let (_d, store) = test_store();
        let a = new_item("A", Some("https://a.example/1"), "2026-01-01T00:00:00Z");
        let a2 = NewItem {
            summary: "changed".into(),
            ..a.clone()
        };
        let bad = new_item("", None, "2026-01-01T00:00:00Z");
        let out = import_all(
            &store,
            vec![
                a.clone(),
                a.clone(),
                bad,
                a2,
                new_item("B", None, "2026-01-02T00:00:00Z"),
            ],
        );
        let status: Vec<_> = out
            .iter()
            .map(|o| o.as_ref().map(|o| o.status).map_err(|e| e.to_string()))
            .collect();
        assert_eq!(status[0], Ok(ImportStatus::Added));
        assert_eq!(status[1], Ok(ImportStatus::Unchanged));
        assert!(status[2].as_ref().unwrap_err().contains("title"));
        assert_eq!(status[3], Ok(ImportStatus::Updated));
        assert_eq!(status[4], Ok(ImportStatus::Added));
        assert_eq!(store.item_count().unwrap(), 2);
    }

    #[test]
    fn newest_items_and_users_are_listed_in_order() {
        let (_d, store) = test_store();
        store
            .upsert_item(new_item("Old", None, "2026-01-01T00:00:00Z"))
            .unwrap();
        store
            .upsert_item(new_item("New", None, "2026-02-01T00:00:00Z"))
            .unwrap();
        let titles: Vec<_> = store
            .newest_items(10)
            .unwrap()
            .into_iter()
            .map(|i| i.title)
            .collect();
        assert_eq!(titles, ["New", "Old"]);
        assert_eq!(store.newest_items(1).unwrap().len(), 1);
        store
            .create_user("b@example.com", "h".into(), Default::default(), true)
            .unwrap();
        store
            .create_user("a@example.com", "h".into(), Default::default(), true)
            .unwrap();
        let mut seen = 0;
        let emails: Vec<_> = store
            .all_users(|| seen += 1)
            .unwrap()
            .into_iter()
            .map(|u| u.email)
            .collect();
        assert_eq!(
            (emails, seen),
            (
                vec!["a@example.com".to_string(), "b@example.com".to_string()],
                2
            )
        );
    }

    #[test]
    fn purge_leaves_nothing_of_the_user() {
        let (_d, store) = test_store();
        let u = store
            .create_user("gone@example.com", "h".into(), Default::default(), true)
            .unwrap();
        let keep = store
            .create_user("keep@example.com", "h".into(), Default::default(), true)
            .unwrap();
        store.api_key(&u.id).unwrap();
        store.join_waitlist(&u).unwrap();
        store.set_resume(&u.id, "resume").unwrap();
        store
            .outbox_add("gone@example.com", "Reset", "link", "recovery")
            .unwrap();
        store
            .outbox_add("keep@example.com", "Reset", "link", "recovery")
            .unwrap();
        store.purge_user(&u.id).unwrap();
        assert!(store.user(&u.id).unwrap().is_none());
        assert!(store.t.userid_apikey.get(&u.id).unwrap().is_none());
        assert!(store.t.userid_profile.get(&u.id).unwrap().is_none());
        assert!(store.waitlist_entry(&u.id).unwrap().is_none());
        let left: Vec<_> = store
            .outbox_list()
            .unwrap()
            .into_iter()
            .map(|m| m.to)
            .collect();
        assert_eq!(left, ["keep@example.com"]);
        assert!(store.user(&keep.id).unwrap().is_some());
        assert!(matches!(
            store.purge_user(&u.id),
            Err(crate::Error::NotFound("user"))
        ));
    }
}

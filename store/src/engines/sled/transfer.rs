//! What sled answers for moving an install (see [`crate::backend::transfer`]): the
//! records the backend interface never lists, read straight from their trees.

use chrono::{DateTime, Utc};

use super::{SledBackend, from_json, keys};
use crate::backend::transfer::Transfer;
use crate::secrets::SecretRecord;
use crate::sessions::RefreshRecord;
use crate::{CheckoutSession, Mark, Result};

/// The flags of work done once that a move carries, by name or prefix: `meta` also
/// holds the engine's own counters and markers, which stay with the engine.
const FLAGS: &[&str] = &["demo_loaded", "summary_scheduled:"];

/// The keys of a tree after `after` (exclusive) that start with `prefix`.
fn after_in_prefix<'a>(
    tree: &'a sled::Tree,
    prefix: &'a [u8],
    after: Option<&[u8]>,
) -> impl Iterator<Item = sled::Result<(sled::IVec, sled::IVec)>> + 'a {
    let start = match after {
        Some(a) => std::ops::Bound::Excluded(a.to_vec()),
        None => std::ops::Bound::Included(prefix.to_vec()),
    };
    tree.range((start, std::ops::Bound::Unbounded))
        .take_while(move |e| e.as_ref().map_or(true, |(k, _)| k.starts_with(prefix)))
}

#[async_trait::async_trait]
impl Transfer for SledBackend {
    async fn session_tokens(&self, session_id: &str) -> Result<Vec<([u8; 32], RefreshRecord)>> {
        let mut out = Vec::new();
        for key in self
            .t
            .sessionid_refresh
            .scan_prefix(keys::prefix(session_id))
            .keys()
        {
            let key = key?;
            let Ok(hash) = <[u8; 32]>::try_from(&key[key.len().saturating_sub(32)..]) else {
                continue;
            };
            if let Some(raw) = self.t.refresh_tokens.get(hash)? {
                out.push((hash, from_json(&raw)?));
            }
        }
        Ok(out)
    }

    async fn owned_secrets(&self, owner: &str) -> Result<Vec<SecretRecord>> {
        SledBackend::owned_secrets(self, owner)
    }

    async fn reader_marks(
        &self,
        reader: &str,
    ) -> Result<Vec<(String, Vec<(Mark, DateTime<Utc>)>)>> {
        let mut by_item = std::collections::BTreeMap::<String, Vec<(Mark, DateTime<Utc>)>>::new();
        for mark in Mark::ALL {
            for entry in self.t.mark_tree(mark).scan_prefix(keys::prefix(reader)) {
                let (key, at) = entry?;
                let (Some(item), Some(at)) = (keys::last_part(&key), keys::time_from(&at)) else {
                    continue;
                };
                by_item
                    .entry(item.to_string())
                    .or_default()
                    .push((mark, at));
            }
        }
        Ok(by_item.into_iter().collect())
    }

    async fn checkouts_after(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<CheckoutSession>> {
        after_in_prefix(&self.t.checkouts, b"", after.map(str::as_bytes))
            .take(limit)
            .map(|e| from_json(&e?.1))
            .collect()
    }

    async fn feed_entries(
        &self,
        feed_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String)>> {
        let prefix = keys::prefix(feed_id);
        let after = after.map(|guid| keys::join(feed_id.as_bytes(), guid.as_bytes()));
        let mut out = Vec::new();
        for entry in after_in_prefix(&self.t.feedguid_itemid, &prefix, after.as_deref()).take(limit)
        {
            let (key, item) = entry?;
            let guid = String::from_utf8_lossy(&key[prefix.len()..]).into_owned();
            out.push((guid, String::from_utf8_lossy(&item).into_owned()));
        }
        Ok(out)
    }

    async fn flags_set(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for key in self.t.meta.iter().keys() {
            let key = key?;
            let Ok(name) = std::str::from_utf8(&key) else {
                continue;
            };
            if FLAGS
                .iter()
                .any(|f| name == *f || (f.ends_with(':') && name.starts_with(f)))
            {
                out.push(name.to_string());
            }
        }
        Ok(out)
    }

    async fn stored_secret(&self, name: &str) -> Result<Option<Vec<u8>>> {
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Ok(None);
        }
        match std::fs::read(self.dir.join(name)) {
            Ok(secret) => Ok(Some(secret.trim_ascii().to_vec())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(crate::Error::Io(e)),
        }
    }
}

//! Weekly summaries, the outbox and profiles in memory.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::MemoryBackend;
use crate::backend::{Doc, DocStore, OutboxStore, ProfileStore, SummaryStore};
use crate::{Mail, Profile, Result, WeeklySummary};

/// Summaries, mails and profiles, each by id.
#[derive(Default)]
pub(super) struct Records {
    summaries: HashMap<String, WeeklySummary>,
    mails: HashMap<String, Mail>,
    profiles: HashMap<String, Profile>,
    /// Documents by kind, then key.
    docs: std::collections::BTreeMap<(String, String), Doc>,
    /// Each kind's version (see [`DocStore::docs_version`]).
    doc_versions: HashMap<String, u64>,
}

impl Records {
    /// Forgets a user's profile (a deleted account; their mails go by address, see
    /// [`OutboxStore::remove_mails_to`]).
    pub(super) fn forget_user(&mut self, user_id: &str) {
        self.profiles.remove(user_id);
    }
}

#[async_trait::async_trait]
impl SummaryStore for MemoryBackend {
    async fn put_summary(&self, summary: &WeeklySummary) -> Result<()> {
        let mut state = self.lock();
        state
            .records
            .summaries
            .insert(summary.id.clone(), summary.clone());
        Ok(())
    }

    async fn put_summary_once(&self, summary: &WeeklySummary) -> Result<bool> {
        let mut state = self.lock();
        let summaries = &mut state.records.summaries;
        if summaries
            .values()
            .any(|s| s.start_date == summary.start_date)
        {
            return Ok(false);
        }
        summaries.insert(summary.id.clone(), summary.clone());
        Ok(true)
    }

    async fn summary(&self, id: &str) -> Result<Option<WeeklySummary>> {
        Ok(self.lock().records.summaries.get(id).cloned())
    }

    /// Of several summaries of one week (only [`SummaryStore::put_summary`] makes them),
    /// the one with the greatest id, as the newest-first listing has it first.
    async fn summary_of_week(&self, start: DateTime<Utc>) -> Result<Option<WeeklySummary>> {
        let state = self.lock();
        Ok(state
            .records
            .summaries
            .values()
            .filter(|s| s.start_date == start)
            .max_by(|a, b| a.id.cmp(&b.id))
            .cloned())
    }

    async fn summaries(&self) -> Result<Vec<WeeklySummary>> {
        let state = self.lock();
        let mut all: Vec<WeeklySummary> = state.records.summaries.values().cloned().collect();
        all.sort_by(|a, b| (b.start_date, &b.id).cmp(&(a.start_date, &a.id)));
        Ok(all)
    }

    async fn remove_summary(&self, id: &str) -> Result<Option<WeeklySummary>> {
        Ok(self.lock().records.summaries.remove(id))
    }
}

#[async_trait::async_trait]
impl OutboxStore for MemoryBackend {
    async fn put_mail(&self, mail: &Mail) -> Result<()> {
        let mut state = self.lock();
        state.records.mails.insert(mail.id.clone(), mail.clone());
        Ok(())
    }

    async fn mail(&self, id: &str) -> Result<Option<Mail>> {
        Ok(self.lock().records.mails.get(id).cloned())
    }

    async fn mails(&self) -> Result<Vec<Mail>> {
        let state = self.lock();
        let mut all: Vec<Mail> = state.records.mails.values().cloned().collect();
        all.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(all)
    }

    async fn remove_mails_to(&self, address: &str) -> Result<usize> {
        let mut state = self.lock();
        let mails = &mut state.records.mails;
        let before = mails.len();
        let address = address.to_lowercase();
        mails.retain(|_, m| m.to.to_lowercase() != address);
        Ok(before - mails.len())
    }
}

#[async_trait::async_trait]
impl ProfileStore for MemoryBackend {
    async fn profile(&self, user_id: &str) -> Result<Option<Profile>> {
        Ok(self.lock().records.profiles.get(user_id).cloned())
    }

    async fn put_profile(&self, user_id: &str, profile: &Profile) -> Result<()> {
        let mut state = self.lock();
        state
            .records
            .profiles
            .insert(user_id.to_string(), profile.clone());
        Ok(())
    }
}

#[async_trait::async_trait]
impl DocStore for MemoryBackend {
    async fn doc(&self, kind: &str, key: &str) -> Result<Option<Doc>> {
        let state = self.lock();
        Ok(state
            .records
            .docs
            .get(&(kind.to_string(), key.to_string()))
            .cloned())
    }

    async fn put_doc(
        &self,
        kind: &str,
        key: &str,
        json: Option<&[u8]>,
        expected: u64,
    ) -> Result<bool> {
        let mut state = self.lock();
        let records = &mut state.records;
        let id = (kind.to_string(), key.to_string());
        let current = records.docs.get(&id).map_or(0, |d| d.version);
        if current != expected {
            return Ok(false);
        }
        if json.is_none() && current == 0 {
            return Ok(true);
        }
        match json {
            Some(json) => {
                records.docs.insert(
                    id,
                    Doc {
                        version: current + 1,
                        json: json.to_vec(),
                    },
                );
            }
            None => {
                records.docs.remove(&id);
            }
        }
        *records.doc_versions.entry(kind.to_string()).or_default() += 1;
        Ok(true)
    }

    async fn doc_keys(&self, kind: &str, after: Option<&str>, limit: usize) -> Result<Vec<String>> {
        let state = self.lock();
        Ok(state
            .records
            .docs
            .keys()
            .filter(|(k, key)| k == kind && after.is_none_or(|a| key.as_str() > a))
            .take(limit)
            .map(|(_, key)| key.clone())
            .collect())
    }

    async fn docs_version(&self, kind: &str) -> Result<u64> {
        Ok(self
            .lock()
            .records
            .doc_versions
            .get(kind)
            .copied()
            .unwrap_or(0))
    }
}

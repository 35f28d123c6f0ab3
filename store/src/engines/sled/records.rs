//! Weekly summaries (`summaries` by id, `start_summaryid` by week), the outbox (`mails`
//! by id, `sent_mailid` by time), profiles (`userid_profile`) and documents (`docs`,
//! with each kind's version in `doc_versions`) in sled.

use chrono::{DateTime, Utc};
use sled::Transactional;

use super::{SledBackend, from_json, keys, to_json};
use crate::backend::{Doc, DocStore, OutboxStore, ProfileStore, SummaryStore};
use crate::{Error, Mail, Profile, Result, WeeklySummary};

#[async_trait::async_trait]
impl SummaryStore for SledBackend {
    async fn put_summary(&self, summary: &WeeklySummary) -> Result<()> {
        self.writable()?;
        let t = &self.t;
        (&t.summaries, &t.start_summaryid).transaction(|(summaries, starts)| {
            if let Some(old) = summaries.insert(summary.id.as_bytes(), to_json(summary))? {
                let old: WeeklySummary = from_json(&old)?;
                starts.remove(keys::published(old.start_date, &old.id))?;
            }
            starts.insert(keys::published(summary.start_date, &summary.id), &[])?;
            Ok(())
        })?;
        self.sync()
    }

    async fn put_summary_once(&self, summary: &WeeklySummary) -> Result<bool> {
        self.writable()?;
        let t = &self.t;
        let week = keys::time(summary.start_date);
        let _one_at_a_time = self
            .mem
            .summary_week
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Summaries of the week, read before the transaction (sled cannot scan in one)
        // and checked again in it; `summary_week` keeps another check out meanwhile.
        let same_week: Vec<sled::IVec> = t
            .start_summaryid
            .scan_prefix(week)
            .keys()
            .collect::<std::result::Result<_, _>>()?;
        let added = (&t.summaries, &t.start_summaryid).transaction(|(summaries, starts)| {
            for k in &same_week {
                if starts.get(k)?.is_some() {
                    return Ok(false);
                }
            }
            if summaries.get(summary.id.as_bytes())?.is_some() {
                return Ok(false);
            }
            summaries.insert(summary.id.as_bytes(), to_json(summary))?;
            starts.insert(keys::published(summary.start_date, &summary.id), &[])?;
            Ok(true)
        })?;
        self.sync()?;
        Ok(added)
    }

    async fn summary(&self, id: &str) -> Result<Option<WeeklySummary>> {
        self.t.summaries.get(id)?.map(|v| from_json(&v)).transpose()
    }

    async fn summary_of_week(&self, start: DateTime<Utc>) -> Result<Option<WeeklySummary>> {
        match self
            .t
            .start_summaryid
            .scan_prefix(keys::time(start))
            .keys()
            .next()
        {
            Some(key) => match keys::published_item_id(&key?) {
                Some(id) => self.summary(id).await,
                None => Ok(None),
            },
            None => Ok(None),
        }
    }

    async fn summaries(&self) -> Result<Vec<WeeklySummary>> {
        let mut out = Vec::new();
        for key in self.t.start_summaryid.iter().keys().rev() {
            let key = key?;
            if let Some(s) = keys::published_item_id(&key)
                .map(|id| self.t.summaries.get(id))
                .transpose()?
                .flatten()
            {
                out.push(from_json(&s)?);
            }
        }
        Ok(out)
    }

    async fn remove_summary(&self, id: &str) -> Result<Option<WeeklySummary>> {
        self.writable()?;
        let t = &self.t;
        let old = (&t.summaries, &t.start_summaryid).transaction(|(summaries, starts)| {
            let Some(old) = summaries.remove(id.as_bytes())? else {
                return Ok(None);
            };
            let old: WeeklySummary = from_json(&old)?;
            starts.remove(keys::published(old.start_date, &old.id))?;
            Ok(Some(old))
        })?;
        self.sync()?;
        Ok(old)
    }
}

#[async_trait::async_trait]
impl OutboxStore for SledBackend {
    async fn put_mail(&self, mail: &Mail) -> Result<()> {
        self.writable()?;
        let order = keys::published(mail.created_at, &mail.id);
        (&self.t.mails, &self.t.sent_mailid).transaction(|(mails, sent)| {
            mails.insert(mail.id.as_bytes(), to_json(mail))?;
            sent.insert(order.as_slice(), &[])?;
            Ok::<_, sled::transaction::ConflictableTransactionError<Error>>(())
        })?;
        self.sync()
    }

    async fn mail(&self, id: &str) -> Result<Option<Mail>> {
        self.t.mails.get(id)?.map(|v| from_json(&v)).transpose()
    }

    async fn mails(&self) -> Result<Vec<Mail>> {
        let mut out = Vec::new();
        for key in self.t.sent_mailid.iter().keys().rev() {
            let key = key?;
            if let Some(mail) = keys::published_item_id(&key)
                .map(|id| self.t.mails.get(id))
                .transpose()?
                .flatten()
            {
                out.push(from_json(&mail)?);
            }
        }
        Ok(out)
    }

    async fn remove_mails_to(&self, address: &str) -> Result<usize> {
        self.writable()?;
        let mut removed = 0;
        for mail in self.mails().await? {
            if mail.to.eq_ignore_ascii_case(address) {
                self.t.mails.remove(mail.id.as_bytes())?;
                self.t
                    .sent_mailid
                    .remove(keys::published(mail.created_at, &mail.id))?;
                removed += 1;
            }
        }
        self.sync()?;
        Ok(removed)
    }
}

#[async_trait::async_trait]
impl ProfileStore for SledBackend {
    async fn profile(&self, user_id: &str) -> Result<Option<Profile>> {
        self.t
            .userid_profile
            .get(user_id)?
            .map(|v| from_json(&v))
            .transpose()
    }

    async fn put_profile(&self, user_id: &str, profile: &Profile) -> Result<()> {
        self.writable()?;
        self.t
            .userid_profile
            .insert(user_id.as_bytes(), to_json(profile))?;
        self.sync()
    }
}

/// A document's stored value: its version, then its JSON.
fn doc_value(version: u64, json: &[u8]) -> Vec<u8> {
    let mut v = keys::u64_value(version).to_vec();
    v.extend_from_slice(json);
    v
}

#[async_trait::async_trait]
impl DocStore for SledBackend {
    async fn doc(&self, kind: &str, key: &str) -> Result<Option<Doc>> {
        Ok(self
            .t
            .docs
            .get(keys::join(kind.as_bytes(), key.as_bytes()))?
            .map(|v| Doc {
                version: keys::u64_from(Some(&v)),
                json: v.get(8..).unwrap_or_default().to_vec(),
            }))
    }

    async fn put_doc(
        &self,
        kind: &str,
        key: &str,
        json: Option<&[u8]>,
        expected: u64,
    ) -> Result<bool> {
        self.writable()?;
        let t = &self.t;
        let id = keys::join(kind.as_bytes(), key.as_bytes());
        let done = (&t.docs, &t.doc_versions).transaction(|(docs, versions)| {
            let current = keys::u64_from(docs.get(&id)?.as_deref());
            if current != expected {
                return Ok(false);
            }
            if json.is_none() && current == 0 {
                return Ok(true);
            }
            match json {
                Some(json) => docs.insert(id.as_slice(), doc_value(current + 1, json))?,
                None => docs.remove(id.as_slice())?,
            };
            let version = keys::u64_from(versions.get(kind)?.as_deref());
            versions.insert(kind, &keys::u64_value(version + 1))?;
            Ok(true)
        })?;
        if done {
            self.sync()?;
        }
        Ok(done)
    }

    async fn doc_keys(&self, kind: &str, after: Option<&str>, limit: usize) -> Result<Vec<String>> {
        let prefix = keys::prefix(kind);
        let start = match after {
            Some(after) => {
                let mut k = keys::join(kind.as_bytes(), after.as_bytes());
                k.push(0);
                k
            }
            None => prefix.clone(),
        };
        let mut out = Vec::new();
        for entry in self.t.docs.range(start..) {
            let (k, _) = entry?;
            let Some(rest) = k.strip_prefix(prefix.as_slice()) else {
                break;
            };
            out.push(String::from_utf8_lossy(rest).into_owned());
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }

    async fn docs_version(&self, kind: &str) -> Result<u64> {
        Ok(keys::u64_from(self.t.doc_versions.get(kind)?.as_deref()))
    }
}

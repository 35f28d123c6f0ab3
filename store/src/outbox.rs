//! The outbox: every e-mail the daemon sent or would have sent (sign-up confirmations,
//! password resets), kept so that an install without SMTP can still complete a password
//! reset (`radar outbox list | show ID`).
//!
//! The messages hold live one-time links until those are used or expire; the data
//! directory is private to the operator, as the JWT secret in it is.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use crate::{Result, Store, from_json, keys, to_json};

/// One kept e-mail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mail {
    /// UUID.
    pub id: String,
    /// Recipient address.
    pub to: String,
    /// Subject line.
    pub subject: String,
    /// Plain-text body.
    pub text: String,
    /// What it is: `recovery` or `confirmation`.
    pub kind: String,
    /// When it was kept.
    pub created_at: DateTime<Utc>,
}

impl Store {
    /// Keeps an e-mail in the outbox.
    pub fn outbox_add(&self, to: &str, subject: &str, text: &str, kind: &str) -> Result<Mail> {
        self.writable()?;
        let mail = Mail {
            id: uuid::Uuid::new_v4().to_string(),
            to: to.to_string(),
            subject: subject.to_string(),
            text: text.to_string(),
            kind: kind.to_string(),
            created_at: Utc::now(),
        };
        let order = keys::published(mail.created_at, &mail.id);
        (&self.t.mails, &self.t.sent_mailid).transaction(|(mails, sent)| {
            mails.insert(mail.id.as_bytes(), to_json(&mail))?;
            sent.insert(order.as_slice(), &[])?;
            Ok(())
        })?;
        self.flush()?;
        Ok(mail)
    }

    /// Every kept e-mail, newest first.
    pub fn outbox_list(&self) -> Result<Vec<Mail>> {
        let mut out = Vec::new();
        for entry in self.t.sent_mailid.iter().rev() {
            let (key, _) = entry?;
            if let Some(mail) = keys::published_item_id(&key)
                .map(|id| self.outbox_get(id))
                .transpose()?
                .flatten()
            {
                out.push(mail);
            }
        }
        Ok(out)
    }

    /// One kept e-mail by id.
    pub fn outbox_get(&self, id: &str) -> Result<Option<Mail>> {
        self.t.mails.get(id)?.map(|v| from_json(&v)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use crate::test_store;

    #[test]
    fn outbox_lists_newest_first_and_finds_by_id() {
        let (_d, store) = test_store();
        let a = store
            .outbox_add("a@example.com", "First", "one", "recovery")
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = store
            .outbox_add("b@example.com", "Second", "two", "confirmation")
            .unwrap();
        let list = store.outbox_list().unwrap();
        assert_eq!(
            list.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
            vec![b.id.as_str(), a.id.as_str()]
        );
        assert_eq!(store.outbox_get(&a.id).unwrap().unwrap().text, "one");
        assert!(store.outbox_get("nope").unwrap().is_none());
    }
}

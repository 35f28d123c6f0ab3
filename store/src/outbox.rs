//! The outbox: every e-mail the daemon sent or would have sent (sign-up confirmations,
//! password resets), kept so that an install without SMTP can still complete a password
//! reset (`radar outbox list | show ID`).
//!
//! The messages hold live one-time links until those are used or expire; the data
//! directory is private to the operator, as the JWT secret in it is.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{Result, Store};

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
    /// Keeps a mail in the outbox. Durable on return.
    pub async fn outbox_add(
        &self,
        to: &str,
        subject: &str,
        text: &str,
        kind: &str,
    ) -> Result<Mail> {
        let mail = Mail {
            id: uuid::Uuid::new_v4().to_string(),
            to: to.to_string(),
            subject: subject.to_string(),
            text: text.to_string(),
            kind: kind.to_string(),
            created_at: Utc::now(),
        };
        self.backend().put_mail(&mail).await?;
        Ok(mail)
    }

    /// Every mail, newest first.
    pub async fn outbox_list(&self) -> Result<Vec<Mail>> {
        self.backend().mails().await
    }

    /// One mail.
    pub async fn outbox_get(&self, id: &str) -> Result<Option<Mail>> {
        self.backend().mail(id).await
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::store_tests;

    store_tests! {
        async fn outbox_lists_newest_first_and_finds_by_id(store) {
            let a = store
                .outbox_add("a@example.com", "First", "one", "recovery")
                .await
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
            let b = store
                .outbox_add("b@example.com", "Second", "two", "confirmation")
                .await
                .unwrap();
            let list = store.outbox_list().await.unwrap();
            assert_eq!(
                list.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
                vec![b.id.as_str(), a.id.as_str()]
            );
            assert_eq!(store.outbox_get(&a.id).await.unwrap().unwrap().text, "one");
            assert!(store.outbox_get("nope").await.unwrap().is_none());
        }
    }
}

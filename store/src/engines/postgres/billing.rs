//! Checkout sessions and the premium waitlist in PostgreSQL.

use chrono::{DateTime, Utc};

use super::{
    JsonText, PostgresBackend, db_error, exec, exec_or, get_unsigned, opt, record, to_record,
    unique_violation,
};
use crate::backend::BillingStore;
use crate::{CheckoutSession, Error, Result, WaitlistEntry};

/// The trait's rule that changes a checkout session (spelled as the trait spells it).
type CheckoutChange<'a> = dyn FnMut(&mut CheckoutSession) -> Result<()> + Send + 'a;

#[async_trait::async_trait]
impl BillingStore for PostgresBackend {
    async fn insert_checkout(&self, checkout: &CheckoutSession) -> Result<()> {
        let body = to_record(checkout)?;
        exec_or(
            &self.client().await?,
            "INSERT INTO checkouts (id, user_id, created_at, record) VALUES ($1, $2, $3, $4)",
            &[
                &checkout.id,
                &checkout.user_id,
                &checkout.created_at,
                &JsonText(&body),
            ],
            |e| {
                unique_violation(e).map(|_| {
                    Error::Conflict(format!("checkout session {} already exists", checkout.id))
                })
            },
        )
        .await?;
        Ok(())
    }

    async fn checkout(&self, id: &str) -> Result<Option<CheckoutSession>> {
        match self
            .opt("SELECT record FROM checkouts WHERE id = $1", &[&id])
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn update_checkout(
        &self,
        id: &str,
        change: &mut CheckoutChange<'_>,
    ) -> Result<CheckoutSession> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let Some(row) = opt(
            &tx,
            "SELECT record FROM checkouts WHERE id = $1 FOR UPDATE",
            &[&id],
        )
        .await?
        else {
            return Err(Error::NotFound("checkout session"));
        };
        let mut checkout: CheckoutSession = record(&row, 0)?;
        change(&mut checkout)?;
        if checkout.id != id {
            return Err(Error::Invalid(
                "a checkout session's id does not change".into(),
            ));
        }
        let body = to_record(&checkout)?;
        exec(
            &tx,
            "UPDATE checkouts SET user_id = $2, created_at = $3, record = $4 WHERE id = $1",
            &[
                &id,
                &checkout.user_id,
                &checkout.created_at,
                &JsonText(&body),
            ],
        )
        .await?;
        tx.commit().await.map_err(db_error)?;
        Ok(checkout)
    }

    async fn count_checkouts_since(&self, user_id: &str, since: DateTime<Utc>) -> Result<usize> {
        let row = self
            .one(
                "SELECT count(*) FROM checkouts WHERE user_id = $1 AND created_at >= $2",
                &[&user_id, &since],
            )
            .await?;
        get_unsigned(&row, 0)
    }

    async fn join_waitlist(&self, entry: &WaitlistEntry) -> Result<WaitlistEntry> {
        let body = to_record(entry)?;
        let client = self.client().await?;
        let added = super::rows(
            &client,
            "INSERT INTO waitlist (user_id, joined_at, record) VALUES ($1, $2, $3) \
             ON CONFLICT (user_id) DO NOTHING RETURNING record",
            &[&entry.user_id, &entry.joined_at, &JsonText(&body)],
        )
        .await?;
        if let Some(row) = added.first() {
            return record(row, 0);
        }
        // The first join stays, with its date.
        let row = opt(
            &client,
            "SELECT record FROM waitlist WHERE user_id = $1",
            &[&entry.user_id],
        )
        .await?
        .ok_or(Error::NotFound("waitlist entry"))?;
        record(&row, 0)
    }

    async fn waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        match self
            .opt(
                "SELECT record FROM waitlist WHERE user_id = $1",
                &[&user_id],
            )
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn waitlist(&self) -> Result<Vec<WaitlistEntry>> {
        let found = self
            .rows(
                "SELECT record FROM waitlist ORDER BY joined_at, user_id",
                &[],
            )
            .await?;
        found.iter().map(|row| record(row, 0)).collect()
    }

    async fn approve_waitlist_entry(
        &self,
        user_id: &str,
        at: DateTime<Utc>,
    ) -> Result<WaitlistEntry> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let Some(row) = opt(
            &tx,
            "SELECT record FROM waitlist WHERE user_id = $1 FOR UPDATE",
            &[&user_id],
        )
        .await?
        else {
            return Err(Error::NotFound("waitlist entry"));
        };
        let mut entry: WaitlistEntry = record(&row, 0)?;
        if entry.approved_at.is_none() {
            entry.approved_at = Some(at);
            let body = to_record(&entry)?;
            exec(
                &tx,
                "UPDATE waitlist SET record = $2 WHERE user_id = $1",
                &[&user_id, &JsonText(&body)],
            )
            .await?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(entry)
    }

    async fn remove_waitlist_entry(&self, user_id: &str) -> Result<Option<WaitlistEntry>> {
        match self
            .opt(
                "DELETE FROM waitlist WHERE user_id = $1 RETURNING record",
                &[&user_id],
            )
            .await?
        {
            Some(row) => Ok(Some(record(&row, 0)?)),
            None => Ok(None),
        }
    }
}

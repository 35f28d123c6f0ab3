//! Accounts, sessions with their refresh tokens, and one-time secrets in PostgreSQL.
//!
//! Locks: a change of an account locks its row `FOR NO KEY UPDATE` (which leaves the
//! foreign keys that point at it free, so the account's marks go on meanwhile); a
//! session's tokens are changed under the session's row lock, taken before any token;
//! a secret is used under its owner's account lock.

use std::sync::Arc;

use deadpool_postgres::{GenericClient, Transaction};

use super::{
    JsonText, PostgresBackend, bigint, changed, db_error, exec, exec_or, get, get_unsigned, opt,
    prepare_all, record, rows, to_record, unique_violation,
};
use crate::backend::{
    AccountStore, SecretLookup, SecretRule, SecretStore, SessionStore, UserChange,
};
use crate::secrets::{SecretRecord, SecretUse};
use crate::sessions::{RefreshPlan, RefreshRecord, RefreshView, Session};
use crate::{Error, Result, User};

/// The store's answer to a unique constraint of `users` broken by a write.
fn user_conflict(e: &tokio_postgres::Error, inserting: bool) -> Option<Error> {
    match unique_violation(e)? {
        "users_email_key" if inserting => Some(Error::Conflict("User already registered".into())),
        "users_email_key" => Some(Error::Conflict(
            "A user with this email address has already been registered".into(),
        )),
        "users_pkey" => Some(Error::Conflict("User already registered".into())),
        "users_customer_id_key" => Some(Error::Conflict(
            "that payment customer belongs to another account".into(),
        )),
        _ => None,
    }
}

/// Reads an account locked for a change, or `NotFound("user")`.
async fn lock_user(tx: &Transaction<'_>, id: &str) -> Result<User> {
    match opt(
        tx,
        "SELECT record FROM users WHERE id = $1 FOR NO KEY UPDATE",
        &[&id],
    )
    .await?
    {
        Some(row) => record(&row, 0),
        None => Err(Error::NotFound("user")),
    }
}

/// Writes an account back, its e-mail and customer lookups with it.
async fn write_user<C: GenericClient>(c: &C, user: &User) -> Result<()> {
    let body = to_record(user)?;
    exec_or(
        c,
        "UPDATE users SET email = $2, customer_id = $3, record = $4 WHERE id = $1",
        &[
            &user.id,
            &user.email,
            &user.subscription.customer_id,
            &JsonText(&body),
        ],
        |e| user_conflict(e, false),
    )
    .await?;
    Ok(())
}

/// Locks an account, applies `change` to it and writes it back.
async fn change_user(tx: &Transaction<'_>, id: &str, change: &mut UserChange<'_>) -> Result<User> {
    let mut user = lock_user(tx, id).await?;
    change(&mut user)?;
    if user.id != id {
        return Err(Error::Invalid("an account's id does not change".into()));
    }
    write_user(tx, &user).await?;
    Ok(user)
}

async fn user_where(backend: &PostgresBackend, sql: &str, key: &str) -> Result<Option<Arc<User>>> {
    match backend.opt(sql, &[&key]).await? {
        Some(row) => Ok(Some(Arc::new(record(&row, 0)?))),
        None => Ok(None),
    }
}

#[async_trait::async_trait]
impl AccountStore for PostgresBackend {
    async fn insert_user(&self, user: &User) -> Result<()> {
        let body = to_record(user)?;
        exec_or(
            &self.client().await?,
            "WITH added AS (INSERT INTO users (id, email, customer_id, record) \
                            VALUES ($1, $2, $3, $4) RETURNING 1) \
             UPDATE counters SET value = value + (SELECT count(*) FROM added) \
             WHERE name = 'users'",
            &[
                &user.id,
                &user.email,
                &user.subscription.customer_id,
                &JsonText(&body),
            ],
            |e| user_conflict(e, true),
        )
        .await?;
        Ok(())
    }

    async fn user(&self, id: &str) -> Result<Option<Arc<User>>> {
        user_where(self, "SELECT record FROM users WHERE id = $1", id).await
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<Arc<User>>> {
        user_where(self, "SELECT record FROM users WHERE email = $1", email).await
    }

    async fn user_by_customer(&self, customer_id: &str) -> Result<Option<Arc<User>>> {
        user_where(
            self,
            "SELECT record FROM users WHERE customer_id = $1",
            customer_id,
        )
        .await
    }

    async fn update_user(&self, id: &str, change: &mut UserChange<'_>) -> Result<User> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let user = change_user(&tx, id, change).await?;
        tx.commit().await.map_err(db_error)?;
        Ok(user)
    }

    async fn delete_user(&self, id: &str) -> Result<Option<User>> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let Some(row) = opt(
            &tx,
            "SELECT record FROM users WHERE id = $1 FOR UPDATE",
            &[&id],
        )
        .await?
        else {
            return Ok(None);
        };
        let user: User = record(&row, 0)?;
        // What the account owns without a foreign key, the reader's state before its
        // marks (the order a change of marks takes them in); then the account, whose
        // sessions with their tokens and secrets go with it (ON DELETE CASCADE).
        let owned = prepare_all(
            &tx,
            [
                "DELETE FROM reader_state WHERE reader = $1",
                "DELETE FROM marks WHERE reader = $1",
                "DELETE FROM shares WHERE reader = $1",
                "DELETE FROM reads WHERE reader = $1",
                "DELETE FROM api_keys WHERE user_id = $1",
                "DELETE FROM quotas WHERE owner = $1",
                "DELETE FROM waitlist WHERE user_id = $1",
                "DELETE FROM checkouts WHERE user_id = $1",
                "DELETE FROM profiles WHERE user_id = $1",
                "DELETE FROM users WHERE id = $1",
            ],
        )
        .await?;
        for st in &owned {
            tx.execute(st, &[&id]).await.map_err(db_error)?;
        }
        exec(
            &tx,
            "UPDATE counters SET value = value - 1 WHERE name = 'users'",
            &[],
        )
        .await?;
        tx.commit().await.map_err(db_error)?;
        Ok(Some(user))
    }

    async fn users_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<User>> {
        let limit = bigint(limit);
        let found = match after {
            Some(after) => {
                self.rows(
                    "SELECT record FROM users WHERE email > $1 ORDER BY email LIMIT $2",
                    &[&after, &limit],
                )
                .await?
            }
            None => {
                self.rows(
                    "SELECT record FROM users ORDER BY email LIMIT $1",
                    &[&limit],
                )
                .await?
            }
        };
        found.iter().map(|row| record(row, 0)).collect()
    }

    async fn user_count(&self) -> Result<u64> {
        let row = self
            .one("SELECT value FROM counters WHERE name = 'users'", &[])
            .await?;
        get_unsigned(&row, 0)
    }
}

/// Writes the token records a refresh plan puts (new or changed).
async fn put_tokens(tx: &Transaction<'_>, put: &[([u8; 32], RefreshRecord)]) -> Result<()> {
    if put.is_empty() {
        return Ok(());
    }
    let mut hashes = Vec::with_capacity(put.len());
    let mut sessions = Vec::with_capacity(put.len());
    let mut bodies = Vec::with_capacity(put.len());
    for (hash, r) in put {
        hashes.push(&hash[..]);
        sessions.push(r.session_id.as_str());
        bodies.push(to_record(r)?);
    }
    let bodies: Vec<JsonText<'_>> = bodies.iter().map(|b| JsonText(b)).collect();
    exec(
        tx,
        "INSERT INTO refresh_tokens (hash, session_id, record) \
         SELECT * FROM unnest($1::bytea[], $2::text[], $3::json[]) \
         ON CONFLICT (hash) DO UPDATE SET session_id = excluded.session_id, \
             record = excluded.record",
        &[&hashes, &sessions, &bodies],
    )
    .await?;
    Ok(())
}

/// Reads what the refresh rule decides from, with the session locked; none when the
/// token is unknown or its session ended.
async fn refresh_view(tx: &Transaction<'_>, token: &[u8; 32]) -> Result<Option<RefreshView>> {
    let hash = &token[..];
    // The session first (unlocked, to learn which), then its lock, then its tokens:
    // the order in which every other writer of tokens takes them.
    let Some(row) = opt(
        tx,
        "SELECT session_id FROM refresh_tokens WHERE hash = $1",
        &[&hash],
    )
    .await?
    else {
        return Ok(None);
    };
    let session_id: String = get(&row, 0)?;
    let Some(row) = opt(
        tx,
        "SELECT s.record, u.record FROM sessions AS s JOIN users AS u ON u.id = s.user_id \
         WHERE s.id = $1 FOR NO KEY UPDATE OF s",
        &[&session_id],
    )
    .await?
    else {
        return Ok(None);
    };
    let session: Session = record(&row, 0)?;
    let user: User = record(&row, 1)?;
    let mut presented = None;
    let mut tokens = Vec::new();
    for row in rows(
        tx,
        "SELECT hash, record FROM refresh_tokens WHERE session_id = $1 ORDER BY hash",
        &[&session_id],
    )
    .await?
    {
        let raw: &[u8] = get(&row, 0)?;
        let Ok(h) = <[u8; 32]>::try_from(raw) else {
            continue;
        };
        let r: RefreshRecord = record(&row, 1)?;
        if h == *token {
            presented = Some(r.clone());
        }
        tokens.push((h, r));
    }
    Ok(presented.map(|presented| RefreshView {
        presented,
        session,
        user,
        tokens,
    }))
}

#[async_trait::async_trait]
impl SessionStore for PostgresBackend {
    async fn start_session(
        &self,
        session: &Session,
        token: &[u8; 32],
        record: &RefreshRecord,
        stamp: &mut UserChange<'_>,
    ) -> Result<User> {
        let session_body = to_record(session)?;
        let token_body = to_record(record)?;
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let user = change_user(&tx, &session.user_id, stamp).await?;
        let [s, t] = prepare_all(
            &tx,
            [
                "INSERT INTO sessions (id, user_id, record) VALUES ($1, $2, $3)",
                "INSERT INTO refresh_tokens (hash, session_id, record) VALUES ($1, $2, $3)",
            ],
        )
        .await?;
        let result = futures_util::future::try_join(
            tx.execute(
                &s,
                &[&session.id, &session.user_id, &JsonText(&session_body)],
            ),
            tx.execute(&t, &[&&token[..], &session.id, &JsonText(&token_body)]),
        )
        .await;
        if let Err(e) = result {
            return Err(match unique_violation(&e) {
                Some(_) => Error::Conflict("the session or its token exists already".into()),
                None => db_error(e),
            });
        }
        tx.commit().await.map_err(db_error)?;
        Ok(user)
    }

    async fn session(&self, id: &str) -> Result<Option<Arc<Session>>> {
        match self
            .opt("SELECT record FROM sessions WHERE id = $1", &[&id])
            .await?
        {
            Some(row) => Ok(Some(Arc::new(record(&row, 0)?))),
            None => Ok(None),
        }
    }

    async fn user_sessions(&self, user_id: &str) -> Result<Vec<String>> {
        let found = self
            .rows(
                "SELECT id FROM sessions WHERE user_id = $1 ORDER BY id",
                &[&user_id],
            )
            .await?;
        found.iter().map(|row| get(row, 0)).collect()
    }

    async fn end_sessions(&self, ids: &[String]) -> Result<usize> {
        if ids.is_empty() {
            return Ok(0);
        }
        // Tokens go with their session (ON DELETE CASCADE).
        let n = self
            .exec("DELETE FROM sessions WHERE id = ANY($1)", &[&ids])
            .await?;
        Ok(changed(n))
    }

    async fn update_user_ending_sessions(
        &self,
        user_id: &str,
        keep: Option<&str>,
        change: &mut UserChange<'_>,
    ) -> Result<User> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let user = change_user(&tx, user_id, change).await?;
        exec(
            &tx,
            "DELETE FROM sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2",
            &[&user_id, &keep],
        )
        .await?;
        tx.commit().await.map_err(db_error)?;
        Ok(user)
    }

    async fn refresh(
        &self,
        token: &[u8; 32],
        rule: &mut (dyn FnMut(Option<RefreshView>) -> RefreshPlan + Send),
    ) -> Result<RefreshPlan> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let view = refresh_view(&tx, token).await?;
        let session_id = view.as_ref().map(|v| v.presented.session_id.clone());
        let plan = rule(view);
        if let Some(session_id) = session_id {
            put_tokens(&tx, &plan.put).await?;
            if !plan.remove.is_empty() {
                let hashes: Vec<&[u8]> = plan.remove.iter().map(|h| &h[..]).collect();
                exec(
                    &tx,
                    "DELETE FROM refresh_tokens WHERE hash = ANY($1::bytea[])",
                    &[&hashes],
                )
                .await?;
            }
            if let Some(session) = &plan.session {
                let body = to_record(session)?;
                exec(
                    &tx,
                    "UPDATE sessions SET record = $2 WHERE id = $1",
                    &[&session.id, &JsonText(&body)],
                )
                .await?;
            }
            if plan.end_session {
                exec(&tx, "DELETE FROM sessions WHERE id = $1", &[&session_id]).await?;
            }
        }
        tx.commit().await.map_err(db_error)?;
        Ok(plan)
    }
}

/// Stores a secret in its owner's slot, spending the one the slot held.
async fn put_secret_tx(tx: &Transaction<'_>, s: &SecretRecord) -> Result<()> {
    let [clear, put] = prepare_all(
        tx,
        [
            "DELETE FROM secrets WHERE owner = $1 AND purpose = $2",
            "INSERT INTO secrets (hash, owner, purpose, body) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (hash) DO UPDATE SET owner = excluded.owner, \
                 purpose = excluded.purpose, body = excluded.body",
        ],
    )
    .await?;
    futures_util::future::try_join(
        tx.execute(&clear, &[&s.owner, &s.purpose]),
        tx.execute(&put, &[&&s.hash[..], &s.owner, &s.purpose, &s.body]),
    )
    .await
    .map_err(db_error)?;
    Ok(())
}

/// A secret as stored.
pub(super) fn secret_of(row: &tokio_postgres::Row) -> Result<SecretRecord> {
    let raw: &[u8] = get(row, 0)?;
    let hash = <[u8; 32]>::try_from(raw)
        .map_err(|_| Error::Unavailable("a stored secret's hash is not 32 bytes".into()))?;
    Ok(SecretRecord {
        hash,
        owner: get(row, 1)?,
        purpose: get(row, 2)?,
        body: get(row, 3)?,
    })
}

#[async_trait::async_trait]
impl SecretStore for PostgresBackend {
    async fn put_secret(
        &self,
        secret: &SecretRecord,
        stamp: Option<&mut UserChange<'_>>,
    ) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        match stamp {
            Some(stamp) => {
                change_user(&tx, &secret.owner, stamp).await?;
            }
            None => {
                lock_user(&tx, &secret.owner).await?;
            }
        }
        put_secret_tx(&tx, secret).await?;
        tx.commit().await.map_err(db_error)?;
        Ok(())
    }

    async fn put_secrets(
        &self,
        owner: &str,
        secrets: &[SecretRecord],
        clear: &[&str],
        change: &mut UserChange<'_>,
    ) -> Result<User> {
        if secrets.iter().any(|s| s.owner != owner) {
            return Err(Error::Invalid(
                "put_secrets stores secrets of one owner".into(),
            ));
        }
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let user = change_user(&tx, owner, change).await?;
        if !clear.is_empty() {
            exec(
                &tx,
                "DELETE FROM secrets WHERE owner = $1 AND purpose = ANY($2::text[])",
                &[&owner, &clear],
            )
            .await?;
        }
        for s in secrets {
            put_secret_tx(&tx, s).await?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(user)
    }

    async fn use_secret(
        &self,
        by: SecretLookup<'_>,
        rule: &mut SecretRule<'_>,
    ) -> Result<Option<SecretRecord>> {
        const COLUMNS: &str = "SELECT hash, owner, purpose, body FROM secrets";
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let owner = match by {
            SecretLookup::Slot { owner, .. } => Some(owner.to_string()),
            SecretLookup::Hash(hash) => {
                match opt(
                    &tx,
                    "SELECT owner FROM secrets WHERE hash = $1",
                    &[&&hash[..]],
                )
                .await?
                {
                    Some(row) => Some(get(&row, 0)?),
                    None => None,
                }
            }
        };
        let mut found = None;
        let mut purposes = Vec::new();
        if let Some(owner) = &owner {
            // Under the owner's lock, what it holds cannot change until we commit.
            let locked = opt(
                &tx,
                "SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE",
                &[owner],
            )
            .await?;
            if locked.is_some() {
                let row = match by {
                    SecretLookup::Hash(hash) => {
                        opt(&tx, &format!("{COLUMNS} WHERE hash = $1"), &[&&hash[..]]).await?
                    }
                    SecretLookup::Slot { owner, purpose } => {
                        opt(
                            &tx,
                            &format!("{COLUMNS} WHERE owner = $1 AND purpose = $2"),
                            &[&owner, &purpose],
                        )
                        .await?
                    }
                };
                found = row.as_ref().map(secret_of).transpose()?;
            }
            // The purposes come with a secret found, as the contract has it.
            if found.is_some() {
                for row in rows(
                    &tx,
                    "SELECT purpose FROM secrets WHERE owner = $1 ORDER BY purpose",
                    &[owner],
                )
                .await?
                {
                    purposes.push(get(&row, 0)?);
                }
            }
        }
        match (rule(found.as_ref(), &purposes), &found) {
            (_, None) | (SecretUse::Keep, _) => {}
            (SecretUse::Update(body), Some(s)) => {
                exec(
                    &tx,
                    "UPDATE secrets SET body = $2 WHERE hash = $1",
                    &[&&s.hash[..], &body],
                )
                .await?;
            }
            (SecretUse::Spend, Some(s)) => {
                exec(&tx, "DELETE FROM secrets WHERE hash = $1", &[&&s.hash[..]]).await?;
            }
        }
        tx.commit().await.map_err(db_error)?;
        Ok(found)
    }
}

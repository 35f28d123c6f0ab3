//! Coordination between the processes that share the database: flags, leases, shared
//! secrets and the GCRA instants of the sign-in limiter and the mail pace, each a row
//! that every process reads and changes atomically.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{PostgresBackend, db_error, get, opt, prepare_all};
use crate::backend::Coordination;
use crate::rate::Gcra;
use crate::{Error, Result};

#[async_trait::async_trait]
impl Coordination for PostgresBackend {
    async fn flag(&self, name: &str) -> Result<bool> {
        Ok(self
            .opt("SELECT 1 FROM flags WHERE name = $1", &[&name])
            .await?
            .is_some())
    }

    async fn set_flag(&self, name: &str) -> Result<bool> {
        let n = self
            .exec(
                "INSERT INTO flags (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
                &[&name],
            )
            .await?;
        Ok(n == 1)
    }

    async fn lease(&self, name: &str, holder: &str, until: DateTime<Utc>) -> Result<bool> {
        // Taken when free, lapsed, or already ours (a renewal); one statement, so two
        // processes asking at once cannot both get it.
        let now = Utc::now();
        let held = self
            .opt(
                "INSERT INTO leases AS l (name, holder, until) VALUES ($1, $2, $3) \
                 ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, \
                     until = excluded.until \
                 WHERE l.holder = excluded.holder OR l.until <= $4 \
                 RETURNING 1",
                &[&name, &holder, &until, &now],
            )
            .await?;
        Ok(held.is_some())
    }

    async fn shared_secret(
        &self,
        name: &str,
        make: &(dyn Fn() -> Vec<u8> + Sync),
    ) -> Result<Vec<u8>> {
        const READ: &str = "SELECT secret FROM shared_secrets WHERE name = $1";
        if let Some(row) = self.opt(READ, &[&name]).await? {
            return get(&row, 0);
        }
        // The first process to insert wins; everyone reads what it inserted.
        let secret = make();
        let client = self.client().await?;
        super::exec(
            &client,
            "INSERT INTO shared_secrets (name, secret) VALUES ($1, $2) \
             ON CONFLICT (name) DO NOTHING",
            &[&name, &secret],
        )
        .await?;
        let row = opt(&client, READ, &[&name])
            .await?
            .ok_or_else(|| Error::Unavailable(format!("the shared secret {name} vanished")))?;
        get(&row, 0)
    }

    async fn rate(
        &self,
        key: &[u8; 32],
        interval: Duration,
        burst: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<Duration>> {
        let key = &key[..];
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let [relax, ensure, lock, store] = prepare_all(
            &tx,
            [
                // A limiter's instant may be forgotten by a crash (see the module doc).
                "SET LOCAL synchronous_commit = off",
                "INSERT INTO rate_limits (key, tat) VALUES ($1, NULL) ON CONFLICT (key) DO NOTHING",
                "SELECT tat FROM rate_limits WHERE key = $1 FOR UPDATE",
                "UPDATE rate_limits SET tat = $2 WHERE key = $1",
            ],
        )
        .await?;
        let (_, _, row) = futures_util::future::try_join3(
            tx.execute(&relax, &[]),
            tx.execute(&ensure, &[&key]),
            tx.query_one(&lock, &[&key]),
        )
        .await
        .map_err(db_error)?;
        let tat: Option<DateTime<Utc>> = get(&row, 0)?;
        let wait = match Gcra::step(tat, interval, burst, now) {
            Gcra::Pass(tat) => {
                tx.execute(&store, &[&key, &tat]).await.map_err(db_error)?;
                None
            }
            Gcra::Wait(wait) => Some(wait),
        };
        tx.commit().await.map_err(db_error)?;
        Ok(wait)
    }
}

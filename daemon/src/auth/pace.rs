//! The e-mail send frequency limit: one mailed link of a kind (confirmation, recovery)
//! per address every `--email-max-frequency` seconds, GoTrue's `SMTP_MAX_FREQUENCY`
//! (60 s). A request inside it is 429 `over_email_send_rate_limit`, "For security
//! purposes, you can only request this after N seconds." (see [`super::pace_mail`]).
//!
//! GoTrue times the last link on the user (`recovery_sent_at`, `confirmation_sent_at`),
//! so only a registered address gets the 429, which tells it apart from an unknown one.
//! Radar times every valid address that asks, registered or not, so `/recover` and
//! `/resend` keep answering alike. The clock is the store's (a rate of one per interval,
//! `radar_store::Store::rate`), shared by every daemon of one store; a refused request
//! does not restart it.

use std::time::Duration;

use radar_store::Store;

/// One link per address and kind each interval.
#[derive(Debug, Clone, Copy)]
pub struct SendPace {
    interval: Duration,
}

impl SendPace {
    /// A pace of one link per `interval` (zero: no limit).
    pub fn new(interval: Duration) -> Self {
        Self { interval }
    }

    /// Counts a link of `kind` to `email`; the error is the wait in whole seconds.
    pub async fn hit(
        &self,
        store: &Store,
        kind: &str,
        email: &str,
    ) -> Result<Result<(), u64>, radar_store::Error> {
        if self.interval.is_zero() {
            return Ok(Ok(()));
        }
        let key = ["mail pace", kind, email];
        Ok(
            match store
                .rate(&key, self.interval, 1, chrono::Utc::now())
                .await?
            {
                Some(wait) => Err(super::limiter::whole_seconds(wait)),
                None => Ok(()),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_link_per_address_and_kind_each_interval() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(dir.path(), Default::default()).await.unwrap();
        let pace = SendPace::new(Duration::from_secs(60));
        let hit = |p: SendPace, kind: &'static str, email: &'static str| {
            let s = s.clone();
            async move { p.hit(&s, kind, email).await.unwrap() }
        };
        assert_eq!(hit(pace, "recovery", "a@example.com").await, Ok(()));
        let wait = hit(pace, "recovery", "a@example.com").await.unwrap_err();
        assert!((59..=60).contains(&wait), "{wait}");
        // Other kinds and other addresses have their own clocks.
        assert_eq!(hit(pace, "signup", "a@example.com").await, Ok(()));
        assert_eq!(hit(pace, "recovery", "b@example.com").await, Ok(()));

        let quick = SendPace::new(Duration::from_millis(50));
        assert_eq!(hit(quick, "recovery", "q@example.com").await, Ok(()));
        assert_eq!(hit(quick, "recovery", "q@example.com").await, Err(1));
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(hit(quick, "recovery", "q@example.com").await, Ok(()));

        let off = SendPace::new(Duration::ZERO);
        assert_eq!(hit(off, "recovery", "a@example.com").await, Ok(()));
        assert_eq!(hit(off, "recovery", "a@example.com").await, Ok(()));
    }
}

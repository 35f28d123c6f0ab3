//! A user's profile (docs/product.md §3): the professional resume they keep on /profile,
//! and the reader's settings that web and terminal share (mark-on-open).
//!
//! The resume is free text up to [`MAX_RESUME_CHARS`] characters (about eight pages of
//! prose): enough for any resume, small enough that a profile never weighs on the store.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{Error, Result, Store};

/// The document kind of readers who asked for the weekly summary by e-mail.
const WEEKLY_MAIL: &str = crate::backend::READER_DOCS[2];

/// What the `weekly-mail` document holds: the last week mailed.
#[derive(Debug, Default, Serialize, Deserialize)]
struct WeeklyMailState {
    last_week: Option<String>,
}

/// Longest accepted resume, in characters (Unicode scalar values).
pub const MAX_RESUME_CHARS: usize = 20_000;

/// A stored profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The professional resume; empty until the user writes one.
    pub resume: String,
    /// Whether opening an unmarked item from the feed marks it read ([`Store::open_item`]);
    /// on for profiles saved before the setting existed.
    #[serde(default = "on")]
    pub mark_on_open: bool,
    /// The reader's cut-off ("mark all read", "older than a day"): items published before
    /// it that carry no mark count as read and are out of the feed ([`Store::feed_page`]).
    #[serde(default)]
    pub read_before: Option<DateTime<Utc>>,
    /// Whether the reader asked for each weekly summary by e-mail (subscribers only; see
    /// [`Store::claim_weekly_mail`]).
    #[serde(default)]
    pub weekly_email: bool,
    /// Whether the feed, Drops, TV and search show one card per story, and read and
    /// hidden apply to all of a story's items (see `stories`); on for profiles saved
    /// before the setting existed. Off: every item on its own, as before stories.
    #[serde(default = "on")]
    pub stories: bool,
    /// Last change.
    #[serde(default)]
    pub updated_at: Option<DateTime<Utc>>,
}

fn on() -> bool {
    true
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            resume: String::new(),
            mark_on_open: true,
            read_before: None,
            weekly_email: false,
            stories: true,
            updated_at: None,
        }
    }
}

impl Store {
    /// The user's profile (empty until they save one).
    pub async fn profile(&self, user_id: &str) -> Result<Profile> {
        Ok(self.backend().profile(user_id).await?.unwrap_or_default())
    }

    /// Saves the user's resume; longer than [`MAX_RESUME_CHARS`] is refused.
    pub async fn set_resume(&self, user_id: &str, resume: &str) -> Result<Profile> {
        let chars = resume.chars().count();
        if chars > MAX_RESUME_CHARS {
            return Err(Error::Invalid(format!(
                "resume is {chars} characters long; the limit is {MAX_RESUME_CHARS}"
            )));
        }
        self.change_profile(user_id, |p| p.resume = resume.to_string())
            .await
    }

    /// Turns mark-on-open on or off for the user.
    pub async fn set_mark_on_open(&self, user_id: &str, on: bool) -> Result<Profile> {
        self.change_profile(user_id, |p| p.mark_on_open = on).await
    }

    /// Turns reading by story on or off for the user (see [`Profile::stories`]).
    pub async fn set_stories(&self, user_id: &str, on: bool) -> Result<Profile> {
        self.change_profile(user_id, |p| p.stories = on).await
    }

    /// Turns the weekly summary by e-mail on or off for the user. Who asked for it is
    /// also kept as a document of its own (`weekly-mail`), so the weekly job walks those
    /// readers only, and records there which week it mailed them.
    pub async fn set_weekly_email(&self, user_id: &str, on: bool) -> Result<Profile> {
        let profile = self
            .change_profile(user_id, |p| p.weekly_email = on)
            .await?;
        for _ in 0..20 {
            let doc = self.backend().doc(WEEKLY_MAIL, user_id).await?;
            let done = match (on, doc) {
                (true, None) => {
                    self.backend()
                        .put_doc(WEEKLY_MAIL, user_id, Some(b"{}"), 0)
                        .await?
                }
                (false, Some(doc)) => {
                    self.backend()
                        .put_doc(WEEKLY_MAIL, user_id, None, doc.version)
                        .await?
                }
                _ => true,
            };
            if done {
                return Ok(profile);
            }
        }
        Err(Error::Unavailable(
            "the profile changed too often meanwhile: try again".into(),
        ))
    }

    /// Up to `limit` readers who asked for the weekly summary by e-mail, after `after`.
    pub async fn weekly_mail_readers(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>> {
        self.backend().doc_keys(WEEKLY_MAIL, after, limit).await
    }

    /// Claims the mail of `week`'s summary to `user_id`: true once per reader and week,
    /// however many daemons ask (the document records the last week mailed, written by
    /// compare-and-set), false when it was claimed already or the reader no longer asks.
    pub async fn claim_weekly_mail(&self, user_id: &str, week: &str) -> Result<bool> {
        let Some(doc) = self.backend().doc(WEEKLY_MAIL, user_id).await? else {
            return Ok(false);
        };
        let mut state: WeeklyMailState = serde_json::from_slice(&doc.json).unwrap_or_default();
        if state.last_week.as_deref() == Some(week) {
            return Ok(false);
        }
        state.last_week = Some(week.to_string());
        let json = serde_json::to_vec(&state)?;
        self.backend()
            .put_doc(WEEKLY_MAIL, user_id, Some(&json), doc.version)
            .await
    }

    /// Reads the profile, changes it and saves it. Two changes of one profile at the same
    /// moment may lose one: a profile is one person's, changed from one form at a time.
    pub(crate) async fn change_profile(
        &self,
        user_id: &str,
        change: impl FnOnce(&mut Profile),
    ) -> Result<Profile> {
        let mut profile = self.profile(user_id).await?;
        change(&mut profile);
        profile.updated_at = Some(Utc::now());
        self.backend().put_profile(user_id, &profile).await?;
        Ok(profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::store_tests;

    store_tests! {
        async fn mark_on_open_is_on_until_turned_off_and_keeps_the_resume(store) {
            assert!(store.profile("u1").await.unwrap().mark_on_open);
            store.set_resume("u1", "ML engineer").await.unwrap();
            store.set_mark_on_open("u1", false).await.unwrap();
            let p = store.profile("u1").await.unwrap();
            assert!(!p.mark_on_open);
            assert_eq!(p.resume, "ML engineer");
            store.set_resume("u1", "Data engineer").await.unwrap();
            assert!(!store.profile("u1").await.unwrap().mark_on_open);
            assert!(store.profile("u2").await.unwrap().mark_on_open);
        }

        async fn the_weekly_mail_is_claimed_once_per_reader_and_week(store) {
            assert!(!store.profile("u1").await.unwrap().weekly_email);
            assert!(!store.claim_weekly_mail("u1", "2026-W47").await.unwrap(), "not asked for");
            store.set_weekly_email("u1", true).await.unwrap();
            store.set_weekly_email("u2", true).await.unwrap();
            assert!(store.profile("u1").await.unwrap().weekly_email);
            assert_eq!(store.weekly_mail_readers(None, 10).await.unwrap(), ["u1", "u2"]);
            assert!(store.claim_weekly_mail("u1", "2026-W47").await.unwrap());
            assert!(!store.claim_weekly_mail("u1", "2026-W47").await.unwrap(), "once a week");
            assert!(store.claim_weekly_mail("u1", "2026-W48").await.unwrap());
            // Turned off, the reader is no longer walked nor mailed.
            store.set_weekly_email("u2", false).await.unwrap();
            assert_eq!(store.weekly_mail_readers(None, 10).await.unwrap(), ["u1"]);
            assert!(!store.claim_weekly_mail("u2", "2026-W48").await.unwrap());
            assert!(!store.profile("u2").await.unwrap().weekly_email);
        }

        async fn resume_round_trips_and_the_limit_counts_characters(store) {
            assert_eq!(store.profile("u1").await.unwrap().resume, "");
            store.set_resume("u1", "ML engineer").await.unwrap();
            assert_eq!(store.profile("u1").await.unwrap().resume, "ML engineer");
            assert_eq!(store.profile("u2").await.unwrap().resume, "");
            // Multi-byte characters count once each.
            store
                .set_resume("u1", &"é".repeat(MAX_RESUME_CHARS))
                .await
                .unwrap();
            let err = store
                .set_resume("u1", &"a".repeat(MAX_RESUME_CHARS + 1))
                .await
                .unwrap_err();
            assert!(matches!(err, Error::Invalid(m) if m.contains("20000")));
            assert_eq!(
                store.profile("u1").await.unwrap().resume.chars().count(),
                MAX_RESUME_CHARS
            );
        }
    }
}

//! The weekly summary by e-mail (docs/product.md §12): once last week's summary exists,
//! each subscriber who asked for it (`weeklyEmail` on their profile) gets it once, with
//! its five key points and their sources, its text, a link to read it in Radar and a
//! link that stops these mails without signing in.
//!
//! Every daemon sharing the store runs this; the lease keeps one at it at a time, and
//! each reader's week is claimed before the mail is sent (`Store::claim_weekly_mail`),
//! so a reader gets a week's mail at most once even when a daemon stops midway.

use std::time::Duration;

use chrono::Utc;
use radar_store::WeeklySummary;

use super::week::Week;
use crate::state::AppState;

/// The lease the weekly mail holds against other daemons.
const LEASE: &str = "weekly-mail";
/// Readers walked per page.
const PAGE: usize = 500;
/// For how long after its week a summary is still mailed to readers who have not had it
/// (one who asks on Thursday gets Monday's summary; next Monday brings the next).
const MAILED_FOR_DAYS: i64 = 7;

/// Mails last week's summary to every subscriber who asked and has not had it.
pub(crate) async fn send_due(s: &AppState, holder: &str, every: Duration) -> anyhow::Result<()> {
    let now = Utc::now();
    let week = Week::previous(now);
    if now - week.end() > chrono::Duration::days(MAILED_FOR_DAYS) {
        return Ok(());
    }
    let Some(summary) = s.store.summary(&week.label()).await? else {
        return Ok(());
    };
    let until = now + chrono::Duration::from_std(every * 4)?;
    if !s.store.lease(LEASE, holder, until).await? {
        return Ok(());
    }
    let mut after: Option<String> = None;
    loop {
        let readers = s.store.weekly_mail_readers(after.as_deref(), PAGE).await?;
        for id in &readers {
            let Some(user) = s.store.user(id).await? else {
                continue;
            };
            // Subscribers only: one whose subscription ended keeps the setting for when
            // they come back, and gets nothing meanwhile.
            if !s.store.is_subscriber(&user) || !s.store.claim_weekly_mail(id, &summary.id).await? {
                continue;
            }
            let links = crate::unsubscribe::links(s, crate::unsubscribe::WEEKLY, id)?;
            let read = s.site_url.join(&format!("weekly-summary/{}", summary.id))?;
            let text = mail_text(&summary, read.as_str(), links.page.as_str());
            s.mailer
                .send_with_unsubscribe(
                    &user.email,
                    &format!("Radar weekly: {}", summary.title),
                    &text,
                    "weekly",
                    links.one_click.as_str(),
                )
                .await?;
        }
        match readers.last() {
            Some(last) if readers.len() == PAGE => after = Some(last.clone()),
            _ => return Ok(()),
        }
    }
}

/// The mail's text: the key points with their sources, the summary, and the two links.
fn mail_text(summary: &WeeklySummary, read: &str, unsubscribe: &str) -> String {
    let mut text = format!("{}\n\n", summary.title);
    if !summary.key_points.is_empty() {
        text.push_str("All You Need to Know\n");
        for point in &summary.key_points {
            text.push_str(&format!("- {}\n", point.text));
            for source in &point.sources {
                text.push_str(&format!("  {}: {}\n", source.name, source.url));
            }
        }
        text.push('\n');
    }
    text.push_str(&summary.summary);
    text.push_str("\n\n");
    for paragraph in &summary.content {
        text.push_str(paragraph);
        text.push_str("\n\n");
    }
    text.push_str(&format!(
        "Read it in Radar: {read}\n\nYou receive this because you asked for the weekly summary by e-mail on your Radar profile. To stop these e-mails, open:\n{unsubscribe}\n"
    ));
    text
}

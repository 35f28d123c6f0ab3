//! The mailer. Every message is kept in the store's outbox (so a local install can
//! finish a password reset with `radar outbox show ID`), and the log says so without the
//! link. When an SMTP server is configured, the message is also sent there, in the
//! background: the HTTP answer does not wait for it, and a failure is logged.

use lettre::message::Body;
use lettre::message::Mailbox;
use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use radar_store::Store;

/// Keeps and sends e-mails.
pub struct Mailer {
    store: Store,
    from: Mailbox,
    smtp: Option<AsyncSmtpTransport<Tokio1Executor>>,
}

#[allow(
    clippy::missing_fields_in_debug,
    reason = "secrets and connections are left out on purpose"
)]
impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("from", &self.from)
            .field("smtp", &self.smtp.is_some())
            .finish()
    }
}

/// Checks an SMTP URL (for the command line): `smtp` or `smtps`, and plain unencrypted
/// `smtp` only to this machine.
pub(crate) fn parse_smtp_url(raw: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("not a URL: {e}"))?;
    let tls = url
        .query_pairs()
        .find(|(k, _)| k == "tls")
        .map(|(_, v)| v.into_owned());
    // `smtp` is not a special scheme to the URL parser, so an IP address stays text.
    let host = url
        .host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let local = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match (url.scheme(), tls.as_deref()) {
        ("smtps", _) | ("smtp", Some("required")) => {}
        ("smtp", _) if local => {}
        ("smtp", _) => {
            return Err(
                "unencrypted SMTP is allowed only to localhost: use smtps:// or ?tls=required"
                    .into(),
            );
        }
        (other, _) => return Err(format!("unsupported scheme {other:?}: use smtp or smtps")),
    }
    AsyncSmtpTransport::<Tokio1Executor>::from_url(url.as_str())
        .map_err(|e| format!("bad SMTP URL: {e}"))?;
    Ok(url)
}

/// Checks a sender such as `Radar <noreply@example.com>` (for the command line).
pub(crate) fn parse_mailbox(raw: &str) -> Result<String, String> {
    raw.parse::<Mailbox>()
        .map(|_| raw.to_string())
        .map_err(|e| format!("not a mail address: {e}"))
}

impl Mailer {
    /// A mailer over the store's outbox, with SMTP when `smtp_url` is given. Both
    /// arguments were checked when the command line was parsed.
    pub fn new(store: Store, smtp_url: Option<&url::Url>, from: &str) -> Self {
        let from = from.parse().unwrap_or_else(|_| {
            "Radar <noreply@localhost>"
                .parse()
                .expect("a valid mailbox")
        });
        let smtp = smtp_url.and_then(|u| match AsyncSmtpTransport::<Tokio1Executor>::from_url(u.as_str()) {
            Ok(b) => Some(b.build()),
            Err(e) => {
                tracing::error!(error = %e, "cannot use the SMTP URL; mail is kept in the outbox only");
                None
            }
        });
        if let (Some(_), Some(u)) = (&smtp, smtp_url) {
            tracing::info!(
                smtp = %format!("{}://{}:{}", u.scheme(), u.host_str().unwrap_or_default(), u.port().unwrap_or_default()),
                "mail is kept in the outbox and sent by SMTP"
            );
        } else {
            tracing::info!(
                "mail is kept in the outbox only (radar outbox list); set --smtp-url to send it"
            );
        }
        Self { store, from, smtp }
    }

    /// Keeps a message in the outbox and, with SMTP, sends it in the background.
    pub async fn send(
        &self,
        to: &str,
        subject: &str,
        text: &str,
        kind: &str,
    ) -> anyhow::Result<()> {
        self.send_message(to, subject, text, kind, None).await
    }

    /// [`Mailer::send`] of a mail a reader may stop (an alert's): its `List-Unsubscribe`
    /// header names `unsubscribe`, which stops it with one POST (RFC 8058), so mail
    /// clients offer their own unsubscribe button.
    pub async fn send_with_unsubscribe(
        &self,
        to: &str,
        subject: &str,
        text: &str,
        kind: &str,
        unsubscribe: &str,
    ) -> anyhow::Result<()> {
        self.send_message(to, subject, text, kind, Some(unsubscribe))
            .await
    }

    async fn send_message(
        &self,
        to: &str,
        subject: &str,
        text: &str,
        kind: &str,
        unsubscribe: Option<&str>,
    ) -> anyhow::Result<()> {
        let mail = self.store.outbox_add(to, subject, text, kind).await?;
        tracing::info!(mail = %mail.id, kind, "kept an e-mail in the outbox (radar outbox show ID)");
        let Some(smtp) = self.smtp.clone() else {
            return Ok(());
        };
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to.parse()?)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN);
        if let Some(url) = unsubscribe {
            builder = builder
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    format!("<{url}>"),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    "List-Unsubscribe=One-Click".into(),
                ));
        }
        // Quoted-printable whatever the text: links are longer than a mail line.
        let message = builder.body(
            Body::new_with_encoding(text.to_string(), ContentTransferEncoding::QuotedPrintable)
                .map_err(|_| anyhow::anyhow!("the message cannot be encoded"))?,
        )?;
        let id = mail.id;
        tokio::spawn(async move {
            match smtp.send(message).await {
                Ok(_) => tracing::info!(mail = %id, "sent an e-mail by SMTP"),
                Err(e) => {
                    tracing::warn!(mail = %id, error = %e, "SMTP sending failed; the message stays in the outbox");
                }
            }
        });
        Ok(())
    }
}

/// The mail jobs: every `every`, the alerts' due mails and the weekly summary's mail to
/// the readers who asked for it. Every daemon runs them; each takes its own lease, so
/// one daemon at a time sends.
pub(crate) async fn jobs(s: crate::state::AppState, every: std::time::Duration) {
    let holder = uuid::Uuid::new_v4().to_string();
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = crate::alerts::send_due(&s, &holder, every).await {
            tracing::warn!(error = %e, "cannot send the alerts' mails; will retry");
        }
        if let Err(e) = crate::summarize::digest::send_due(&s, &holder, every).await {
            tracing::warn!(error = %e, "cannot send the weekly summary's mails; will retry");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_smtp_only_to_this_machine() {
        assert_eq!(
            parse_smtp_url("smtp://127.0.0.1:2525").map(|u| u.port()),
            Ok(Some(2525))
        );
        assert!(parse_smtp_url("smtp://localhost:25").is_ok());
        assert!(parse_smtp_url("smtp://mail.example.com:25").is_err());
        assert!(parse_smtp_url("smtp://u:p@mail.example.com:587?tls=required").is_ok());
        assert!(parse_smtp_url("smtps://u:p@mail.example.com").is_ok());
        assert!(parse_smtp_url("http://mail.example.com").is_err());
        assert!(parse_mailbox("Radar <noreply@localhost>").is_ok());
        assert!(parse_mailbox("not an address").is_err());
    }
}

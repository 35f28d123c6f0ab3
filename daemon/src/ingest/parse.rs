//! Feed documents (RSS 2.0, Atom, JSON Feed, through feed-rs) to items: each entry's guid
//! and the item it becomes, its text cleaned of markup.

use chrono::{DateTime, Utc};
use radar_store::NewItem;

use super::clean::{derive_short, html_to_text, sentences, truncate_words};

/// Longest summary taken from an entry's content when the entry has no summary.
const SUMMARY_FROM_CONTENT: usize = 600;
/// A feed summary longer than this (in characters) is an article, not a summary.
const LONG_SUMMARY: usize = 1_000;
/// Content is cut to stay within the store's limit for text fields.
const MAX_CONTENT_BYTES: usize = 190_000;

/// Cuts `s` to at most `max` bytes on a paragraph, else a char, boundary.
fn cap_bytes(s: &mut String, max: usize) {
    if s.len() <= max {
        return;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let cut = s[..end]
        .rfind("\n\n")
        .filter(|&p| p > max / 2)
        .unwrap_or(end);
    s.truncate(cut);
    s.push('…');
}

/// A parsed feed.
#[derive(Debug)]
pub struct ParsedFeed {
    /// The feed's own title, if any.
    pub title: Option<String>,
    /// Its entries.
    pub entries: Vec<ParsedEntry>,
}

/// One entry: its guid (the feed's id for it, or one feed-rs derives from its content)
/// and the item it becomes.
#[derive(Debug)]
pub struct ParsedEntry {
    /// Stable id of the entry within its feed.
    pub guid: String,
    /// The item.
    pub item: NewItem,
    /// Whether the entry carries a date (else the item is dated when first seen).
    pub dated: bool,
}

/// Parses a feed document; `now` dates entries that carry no date.
pub fn parse(body: &[u8], feed_url: &str, now: DateTime<Utc>) -> Result<ParsedFeed, String> {
    let feed = feed_rs::parser::Builder::new()
        .base_uri(Some(feed_url))
        .build()
        .parse(body)
        .map_err(|e| format!("not a valid RSS, Atom or JSON feed: {e}"))?;
    let title = feed
        .title
        .map(|t| html_to_text(&t.content))
        .filter(|t| !t.is_empty());
    let entries = feed.entries.into_iter().map(|e| entry(e, now)).collect();
    Ok(ParsedFeed { title, entries })
}

fn entry(e: feed_rs::model::Entry, now: DateTime<Utc>) -> ParsedEntry {
    let mut content = e
        .content
        .and_then(|c| c.body)
        .map(|b| html_to_text(&b))
        .unwrap_or_default();
    let mut summary = e
        .summary
        .map(|s| html_to_text(&s.content))
        .unwrap_or_default();
    // Many feeds put the whole article in the description: it becomes the content, and
    // its opening the summary.
    if summary.chars().count() > LONG_SUMMARY {
        if content.is_empty() {
            content = std::mem::take(&mut summary);
        }
        summary = summary_from(if summary.is_empty() {
            &content
        } else {
            &summary
        });
    }
    if summary.is_empty() {
        summary = summary_from(&content);
    }
    cap_bytes(&mut content, MAX_CONTENT_BYTES);
    let title = e
        .title
        .map(|t| html_to_text(&t.content))
        .unwrap_or_default();
    let title = if title.is_empty() {
        truncate_words(sentences(&summary).first().map_or("", |s| s.as_str()), 120)
    } else {
        title
    };
    if summary.is_empty() {
        summary = title.clone();
    }
    let url = e
        .links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
        .or(e.links.first())
        .map(|l| l.href.clone());
    let dated = e.published.or(e.updated).is_some();
    let item = NewItem {
        id: None,
        short: derive_short(&summary),
        content: if content.is_empty() {
            summary.clone()
        } else {
            content
        },
        title,
        summary,
        url,
        published_date: e.published.or(e.updated).unwrap_or(now),
    };
    ParsedEntry {
        guid: e.id,
        item,
        dated,
    }
}

/// A summary for an entry that has only content: its first paragraph, cut to whole
/// sentences within 600 characters.
fn summary_from(content: &str) -> String {
    let first = content.split("\n\n").next().unwrap_or("");
    let mut out = String::new();
    for s in sentences(first) {
        if !out.is_empty() && out.chars().count() + 1 + s.chars().count() > SUMMARY_FROM_CONTENT {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&s);
    }
    truncate_words(&out, SUMMARY_FROM_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        "2026-11-20T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn rss_entries_become_clean_items() {
        let rss = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>Lab &amp; Co</title>
            <item><title>Model &lt;b&gt;launch&lt;/b&gt;</title><link>https://lab.example/a</link><guid>a-1</guid>
            <description>&lt;p&gt;A new model [1]. It is fast.&lt;/p&gt;</description>
            <pubDate>Tue, 17 Nov 2026 09:00:00 GMT</pubDate></item></channel></rss>"#;
        let feed = parse(rss.as_bytes(), "https://lab.example/feed", now()).unwrap();
        assert_eq!(feed.title.as_deref(), Some("Lab & Co"));
        let e = &feed.entries[0];
        assert_eq!(e.guid, "a-1");
        assert_eq!(e.item.title, "Model launch");
        assert_eq!(e.item.summary, "A new model [1]. It is fast.");
        assert_eq!(e.item.short, "A new model.");
        assert_eq!(e.item.url.as_deref(), Some("https://lab.example/a"));
        assert_eq!(
            e.item.published_date.to_rfc3339(),
            "2026-11-17T09:00:00+00:00"
        );
    }

    #[test]
    fn content_only_entries_get_a_summary_and_undated_ones_now() {
        let json = r#"{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[
            {"id":"x","url":"https://j.example/x","content_html":"<p>First part. Second part.</p><p>Later.</p>"}]}"#;
        let feed = parse(json.as_bytes(), "https://j.example/feed.json", now()).unwrap();
        let item = &feed.entries[0].item;
        assert_eq!(item.summary, "First part. Second part.");
        assert_eq!(item.title, "First part.");
        assert_eq!(item.content, "First part. Second part.\n\nLater.");
        assert_eq!(item.published_date, now());
    }

    #[test]
    fn an_article_in_the_description_becomes_the_content() {
        let para = "A sentence about the news that goes on for a while. ".repeat(30);
        let rss = format!(
            r#"<rss version="2.0"><channel><title>T</title><item><title>Long</title><link>https://l.example/a</link>
            <description>&lt;p&gt;{para}&lt;/p&gt;&lt;p&gt;Second paragraph.&lt;/p&gt;</description></item></channel></rss>"#
        );
        let feed = parse(rss.as_bytes(), "https://l.example/feed", now()).unwrap();
        let item = &feed.entries[0].item;
        assert!(
            item.summary.chars().count() <= SUMMARY_FROM_CONTENT,
            "{}",
            item.summary.len()
        );
        assert!(item.content.ends_with("Second paragraph."));
        assert!(item.content.len() > 1_000);
        let mut huge = "é".repeat(200_000);
        cap_bytes(&mut huge, MAX_CONTENT_BYTES);
        assert!(huge.len() <= MAX_CONTENT_BYTES + '…'.len_utf8());
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(
            parse(
                b"<html><body>not a feed</body></html>",
                "https://x.example/",
                now()
            )
            .is_err()
        );
        assert!(parse(b"", "https://x.example/", now()).is_err());
    }
}

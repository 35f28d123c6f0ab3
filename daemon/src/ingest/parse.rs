//! Feed documents to items: each entry's guid and the item it becomes, its text cleaned
//! of markup.
//!
//! Reading goes in three steps. The bytes become UTF-8 text ([`super::encoding`]). The
//! text is read by feed-rs (RSS 0.91, 0.92, 1.0 and 2.0, Atom 1.0, JSON Feed; a JSON Feed
//! first gets defaults for the fields feed-rs requires but real feeds leave out, such as
//! the title or an attachment's MIME type); when feed-rs refuses the document or finds no
//! entry in it, the forgiving reader of [`super::lenient`] tries, so feeds that readers
//! accept (`<rss>` without a version, RSS 0.9x, Atom 0.3, broken endings) are not lost.
//! Both give a [`RawFeed`], and one function turns its entries into items.
//!
//! Links are resolved the way readers do: in RSS, a relative link is relative to the
//! channel's link (the site), not to the feed's URL; in Atom and JSON Feed, to the
//! document (feed-rs applies `xml:base`).

use chrono::{DateTime, Utc};
use radar_store::NewItem;
use sha2::{Digest, Sha256};

use super::clean::{derive_short, html_to_text, sentences, truncate_words};
use super::{encoding, lenient};

/// Longest summary taken from an entry's content when the entry has no summary.
const SUMMARY_FROM_CONTENT: usize = 600;
/// A feed summary longer than this (in characters) is an article, not a summary.
const LONG_SUMMARY: usize = 1_000;
/// Content is cut to stay within the store's limit for text fields.
const MAX_CONTENT_BYTES: usize = 190_000;
/// Longest title made from an entry's text or link when it has no title.
const MADE_TITLE: usize = 120;

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

/// One entry: its guid (the feed's id for it, or one derived from its content) and the
/// item it becomes.
#[derive(Debug)]
pub struct ParsedEntry {
    /// Stable id of the entry within its feed.
    pub guid: String,
    /// The item.
    pub item: NewItem,
    /// Whether the entry carries a date (else the item is dated when first seen).
    pub dated: bool,
}

/// The family a feed belongs to, which decides what its relative links are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    /// RSS of any version, RDF, CDF: relative to the channel's link.
    Rss,
    /// Atom: relative to the document (and its `xml:base`).
    Atom,
    /// JSON Feed: relative to the document.
    Json,
}

/// A feed as read, before cleaning: what both readers produce.
#[derive(Debug)]
pub struct RawFeed {
    /// Its family.
    pub kind: FeedKind,
    /// The feed's title (may hold markup).
    pub title: Option<String>,
    /// The channel's link (the site), as written.
    pub link: Option<String>,
    /// Its entries.
    pub entries: Vec<RawEntry>,
}

impl RawFeed {
    /// An empty feed of a family.
    pub fn new(kind: FeedKind) -> Self {
        Self {
            kind,
            title: None,
            link: None,
            entries: Vec::new(),
        }
    }
}

/// An entry as read. Text fields may hold HTML.
#[derive(Debug, Default)]
pub struct RawEntry {
    /// The feed's id for it (guid, id, rdf:about).
    pub id: Option<String>,
    /// Headline.
    pub title: Option<String>,
    /// Description or summary.
    pub summary: Option<String>,
    /// Full content.
    pub content: Option<String>,
    /// Its links, in document order.
    pub links: Vec<RawLink>,
    /// Publication time.
    pub published: Option<DateTime<Utc>>,
    /// Last update.
    pub updated: Option<DateTime<Utc>>,
}

/// A link of an entry.
#[derive(Debug, Clone)]
pub struct RawLink {
    /// Where it points, possibly relative.
    pub href: String,
    /// `alternate`, `enclosure`, ...; none for a plain link.
    pub rel: Option<String>,
}

/// Parses a feed document; `content_type` is the HTTP header (for its charset), `now`
/// dates entries that carry no date.
pub fn parse(
    body: &[u8],
    content_type: Option<&str>,
    feed_url: &str,
    now: DateTime<Utc>,
) -> Result<ParsedFeed, String> {
    let text = encoding::to_utf8(body, content_type);
    let raw = read(&text, feed_url)?;
    let base = base_url(&raw, feed_url);
    let title = raw
        .title
        .as_deref()
        .map(html_to_text)
        .filter(|t| !t.is_empty());
    let entries = raw
        .entries
        .into_iter()
        .map(|e| entry(e, base.as_ref(), now))
        .collect();
    Ok(ParsedFeed { title, entries })
}

/// Reads the text with feed-rs, else with the forgiving reader (see the module docs).
fn read(text: &str, feed_url: &str) -> Result<RawFeed, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        let fixed = json_defaults(trimmed).unwrap_or_else(|| trimmed.to_string());
        return feed_rs(&fixed, None).map(raw_feed).map_err(invalid);
    }
    let first = match feed_rs(text, None) {
        // Atom resolves relative links against the document and its xml:base, which
        // only feed-rs tracks: read again with the document's URL as the base.
        Ok(feed)
            if feed.feed_type == feed_rs::model::FeedType::Atom
                && feed
                    .entries
                    .iter()
                    .any(|e| e.links.iter().any(|l| is_relative(&l.href))) =>
        {
            feed_rs(text, Some(feed_url))
        }
        other => other,
    };
    match first {
        Ok(feed) if !feed.entries.is_empty() => {
            // feed-rs leaves out RSS 1.0 items without a link; the forgiving reader keeps them.
            let rss1 = feed.feed_type == feed_rs::model::FeedType::RSS1;
            let mut raw = raw_feed(feed);
            if rss1 || raw.entries.iter().any(RawEntry::lacks_text) {
                match lenient::parse(text) {
                    Some(other) if rss1 && other.entries.len() > raw.entries.len() => {
                        return Ok(other);
                    }
                    other => fill_in(&mut raw, other),
                }
            }
            Ok(raw)
        }
        first => match lenient::parse(text) {
            Some(raw) if !raw.entries.is_empty() => Ok(raw),
            _ => first.map(raw_feed).map_err(invalid),
        },
    }
}

/// Fills the fields feed-rs left empty from the forgiving reader's reading of the same
/// document, entry by entry, when both found the same entries.
fn fill_in(raw: &mut RawFeed, other: Option<RawFeed>) {
    let Some(other) = other.filter(|o| o.entries.len() == raw.entries.len()) else {
        return;
    };
    for (e, o) in raw.entries.iter_mut().zip(other.entries) {
        if e.title.as_deref().is_none_or(str::is_empty) {
            e.title = o.title;
        }
        if e.summary.as_deref().is_none_or(str::is_empty) {
            e.summary = o.summary;
        }
        if e.content.as_deref().is_none_or(str::is_empty) {
            e.content = o.content;
        }
        if e.links.is_empty() {
            e.links = o.links;
        }
        e.published = e.published.or(o.published);
        e.updated = e.updated.or(o.updated);
    }
}

impl RawEntry {
    /// Whether a headline or text is missing.
    fn lacks_text(&self) -> bool {
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
        blank(&self.title) || (blank(&self.summary) && blank(&self.content))
    }
}

fn invalid(e: feed_rs::parser::ParseFeedError) -> String {
    format!("not a valid RSS, Atom or JSON feed: {e}")
}

/// feed-rs with our settings: no ids made up for entries without one (we derive stable
/// ones from the content), and the given base for relative links.
fn feed_rs(
    text: &str,
    base: Option<&str>,
) -> Result<feed_rs::model::Feed, feed_rs::parser::ParseFeedError> {
    feed_rs::parser::Builder::new()
        .base_uri(base)
        .id_generator(|_, _, _| String::new())
        .build()
        .parse(text.as_bytes())
}

fn is_relative(href: &str) -> bool {
    matches!(
        url::Url::parse(href.trim()),
        Err(url::ParseError::RelativeUrlWithoutBase)
    )
}

/// A JSON Feed with defaults for what feed-rs requires and real feeds omit: the version,
/// the title, the items, each attachment's MIME type (attachments without a URL are
/// dropped) and string ids. `None` when the text is not a JSON object.
fn json_defaults(text: &str) -> Option<String> {
    use serde_json::Value;
    let mut doc: Value = serde_json::from_str(text).ok()?;
    let feed = doc.as_object_mut()?;
    if !feed.get("version").is_some_and(Value::is_string) {
        feed.insert("version".into(), "https://jsonfeed.org/version/1.1".into());
    }
    if !feed.get("title").is_some_and(Value::is_string) {
        feed.insert("title".into(), "".into());
    }
    if !feed.get("items").is_some_and(Value::is_array) {
        feed.insert("items".into(), Value::Array(Vec::new()));
    }
    for item in feed["items"]
        .as_array_mut()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        if let Some(id) = item.get("id").filter(|v| v.is_number()) {
            let id = id.to_string();
            item.insert("id".into(), id.into());
        }
        if let Some(attachments) = item.get_mut("attachments").and_then(Value::as_array_mut) {
            attachments.retain(|a| a.get("url").is_some_and(Value::is_string));
            for a in attachments.iter_mut().filter_map(Value::as_object_mut) {
                if !a.get("mime_type").is_some_and(Value::is_string) {
                    a.insert("mime_type".into(), "application/octet-stream".into());
                }
            }
        }
    }
    serde_json::to_string(&doc).ok()
}

/// feed-rs's model as a [`RawFeed`].
fn raw_feed(feed: feed_rs::model::Feed) -> RawFeed {
    use feed_rs::model::FeedType;
    let kind = match feed.feed_type {
        FeedType::Atom => FeedKind::Atom,
        FeedType::JSON => FeedKind::Json,
        FeedType::RSS0 | FeedType::RSS1 | FeedType::RSS2 => FeedKind::Rss,
    };
    let link = feed
        .links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
        .map(|l| l.href.clone());
    let entries = feed
        .entries
        .into_iter()
        .map(|e| {
            let mut links: Vec<RawLink> = e
                .links
                .into_iter()
                .map(|l| RawLink {
                    href: l.href,
                    rel: l.rel,
                })
                .collect();
            // Podcasts: the episode's media when it has no link of its own.
            links.extend(
                e.media
                    .iter()
                    .flat_map(|m| &m.content)
                    .filter_map(|c| c.url.as_ref())
                    .map(|u| RawLink {
                        href: u.to_string(),
                        rel: Some("enclosure".into()),
                    }),
            );
            RawEntry {
                id: Some(e.id).filter(|id| !id.is_empty()),
                title: e.title.map(|t| t.content),
                summary: e.summary.map(|t| t.content),
                content: e.content.and_then(|c| c.body),
                links,
                published: e.published,
                updated: e.updated,
            }
        })
        .collect();
    RawFeed {
        kind,
        title: feed.title.map(|t| t.content),
        link,
        entries,
    }
}

/// What relative links of this feed are relative to: an RSS channel's link when it is a
/// web address, else the feed's own URL.
fn base_url(feed: &RawFeed, feed_url: &str) -> Option<url::Url> {
    let document = url::Url::parse(feed_url).ok();
    let channel = (feed.kind == FeedKind::Rss)
        .then_some(feed.link.as_deref())
        .flatten()
        .and_then(|l| resolve(document.as_ref(), l));
    channel.or(document)
}

/// `href` as an absolute http(s) URL, resolved against `base` when relative; `None` for
/// anything a reader cannot open in a browser (mailto:, javascript:, garbage).
fn resolve(base: Option<&url::Url>, href: &str) -> Option<url::Url> {
    let href = href.trim();
    let url = match url::Url::parse(href) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => base?.join(href).ok()?,
        Err(_) => return None,
    };
    matches!(url.scheme(), "http" | "https").then_some(url)
}

fn entry(e: RawEntry, base: Option<&url::Url>, now: DateTime<Utc>) -> ParsedEntry {
    let mut content = e.content.as_deref().map(html_to_text).unwrap_or_default();
    let mut summary = e.summary.as_deref().map(html_to_text).unwrap_or_default();
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
    // The page: the alternate link, else the first; an RSS guid is a permalink when it is
    // a web address and there is no link.
    let url = e
        .links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
        .or(e.links.first())
        .map(|l| l.href.as_str())
        .or(e.id.as_deref().filter(|id| id.starts_with("http")))
        .and_then(|href| resolve(base, href))
        .map(String::from);
    let title = e.title.as_deref().map(html_to_text).unwrap_or_default();
    // No title: the text's first sentence, else the link itself, as readers show it.
    let title = if !title.is_empty() {
        title
    } else if !summary.is_empty() {
        truncate_words(
            sentences(&summary).first().map_or("", |s| s.as_str()),
            MADE_TITLE,
        )
    } else {
        url.as_deref().map(link_title).unwrap_or_default()
    };
    if summary.is_empty() {
        summary.clone_from(&title);
    }
    let guid = e.id.clone().unwrap_or_else(|| {
        // No id in the feed: one derived from what the entry says, stable across fetches.
        let mut h = Sha256::new();
        for part in [
            url.as_deref(),
            e.title.as_deref(),
            e.summary.as_deref(),
            e.content.as_deref(),
        ] {
            h.update(part.unwrap_or("").as_bytes());
            h.update([0xff]);
        }
        hex::encode(&h.finalize()[..16])
    });
    let dated = e.published.or(e.updated).is_some();
    let item = NewItem {
        source: None,
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
    ParsedEntry { guid, item, dated }
}

/// A headline for an entry that has nothing but a link: the address without its scheme,
/// with the host in Unicode.
fn link_title(url: &str) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return url.to_string();
    };
    let host = radar_store::display::unicode_host(u.host_str().unwrap_or_default());
    let rest = &u[url::Position::BeforePath..];
    truncate_words(format!("{host}{rest}").trim_end_matches('/'), MADE_TITLE)
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
        let feed = parse(rss.as_bytes(), None, "https://lab.example/feed", now()).unwrap();
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
        let feed = parse(json.as_bytes(), None, "https://j.example/feed.json", now()).unwrap();
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
        let feed = parse(rss.as_bytes(), None, "https://l.example/feed", now()).unwrap();
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
                None,
                "https://x.example/",
                now()
            )
            .is_err()
        );
        assert!(parse(b"", None, "https://x.example/", now()).is_err());
    }

    #[test]
    fn relative_links_follow_the_channel_in_rss_and_the_document_in_atom() {
        let rss = r#"<rss version="2.0"><channel><link>https://site.example/blog/</link>
            <item><title>A</title><link>posts/1</link></item>
            <item><title>B</title><link>mailto:someone@site.example</link></item></channel></rss>"#;
        let feed = parse(
            rss.as_bytes(),
            None,
            "https://feeds.example/x/rss.xml",
            now(),
        )
        .unwrap();
        let urls: Vec<_> = feed.entries.iter().map(|e| e.item.url.clone()).collect();
        assert_eq!(
            urls,
            [Some("https://site.example/blog/posts/1".to_string()), None],
            "a link no browser opens is dropped, the item kept"
        );
        let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom" xml:base="/news/"><title>T</title>
            <entry><title>A</title><id>tag:a</id><link href="a.html"/></entry></feed>"#;
        let feed = parse(
            atom.as_bytes(),
            None,
            "https://atom.example/feed/atom.xml",
            now(),
        )
        .unwrap();
        assert_eq!(
            feed.entries[0].item.url.as_deref(),
            Some("https://atom.example/news/a.html")
        );
    }

    #[test]
    fn json_feeds_missing_required_fields_are_completed() {
        let json = r#"{"items":[{"id":7,"url":"https://j.example/7","title":"Seven",
            "attachments":[{"url":"https://j.example/7.mp3"},{"title":"no url"}]}]}"#;
        let feed = parse(json.as_bytes(), None, "https://j.example/feed.json", now()).unwrap();
        assert_eq!(feed.title, None);
        assert_eq!(feed.entries[0].guid, "7");
        assert_eq!(feed.entries[0].item.title, "Seven");
    }

    #[test]
    fn entries_without_ids_get_stable_guids_and_bare_links_a_title() {
        let rss = r#"<rss version="2.0"><channel>
            <item><link>https://www.xn--r8jz45g.example/story/</link></item>
            <item><title>No link, no id</title></item></channel></rss>"#;
        let one = parse(rss.as_bytes(), None, "https://f.example/", now()).unwrap();
        let two = parse(rss.as_bytes(), None, "https://f.example/", now()).unwrap();
        assert_eq!(one.entries[0].guid, two.entries[0].guid);
        assert_eq!(one.entries[1].guid, two.entries[1].guid);
        assert_ne!(one.entries[0].guid, one.entries[1].guid);
        assert_eq!(one.entries[0].item.title, "www.例え.example/story");
        assert_eq!(one.entries[1].item.summary, "No link, no id");
    }

    #[test]
    fn rss_1_items_with_only_a_title_are_kept() {
        let rdf = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
            <channel rdf:about="https://r.example/"><title>R</title><link>https://r.example/</link></channel>
            <item rdf:about="https://r.example/1"><title>Only a title</title></item>
            <item rdf:about="https://r.example/2"><title>Linked</title><link>https://r.example/2</link></item></rdf:RDF>"#;
        let feed = parse(rdf.as_bytes(), None, "https://r.example/rss", now()).unwrap();
        let titles: Vec<_> = feed.entries.iter().map(|e| e.item.title.as_str()).collect();
        assert_eq!(titles, ["Only a title", "Linked"]);
        assert_eq!(
            feed.entries[0].item.url.as_deref(),
            Some("https://r.example/1")
        );
    }
}

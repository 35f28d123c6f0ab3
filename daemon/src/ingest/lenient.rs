//! A forgiving reader for the XML feeds feed-rs refuses, so Radar accepts what feed
//! readers accept: `<rss>` without a version, RSS 0.90 to 0.94, Atom 0.3, Microsoft's CDF,
//! elements with content types feed-rs does not know, and documents that break off or
//! close their tags wrongly (what was read before the break is kept).
//!
//! It reads elements by their local name whatever their namespace (`dc:date`,
//! `content:encoded`, Atom 0.3's `issued` all count), takes the channel's title and link
//! and, per item or entry, the fields an item needs. Markup inside a field is kept as
//! markup (the cleaning step turns it into text); character references and the five XML
//! entities are resolved, other named entities are left for the cleaning step's HTML
//! decoder. Used only where feed-rs falls short: as a fallback for documents it refuses,
//! and to fill in fields its entries lack (`dc:title`, `xhtml:body`, `fullitem`).

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, Event};

use super::parse::{FeedKind, RawEntry, RawFeed, RawLink};

/// Root elements of the feed formats read here.
const ROOTS: &[&str] = &["rss", "rdf", "feed", "channel"];

/// Elements that hold one item.
const ITEMS: &[&str] = &["item", "entry"];

/// Reads `text` as a feed; `None` when its root element is not a feed's.
pub fn parse(text: &str) -> Option<RawFeed> {
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.check_comments = false;
    let mut reading = Reading::default();
    // A syntax error ends the document: what was read before it is kept.
    while let Ok(event) = reader.read_event() {
        match event {
            Event::Start(e) => reading.open_element(&e)?,
            Event::Empty(e) => reading.empty_element(&e),
            Event::Text(t) => reading.text(&t.xml10_content()),
            Event::CData(c) => reading.text(&c.xml10_content()),
            Event::GeneralRef(r) => reading.reference(&r),
            Event::End(e) => reading.close_element(&e.local_name().as_ref().to_lowercase()),
            Event::Eof => break,
            _ => {}
        }
    }
    reading.finish()
}

/// Where a reading is: the feed once its root element was seen, the open elements, and
/// the item and the field being read.
#[derive(Default)]
struct Reading {
    feed: Option<RawFeed>,
    /// Lower-cased local names of the open elements.
    open: Vec<String>,
    /// The item being read, and the depth of its element.
    item: Option<(RawEntry, usize)>,
    field: Option<Field>,
}

impl Reading {
    /// A start tag: markup inside a field, a field or item of the feed, or the feed's
    /// root. `None` when the document's root is not a feed's.
    fn open_element(&mut self, e: &BytesStart<'_>) -> Option<()> {
        let name = local_name(e);
        if let Some(f) = self.field.as_mut() {
            f.text.push_str(&format!("<{name}>"));
        } else if let Some(feed) = self.feed.as_mut() {
            self.field = start(&name, e, &self.open, feed, &mut self.item);
        } else if ROOTS.contains(&name.as_str()) {
            let kind = if name == "feed" {
                FeedKind::Atom
            } else {
                FeedKind::Rss
            };
            let mut root = RawFeed::new(kind);
            // CDF: <CHANNEL HREF="...">.
            root.link = attr(e, "href");
            self.feed = Some(root);
        } else {
            return None;
        }
        self.open.push(name);
        Some(())
    }

    /// An empty element holds no text, but may carry a link.
    fn empty_element(&mut self, e: &BytesStart<'_>) {
        let name = local_name(e);
        if let Some(f) = self.field.as_mut() {
            f.text.push_str(&format!("<{name}/>"));
        } else if let Some(feed) = self.feed.as_mut() {
            let _ = start(&name, e, &self.open, feed, &mut self.item);
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(f) = self.field.as_mut() {
            f.text.push_str(text);
        }
    }

    /// A character reference or one of the five XML entities, resolved; another named
    /// entity is kept for the cleaning step's HTML decoder.
    fn reference(&mut self, r: &BytesRef<'_>) {
        let Some(f) = self.field.as_mut() else {
            return;
        };
        match r.resolve_char_ref() {
            Ok(Some(c)) => f.text.push(c),
            _ => match &**r {
                "lt" => f.text.push('<'),
                "gt" => f.text.push('>'),
                "amp" => f.text.push('&'),
                "quot" => f.text.push('"'),
                "apos" => f.text.push('\''),
                other => f.text.push_str(&format!("&{other};")),
            },
        }
    }

    /// An end tag. One nothing opened is ignored; one that closes outer elements closes
    /// the ones left open inside them too.
    fn close_element(&mut self, name: &str) {
        let Some(at) = self.open.iter().rposition(|n| n == name) else {
            return;
        };
        if let Some(f) = self.field.as_mut()
            && at > f.depth
        {
            f.text.push_str(&format!("</{name}>"));
            self.open.truncate(at);
            return;
        }
        if let (Some(f), Some(feed)) = (self.field.take(), self.feed.as_mut()) {
            f.finish(feed, &mut self.item);
        }
        if self.item.as_ref().is_some_and(|(_, depth)| at <= *depth)
            && let (Some((entry, _)), Some(feed)) = (self.item.take(), self.feed.as_mut())
        {
            feed.entries.push(entry);
        }
        self.open.truncate(at);
    }

    /// The feed read; a document cut off inside an item keeps that item.
    fn finish(mut self) -> Option<RawFeed> {
        let mut feed = self.feed?;
        if let Some(f) = self.field.take() {
            f.finish(&mut feed, &mut self.item);
        }
        if let Some((entry, _)) = self.item {
            feed.entries.push(entry);
        }
        Some(feed)
    }
}

/// What a field element's text becomes.
#[derive(Debug, Clone, Copy)]
enum Target {
    Title,
    Link,
    Id,
    Summary,
    Content,
    Published,
    Updated,
    FeedTitle,
    FeedLink,
}

/// A field element being read: its text so far and its depth.
struct Field {
    target: Target,
    depth: usize,
    text: String,
    /// Atom 0.3's `mode="base64"`: the text is base64 of the content.
    base64: bool,
}

impl Field {
    #[allow(
        clippy::unnecessary_wraps,
        reason = "every arm of the callers' matches is an Option"
    )]
    fn new(target: Target, depth: usize) -> Option<Field> {
        Some(Field {
            target,
            depth,
            text: String::new(),
            base64: false,
        })
    }

    /// Stores the text where it belongs; the first of each field wins.
    fn finish(self, feed: &mut RawFeed, item: &mut Option<(RawEntry, usize)>) {
        use base64::Engine as _;
        let mut text = self.text.trim().to_string();
        if self.base64 {
            let packed: String = text.split_whitespace().collect();
            if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(packed) {
                text = String::from_utf8_lossy(&bytes).trim().to_string();
            }
        }
        if text.is_empty() {
            return;
        }
        let entry = item.as_mut().map(|(e, _)| e);
        match (self.target, entry) {
            (Target::FeedTitle, _) => {
                feed.title.get_or_insert(text);
            }
            (Target::FeedLink, _) => {
                feed.link.get_or_insert(text);
            }
            (Target::Title, Some(e)) => {
                e.title.get_or_insert(text);
            }
            (Target::Link, Some(e)) => e.links.push(RawLink {
                href: text,
                rel: None,
            }),
            (Target::Id, Some(e)) => {
                e.id.get_or_insert(text);
            }
            (Target::Summary, Some(e)) => {
                e.summary.get_or_insert(text);
            }
            (Target::Content, Some(e)) => {
                e.content.get_or_insert(text);
            }
            (Target::Published, Some(e)) => e.published = e.published.or(date(&text)),
            (Target::Updated, Some(e)) => e.updated = e.updated.or(date(&text)),
            (_, None) => {}
        }
    }
}

/// An element opens under `open`: begins an item, or a field of the item or the channel
/// (answered, to collect its text), or records a link carried in attributes.
fn start(
    name: &str,
    e: &BytesStart<'_>,
    open: &[String],
    feed: &mut RawFeed,
    item: &mut Option<(RawEntry, usize)>,
) -> Option<Field> {
    let depth = open.len();
    if item.is_none() && ITEMS.contains(&name) {
        let mut entry = RawEntry {
            // RSS 1.0's rdf:about names the item.
            id: attr(e, "about"),
            ..Default::default()
        };
        // CDF: <ITEM HREF="...">.
        if let Some(href) = attr(e, "href") {
            entry.links.push(RawLink { href, rel: None });
        }
        *item = Some((entry, depth));
        return None;
    }
    if let Some((entry, item_depth)) = item {
        if depth != *item_depth + 1 {
            return None;
        }
        let base64 = attr(e, "mode").is_some_and(|m| m.eq_ignore_ascii_case("base64"));
        let field = match name {
            "title" => Field::new(Target::Title, depth),
            "link" => match attr(e, "href") {
                Some(href) => {
                    entry.links.push(RawLink {
                        href,
                        rel: attr(e, "rel"),
                    });
                    None
                }
                None => Field::new(Target::Link, depth),
            },
            "guid" | "id" => Field::new(Target::Id, depth),
            "description" | "summary" | "abstract" => Field::new(Target::Summary, depth),
            "content" | "encoded" | "body" | "fullitem" => Field::new(Target::Content, depth),
            "pubdate" | "published" | "issued" | "date" | "created" => {
                Field::new(Target::Published, depth)
            }
            "updated" | "modified" => Field::new(Target::Updated, depth),
            "enclosure" => {
                if let Some(href) = attr(e, "url") {
                    entry.links.push(RawLink {
                        href,
                        rel: Some("enclosure".into()),
                    });
                }
                None
            }
            _ => None,
        };
        return field.map(|f| Field { base64, ..f });
    }
    let in_channel = matches!(open.last().map(String::as_str), Some("channel" | "feed"));
    match name {
        "title" if in_channel && feed.title.is_none() => Field::new(Target::FeedTitle, depth),
        "link" if in_channel => match attr(e, "href") {
            Some(href) => {
                if attr(e, "rel").is_none_or(|r| r == "alternate") {
                    feed.link.get_or_insert(href);
                }
                None
            }
            None if feed.link.is_none() => Field::new(Target::FeedLink, depth),
            None => None,
        },
        _ => None,
    }
}

/// An element's local name, lower-cased (CDF writes them in capitals).
fn local_name(e: &BytesStart<'_>) -> String {
    e.local_name().as_ref().to_lowercase()
}

/// The value of the attribute with this local name (any prefix, any case).
fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        a.key
            .local_name()
            .as_ref()
            .eq_ignore_ascii_case(name)
            .then(|| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .map_or_else(|_| a.value.to_string(), std::borrow::Cow::into_owned)
            })
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    })
}

/// A date as feeds write them: RFC 822/2822 (RSS), RFC 3339 and the shorter W3C forms
/// (Atom, Dublin Core), a bare day. `None` when it is none of these.
pub fn date(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc2822(s) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    let zoned = s
        .strip_suffix(['Z', 'z'])
        .map_or_else(|| s.to_string(), |rest| format!("{rest}+00:00"));
    for format in ["%Y-%m-%dT%H:%M:%S%.f%:z", "%Y-%m-%dT%H:%M%:z"] {
        if let Ok(t) = DateTime::parse_from_str(&zoned, format) {
            return Some(t.with_timezone(&Utc));
        }
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, format) {
            return Some(t.and_utc());
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versionless_rss_and_its_fields_are_read() {
        let doc = r#"<rss><channel><title>Pod &amp; Co</title><link>https://pod.example/</link>
            <item><title>Episode 1</title><description>&lt;p&gt;Talk &amp;amp; more&lt;/p&gt;</description>
            <pubDate>Tue, 17 Nov 2026 09:00:00 GMT</pubDate><guid>ep-1</guid>
            <enclosure url="https://pod.example/1.mp3" length="1"/></item>
            <item><title>Episode 2</title><link>/two</link></item></channel></rss>"#;
        let feed = parse(doc).unwrap();
        assert_eq!(feed.kind, FeedKind::Rss);
        assert_eq!(feed.title.as_deref(), Some("Pod & Co"));
        assert_eq!(feed.link.as_deref(), Some("https://pod.example/"));
        assert_eq!(feed.entries.len(), 2);
        let one = &feed.entries[0];
        assert_eq!(one.title.as_deref(), Some("Episode 1"));
        assert_eq!(one.summary.as_deref(), Some("<p>Talk &amp; more</p>"));
        assert_eq!(one.id.as_deref(), Some("ep-1"));
        assert_eq!(one.links[0].href, "https://pod.example/1.mp3");
        assert_eq!(one.links[0].rel.as_deref(), Some("enclosure"));
        assert_eq!(
            one.published.unwrap().to_rfc3339(),
            "2026-11-17T09:00:00+00:00"
        );
        assert_eq!(feed.entries[1].links[0].href, "/two");
    }

    #[test]
    fn atom_03_cdf_and_rss_090_are_read() {
        let atom03 = r#"<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Old</title>
            <entry><title mode="base64">PGI+QmFzZTwvYj4gNjQ=</title><link rel="alternate" href="http://a.example/1"/>
            <issued>2003-12-13T08:29:29-04:00</issued>
            <content type="application/xhtml+xml" mode="xml"><div><p>Hi <b>there</b></p></div></content></entry></feed>"#;
        let feed = parse(atom03).unwrap();
        assert_eq!(feed.kind, FeedKind::Atom);
        let e = &feed.entries[0];
        assert_eq!(e.title.as_deref(), Some("<b>Base</b> 64"));
        assert_eq!(
            e.content.as_deref(),
            Some("<div><p>Hi <b>there</b></p></div>")
        );
        assert_eq!(
            e.published.unwrap().to_rfc3339(),
            "2003-12-13T12:29:29+00:00"
        );
        let cdf = r#"<CHANNEL HREF="http://cdf.example/"><TITLE>C</TITLE>
            <ITEM HREF="http://cdf.example/i"><TITLE>Item</TITLE><ABSTRACT>Text</ABSTRACT></ITEM></CHANNEL>"#;
        let feed = parse(cdf).unwrap();
        assert_eq!(feed.link.as_deref(), Some("http://cdf.example/"));
        assert_eq!(feed.entries[0].links[0].href, "http://cdf.example/i");
        assert_eq!(feed.entries[0].summary.as_deref(), Some("Text"));
        let rss090 = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/">
            <channel><title>N</title><link>http://n.example/</link></channel>
            <item><title>One</title><link>http://n.example/1</link></item></rdf:RDF>"#;
        let feed = parse(rss090).unwrap();
        assert_eq!(feed.title.as_deref(), Some("N"));
        assert_eq!(feed.entries[0].title.as_deref(), Some("One"));
    }

    #[test]
    fn broken_documents_keep_what_came_before_the_break() {
        let cut = "<rss version=\"2.0\"><channel><item><title>Kept</title></item><item><title>Also <b>kept</title></item><item><title>Cut";
        let feed = parse(cut).unwrap();
        let titles: Vec<_> = feed
            .entries
            .iter()
            .map(|e| e.title.clone().unwrap_or_default())
            .collect();
        assert_eq!(titles[0], "Kept");
        assert!(titles[1].starts_with("Also"), "{titles:?}");
        assert!(parse("<html><body>a page</body></html>").is_none());
        assert!(parse("not xml at all").is_none());
    }

    #[test]
    fn dates_in_the_forms_feeds_use() {
        for (s, want) in [
            ("Tue, 17 Nov 2026 09:00:00 GMT", "2026-11-17T09:00:00+00:00"),
            ("2026-11-17T09:00:00Z", "2026-11-17T09:00:00+00:00"),
            ("2026-11-17T09:00Z", "2026-11-17T09:00:00+00:00"),
            (
                "2026-11-17T09:00:00.5+01:00",
                "2026-11-17T08:00:00.500+00:00",
            ),
            ("2026-11-17", "2026-11-17T00:00:00+00:00"),
        ] {
            assert_eq!(
                date(s).map(|d| d.to_rfc3339()).as_deref(),
                Some(want),
                "{s}"
            );
        }
        assert_eq!(date("yesterday"), None);
    }
}

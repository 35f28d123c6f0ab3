//! OPML, the feed readers' exchange format: import reads every `<outline>` with an
//! `xmlUrl` (at any depth; categories are flattened), export writes OPML 2.0.

use radar_store::Feed;

use super::clean::decode_entities;

/// A feed named in an OPML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpmlFeed {
    /// The feed URL (`xmlUrl`).
    pub url: String,
    /// Its title (`title`, else `text`), if any.
    pub name: Option<String>,
}

/// The feeds of an OPML document; a document without `<opml` is an error.
pub fn parse(doc: &str) -> Result<Vec<OpmlFeed>, String> {
    if !doc.to_ascii_lowercase().contains("<opml") {
        return Err("not an OPML document (no <opml> element)".into());
    }
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(at) = find_ci(rest, "<outline") {
        let tag = &rest[at + "<outline".len()..];
        let end = tag_end(tag).ok_or("an <outline> element is not closed")?;
        let attrs = attributes(&tag[..end]);
        let get = |name: &str| {
            attrs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        if let Some(url) = get("xmlUrl") {
            out.push(OpmlFeed {
                url,
                name: get("title").or_else(|| get("text")),
            });
        }
        rest = &tag[end..];
    }
    Ok(out)
}

/// An OPML 2.0 document listing `feeds`.
pub fn export(feeds: &[Feed]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head>\n    <title>Radar feeds</title>\n  </head>\n  <body>\n",
    );
    for f in feeds {
        let name = escape(f.name.as_deref().unwrap_or(&f.url));
        s.push_str(&format!(
            "    <outline type=\"rss\" text=\"{name}\" title=\"{name}\" xmlUrl=\"{}\"/>\n",
            escape(&f.url)
        ));
    }
    s.push_str("  </body>\n</opml>\n");
    s
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    hay.to_ascii_lowercase().find(needle)
}

/// Index of the '>' ending a tag, outside quoted values.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// `name="value"` pairs of a tag's inside, values entity-decoded.
fn attributes(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq]
            .split_whitespace()
            .last()
            .unwrap_or("")
            .to_string();
        let after = rest[eq + 1..].trim_start();
        let Some(q) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let Some(close) = after[1..].find(q) else {
            break;
        };
        out.push((name, decode_entities(&after[1..=close])));
        rest = &after[close + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(url: &str, name: Option<&str>) -> Feed {
        Feed {
            id: "x".into(),
            url: url.into(),
            name: name.map(Into::into),
            added_at: chrono::Utc::now(),
            etag: None,
            last_modified: None,
            last_fetched_at: None,
            last_error: None,
            failures: 0,
            next_due: None,
            next_due_reason: None,
            items_added: 0,
        }
    }

    #[test]
    fn export_then_import_round_trips() {
        let feeds = [
            feed("https://a.example/rss?x=1&y=2", Some("A & \"B\"")),
            feed("https://b.example/atom", None),
        ];
        let back = parse(&export(&feeds)).unwrap();
        assert_eq!(
            back,
            [
                OpmlFeed {
                    url: "https://a.example/rss?x=1&y=2".into(),
                    name: Some("A & \"B\"".into())
                },
                OpmlFeed {
                    url: "https://b.example/atom".into(),
                    name: Some("https://b.example/atom".into())
                },
            ]
        );
    }

    #[test]
    fn reads_nested_outlines_from_other_readers() {
        let doc = r#"<?xml version="1.0"?><opml version="1.0"><body>
            <outline text="AI"><outline text="Lab blog" xmlurl='https://lab.example/feed' htmlUrl="https://lab.example"/>
            <OUTLINE title="Other" xmlUrl="https://o.example/rss"></OUTLINE></outline>
            <outline text="no url"/></body></opml>"#;
        let feeds = parse(doc).unwrap();
        assert_eq!(feeds.len(), 2);
        assert_eq!(
            feeds[0],
            OpmlFeed {
                url: "https://lab.example/feed".into(),
                name: Some("Lab blog".into())
            }
        );
        assert_eq!(feeds[1].name.as_deref(), Some("Other"));
        assert!(parse("<html></html>").is_err());
    }
}

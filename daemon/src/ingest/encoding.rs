//! A feed's bytes to UTF-8 text, the way readers do it: feeds still come in legacy
//! encodings, declared (an HTTP charset, an XML declaration) or not at all.
//!
//! The order is a byte-order mark, then the HTTP charset, then the XML declaration, then
//! the bytes themselves: valid UTF-8 is UTF-8, anything else is left to `chardetng`,
//! Firefox's detector for unlabelled legacy web content. One exception: a declared
//! single-byte encoding over bytes that are valid UTF-8 with non-ASCII in them is taken
//! as UTF-8, because a wrong label (a server default of ISO-8859-1) is far likelier than
//! legacy text that happens to be valid UTF-8. Decoding goes through `encoding_rs`,
//! which follows the WHATWG labels: "iso-8859-1" reads as windows-1252, so the curly
//! quotes cp1252 puts at 0x91-0x94 come out as real quotes.
//!
//! The text handed on has no XML declaration left, so no parser decodes it a second time.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// The document as UTF-8 text, decoded as described in the module docs. Undecodable
/// bytes become U+FFFD; this never fails.
pub fn to_utf8(body: &[u8], content_type: Option<&str>) -> String {
    let encoding = detect(body, content_type);
    let (text, _, _) = encoding.decode(body);
    strip_xml_declaration(&text).to_string()
}

/// The encoding `body` is in (see the module docs).
pub fn detect(body: &[u8], content_type: Option<&str>) -> &'static Encoding {
    if let Some((bom, _)) = Encoding::for_bom(body) {
        return bom;
    }
    // UTF-16 without a mark still starts with '<' and a zero byte around it.
    match body {
        [b'<', 0, b'?' | b'r' | b'f' | b'R', 0, ..] => return UTF_16LE,
        [0, b'<', 0, b'?' | b'r' | b'f' | b'R', ..] => return UTF_16BE,
        _ => {}
    }
    let declared = content_type
        .and_then(http_charset)
        .or_else(|| xml_declared(body))
        .and_then(|label| Encoding::for_label(label.trim().as_bytes()))
        // A UTF-16 label on bytes without zero bytes is a copied declaration, not UTF-16.
        .filter(|e| !(*e == UTF_16LE || *e == UTF_16BE) || body.contains(&0));
    let utf8 = std::str::from_utf8(body).is_ok();
    match declared {
        Some(e) if e.is_single_byte() && utf8 && !body.is_ascii() => UTF_8,
        Some(e) => e,
        None if utf8 => UTF_8,
        None => {
            let mut detector =
                chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
            detector.feed(body, true);
            detector.guess(None, chardetng::Utf8Detection::Allow)
        }
    }
}

/// The `charset` parameter of a Content-Type header value.
fn http_charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']))
            .filter(|v| !v.is_empty())
    })
}

/// The `encoding` of an XML declaration at the start of the document (read as ASCII).
fn xml_declared(body: &[u8]) -> Option<&str> {
    let head = &body[..body.len().min(512)];
    let start = head.windows(5).position(|w| w == b"<?xml")?;
    let end = start + head[start..].windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[start..end]).ok()?;
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    Some(&value[..value.find(quote)?])
}

/// `text` without a leading XML declaration (and anything before it, such as white space).
fn strip_xml_declaration(text: &str) -> &str {
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    match trimmed.strip_prefix("<?xml") {
        Some(rest) if rest.starts_with(|c: char| c.is_whitespace() || c == '?') => {
            rest.find("?>").map_or(trimmed, |end| &rest[end + 2..])
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_http_then_the_declaration() {
        assert_eq!(
            http_charset("text/xml; charset=\"Windows-1252\""),
            Some("Windows-1252")
        );
        assert_eq!(http_charset("application/rss+xml"), None);
        assert_eq!(
            xml_declared(b"<?xml version='1.0' encoding='koi8-r'?><rss/>"),
            Some("koi8-r")
        );
        assert_eq!(xml_declared(b"<?xml version=\"1.0\"?><rss/>"), None);
    }

    #[test]
    fn cp1252_quotes_become_real_quotes_declared_or_not() {
        let doc = b"<?xml version=\"1.0\" encoding=\"iso-8859-1\"?><rss><title>\x93Hi\x94 caf\xe9</title></rss>";
        let text = to_utf8(doc, None);
        assert_eq!(
            text,
            "<rss><title>\u{201c}Hi\u{201d} caf\u{e9}</title></rss>"
        );
        let undeclared = b"<rss><title>\x93Hi\x94 it\x92s a caf\xe9, na\xefve</title></rss>";
        assert!(to_utf8(undeclared, None).contains("\u{201c}Hi\u{201d} it\u{2019}s a caf\u{e9}"));
        let by_http = b"<rss><title>\x93Hi\x94</title></rss>";
        assert!(to_utf8(by_http, Some("text/xml; charset=windows-1252")).contains("\u{201c}Hi"));
    }

    #[test]
    fn utf8_wins_over_a_wrong_single_byte_label_and_utf16_is_found() {
        let doc = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><title>café</title></rss>";
        assert_eq!(
            to_utf8(doc.as_bytes(), None),
            "<rss><title>café</title></rss>"
        );
        let utf16: Vec<u8> = "<?xml version=\"1.0\" encoding=\"utf-16\"?><rss>é</rss>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(to_utf8(&utf16, None), "<rss>é</rss>");
        assert_eq!(
            detect(
                "<?xml version='1.0' encoding='utf-16'?><rss/>".as_bytes(),
                None
            ),
            UTF_8,
            "a UTF-16 label on 8-bit bytes is ignored"
        );
    }

    #[test]
    fn undeclared_cyrillic_is_detected() {
        let (koi8, _, _) = encoding_rs::KOI8_R
            .encode("<rss><item><title>Новости искусственного интеллекта</title><description>Компания представила новую модель, которая отвечает быстрее и точнее.</description></item></rss>");
        let text = to_utf8(&koi8, None);
        assert!(text.contains("Новости искусственного интеллекта"), "{text}");
    }
}

//! Display helpers shared by every client (docs/product.md §3): citation markers and source names.

/// Removes bracketed numeric citation markers such as `[1]` or `[12]`, and the space
/// before a marker, so "grew 40% [3]." reads "grew 40%.".
pub fn strip_citations(text: &str) -> String {
    // Most texts cite nothing: one vectorised search for `[` then copies them whole
    // (a character-by-character copy was 3% of an import's CPU).
    if !text.contains('[') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            let digits = bytes[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 0 && bytes.get(i + 1 + digits) == Some(&b']') {
                while out.ends_with(' ') {
                    out.pop();
                }
                i += digits + 2;
                continue;
            }
        }
        // Advance by whole chars so multi-byte text is copied intact.
        let ch = text[i..]
            .chars()
            .next()
            .expect("index is on a char boundary");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A host name as people read it: internationalised labels (`xn--...`, as URLs carry
/// them) decoded to Unicode. A label that does not decode stays as it is.
pub fn unicode_host(host: &str) -> String {
    let (unicode, result) = idna::domain_to_unicode(host);
    if result.is_ok() {
        unicode
    } else {
        host.to_string()
    }
}

/// The source name of a URL: the publication's name when the table of well-known
/// publications knows its host (`https://www.theverge.com/x` gives `The Verge`), else its
/// second-level domain, capitalised (docs/product.md §3's rule).
///
/// `https://www.example-news.com/x` gives `Example-news`; `https://news.bbc.co.uk` gives
/// `BBC` from the table, and `https://news.example.co.uk` gives `Example` (a two-letter
/// second level under a country code counts as part of the suffix).
/// Internationalised domains read in Unicode: `https://xn--r8jz45g.example/` gives
/// `例え` rather than `Xn--r8jz45g`. No URL, an unparsable one or one without a host
/// gives `None`.
pub fn source_name(url: Option<&str>) -> Option<String> {
    let host = unicode_host(&url::Url::parse(url?).ok()?.host_str()?.to_ascii_lowercase());
    if host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[') {
        return Some(host);
    }
    if let Some(name) = crate::publications::known(&host) {
        return Some(name.to_string());
    }
    host_rule(&host)
}

/// docs/product.md §3's name of a host (lower case, Unicode): its second-level domain,
/// capitalised.
pub(crate) fn host_rule(host: &str) -> Option<String> {
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    let sld = match labels.as_slice() {
        [] => return None,
        [only] => *only,
        [.., second, tld] if tld.len() == 2 && second.len() <= 3 && labels.len() >= 3 => {
            labels[labels.len() - 3]
        }
        [.., second, _] => *second,
    };
    let mut chars = sld.chars();
    let first = chars.next()?;
    Some(first.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_numeric_markers_only() {
        assert_eq!(
            strip_citations("Revenue grew 40% [1]."),
            "Revenue grew 40%."
        );
        assert_eq!(strip_citations("A[12][3] b"), "A b");
        assert_eq!(
            strip_citations("keep [a] and [] and [1"),
            "keep [a] and [] and [1"
        );
        assert_eq!(strip_citations("café [2] naïve"), "café naïve");
        assert_eq!(strip_citations(""), "");
    }

    #[test]
    fn source_names_from_hosts() {
        // Well-known publications by name, the rest by the host rule.
        assert_eq!(
            source_name(Some("https://www.theverge.com/x")).as_deref(),
            Some("The Verge")
        );
        assert_eq!(
            source_name(Some("https://openai.com/blog")).as_deref(),
            Some("OpenAI")
        );
        assert_eq!(
            source_name(Some("https://news.bbc.co.uk/a")).as_deref(),
            Some("BBC")
        );
        assert_eq!(
            source_name(Some("https://www.example-news.com/x")).as_deref(),
            Some("Example-news")
        );
        assert_eq!(
            source_name(Some("https://news.example.co.uk/a")).as_deref(),
            Some("Example")
        );
        assert_eq!(
            source_name(Some("http://localhost:8080/")).as_deref(),
            Some("Localhost")
        );
        assert_eq!(
            source_name(Some("https://www.xn--r8jz45g.xn--zckzah/")).as_deref(),
            Some("例え"),
            "punycode labels read in Unicode"
        );
        assert_eq!(
            source_name(Some("https://bücher.example/x")).as_deref(),
            Some("Bücher")
        );
        assert_eq!(unicode_host("xn--invalid-"), "xn--invalid-");
        assert_eq!(source_name(Some("not a url")), None);
        assert_eq!(source_name(Some("mailto:someone@example.com")), None);
        assert_eq!(source_name(None), None);
    }
}

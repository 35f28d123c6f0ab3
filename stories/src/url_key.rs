//! The first tier: two items at the same address are the same story. Outlets and feed
//! services decorate one address many ways (`http` or `https`, `www.`, a trailing slash,
//! campaign parameters, a fragment), so addresses are compared by a normalised key.

use url::Url;

/// Query parameters that only say how a reader arrived (campaign and click tracking).
/// Compared lower-case; `utm_*` and `mc_*` are matched by prefix.
const TRACKING: &[&str] = &[
    "fbclid",
    "gclid",
    "dclid",
    "msclkid",
    "yclid",
    "igshid",
    "ref",
    "ref_src",
    "ref_url",
    "referrer",
    "cmpid",
    "ncid",
    "ocid",
    "smid",
    "sr_share",
    "_hsenc",
    "_hsmi",
    "mkt_tok",
    "guccounter",
    "taid",
];

fn is_tracking(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("utm_") || name.starts_with("mc_") || TRACKING.contains(&name.as_str())
}

/// The key of an address: scheme-less, host lower-case without `www.` (or `m.`, `amp.`)
/// and default port, path without a trailing slash or a trailing `/amp`, tracking
/// parameters dropped and the rest sorted, no fragment. None for what is not an http(s)
/// address (an item without a link never matches by address).
pub fn url_key(address: &str) -> Option<String> {
    let url = Url::parse(address.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?.to_ascii_lowercase();
    let host = ["www.", "m.", "amp."]
        .iter()
        .find_map(|p| host.strip_prefix(p))
        .filter(|rest| rest.contains('.'))
        .unwrap_or(&host)
        .to_string();
    let mut path = url.path().to_string();
    for suffix in ["/amp", "/amp/"] {
        if path.len() > suffix.len() && path.ends_with(suffix) {
            path.truncate(path.len() - suffix.len());
        }
    }
    while path.ends_with('/') {
        path.pop();
    }
    for index in ["/index.html", "/index.htm", "/index.php"] {
        if let Some(rest) = path.strip_suffix(index) {
            path = rest.to_string();
        }
    }
    let mut query: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !is_tracking(k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    query.sort();
    let mut key = host;
    if let Some(port) = url.port() {
        key.push(':');
        key.push_str(&port.to_string());
    }
    key.push_str(&path);
    if !query.is_empty() {
        key.push('?');
        let pairs: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
        key.push_str(&pairs.join("&"));
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorations_of_one_address_share_a_key() {
        let plain = url_key("https://example.com/news/story").unwrap();
        for decorated in [
            "http://example.com/news/story",
            "https://www.example.com/news/story/",
            "https://EXAMPLE.com/news/story?utm_source=rss&utm_medium=feed",
            "https://example.com/news/story#comments",
            "https://example.com:443/news/story",
            "https://example.com/news/story?fbclid=abc&ref=hn",
            "https://example.com/news/story/amp",
            "https://m.example.com/news/story",
        ] {
            assert_eq!(
                url_key(decorated).as_deref(),
                Some(plain.as_str()),
                "{decorated}"
            );
        }
    }

    #[test]
    fn what_names_another_page_keeps_its_own_key() {
        let a = url_key("https://example.com/watch?v=1&utm_source=x").unwrap();
        let b = url_key("https://example.com/watch?v=2").unwrap();
        assert_ne!(a, b);
        assert_eq!(a, "example.com/watch?v=1");
        assert_eq!(
            url_key("https://example.com/a?b=2&a=1"),
            url_key("https://example.com/a?a=1&b=2")
        );
        assert_ne!(
            url_key("https://example.com/a"),
            url_key("https://example.org/a")
        );
        assert_ne!(
            url_key("https://example.com:8080/a"),
            url_key("https://example.com/a")
        );
        // A host that is only "www.com" keeps its www.
        assert_eq!(url_key("https://www.com/a").as_deref(), Some("www.com/a"));
        assert_eq!(url_key("mailto:someone@example.com"), None);
        assert_eq!(url_key("not a url"), None);
    }
}

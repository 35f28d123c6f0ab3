//! Dates and item text as the reader shows them (docs/product.md §3 and §4).

use chrono::{DateTime, Utc};
use radar_api::{NewsItem, Outlet};

use crate::strings;

/// "3 hours ago": under 2 minutes 'just now', then minutes below 60, hours below 24,
/// days below 7, weeks below 30 days, months after that (the web app's wording).
pub fn relative_time(then: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let secs = (now - then).num_seconds().max(0);
    let plural = |n: i64, unit: &str| format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" });
    const MIN: i64 = 60;
    const HOUR: i64 = 60 * MIN;
    const DAY: i64 = 24 * HOUR;
    match secs {
        s if s < 2 * MIN => "just now".into(),
        s if s < HOUR => plural(s / MIN, "minute"),
        s if s < DAY => plural(s / HOUR, "hour"),
        s if s < 7 * DAY => plural(s / DAY, "day"),
        s if s < 30 * DAY => plural(s / (7 * DAY), "week"),
        s => plural(s / (30 * DAY), "month"),
    }
}

/// "Nov 21, 2026".
pub fn date(at: DateTime<Utc>) -> String {
    at.format("%b %-d, %Y").to_string()
}

/// The item's source name (the server derives it), or 'Source'.
pub fn source(item: &NewsItem) -> String {
    item.source
        .clone()
        .unwrap_or_else(|| strings::SOURCE.to_string())
}

/// "5 sources" when the item's card stands for a story that other outlets reported too.
pub fn sources(item: &NewsItem) -> Option<String> {
    item.story.as_ref().map(|s| strings::sources(s.sources))
}

/// The other outlets of the item's story, in the order they joined it, each as
/// "Reuters — headline" ('Source' for one without a name); empty for an item alone.
pub fn outlets(item: &NewsItem) -> Vec<String> {
    let name = |o: &Outlet| o.source.clone().unwrap_or_else(|| strings::SOURCE.into());
    item.story
        .iter()
        .flat_map(|s| &s.outlets)
        .map(|o| strings::outlet(&name(o), &o.title))
        .collect()
}

/// The title (the server has removed citation markers).
pub fn title(item: &NewsItem) -> String {
    item.title.clone()
}

/// The summary.
pub fn summary(item: &NewsItem) -> String {
    item.summary.clone()
}

/// What a drop shows: the short text, or else the summary.
pub fn drop_text(item: &NewsItem) -> String {
    if item.short.trim().is_empty() {
        summary(item)
    } else {
        item.short.clone()
    }
}

/// The LinkedIn share link: URL, title and the first 100 characters of the summary
/// (docs/product.md §7 and §9).
pub fn share_link(item: &NewsItem) -> String {
    let snippet: String = item.summary.chars().take(100).collect();
    let mut link = url::Url::parse("https://www.linkedin.com/shareArticle").expect("constant URL");
    link.query_pairs_mut()
        .append_pair("mini", "true")
        .append_pair("url", item.url.as_deref().unwrap_or(""))
        .append_pair("title", &item.title)
        .append_pair("summary", &snippet);
    link.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};

    #[test]
    fn relative_time_thresholds() {
        let now = Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap();
        let ago = |s: i64| relative_time(now - Duration::seconds(s), now);
        assert_eq!(ago(0), "just now");
        assert_eq!(ago(119), "just now");
        assert_eq!(ago(120), "2 minutes ago");
        assert_eq!(ago(59 * 60), "59 minutes ago");
        assert_eq!(ago(3600), "1 hour ago");
        assert_eq!(ago(23 * 3600), "23 hours ago");
        assert_eq!(ago(24 * 3600), "1 day ago");
        assert_eq!(ago(6 * 86400), "6 days ago");
        assert_eq!(ago(7 * 86400), "1 week ago");
        assert_eq!(ago(29 * 86400), "4 weeks ago");
        assert_eq!(ago(30 * 86400), "1 month ago");
        assert_eq!(ago(95 * 86400), "3 months ago");
        // A date in the future (clock skew) reads as now, not as a negative age.
        assert_eq!(relative_time(now + Duration::hours(1), now), "just now");
    }

    #[test]
    fn dates_read_like_the_web_app() {
        assert_eq!(
            date(Utc.with_ymd_and_hms(2026, 11, 2, 8, 0, 0).unwrap()),
            "Nov 2, 2026"
        );
    }

    #[test]
    fn share_link_carries_url_title_and_snippet() {
        let item = NewsItem {
            story: None,
            id: "a".into(),
            title: "A & B".into(),
            summary: "x".repeat(150),
            short: String::new(),
            content: String::new(),
            url: Some("https://example.com/a?b=1".into()),
            published_date: Utc::now(),
            source: Some("Example".into()),
        };
        let link = url::Url::parse(&share_link(&item)).unwrap();
        let pairs: std::collections::HashMap<_, _> = link.query_pairs().into_owned().collect();
        assert_eq!(pairs["url"], "https://example.com/a?b=1");
        assert_eq!(pairs["title"], "A & B");
        assert_eq!(pairs["summary"].len(), 100);
        assert_eq!(source(&item), "Example", "the server's name");
        assert_eq!(
            source(&NewsItem {
                source: None,
                ..item.clone()
            }),
            "Source"
        );
        assert_eq!(drop_text(&item), item.summary);
    }

    #[test]
    fn a_story_counts_its_sources_and_names_its_other_outlets() {
        let card = crate::testing::story_item(0, 5);
        assert_eq!(sources(&card).as_deref(), Some("5 sources"));
        assert_eq!(
            outlets(&card),
            [
                "Reuters — Report 0 of story 0",
                "TechCrunch — Report 1 of story 0",
                "The Verge — Report 2 of story 0",
                "Source — Report 3 of story 0",
            ]
        );
        let alone = crate::testing::item(0);
        assert_eq!(sources(&alone), None);
        assert!(outlets(&alone).is_empty());
    }
}

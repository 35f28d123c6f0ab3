//! Key takeaways (docs/product.md §2): three cards for an item, built from keywords in its
//! title and summary and ranked for the reader by their stored resume.
//!
//! docs/product.md §2 gives the six keyword themes and names the resume as the purpose of the
//! personalisation without saying how it is used. Radar uses it to order, never to invent:
//! - the item decides which themes apply (a theme whose keywords are in the title or
//!   summary); three cards are shown, matched themes first, then general fallbacks;
//! - among the matched themes, those the resume mentions most (their keywords and tag
//!   words, counted in the resume) come first, ties in that order;
//! - inside a card, tags the resume mentions come first;
//! - `personalized` says whether the resume changed anything, so clients can say so.
//!
//! This is the one copy of the keyword tables; the web app and the terminal reader draw
//! the answer of `GET /api/news/{id}/takeaways`.

use radar_api::{TakeawayCard, Takeaways};

use crate::{Error, NewsItem, Result, Store, User};

/// A theme: its card, and the keywords (single words or word pairs) that select it.
struct Theme {
    title: &'static str,
    tags: [&'static str; 2],
    description: &'static str,
    words: &'static [&'static str],
    pairs: &'static [(&'static str, &'static str)],
}

/// The themes of docs/product.md §2, in its order: ai, machine learning, generative, digital/technology,
/// product/development, business/enterprise.
const THEMES: [Theme; 6] = [
    Theme {
        title: "AI Adoption",
        tags: ["AI", "Strategy"],
        description: "Look at where this AI development could take repetitive work off your plate and sharpen decisions.",
        words: &["ai"],
        pairs: &[("artificial", "intelligence")],
    },
    Theme {
        title: "Machine Learning in Practice",
        tags: ["Machine Learning", "Data"],
        description: "Check which of your processes produce the data a learning system would need to help.",
        words: &["ml"],
        pairs: &[("machine", "learning")],
    },
    Theme {
        title: "Generative AI Opportunities",
        tags: ["Generative AI", "Content"],
        description: "Consider how generated drafts, code or images could speed up the work you deliver.",
        words: &["generative", "genai"],
        pairs: &[("gen", "ai")],
    },
    Theme {
        title: "Digital Transformation",
        tags: ["Technology", "Digital"],
        description: "Think about which tools your team relies on that this shift could change.",
        words: &["digital", "technology", "technologies", "technological"],
        pairs: &[],
    },
    Theme {
        title: "Product Development",
        tags: ["Product", "Development"],
        description: "Ask how this changes what users will expect from the products you build.",
        words: &[
            "product",
            "products",
            "develop",
            "development",
            "developer",
            "developers",
            "developing",
        ],
        pairs: &[],
    },
    Theme {
        title: "Business Impact",
        tags: ["Business", "Enterprise"],
        description: "Weigh the cost, risk and advantage this could bring to your organisation.",
        words: &["business", "businesses", "enterprise", "enterprises"],
        pairs: &[],
    },
];

/// Cards that fill the three places when fewer themes match.
const FALLBACKS: [(&str, [&str; 2], &str); 3] = [
    (
        "Stay Informed",
        ["Industry", "Trends"],
        "Keep this development in mind as context for conversations in your field.",
    ),
    (
        "Skill Growth",
        ["Learning", "Career"],
        "Note any skills this story suggests will matter more in the coming months.",
    ),
    (
        "Plan Ahead",
        ["Planning", "Strategy"],
        "Decide whether this deserves a follow-up with your team or can simply be watched.",
    ),
];

/// Every keyword of the themes, pairs as two words ("machine learning"): terms a
/// resume may share with the week's items (docs/product.md §16).
pub(crate) fn theme_keywords() -> impl Iterator<Item = String> {
    THEMES.iter().flat_map(|t| {
        t.words
            .iter()
            .map(|w| (*w).to_string())
            .chain(t.pairs.iter().map(|(a, b)| format!("{a} {b}")))
    })
}

/// How many cards an answer holds.
const CARDS: usize = 3;

/// Lower-case words of a text, split at anything that is not a letter or digit, with the
/// dotted abbreviation "A.I." read as the word "ai".
fn words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase().replace("a.i.", " ai ");
    lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// How often the theme's keywords occur in `w`.
fn hits(theme: &Theme, w: &[String]) -> usize {
    let single = w
        .iter()
        .filter(|word| theme.words.contains(&word.as_str()))
        .count();
    let pairs = w
        .windows(2)
        .filter(|p| theme.pairs.iter().any(|(a, b)| p[0] == *a && p[1] == *b))
        .count();
    single + pairs
}

/// Whether every word of `tag` is among the resume's words.
fn resume_names(tag: &str, resume: &[String]) -> bool {
    let tag = words(tag);
    !tag.is_empty() && tag.iter().all(|t| resume.contains(t))
}

/// How much the resume speaks of a theme: its keywords and its tags' words.
fn resume_score(theme: &Theme, resume: &[String]) -> usize {
    hits(theme, resume)
        + theme
            .tags
            .iter()
            .filter(|tag| resume_names(tag, resume))
            .count()
}

/// The card of a theme or fallback, its tags ordered by the resume.
fn card(title: &str, tags: [&str; 2], description: &str, resume: &[String]) -> TakeawayCard {
    let mut tags: Vec<&str> = tags.to_vec();
    tags.sort_by_key(|t| !resume_names(t, resume));
    TakeawayCard {
        title: title.to_string(),
        tags: tags.into_iter().map(str::to_string).collect(),
        description: description.to_string(),
    }
}

/// The takeaways of `item` for a reader whose resume is `resume` (may be empty).
pub(crate) fn takeaways(item: &NewsItem, resume: &str) -> Takeaways {
    let text = words(&format!("{} {}", item.title, item.summary));
    let resume = words(resume);
    let mut matched: Vec<(usize, usize, &Theme)> = THEMES
        .iter()
        .enumerate()
        .filter(|(_, t)| hits(t, &text) > 0)
        .map(|(order, t)| (resume_score(t, &resume), order, t))
        .collect();
    // Most mentioned in the resume first; the themes' order breaks ties.
    matched.sort_by_key(|(score, order, _)| (std::cmp::Reverse(*score), *order));
    let cards: Vec<TakeawayCard> = matched
        .iter()
        .map(|(_, _, t)| card(t.title, t.tags, t.description, &resume))
        .chain(
            FALLBACKS
                .iter()
                .map(|(title, tags, d)| card(title, *tags, d, &resume)),
        )
        .take(CARDS)
        .collect();
    let focus: Vec<String> = matched
        .iter()
        .take(CARDS)
        .map(|(_, _, t)| t.title.to_lowercase())
        .collect();
    let tags_named = cards
        .iter()
        .any(|c| c.tags.iter().any(|t| resume_names(t, &resume)));
    Takeaways {
        item_id: item.id.clone(),
        cards,
        summary: summary_line(&focus),
        personalized: tags_named || matched.iter().any(|(score, _, _)| *score > 0),
    }
}

/// "This story matters most for a, b and c."
fn summary_line(focus: &[String]) -> String {
    let list = match focus {
        [] => "general industry awareness".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    format!("This story matters most for {list}.")
}

impl Store {
    /// Key takeaways of an item for a subscriber, ranked by their stored resume; anyone
    /// else is refused (docs/product.md §6).
    pub async fn takeaways(&self, user: &User, item_id: &str) -> Result<Takeaways> {
        if !self.is_subscriber(user) {
            return Err(Error::Forbidden(
                "Key takeaways are for subscribers. Subscribe to unlock them.".into(),
            ));
        }
        let item = self.item(item_id).await?.ok_or(Error::NotFound("item"))?;
        let resume = self.profile(&user.id).await?.resume;
        Ok(takeaways(&item, &resume))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(title: &str, summary: &str) -> NewsItem {
        NewsItem {
            story: None,
            id: "i1".into(),
            title: title.into(),
            summary: summary.into(),
            short: String::new(),
            content: String::new(),
            url: None,
            published_date: chrono::Utc::now(),
            source: None,
        }
    }

    fn titles(t: &Takeaways) -> Vec<&str> {
        t.cards.iter().map(|c| c.title.as_str()).collect()
    }

    #[test]
    fn matched_themes_come_first_then_fallbacks() {
        let t = takeaways(&item("A.I. in the enterprise", "Businesses adopt it."), "");
        assert_eq!(
            titles(&t),
            ["AI Adoption", "Business Impact", "Stay Informed"]
        );
        assert_eq!(
            t.summary,
            "This story matters most for ai adoption and business impact."
        );
        assert!(!t.personalized);
    }

    #[test]
    fn keywords_match_whole_words_and_pairs_only() {
        // "said" holds "ai", "html" holds "ml", "productive" holds "product".
        let t = takeaways(&item("He said html is productive", "Nothing else."), "");
        assert_eq!(titles(&t), ["Stay Informed", "Skill Growth", "Plan Ahead"]);
        assert_eq!(
            t.summary,
            "This story matters most for general industry awareness."
        );
        let t = takeaways(&item("Machine-learning and gen AI", ""), "");
        assert_eq!(
            titles(&t)[..3],
            [
                "AI Adoption",
                "Machine Learning in Practice",
                "Generative AI Opportunities"
            ]
        );
    }

    #[test]
    fn the_resume_ranks_cards_and_tags() {
        let story = item(
            "AI for product teams in the enterprise",
            "Developers and businesses",
        );
        let plain = takeaways(&story, "");
        assert_eq!(
            titles(&plain),
            ["AI Adoption", "Product Development", "Business Impact"]
        );
        let resume = "Enterprise sales lead. Business development, enterprise accounts; strategy.";
        let mine = takeaways(&story, resume);
        assert_eq!(titles(&mine)[0], "Business Impact");
        assert!(mine.personalized);
        // "Strategy" is in the resume, so it leads the AI card's tags.
        let ai = mine
            .cards
            .iter()
            .find(|c| c.title == "AI Adoption")
            .unwrap();
        assert_eq!(ai.tags, ["Strategy", "AI"]);
        assert_eq!(mine.cards.len(), 3);
    }

    crate::testing::store_tests! {
        async fn only_subscribers_get_takeaways(store) {
            let item = crate::items::tests::new_item(
                "Generative AI reaches the enterprise",
                Some("https://t.example/1"),
                "2026-01-01T00:00:00Z",
            );
            let id = store.upsert_item(item).await.unwrap().id;
            let reader = crate::testing::user_with_id(&store, "reader").await;
            assert!(matches!(
                store.takeaways(&reader, &id).await,
                Err(Error::Forbidden(_))
            ));
            let subscriber = store.grant_subscription("reader", None).await.unwrap();
            assert_eq!(store.takeaways(&subscriber, &id).await.unwrap().cards.len(), 3);
            assert!(matches!(
                store.takeaways(&subscriber, "missing").await,
                Err(Error::NotFound(_))
            ));
        }
    }
}

//! Key takeaways (spec section 2): three cards built on the client from keywords in an
//! item's title and summary, the same themes and texts as the web app. The spec names the
//! stored resume as the purpose of the personalisation but not how it is used, so, as in
//! the web app, the cards come from the item alone.

use radar_api::NewsItem;

use crate::strings::{self, Card};

/// The takeaways of one item.
#[derive(Debug, Clone, PartialEq)]
pub struct Takeaways {
    /// The item's title.
    pub title: String,
    /// Three cards: matched themes first, then fallbacks.
    pub cards: Vec<Card>,
    /// "This story matters most for ...".
    pub summary: String,
}

/// Lower-case words of the text, split at anything that is not a letter or digit (so
/// "machine-learning" is two words, as a regex word boundary would see it).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `words` holds `a` directly followed by `b`.
fn pair(words: &[String], a: &str, b: &str) -> bool {
    words.windows(2).any(|w| w[0] == a && w[1] == b)
}

/// Whether each theme's keywords occur, in [`strings::TAKEAWAY_THEMES`] order.
fn themes(text: &str) -> [bool; 6] {
    let w = words(text);
    let has = |options: &[&str]| w.iter().any(|word| options.contains(&word.as_str()));
    let lower = text.to_lowercase();
    [
        has(&["ai"]) || lower.contains("a.i.") || pair(&w, "artificial", "intelligence"),
        pair(&w, "machine", "learning") || has(&["ml"]),
        has(&["generative", "genai"]) || pair(&w, "gen", "ai"),
        has(&["digital", "technology", "technologies", "technological"]),
        has(&[
            "product",
            "products",
            "develop",
            "development",
            "developer",
            "developers",
            "developing",
        ]),
        has(&["business", "businesses", "enterprise", "enterprises"]),
    ]
}

/// The takeaways of `item`.
pub fn takeaways(item: &NewsItem) -> Takeaways {
    let text = format!("{} {}", item.title, item.summary);
    let matched: Vec<Card> = themes(&text)
        .into_iter()
        .zip(strings::TAKEAWAY_THEMES)
        .filter_map(|(hit, card)| hit.then_some(card))
        .collect();
    let focus: Vec<String> = matched.iter().take(3).map(|c| c.0.to_lowercase()).collect();
    let cards = matched
        .iter()
        .chain(strings::TAKEAWAY_FALLBACKS.iter())
        .take(3)
        .copied()
        .collect();
    Takeaways {
        title: crate::format::title(item),
        cards,
        summary: strings::takeaway_summary(&focus),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::item;

    fn of(title: &str, summary: &str) -> Takeaways {
        takeaways(&NewsItem {
            title: title.into(),
            summary: summary.into(),
            ..item(1)
        })
    }

    #[test]
    fn themes_follow_the_keywords() {
        let t = of(
            "Generative AI reaches the enterprise",
            "Businesses adopt machine-learning tools.",
        );
        let titles: Vec<&str> = t.cards.iter().map(|c| c.0).collect();
        assert_eq!(
            titles,
            [
                "AI Adoption",
                "Machine Learning in Practice",
                "Generative AI Opportunities"
            ]
        );
        assert_eq!(
            t.summary,
            "This story matters most for ai adoption, machine learning in practice and generative ai opportunities."
        );
    }

    #[test]
    fn words_must_stand_alone() {
        // "OpenAI" and "said" hold the letters "ai" but not the word.
        let t = of("OpenAI said so", "Nothing else.");
        assert_eq!(
            t.cards.iter().map(|c| c.0).collect::<Vec<_>>(),
            ["Stay Informed", "Skill Growth", "Plan Ahead"]
        );
        assert_eq!(
            t.summary,
            "This story matters most for general industry awareness."
        );
        let one = of("New product", "");
        assert_eq!(one.cards[0].0, "Product Development");
        assert_eq!(one.cards[1].0, "Stay Informed");
        assert_eq!(
            one.summary,
            "This story matters most for product development."
        );
        assert_eq!(
            of("A.I. in Digital health", "").summary,
            "This story matters most for ai adoption and digital transformation."
        );
    }
}

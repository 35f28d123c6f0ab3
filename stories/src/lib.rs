//! Radar's stories: the items that report one event, from every outlet, grouped into one
//! story, decided as each item arrives.
//!
//! This crate is the algorithm alone, with no storage: [`Grouper::decide`] reads what it
//! needs through the [`Index`] trait and answers a [`Decision`] that the index writes in
//! one atomic [`Index::apply`]. [`MemoryIndex`] keeps the index in memory (tests, the
//! benchmark); a storage backend implements the same trait over its own tables, which is
//! why the crate depends on none (and why it is a crate of its own: the store and every
//! backend can use it without pulling in another backend).
//!
//! Tiers, in order (see [`grouper`]): the same item, the same address ([`url_key`]),
//! nearly the same text, the same event told differently. Text is compared as weighted
//! sets of word stems ([`features`]); candidates come from MinHash band buckets keyed by
//! day ([`minhash`]), so an arriving item reads a bounded number of buckets and members,
//! never every item. A story never flips: an item keeps the story it was given, and two
//! stories only ever merge, the older id surviving.
//!
//! MinHash is written here rather than taken from a crate: the crates for it either keep
//! their own in-memory index (gaoya), which a storage backend cannot take over, or bring
//! large research dependencies for one function (probminhash: argmin, rayon, env_logger).
//! The part that matters, the index's layout, has to be ours either way.
#![deny(missing_docs)]

pub mod features;
pub mod grouper;
pub mod index;
pub mod minhash;
pub mod url_key;

pub use grouper::{Article, Grouper, Params, Prepared};
pub use index::{
    BUCKET_CAP, Decision, Index, Member, MemoryIndex, StoryId, StoryInfo, StoryView, Tier,
};
pub use url_key::url_key;

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = 3600;
    /// 2026-11-20 09:00 UTC.
    const T0: i64 = 1_795_165_200;

    struct Item {
        id: &'static str,
        url: &'static str,
        title: &'static str,
        summary: &'static str,
        hours: i64,
    }

    fn put(g: &Grouper, index: &mut MemoryIndex, it: &Item, arrived: i64) -> Decision {
        let texts = [it.summary];
        let article = Article {
            id: it.id,
            url: Some(it.url),
            title: it.title,
            texts: &texts,
            content: "",
            published: T0 + it.hours * HOUR,
        };
        g.assign(index, &article, arrived).unwrap()
    }

    fn five_outlets() -> Vec<Item> {
        vec![
            Item {
                id: "reuters",
                url: "https://www.reuters.com/technology/amazon-anthropic-investment-2026-11-20/",
                title: "Amazon to invest additional $4 billion in AI startup Anthropic",
                summary: "Amazon will invest another $4 billion in Anthropic, doubling its total commitment to $8 billion, and Anthropic will train its models on Amazon's Trainium chips.",
                hours: 0,
            },
            Item {
                id: "techcrunch",
                url: "https://techcrunch.com/2026/11/20/anthropic-raises-4b-from-amazon/?utm_source=rss",
                title: "Anthropic raises another $4B from Amazon",
                summary: "Anthropic has raised an additional $4 billion from Amazon, bringing the retailer's total investment to $8 billion. AWS becomes Anthropic's primary training partner for Trainium.",
                hours: 1,
            },
            Item {
                id: "verge",
                url: "https://www.theverge.com/2026/11/20/amazon-anthropic-8-billion",
                title: "Amazon doubles down on Anthropic with $4 billion more",
                summary: "Amazon's total stake in the Claude maker reaches $8 billion after a new $4 billion investment; Anthropic commits to training on Trainium chips.",
                hours: 3,
            },
            Item {
                id: "cnbc",
                url: "https://www.cnbc.com/2026/11/20/amazon-anthropic-4-billion-investment.html",
                title: "Amazon invests $4 billion more in Anthropic, total reaches $8 billion",
                summary: "Amazon is investing a further $4 billion in Anthropic. Anthropic named AWS its primary cloud and training partner and will use Trainium chips.",
                hours: 5,
            },
            Item {
                id: "ft",
                url: "https://www.ft.com/content/amazon-anthropic-trainium",
                title: "Amazon deepens Anthropic ties with fresh $4bn investment",
                summary: "The $4bn injection brings Amazon's investment in Anthropic to $8bn, with the start-up agreeing to use Amazon's Trainium chips to train its models.",
                hours: 20,
            },
        ]
    }

    #[test]
    fn five_outlets_telling_one_event_become_one_story() {
        let g = Grouper::default();
        let mut index = MemoryIndex::new();
        let decisions: Vec<Decision> = five_outlets()
            .iter()
            .zip(0..)
            .map(|(it, i)| put(&g, &mut index, it, i))
            .collect();
        assert_eq!(decisions[0].tier, Tier::New);
        for d in &decisions {
            assert_eq!(d.story.as_str(), "reuters", "{d:?}");
        }
        assert_eq!(index.story_count(), 1);
        let info = index.story(&StoryId::founded_by("reuters")).unwrap();
        assert_eq!(info.members, 5);
    }

    #[test]
    fn an_unrelated_item_with_similar_words_does_not_join() {
        let g = Grouper::default();
        let mut index = MemoryIndex::new();
        for (i, it) in (0..).zip(&five_outlets()) {
            put(&g, &mut index, it, i);
        }
        let others = [
            Item {
                id: "bedrock",
                url: "https://www.aboutamazon.com/news/aws/claude-bedrock-agents",
                title: "Amazon brings Anthropic's Claude agents to Bedrock customers",
                summary: "AWS customers can now build agents with Anthropic's Claude models in Amazon Bedrock, with new tools for enterprise deployment.",
                hours: 6,
            },
            Item {
                id: "google",
                url: "https://www.bloomberg.com/news/google-anthropic-stake",
                title: "Google invests $2 billion in AI startup Anthropic",
                summary: "Google agreed to invest up to $2 billion in Anthropic, deepening a partnership with the Claude developer on its cloud.",
                hours: 8,
            },
        ];
        for (i, it) in (10..).zip(&others) {
            let d = put(&g, &mut index, it, i);
            assert_eq!(d.tier, Tier::New, "{} joined {}: {d:?}", it.id, d.story);
        }
        assert_eq!(index.story_count(), 3);
    }

    #[test]
    fn the_same_address_decorated_otherwise_joins_its_story() {
        let g = Grouper::default();
        let mut index = MemoryIndex::new();
        let first = &five_outlets()[1];
        put(&g, &mut index, first, 0);
        let again = Item {
            id: "techcrunch-via-aggregator",
            url: "http://techcrunch.com/2026/11/20/anthropic-raises-4b-from-amazon#comments",
            title: "Anthropic gets money",
            summary: "A short blurb.",
            hours: 30,
        };
        let d = put(&g, &mut index, &again, 1);
        assert_eq!((d.story.as_str(), d.tier), ("techcrunch", Tier::SameUrl));
    }

    #[test]
    fn an_item_that_arrives_again_keeps_its_story() {
        let g = Grouper::default();
        let mut index = MemoryIndex::new();
        let items = five_outlets();
        put(&g, &mut index, &items[0], 0);
        let d = put(&g, &mut index, &items[0], 1);
        assert_eq!((d.story.as_str(), d.tier), ("reuters", Tier::Known));
        assert_eq!(index.story(&d.story).unwrap().members, 1);
    }

    #[test]
    fn a_merge_keeps_the_older_story_id() {
        let g = Grouper::default();
        let mut index = MemoryIndex::new();
        // Two halves of one event that share too little to join on their own: one
        // names the deal, the other the chips.
        let a = Item {
            id: "deal",
            url: "https://a.example/deal",
            title: "Amazon invests $4 billion more in Anthropic",
            summary: "Amazon will invest another $4 billion in Anthropic, bringing its total to $8 billion.",
            hours: 0,
        };
        let b = Item {
            id: "chips",
            url: "https://b.example/chips",
            title: "Anthropic picks Trainium chips as AWS becomes primary training partner",
            summary: "Anthropic will train future Claude models on AWS Trainium chips, naming AWS its primary training partner.",
            hours: 2,
        };
        let da = put(&g, &mut index, &a, 0);
        let db = put(&g, &mut index, &b, 1);
        assert_eq!((da.tier, db.tier), (Tier::New, Tier::New), "{db:?}");
        // An item that tells both halves links the two stories.
        let both = Item {
            id: "both",
            url: "https://c.example/both",
            title: "Amazon invests $4 billion more in Anthropic, which picks Trainium chips",
            summary: "Amazon will invest another $4 billion in Anthropic, bringing its total to $8 billion; Anthropic will train future Claude models on AWS Trainium chips, naming AWS its primary training partner.",
            hours: 3,
        };
        let d = put(&g, &mut index, &both, 2);
        assert_eq!(d.story.as_str(), "deal", "the older story survives: {d:?}");
        assert_eq!(d.merged, vec![StoryId::founded_by("chips")]);
        // Every id handed out leads to the surviving story.
        assert_eq!(
            index.story_of_item("chips").unwrap().unwrap().as_str(),
            "deal"
        );
        let merged = index.story(&StoryId::founded_by("chips")).unwrap();
        assert_eq!((merged.id.as_str(), merged.members), ("deal", 3));
        assert_eq!(index.story_count(), 1);
    }

    #[test]
    fn the_older_story_survives_even_when_it_matches_less() {
        let g = Grouper::default();
        let mut index = MemoryIndex::new();
        // The younger story is the item's best match; the older one still survives.
        let old = Item {
            id: "old",
            url: "https://a.example/old",
            title: "Amazon invests $4 billion more in Anthropic",
            summary: "Amazon will invest another $4 billion in Anthropic.",
            hours: 0,
        };
        put(&g, &mut index, &old, 5);
        let young = Item {
            id: "young",
            url: "https://b.example/young",
            title: "Anthropic picks Trainium chips as AWS becomes primary training partner",
            summary: "Anthropic will train future Claude models on AWS Trainium chips.",
            hours: 1,
        };
        put(&g, &mut index, &young, 6);
        let both = Item {
            id: "both",
            url: "https://b.example/young",
            title: "Amazon invests $4 billion more in Anthropic",
            summary: "Amazon will invest another $4 billion in Anthropic, which will train Claude on Trainium chips.",
            hours: 2,
        };
        let d = put(&g, &mut index, &both, 7);
        assert_eq!(d.story.as_str(), "old", "{d:?}");
        assert_eq!(d.merged, vec![StoryId::founded_by("young")]);
    }
}

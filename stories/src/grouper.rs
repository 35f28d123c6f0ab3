//! Deciding an arriving item's story from the candidates the index returns.
//!
//! In order, the first that holds decides:
//! 1. the item was grouped before: it keeps its story (a story never flips);
//! 2. a member has the same address (see [`crate::url_key`]);
//! 3. a member found through the band buckets has nearly the same text (weighted
//!    Jaccard at least [`Params::near_duplicate`], within [`Params::window`]);
//! 4. a member tells the same event: weighted Jaccard at least [`Params::same_event`],
//!    a bar that rises by [`Params::rise_per_day`] for each day between the two
//!    publications, within [`Params::window`].
//!
//! When the item matches several stories, those it matches at [`Params::merge`] or more
//! are one story told in parts: they merge into the one founded first, whose id survives.
//! A weaker second match only places the item with its best story, so one vague item
//! never glues two events together.

use std::cmp::Ordering;

use crate::features::{Extractor, Feature, weighted_jaccard};
use crate::index::{Decision, Index, Member, StoryId, Tier};
use crate::minhash::{self, DAY};
use crate::url_key::url_key;

/// An arriving item, as grouping sees it.
#[derive(Debug, Clone, Copy)]
pub struct Article<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its link.
    pub url: Option<&'a str>,
    /// Its headline.
    pub title: &'a str,
    /// Its summary and short text.
    pub texts: &'a [&'a str],
    /// Its full text (only the lead is read).
    pub content: &'a str,
    /// Its publication time, seconds since the epoch.
    pub published: i64,
}

/// The default of [`Params::min_features`].
pub const MIN_FEATURES: usize = 5;

/// The grouping's settings. The defaults are the ones measured in `bench/README.md`.
#[derive(Debug, Clone)]
pub struct Params {
    /// Largest distance between an item's publication and a member's it is compared
    /// with, in seconds.
    pub window: i64,
    /// Longest time a story spans, from its earliest to its latest publication: a
    /// story grows by items close to one of its members, and without a bound a run of
    /// such items would carry it on for weeks.
    pub max_span: i64,
    /// Weighted Jaccard from which two texts are the same text.
    pub near_duplicate: f32,
    /// Weighted Jaccard from which two items published together tell one event.
    pub same_event: f32,
    /// How much the same-event bar rises per day between the two publications.
    pub rise_per_day: f32,
    /// Weighted Jaccard from which an item matching several stories merges them.
    pub merge: f32,
    /// Candidate stories confirmed per item (those found under the most buckets).
    pub candidates: usize,
    /// Members of a candidate compared (its newest).
    pub members: usize,
    /// Fewest features an item needs for its text to be compared at all: a headline and
    /// a line of text ("Summary of New") share most of their few words with every other
    /// such item, so the text tiers would glue unrelated items together. Such an item
    /// joins a story only by its address.
    pub min_features: usize,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            window: 3 * DAY,
            max_span: 4 * DAY,
            near_duplicate: 0.85,
            same_event: 0.28,
            rise_per_day: 0.05,
            merge: 0.35,
            candidates: 24,
            members: 16,
            min_features: MIN_FEATURES,
        }
    }
}

/// An item's features and MinHash bands (see [`Grouper::prepare`]).
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    features: Vec<Feature>,
    band_hashes: Vec<u64>,
}

/// Groups items into stories as they arrive.
#[derive(Default)]
pub struct Grouper {
    params: Params,
    extractor: Extractor,
}

/// A candidate story and how well the item matches it.
struct Match {
    story: StoryId,
    founded_at: i64,
    /// Earliest and latest publication of its members.
    span: (i64, i64),
    tier: Tier,
    score: f32,
}

impl Grouper {
    /// A grouper with these settings.
    pub fn new(params: Params) -> Self {
        Self {
            params,
            extractor: Extractor::default(),
        }
    }

    /// Its settings.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The features of an item.
    pub fn features(&self, article: &Article<'_>) -> Vec<Feature> {
        self.extractor
            .features(article.title, article.texts, article.content)
    }

    /// What a decision computes from the item alone (its features and MinHash bands):
    /// the larger part of its cost, which needs no index, so a caller with many items may
    /// compute it on every core and then decide in arrival order
    /// ([`Grouper::decide_prepared`]).
    pub fn prepare(&self, article: &Article<'_>) -> Prepared {
        let features = self.features(article);
        let band_hashes = minhash::bands(&features);
        Prepared {
            features,
            band_hashes,
        }
    }

    /// Decides an item's story without writing anything. `arrived_at` orders stories by
    /// age (any monotonic clock of the caller's).
    pub fn decide<I: Index>(
        &self,
        index: &I,
        article: &Article<'_>,
        arrived_at: i64,
    ) -> Result<Decision, I::Error> {
        if index.story_of_item(article.id)?.is_some() {
            return self.decide_prepared(index, article, Prepared::default(), arrived_at);
        }
        self.decide_prepared(index, article, self.prepare(article), arrived_at)
    }

    /// [`Grouper::decide`] with what [`Grouper::prepare`] computed for the same item.
    pub fn decide_prepared<I: Index>(
        &self,
        index: &I,
        article: &Article<'_>,
        prepared: Prepared,
        arrived_at: i64,
    ) -> Result<Decision, I::Error> {
        if let Some(story) = index.story_of_item(article.id)? {
            return Ok(Decision {
                story,
                tier: Tier::Known,
                score: 1.0,
                merged: Vec::new(),
                arrived_at,
                member: None,
                buckets: Vec::new(),
                url_key: None,
            });
        }
        let Prepared {
            features,
            band_hashes,
        } = prepared;
        let url_key = article.url.and_then(url_key);
        let slot = minhash::slot(article.published);
        let buckets: Vec<u64> = band_hashes
            .iter()
            .map(|b| minhash::bucket_key(*b, slot))
            .collect();
        let member = Member {
            item: article.id.to_string(),
            published: article.published,
            features,
        };

        let mut matches = self.text_matches(index, &member, &band_hashes)?;
        if let Some(key) = &url_key
            && let Some(story) = index.story_of_url(key)?
        {
            let same_url = Self::same_url(index, story, &matches, article, arrived_at)?;
            matches.retain(|m| m.story != same_url.story);
            matches.insert(0, same_url);
        }

        let (story, tier, score, merged) = match self.place(&matches, article.published) {
            Some(placed) => placed,
            None => (StoryId::founded_by(article.id), Tier::New, 0.0, Vec::new()),
        };
        Ok(Decision {
            story,
            tier,
            score,
            merged,
            arrived_at,
            member: Some(member),
            buckets,
            url_key,
        })
    }

    /// The story already holding an item of the same URL, as the best of matches.
    fn same_url<I: Index>(
        index: &I,
        story: StoryId,
        matches: &[Match],
        article: &Article<'_>,
        arrived_at: i64,
    ) -> Result<Match, I::Error> {
        let (founded_at, span) = match matches.iter().find(|m| m.story == story) {
            Some(m) => (m.founded_at, m.span),
            None => index
                .stories(std::slice::from_ref(&story), 0)?
                .first()
                .map_or((arrived_at, (article.published, article.published)), |v| {
                    (
                        v.info.founded_at,
                        (v.info.first_published, v.info.last_published),
                    )
                }),
        };
        Ok(Match {
            story,
            founded_at,
            span,
            tier: Tier::SameUrl,
            score: 1.0,
        })
    }

    /// Where the matches (best first) place an item published at `published`: the best
    /// story, and the strong matches merged into the oldest of them while the whole spans
    /// at most `max_span`. `None` when nothing matched.
    fn place(
        &self,
        matches: &[Match],
        published: i64,
    ) -> Option<(StoryId, Tier, f32, Vec<StoryId>)> {
        let best = matches.first()?;
        let mut strong: Vec<&Match> = matches
            .iter()
            .filter(|m| m.score >= self.params.merge)
            .collect();
        let (mut first, mut last) = (published, published);
        strong.retain(|m| {
            let (f, l) = (first.min(m.span.0), last.max(m.span.1));
            let fits = m.story == best.story || l - f <= self.params.max_span;
            if fits {
                (first, last) = (f, l);
            }
            fits
        });
        if strong.len() >= 2 && strong.iter().any(|m| m.story == best.story) {
            strong.sort_by(|a, b| {
                a.founded_at
                    .cmp(&b.founded_at)
                    .then_with(|| a.story.cmp(&b.story))
            });
            let survivor = strong[0].story.clone();
            let merged = strong[1..].iter().map(|m| m.story.clone()).collect();
            Some((survivor, best.tier, best.score, merged))
        } else {
            Some((best.story.clone(), best.tier, best.score, Vec::new()))
        }
    }

    /// Decides an item's story and writes the decision.
    pub fn assign<I: Index>(
        &self,
        index: &mut I,
        article: &Article<'_>,
        arrived_at: i64,
    ) -> Result<Decision, I::Error> {
        let decision = self.decide(index, article, arrived_at)?;
        index.apply(&decision)?;
        Ok(decision)
    }

    /// Stories whose members match the item's text, best first.
    fn text_matches<I: Index>(
        &self,
        index: &I,
        item: &Member,
        band_hashes: &[u64],
    ) -> Result<Vec<Match>, I::Error> {
        let p = &self.params;
        if band_hashes.is_empty() || item.features.len() < p.min_features {
            return Ok(Vec::new());
        }
        // Members at most `window` apart are at most this many day slots apart.
        let days = (p.window + DAY - 1).div_euclid(DAY);
        let slot = minhash::slot(item.published);
        let keys: Vec<u64> = band_hashes
            .iter()
            .flat_map(|b| (slot - days..=slot + days).map(move |s| minhash::bucket_key(*b, s)))
            .collect();
        let ranked: Vec<StoryId> = index
            .candidates(&keys, p.candidates)?
            .into_iter()
            .map(|(story, _)| story)
            .collect();
        let mut matches = Vec::new();
        for view in index.stories(&ranked, p.members)? {
            let (first, last) = (view.info.first_published, view.info.last_published);
            if view.info.members > 0
                && last.max(item.published) - first.min(item.published) > p.max_span
            {
                continue;
            }
            let mut best: Option<(Tier, f32)> = None;
            for m in &view.members {
                let apart = (m.published - item.published).abs();
                if apart > p.window || m.features.len() < p.min_features {
                    continue;
                }
                let score = weighted_jaccard(&item.features, &m.features);
                #[expect(
                    clippy::cast_precision_loss,
                    reason = "seconds within the window (days), exact in f32 below 194 days"
                )]
                let tier = if score >= p.near_duplicate {
                    Tier::NearDuplicate
                } else if score >= p.same_event + p.rise_per_day * (apart as f32 / DAY as f32) {
                    Tier::SameEvent
                } else {
                    continue;
                };
                if best.is_none_or(|(_, s)| score > s) {
                    best = Some((tier, score));
                }
            }
            if let Some((tier, score)) = best {
                matches.push(Match {
                    story: view.info.id,
                    founded_at: view.info.founded_at,
                    span: (first, last),
                    tier,
                    score,
                });
            }
        }
        matches.sort_by(|a, b| {
            b.score
                .partial_cmp(&a.score)
                .unwrap_or(Ordering::Equal)
                .then_with(|| a.founded_at.cmp(&b.founded_at))
        });
        Ok(matches)
    }
}

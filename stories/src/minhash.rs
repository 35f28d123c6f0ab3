//! Candidates without comparing every pair: a MinHash signature of an item's features,
//! cut into bands (locality-sensitive hashing). Two items share a band with probability
//! about `1 - (1 - J^ROWS)^BANDS` for a weighted Jaccard similarity `J`; with 32 bands of
//! 2 rows that is 0.87 at J = 0.25, 0.95 at 0.3 and 0.27 at 0.1, so the index finds
//! nearly every item above the grouping threshold and few below it, and the exact
//! similarity confirms each candidate.
//!
//! Weights become repetitions (a feature of weight 3 is three elements), which makes the
//! MinHash collision probability the weighted Jaccard similarity of integer weights.
//!
//! A bucket key is a band's hash together with the day of publication, so a lookup only
//! reaches items of the days around an item's own, and a bucket never grows with the
//! whole history.

use crate::features::Feature;

/// Bands of a signature.
pub const BANDS: usize = 32;
/// Rows (MinHash values) per band.
pub const ROWS: usize = 2;
/// Length of a day in seconds, the width of a bucket's time slot.
pub const DAY: i64 = 86_400;

/// A 64-bit mixer (the finaliser of SplitMix64): a fixed function, as stored keys depend
/// on it.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The band hashes of a feature set, one per band; empty for an item without features
/// (it can only match by address).
pub fn bands(features: &[Feature]) -> Vec<u64> {
    if features.is_empty() {
        return Vec::new();
    }
    let mut mins = [u64::MAX; BANDS * ROWS];
    for f in features {
        for copy in 0..u64::from(f.weight) {
            let element = mix(u64::from(f.hash) ^ copy.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            for (i, m) in mins.iter_mut().enumerate() {
                let h = mix(element ^ SEEDS[i]);
                if h < *m {
                    *m = h;
                }
            }
        }
    }
    mins.chunks(ROWS)
        .enumerate()
        .map(|(band, rows)| {
            rows.iter()
                .fold(mix(band as u64 + 1), |acc, r| mix(acc ^ r))
        })
        .collect()
}

/// The day slot of a publication time (seconds since the epoch).
pub fn slot(published: i64) -> i64 {
    published.div_euclid(DAY)
}

/// The key of one band's bucket in one day slot.
pub fn bucket_key(band_hash: u64, slot: i64) -> u64 {
    mix(band_hash ^ mix(slot.cast_unsigned()))
}

/// One seed per MinHash row, fixed.
const SEEDS: [u64; BANDS * ROWS] = seeds();

const fn seeds() -> [u64; BANDS * ROWS] {
    let mut out = [0u64; BANDS * ROWS];
    let mut state: u64 = 0x5ad1_0f3e_ee27_0001;
    let mut i = 0;
    while i < out.len() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out[i] = z ^ (z >> 31);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::stem_hash;

    fn set(words: &[&str]) -> Vec<Feature> {
        let mut v: Vec<Feature> = words
            .iter()
            .map(|w| Feature {
                hash: stem_hash(w),
                weight: 1,
            })
            .collect();
        v.sort_by_key(|f| f.hash);
        v
    }

    #[test]
    fn equal_sets_share_every_band_and_disjoint_ones_almost_none() {
        let a = set(&["anthropic", "amazon", "invest", "billion", "4"]);
        assert_eq!(bands(&a), bands(&a.clone()));
        assert_eq!(bands(&a).len(), BANDS);
        let b = set(&["weather", "rain", "forecast", "model", "storm"]);
        let shared = bands(&a)
            .iter()
            .zip(bands(&b))
            .filter(|(x, y)| **x == *y)
            .count();
        assert_eq!(shared, 0);
        assert!(bands(&[]).is_empty());
    }

    #[test]
    fn overlapping_sets_share_bands_about_as_often_as_their_similarity_says() {
        // 100 pairs at J = 0.5 (10 shared of 20 distinct): a pair shares a given band
        // with probability 0.25, so at least one of 32 almost always.
        let mut found = 0;
        for n in 0..100 {
            let shared: Vec<String> = (0..10).map(|i| format!("s{n}-{i}")).collect();
            let mut a: Vec<String> = shared.clone();
            let mut b: Vec<String> = shared;
            a.extend((0..5).map(|i| format!("a{n}-{i}")));
            b.extend((0..5).map(|i| format!("b{n}-{i}")));
            let fa = set(&a.iter().map(String::as_str).collect::<Vec<_>>());
            let fb = set(&b.iter().map(String::as_str).collect::<Vec<_>>());
            let hits = bands(&fa)
                .iter()
                .zip(bands(&fb))
                .filter(|(x, y)| **x == *y)
                .count();
            if hits > 0 {
                found += 1;
            }
        }
        assert!(found >= 98, "{found} of 100 pairs shared a band");
    }

    #[test]
    fn slots_are_days_and_keys_differ_by_slot() {
        assert_eq!(slot(0), 0);
        assert_eq!(slot(DAY - 1), 0);
        assert_eq!(slot(-1), -1);
        assert_ne!(bucket_key(7, 1), bucket_key(7, 2));
    }
}

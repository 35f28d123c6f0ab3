//! Drops (docs/product.md §2, §4 and §9): one story at a time; next on the last story the
//! server allows gets the paywall (a free reader's 5th: the server's feed answer says
//! more exist but gives no cursor); each step locks the next one for 300 ms so a held
//! key does not race through the stories.

use std::time::{Duration, Instant};

/// How long after a step the next one is ignored.
pub const STEP_LOCK: Duration = Duration::from_millis(300);
/// Progress dots show this many stories, plus a trailing dot when there are more.
pub const PROGRESS_DOTS: usize = 7;

/// Where the reader is in Drops.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DropsState {
    /// The story shown, from 0.
    pub index: usize,
    /// Whether the paywall shows instead of a story.
    pub paywall: bool,
    /// Steps before this instant are ignored.
    pub locked_until: Option<Instant>,
}

/// What "next" did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Moved to the next story.
    Advanced,
    /// Showed the paywall.
    Paywall,
    /// Nothing: the last story, the step lock, or no stories.
    None,
}

impl DropsState {
    /// Back to the first story.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Next story of `count`, at `now`. `allowance_reached` is the server's word that the
    /// reader may not read past these stories (a feed answer with more items but no
    /// cursor): then the step after the last story is the paywall.
    pub fn next(&mut self, count: usize, allowance_reached: bool, now: Instant) -> Step {
        if self.paywall || count == 0 || self.locked_until.is_some_and(|t| now < t) {
            return Step::None;
        }
        let step = if self.index + 1 >= count && allowance_reached {
            self.paywall = true;
            Step::Paywall
        } else if self.index + 1 >= count {
            Step::None
        } else {
            self.index += 1;
            Step::Advanced
        };
        if step != Step::None {
            self.locked_until = Some(now + STEP_LOCK);
        }
        step
    }

    /// Previous story (or out of the paywall); not locked, since going back is never a
    /// held-key accident that skips content.
    pub fn back(&mut self) {
        if self.paywall {
            self.paywall = false;
        } else {
            self.index = self.index.saturating_sub(1);
        }
    }

    /// Keeps the index inside `count` stories after the list changed.
    pub fn clamp(&mut self, count: usize) {
        self.index = self.index.min(count.saturating_sub(1));
    }
}

/// The progress dots: `true` for the current story; the trailing dot (when more than 7
/// stories) is the last element and is current from the 8th story on.
pub fn progress_dots(count: usize, index: usize) -> Vec<bool> {
    let mut dots: Vec<bool> = (0..count.min(PROGRESS_DOTS)).map(|i| i == index).collect();
    if count > PROGRESS_DOTS {
        dots.push(index >= PROGRESS_DOTS);
    }
    dots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paywall_follows_the_last_allowed_story() {
        // The server gave five stories, more exist, no cursor: the allowance is reached.
        let mut d = DropsState::default();
        let mut now = Instant::now();
        for expected in 1..5 {
            assert_eq!(d.next(5, true, now), Step::Advanced);
            assert_eq!(d.index, expected);
            now += STEP_LOCK;
        }
        assert_eq!(d.next(5, true, now), Step::Paywall);
        assert!(d.paywall);
        assert_eq!(d.index, 4);
        now += STEP_LOCK;
        assert_eq!(d.next(5, true, now), Step::None, "the paywall is the end");
        d.back();
        assert!(!d.paywall);
        assert_eq!(d.index, 4);
    }

    #[test]
    fn without_the_allowance_reached_the_last_story_stays() {
        // A subscriber at the end of what is loaded (or of everything): no paywall.
        let mut d = DropsState::default();
        let mut now = Instant::now();
        for _ in 0..6 {
            d.next(7, false, now);
            now += STEP_LOCK;
        }
        assert_eq!(d.index, 6);
        assert_eq!(
            d.next(7, false, now),
            Step::None,
            "the last story does not advance"
        );
        assert!(!d.paywall);
        let mut empty = DropsState::default();
        assert_eq!(empty.next(0, true, Instant::now()), Step::None);
    }

    #[test]
    fn steps_lock_for_300_ms() {
        let mut d = DropsState::default();
        let now = Instant::now();
        assert_eq!(d.next(10, false, now), Step::Advanced);
        assert_eq!(
            d.next(10, false, now + Duration::from_millis(299)),
            Step::None
        );
        assert_eq!(d.index, 1);
        assert_eq!(d.next(10, false, now + STEP_LOCK), Step::Advanced);
        assert_eq!(d.index, 2);
    }

    #[test]
    fn dots_show_seven_and_a_trailing_one() {
        assert_eq!(progress_dots(3, 1), vec![false, true, false]);
        assert_eq!(progress_dots(7, 0).len(), 7);
        let many = progress_dots(12, 9);
        assert_eq!(many.len(), 8);
        assert!(many[7] && many[..7].iter().all(|d| !d));
    }
}

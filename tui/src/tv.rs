//! TV mode (docs/product.md §2, §4 and §9): the stories advance on their own every N seconds,
//! wrapping to the first after the last one the reader may see; pause stops the clock;
//! the interval cycles 10, 15, 20, 5 s. While the server has more stories than are
//! loaded, the last loaded one waits for them instead of wrapping.

use std::time::Duration;

/// The intervals, in the order the cycle key steps through them; the first is the default.
pub const INTERVALS: [u64; 4] = [10, 15, 20, 5];

/// The slideshow's state.
#[derive(Debug, Clone, PartialEq)]
pub struct TvState {
    /// The story shown, from 0.
    pub index: usize,
    /// Whether the clock is stopped.
    pub paused: bool,
    /// Seconds per story.
    pub interval: u64,
    /// Time spent on the current story.
    pub elapsed: Duration,
}

impl Default for TvState {
    fn default() -> Self {
        Self {
            index: 0,
            paused: false,
            interval: INTERVALS[0],
            elapsed: Duration::ZERO,
        }
    }
}

impl TvState {
    /// Lets `dt` pass with `count` stories loaded; advances each time the interval is
    /// reached, wrapping after the last story when `wrap` (no more to load), else
    /// holding on it until more arrive.
    pub fn tick(&mut self, dt: Duration, count: usize, wrap: bool) {
        if self.paused || count == 0 {
            return;
        }
        self.elapsed += dt;
        let step = Duration::from_secs(self.interval);
        while self.elapsed >= step {
            if self.index + 1 >= count && !wrap {
                self.elapsed = step;
                return;
            }
            self.elapsed -= step;
            self.index = (self.index + 1) % count;
        }
    }

    /// The countdown starts again (a story was chosen by hand).
    pub fn restart(&mut self) {
        self.elapsed = Duration::ZERO;
    }

    /// Pause or resume.
    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
    }

    /// The next interval of the cycle; the countdown restarts.
    pub fn cycle_interval(&mut self) {
        let at = INTERVALS
            .iter()
            .position(|i| *i == self.interval)
            .unwrap_or(0);
        self.interval = INTERVALS[(at + 1) % INTERVALS.len()];
        self.elapsed = Duration::ZERO;
    }

    /// The next story by hand (wrapping when `wrap`); the countdown restarts.
    pub fn next(&mut self, count: usize, wrap: bool) {
        if count > 0 && (wrap || self.index + 1 < count) {
            self.index = (self.index + 1) % count;
        }
        self.elapsed = Duration::ZERO;
    }

    /// The previous story by hand (wrapping); the countdown restarts.
    pub fn previous(&mut self, count: usize) {
        if count > 0 {
            self.index = (self.index + count - 1) % count;
        }
        self.elapsed = Duration::ZERO;
    }

    /// Whole seconds until the next story (rounded up, as a countdown reads).
    pub fn remaining_secs(&self) -> u64 {
        let left = Duration::from_secs(self.interval).saturating_sub(self.elapsed);
        u64::try_from(left.as_millis().div_ceil(1000)).unwrap_or(u64::MAX)
    }

    /// How far the current story's time has run, 0.0 to 1.0.
    pub fn progress(&self) -> f64 {
        (self.elapsed.as_secs_f64() / Duration::from_secs(self.interval).as_secs_f64())
            .clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_cycles_10_15_20_5_10() {
        let mut tv = TvState::default();
        let mut seen = vec![tv.interval];
        for _ in 0..4 {
            tv.cycle_interval();
            seen.push(tv.interval);
        }
        assert_eq!(seen, [10, 15, 20, 5, 10]);
    }

    #[test]
    fn advances_every_interval_and_wraps() {
        let mut tv = TvState::default();
        tv.tick(Duration::from_millis(9_999), 3, true);
        assert_eq!((tv.index, tv.remaining_secs()), (0, 1));
        tv.tick(Duration::from_millis(1), 3, true);
        assert_eq!((tv.index, tv.remaining_secs()), (1, 10));
        tv.tick(Duration::from_secs(20), 3, true);
        assert_eq!(tv.index, 0, "wraps to the first story");
        tv.previous(3);
        assert_eq!(tv.index, 2);
        tv.next(3, true);
        assert_eq!(tv.index, 0);
    }

    #[test]
    fn the_last_loaded_story_waits_for_more() {
        let mut tv = TvState::default();
        tv.tick(Duration::from_secs(50), 3, false);
        assert_eq!((tv.index, tv.remaining_secs()), (2, 0), "holds on the last");
        tv.next(3, false);
        assert_eq!(tv.index, 2);
        tv.tick(Duration::from_secs(10), 5, false);
        assert_eq!(tv.index, 3, "goes on once more stories arrived");
    }

    #[test]
    fn pause_stops_the_clock() {
        let mut tv = TvState::default();
        tv.tick(Duration::from_secs(4), 5, true);
        tv.toggle_pause();
        tv.tick(Duration::from_secs(60), 5, true);
        assert_eq!((tv.index, tv.remaining_secs()), (0, 6));
        tv.toggle_pause();
        tv.tick(Duration::from_secs(6), 5, true);
        assert_eq!(tv.index, 1);
    }
}

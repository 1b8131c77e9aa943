//! Turn budget from the manager's INFO timeout_turn / timeout_match / time_left.
//!
//! Conventions (protocol.md §1.3, §2.1): times are milliseconds; `timeout_turn 0` means "play as
//! fast as possible"; `timeout_match 0` means no match limit; `time_left` may be negative and
//! 2147483647 means unlimited. When `time_left` has been sent it is trusted over
//! `timeout_match`. All arithmetic is `i64` and saturating, so no input can panic.
//!
//! The budget has two parts: a *soft* limit after which no new iteration starts, and a *hard*
//! limit at which the search is stopped wherever it is. Both leave a safety margin below the
//! manager's limit, because the clock also covers process start-up (GomocupJudge), pipe latency
//! and, on the first move, building the pattern tables.

use std::time::Duration;

/// `time_left` value meaning "no match limit".
pub const UNLIMITED_MS: i64 = 2_147_483_647;
/// Hard limit used for `timeout_turn 0` ("as fast as possible").
pub const FAST_MS: i64 = 40;
/// Budget when the match clock is already spent: answer at once with a shallow search.
pub const PANIC_MS: i64 = 20;
/// Expected number of own moves still to play, used to share the match time by default
/// (`Params::moves_to_go` changes it). Games against strong brains are often decided in the
/// first dozen moves: 12 instead of 18 measured +31.4 ± 33.5 Elo at 3 s + 30 ms per game (400
/// self-play games, see c7668b6); 10, with the increment counted, was measured against Rapfi,
/// and 7 (with `time_percent=90`) scored no better there (see the README).
pub const MOVES_TO_GO: i64 = 10;
/// Largest per-move increment the clock watch believes.
pub const MAX_INCREMENT_MS: i64 = 30_000;
/// Fixed part of the safety margin.
pub const MARGIN_MS: i64 = 30;
/// Proportional part of the safety margin, in percent of the available time.
pub const MARGIN_PERCENT: i64 = 12;
/// Turn time assumed when the manager never sends `timeout_turn`.
pub const DEFAULT_TURN_MS: i64 = 5_000;

/// The time settings received from the manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// `INFO timeout_turn`.
    pub timeout_turn: i64,
    /// `INFO timeout_match` (0 = no limit).
    pub timeout_match: i64,
    /// `INFO time_left`, if it was sent.
    pub time_left: Option<i64>,
    /// Time added to the match clock after each move, as [`ClockWatch`] estimated it (the
    /// protocol does not send it).
    pub increment: i64,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            timeout_turn: DEFAULT_TURN_MS,
            timeout_match: 0,
            time_left: None,
            increment: 0,
        }
    }
}

/// How long the coming search may take, measured from the moment the request arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Planned time: do not start a new iteration after this (stretched or shortened by the
    /// search's stability). `None`: no plan, search until the hard limit.
    pub soft: Option<Duration>,
    /// Stop the search at this point.
    pub hard: Duration,
}

impl TimeControl {
    /// Remaining match time, or `None` when the match is unlimited.
    fn match_left(&self) -> Option<i64> {
        match self.time_left {
            Some(left) if left >= UNLIMITED_MS => None,
            Some(left) => Some(left),
            None if self.timeout_match > 0 => Some(self.timeout_match),
            None => None,
        }
    }

    /// The budget for the next move.
    ///
    /// With a turn limit alone, time not used is lost: there is no planned time, the search
    /// goes on until the hard limit (an iteration cut short still searched the previous best
    /// move first, so its result is used). With a match clock, the planned time is an even
    /// share of what is left and of the increments still to come (`moves_to_go` moves, at least
    /// two; [`MOVES_TO_GO`] by default), and
    /// the hard limit is at most twice that and a quarter of the clock, so one difficult move
    /// cannot starve the rest of the game.
    pub fn budget(&self, moves_to_go: i64) -> Budget {
        let moves_to_go = moves_to_go.max(2);
        let turn = if self.timeout_turn <= 0 {
            FAST_MS
        } else {
            self.timeout_turn
        };
        let turn_hard = with_margin(turn).max(1);
        let (soft, hard) = match self.match_left() {
            None => (None, turn_hard),
            Some(left) if left <= 0 => (Some(PANIC_MS / 2), PANIC_MS),
            Some(left) => {
                // The increments of the next moves are part of what can be shared; the hard
                // limit below still comes out of what is left now.
                let future = self
                    .increment
                    .clamp(0, MAX_INCREMENT_MS)
                    .saturating_mul(moves_to_go - 1);
                let share = with_margin(left.saturating_add(future) / moves_to_go);
                let hard = turn_hard
                    .min(share.saturating_mul(2))
                    .min(with_margin(left / 4))
                    .max(1);
                (Some(share.min(hard * 3 / 5)), hard)
            }
        };
        let soft = if self.timeout_turn <= 0 {
            Some(hard / 4)
        } else {
            soft
        };
        Budget {
            soft: soft.map(|ms| Duration::from_millis(ms.max(0) as u64)),
            hard: Duration::from_millis(hard as u64),
        }
    }
}

/// Learns the increment of a match clock: when `time_left` came before two moves in a row, what
/// it gained beyond the time we used in between is the increment (less the manager's latency).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockWatch {
    /// `time_left` before our last move and the milliseconds that move took, if `time_left` was
    /// sent for it.
    last: Option<(i64, i64)>,
    /// True when `time_left` was sent since our last move.
    fresh: bool,
}

impl ClockWatch {
    /// A new game: the clock starts again.
    pub fn new_game(&mut self) {
        *self = ClockWatch::default();
    }

    /// `INFO time_left` arrived.
    pub fn time_left_sent(&mut self) {
        self.fresh = true;
    }

    /// Before our move: the increment seen since the last one, if it can be told. A gain of
    /// more than [`MAX_INCREMENT_MS`] or more than half the time left is not believed.
    pub fn increment_before_move(&self, time_left: Option<i64>) -> Option<i64> {
        let now = self.usable(time_left)?;
        let (before, used) = self.last?;
        let gained = now.saturating_sub(before.saturating_sub(used));
        let plausible = gained <= MAX_INCREMENT_MS && gained <= now / 2;
        plausible.then(|| gained.max(0))
    }

    /// After our move, which took `used_ms`.
    pub fn after_move(&mut self, time_left: Option<i64>, used_ms: i64) {
        self.last = self.usable(time_left).map(|t| (t, used_ms));
        self.fresh = false;
    }

    /// `time_left`, if it was sent since our last move and is a real limit.
    fn usable(&self, time_left: Option<i64>) -> Option<i64> {
        time_left.filter(|&t| self.fresh && t < UNLIMITED_MS)
    }
}

/// `available` minus the safety margin, never below a few milliseconds.
fn with_margin(available: i64) -> i64 {
    let margin = MARGIN_MS.saturating_add(available / 100 * MARGIN_PERCENT);
    available
        .saturating_sub(margin)
        .max(PANIC_MS.min(available.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(turn: i64, total: i64, left: Option<i64>) -> Budget {
        TimeControl {
            timeout_turn: turn,
            timeout_match: total,
            time_left: left,
            increment: 0,
        }
        .budget(MOVES_TO_GO)
    }

    #[test]
    fn increment_adds_to_the_share_but_not_to_the_hard_cap() {
        let with = |left: i64, inc: i64| {
            TimeControl {
                timeout_turn: DEFAULT_TURN_MS,
                timeout_match: 10_000,
                time_left: Some(left),
                increment: inc,
            }
            .budget(MOVES_TO_GO)
        };
        // 3 s left and 0.1 s per move: the share counts the next moves' increments.
        let (plain, inc) = (with(3_000, 0), with(3_000, 100));
        assert!(inc.soft > plain.soft, "{plain:?} {inc:?}");
        assert!(inc.hard > plain.hard, "{plain:?} {inc:?}");
        // However large the increment, one move takes at most a quarter of what is left.
        for left in [50, 400, 3_000, 10_000] {
            let b = with(left, i64::MAX);
            assert!(
                b.hard <= Duration::from_millis(left as u64 / 4),
                "{left} {b:?}"
            );
            let soft = b.soft.expect("a match clock plans its time");
            assert!(soft <= b.hard, "{left} {b:?}");
        }
    }

    #[test]
    fn clock_watch_learns_the_increment_from_time_left() {
        let mut w = ClockWatch::default();
        // Nothing to compare with on the first move.
        w.time_left_sent();
        assert_eq!(w.increment_before_move(Some(10_000)), None);
        w.after_move(Some(10_000), 800);
        // 10 000 - 800 + 100 = 9 300.
        w.time_left_sent();
        assert_eq!(w.increment_before_move(Some(9_300)), Some(100));
        w.after_move(Some(9_300), 300);
        // Latency makes the gain slightly negative without an increment: 0.
        w.time_left_sent();
        assert_eq!(w.increment_before_move(Some(8_995)), Some(0));
        w.after_move(Some(8_995), 500);
        // A move without a fresh time_left tells nothing: the stale value is not compared.
        assert_eq!(w.increment_before_move(Some(8_995)), None);
        w.after_move(Some(8_995), 500);
        w.time_left_sent();
        assert_eq!(w.increment_before_move(Some(8_600)), None);
        w.after_move(Some(2_000), 100);
        // A clock that jumps up (a new game without START) is not an increment.
        w.time_left_sent();
        assert_eq!(w.increment_before_move(Some(10_000)), None);
        // Unlimited time: nothing to learn.
        w.after_move(Some(UNLIMITED_MS), 100);
        w.time_left_sent();
        assert_eq!(w.increment_before_move(Some(UNLIMITED_MS)), None);
        // A new game forgets the last move.
        w.after_move(Some(5_000), 100);
        w.new_game();
        w.time_left_sent();
        assert_eq!(w.increment_before_move(Some(5_000)), None);
    }

    #[test]
    fn turn_limit_leaves_a_margin() {
        let b = tc(1000, 0, None);
        assert!(b.hard <= Duration::from_millis(900), "{b:?}");
        assert!(b.hard >= Duration::from_millis(700), "{b:?}");
        // No plan: a turn limit alone is used up to the hard limit.
        assert_eq!(b.soft, None);
        let b = tc(5000, 120_000, Some(120_000));
        assert!(b.hard <= Duration::from_millis(5000 * 9 / 10));
    }

    #[test]
    fn match_time_caps_the_turn() {
        let b = tc(30_000, 180_000, Some(1500));
        assert!(b.hard < Duration::from_millis(500), "{b:?}");
        // 180 s left: an even share is 18 s; at most twice that for a hard move.
        let b = tc(30_000, 180_000, Some(180_000));
        let soft = b.soft.expect("a match clock plans its time");
        assert!(soft < Duration::from_millis(18_000), "{b:?}");
        assert!(soft > Duration::from_millis(12_000), "{b:?}");
        assert!(b.hard <= Duration::from_millis(30_000), "{b:?}");
        assert!(b.hard > soft, "{b:?}");
        // 10 s + 0.1 s per move, early: a share of under a second, twice that at most.
        let b = tc(DEFAULT_TURN_MS, 10_000, Some(10_000));
        assert!(b.soft < Some(Duration::from_millis(1_000)), "{b:?}");
        assert!(b.hard <= Duration::from_millis(1_700), "{b:?}");
    }

    #[test]
    fn fewer_moves_to_go_plan_more_time_within_the_same_cap() {
        let clock = TimeControl {
            timeout_turn: DEFAULT_TURN_MS,
            timeout_match: 10_000,
            time_left: Some(8_000),
            increment: 100,
        };
        let plan = |moves: i64| {
            clock
                .budget(moves)
                .soft
                .expect("a match clock plans its time")
        };
        // 8 s left and 0.1 s per move: 7 moves share 8.6 s, 10 moves 8.9 s, 20 moves 9.9 s.
        assert!(plan(7) > plan(10), "{:?} {:?}", plan(7), plan(10));
        assert!(plan(10) > plan(20), "{:?} {:?}", plan(10), plan(20));
        assert!(plan(7) < Duration::from_millis(8_600 / 7), "{:?}", plan(7));
        assert!(
            plan(7) > Duration::from_millis(8_600 / 7 * 3 / 4),
            "{:?}",
            plan(7)
        );
        // However few moves are left to share it, one move takes at most a quarter of the clock.
        for moves in [i64::MIN, 0, 1, 2, 4, i64::MAX] {
            let b = clock.budget(moves);
            assert!(b.hard <= Duration::from_millis(2_000), "{moves} {b:?}");
            assert!(b.soft <= Some(b.hard), "{moves} {b:?}");
        }
        assert_eq!(clock.budget(1), clock.budget(2));
    }

    #[test]
    fn special_values() {
        // timeout_turn 0: as fast as possible.
        assert!(tc(0, 0, None).hard <= Duration::from_millis(FAST_MS as u64));
        // Negative or zero time left: answer at once.
        assert!(tc(5000, 120_000, Some(-500)).hard <= Duration::from_millis(PANIC_MS as u64));
        assert!(tc(5000, 120_000, Some(0)).hard <= Duration::from_millis(PANIC_MS as u64));
        // 2147483647 = unlimited match: the turn limit alone decides.
        assert_eq!(tc(1000, 0, Some(UNLIMITED_MS)), tc(1000, 0, None));
        // timeout_match alone (no time_left yet) limits too.
        assert!(tc(30_000, 10_000, None).hard < Duration::from_millis(2_000));
        // Extreme values do not overflow.
        let b = tc(i64::MAX, i64::MAX, Some(i64::MIN));
        assert!(b.hard <= Duration::from_millis(PANIC_MS as u64));
        let b = tc(i64::MIN, 0, Some(i64::MAX));
        assert!(b.hard <= Duration::from_millis(FAST_MS as u64));
    }
}

//! Time control: per-turn limit, per-game limit with increment, and each engine's game clock.
//!
//! What the engines are told (as Gomocup and c-gomoku-cli do, protocol.md §1.3, §2.1): after
//! `START`, `INFO timeout_turn` (only when a turn limit is set: 0 would mean "as fast as
//! possible") and `INFO timeout_match` (0 = no game limit); before every move
//! `INFO time_left` (2147483647 when the game time is unlimited).
//!
//! What the referee enforces: the answer's wall time is measured by the arena from the moment
//! the request was written until the move line arrived. The *limit* of a move is the turn limit,
//! or the time left on the game clock if that is smaller. When it runs out the engine is sent
//! `YXSTOP`; a move that arrives before the limit plus the tolerance is accepted (and counted as
//! late), after that the engine is killed and loses on time. The increment is added to the game
//! clock when the engine's move starts; the time used is then subtracted, and a clock that went
//! below zero within the tolerance is set back to zero.

use std::{fmt, time::Duration};

/// `time_left` sent when the game time is unlimited.
pub const UNLIMITED_MS: i64 = 2_147_483_647;

/// Time limits in milliseconds; 0 means "no limit" for `turn_ms` and `game_ms`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    /// Limit for one move.
    pub turn_ms: u64,
    /// Limit for all of an engine's moves in one game.
    pub game_ms: u64,
    /// Added to the game clock at the start of each move (only with a game limit).
    pub inc_ms: u64,
}

impl TimeControl {
    /// True if neither a turn nor a game limit is set.
    pub fn is_unlimited(&self) -> bool {
        self.turn_ms == 0 && self.game_ms == 0
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.turn_ms > 0 {
            parts.push(format!("{} ms/move", self.turn_ms));
        }
        if self.game_ms > 0 {
            parts.push(format!("{} ms/game", self.game_ms));
            if self.inc_ms > 0 {
                parts.push(format!("+{} ms/move", self.inc_ms));
            }
        }
        if parts.is_empty() {
            parts.push("unlimited".to_string());
        }
        write!(f, "{}", parts.join(" "))
    }
}

/// Parses a duration: a number with an optional unit `ms` (default), `s` or `m`, e.g. `100`,
/// `250ms`, `1.5s`, `2m`.
pub fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (t.as_str(), 1.0)
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("bad duration `{text}` (examples: 100, 250ms, 1.5s, 2m)"))?;
    if !(value >= 0.0 && value * scale < 1e12) {
        return Err(format!("duration `{text}` out of range"));
    }
    Ok((value * scale).round() as u64)
}

/// One engine's clock during a game.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    tc: TimeControl,
    /// Game time left in ms (only meaningful with a game limit).
    left_ms: i64,
}

/// What the arena needs to know when a move starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveLimit {
    /// Value of `INFO time_left`.
    pub time_left_ms: i64,
    /// When `YXSTOP` is sent; the hard deadline is this plus the tolerance.
    pub limit: Duration,
}

impl Clock {
    /// A fresh clock for one game.
    pub fn new(tc: TimeControl) -> Clock {
        Clock {
            tc,
            left_ms: tc.game_ms as i64,
        }
    }

    /// Game time left (ms), or [`UNLIMITED_MS`].
    pub fn time_left_ms(&self) -> i64 {
        if self.tc.game_ms == 0 {
            UNLIMITED_MS
        } else {
            self.left_ms
        }
    }

    /// Starts a move: adds the increment and returns the limits of this move.
    pub fn begin_move(&mut self) -> MoveLimit {
        if self.tc.game_ms > 0 {
            self.left_ms = self.left_ms.saturating_add(self.tc.inc_ms as i64);
        }
        let mut limit_ms = if self.tc.turn_ms > 0 {
            self.tc.turn_ms as i64
        } else {
            UNLIMITED_MS
        };
        if self.tc.game_ms > 0 {
            limit_ms = limit_ms.min(self.left_ms.max(0));
        }
        MoveLimit {
            time_left_ms: self.time_left_ms(),
            limit: Duration::from_millis(limit_ms.max(0) as u64),
        }
    }

    /// Charges `elapsed` to the game clock (no effect without a game limit).
    pub fn charge(&mut self, elapsed: Duration) {
        if self.tc.game_ms > 0 {
            let used = elapsed.as_millis().min(i64::MAX as u128) as i64;
            self.left_ms = (self.left_ms - used).max(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("100"), Ok(100));
        assert_eq!(parse_duration_ms("250ms"), Ok(250));
        assert_eq!(parse_duration_ms("1.5s"), Ok(1500));
        assert_eq!(parse_duration_ms("2m"), Ok(120_000));
        assert_eq!(parse_duration_ms(" 5S "), Ok(5000));
        assert!(parse_duration_ms("-1").is_err());
        assert!(parse_duration_ms("fast").is_err());
        assert!(parse_duration_ms("").is_err());
    }

    #[test]
    fn turn_limit_only() {
        let mut c = Clock::new(TimeControl {
            turn_ms: 100,
            game_ms: 0,
            inc_ms: 0,
        });
        let m = c.begin_move();
        assert_eq!(m.time_left_ms, UNLIMITED_MS);
        assert_eq!(m.limit, Duration::from_millis(100));
        c.charge(Duration::from_millis(5000));
        assert_eq!(c.begin_move().time_left_ms, UNLIMITED_MS);
    }

    #[test]
    fn game_limit_with_increment() {
        let mut c = Clock::new(TimeControl {
            turn_ms: 1000,
            game_ms: 3000,
            inc_ms: 100,
        });
        let m = c.begin_move();
        assert_eq!(m.time_left_ms, 3100);
        assert_eq!(m.limit, Duration::from_millis(1000));
        c.charge(Duration::from_millis(2500));
        let m = c.begin_move();
        assert_eq!(m.time_left_ms, 700);
        assert_eq!(m.limit, Duration::from_millis(700));
        c.charge(Duration::from_millis(900));
        // Overdrawn within the tolerance: back to zero, plus the next increment.
        let m = c.begin_move();
        assert_eq!(m.time_left_ms, 100);
        assert_eq!(m.limit, Duration::from_millis(100));
    }

    #[test]
    fn display() {
        let tc = TimeControl {
            turn_ms: 100,
            game_ms: 0,
            inc_ms: 0,
        };
        assert_eq!(tc.to_string(), "100 ms/move");
        assert!(!tc.is_unlimited());
        assert!(TimeControl::default().is_unlimited());
    }
}

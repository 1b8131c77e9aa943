//! One game between two engine processes: start, opening, the move loop under the referee and
//! the clocks, and the record of what happened.
//!
//! What the engines see (protocol.md §1.3, §3.3): `START size`, then the INFO lines (rule,
//! timeout_turn when set, timeout_match, game_type, the engine's own options), and before each
//! move `INFO time_left`. An engine's first request of the game is `BEGIN` on an empty board,
//! otherwise `BOARD` with every stone in move order, field 1 for the receiving engine's stones
//! and 2 for the opponent's, then `DONE`; later requests are `TURN x,y` with the opponent's last
//! move (or the whole `BOARD` again with `send_board`).
//!
//! An engine that answers `START` with `ERROR`, or not at all, gets a second `START` after
//! [`START_RETRY_WAIT`] (restarted first if it had to be killed); only when that one fails too
//! does it lose the game by [`Reason::NoAnswer`]. The retries are counted per engine.

use std::{
    fmt,
    sync::Arc,
    thread,
    time::{Duration, Instant},
};

use super::{
    clock::Clock,
    engine::{Engine, EngineSpec, Failure, IoLog},
    openings::Opening,
    referee::{parse_move, MoveError, Referee, Verdict},
};
use crate::{
    board::Stone,
    rules::{PatternTable, Rule},
};

/// How long the arena waits before it sends `START` again to an engine that refused it or did
/// not answer it.
pub const START_RETRY_WAIT: Duration = Duration::from_millis(500);

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// A five under the rule.
    Five,
    /// Renju: black played a forbidden move.
    Forbidden,
    /// The board is full.
    FullBoard,
    /// The stone limit (`--draw-after`) was reached.
    DrawAfter,
    /// No move before the hard deadline, or the engine had to be killed.
    TimeForfeit,
    /// The engine could not be started, exited or closed its output.
    Crash,
    /// A move outside the board.
    Illegal,
    /// A move on an occupied square.
    Occupied,
    /// A line that is not a move.
    Unparsable,
    /// No `OK` (or an `ERROR`) in answer to `START`.
    NoAnswer,
    /// A player resigned (the play page; the arena never ends a game so).
    Resign,
    /// Both players agreed to a draw (the play page).
    Agreed,
    /// The game was saved before it ended (the play page's records).
    Unfinished,
}

impl Reason {
    /// Every reason, in report order.
    pub const ALL: [Reason; 13] = [
        Reason::Five,
        Reason::Forbidden,
        Reason::FullBoard,
        Reason::DrawAfter,
        Reason::TimeForfeit,
        Reason::Crash,
        Reason::Illegal,
        Reason::Occupied,
        Reason::Unparsable,
        Reason::NoAnswer,
        Reason::Resign,
        Reason::Agreed,
        Reason::Unfinished,
    ];

    /// Short text for reports.
    pub fn text(self) -> &'static str {
        match self {
            Reason::Five => "five",
            Reason::Forbidden => "renju foul",
            Reason::FullBoard => "full board",
            Reason::DrawAfter => "draw after N stones",
            Reason::TimeForfeit => "time forfeit",
            Reason::Crash => "crash",
            Reason::Illegal => "illegal move",
            Reason::Occupied => "occupied square",
            Reason::Unparsable => "unparsable answer",
            Reason::NoAnswer => "no answer",
            Reason::Resign => "resignation",
            Reason::Agreed => "agreement",
            Reason::Unfinished => "unfinished",
        }
    }

    /// True for the ways of losing by misbehaving (not on the board).
    pub fn is_forfeit(self) -> bool {
        !matches!(
            self,
            Reason::Five
                | Reason::Forbidden
                | Reason::FullBoard
                | Reason::DrawAfter
                | Reason::Resign
                | Reason::Agreed
                | Reason::Unfinished
        )
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// Result of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The winning colour, `None` for a draw.
    pub winner: Option<Stone>,
    /// How it ended.
    pub reason: Reason,
    /// Details (the offending line, the exit status, …).
    pub detail: String,
}

/// Settings shared by every game of a match.
#[derive(Clone)]
pub struct GameSettings {
    /// Board size.
    pub size: usize,
    /// Game rule.
    pub rule: Rule,
    /// Pattern tables for `rule`, built once.
    pub table: Arc<PatternTable>,
    /// Draw when this many stones are on the board.
    pub draw_after: Option<usize>,
    /// Grace after a move's limit before the engine is killed.
    pub tolerance: Duration,
    /// Time allowed for ABOUT and for START's OK.
    pub init_time: Duration,
    /// Send the whole BOARD before every move instead of TURN.
    pub send_board: bool,
    /// Engine I/O log.
    pub log: Option<IoLog>,
}

/// One engine's slot in a worker: its spec, and the process once started.
pub struct Player<'a> {
    /// How to run it.
    pub spec: &'a EngineSpec,
    /// The running process (None until started, or after it died).
    pub engine: &'a mut Option<Engine>,
    /// Tag for the I/O log.
    pub tag: String,
    /// Set to the number of times the process was (re)started in this game.
    pub spawns: u32,
    /// Set to the number of `START`s sent again in this game (0 or 1).
    pub start_retries: u32,
}

/// A stone of the game record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// Column.
    pub x: usize,
    /// Row.
    pub y: usize,
    /// Time the engine took (0 for opening stones).
    pub ms: u64,
}

/// Everything that happened in a game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Stones in move order, opening first.
    pub moves: Vec<MoveRecord>,
    /// Number of opening stones at the start of `moves`.
    pub opening_len: usize,
    /// Result.
    pub outcome: Outcome,
    /// Answer times per colour (black, white).
    pub times: [Vec<Duration>; 2],
    /// Answers after the limit (accepted within the tolerance), per colour.
    pub late: [u32; 2],
    /// Process starts per colour during this game.
    pub spawns: [u32; 2],
    /// ABOUT answers per colour, if any.
    pub about: [Option<String>; 2],
    /// `START`s sent again after an `ERROR` or no answer, per colour.
    pub start_retries: [u32; 2],
}

fn ensure_started(player: &mut Player<'_>, settings: &GameSettings) -> Result<(), Failure> {
    if let Some(engine) = player.engine.as_mut() {
        if engine.is_alive() {
            return Ok(());
        }
    }
    *player.engine = None;
    let mut engine = Engine::spawn(player.spec, &player.tag, settings.log.clone())
        .map_err(|e| Failure::Crash(format!("cannot start `{}`: {e}", player.spec.program)))?;
    player.spawns += 1;
    engine.about(Instant::now() + settings.init_time)?;
    *player.engine = Some(engine);
    Ok(())
}

fn start_game(player: &mut Player<'_>, settings: &GameSettings) -> Result<(), Failure> {
    ensure_started(player, settings)?;
    let engine = player
        .engine
        .as_mut()
        .ok_or_else(|| Failure::Crash("not running".to_string()))?;
    engine.start(settings.size, Instant::now() + settings.init_time)?;
    let tc = player.spec.tc;
    engine.send(&format!("INFO rule {}", settings.rule.info_bits()));
    if tc.turn_ms > 0 {
        engine.send(&format!("INFO timeout_turn {}", tc.turn_ms));
    }
    engine.send(&format!("INFO timeout_match {}", tc.game_ms));
    engine.send("INFO game_type 1");
    for (key, value) in &player.spec.infos {
        engine.send(&format!("INFO {key} {value}"));
    }
    Ok(())
}

/// [`start_game`], and once more after [`START_RETRY_WAIT`] when the engine refused `START` or
/// did not answer it ([`Failure::NoAnswer`]); the second failure carries the first's detail.
fn start_with_retry(player: &mut Player<'_>, settings: &GameSettings) -> Result<(), Failure> {
    let first = match start_game(player, settings) {
        Err(Failure::NoAnswer(detail)) => detail,
        other => return other,
    };
    player.start_retries += 1;
    thread::sleep(START_RETRY_WAIT);
    let again = |d: String| {
        format!(
            "{first}; again after {} ms: {d}",
            START_RETRY_WAIT.as_millis()
        )
    };
    start_game(player, settings).map_err(|failure| match failure {
        Failure::NoAnswer(d) => Failure::NoAnswer(again(d)),
        Failure::Crash(d) => Failure::Crash(again(d)),
        Failure::Timeout(d) => Failure::Timeout(again(d)),
    })
}

fn failure_outcome(failure: Failure, loser: Stone) -> Outcome {
    let (reason, detail) = match failure {
        Failure::Crash(d) => (Reason::Crash, d),
        Failure::Timeout(d) => (Reason::TimeForfeit, d),
        Failure::NoAnswer(d) => (Reason::NoAnswer, d),
    };
    Outcome {
        winner: Some(loser.opponent()),
        reason,
        detail,
    }
}

/// The BOARD command for the side to move: every stone in move order, 1 = own, 2 = opponent.
fn board_lines(moves: &[MoveRecord], side: Stone) -> Vec<String> {
    let mut lines = Vec::with_capacity(moves.len() + 2);
    lines.push("BOARD".to_string());
    for (i, m) in moves.iter().enumerate() {
        let colour = if i % 2 == 0 {
            Stone::Black
        } else {
            Stone::White
        };
        let field = if colour == side { 1 } else { 2 };
        lines.push(format!("{},{},{}", m.x, m.y, field));
    }
    lines.push("DONE".to_string());
    lines
}

/// Plays one game; `players[0]` is black. Engines that crashed or were killed are left as
/// `None` (or dead) so the next game restarts them.
pub fn play(
    settings: &GameSettings,
    opening: &Opening,
    players: [&mut Player<'_>; 2],
) -> GameRecord {
    let [black, white] = players;
    let mut players = [black, white];
    let mut record = GameRecord {
        moves: Vec::new(),
        opening_len: opening.stones.len(),
        outcome: Outcome {
            winner: None,
            reason: Reason::FullBoard,
            detail: String::new(),
        },
        times: [Vec::new(), Vec::new()],
        late: [0, 0],
        spawns: [0, 0],
        about: [None, None],
        start_retries: [0, 0],
    };
    let finish = |mut record: GameRecord, players: &mut [&mut Player<'_>; 2], outcome: Outcome| {
        record.outcome = outcome;
        for (i, p) in players.iter_mut().enumerate() {
            record.spawns[i] = p.spawns;
            record.start_retries[i] = p.start_retries;
            record.about[i] = p
                .engine
                .as_ref()
                .and_then(|e| e.about_text().map(str::to_string));
            // A killed or exited engine is dropped so that the next game restarts it.
            let dead = p.engine.as_mut().map_or(false, |e| !e.is_alive());
            if dead {
                *p.engine = None;
            }
        }
        record
    };

    let mut referee = match Referee::new(settings.size, settings.table.clone(), settings.draw_after)
    {
        Some(r) => r,
        None => {
            let outcome = Outcome {
                winner: None,
                reason: Reason::FullBoard,
                detail: format!("unsupported board size {}", settings.size),
            };
            return finish(record, &mut players, outcome);
        }
    };
    for &(x, y) in &opening.stones {
        // Openings were validated on load; a stone that ends the game is kept as a draw.
        match referee.play(x as i64, y as i64) {
            Ok(Verdict::Continue) => record.moves.push(MoveRecord { x, y, ms: 0 }),
            _ => {
                let outcome = Outcome {
                    winner: None,
                    reason: Reason::FullBoard,
                    detail: format!("opening {opening} is not playable"),
                };
                return finish(record, &mut players, outcome);
            }
        }
    }

    for (i, colour) in [Stone::Black, Stone::White].into_iter().enumerate() {
        if let Err(failure) = start_with_retry(players[i], settings) {
            let outcome = failure_outcome(failure, colour);
            return finish(record, &mut players, outcome);
        }
    }

    let mut clocks = [
        Clock::new(players[0].spec.tc),
        Clock::new(players[1].spec.tc),
    ];
    let mut first_request = [true, true];
    loop {
        let side = referee.side_to_move();
        let i = side.index();
        let limits = clocks[i].begin_move();
        let mut lines = vec![format!("INFO time_left {}", limits.time_left_ms)];
        if first_request[i] || settings.send_board {
            if record.moves.is_empty() {
                lines.push("BEGIN".to_string());
            } else {
                lines.extend(board_lines(&record.moves, side));
            }
        } else if let Some(last) = record.moves.last() {
            lines.push(format!("TURN {},{}", last.x, last.y));
        }
        first_request[i] = false;
        let answer = match players[i].engine.as_mut() {
            Some(engine) => engine.request_move(&lines, limits.limit, settings.tolerance),
            None => Err(Failure::Crash("not running".to_string())),
        };
        let answer = match answer {
            Ok(a) => a,
            Err(failure) => {
                let outcome = failure_outcome(failure, side);
                return finish(record, &mut players, outcome);
            }
        };
        clocks[i].charge(answer.elapsed);
        record.times[i].push(answer.elapsed);
        if answer.late {
            record.late[i] += 1;
        }
        let loss = |reason: Reason, detail: String| Outcome {
            winner: Some(side.opponent()),
            reason,
            detail,
        };
        let (x, y) = match parse_move(&answer.line) {
            Some(xy) => xy,
            None => {
                let outcome = loss(Reason::Unparsable, format!("answered `{}`", answer.line));
                return finish(record, &mut players, outcome);
            }
        };
        let verdict = match referee.play(x, y) {
            Ok(v) => v,
            Err(MoveError::OffBoard) => {
                let outcome = loss(Reason::Illegal, format!("played {x},{y}, off the board"));
                return finish(record, &mut players, outcome);
            }
            Err(MoveError::Occupied) => {
                let outcome = loss(
                    Reason::Occupied,
                    format!("played {x},{y}, already occupied"),
                );
                return finish(record, &mut players, outcome);
            }
        };
        record.moves.push(MoveRecord {
            x: x as usize,
            y: y as usize,
            ms: answer.elapsed.as_millis() as u64,
        });
        let outcome = match verdict {
            Verdict::Continue => continue,
            Verdict::Five => Outcome {
                winner: Some(side),
                reason: Reason::Five,
                detail: format!("{x},{y}"),
            },
            Verdict::Forbidden => loss(Reason::Forbidden, format!("forbidden move {x},{y}")),
            Verdict::FullBoard => Outcome {
                winner: None,
                reason: Reason::FullBoard,
                detail: String::new(),
            },
            Verdict::DrawAfter => Outcome {
                winner: None,
                reason: Reason::DrawAfter,
                detail: format!("{} stones", record.moves.len()),
            },
        };
        return finish(record, &mut players, outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_fields_are_relative_to_the_receiver() {
        let moves = [
            MoveRecord { x: 7, y: 7, ms: 0 },
            MoveRecord { x: 8, y: 7, ms: 0 },
            MoveRecord { x: 8, y: 10, ms: 0 },
        ];
        // White to move: black's stones are the opponent's (2), white's own (1).
        assert_eq!(
            board_lines(&moves, Stone::White),
            vec!["BOARD", "7,7,2", "8,7,1", "8,10,2", "DONE"]
        );
        assert_eq!(
            board_lines(&moves[..2], Stone::Black),
            vec!["BOARD", "7,7,1", "8,7,2", "DONE"]
        );
    }

    #[test]
    fn forfeit_reasons() {
        assert!(Reason::TimeForfeit.is_forfeit());
        assert!(Reason::Crash.is_forfeit());
        assert!(!Reason::Five.is_forfeit());
        assert!(!Reason::Forbidden.is_forfeit());
        let o = failure_outcome(Failure::Timeout("x".into()), Stone::White);
        assert_eq!(o.winner, Some(Stone::Black));
        assert_eq!(o.reason, Reason::TimeForfeit);
    }
}

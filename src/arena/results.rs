//! The results file of `match --results FILE`: one JSON object per line, appended and flushed as
//! each game ends, which `pbrain-wuzi match merge` reads back (see [`super::merge`]).
//!
//! Two kinds of line, told apart by `"kind"`:
//! - `"match"`, written when a run starts: the match id, the engines, the pairs, the number of
//!   games in the whole schedule, the shard (`[K, N]`, or null for a whole run), rule, size,
//!   openings, time controls and seed. Everything `merge` needs to rebuild the final table.
//! - `"game"`, one per finished game: its number in the schedule, the engine pair and game pair
//!   (`game_pair`: the opening played with colours swapped) it belongs to, black and white, the
//!   opening, the result (`1-0`, `0-1`, `½-½`), the winner, the reason (the texts of
//!   [`Reason::text`]) and its detail, the number of stones, and per colour the answers, their
//!   total and slowest time in nanoseconds (so the averages come out exactly), late answers,
//!   process starts, `START` retries and the ABOUT answer.
//!
//! The match id is a hash of the schedule (every game's number, players and opening stones) and
//! of what decides a game besides the engines' programs: the engine names, time controls and
//! INFO options, rule, size, `--draw-after`, `--send-board`, `--tolerance` and `--init-time`.
//! Program paths, `dir=`, `--concurrency` and the output files are not in it, so hosts may
//! keep their binaries in different places; a shard run with other settings gets another id,
//! and `merge` reports its lines as foreign.

use std::{
    fs::{File, OpenOptions},
    io::{self, Write},
    path::Path,
    time::Duration,
};

use serde::{Deserialize, Serialize};

use super::{
    cli::Config,
    game::{GameRecord, Reason},
    summary::{GameTally, SideTally},
    Job,
};
use crate::board::Stone;

/// Version of the line format, written in every match line.
pub const FORMAT: u32 = 1;

/// One line of a results file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Line {
    /// The match a run belongs to.
    Match(MatchLine),
    /// One finished game.
    Game(GameLine),
}

/// What a run writes before its first game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchLine {
    /// The match id (see the module docs).
    #[serde(rename = "match")]
    pub id: String,
    /// [`FORMAT`].
    pub format: u32,
    /// The program that wrote it (`wuzi 0.1.0`).
    pub writer: String,
    /// Engine names, in command-line order (game lines refer to them by index).
    pub engines: Vec<String>,
    /// The pairs of engines that meet, by index, as the final table lists them.
    pub pairs: Vec<[usize; 2]>,
    /// Games in the whole schedule.
    pub games: usize,
    /// `[K, N]` for `--shard K/N`, null for a whole run.
    pub shard: Option<[usize; 2]>,
    /// Games this run plays (its shard's part of the schedule).
    pub shard_games: usize,
    /// Rule, as the `INFO rule` number.
    pub rule: i64,
    /// Board size.
    pub size: usize,
    /// Openings in use (after symmetries).
    pub openings: usize,
    /// Each opening played twice, colours swapped (the SPRT then counts game pairs).
    pub repeat: bool,
    /// `sequential` or `random`.
    pub order: String,
    /// The seed of the opening order.
    pub seed: u64,
    /// Each engine's time control, as the match header prints it.
    pub time_controls: Vec<String>,
    /// The day the run started (UTC).
    pub date: String,
}

/// One colour's side of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideLine {
    /// Moves answered.
    pub answers: u32,
    /// Total answer time in nanoseconds.
    pub time_ns: u64,
    /// Slowest answer in nanoseconds.
    pub slowest_ns: u64,
    /// Answers after the limit, within the tolerance.
    pub late: u32,
    /// Process starts during the game.
    pub starts: u32,
    /// `START`s sent again after an `ERROR` or no answer.
    pub start_retries: u32,
    /// ABOUT answer.
    pub about: Option<String>,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameLine {
    /// The match id.
    #[serde(rename = "match")]
    pub id: String,
    /// The shard that played it (`[K, N]`), null for a whole run.
    pub shard: Option<[usize; 2]>,
    /// Game number in the schedule (1-based).
    pub game: usize,
    /// Index of the pair of engines.
    pub pair: usize,
    /// Game-pair id: the two games of an opening with colours swapped share it.
    pub game_pair: usize,
    /// Engine indices: black, white.
    pub players: [usize; 2],
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// The opening (`line 3 sym 2`, `empty board`).
    pub opening: String,
    /// Its stones, `x,y` in move order.
    pub opening_stones: String,
    /// `1-0`, `0-1` or `½-½`.
    pub result: String,
    /// `black`, `white`, or null for a draw.
    pub winner: Option<String>,
    /// How it ended ([`Reason::text`]).
    pub reason: String,
    /// Details of the ending (the winning move, the offending answer, …).
    pub detail: String,
    /// Stones on the board at the end, opening included.
    pub moves: usize,
    /// Opening stones.
    pub opening_moves: usize,
    /// Black's side, then white's.
    pub sides: [SideLine; 2],
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl GameLine {
    /// The line for `record`, game `job` of the match `id`; `names` are the engines' names.
    pub fn new(
        id: &str,
        shard: Option<(usize, usize)>,
        job: &Job,
        record: &GameRecord,
        names: &[String],
        opening: String,
    ) -> GameLine {
        let tally = GameTally::new(job.pair, job.players, job.number, job.unit, record);
        let side = |s: &SideTally| SideLine {
            answers: s.answers,
            time_ns: duration_ns(s.time),
            slowest_ns: duration_ns(s.slowest),
            late: s.late,
            starts: s.starts,
            start_retries: s.start_retries,
            about: s.about.clone(),
        };
        GameLine {
            id: id.to_string(),
            shard: shard.map(|(k, n)| [k, n]),
            game: job.number,
            pair: job.pair,
            game_pair: job.unit,
            players: job.players,
            black: names[job.players[0]].clone(),
            white: names[job.players[1]].clone(),
            opening,
            opening_stones: if job.opening.stones.is_empty() {
                String::new()
            } else {
                job.opening.to_string()
            },
            result: score_text(record.outcome.winner).to_string(),
            winner: record.outcome.winner.map(|w| colour_name(w).to_string()),
            reason: record.outcome.reason.text().to_string(),
            detail: record.outcome.detail.clone(),
            moves: record.moves.len(),
            opening_moves: record.opening_len,
            sides: [side(&tally.sides[0]), side(&tally.sides[1])],
        }
    }

    /// The game as the totals count it; `Err` for a winner or reason this version does not
    /// know.
    pub fn tally(&self) -> Result<GameTally, String> {
        let winner = match self.winner.as_deref() {
            None => None,
            Some("black") => Some(Stone::Black),
            Some("white") => Some(Stone::White),
            Some(other) => return Err(format!("winner `{other}` is not black or white")),
        };
        let reason = Reason::ALL
            .iter()
            .copied()
            .find(|r| r.text() == self.reason)
            .ok_or_else(|| format!("reason `{}` is not known", self.reason))?;
        let side = |s: &SideLine| SideTally {
            answers: s.answers,
            time: Duration::from_nanos(s.time_ns),
            slowest: Duration::from_nanos(s.slowest_ns),
            late: s.late,
            starts: s.starts,
            start_retries: s.start_retries,
            about: s.about.clone(),
        };
        Ok(GameTally {
            number: self.game,
            pair: self.pair,
            unit: self.game_pair,
            players: self.players,
            winner,
            reason,
            sides: [side(&self.sides[0]), side(&self.sides[1])],
        })
    }
}

/// `1-0`, `0-1` or `½-½`.
pub fn score_text(winner: Option<Stone>) -> &'static str {
    match winner {
        None => "½-½",
        Some(Stone::Black) => "1-0",
        Some(Stone::White) => "0-1",
    }
}

fn colour_name(stone: Stone) -> &'static str {
    if stone == Stone::Black {
        "black"
    } else {
        "white"
    }
}

/// 64-bit FNV-1a: small, and the same on every platform and toolchain.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn text(&mut self, text: &str) {
        // A separator after each field, so ("ab", "c") and ("a", "bc") differ.
        for &b in text.as_bytes().iter().chain(&[0xff]) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The match id of `config` with the whole schedule `jobs` (before any `--shard` split).
pub fn match_id(config: &Config, jobs: &[Job]) -> String {
    let mut h = Fnv::new();
    h.text(&format!("wuzi results {FORMAT}"));
    for e in &config.engines {
        h.text(&e.name);
        h.text(&format!(
            "{} {} {}",
            e.tc.turn_ms, e.tc.game_ms, e.tc.inc_ms
        ));
        for (k, v) in &e.infos {
            h.text(&format!("{k}={v}"));
        }
    }
    h.text(&format!(
        "rule {} size {} draw {:?} board {} tolerance {} init {}",
        config.rule.info_bits(),
        config.size,
        config.draw_after,
        config.send_board,
        config.tolerance_ms,
        config.init_ms
    ));
    for job in jobs {
        h.text(&format!(
            "{} {} {:?} {} {}",
            job.number, job.pair, job.players, job.unit, job.opening
        ));
    }
    format!("{:016x}", h.0)
}

/// An open results file; every line is written whole and flushed at once.
pub struct ResultsWriter {
    file: File,
}

impl ResultsWriter {
    /// Opens `path` for appending (creating it), so a rerun of a shard adds to what it wrote
    /// before; `merge` counts a game read twice once.
    pub fn append(path: &Path) -> io::Result<ResultsWriter> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(ResultsWriter { file })
    }

    /// Writes one line.
    pub fn write(&mut self, line: &Line) -> io::Result<()> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        // One write per line: with O_APPEND the line lands whole even if another process
        // appends to the same file.
        self.file.write_all(text.as_bytes())?;
        self.file.flush()
    }
}

/// Parses one line of a results file.
pub fn parse_line(text: &str) -> Result<Line, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_lines_round_trip() {
        let line = GameLine {
            id: "00ff".to_string(),
            shard: Some([2, 3]),
            game: 7,
            pair: 0,
            game_pair: 3,
            players: [1, 0],
            black: "b".to_string(),
            white: "a".to_string(),
            opening: "line 2".to_string(),
            opening_stones: "7,7 8,7".to_string(),
            result: "0-1".to_string(),
            winner: Some("white".to_string()),
            reason: "time forfeit".to_string(),
            detail: "no move".to_string(),
            moves: 12,
            opening_moves: 2,
            sides: [
                SideLine {
                    answers: 5,
                    time_ns: 1_234_567_891,
                    slowest_ns: 400_000_001,
                    late: 1,
                    starts: 2,
                    start_retries: 1,
                    about: None,
                },
                SideLine {
                    answers: 5,
                    time_ns: 5,
                    slowest_ns: 1,
                    late: 0,
                    starts: 0,
                    start_retries: 0,
                    about: Some("a 1".to_string()),
                },
            ],
        };
        let text = serde_json::to_string(&Line::Game(line.clone())).unwrap();
        assert!(
            text.starts_with(r#"{"kind":"game","match":"00ff""#),
            "{text}"
        );
        assert_eq!(parse_line(&text), Ok(Line::Game(line.clone())));
        let tally = line.tally().unwrap();
        assert_eq!(tally.winner, Some(Stone::White));
        assert_eq!(tally.reason, Reason::TimeForfeit);
        assert_eq!(tally.sides[0].time, Duration::new(1, 234_567_891));
        let mut bad = line;
        bad.reason = "boredom".to_string();
        assert!(bad.tally().is_err());
        assert!(parse_line("{\"kind\":\"game\"}").is_err());
        assert!(parse_line("not json").is_err());
    }
}

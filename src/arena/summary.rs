//! Running totals of a match (per pair and per engine) and the text of the progress lines and
//! the final table.

use std::{collections::HashMap, time::Duration};

use super::{
    game::{GameRecord, Reason},
    stats::{fmt_elo_interval, Pentanomial, Sprt, SprtVerdict, Wld},
};
use crate::board::Stone;

/// Totals for one pair of engines, seen from the first engine (`engines.0`).
#[derive(Clone, Debug, Default)]
pub struct PairStats {
    /// Engine indices (first, second).
    pub engines: (usize, usize),
    /// Games seen from the first engine.
    pub wld: Wld,
    /// Complete game pairs (same opening, colours swapped).
    pub penta: Pentanomial,
    /// Games per reason: (total, games the first engine lost by it, games the second lost).
    pub reasons: HashMap<Reason, (u32, u32, u32)>,
    /// Scores of the first game of each unfinished game pair, by unit id.
    pending: HashMap<usize, f64>,
}

impl PairStats {
    /// Count of games that ended for `reason`.
    pub fn reason_count(&self, reason: Reason) -> u32 {
        self.reasons.get(&reason).map_or(0, |r| r.0)
    }
}

/// Totals for one engine over all its games.
#[derive(Clone, Debug, Default)]
pub struct EngineStats {
    /// Display name.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Moves answered.
    pub answers: u32,
    /// Sum of answer times.
    pub total: Duration,
    /// Slowest answer and the game number it was in.
    pub slowest: (Duration, usize),
    /// Answers after the limit, accepted within the tolerance.
    pub late: u32,
    /// Process starts (1 plus restarts after a crash or kill, per worker).
    pub starts: u32,
    /// `START`s sent again after an `ERROR` or no answer (a failed retry also counts as a
    /// `no answer` forfeit).
    pub start_retries: u32,
    /// Games lost by each forfeit reason.
    pub forfeits: HashMap<Reason, u32>,
    /// ABOUT answer, once seen.
    pub about: Option<String>,
}

impl EngineStats {
    /// Average answer time.
    pub fn average(&self) -> Duration {
        if self.answers == 0 {
            Duration::ZERO
        } else {
            self.total / self.answers
        }
    }
}

/// One engine's side of a finished game, as the totals count it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideTally {
    /// Moves answered.
    pub answers: u32,
    /// Sum of the answer times.
    pub time: Duration,
    /// Slowest answer (zero without answers).
    pub slowest: Duration,
    /// Answers after the limit, accepted within the tolerance.
    pub late: u32,
    /// Process starts during the game.
    pub starts: u32,
    /// `START`s sent again after an `ERROR` or no answer.
    pub start_retries: u32,
    /// ABOUT answer, if any.
    pub about: Option<String>,
}

/// A finished game as the totals count it: what a results line keeps of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameTally {
    /// Game number in the schedule.
    pub number: usize,
    /// Index of the pair of engines.
    pub pair: usize,
    /// Game-pair id (the opening played with colours swapped).
    pub unit: usize,
    /// Engine indices: black, white.
    pub players: [usize; 2],
    /// The winning colour, `None` for a draw.
    pub winner: Option<Stone>,
    /// How the game ended.
    pub reason: Reason,
    /// Black's side, then white's.
    pub sides: [SideTally; 2],
}

impl GameTally {
    /// The tally of `record`, game `number` of pair `pair` and game pair `unit`.
    pub fn new(
        pair: usize,
        players: [usize; 2],
        number: usize,
        unit: usize,
        record: &GameRecord,
    ) -> GameTally {
        let side = |i: usize| SideTally {
            answers: record.times[i].len() as u32,
            time: record.times[i].iter().sum(),
            slowest: record.times[i].iter().max().copied().unwrap_or_default(),
            late: record.late[i],
            starts: record.spawns[i],
            start_retries: record.start_retries[i],
            about: record.about[i].clone(),
        };
        GameTally {
            number,
            pair,
            unit,
            players,
            winner: record.outcome.winner,
            reason: record.outcome.reason,
            sides: [side(0), side(1)],
        }
    }
}

/// What a finished (or stopped) match produced.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Games played.
    pub games: usize,
    /// Per pair of engines.
    pub pairs: Vec<PairStats>,
    /// Per engine.
    pub engines: Vec<EngineStats>,
    /// Last LLR and verdict, with `--sprt`.
    pub sprt: Option<(f64, SprtVerdict)>,
}

/// Game score for the engine playing `colour`.
fn score_for(winner: Option<Stone>, colour: Stone) -> f64 {
    match winner {
        None => 0.5,
        Some(w) if w == colour => 1.0,
        Some(_) => 0.0,
    }
}

impl Summary {
    /// Empty totals for `names` and the given pairs.
    pub fn new(names: &[String], pairs: &[(usize, usize)]) -> Summary {
        Summary {
            games: 0,
            pairs: pairs
                .iter()
                .map(|&p| PairStats {
                    engines: p,
                    ..PairStats::default()
                })
                .collect(),
            engines: names
                .iter()
                .map(|n| EngineStats {
                    name: n.clone(),
                    ..EngineStats::default()
                })
                .collect(),
            sprt: None,
        }
    }

    /// Adds a game of pair `pair` with `black` and `white` (engine indices), game number
    /// `number`, and game-pair `unit` id.
    pub fn add(
        &mut self,
        pair: usize,
        players: [usize; 2],
        number: usize,
        unit: usize,
        record: &GameRecord,
    ) {
        self.add_tally(&GameTally::new(pair, players, number, unit, record));
    }

    /// Adds a game in the form a results line keeps it ([`Summary::add`] goes through here, so
    /// a merge of results lines counts exactly what the match counted).
    pub fn add_tally(&mut self, game: &GameTally) {
        self.games += 1;
        let stats = &mut self.pairs[game.pair];
        let first_colour = if game.players[0] == stats.engines.0 {
            Stone::Black
        } else {
            Stone::White
        };
        let score = score_for(game.winner, first_colour);
        if score == 1.0 {
            stats.wld.wins += 1;
        } else if score == 0.0 {
            stats.wld.losses += 1;
        } else {
            stats.wld.draws += 1;
        }
        match stats.pending.remove(&game.unit) {
            Some(other) => stats.penta.add(other, score),
            None => {
                stats.pending.insert(game.unit, score);
            }
        }
        let entry = stats.reasons.entry(game.reason).or_insert((0, 0, 0));
        entry.0 += 1;
        if let Some(winner) = game.winner {
            if winner == first_colour {
                entry.2 += 1;
            } else {
                entry.1 += 1;
            }
        }
        for (i, (&e, side)) in game.players.iter().zip(&game.sides).enumerate() {
            let colour = if i == 0 { Stone::Black } else { Stone::White };
            let es = &mut self.engines[e];
            es.games += 1;
            es.starts += side.starts;
            es.start_retries += side.start_retries;
            es.late += side.late;
            es.answers += side.answers;
            es.total += side.time;
            if side.answers > 0 && side.slowest > es.slowest.0 {
                es.slowest = (side.slowest, game.number);
            }
            if game.reason.is_forfeit() && game.winner == Some(colour.opponent()) {
                *es.forfeits.entry(game.reason).or_insert(0) += 1;
            }
            if es.about.is_none() {
                es.about = side.about.clone();
            }
        }
    }

    /// LLR of the (only) pair: pentanomial with game pairs, trinomial otherwise.
    pub fn llr(&self, sprt: &Sprt, pentanomial: bool) -> f64 {
        match self.pairs.first() {
            Some(p) if pentanomial => sprt.llr_pentanomial(&p.penta),
            Some(p) => sprt.llr_trinomial(&p.wld),
            None => 0.0,
        }
    }

    /// `A vs B: W-L-D score Elo ± m` for pair `pair`.
    pub fn pair_line(&self, pair: usize) -> String {
        let p = &self.pairs[pair];
        format!(
            "{} vs {}: {}-{}-{} ({:.3}) {}",
            self.engines[p.engines.0].name,
            self.engines[p.engines.1].name,
            p.wld.wins,
            p.wld.losses,
            p.wld.draws,
            p.wld.score(),
            fmt_elo_interval(&p.wld)
        )
    }

    /// The final table.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let width = self
            .pairs
            .iter()
            .map(|p| {
                self.engines[p.engines.0].name.len() + self.engines[p.engines.1].name.len() + 4
            })
            .max()
            .unwrap_or(10)
            .max(4);
        s.push_str(&format!(
            "{:<width$} {:>6} {:>14} {:>6} {:>22} {:>6}  {}\n",
            "pair", "games", "W-L-D", "score", "Elo (95%)", "LOS", "pairs [0 ½ 1 1½ 2]"
        ));
        for p in &self.pairs {
            let label = format!(
                "{} vs {}",
                self.engines[p.engines.0].name, self.engines[p.engines.1].name
            );
            let elo = fmt_elo_interval(&p.wld);
            let elo = elo.trim_start_matches("Elo ");
            let c = p.penta.0;
            s.push_str(&format!(
                "{:<width$} {:>6} {:>14} {:>6.3} {:>22} {:>5.1}%  [{} {} {} {} {}]\n",
                label,
                p.wld.games(),
                format!("{}-{}-{}", p.wld.wins, p.wld.losses, p.wld.draws),
                p.wld.score(),
                elo,
                100.0 * p.wld.los(),
                c[0],
                c[1],
                c[2],
                c[3],
                c[4]
            ));
            let first = &self.engines[p.engines.0].name;
            let second = &self.engines[p.engines.1].name;
            let count = |r: Reason| p.reasons.get(&r).copied().unwrap_or((0, 0, 0));
            let mut board = Vec::new();
            for reason in [Reason::Five, Reason::Forbidden] {
                let (total, lost_first, lost_second) = count(reason);
                if total > 0 || reason == Reason::Five {
                    board.push(format!(
                        "{reason} {total} ({first} lost {lost_first}, {second} lost {lost_second})"
                    ));
                }
            }
            for reason in [Reason::FullBoard, Reason::DrawAfter] {
                let (total, _, _) = count(reason);
                if total > 0 || reason == Reason::FullBoard {
                    board.push(format!("{reason} {total}"));
                }
            }
            let mut forfeits = Vec::new();
            for reason in Reason::ALL.iter().copied().filter(|r| r.is_forfeit()) {
                let (total, lost_first, lost_second) = count(reason);
                if total == 0 {
                    forfeits.push(format!("{reason} 0"));
                } else {
                    forfeits.push(format!(
                        "{reason} {total} ({first} {lost_first}, {second} {lost_second})"
                    ));
                }
            }
            s.push_str(&format!("  ended by: {}\n", board.join(", ")));
            s.push_str(&format!("  forfeits: {}\n", forfeits.join(", ")));
        }
        let name_width = self
            .engines
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(6)
            .max(6);
        s.push_str(&format!(
            "\n{:<name_width$} {:>6} {:>8} {:>9} {:>16} {:>5} {:>7} {:>7}  {}\n",
            "engine",
            "games",
            "answers",
            "avg ms",
            "slowest ms (game)",
            "late",
            "starts",
            "retries",
            "about"
        ));
        for e in &self.engines {
            s.push_str(&format!(
                "{:<name_width$} {:>6} {:>8} {:>9.1} {:>16} {:>5} {:>7} {:>7}  {}\n",
                e.name,
                e.games,
                e.answers,
                e.average().as_secs_f64() * 1000.0,
                format!("{} ({})", e.slowest.0.as_millis(), e.slowest.1),
                e.late,
                e.starts,
                e.start_retries,
                e.about.as_deref().unwrap_or("-")
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::game::Outcome;

    fn record(winner: Option<Stone>, reason: Reason, ms: u64) -> GameRecord {
        GameRecord {
            moves: Vec::new(),
            opening_len: 0,
            outcome: Outcome {
                winner,
                reason,
                detail: String::new(),
            },
            times: [
                vec![Duration::from_millis(ms)],
                vec![Duration::from_millis(2 * ms)],
            ],
            late: [0, 1],
            spawns: [1, 0],
            about: [None, Some("x 1".to_string())],
            start_retries: [0, 0],
        }
    }

    #[test]
    fn totals_and_pentanomial() {
        let names = vec!["a".to_string(), "b".to_string()];
        let mut s = Summary::new(&names, &[(0, 1)]);
        // Unit 0: a black wins, then b black wins: pair score 1 (index 2).
        s.add(
            0,
            [0, 1],
            1,
            0,
            &record(Some(Stone::Black), Reason::Five, 10),
        );
        s.add(
            0,
            [1, 0],
            2,
            0,
            &record(Some(Stone::Black), Reason::Five, 30),
        );
        // Unit 1: a black wins by b's time forfeit, then a white draws.
        s.add(
            0,
            [0, 1],
            3,
            1,
            &record(Some(Stone::Black), Reason::TimeForfeit, 5),
        );
        s.add(0, [1, 0], 4, 1, &record(None, Reason::FullBoard, 5));
        let p = &s.pairs[0];
        assert_eq!(
            p.wld,
            Wld {
                wins: 2,
                losses: 1,
                draws: 1
            }
        );
        assert_eq!(p.penta.0, [0, 0, 1, 1, 0]);
        assert_eq!(p.reason_count(Reason::Five), 2);
        assert_eq!(p.reasons[&Reason::TimeForfeit], (1, 0, 1));
        assert_eq!(s.engines[1].forfeits[&Reason::TimeForfeit], 1);
        assert!(s.engines[0].forfeits.is_empty());
        assert_eq!(s.engines[0].answers, 4);
        // a's slowest: 60 ms as white in game 2.
        assert_eq!(s.engines[0].slowest, (Duration::from_millis(60), 2));
        assert_eq!(s.engines[1].about.as_deref(), Some("x 1"));
        let table = s.table();
        assert!(table.contains("time forfeit 1 (a 0, b 1)"), "{table}");
        assert!(table.contains("crash 0,"), "{table}");
        assert!(table.contains("[0 0 1 1 0]"), "{table}");
        assert!(
            s.pair_line(0)
                .starts_with("a vs b: 2-1-1 (0.625) Elo +88.7"),
            "{}",
            s.pair_line(0)
        );
    }
}

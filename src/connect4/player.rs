//! The computer player and the hints: what a game front end (the play page) calls.
//!
//! Every call owns its solver and tables (or borrows a [`Computer`] kept for a game, which
//! reuses the previous move's work), so calls from several server threads never share state;
//! the opening book is immutable static data.

use std::{
    fmt,
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use rand::Rng;

use super::{
    book::{self, Book},
    heuristic::{self, Budget, PROVEN},
    solver::{discs_to_end, Limits, Mode, Solver},
    Outcome, Position,
};

/// The strongest level: perfect wherever the book or the solver answers in time.
pub const MAX_LEVEL: u8 = 5;
/// The weakest level.
pub const MIN_LEVEL: u8 = 1;
/// Largest solver table a [`Computer`] grows to: 2^22 buckets, 64 MiB.
const TABLE_BITS: u32 = 22;

/// What a move does, as far as it is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The column is full (or the game is over).
    Full,
    /// Not solved in time.
    Unknown,
    /// The mover wins; with `Some(n)`, with its `n`-th disc from now (this one is the first),
    /// against the best defence.
    Win(Option<u32>),
    /// A draw with best play.
    Draw,
    /// The mover loses; with `Some(n)`, to the opponent's `n`-th disc from now, at the latest.
    Loss(Option<u32>),
}

impl Verdict {
    /// The verdict of a solver score (Pons' convention) of the side to move in a position with
    /// `moves` discs on a board of `cells`.
    pub fn from_score(cells: usize, moves: usize, score: i32) -> Verdict {
        match score.signum() {
            0 => Verdict::Draw,
            1 => Verdict::Win(Some(discs_to_end(cells as u32, moves as u32, score))),
            _ => Verdict::Loss(Some(discs_to_end(cells as u32, moves as u32, score))),
        }
    }

    /// From a weak (sign only) score.
    fn from_sign(score: i32) -> Verdict {
        match score.signum() {
            0 => Verdict::Draw,
            1 => Verdict::Win(None),
            _ => Verdict::Loss(None),
        }
    }
}

impl fmt::Display for Verdict {
    /// `wins in 5`, `wins`, `draw`, `loses in 3`, `loses`, `unknown`, `full`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Full => f.write_str("full"),
            Verdict::Unknown => f.write_str("unknown"),
            Verdict::Win(Some(n)) => write!(f, "wins in {n}"),
            Verdict::Win(None) => f.write_str("wins"),
            Verdict::Draw => f.write_str("draw"),
            Verdict::Loss(Some(n)) => write!(f, "loses in {n}"),
            Verdict::Loss(None) => f.write_str("loses"),
        }
    }
}

/// How the computer chose its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// From the opening book (perfect).
    Book,
    /// The solver finished: perfect.
    Solved,
    /// The solver proved win, draw or loss but not the distance: the move keeps the result.
    SolvedWeak,
    /// The heuristic search chose it, to this depth in plies.
    Searched(u32),
}

/// The computer's move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The column, 0-based.
    pub column: usize,
    /// What the move does, when known.
    pub verdict: Verdict,
    /// How it was chosen.
    pub source: Source,
}

/// A computer player kept for a game: its solver table carries over from move to move.
pub struct Computer {
    solver: Solver,
}

impl Default for Computer {
    fn default() -> Self {
        Computer::new()
    }
}

impl Computer {
    /// A computer with an empty table (it starts at 64 KiB and grows up to 64 MiB).
    pub fn new() -> Computer {
        Computer {
            solver: Solver::new(TABLE_BITS),
        }
    }

    /// The verdict of every column of `pos` for the side to move, solved within `time_limit`
    /// (or until `stop`): first win/draw/loss for every column, then the distances.
    pub fn analyse(
        &mut self,
        pos: &Position,
        time_limit: Duration,
        stop: &AtomicBool,
    ) -> Vec<Verdict> {
        let mut verdicts: Vec<Verdict> = (0..pos.width())
            .map(|c| {
                if pos.can_play(c) {
                    Verdict::Unknown
                } else {
                    Verdict::Full
                }
            })
            .collect();
        if pos.outcome() != Outcome::Ongoing {
            return verdicts;
        }
        let cells = pos.width() * pos.height();
        let moves = pos.moves_played();
        if let Some(book) = Book::embedded(pos.width(), pos.height()) {
            for (v, s) in verdicts.iter_mut().zip(book.move_scores(pos)) {
                if let Some(s) = s {
                    *v = Verdict::from_score(cells, moves, s);
                }
            }
        }
        if !verdicts.contains(&Verdict::Unknown) {
            return verdicts;
        }
        let limits = Limits {
            deadline: Some(Instant::now() + time_limit),
            stop: Some(stop),
        };
        let weak = self.solver.move_scores(pos, Mode::Weak, limits);
        for (v, s) in verdicts.iter_mut().zip(weak) {
            if let (Verdict::Unknown, Some(s)) = (*v, s) {
                *v = Verdict::from_sign(s);
            }
        }
        let strong = self.solver.move_scores(pos, Mode::Strong, limits);
        for (v, s) in verdicts.iter_mut().zip(strong) {
            if let (Verdict::Unknown | Verdict::Win(None) | Verdict::Loss(None), Some(s)) = (*v, s)
            {
                *v = Verdict::from_score(cells, moves, s);
            }
        }
        verdicts
    }

    /// The computer's move at `level` ([`MIN_LEVEL`]..=[`MAX_LEVEL`], clamped) within
    /// `time_limit` (or until `stop`); `None` if the game is over.
    ///
    /// Levels 1 to 4 search 1, 2, 4 and up to 12 plies with the evaluation, with less random
    /// noise on the move scores at each level (level 1 plays nearly at random, but takes a win
    /// in one and blocks a single threat). Level 5 plays from the book on 7×6, else runs the
    /// solver (win/draw/loss first, then the exact score) and the heuristic search side by
    /// side for the whole time: a solved move is perfect; a move proven to win or draw keeps
    /// that result; otherwise the deepest heuristic search decides, and it plays any forced win
    /// it finds.
    pub fn best_move(
        &mut self,
        pos: &Position,
        level: u8,
        time_limit: Duration,
        stop: &AtomicBool,
    ) -> Option<Choice> {
        if pos.outcome() != Outcome::Ongoing {
            return None;
        }
        let deadline = Instant::now() + time_limit;
        let level = level.clamp(MIN_LEVEL, MAX_LEVEL);
        if level < MAX_LEVEL {
            let (depth, noise) = match level {
                1 => (1, 200),
                2 => (2, 60),
                3 => (4, 20),
                _ => (12, 3),
            };
            let mut rng = rand::thread_rng();
            let budget = Budget {
                max_depth: depth,
                deadline: Some(deadline),
                stops: [Some(stop), None],
            };
            let found = heuristic::search(pos, budget, &mut |_| rng.gen_range(0..noise))?;
            return Some(searched(pos, found));
        }
        if let Some(book) = Book::embedded(pos.width(), pos.height()) {
            let scores = book.move_scores(pos);
            let complete = (0..pos.width()).all(|c| !pos.can_play(c) || scores[c].is_some());
            if complete {
                if let Some(column) = book::choose(pos, &scores) {
                    let score = scores[column].unwrap_or(0);
                    return Some(Choice {
                        column,
                        verdict: Verdict::from_score(
                            pos.width() * pos.height(),
                            pos.moves_played(),
                            score,
                        ),
                        source: Source::Book,
                    });
                }
            }
        }
        let solver_done = AtomicBool::new(false);
        let solver = &mut self.solver;
        let (weak, strong, found) = std::thread::scope(|scope| {
            let search = scope.spawn(|| {
                let budget = Budget {
                    max_depth: u32::MAX,
                    deadline: Some(deadline),
                    stops: [Some(stop), Some(&solver_done)],
                };
                heuristic::search(pos, budget, &mut |_| 0)
            });
            let limits = Limits {
                deadline: Some(deadline),
                stop: Some(stop),
            };
            let weak = solver.best_move(pos, Mode::Weak, limits);
            let strong = weak.and_then(|_| solver.best_move(pos, Mode::Strong, limits));
            solver_done.store(true, Ordering::Relaxed);
            // A panic in the search thread is a bug; the solver's answer stands without it.
            (weak, strong, search.join().ok().flatten())
        });
        let cells = pos.width() * pos.height();
        if let Some((column, score)) = strong {
            return Some(Choice {
                column,
                verdict: Verdict::from_score(cells, pos.moves_played(), score),
                source: Source::Solved,
            });
        }
        match (weak, found) {
            (Some((column, s)), found) if s >= 0 => {
                // A forced win the heuristic search found is as good, and faster to play.
                if let Some(f) = found.filter(|f| s > 0 && f.score >= PROVEN) {
                    return Some(searched(pos, f));
                }
                Some(Choice {
                    column,
                    verdict: Verdict::from_sign(s),
                    source: Source::SolvedWeak,
                })
            }
            (_, Some(f)) => Some(searched(pos, f)),
            (Some((column, s)), None) => Some(Choice {
                column,
                verdict: Verdict::from_sign(s),
                source: Source::SolvedWeak,
            }),
            (None, None) => pos.legal_columns().first().map(|&column| Choice {
                column,
                verdict: Verdict::Unknown,
                source: Source::Searched(0),
            }),
        }
    }
}

fn searched(pos: &Position, found: heuristic::Found) -> Choice {
    let cells = pos.width() * pos.height();
    let verdict = if found.score >= PROVEN {
        Verdict::from_score(cells, pos.moves_played(), found.score - PROVEN)
    } else if found.score <= -PROVEN {
        Verdict::from_score(cells, pos.moves_played(), found.score + PROVEN)
    } else {
        Verdict::Unknown
    };
    Choice {
        column: found.column,
        verdict,
        source: Source::Searched(found.depth),
    }
}

/// [`Computer::analyse`] with a computer of its own.
pub fn analyse(pos: &Position, time_limit: Duration, stop: &AtomicBool) -> Vec<Verdict> {
    Computer::new().analyse(pos, time_limit, stop)
}

/// [`Computer::best_move`] with a computer of its own; the column only.
pub fn best_move(
    pos: &Position,
    level: u8,
    time_limit: Duration,
    stop: &AtomicBool,
) -> Option<usize> {
    Computer::new()
        .best_move(pos, level, time_limit, stop)
        .map(|c| c.column)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(300);

    fn pos(w: usize, h: usize, moves: &str) -> Position {
        Position::from_moves(w, h, moves).expect("legal")
    }

    /// A game of `discs` discs where nobody has won: column (5 × move + 3) mod width, or the
    /// next one that is legal and does not end the game.
    fn quiet_game(w: usize, h: usize, discs: usize) -> Position {
        let mut game = Position::new(w, h).expect("supported");
        while game.moves_played() < discs {
            let start = (5 * game.moves_played() + 3) % w;
            let col = (0..w)
                .map(|k| (start + k) % w)
                .find(|&c| {
                    let mut next = game.clone();
                    next.play(c)
                        .map_or(false, |p| p.outcome == Outcome::Ongoing)
                })
                .expect("a quiet move");
            game.play(col).expect("legal");
        }
        game
    }

    #[test]
    fn verdict_texts() {
        assert_eq!(Verdict::from_score(42, 0, 1).to_string(), "wins in 21");
        assert_eq!(Verdict::from_score(42, 1, -1).to_string(), "loses in 20");
        assert_eq!(Verdict::from_score(49, 6, 22).to_string(), "wins in 1");
        assert_eq!(Verdict::from_score(49, 5, -22).to_string(), "loses in 1");
        assert_eq!(Verdict::Draw.to_string(), "draw");
        assert_eq!(Verdict::Win(None).to_string(), "wins");
    }

    #[test]
    fn every_level_takes_a_win_in_one_and_blocks_one_threat() {
        let stop = AtomicBool::new(false);
        for level in MIN_LEVEL..=MAX_LEVEL {
            // X to move: 4 completes 1-2-3-4 on the bottom row.
            assert_eq!(
                best_move(&pos(7, 7, "112233"), level, SHORT, &stop),
                Some(3)
            );
            // O to move must block 4.
            assert_eq!(best_move(&pos(7, 7, "11223"), level, SHORT, &stop), Some(3));
        }
        assert_eq!(
            best_move(&pos(7, 7, "1212121"), MAX_LEVEL, SHORT, &stop),
            None
        );
    }

    #[test]
    fn the_top_level_plays_a_solved_move_on_seven_by_seven() {
        let stop = AtomicBool::new(false);
        let mut computer = Computer::new();
        // X makes two threats on the bottom row with 3 or 6.
        let choice = computer
            .best_move(&pos(7, 7, "4455"), MAX_LEVEL, SHORT, &stop)
            .expect("game on");
        assert!(choice.column == 2 || choice.column == 5, "{choice:?}");
        assert_eq!(choice.verdict, Verdict::Win(Some(2)));
        // An endgame the solver finishes at once: the verdicts agree with its scores.
        let end = quiet_game(7, 7, 34);
        let verdicts = computer.analyse(&end, Duration::from_secs(5), &stop);
        let scores = Solver::new(16).move_scores(&end, Mode::Strong, Limits::none());
        for (v, s) in verdicts.iter().zip(scores) {
            match s {
                Some(s) => assert_eq!(*v, Verdict::from_score(49, end.moves_played(), s)),
                None => assert_eq!(*v, Verdict::Full),
            }
        }
        let best = verdicts
            .iter()
            .position(|v| matches!(v, Verdict::Win(_)))
            .or_else(|| verdicts.iter().position(|v| *v == Verdict::Draw));
        let choice = computer
            .best_move(&end, MAX_LEVEL, SHORT, &stop)
            .expect("game on");
        assert_eq!(choice.source, Source::Solved);
        if let Some(b) = best {
            assert_eq!(
                std::mem::discriminant(&verdicts[choice.column]),
                std::mem::discriminant(&verdicts[b])
            );
        }
    }

    #[test]
    fn a_stopped_analysis_says_unknown() {
        let stop = AtomicBool::new(true);
        let verdicts = analyse(&pos(7, 7, "4"), SHORT, &stop);
        assert_eq!(verdicts.len(), 7);
        assert!(
            verdicts.iter().all(|v| *v == Verdict::Unknown),
            "{verdicts:?}"
        );
        let full = pos(7, 6, "444444");
        let verdicts = analyse(&full, Duration::ZERO, &AtomicBool::new(false));
        assert_eq!(verdicts[3], Verdict::Full);
    }

    #[test]
    fn a_whole_game_on_seven_by_seven_against_the_computer() {
        // Level 3 (X) against level 5 (O), 100 ms a move: every move legal, the game ends.
        let stop = AtomicBool::new(false);
        let mut game = Position::new(7, 7).expect("7×7");
        let mut computer = Computer::new();
        while game.outcome() == Outcome::Ongoing {
            let level = if game.moves_played() % 2 == 0 {
                3
            } else {
                MAX_LEVEL
            };
            let choice = computer
                .best_move(&game, level, Duration::from_millis(100), &stop)
                .expect("game on");
            game.play(choice.column).expect("a legal move");
        }
        assert!(game.moves_played() >= 7);
        if let Outcome::Won(_) = game.outcome() {
            assert!(game.winning_line().len() >= 4);
        }
    }
}

//! Connect Four: a second game beside Gomoku, sharing no board or search code with it (see
//! STYLE.md, "How the layout grows"). Any board of 1 to 9 columns with
//! `width * (height + 1) <= 64` (7×6, 7×7, 6×7, 8×7, …): discs fall to the lowest free cell of
//! their column, four in a row in any direction wins, a full board is a draw.
//!
//! - [`position`]: the game as players see it ([`Position`]): moves, undo, result, winning
//!   four, move strings and ASCII diagrams.
//! - [`bits`]: the bitboard layout and tricks under everything else.
//! - [`solver`]: the exact solver ([`Solver`]), scores in Pons' convention; [`table`] is its
//!   transposition table.
//! - [`book`]: the 7×6 opening book, made by the solver and embedded.
//! - [`heuristic`]: iterative deepening on an evaluation, for positions the solver does not
//!   finish in time.
//! - [`player`]: the computer player and the hints, for a front end.
//! - [`cli`]: `pbrain-wuzi connect4 solve | bench | book`.
//!
//! # Scores
//!
//! Pons' convention on any size: 0 is a draw; a win for the side to move scores one plus the
//! number of discs it still holds after its winning disc (on 7×6, 22 minus the discs it has
//! played when it makes its four; 1 for a win with its last disc); a loss scores the negative of
//! the opponent's win. The empty 7×6 board scores +1: the first player wins, with its last disc.
//! [`Verdict`] turns a score into "wins in N" (the mover's N-th disc from now makes the four),
//! "draw" or "loses in N".
//!
//! # The API for a front end
//!
//! Columns are 0-based, rows count from 0 at the bottom (a page that draws `y = 0` at the top
//! shows row `r` at `y = height - 1 - r`). Everything is `Send`; no call shares mutable state
//! with another, so server threads may call at will.
//!
//! ```no_run
//! use std::{sync::atomic::AtomicBool, time::Duration};
//! use wuzi::connect4::{self, Outcome, Position, Verdict};
//!
//! let mut pos = Position::new(7, 6).expect("a supported size");
//! let played = pos.play(3).expect("a legal move");        // Played { row: 0, outcome }
//! assert_eq!(played.outcome, Outcome::Ongoing);
//! assert_eq!(pos.legal_columns(), vec![0, 1, 2, 3, 4, 5, 6]);
//! let stop = AtomicBool::new(false);                       // set it to abandon a search
//! // Hints: one verdict per column for the side to move.
//! let hints: Vec<Verdict> = connect4::analyse(&pos, Duration::from_secs(2), &stop);
//! println!("{}", hints[3]);                                // "loses in 20", "draw", "wins in 5"
//! // The computer's move: level 1 (weakest) to 5 (perfect when solvable in time).
//! let col = connect4::best_move(&pos, connect4::MAX_LEVEL, Duration::from_secs(2), &stop);
//! pos.play(col.expect("the game is not over")).expect("a legal move");
//! pos.undo();
//! // After a winning move: pos.is_won(), pos.outcome() == Outcome::Won(player), and
//! // pos.winning_line() lists the cells (col, row) of the four (or five, or two fours).
//! let text = pos.to_moves();                                // "4": 1-based column digits
//! let back = Position::from_moves(7, 6, &text).expect("our own string");
//! assert_eq!(back, pos);
//! ```
//!
//! A game kept on the server can hold a [`Computer`] instead of calling the free functions:
//! [`Computer::best_move`] also says how the move was chosen (book, solved, searched) and what
//! it leads to, and its solver's table carries the previous moves' work.
//!
//! Time: on 7×6 the book answers the first moves at once; later, positions with 30-odd empty
//! cells take the solver a second or two, and everything later much less. On 7×7 the solver
//! finishes from about the middle of the game on; before that the heuristic search plays (and
//! the hints say "unknown").

pub mod bits;
pub mod book;
pub mod cli;
pub mod heuristic;
pub mod player;
pub mod position;
pub mod solver;
pub mod table;

pub use cli::main;
pub use player::{analyse, best_move, Choice, Computer, Source, Verdict, MAX_LEVEL, MIN_LEVEL};
pub use position::{MoveError, Outcome, ParseError, Played, Player, Position};
pub use solver::{Limits, Mode, Solver};

//! wuzi: a Gomoku / Renju / Caro engine that speaks the Gomocup (Piskvork) brain protocol.
//!
//! Data flows one way: **protocol → session → search → movegen/eval → board → rules**.
//!
//! ```text
//! stdin ─reader thread─> protocol::Parser ─Command─> channel ─> session (engine thread)
//!          │ YXSTOP/STOP, END: flags set at once                │ Board::make / undo
//!          │ EOF: like END                                       │ time::Budget
//!                                                                ▼
//!                          search::Searcher::think(&mut Board, Limits) → SearchResult
//!                                  │ movegen → board → rules, eval
//!                                  ▼
//!                  session prints the move on stdout (its only writer)
//! ```
//!
//! - [`protocol`]: text ⇄ [`protocol::Command`] / [`protocol::Reply`]; pure.
//! - [`session`]: the running brain: reader thread, settings, the one stdout writer.
//! - [`board`]: padded board, incremental line patterns, threat counts, Zobrist key.
//! - [`rules`]: every difference between freestyle, exact five, renju and caro.
//! - [`movegen`], [`eval`], [`search`], [`tt`], [`time`]: the engine.
//! - [`params`]: the search's tunable constants by name (`INFO param_<name>`, `pbrain-wuzi params`).
//! - [`score`]: search scores and mate distances, shared by the evaluation, the table and the search.
//! - [`vcf`], [`vct`]: threat searches (continuous fours; fours and open threes) used at the root.
//! - [`bench`]: the deterministic node-count signature.
//! - [`arena`]: engine-vs-engine matches (`pbrain-wuzi match`).
//! - [`compare`]: the classic search-algorithm table (`pbrain-wuzi compare`).
//! - [`connect4`]: Connect Four: bitboard position, exact solver, opening book, computer player
//!   (`pbrain-wuzi connect4`).
//! - [`play`]: the board page (`pbrain-wuzi play`): a web server, the games and the players.

pub mod arena;
pub mod bench;
pub mod board;
pub mod compare;
pub mod connect4;
pub mod eval;
pub mod movegen;
pub mod params;
pub mod play;
pub mod protocol;
pub mod rules;
pub mod score;
pub mod search;
pub mod session;
pub mod time;
pub mod tt;
pub mod vcf;
pub mod vct;

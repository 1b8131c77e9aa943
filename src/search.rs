//! Iterative-deepening negamax alpha-beta with principal variation search (PVS), aspiration
//! windows at the root (sequential search) and a transposition table.
//!
//! The search never prints and never reads input: the caller passes [`Limits`] (depth, nodes,
//! deadlines) and a stop predicate (YXSTOP / END from the reader thread), and gets a
//! [`SearchResult`] back; an optional callback sees every completed iteration.
//!
//! Before the tree search, threat searches at the root: a VCF ([`crate::vcf`]) or a VCT
//! ([`crate::vct`]) of the side to move is played at once; if the opponent would have a VCF were
//! it to move, the root keeps only the moves after which it no longer has one.
//!
//! Inside the tree, tactics come from the board's threat counts before any move is generated: a
//! side that can make a five has won; a side facing two fives has lost; a side that can make a
//! straight four while the opponent has no five wins in three plies. Forced blocks of a four cost
//! no depth and are searched below depth 0 too, and so are the defences against an open three
//! (down to [`Params::quiescence_plies`] plies below: the moves on the opponent's four squares
//! and the side's own four-threes, and its other fours only when those have all lost), so the
//! horizon never hides a four or an open three. At a leaf where the opponent has no open
//! three, the side to move's four-threes and double threes are searched before the static
//! evaluation is trusted.
//!
//! Move ordering: hash move, then threat-first ordering from move generation plus two killer
//! moves per ply and a history score. Late quiet moves (neither making nor stopping a four or a
//! double threat) are searched with a reduced depth first (late-move reductions) and, at
//! shallow non-PV nodes, the latest of them not at all (move-count pruning). At shallow non-PV
//! nodes where the opponent has no open three, a static evaluation far above beta is a cut-off
//! (reverse futility pruning), and one far below alpha drops every quiet move (futility
//! pruning); where the transposition table's bound says the node is worth more (or less) than
//! its static evaluation, these tests read the table's score instead. A node four or more
//! plies deep without a hash move is searched a ply shallower (internal iterative reduction);
//! at six or more, a hash move that alone holds the entry's score when the others are searched
//! at half depth is searched a ply deeper (singular extension).
//!
//! Inside the tree, depth is counted in sixteenths of a ply ([`PLY`]): a node reads its depth
//! in whole plies, rounded down, and hands the fraction on to its children, so a reduction or
//! an extension may be a fraction of a ply (the transposition table keeps whole plies).
//!
//! Time: iterations start until the planned (soft) time, if there is one, stretched while the
//! best move changes or the score falls and shortened when both are stable; the hard limit
//! stops the search wherever it is.

use std::{
    sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use rayon::prelude::*;

pub use crate::score::{
    describe_score, loss_in, score_from_tt, score_to_tt, win_in, Score, INFINITY, WIN,
    WIN_THRESHOLD,
};
use crate::{
    board::{Board, Pos},
    eval,
    movegen::{self, MoveKind},
    params::Params,
    rules::Threat,
    tt::{Bound, TranspositionTable},
    vcf::{VcfOutcome, VcfSolver},
    vct::VctSolver,
};

/// Deepest ply the search reaches.
pub const MAX_PLY: i32 = 200;
/// Deepest nominal depth of iterative deepening.
pub const MAX_DEPTH: i32 = 60;

/// What bounds a search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest iteration (1..=[`MAX_DEPTH`]).
    pub max_depth: i32,
    /// Stop after about this many nodes (0 = no limit).
    pub max_nodes: u64,
    /// No new iteration starts after this (planned time; `None`: iterate until `hard`).
    pub soft: Option<Instant>,
    /// The search stops here, wherever it is.
    pub hard: Option<Instant>,
}

impl Limits {
    /// A fixed-depth search with no time or node limit (bench, tests).
    pub fn depth(depth: i32) -> Limits {
        Limits {
            max_depth: depth.clamp(1, MAX_DEPTH),
            max_nodes: 0,
            soft: None,
            hard: None,
        }
    }
}

/// The outcome of a search (or of one completed iteration).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Best move; `None` only when no square is free.
    pub best: Option<Pos>,
    /// Score of `best` for the side to move.
    pub score: Score,
    /// Last completed depth (0 when the move was forced or found without search).
    pub depth: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// Principal variation, starting with `best`.
    pub pv: Vec<Pos>,
    /// Time spent.
    pub elapsed: Duration,
    /// The best root moves, best first, each with its own score, depth and principal
    /// variation: one line for an ordinary search, up to [`Searcher::multi_pv`] lines for a
    /// multi-PV search (fewer when fewer root moves are worth searching: a forced block, a win
    /// found by the threat searches at the root). `lines[0].mv` is `best`.
    pub lines: Vec<Line>,
    /// Root moves dropped before the tree search because the opponent then wins by continuous
    /// fours (the VCF check at the root): proven lost, in move order.
    pub refuted: Vec<Pos>,
}

/// One root move of a search with its score, the depth it was searched to and its principal
/// variation (starting with the move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The root move.
    pub mv: Pos,
    /// Its score for the side to move (exact when the line is complete).
    pub score: Score,
    /// The depth of the iteration that found it (0: found without a tree search).
    pub depth: i32,
    /// Principal variation, starting with `mv`.
    pub pv: Vec<Pos>,
}

/// What a search reports while it runs ([`Searcher::think_with`]).
#[derive(Debug)]
pub enum Progress<'r> {
    /// Iteration `depth` starts searching root move `mv`. With a thread pool only the move
    /// searched alone first is announced.
    Enter {
        /// The iteration.
        depth: i32,
        /// The root move.
        mv: Pos,
    },
    /// Root move `mv` has been searched in iteration `depth`. `score` is exact when `best`
    /// (the move is the new best of this pass), otherwise a bound; an upper bound at or below
    /// `-WIN_THRESHOLD` proves the move lost.
    Leave {
        /// The iteration.
        depth: i32,
        /// The root move.
        mv: Pos,
        /// Its score or bound for the side to move.
        score: Score,
        /// It became the best move of this pass.
        best: bool,
    },
    /// An iteration completed (what [`Searcher::think`]'s callback sees).
    Iteration(&'r SearchResult),
}

/// What the root search looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    /// The best move (and, with multi-PV, the next best ones).
    Best,
    /// The move after which the score of the side to move is closest to this.
    BalanceOne(Score),
    /// The two moves (one of each side) after which the score of the side to move, which is
    /// to move again, is closest to this.
    BalanceTwo(Score),
}

/// A result whose `lines` are filled in: one line for the best move when the search found
/// none (a decided or forced position), `best` moved to the front otherwise.
fn with_lines(mut result: SearchResult) -> SearchResult {
    let best = match result.best {
        Some(best) => best,
        None => return result,
    };
    match result.lines.iter().position(|l| l.mv == best) {
        Some(0) => {}
        Some(k) => {
            let line = result.lines.remove(k);
            result.lines.insert(0, line);
        }
        None => result.lines.insert(
            0,
            Line {
                mv: best,
                score: result.score,
                depth: result.depth,
                pv: result.pv.clone(),
            },
        ),
    }
    if let Some(first) = result.lines.first_mut() {
        first.score = result.score;
        if result.pv.first() == Some(&best) && result.pv.len() > first.pv.len() {
            first.pv = result.pv.clone();
        } else {
            result.pv = first.pv.clone();
        }
    }
    result
}

/// State shared by every thread of one search.
struct Context<'a> {
    tt: &'a TranspositionTable,
    limits: Limits,
    stop: &'a (dyn Fn() -> bool + Sync),
    /// Nodes flushed by the workers (each adds its count in batches).
    nodes: AtomicU64,
    /// Set by the first worker that sees a stop condition; every worker then unwinds.
    aborted: AtomicBool,
    /// Threads for the parallel parts; `None` keeps the search sequential.
    pool: Option<&'a rayon::ThreadPool>,
    /// The tunable constants.
    params: Params,
}

impl Context<'_> {
    /// True once the caller asked to stop or the hard limit has passed.
    fn stopped(&self) -> bool {
        (self.stop)() || self.limits.hard.map_or(false, |t| Instant::now() >= t)
    }
}

/// Shallowest remaining depth at which a node searches its later moves in parallel.
const SPLIT_DEPTH: i32 = 4;

/// How often (in nodes) a worker flushes its node count and checks the stop conditions.
const CHECK_INTERVAL: u64 = 1024;

/// Late-move pruning: at a non-PV node with this many plies to go (the index, deeper ones use
/// the last), quiet moves after this many are not searched: 3 + depth^1.32, rounded.
const LMP_MOVES: [usize; 33] = [
    3, 4, 5, 7, 9, 11, 13, 16, 18, 21, 23, 26, 29, 32, 35, 38, 41, 45, 48, 51, 55, 58, 62, 65, 69,
    73, 76, 80, 84, 88, 92, 96, 100,
];
// Late-move reductions, reverse futility and futility pruning (unless the opponent has an
// open three or a four), the killer and history ordering bonuses and the aspiration window
// take their constants from `Params` (`src/params.rs`), so that a tuner can change them.

/// Per-thread move-ordering memory: two killer moves per ply (quiet moves that caused a
/// cut-off at that ply) and a history score per colour and square.
#[derive(Clone)]
struct Heuristics {
    killers: Vec<[Option<Pos>; 2]>,
    history: Vec<[i32; 2]>,
    /// Per previous move (square index) and side: the move that last refuted it.
    counters: Vec<[Option<Pos>; 2]>,
    /// Ordering bonus of the counter-move (0: no counter-moves).
    counter_bonus: i32,
    /// Hundredths of a cut-off's history bonus taken from the quiet moves tried before it.
    history_malus: i32,
    /// Ordering bonus of the first and second killer move.
    killer_bonus: [i32; 2],
    /// History scores are divided by this before they join the ordering score.
    history_scale: i32,
    /// Largest ordering bonus the history gives.
    history_max_bonus: i32,
    /// Candidate `history_gravity` (0: off): the bound of a history score, which each update
    /// approaches by its share (see [`Heuristics::add_history`]).
    history_gravity: i32,
}

impl Heuristics {
    fn new(params: &Params) -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; MAX_PLY as usize + 2],
            history: vec![[0; 2]; crate::board::NUM_CELLS],
            counters: vec![[None; 2]; crate::board::NUM_CELLS],
            counter_bonus: params.countermove_bonus,
            history_malus: params.history_malus,
            killer_bonus: [params.killer_first, params.killer_second],
            history_scale: params.history_scale.max(1),
            history_max_bonus: params.history_max_bonus,
            history_gravity: params.history_gravity,
        }
    }

    /// Adds `bonus` (negative: a malus) to the history of `mv` for `side`. By default the
    /// scores add up, within ±2²⁴; with a gravity G each update moves the score by
    /// `bonus − score·|bonus|/G` (Stockfish's and Rapfi's history), so it stays within ±G and
    /// recent cut-offs weigh more than old ones.
    fn add_history(&mut self, side: usize, mv: Pos, bonus: i32) {
        let h = &mut self.history[mv.index()][side];
        let g = self.history_gravity;
        *h = if g > 0 {
            let b = bonus.clamp(-g, g);
            *h + b - (i64::from(*h) * i64::from(b.abs()) / i64::from(g)) as i32
        } else {
            h.saturating_add(bonus).clamp(-(1 << 24), 1 << 24)
        };
    }

    fn bonus(&self, side: usize, ply: i32, previous: Option<Pos>, mv: Pos) -> i32 {
        let counter = match previous {
            Some(prev)
                if self.counter_bonus > 0 && self.counters[prev.index()][side] == Some(mv) =>
            {
                self.counter_bonus
            }
            _ => 0,
        };
        let killers = self.killers[ply as usize];
        let k = if killers[0] == Some(mv) {
            self.killer_bonus[0]
        } else if killers[1] == Some(mv) {
            self.killer_bonus[1]
        } else {
            0
        };
        let h = self.history[mv.index()][side];
        let history = if self.history_gravity > 0 {
            (i64::from(h) * i64::from(self.history_max_bonus) / i64::from(self.history_gravity))
                as i32
        } else {
            h / self.history_scale
        };
        counter + k + history.clamp(-self.history_max_bonus, self.history_max_bonus)
    }

    /// Takes a cut-off's history bonus off a move that failed low.
    fn fail_low(&mut self, side: usize, depth: i32, mv: Pos) {
        self.add_history(side, mv, -depth * depth);
    }

    fn is_killer(&self, ply: i32, mv: Pos) -> bool {
        self.killers[ply as usize].contains(&Some(mv))
    }

    /// Records a quiet move that refuted a node after the quiet moves `tried` failed to, and
    /// the move it answered.
    fn cutoff(
        &mut self,
        (side, ply, depth): (usize, i32, i32),
        previous: Option<Pos>,
        mv: Pos,
        tried: impl Iterator<Item = Pos>,
    ) {
        if self.counter_bonus > 0 {
            if let Some(prev) = previous {
                self.counters[prev.index()][side] = Some(mv);
            }
        }
        if self.history_malus > 0 {
            let malus = depth * depth * self.history_malus / 100;
            for t in tried {
                self.add_history(side, t, -malus);
            }
        }
        let k = &mut self.killers[ply as usize];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
        self.add_history(side, mv, depth * depth);
    }
}

/// What a node's plan needs to know of the node beyond its depth and ply.
#[derive(Clone, Copy, Debug, Default)]
struct NodeKind {
    /// Expected to fail high (a cut node).
    cut: bool,
    /// Searched with an open window (a PV node).
    pv: bool,
    /// Its static evaluation rose since two plies up.
    improving: bool,
    /// A PV node, or one whose table entry was stored at one (Stockfish's "ttPv").
    tt_pv: bool,
}

/// Which quiet moves a node's plan drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum QuietPruning {
    /// None (PV nodes).
    None,
    /// Those from this move index on (move-count pruning).
    Late(usize),
    /// All of them (futility pruning).
    All,
}

/// One move of a node's plan: the square and the depth reduction to search it with first.
#[derive(Clone, Copy, Debug)]
struct Planned {
    mv: Pos,
    /// Depth less for the first, null-window search, in units of [`PLY`].
    reduction: i32,
    /// Plies less for good (no re-search at the full depth), on top of the reduction.
    shallower: i32,
    /// Depth more, in units of [`PLY`]: the hash move's singular extension (a ply, or two
    /// when doubled; minus one when the negative extension applies; a fraction of a ply with
    /// the `hash_extension` candidate).
    extension: i32,
    /// Neither a threat nor a hash, killer or first move (what the history learns from).
    quiet: bool,
    /// Pruned: a quiet move dropped by move-count, futility or trivial-move pruning, or a
    /// plain four held back below the horizon (`quiescence_direct`). Such moves come last
    /// and are searched only when every move before them has lost, so that a loss is never
    /// claimed without them.
    deferred: bool,
}

impl Planned {
    /// A move searched at the full depth and not quiet (a threat, the first, hash or killer
    /// move, a double threat at a leaf).
    fn full(mv: Pos) -> Planned {
        Planned {
            mv,
            reduction: 0,
            shallower: 0,
            extension: 0,
            quiet: false,
            deferred: false,
        }
    }
}

/// What the current path carries to one ply of it.
#[derive(Clone, Copy, Debug, Default)]
struct Step {
    /// Plies of extension beyond one per move so far (the double singular extension's budget).
    extra: i32,
    /// Hundredths of a ply that forced blocks have gained and not yet turned into an extension
    /// (the `block_gain` candidate).
    credit: i32,
    /// The move that reached this ply made an open three or more (read only by the
    /// `attack_continuation` candidate, and set only while it is on).
    attack: bool,
    /// This ply was reached by a pass (the `null_move_depth` candidate): its node passes no
    /// more.
    null: bool,
    /// The node at this ply is or was on a principal variation (Stockfish's "ttPv"): set by
    /// the node after its table probe, false until then (a leaf never sets it). Read by its
    /// parent and its children when the `tt_pv_refine` candidate is on.
    tt_pv: bool,
}

/// One thread's search state: the node count not yet flushed, and whether it has stopped.
struct Worker<'c, 'a> {
    ctx: &'c Context<'a>,
    nodes: u64,
    aborted: bool,
    /// Cut-off flags of the parallel splits this worker searches under: when one is set, a
    /// sibling has refuted the node and this work is no longer needed.
    cancel: Vec<&'c AtomicBool>,
    /// Killer and history tables.
    heur: Heuristics,
    /// Static evaluation of each node on the current path, by ply (for the improving test).
    evals: Vec<Score>,
    /// What the current path carries to each ply.
    path: Vec<Step>,
    /// The move the next node at this ply must leave out (the singular test's search).
    excluded: Option<(i32, Pos)>,
    /// The leaves' VCF solver (the `leaf_vcf` candidate), made at its first use.
    leaf_solver: Option<VcfSolver>,
}

/// One search: borrows the table, the stop predicate and (optionally) a thread pool for its
/// duration.
///
/// With one thread (no pool, or a pool of one), the root moves are searched in a plain
/// sequential loop, so the node count is deterministic. With a pool, each iteration searches
/// the expected best move alone, then its siblings in parallel; every job starts from a shared
/// atomic best (score, move index) that each job raises as it improves, so later siblings get
/// the tightest bound found so far. The best move is the highest score, ties going to the
/// earlier move in the ordering, never to whichever job finished first: a job whose move comes
/// before the current best searches against `best − 1`, so an equal score still wins. Below the
/// root, nodes with at least [`SPLIT_DEPTH`] plies to go do the same ("young brothers wait"):
/// first move alone, then, if it did not cut off, the others in parallel behind a shared bound;
/// a sibling that cuts off cancels the rest of its split.
pub struct Searcher<'a> {
    ctx: Context<'a>,
    /// Root moves reported with their own principal variation (1: the normal search).
    multi_pv: usize,
    /// Root moves never searched.
    excluded: &'a [Pos],
    /// First iteration of the iterative deepening.
    start_depth: i32,
    goal: Goal,
}

impl<'a> Searcher<'a> {
    /// A single-threaded searcher over `tt` with these limits; `stop` is polled every 1024
    /// nodes.
    pub fn new(
        tt: &'a TranspositionTable,
        limits: Limits,
        stop: &'a (dyn Fn() -> bool + Sync),
    ) -> Searcher<'a> {
        Searcher {
            ctx: Context {
                tt,
                limits,
                stop,
                nodes: AtomicU64::new(0),
                aborted: AtomicBool::new(false),
                pool: None,
                params: Params::default(),
            },
            multi_pv: 1,
            excluded: &[],
            start_depth: 1,
            goal: Goal::Best,
        }
    }

    /// Reports the `lines` best root moves in [`SearchResult::lines`], each searched with its
    /// own window so that its score is exact ("multi-PV", Yixin's `YXNBEST`): at every depth the
    /// best move is searched first as usual, then the best of the remaining moves, and so on.
    /// 0 and 1 are the ordinary search, whose node count this option does not change.
    pub fn multi_pv(mut self, lines: usize) -> Searcher<'a> {
        self.multi_pv = lines.max(1);
        self
    }

    /// Never searches these root moves (Yixin's `YXBLOCK`; a multi-PV caller can also list the
    /// moves it already has). Forced moves that are excluded (a five, the block of a four) no
    /// longer decide the search; if every free square is excluded the list is ignored. An
    /// empty list is the ordinary search.
    pub fn exclude(mut self, moves: &'a [Pos]) -> Searcher<'a> {
        self.excluded = moves;
        self
    }

    /// Starts the iterative deepening at `depth` instead of 1 (Yixin's `INFO start_depth`).
    pub fn start_depth(mut self, depth: i32) -> Searcher<'a> {
        self.start_depth = depth.clamp(1, MAX_DEPTH);
        self
    }

    /// Looks for the most balanced move instead of the best: the one after which the score of
    /// the side to move is closest to `bias` (0 = even; Yixin's `YXBALANCEONE`). The root threat
    /// searches do not end such a search.
    pub fn balance_one(mut self, bias: Score) -> Searcher<'a> {
        self.goal = Goal::BalanceOne(bias.clamp(-WIN_THRESHOLD + 1, WIN_THRESHOLD - 1));
        self
    }

    /// Looks for two moves, one of the side to move and the opponent's answer, after which the
    /// score of the side to move (to move again) is closest to `bias` (Yixin's `YXBALANCETWO`,
    /// the fourth and fifth stones of swap2). The pair is `pv[0]`, `pv[1]` of the result; the
    /// pairs tried are the [`BALANCE_TWO_FIRST`] best-ordered root moves, each with the
    /// [`BALANCE_TWO_SECOND`] best-ordered answers.
    pub fn balance_two(mut self, bias: Score) -> Searcher<'a> {
        self.goal = Goal::BalanceTwo(bias.clamp(-WIN_THRESHOLD + 1, WIN_THRESHOLD - 1));
        self
    }

    /// Searches with these constants instead of the defaults (a tuner's candidates).
    pub fn params(mut self, params: Params) -> Searcher<'a> {
        self.ctx.params = params;
        self
    }

    /// Searches the root moves in parallel on `pool` (a pool of one thread keeps the sequential
    /// loop).
    pub fn with_pool(mut self, pool: &'a rayon::ThreadPool) -> Searcher<'a> {
        self.ctx.pool = if pool.current_num_threads() > 1 {
            Some(pool)
        } else {
            None
        };
        self
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.ctx.nodes.load(Ordering::Relaxed)
    }

    /// Searches `board` (restored on return) and returns the best move found.
    /// `on_iteration` is called after each completed depth.
    pub fn think(
        &mut self,
        board: &mut Board,
        on_iteration: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult {
        self.think_with(board, &mut |progress| {
            if let Progress::Iteration(r) = progress {
                on_iteration(r);
            }
        })
    }

    /// [`Searcher::think`], reporting every root move entered and left as well as every
    /// completed depth (see [`Progress`]).
    pub fn think_with(
        &mut self,
        board: &mut Board,
        observe: &mut dyn FnMut(Progress<'_>),
    ) -> SearchResult {
        let share = self.ctx.params.verify_share;
        let limits = self.ctx.limits;
        let hard = match limits.hard {
            Some(hard) if share > 0 && self.goal == Goal::Best && self.multi_pv == 1 => hard,
            _ => return self.search_once(board, &[], observe),
        };
        // Candidate (off by default): the chosen move is checked by a search from the
        // opponent's side in a share of the planned time (of the turn when there is no plan),
        // kept back from the hard limit; a move after which the opponent wins is dropped and
        // the others searched again.
        let planned = limits
            .soft
            .unwrap_or(hard)
            .saturating_duration_since(Instant::now());
        let budget = planned * share.clamp(0, 90) as u32 / 100;
        let mut first: Option<SearchResult> = None;
        // Root moves the check found lost, never searched again.
        let mut dropped = Vec::new();
        let mut result;
        let mut extra_nodes = 0;
        loop {
            let end = hard.checked_sub(budget).unwrap_or(hard);
            self.ctx.limits.hard = Some(end);
            // A search again after a dropped move plans half the first one's time.
            self.ctx.limits.soft = match (limits.soft, &first) {
                (Some(soft), None) => Some(soft.min(end)),
                (Some(_), Some(_)) => Some((Instant::now() + planned / 2).min(end)),
                (None, _) => None,
            };
            self.ctx.aborted.store(false, Ordering::Relaxed);
            result = self.search_once(board, &dropped, observe);
            match &first {
                None => first = Some(result.clone()),
                // The other moves are proven lost too (or none is left): the first choice,
                // searched longest, stands.
                Some(kept)
                    if result.score <= -WIN_THRESHOLD
                        || result.best.map_or(true, |mv| dropped.contains(&mv)) =>
                {
                    result = kept.clone();
                    break;
                }
                Some(_) => {}
            }
            let mv = match result.best {
                Some(mv) => mv,
                None => break,
            };
            // A move found without a tree search (forced, or a threat search's win), a decided
            // score, a stop, or enough tries: no check.
            if result.depth == 0
                || result.score.abs() >= WIN_THRESHOLD
                || (self.ctx.stop)()
                || dropped.len() >= VERIFY_TRIES
                || Instant::now() >= hard
            {
                break;
            }
            let (lost, nodes) =
                self.opponent_wins_after(board, mv, hard.min(Instant::now() + budget));
            extra_nodes += nodes;
            if !lost {
                break;
            }
            if Instant::now() + budget >= hard {
                // No time left to search the others: the first choice stands.
                result = first.clone().unwrap_or(result);
                break;
            }
            log::debug!("verify: the opponent wins after {mv:?}; searching the other moves");
            dropped.push(mv);
        }
        result.nodes += extra_nodes;
        self.ctx.limits = limits;
        result
    }

    /// Searches the position after `mv` from the opponent's side until `deadline`: whether it
    /// finds a win for the opponent, and the nodes it searched.
    fn opponent_wins_after(&self, board: &mut Board, mv: Pos, deadline: Instant) -> (bool, u64) {
        let limits = Limits {
            max_depth: MAX_DEPTH,
            max_nodes: 0,
            soft: None,
            hard: Some(deadline),
        };
        let mut params = self.ctx.params;
        params.verify_share = 0;
        let mut check = Searcher::new(self.ctx.tt, limits, self.ctx.stop).params(params);
        board.make(mv);
        let reply = check.think(board, &mut |_| {});
        board.undo();
        (reply.score >= WIN_THRESHOLD, check.nodes())
    }

    /// One search of the root moves, all but the excluded ones and `dropped`.
    fn search_once(
        &mut self,
        board: &mut Board,
        dropped: &[Pos],
        observe: &mut dyn FnMut(Progress<'_>),
    ) -> SearchResult {
        let start = Instant::now();
        let all_excluded: Vec<Pos> = self.excluded.iter().chain(dropped).copied().collect();
        let ctx = &self.ctx;
        let goal = self.goal;
        let mut excluded: &[Pos] = &all_excluded;
        ctx.tt.new_search();
        let mut result = SearchResult {
            best: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            elapsed: Duration::ZERO,
            lines: Vec::new(),
            refuted: Vec::new(),
        };
        let list = movegen::generate(board, None);
        let mut root: Vec<Pos> = list.moves;
        // Renju: black with only forbidden squares left must play one and loses with it.
        let mut fouls = false;
        if root.is_empty() {
            root = fallback_moves(board);
            fouls = !root.is_empty() && !movegen::has_legal_move(board);
        }
        let mut kind = list.kind;
        if !excluded.is_empty() {
            let before = root.len();
            let original = root.clone();
            root.retain(|p| !excluded.contains(p));
            if root.is_empty() {
                root = fallback_moves(board);
                root.retain(|p| !excluded.contains(p));
            }
            if root.is_empty() {
                // Every free square is excluded: the exclusion cannot be honoured.
                excluded = &[];
                root = original;
            }
            if !excluded.is_empty() && root.len() != before {
                // The forced moves are gone: what is left is searched like any position.
                kind = MoveKind::Normal;
            }
        }
        result.best = root.first().copied();
        result.pv = root.first().copied().into_iter().collect();
        match kind {
            MoveKind::Win => result.score = win_in(1),
            MoveKind::Lost => result.score = loss_in(2),
            _ if fouls => result.score = loss_in(1),
            _ => {}
        }
        let decided = fouls || matches!(kind, MoveKind::Win | MoveKind::Lost);
        if decided || root.len() <= 1 {
            result.elapsed = start.elapsed();
            return with_lines(result);
        }

        // Threat searches before the tree search: a forced win by fours, then by threes and
        // fours, ends the search before it starts (unless a balanced move is wanted, or the
        // winning move is excluded); a forced win of the opponent by fours narrows the root to
        // the moves that stop it.
        let budget = RootBudget::new(&ctx.limits);
        let mut threat_nodes = 0;
        let mut win = None;
        if goal == Goal::Best {
            let mut root_vcf = VcfSolver::new(ROOT_VCF_CACHE);
            let outcome = root_vcf.solve(board, budget.vcf);
            threat_nodes = root_vcf.nodes;
            win = match outcome {
                VcfOutcome::Win(line) => {
                    let plies = root_vcf.win_plies(board, 1).unwrap_or(line.len() as u32);
                    Some((line, plies))
                }
                _ => None,
            };
            let allowed = |line: &Vec<Pos>| line.first().map_or(false, |m| !excluded.contains(m));
            win = win.filter(|(line, _)| allowed(line));
            if win.is_none() && !ctx.stopped() {
                let mut vct = VctSolver::new();
                let found = vct.solve(board, ROOT_VCT_THREES, budget.vct);
                threat_nodes += vct.nodes();
                win = found
                    .map(|(mv, plies)| (vec![mv], plies))
                    .filter(|(line, _)| allowed(line));
            }
        }
        if let Some((line, plies)) = win {
            ctx.nodes.fetch_add(threat_nodes, Ordering::Relaxed);
            result.best = line.first().copied();
            result.score = win_in(plies as i32);
            result.pv = line;
            result.nodes = threat_nodes;
            result.elapsed = start.elapsed();
            let result = with_lines(result);
            observe(Progress::Iteration(&result));
            return result;
        }
        if kind == MoveKind::Normal || kind == MoveKind::Defend {
            let (kept, nodes) = stop_opponent_vcf(board, &root, budget.defence);
            threat_nodes += nodes;
            if !kept.is_empty() {
                result.refuted = root.iter().filter(|p| !kept.contains(p)).copied().collect();
                root = kept;
                for &mv in &result.refuted {
                    observe(Progress::Leave {
                        depth: 0,
                        mv,
                        score: -WIN_THRESHOLD,
                        best: false,
                    });
                }
            }
        }
        ctx.nodes.fetch_add(threat_nodes, Ordering::Relaxed);
        if root.len() == 1 {
            result.best = root.first().copied();
            result.pv = root.clone();
            result.nodes = threat_nodes;
            result.elapsed = start.elapsed();
            return with_lines(result);
        }

        let mut main = Worker::new(ctx, Vec::new(), Heuristics::new(&ctx.params));
        let mut scores: Vec<Score> = vec![-INFINITY; root.len()];
        let mut clock = TimeUse::new(ctx.params.time_percent);
        let wanted = if goal == Goal::Best {
            self.multi_pv.clamp(1, root.len())
        } else {
            1
        };
        let mut pairs = match goal {
            Goal::BalanceTwo(_) => balance_pairs(board, &root),
            _ => Vec::new(),
        };
        let mut pair_scores: Vec<Score> = vec![-INFINITY; pairs.len()];
        let first_depth = self.start_depth.clamp(1, ctx.limits.max_depth.max(1));
        let mut vct_check = VctCheck::new(&ctx.limits, ctx.params.verify_vct, start);
        for depth in first_depth..=ctx.limits.max_depth {
            match goal {
                Goal::Best if wanted == 1 => {
                    let outcome = match ctx.pool {
                        None => main.search_root_aspiration(
                            board,
                            &root,
                            depth,
                            result.score,
                            &mut scores,
                            observe,
                        ),
                        Some(pool) => main.search_root_parallel(
                            board,
                            &root,
                            depth,
                            &mut scores,
                            pool,
                            observe,
                        ),
                    };
                    if let Some((index, score)) = outcome.best {
                        // A partial iteration still searched the previous best first, so its
                        // best move is at least as well informed as the last complete one.
                        result.best = Some(root[index]);
                        result.score = score;
                    }
                    if outcome.aborted {
                        break;
                    }
                    // Best first, then by score; ties keep the previous order (stable sort).
                    let best_index = outcome.best.map_or(0, |b| b.0);
                    let mut order: Vec<usize> = (0..root.len()).collect();
                    order.sort_by(|&a, &b| {
                        (b == best_index)
                            .cmp(&(a == best_index))
                            .then(scores[b].cmp(&scores[a]))
                    });
                    root = order.iter().map(|&k| root[k]).collect();
                    scores = order.iter().map(|&k| scores[k]).collect();
                    let refuted = vct_check.refutes(board, &root, depth, result.score);
                    ctx.nodes
                        .fetch_add(std::mem::take(&mut vct_check.nodes), Ordering::Relaxed);
                    if refuted {
                        let mv = root.remove(0);
                        scores.remove(0);
                        result.refuted.push(mv);
                        result.best = Some(root[0]);
                        result.score = scores[0];
                        observe(Progress::Leave {
                            depth,
                            mv,
                            score: -WIN_THRESHOLD,
                            best: false,
                        });
                    }
                    result.pv = principal_variation(ctx.tt, board, root[0], depth);
                    result.lines = vec![Line {
                        mv: root[0],
                        score: result.score,
                        depth,
                        pv: result.pv.clone(),
                    }];
                }
                Goal::Best => {
                    let complete = main.search_lines(
                        board,
                        (&mut root, &mut scores),
                        depth,
                        wanted,
                        &mut result,
                        observe,
                    );
                    if !complete {
                        break;
                    }
                }
                Goal::BalanceOne(bias) => {
                    let outcome =
                        main.search_root_balance(board, &root, depth, bias, &mut scores, observe);
                    if let Some((index, score)) = outcome.best {
                        result.best = Some(root[index]);
                        result.score = score;
                    }
                    if outcome.aborted {
                        break;
                    }
                    let best_index = outcome.best.map_or(0, |b| b.0);
                    let order = balance_order(&scores, best_index, bias);
                    root = order.iter().map(|&k| root[k]).collect();
                    scores = order.iter().map(|&k| scores[k]).collect();
                    result.pv = principal_variation(ctx.tt, board, root[0], depth);
                    result.lines = vec![Line {
                        mv: root[0],
                        score: result.score,
                        depth,
                        pv: result.pv.clone(),
                    }];
                }
                Goal::BalanceTwo(bias) => {
                    if pairs.is_empty() {
                        break;
                    }
                    let outcome = main.search_pairs(board, &pairs, depth, bias, &mut pair_scores);
                    if let Some((index, score)) = outcome.best {
                        result.best = Some(pairs[index].0);
                        result.score = score;
                        result.pv = vec![pairs[index].0, pairs[index].1];
                    }
                    if outcome.aborted {
                        break;
                    }
                    let best_index = outcome.best.map_or(0, |b| b.0);
                    let order = balance_order(&pair_scores, best_index, bias);
                    pairs = order.iter().map(|&k| pairs[k]).collect();
                    pair_scores = order.iter().map(|&k| pair_scores[k]).collect();
                    let (first, second) = pairs[0];
                    board.make(first);
                    let rest = principal_variation(ctx.tt, board, second, depth - 1);
                    board.undo();
                    result.pv = std::iter::once(first).chain(rest).collect();
                    result.lines = vec![Line {
                        mv: first,
                        score: result.score,
                        depth,
                        pv: result.pv.clone(),
                    }];
                }
            }
            result.depth = depth;
            result.nodes = main.total_nodes();
            result.elapsed = start.elapsed();
            observe(Progress::Iteration(&result));
            // A proven win ends the search (in multi-PV once every line is decided). A proven
            // loss does not: deeper iterations find the defence that lasts longest, and the
            // opponent may not know its win.
            if result.score >= WIN_THRESHOLD
                && result.lines.iter().all(|l| l.score.abs() >= WIN_THRESHOLD)
            {
                break;
            }
            clock.update(depth, result.best, result.score);
            if let Some(soft) = ctx.limits.soft {
                let planned = soft.saturating_duration_since(start);
                if start.elapsed() >= planned * clock.percent() / 100 {
                    break;
                }
            }
        }
        if result.pv.first() != result.best.as_ref() {
            result.pv = result.best.into_iter().collect();
        }
        result.nodes = main.total_nodes();
        result.elapsed = start.elapsed();
        let mut result = with_lines(result);
        result.lines.truncate(wanted);
        result
    }
}

/// How much of the planned time (the soft limit) an iteration may start within: more while
/// the best move keeps changing or the score falls, less when both are stable. The hard limit
/// still stops the search wherever it is.
struct TimeUse {
    /// Percentage of the planned time when the search is neither unstable nor falling
    /// ([`Params::time_percent`]).
    base: u32,
    /// Recent best-move changes, decaying by half each iteration (100 per change).
    instability: u32,
    /// Best move and score of the previous iteration.
    last: Option<(Option<Pos>, Score)>,
    /// How far the score fell in the last iteration (non-mate scores only).
    drop: Score,
}

impl TimeUse {
    /// Lowest and highest percentage of the planned time.
    const MIN_PERCENT: u32 = 50;
    const MAX_PERCENT: u32 = 200;

    fn new(base: i32) -> TimeUse {
        TimeUse {
            base: base.max(0) as u32,
            instability: 0,
            last: None,
            drop: 0,
        }
    }

    fn update(&mut self, depth: i32, best: Option<Pos>, score: Score) {
        self.instability /= 2;
        self.drop = 0;
        if let Some((last_best, last_score)) = self.last {
            if last_best != best && depth > 2 {
                self.instability += 100;
            }
            if score.abs() < WIN_THRESHOLD && last_score.abs() < WIN_THRESHOLD {
                self.drop = (last_score - score).max(0);
            }
        }
        self.last = Some((best, score));
    }

    /// Percentage of the planned time after which no new iteration starts.
    fn percent(&self) -> u32 {
        let drop_bonus = (self.drop.min(200) / 2) as u32;
        (self.base + self.instability + drop_bonus).clamp(Self::MIN_PERCENT, Self::MAX_PERCENT)
    }
}

/// What one root iteration produced.
struct RootOutcome {
    /// Index and score of the best root move searched to completion in this iteration.
    best: Option<(usize, Score)>,
    /// The iteration was cut short.
    aborted: bool,
}

/// The shared state of one parallel split (see `Worker::search_siblings`).
struct Split<'s> {
    moves: &'s [Planned],
    /// The node's depth in units of [`PLY`].
    depth: i32,
    ply: i32,
    beta: Score,
    /// Whether the node is a cut node.
    cut: bool,
    /// Best (score, index) so far, packed; starts at (alpha, none).
    best: &'s AtomicU64,
    /// Set when a move reaches `beta`: the rest of the split is not needed.
    cutoff: &'s AtomicBool,
    /// Index of the next move to hand out.
    next: &'s AtomicUsize,
}

impl Split<'_> {
    /// Searches moves from the shared counter until none is left or the split is cut off.
    fn run(&self, worker: &mut Worker<'_, '_>, board: &mut Board) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.moves.len() {
                return;
            }
            // Subtrees here are often smaller than the check interval: check before each one,
            // or a split of many small subtrees would never look at the clock.
            worker.check_stop();
            if worker.aborted {
                return;
            }
            let (bound, _) = unpack(self.best.load(Ordering::Relaxed));
            let score = worker.search_move(
                board,
                self.moves[i],
                self.depth,
                self.ply,
                bound,
                self.beta,
                false,
                self.cut,
            );
            worker.flush();
            if worker.aborted {
                return;
            }
            if score > bound {
                self.best.fetch_max(pack(score, i), Ordering::Relaxed);
                if score >= self.beta {
                    self.cutoff.store(true, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Packs (score, move index) so that a larger value is a better move: higher score first,
/// then the lower index.
fn pack(score: Score, index: usize) -> u64 {
    let s = (score as i64 - i32::MIN as i64) as u64;
    (s << 32) | (u32::MAX - index as u32) as u64
}

fn unpack(key: u64) -> (Score, usize) {
    let score = ((key >> 32) as i64 + i32::MIN as i64) as Score;
    let index = (u32::MAX - (key & 0xFFFF_FFFF) as u32) as usize;
    (score, index)
}

impl<'c, 'a> Worker<'c, 'a> {
    /// A fresh worker under the given split cut-off flags, starting from these ordering tables.
    fn new(ctx: &'c Context<'a>, cancel: Vec<&'c AtomicBool>, heur: Heuristics) -> Self {
        Worker {
            ctx,
            nodes: 0,
            aborted: false,
            cancel,
            heur,
            evals: vec![0; MAX_PLY as usize + 1],
            path: root_path(),
            excluded: None,
            leaf_solver: None,
        }
    }

    fn total_nodes(&mut self) -> u64 {
        self.flush();
        self.ctx.nodes.load(Ordering::Relaxed)
    }

    fn flush(&mut self) {
        self.ctx.nodes.fetch_add(self.nodes, Ordering::Relaxed);
        self.nodes = 0;
    }

    /// Searches one root move; `threshold` is the score it must beat and `beta` the top of
    /// the window (null window first, then a re-search up to `beta` when it beats the
    /// threshold).
    fn search_root_move(
        &mut self,
        board: &mut Board,
        mv: Pos,
        depth: i32,
        (threshold, beta): (Score, Score),
        first: bool,
    ) -> Score {
        self.path[1] = Step {
            attack: self.ctx.params.attack_continuation > 0
                && board.threat(mv, board.side_to_move()) >= Threat::Three,
            ..Step::default()
        };
        board.make(mv);
        let score = if first {
            -self.negamax(board, (depth - 1) * PLY, 1, -beta, -threshold, false)
        } else {
            let s = -self.negamax(
                board,
                (depth - 1) * PLY,
                1,
                -threshold - 1,
                -threshold,
                true,
            );
            if s > threshold && s < beta && !self.aborted {
                -self.negamax(board, (depth - 1) * PLY, 1, -beta, -threshold, false)
            } else {
                s
            }
        };
        board.undo();
        score
    }

    fn search_root_sequential(
        &mut self,
        board: &mut Board,
        root: &[Pos],
        depth: i32,
        (mut alpha, beta): (Score, Score),
        scores: &mut [Score],
        observe: &mut dyn FnMut(Progress<'_>),
    ) -> RootOutcome {
        let mut best = None;
        for (i, &mv) in root.iter().enumerate() {
            observe(Progress::Enter { depth, mv });
            let score = self.search_root_move(board, mv, depth, (alpha, beta), i == 0);
            if self.aborted {
                break;
            }
            scores[i] = score;
            observe(Progress::Leave {
                depth,
                mv,
                score,
                best: score > alpha,
            });
            if score > alpha {
                alpha = score;
                best = Some((i, score));
                if score >= beta {
                    break;
                }
            }
        }
        RootOutcome {
            best,
            aborted: self.aborted,
        }
    }

    /// The sequential root search in a window around the previous iteration's score, widened
    /// and searched again when the best score falls outside it (aspiration windows). Shallow
    /// iterations and proven wins or losses use the full window.
    fn search_root_aspiration(
        &mut self,
        board: &mut Board,
        root: &[Pos],
        depth: i32,
        previous: Score,
        scores: &mut [Score],
        observe: &mut dyn FnMut(Progress<'_>),
    ) -> RootOutcome {
        let full = (-INFINITY, INFINITY);
        let initial_delta = self.ctx.params.aspiration_delta;
        if depth < self.ctx.params.aspiration_depth || previous.abs() >= WIN_THRESHOLD {
            return self.search_root_sequential(board, root, depth, full, scores, observe);
        }
        let mut delta = initial_delta;
        let mut window = (previous - delta, previous + delta);
        loop {
            let outcome = self.search_root_sequential(board, root, depth, window, scores, observe);
            if outcome.aborted || window == full {
                return outcome;
            }
            delta *= 4;
            let wide = delta > initial_delta * 16;
            match outcome.best {
                // Fail low: no move reached the window.
                None => window.0 = if wide { -INFINITY } else { previous - delta },
                // Fail high: a move reached the top of the window.
                Some((_, score)) if score >= window.1 => {
                    window.1 = if wide { INFINITY } else { previous + delta }
                }
                Some(_) => return outcome,
            }
        }
    }

    fn search_root_parallel(
        &mut self,
        board: &mut Board,
        root: &[Pos],
        depth: i32,
        scores: &mut [Score],
        pool: &rayon::ThreadPool,
        observe: &mut dyn FnMut(Progress<'_>),
    ) -> RootOutcome {
        observe(Progress::Enter { depth, mv: root[0] });
        let first = self.search_root_move(board, root[0], depth, (-INFINITY, INFINITY), true);
        if self.aborted {
            return RootOutcome {
                best: None,
                aborted: true,
            };
        }
        scores[0] = first;
        observe(Progress::Leave {
            depth,
            mv: root[0],
            score: first,
            best: true,
        });
        self.flush();
        let shared_best = AtomicU64::new(pack(first, 0));
        let results: Vec<AtomicI32> = (0..root.len()).map(|_| AtomicI32::new(-INFINITY)).collect();
        let ctx = self.ctx;
        let template: &Board = board;
        let heur = &self.heur;
        pool.install(|| {
            root[1..].par_iter().enumerate().for_each_init(
                || (template.clone(), Worker::new(ctx, Vec::new(), heur.clone())),
                |(local, worker), (k, &mv)| {
                    let i = k + 1;
                    worker.check_stop();
                    if worker.aborted {
                        return;
                    }
                    let (best_score, best_index) = unpack(shared_best.load(Ordering::Relaxed));
                    // An earlier move in the ordering wins ties, so it must only reach the
                    // current best score; a later one must beat it.
                    let threshold = if i < best_index {
                        best_score - 1
                    } else {
                        best_score
                    };
                    let score =
                        worker.search_root_move(local, mv, depth, (threshold, INFINITY), false);
                    worker.flush();
                    if worker.aborted {
                        return;
                    }
                    results[i].store(score, Ordering::Relaxed);
                    if score > threshold {
                        shared_best.fetch_max(pack(score, i), Ordering::Relaxed);
                    }
                },
            );
        });
        let (_, best_index) = unpack(shared_best.load(Ordering::Relaxed));
        for (i, r) in results.iter().enumerate().skip(1) {
            scores[i] = r.load(Ordering::Relaxed);
            if scores[i] > -INFINITY {
                observe(Progress::Leave {
                    depth,
                    mv: root[i],
                    score: scores[i],
                    best: i == best_index,
                });
            }
        }
        let aborted = ctx.aborted.load(Ordering::Relaxed);
        self.aborted = aborted;
        RootOutcome {
            best: Some(unpack(shared_best.load(Ordering::Relaxed))).map(|(s, i)| (i, s)),
            aborted,
        }
    }

    /// One multi-PV iteration: the best of `root`, then the best of the rest, and so on until
    /// `wanted` lines are complete, each moved to the front of what is left (`root` and its
    /// `scores` are reordered together). The complete lines replace those of `result`, sorted
    /// by score; the lines of the previous iteration stay behind the ones this iteration
    /// completed when it is cut short. Returns whether the iteration completed.
    fn search_lines(
        &mut self,
        board: &mut Board,
        (root, scores): (&mut Vec<Pos>, &mut Vec<Score>),
        depth: i32,
        wanted: usize,
        result: &mut SearchResult,
        observe: &mut dyn FnMut(Progress<'_>),
    ) -> bool {
        let ctx = self.ctx;
        let mut lines: Vec<Line> = Vec::with_capacity(wanted);
        let mut complete = true;
        for slot in 0..wanted {
            let previous = result.lines.get(slot).map_or(-INFINITY, |l| l.score);
            let outcome = match ctx.pool {
                None => self.search_root_aspiration(
                    board,
                    &root[slot..],
                    depth,
                    previous,
                    &mut scores[slot..],
                    observe,
                ),
                Some(pool) => self.search_root_parallel(
                    board,
                    &root[slot..],
                    depth,
                    &mut scores[slot..],
                    pool,
                    observe,
                ),
            };
            if let Some((index, score)) = outcome.best {
                root[slot..=slot + index].rotate_right(1);
                scores[slot..=slot + index].rotate_right(1);
                if slot == 0 {
                    result.best = Some(root[0]);
                    result.score = score;
                }
                // A slot cut short still searched its first move, the previous line's, whole:
                // its best is kept like the single best of an ordinary partial iteration.
                if !outcome.aborted || slot == 0 {
                    lines.push(Line {
                        mv: root[slot],
                        score,
                        depth,
                        pv: principal_variation(ctx.tt, board, root[slot], depth),
                    });
                }
            }
            if outcome.aborted {
                complete = false;
                break;
            }
        }
        if complete {
            // The lines by score (stable: equal scores keep their slots), then the other
            // moves by their bounds.
            let n = lines.len();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| lines[b].score.cmp(&lines[a].score));
            let mut rest: Vec<usize> = (n..root.len()).collect();
            rest.sort_by(|&a, &b| scores[b].cmp(&scores[a]));
            order.extend(rest);
            *root = order.iter().map(|&k| root[k]).collect();
            *scores = order.iter().map(|&k| scores[k]).collect();
            lines.sort_by_key(|l| std::cmp::Reverse(l.score));
            result.best = Some(root[0]);
            result.score = lines[0].score;
            result.pv = lines[0].pv.clone();
            result.lines = lines;
        } else {
            let older: Vec<Line> = result
                .lines
                .drain(..)
                .filter(|old| lines.iter().all(|l| l.mv != old.mv))
                .collect();
            if let Some(first) = lines.first() {
                result.pv = first.pv.clone();
            }
            lines.extend(older);
            lines.truncate(wanted);
            result.lines = lines;
        }
        complete
    }

    /// One iteration of the balanced-move search: every root move is searched in a window
    /// around `bias` whose half-width is the distance of the most balanced move so far, so a
    /// move that cannot be closer costs only a bound. Returns the most balanced move (ties to
    /// the earlier one) with its exact score.
    fn search_root_balance(
        &mut self,
        board: &mut Board,
        root: &[Pos],
        depth: i32,
        bias: Score,
        scores: &mut [Score],
        observe: &mut dyn FnMut(Progress<'_>),
    ) -> RootOutcome {
        let mut best = None;
        let mut distance = INFINITY;
        for (i, &mv) in root.iter().enumerate() {
            let low = (bias - distance).max(-INFINITY);
            let high = (bias + distance).min(INFINITY);
            observe(Progress::Enter { depth, mv });
            board.make(mv);
            let score = -self.negamax(board, (depth - 1) * PLY, 1, -high, -low, false);
            board.undo();
            if self.aborted {
                break;
            }
            scores[i] = score;
            let closer = score > low && score < high;
            observe(Progress::Leave {
                depth,
                mv,
                score,
                best: closer,
            });
            if closer {
                distance = (score - bias).abs();
                best = Some((i, score));
                if distance == 0 {
                    break;
                }
            }
        }
        RootOutcome {
            best,
            aborted: self.aborted,
        }
    }

    /// One iteration of the balanced-pair search over `pairs` (a move and the opponent's
    /// answer), in the shrinking window of [`Worker::search_root_balance`]; the score is the
    /// side to move's, after both moves.
    fn search_pairs(
        &mut self,
        board: &mut Board,
        pairs: &[(Pos, Pos)],
        depth: i32,
        bias: Score,
        scores: &mut [Score],
    ) -> RootOutcome {
        let mut best = None;
        let mut distance = INFINITY;
        for (i, &(first, second)) in pairs.iter().enumerate() {
            let low = (bias - distance).max(-INFINITY);
            let high = (bias + distance).min(INFINITY);
            board.make(first);
            board.make(second);
            // No extension lies above a balanced pair.
            self.path[2] = Step::default();
            let score = self.negamax(board, (depth - 2) * PLY, 2, low, high, false);
            board.undo();
            board.undo();
            if self.aborted {
                break;
            }
            scores[i] = score;
            if score > low && score < high {
                distance = (score - bias).abs();
                best = Some((i, score));
                if distance == 0 {
                    break;
                }
            }
        }
        RootOutcome {
            best,
            aborted: self.aborted,
        }
    }

    /// Searches `moves` (the later moves of a node whose first move has been searched without
    /// a cut-off and left the bound at `alpha`) in parallel ("young brothers wait"); returns the
    /// best score above `alpha` and its move, or `alpha` and `None`. The first job that reaches
    /// `beta` cancels the others.
    ///
    /// Each thread of the pool takes the next unsearched move from a shared counter until none
    /// is left. The calling thread searches on `board` itself; the helpers share one snapshot
    /// of it, and a helper copies that only when it starts while moves are left (the copies
    /// stay in the helpers' malloc arenas, which `max_memory` budgets), so a helper that
    /// comes too late costs nothing.
    #[allow(clippy::too_many_arguments)]
    fn search_siblings(
        &mut self,
        board: &mut Board,
        moves: &[Planned],
        depth: i32,
        ply: i32,
        (alpha, beta): (Score, Score),
        cut: bool,
        pool: &rayon::ThreadPool,
    ) -> (Score, Option<Pos>) {
        self.flush();
        let shared_best = AtomicU64::new(pack(alpha, moves.len()));
        let cutoff = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let ctx = self.ctx;
        let heur = &self.heur;
        let (evals, path) = (&self.evals, &self.path);
        let mut cancel: Vec<&AtomicBool> = self.cancel.clone();
        cancel.push(&cutoff);
        let split = Split {
            moves,
            depth,
            ply,
            beta,
            cut,
            best: &shared_best,
            cutoff: &cutoff,
            next: &next,
        };
        let helpers = pool
            .current_num_threads()
            .saturating_sub(1)
            .min(moves.len());
        let template = board.clone();
        pool.install(|| {
            rayon::scope(|scope| {
                for _ in 0..helpers {
                    let (split, cancel, template) = (&split, &cancel, &template);
                    scope.spawn(move |_| {
                        if split.next.load(Ordering::Relaxed) >= split.moves.len() {
                            return;
                        }
                        let mut local = template.clone();
                        let mut worker = Worker::new(ctx, cancel.clone(), heur.clone());
                        worker.evals.clone_from(evals);
                        worker.path.clone_from(path);
                        split.run(&mut worker, &mut local);
                    });
                }
                let mut worker = Worker::new(ctx, cancel.clone(), heur.clone());
                worker.evals.clone_from(evals);
                worker.path.clone_from(path);
                split.run(&mut worker, board);
            });
        });
        self.aborted = ctx.aborted.load(Ordering::Relaxed) || self.cancelled();
        let (score, index) = unpack(shared_best.load(Ordering::Relaxed));
        (score, moves.get(index).map(|p| p.mv))
    }

    /// True when the search was stopped or a split above this worker was cut off.
    fn cancelled(&self) -> bool {
        self.ctx.aborted.load(Ordering::Relaxed)
            || self.cancel.iter().any(|c| c.load(Ordering::Relaxed))
    }

    fn check_stop(&mut self) {
        let ctx = self.ctx;
        self.flush();
        if self.cancel.iter().any(|c| c.load(Ordering::Relaxed)) {
            // Only this split's work is unneeded; the search goes on elsewhere.
            self.aborted = true;
            return;
        }
        if ctx.aborted.load(Ordering::Relaxed)
            || (ctx.stop)()
            || (ctx.limits.max_nodes > 0
                && ctx.nodes.load(Ordering::Relaxed) >= ctx.limits.max_nodes)
            || ctx.limits.hard.map_or(false, |t| Instant::now() >= t)
        {
            ctx.aborted.store(true, Ordering::Relaxed);
            self.aborted = true;
        }
    }

    /// Orders the node's moves into a plan: late quiet moves get a reduction (late-move
    /// reductions), and at shallow non-PV nodes the latest quiet ones are dropped (move-count
    /// pruning), or all of them when the node is futile. A quiet move makes at most one open
    /// three and takes from the opponent at most a square of one open three (no four, no double
    /// threat), and is not the hash move or a killer. Only ordinary nodes reduce or prune;
    /// defences and forced blocks never.
    ///
    /// Counting the single-three moves as quiet (they were not, before) was measured at 3 s +
    /// 30 ms per game against the same engine without it: +31.4 ± 33.7 Elo over 400 games.
    fn plan(
        &self,
        board: &Board,
        list: &movegen::MoveList,
        hash_move: Option<Pos>,
        (depth, ply): (i32, i32),
        node: NodeKind,
        pruning: QuietPruning,
    ) -> Vec<Planned> {
        let me = board.side_to_move();
        let opp = me.opponent();
        let mut plan = Vec::with_capacity(list.moves.len());
        let mut deferred = Vec::new();
        let mut quiet_seen = 0;
        let lmr_first_move = self.ctx.params.lmr_first_move.max(0) as usize;
        let lmr_log = self.ctx.params.lmr_log;
        let lmr_fraction = self.ctx.params.lmr_fraction;
        let policy_reduction = self.ctx.params.policy_reduction;
        let history_reduction = self.ctx.params.history_reduction;
        // Candidates (off by default), in units of a ply: less at a PV node, more at a non-PV
        // node that is not improving.
        let pv_less = if node.pv {
            self.ctx.params.lmr_pv_less * PLY / 100
        } else {
            0
        } + if node.tt_pv {
            self.ctx.params.lmr_tt_pv_less * PLY / 100
        } else {
            0
        };
        let not_improving = if !node.pv && !node.improving {
            self.ctx.params.lmr_not_improving * PLY / 100
        } else {
            0
        };
        let cut_reduction = if node.cut {
            self.ctx.params.cut_reduction
        } else {
            0
        };
        let best_value = if policy_reduction > 0 && list.kind == MoveKind::Normal {
            list.moves
                .iter()
                .map(|&mv| movegen::pattern_value(board, mv))
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        let defend_reduction = self.ctx.params.defend_reduction;
        let attack_continuation = self.ctx.params.attack_continuation;
        let keep_threes = self.ctx.params.keep_threes > 0;
        let quiescence_direct = depth <= 0 && self.ctx.params.quiescence_direct > 0;
        let trivial_pruning = depth < self.ctx.params.trivial_depth;
        for (i, &mv) in list.moves.iter().enumerate() {
            // At a node that must answer an open three, a move off the opponent's four squares
            // is a four of our own that leaves the three standing: below the horizon our
            // four-threes among them are searched, and the other fours only when every other
            // move has lost (`quiescence_direct`: a loss is never claimed without them, since
            // a four may start the defender's own attack); above it the later ones may be
            // reduced (candidate, off by default).
            if list.kind == MoveKind::Defend
                && i > 0
                && Some(mv) != hash_move
                && !board.four_cell_set(opp).contains(mv)
            {
                if quiescence_direct {
                    if board.threat(mv, me) < Threat::FourThree {
                        deferred.push(Planned {
                            deferred: true,
                            ..Planned::full(mv)
                        });
                        continue;
                    }
                } else if defend_reduction > 0 && depth >= 3 {
                    plan.push(Planned {
                        reduction: defend_reduction.min(depth - 2) * PLY,
                        ..Planned::full(mv)
                    });
                    continue;
                }
            }
            let quiet = list.kind == MoveKind::Normal
                && i > 0
                && Some(mv) != hash_move
                && board.threat(mv, me) <= Threat::Three
                && board.threat(mv, opp) <= Threat::Three
                && !self.heur.is_killer(ply, mv);
            if !quiet {
                plan.push(Planned::full(mv));
                continue;
            }
            quiet_seen += 1;
            // Candidate (off by default): near the horizon a move that makes nothing of note
            // for either side is skipped, at PV nodes too.
            let trivial = trivial_pruning
                && board.threat(mv, me) == Threat::None
                && board.threat(mv, opp) == Threat::None;
            // Candidate (off by default): a move that makes an open three is never pruned.
            let pruned = trivial
                || match pruning {
                    QuietPruning::None => false,
                    QuietPruning::Late(first) => depth >= 1 && i >= first,
                    QuietPruning::All => true,
                } && !(keep_threes && board.threat(mv, me) == Threat::Three);
            let reduction = if depth >= 3 && i >= lmr_first_move {
                let fixed = 1 + i32::from(depth >= 6 && quiet_seen >= 8);
                // In units of a ply: the base reduction, in fractions of a ply
                // (`lmr_fraction`; 0 gives the fixed one or two plies).
                let base = if lmr_fraction > 0 {
                    log_reduction(depth, i + 1, lmr_fraction)
                } else if lmr_log > 0 {
                    fixed.max(log_reduction(depth, i + 1, lmr_log) / PLY) * PLY
                } else {
                    fixed * PLY
                };
                let base = base - pv_less + if base > PLY { not_improving } else { 0 };
                // In whole plies: what the candidates below add or take off.
                let mut r = 0;
                if policy_reduction > 0 && best_value > 0 {
                    let shortfall = best_value - movegen::pattern_value(board, mv).min(best_value);
                    r += policy_reduction * shortfall / best_value / 100;
                }
                // Candidate (off by default): a move that has refuted other nodes of this
                // search is reduced less, one that never has, more.
                if history_reduction > 0 {
                    match self.heur.history[mv.index()][me.index()] {
                        0 => r += 1,
                        h if h >= history_reduction => r -= 1,
                        _ => {}
                    }
                }
                // Candidate (off by default): at a cut node, more.
                r += cut_reduction;
                // Candidate (off by default): an open three that goes on with the side's
                // attack (its previous move made an open three or a four), less.
                if attack_continuation > 0
                    && ply >= 1
                    && self.path[ply as usize - 1].attack
                    && board.threat(mv, me) == Threat::Three
                {
                    r -= attack_continuation;
                }
                // The reduced search keeps at least one ply.
                (base + r * PLY).clamp(0, (depth - 2) * PLY)
            } else {
                0
            };
            // A pruned move is held back, not dropped: were every other move to lose, the
            // node would claim a loss that this move might escape (Rapfi prunes only once it
            // has a move that does not lose, for the same reason).
            let planned = Planned {
                mv,
                reduction,
                shallower: 0,
                extension: 0,
                quiet: true,
                deferred: pruned,
            };
            if pruned {
                deferred.push(planned);
            } else {
                plan.push(planned);
            }
        }
        plan.append(&mut deferred);
        plan
    }

    /// Searches one move of a node: the first with the full window, the others with a null
    /// window (reduced first when planned so), re-searched when they beat `alpha`. `depth` is
    /// the node's, in units of [`PLY`].
    #[allow(clippy::too_many_arguments)]
    fn search_move(
        &mut self,
        board: &mut Board,
        planned: Planned,
        depth: i32,
        ply: i32,
        alpha: Score,
        beta: Score,
        first: bool,
        cut: bool,
    ) -> Score {
        let next = depth - (1 + planned.shallower) * PLY + planned.extension;
        let child = ply + 1;
        let here = self.path[ply as usize];
        self.path[child as usize] = Step {
            extra: here.extra + (planned.extension - PLY).max(0) / PLY,
            credit: here.credit,
            attack: self.ctx.params.attack_continuation > 0
                && board.threat(planned.mv, board.side_to_move()) >= Threat::Three,
            null: false,
            tt_pv: false,
        };
        self.ctx.tt.prefetch(board.hash_after(planned.mv));
        board.make(planned.mv);
        // The child's expected kind: a PV node's first child is a PV node; a reduced search
        // expects a cut-off below, a null-window search at full depth the opposite of this
        // node's kind.
        let pv = beta - alpha > 1;
        let score = if first {
            -self.negamax(board, next, child, -beta, -alpha, !pv && !cut)
        } else {
            let mut s = -self.negamax(
                board,
                next - planned.reduction,
                child,
                -alpha - 1,
                -alpha,
                planned.reduction > 0 || !cut,
            );
            if planned.reduction > 0 && s > alpha && !self.aborted {
                // A reduced move that beats alpha by far is searched a ply deeper than
                // planned (Rapfi's LMR extension, `lmr_deeper`).
                let deeper = self.ctx.params.lmr_deeper;
                let next = if deeper > 0 && s > alpha.saturating_add(deeper) {
                    next + PLY
                } else {
                    next
                };
                s = -self.negamax(board, next, child, -alpha - 1, -alpha, !cut);
            }
            if s > alpha && s < beta && !self.aborted {
                s = -self.negamax(board, next, child, -beta, -alpha, false);
            }
            s
        };
        board.undo();
        score
    }

    /// `units`: the node's depth in units of [`PLY`]. `cut`: this node is expected to fail high
    /// (a cut node: below a null-window search that was reduced, or the opposite of an all
    /// node); only the late-move reductions read it.
    fn negamax(
        &mut self,
        board: &mut Board,
        units: i32,
        ply: i32,
        mut alpha: Score,
        beta: Score,
        cut: bool,
    ) -> Score {
        // Whole plies decide everything at this node; the fraction of a ply is handed on to
        // its children.
        let (depth, fraction) = (units.div_euclid(PLY), units.rem_euclid(PLY));
        self.nodes += 1;
        if self.nodes >= CHECK_INTERVAL {
            self.check_stop();
        }
        if self.aborted {
            return 0;
        }
        let me = board.side_to_move();
        let opp = me.opponent();
        if board.threat_count(me, Threat::Five) > 0 {
            return win_in(ply + 1);
        }
        if board.is_full() {
            return 0;
        }
        if ply >= MAX_PLY {
            return eval::evaluate(board);
        }
        let opp_fives = board.threat_count(opp, Threat::Five);
        if opp_fives == 0 {
            if movegen::has_legal_flex_four(board, board.side_to_move()) {
                return win_in(ply + 3);
            }
            // Some double threats win in five plies (`quick_win`).
            if self.ctx.params.quick_win > 0 && quick_win(board) {
                return win_in(ply + 5);
            }
            if depth <= 0 {
                // An open three of the opponent is not a quiet position: its defences are
                // searched (a few plies at most) before the evaluation is trusted.
                if depth <= -self.ctx.params.quiescence_plies {
                    return eval::evaluate(board);
                }
                if board.threat_count(opp, Threat::FlexFour) == 0 {
                    let stand = eval::evaluate(board);
                    return self.double_threat_leaf(board, stand, depth, ply, alpha, beta);
                }
                // Candidate (off by default): facing an open three, a VCF still wins (every
                // four must be answered first).
                if self.ctx.params.leaf_vcf_defend > 0 {
                    if let Some(plies) = self.leaf_vcf(board) {
                        return win_in(ply + plies as i32);
                    }
                }
            }
        }

        // The singular test's search of this node's other moves: no table cut-off, no store,
        // no pruning before the moves.
        let excluded = match self.excluded {
            Some((at, mv)) if at == ply => {
                self.excluded = None;
                Some(mv)
            }
            _ => None,
        };
        let pv_node = beta - alpha > 1;
        let tt = self.ctx.tt;
        let key = board.hash();
        let mut hash_move = None;
        let mut hash_depth = depth;
        let mut hash_entry = None;
        let probed = tt.probe(key);
        let tt_pv = pv_node || probed.map_or(false, |e| e.pv);
        if excluded.is_none() {
            self.path[ply as usize].tt_pv = tt_pv;
        }
        if let Some(entry) = probed {
            hash_move = entry.best;
            hash_depth = entry.depth;
            hash_entry = Some(entry);
            if entry.depth >= depth
                && excluded.is_none()
                && (!pv_node || self.ctx.params.tt_cut_pv > 0)
            {
                let s = score_from_tt(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    if let (Some(mv), true) = (hash_move, self.ctx.params.tt_move_stats > 0) {
                        self.learn_from_table_cut(board, mv, (ply, depth), s, (alpha, beta));
                    }
                    return s;
                }
            }
        }

        let static_eval = eval::evaluate(board);
        self.evals[ply as usize] = static_eval;
        let improving = ply < 2 || static_eval > self.evals[ply as usize - 2];
        // The pruning below trusts the table's score over the static evaluation where its
        // bound says the true value lies on that side (Stockfish and Rapfi do this).
        let pruning_eval = match hash_entry {
            Some(entry) if self.ctx.params.tt_eval > 0 && excluded.is_none() => {
                let s = score_from_tt(entry.score, ply);
                let trusted = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => s > static_eval,
                    Bound::Upper => s < static_eval,
                };
                if trusted && s.abs() < WIN_THRESHOLD {
                    s
                } else {
                    static_eval
                }
            }
            _ => static_eval,
        };
        let mut futile = false;
        let params = &self.ctx.params;
        // Candidate (off by default): a PV node whose hash move comes from a shallower search.
        let depth = if params.pv_tt_reduction > 0 && pv_node && depth > 1 && hash_move.is_some() {
            let r = ((depth - hash_depth) * params.pv_tt_reduction / 100).clamp(0, 3);
            depth - r.min(depth - 1)
        } else {
            depth
        };
        // Internal iterative reduction: without a hash move the ordering is a guess; search
        // shallower first (the next iteration finds this node's entry).
        let depth = if params.iir_depth > 0
            && depth >= params.iir_depth
            && hash_move.is_none()
            && excluded.is_none()
        {
            depth - 1
        } else {
            depth
        };
        if !pv_node
            && excluded.is_none()
            && depth >= 1
            && depth <= params.rfp_depth.max(params.futility_depth).max(RAZOR_DEPTH)
            && opp_fives == 0
            && board.threat_count(opp, Threat::FlexFour) == 0
        {
            // Candidate (off by default): an improving node is pruned with less margin.
            let improving_cut = if improving { params.rfp_improving } else { 0 };
            if depth <= params.rfp_depth
                && pruning_eval - params.rfp_margin * (depth * 100 - improving_cut).max(0) / 100
                    >= beta
            {
                return pruning_eval;
            }
            // Candidate (off by default): far below alpha near the horizon, only a double
            // threat could save the node; the leaf search decides (Rapfi's razoring).
            if params.razor_margin > 0
                && depth <= RAZOR_DEPTH
                && alpha.abs() < WIN_THRESHOLD
                && pruning_eval + params.razor_margin * (depth + 2) / 3 < alpha
            {
                let s = self.double_threat_leaf(board, static_eval, 0, ply, alpha - 1, alpha);
                if self.aborted {
                    return 0;
                }
                if s < alpha {
                    return s;
                }
            }
            futile = depth <= params.futility_depth
                && pruning_eval + params.futility_margin * depth <= alpha;
        }

        // Candidate (off by default): null-move pruning. Far above beta, a pass that still
        // fails high after the opponent's reply, searched much shallower, stands for the
        // node. Gomoku has no zugzwang in freestyle, but a free move is worth a lot, so only a
        // large lead makes the test worth its nodes.
        if params.null_move_depth > 0
            && !pv_node
            && excluded.is_none()
            && depth >= params.null_move_depth
            && !self.path[ply as usize].null
            && opp_fives == 0
            && board.threat_count(opp, Threat::FlexFour) == 0
            && beta.abs() < WIN_THRESHOLD
            && pruning_eval >= beta
            && static_eval >= beta.saturating_add(params.null_move_margin)
        {
            let reduction = 367 * PLY / 100 + units * 135 / 1_000;
            let here = self.path[ply as usize];
            self.path[ply as usize + 1] = Step {
                null: true,
                tt_pv: false,
                ..here
            };
            board.set_side_to_move(opp);
            let s = -self.negamax(board, units - reduction, ply + 1, -beta, -beta + 1, !cut);
            board.set_side_to_move(me);
            if self.aborted {
                return 0;
            }
            if s >= beta {
                return if s >= WIN_THRESHOLD { beta } else { s };
            }
        }

        let side = me.index();
        let heur = &self.heur;
        let previous = board.last_move();
        // Candidate (off by default): the opponent's pattern value at the square counts more.
        let order_defence = params.order_defence;
        let mut list = movegen::generate_ordered(board, hash_move, &|b, p| {
            let defence = if order_defence > 0 {
                order_defence * i32::from(b.cell_info(p, opp).value) / 100
            } else {
                0
            };
            heur.bonus(side, ply, previous, p) + defence
        });
        if let Some(mv) = excluded {
            list.moves.retain(|&m| m != mv);
            if list.moves.is_empty() {
                return alpha;
            }
        }
        match list.kind {
            MoveKind::Lost => return loss_in(ply + 2),
            MoveKind::ForcedBlock if list.moves.is_empty() => return loss_in(ply + 2),
            // Every candidate is forbidden (renju): if no square at all is legal, black must
            // play a forbidden move and loses with it.
            _ if list.moves.is_empty() => {
                return if movegen::has_legal_move(board) {
                    eval::evaluate(board)
                } else {
                    loss_in(ply + 1)
                };
            }
            _ => {}
        }
        // PV nodes prune by move count too (`lmp_pv`).
        let pruning = if pv_node && params.lmp_pv == 0 {
            QuietPruning::None
        } else if futile {
            QuietPruning::All
        } else {
            let first = LMP_MOVES[(depth.max(0) as usize).min(LMP_MOVES.len() - 1)]
                * params.lmp_percent.max(1) as usize
                / 100;
            QuietPruning::Late(if improving || params.lmp_not_improving == 0 {
                first
            } else {
                first * params.lmp_not_improving as usize / 100
            })
        };
        // Never empty: the first move is never quiet.
        let node = NodeKind {
            cut,
            pv: pv_node,
            improving,
            tt_pv,
        };
        let mut plan = self.plan(board, &list, hash_move, (depth, ply), node, pruning);
        // A forced block of a four is not a real choice: it costs no depth. Candidate (off by
        // default): it gains a fraction of a ply too, paid out as a ply once the path's
        // fractions reach one.
        let mut depth = if list.kind == MoveKind::ForcedBlock {
            let credit = self.path[ply as usize].credit + params.block_gain;
            if credit >= 100 {
                self.path[ply as usize].credit = credit - 100;
                depth + 2
            } else {
                self.path[ply as usize].credit = credit;
                depth + 1
            }
        } else {
            depth
        };
        let extension = match (hash_move, hash_entry) {
            (Some(mv), Some(entry))
                if params.singular_depth > 0
                    && depth >= params.singular_depth.max(2)
                    && excluded.is_none()
                    && list.kind != MoveKind::ForcedBlock
                    && plan.len() > 1
                    && plan[0].mv == mv
                    && entry.bound != Bound::Upper
                    && entry.depth >= depth - 3 =>
            {
                let tt_score = score_from_tt(entry.score, ply);
                // Candidate (off by default): a node that was on a principal variation asks
                // for a wider margin, from a search a ply deeper (Rapfi's `formerPv`).
                let former_pv = params.singular_former_pv > 0 && !pv_node && tt_pv;
                let (margin, test_depth) = if former_pv {
                    (
                        params.singular_margin + params.singular_former_pv,
                        depth / 2 + 1,
                    )
                } else {
                    (params.singular_margin, depth / 2)
                };
                let singular_beta = tt_score - margin * depth;
                if tt_score.abs() < WIN_THRESHOLD {
                    self.excluded = Some((ply, mv));
                    let s = self.negamax(
                        board,
                        test_depth * PLY,
                        ply,
                        singular_beta - 1,
                        singular_beta,
                        cut,
                    );
                    self.excluded = None;
                    if self.aborted {
                        return 0;
                    }
                    if s < singular_beta {
                        // Candidate (off by default): a hash move far better than every other
                        // move at a non-PV node is searched two plies deeper, a few times per
                        // path at most (Rapfi's double singular extension).
                        if params.singular_double > 0
                            && !pv_node
                            && s < singular_beta - params.singular_double
                            && self.path[ply as usize].extra < DOUBLE_EXTENSION_PLIES
                        {
                            2
                        } else {
                            1
                        }
                    } else if params.singular_multicut > 0 && !pv_node && singular_beta >= beta {
                        // Multi-cut: the hash move and another move both beat beta.
                        return singular_beta;
                    } else if params.singular_negative > 0 && tt_score >= beta {
                        // Candidate: the hash move is not the only good move here.
                        -1
                    } else {
                        0
                    }
                } else {
                    0
                }
            }
            _ => 0,
        };
        // Candidate (off by default): at a PV node, a hash move not extended otherwise is
        // searched a fraction of a ply deeper.
        let hash_extension = if params.hash_extension > 0
            && extension == 0
            && pv_node
            && list.kind != MoveKind::ForcedBlock
            && hash_move == Some(plan[0].mv)
        {
            params.hash_extension * PLY / 100
        } else {
            0
        };
        // Candidate (off by default): a non-PV node whose static evaluation is far above beta
        // will likely fail high; its moves that make no four are searched a ply shallower
        // (Rapfi's fail-high reduction).
        if params.fail_high_margin > 0
            && !pv_node
            && excluded.is_none()
            && list.kind == MoveKind::Normal
            && static_eval >= beta.saturating_add(params.fail_high_margin * depth)
        {
            for planned in plan.iter_mut() {
                if board.threat(planned.mv, me) < Threat::Four {
                    planned.shallower = 1;
                }
            }
        }
        let alpha_raise_max_depth = params.alpha_raise_max_depth;
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        // The pruned moves come last, from `live` on: they matter only when every move
        // before them has lost.
        let live = plan.iter().position(|p| p.deferred).unwrap_or(plan.len());
        let mut resume = 0;
        for (i, &planned) in plan.iter().enumerate() {
            if i < resume {
                continue;
            }
            if i == live && best > -WIN_THRESHOLD {
                break;
            }
            if i == 1 && depth >= SPLIT_DEPTH && live > 2 {
                if let Some(pool) = self.ctx.pool {
                    let (score, mv) = self.search_siblings(
                        board,
                        &plan[1..live],
                        depth * PLY + fraction,
                        ply,
                        (alpha, beta),
                        cut,
                        pool,
                    );
                    if self.aborted {
                        return 0;
                    }
                    // The refuting child's ttPv flag is in another worker's path.
                    self.path[ply as usize + 1].tt_pv = false;
                    if score > best {
                        best = score;
                        best_move = mv;
                    }
                    if best >= beta || best > -WIN_THRESHOLD || live == plan.len() {
                        break;
                    }
                    alpha = alpha.max(best);
                    resume = live;
                    continue;
                }
            }
            let units = depth * PLY + fraction;
            let score = if i == 0 {
                let planned = Planned {
                    extension: extension * PLY + hash_extension,
                    ..planned
                };
                self.search_move(board, planned, units, ply, alpha, beta, true, cut)
            } else {
                self.search_move(board, planned, units, ply, alpha, beta, false, cut)
            };
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(planned.mv);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        if list.kind == MoveKind::Normal {
                            let tried = plan[..i].iter().filter(|t| t.quiet).map(|t| t.mv);
                            self.heur
                                .cutoff((side, ply, depth), previous, planned.mv, tried);
                        }
                        break;
                    }
                    // Candidate (off by default): later moves need only beat this one.
                    if depth > 2 && depth < alpha_raise_max_depth && score.abs() < WIN_THRESHOLD {
                        depth -= 1;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_none() {
            let tt_pv = if self.ctx.params.tt_pv_refine > 0 {
                let parent = ply > 0 && self.path[ply as usize - 1].tt_pv;
                let child = self.path[ply as usize + 1].tt_pv;
                refine_tt_pv(tt_pv, bound, depth, parent, child)
            } else {
                tt_pv
            };
            tt.store(key, best_move, score_to_tt(best, ply), depth, bound, tt_pv);
        }
        best
    }

    /// The plies to the five of a VCF of the side to move, when the `leaf_vcf` candidate is on
    /// (its value is the solver's node budget) and the solver proves one.
    /// The `tt_move_stats` candidate: a table cut-off with score `s` counts for the entry's
    /// move `mv` as a cut-off or a fail-low would, where the opponent has no four and `mv`
    /// makes less than an open three (Rapfi's update of the table move's statistics).
    fn learn_from_table_cut(
        &mut self,
        board: &Board,
        mv: Pos,
        (ply, depth): (i32, i32),
        s: Score,
        (alpha, beta): (Score, Score),
    ) {
        let me = board.side_to_move();
        let opp = me.opponent();
        if board.threat_count(opp, Threat::Five) > 0
            || board.threat_count(opp, Threat::FlexFour) > 0
            || !board.is_empty(mv)
            || board.threat(mv, me) >= Threat::Three
        {
            return;
        }
        if s >= beta {
            let at = (me.index(), ply, depth);
            self.heur
                .cutoff(at, board.last_move(), mv, std::iter::empty());
        } else if s <= alpha {
            self.heur.fail_low(me.index(), depth, mv);
        }
    }

    fn leaf_vcf(&mut self, board: &mut Board) -> Option<u32> {
        let budget = self.ctx.params.leaf_vcf;
        if budget <= 0 || board.four_cell_count(board.side_to_move()) == 0 {
            return None;
        }
        let solver = self
            .leaf_solver
            .get_or_insert_with(|| VcfSolver::new(LEAF_VCF_CACHE));
        let before = solver.nodes;
        let won = solver.win_plies(board, budget as u64);
        self.nodes += solver.nodes - before;
        won
    }

    /// A leaf (depth 0 or below) where the opponent has no open three: the static evaluation
    /// stands, unless it is below beta and the side to move can make a four-three or a double
    /// three; those moves are searched, since every answer to them is forced (a block of the
    /// four, defences against the threes). Measured at 3 s + 30 ms per game against the same
    /// engine without it: +48.7 ± 40.8 Elo, SPRT [0, 30] H1 after 278 games. `stand` is the
    /// position's static evaluation (a caller that has it already need not compute it again).
    fn double_threat_leaf(
        &mut self,
        board: &mut Board,
        stand: Score,
        depth: i32,
        ply: i32,
        mut alpha: Score,
        beta: Score,
    ) -> Score {
        let me = board.side_to_move();
        // Candidate (off by default): below the horizon only the four-threes.
        let threes = depth == 0 || self.ctx.params.leaf_fours_only == 0;
        let double_threes = if threes {
            board.threat_count(me, Threat::ThreeThree)
        } else {
            0
        };
        // Candidate (off by default): in the first plies below the horizon, the plain fours
        // too (the start of a VCF; Rapfi's leaves search every four).
        let fours = if depth > -self.ctx.params.leaf_fours {
            board.threat_count(me, Threat::Four)
        } else {
            0
        };
        if stand >= beta {
            return stand;
        }
        // Candidate (off by default): a VCF of the side to move wins, whatever the evaluation.
        if let Some(plies) = self.leaf_vcf(board) {
            return win_in(ply + plies as i32);
        }
        if board.threat_count(me, Threat::FourThree) + double_threes + fours == 0 {
            return stand;
        }
        let mut best = stand;
        alpha = alpha.max(stand);
        // A four or a three made by a move has a stone of its own within two cells of it, so
        // these moves are among the candidates; the double threats first, then the plain
        // fours.
        let mut moves: Vec<Pos> = board
            .candidates()
            .iter()
            .filter(|&p| match board.threat(p, me) {
                Threat::FourThree => true,
                Threat::ThreeThree => threes,
                _ => false,
            })
            .collect();
        if fours > 0 {
            moves.extend(
                board
                    .candidates()
                    .iter()
                    .filter(|&p| board.threat(p, me) == Threat::Four),
            );
        }
        for mv in moves {
            if !movegen::is_legal(board, mv) {
                continue;
            }
            let score = self.search_move(
                board,
                Planned::full(mv),
                depth * PLY,
                ply,
                alpha,
                beta,
                true,
                false,
            );
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// A fresh path: only the root's step says anything, that it is on the principal variation.
fn root_path() -> Vec<Step> {
    let mut path = vec![Step::default(); MAX_PLY as usize + 2];
    path[0].tt_pv = true;
    path
}

/// The ttPv flag a node stores with its result under the `tt_pv_refine` candidate (Stockfish's
/// and Rapfi's rule), from its own flag, the bound of its result, its depth in plies and the
/// flags of its parent and of its last searched child. Above depth 3, a node that failed low
/// (or was exact) under a ttPv parent joins the principal variation: the parent's move into it
/// is probably good. One that failed high stays on it only if the child that refuted the
/// parent's move did too: otherwise it was only the last leaf of a variation.
fn refine_tt_pv(own: bool, bound: Bound, depth: i32, parent: bool, child: bool) -> bool {
    match bound {
        Bound::Upper | Bound::Exact => own || (parent && depth > 3),
        Bound::Lower if depth > 3 => own && child,
        Bound::Lower => own,
    }
}

/// True when the side to move, with no five and no straight four to make and facing no five,
/// wins in five plies by a double threat (Rapfi's quick win check): a four-three whose forced
/// block makes no four for the opponent (the block lies on another line than the three, which
/// then becomes a straight four), or a double three while the opponent cannot make any four
/// (one move stops only one of the threes). Never for a side with forbidden moves, whose
/// straight four may rest on a forbidden square.
fn quick_win(board: &mut Board) -> bool {
    let me = board.side_to_move();
    let opp = me.opponent();
    if board.rule().has_forbidden(me) {
        return false;
    }
    if board.threat_count(me, Threat::ThreeThree) > 0 && board.four_cell_count(opp) == 0 {
        return true;
    }
    if board.threat_count(me, Threat::FourThree) == 0 {
        return false;
    }
    for mv in board.cells_with(me, Threat::FourThree) {
        board.make(mv);
        let fives = board.cells_with(me, Threat::Five);
        let wins = fives.len() == 1 && !board.four_cell_set(opp).contains(fives[0]);
        board.undo();
        if wins {
            return true;
        }
    }
    false
}

/// Verdicts the leaves' VCF solver keeps (the `leaf_vcf` candidate): 32 KiB.
const LEAF_VCF_CACHE: usize = 1 << 12;

/// Units of depth in one ply: the search's depth is a whole number of these, so that a
/// reduction or an extension may be a fraction of a ply. A node reads its depth in whole plies
/// (rounded down) and hands the fraction on to its children.
const PLY: i32 = 16;

/// The deepest node that razoring (the `razor_margin` candidate) may decide by the leaf search.
const RAZOR_DEPTH: i32 = 2;

/// Most plies of double singular extension on one path (Rapfi allows about ten).
const DOUBLE_EXTENSION_PLIES: i32 = 8;

/// The logarithmic late-move reduction (`scale` hundredths of ln(depth)·ln(move number)
/// plies) in units of [`PLY`], rounded down: `lmr_fraction` takes it as it is, `lmr_log` in
/// whole plies.
fn log_reduction(depth: i32, move_number: usize, scale: i32) -> i32 {
    let plies = f64::from(depth).ln() * (move_number as f64).ln() * f64::from(scale) / 100.0;
    (plies * f64::from(PLY)) as i32
}

/// Cache entries of the root VCF search.
const ROOT_VCF_CACHE: usize = 1 << 18;

/// Most root moves the check of [`Params::verify_share`] (or of `verify_vct`) drops in one
/// search.
const VERIFY_TRIES: usize = 3;

/// Most open threes in a root VCT.
const ROOT_VCT_THREES: i32 = 6;

/// Most open threes in the opponent's VCT that the check of [`Params::verify_vct`] looks for.
const VERIFY_VCT_THREES: i32 = 10;

/// Node budgets of the threat searches at the root. With a time limit each gets a share of the
/// time to the hard limit (about a tenth for the VCF, whose nodes cost a few microseconds, and
/// for the defence check; a VCT node costs more); without one (fixed depth: bench, tests),
/// fixed amounts, so the node count stays deterministic.
struct RootBudget {
    vcf: u64,
    vct: u64,
    /// Total for checking every root move against the opponent's VCF.
    defence: u64,
}

impl RootBudget {
    fn new(limits: &Limits) -> RootBudget {
        match limits.hard {
            Some(hard) => {
                let micros = hard.saturating_duration_since(Instant::now()).as_micros() as u64;
                RootBudget {
                    vcf: (micros / 30).max(100),
                    vct: (micros / 150).max(50),
                    defence: (micros / 30).max(100),
                }
            }
            None => RootBudget {
                vcf: 20_000,
                vct: 2_000,
                defence: 20_000,
            },
        }
    }
}

/// Root moves tried as the first stone of a balanced pair ([`Searcher::balance_two`]).
pub const BALANCE_TWO_FIRST: usize = 20;
/// Answers tried for each of them.
pub const BALANCE_TWO_SECOND: usize = 12;

/// The pairs of a balanced-pair search: the first [`BALANCE_TWO_FIRST`] root moves, each with
/// the first [`BALANCE_TWO_SECOND`] answers of the opponent in move-generation order (only the
/// forced ones when it must block). A move that lets the opponent make five has no pair.
fn balance_pairs(board: &mut Board, root: &[Pos]) -> Vec<(Pos, Pos)> {
    let mut pairs = Vec::new();
    for &first in root.iter().take(BALANCE_TWO_FIRST) {
        board.make(first);
        let answers = movegen::generate(board, None);
        if answers.kind != MoveKind::Win {
            for &second in answers.moves.iter().take(BALANCE_TWO_SECOND) {
                pairs.push((first, second));
            }
        }
        board.undo();
    }
    pairs
}

/// The next iteration's order of a balanced search: the most balanced move first, then by
/// distance of the score (or bound) from `bias`; ties keep the previous order.
fn balance_order(scores: &[Score], best_index: usize, bias: Score) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by_key(|&k| (k != best_index, (scores[k] - bias).abs()));
    order
}

/// If the opponent, were it to move now, would have a VCF, the root moves after which it is
/// not proven to have one any more (in their order); otherwise (or when no move stops it: the
/// game is lost anyway) an empty list. Also returns the nodes used.
fn stop_opponent_vcf(board: &mut Board, root: &[Pos], budget: u64) -> (Vec<Pos>, u64) {
    let me = board.side_to_move();
    let mut solver = VcfSolver::new(ROOT_VCF_CACHE);
    board.set_side_to_move(me.opponent());
    let threat = solver.win_plies(board, budget / 4).is_some();
    board.set_side_to_move(me);
    if !threat {
        return (Vec::new(), solver.nodes);
    }
    let per_move = (budget / root.len().max(1) as u64).max(50);
    let mut kept = Vec::new();
    for &mv in root {
        board.make(mv);
        let refuted = solver.win_plies(board, per_move).is_none();
        board.undo();
        if refuted {
            kept.push(mv);
        }
    }
    (kept, solver.nodes)
}

/// The check of [`Params::verify_vct`]: the root's best move against the opponent's VCT.
struct VctCheck {
    /// Nodes per check (0: off).
    budget: u64,
    /// Moves checked so far, and how many of them were dropped.
    checked: Vec<Pos>,
    dropped: usize,
    /// Nodes used and not yet counted.
    nodes: u64,
}

impl VctCheck {
    /// Earliest depth whose best move is checked.
    const DEPTH: i32 = 6;

    fn new(limits: &Limits, share: i32, start: Instant) -> VctCheck {
        let share = share.clamp(0, 90) as u64;
        let budget = match limits.soft.or(limits.hard) {
            Some(end) => end.saturating_duration_since(start).as_micros() as u64 * share / 100,
            None => 20_000 * share,
        };
        VctCheck {
            budget,
            checked: Vec::new(),
            dropped: 0,
            nodes: 0,
        }
    }

    /// Whether `root[0]`, the best move of a completed iteration at `depth` with `score`, is
    /// proven lost by the opponent's VCT (each move is checked once; the last move left, a
    /// decided score and enough drops are never checked).
    fn refutes(&mut self, board: &mut Board, root: &[Pos], depth: i32, score: Score) -> bool {
        let mv = match root.first() {
            Some(&mv) => mv,
            None => return false,
        };
        if self.budget == 0
            || depth < Self::DEPTH
            || root.len() < 2
            || score.abs() >= WIN_THRESHOLD
            || self.dropped >= VERIFY_TRIES
            || self.checked.contains(&mv)
        {
            return false;
        }
        self.checked.push(mv);
        let mut solver = VctSolver::new();
        board.make(mv);
        let won = solver
            .solve(board, VERIFY_VCT_THREES, self.budget)
            .is_some();
        board.undo();
        self.nodes += solver.nodes();
        log::debug!("verify_vct: {mv:?} in {} nodes: lost {won}", solver.nodes());
        if won {
            self.dropped += 1;
        }
        won
    }
}

/// Follows hash moves from `first` to build the principal variation.
fn principal_variation(
    tt: &TranspositionTable,
    board: &mut Board,
    first: Pos,
    depth: i32,
) -> Vec<Pos> {
    let mut pv = vec![first];
    board.make(first);
    let mut made = 1;
    while made < depth.max(1) {
        let next = match tt.probe(board.hash()).and_then(|e| e.best) {
            Some(p) if board.is_empty(p) && board.on_board(p) => p,
            _ => break,
        };
        pv.push(next);
        board.make(next);
        made += 1;
    }
    for _ in 0..made {
        board.undo();
    }
    pv
}

/// Any legal square, preferring the candidate area; used when move generation finds nothing
/// (e.g. every blocking square is forbidden). Empty only when the board is full.
fn fallback_moves(board: &mut Board) -> Vec<Pos> {
    let squares: Vec<Pos> = board.squares().filter(|&p| board.is_empty(p)).collect();
    let mut legal: Vec<Pos> = squares
        .iter()
        .copied()
        .filter(|&p| movegen::is_legal(board, p))
        .collect();
    legal.sort_by_key(|&p| (std::cmp::Reverse(board.near(p)), p));
    if legal.is_empty() {
        squares
    } else {
        legal
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{
        board::Stone,
        rules::{PatternTable, Rule},
    };

    fn board(rule: Rule, text: &str) -> Board {
        Board::from_ascii(text, Arc::new(PatternTable::new(rule))).expect("valid board")
    }

    fn best(board: &mut Board, depth: i32) -> SearchResult {
        best_with(board, depth, Params::default())
    }

    /// The share of the planned time starts from `time_percent`, grows with a change of the
    /// best move (halving each iteration) and with a falling score, and stays within 50–200.
    #[test]
    fn the_time_use_starts_from_its_base_and_grows_when_the_search_is_unsure() {
        let (a, b) = (Some(Pos::from_xy(7, 7)), Some(Pos::from_xy(8, 8)));
        let mut clock = TimeUse::new(90);
        clock.update(4, a, 10);
        assert_eq!(clock.percent(), 90);
        clock.update(5, b, 10);
        assert_eq!(clock.percent(), 190);
        clock.update(6, b, 10);
        assert_eq!(clock.percent(), 140);
        clock.update(7, b, -50);
        assert_eq!(clock.percent(), 90 + 25 + 30);
        clock.update(8, b, -500);
        assert_eq!(clock.percent(), TimeUse::MAX_PERCENT);
        let mut default = TimeUse::new(Params::default().time_percent);
        default.update(4, a, 0);
        assert_eq!(default.percent(), 60);
        let mut low = TimeUse::new(10);
        low.update(4, a, 0);
        assert_eq!(low.percent(), TimeUse::MIN_PERCENT);
    }

    /// The plan of an ordinary non-PV node: late moves that make a single open three are
    /// reduced like other quiet moves, moves that make a four never are.
    #[test]
    fn late_single_threes_are_reduced_but_fours_are_not() {
        // Black to move: two open twos (many squares make one open three) and a closed three
        // (two squares make a four).
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . O
            . . . . . . . . . . . .
            . . . X X . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . X . . .
            . . O . . . . . X . . .
            . . . . . . . . . . . .
            . . . . O . . . . . . .
            . . . . . . O X X X . .
            . . . . . . . . . . . .
            . . . . . O . . . . O .
            O . . . . . . . . . . .
            ",
        );
        let me = b.side_to_move();
        assert_eq!(me, Stone::Black);
        let tt = TranspositionTable::new(1 << 10);
        let never = || false;
        let searcher = Searcher::new(&tt, Limits::depth(8), &never);
        let worker = Worker::new(
            &searcher.ctx,
            Vec::new(),
            Heuristics::new(&searcher.ctx.params),
        );
        let list = movegen::generate(&mut b, None);
        assert_eq!(list.kind, MoveKind::Normal);
        let plan = worker.plan(
            &b,
            &list,
            None,
            (6, 2),
            NodeKind::default(),
            QuietPruning::Late(LMP_MOVES[6]),
        );
        let late = &plan[Params::default().lmr_first_move as usize..];
        let strongest = |mv: Pos| b.threat(mv, me).max(b.threat(mv, me.opponent()));
        let threes: Vec<&Planned> = late
            .iter()
            .filter(|p| strongest(p.mv) == Threat::Three)
            .collect();
        let fours: Vec<&Planned> = late
            .iter()
            .filter(|p| strongest(p.mv) >= Threat::Four)
            .collect();
        assert!(!threes.is_empty() && !fours.is_empty(), "{plan:?}");
        assert!(threes.iter().all(|p| p.reduction > 0), "{plan:?}");
        assert!(fours.iter().all(|p| p.reduction == 0), "{plan:?}");
        // A futile node prunes every quiet move: each is held back behind the others, not
        // dropped.
        let futile = worker.plan(
            &b,
            &list,
            None,
            (2, 2),
            NodeKind::default(),
            QuietPruning::All,
        );
        assert_eq!(futile.len(), list.moves.len());
        let live = futile.iter().position(|p| p.deferred).expect("some pruned");
        assert!(live > 0, "{futile:?}");
        assert!(
            futile[live..].iter().all(|p| p.deferred && p.quiet),
            "{futile:?}"
        );
        assert!(futile[..live].iter().all(|p| !p.deferred), "{futile:?}");
    }

    /// Below the horizon a side facing two open threes searches its blocks first, and its
    /// plain fours only when every block has lost: a four may start its own win, so the node
    /// is never scored as lost without them (a game against Rapfi was thrown away on such a
    /// "win": the engine stopped at depth 3 and spent its fours).
    #[test]
    fn a_leaf_facing_a_double_three_tries_its_fours_before_it_is_lost() {
        // Black has just made two open threes (4, 4). White to move has no open three and no
        // four-three, yet a VCF: (7, 12) makes a four, Black blocks at (7, 13), and (10, 12)
        // makes two fours.
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . . . O .
            . . . . . . . . . . . . . . .
            . . . . X . . . . . . . . . .
            . . . . X . . . . . . . . . .
            . . X X X . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . X . . X . . . .
            . . . . . . . O . . O . . . .
            . . . . . . . O . . O . . . .
            . . . . . . . O X X O . . . .
            . . . . . . X . O O . . X . .
            . . . . . . . . . . . . . . .
            O . . . . . . . . . . . . . .
            ",
        );
        let white = Stone::White;
        assert_eq!(b.side_to_move(), white);
        assert!(movegen::has_legal_flex_four(&mut b, Stone::Black));
        assert_eq!(b.threat_count(white, Threat::FourThree), 0);
        assert_eq!(b.threat(Pos::from_xy(7, 12), white), Threat::Four);
        let tt = TranspositionTable::new(1 << 10);
        let never = || false;
        let searcher = Searcher::new(&tt, Limits::depth(1), &never);
        let mut worker = Worker::new(
            &searcher.ctx,
            Vec::new(),
            Heuristics::new(&searcher.ctx.params),
        );
        let before = b.hash();
        // A leaf: no depth left.
        let s = worker.negamax(&mut b, 0, 1, -INFINITY, INFINITY, false);
        assert_eq!(b.hash(), before);
        assert!(s > -WIN_THRESHOLD, "scored as lost: {s}");
        // White's VCF is found there.
        assert!(s >= WIN_THRESHOLD, "{s}");
    }

    #[test]
    fn takes_an_immediate_win() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . .
            . X X X X . . . . .
            . O O O O . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            ",
        );
        let r = best(&mut b, 4);
        assert!(r.best == Some(Pos::from_xy(0, 1)) || r.best == Some(Pos::from_xy(5, 1)));
        assert_eq!(r.score, win_in(1));
    }

    #[test]
    fn blocks_a_four() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . .
            . . . . . . . . . .
            . X O O O O . . . .
            . . . X . . . . . .
            . . . . X . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            ",
        );
        let r = best(&mut b, 3);
        assert_eq!(r.best, Some(Pos::from_xy(6, 2)));
    }

    #[test]
    fn stops_an_open_three() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . O O O . . . . .
            . . . . . . . . . . . .
            . . . . . X . . . . . .
            . . . . . . . . X . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            ",
        );
        let r = best(&mut b, 4);
        let blocks = [(3, 3), (7, 3), (2, 3), (8, 3)];
        let m = r.best.expect("a move");
        assert!(
            blocks.contains(&(m.x(), m.y())),
            "{m} does not stop the three"
        );
    }

    #[test]
    fn sees_a_double_three_beyond_the_horizon() {
        // Black to move. White's double three at 4,3 (row 3 and column 4) wins unless black
        // takes or breaks it; at depth 1 the double three is only played at a leaf.
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . O O . . . . .
            . . . . . . . . . . . .
            . . . . O . . . . . . .
            . . . . O . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . X
            . . . . . . . . . X . .
            . . . . . . . . . . . .
            . . . . . . . . X . . X
            ",
        );
        assert_eq!(b.side_to_move(), Stone::Black);
        let r = best(&mut b, 1);
        let m = r.best.expect("a move");
        b.make(m);
        assert_eq!(
            b.threat_count(Stone::White, Threat::ThreeThree),
            0,
            "{m} leaves white its double three"
        );
    }

    #[test]
    fn finds_a_win_in_three_with_an_open_three() {
        // Black to move makes a straight four.
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . .
            . . . . . . . . . .
            . . . X X X . . . .
            . . . . . . . . . .
            . . . O . O . . . .
            . . . . . . . . . .
            . . . O . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            ",
        );
        let r = best(&mut b, 3);
        assert_eq!(r.score, win_in(3), "{r:?}");
        assert!(r.best == Some(Pos::from_xy(2, 2)) || r.best == Some(Pos::from_xy(6, 2)));
    }

    #[test]
    fn search_is_deterministic() {
        let text = "
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . O . . . . . . .
            . . . . . . X X O . . . . . .
            . . . . . . . X . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            ";
        let a = best(&mut board(Rule::Freestyle, text), 4);
        let b = best(&mut board(Rule::Freestyle, text), 4);
        assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
    }

    fn best_with(board: &mut Board, depth: i32, params: Params) -> SearchResult {
        let tt = TranspositionTable::new(1 << 20);
        let never = || false;
        let mut searcher = Searcher::new(&tt, Limits::depth(depth), &never).params(params);
        let before = board.hash();
        let r = searcher.think(board, &mut |_| {});
        assert_eq!(board.hash(), before, "board restored");
        r
    }

    /// A four-three is a quick win only when the forced block of its four makes no four for
    /// the opponent.
    #[test]
    fn quick_win_needs_a_block_that_makes_no_four() {
        // Black to move: (6, 5) makes a four (its only five square is (7, 5)) and an open three.
        let blocked = "
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . O . .
            . . . . . . . . . . . . . . .
            . . . . . . X . . . . . . . .
            . . . . . . X . . . . . . . .
            . . O X X X . . . . . . . . .
            . . . . . . . O . . . . . . .
            . . . . . . . O . . . . . . .
            . . . . . . . O . . . . . . .
            . . . . . . . X . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . O . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            ";
        // White's block on (7, 5) makes a four there: no quick win.
        let mut b = board(Rule::Freestyle, blocked);
        assert_eq!(
            b.threat(Pos::from_xy(6, 5), Stone::Black),
            Threat::FourThree
        );
        assert!(!quick_win(&mut b));
        // The same four-three with White's three elsewhere: the block makes nothing.
        let free = "
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . O . .
            . . . . . . . . . . . . . . .
            . . . . . . X . . . . . O . .
            . . . . . . X . . . . . . . .
            . . O X X X . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . O .
            . . . . . . . . . . . . . . .
            . . . . . . . X . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . O . . .
            . O . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            ";
        let mut b = board(Rule::Freestyle, free);
        assert!(quick_win(&mut b));
        let r = best(&mut b, 4);
        assert_eq!(r.best, Some(Pos::from_xy(6, 5)));
        assert!(r.score >= WIN_THRESHOLD);
    }

    /// The quick win check (`quick_win`) claims a win only where there is one: in random games
    /// under every rule without forbidden moves, each position it would call won in five plies
    /// is won by the search without it. The root's threat searches may report a longer win than
    /// the claimed five plies.
    #[test]
    fn quick_win_claims_only_real_wins() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(20261204);
        let mut claims = 0;
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Caro] {
            let table = Arc::new(PatternTable::new(rule));
            for _ in 0..300 {
                let mut b = Board::new(15, 15, table.clone()).expect("a 15x15 board");
                b.make(Pos::from_xy(7, 7));
                for _ in 0..40 {
                    let me = b.side_to_move();
                    let opp = me.opponent();
                    if b.threat_count(me, Threat::Five) + b.threat_count(opp, Threat::Five) > 0
                        || b.threat_count(me, Threat::FlexFour) > 0
                    {
                        break;
                    }
                    if quick_win(&mut b) {
                        let mut off = Params::default();
                        off.set("quick_win", 0).expect("in range");
                        let r = best_with(&mut b, 6, off);
                        // The root's threat searches may find a longer win first.
                        assert!(
                            r.score >= WIN_THRESHOLD,
                            "{rule:?}: no win found for {me:?} in\n{}",
                            b.to_ascii()
                        );
                        claims += 1;
                    }
                    let moves: Vec<Pos> = b.candidates().iter().collect();
                    b.make(moves[rng.gen_range(0..moves.len())]);
                }
            }
        }
        assert!(claims >= 500, "only {claims} positions to check");
    }

    /// Every candidate on: the search still blocks a four and an open three, stays
    /// deterministic, and the singular test, each of its variants (the double extension
    /// among them), the fail-high reduction, the late-move extension and razoring run (change
    /// the tree).
    #[test]
    fn candidates_keep_the_tactics_and_determinism() {
        let mut all = Params::default();
        for (name, value) in [
            ("alpha_raise_max_depth", 12),
            ("pv_tt_reduction", 100),
            ("lmr_log", 100),
            ("history_malus", 100),
            ("countermove_bonus", 2_000),
            ("policy_reduction", 300),
            ("lmp_not_improving", 50),
            ("quiescence_plies", 2),
            ("singular_depth", 4),
            ("singular_multicut", 1),
            ("singular_negative", 1),
            ("fail_high_margin", 60),
            ("singular_double", 40),
            ("lmr_deeper", 100),
            ("razor_margin", 150),
            ("history_reduction", 1_024),
            ("cut_reduction", 1),
            ("defend_reduction", 1),
            ("quiescence_direct", 1),
            ("tt_eval", 1),
            ("leaf_fours_only", 1),
            ("leaf_fours", 1),
            ("keep_threes", 1),
            ("order_defence", 100),
            ("quick_win", 1),
            ("leaf_vcf", 100),
            ("leaf_vcf_defend", 1),
            ("block_gain", 30),
            ("attack_continuation", 1),
            ("trivial_depth", 4),
            ("lmp_pv", 1),
            ("lmr_fraction", 60),
            ("hash_extension", 25),
            ("lmr_pv_less", 100),
            ("lmr_not_improving", 100),
            ("null_move_depth", 4),
            ("null_move_margin", 200),
            ("tt_cut_pv", 0),
            ("tt_move_stats", 1),
            ("lmr_tt_pv_less", 100),
            ("tt_pv_refine", 1),
            ("history_gravity", 8_192),
            ("singular_former_pv", 4),
            ("lmp_percent", 150),
        ] {
            all.set(name, value).expect("in range");
        }
        let four = "
            . . . . . . . . . .
            . . . . . . . . . .
            . X O O O O . . . .
            . . . X . . . . . .
            . . . . X . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            ";
        let r = best_with(&mut board(Rule::Freestyle, four), 8, all);
        assert_eq!(r.best, Some(Pos::from_xy(6, 2)));
        let three = "
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . O O O . . . . .
            . . . . . . . . . . . .
            . . . . . X . . . . . .
            . . . . . . . . X . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            ";
        let a = best_with(&mut board(Rule::Freestyle, three), 8, all);
        let m = a.best.expect("a move");
        assert!(
            [(3, 3), (7, 3), (2, 3), (8, 3)].contains(&(m.x(), m.y())),
            "{m} does not stop the three"
        );
        let b = best_with(&mut board(Rule::Freestyle, three), 8, all);
        assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
        // Each candidate is turned on against the engine before the package of six went on
        // by default (with a shallower singular test), where each is known to change the search.
        let mut singular = Params::default();
        for (name, value) in [
            ("singular_depth", 4),
            ("rfp_depth", 6),
            ("singular_multicut", 0),
            ("lmr_deeper", 0),
            ("quick_win", 0),
            ("lmp_pv", 0),
            ("lmr_fraction", 0),
        ] {
            singular.set(name, value).expect("in range");
        }
        let quiet = "
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . O X . . . . .
            . . . . . X O . . . . .
            . . . . . . X O . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            ";
        let mut off = singular;
        off.set("singular_depth", 0).expect("in range");
        let plain = best_with(&mut board(Rule::Freestyle, quiet), 8, off);
        let extended = best_with(&mut board(Rule::Freestyle, quiet), 8, singular);
        assert_ne!(plain.nodes, extended.nodes);
        for (name, value) in [
            ("singular_multicut", 1),
            ("singular_negative", 1),
            ("fail_high_margin", 60),
            ("singular_double", 40),
            ("lmr_deeper", 100),
            ("razor_margin", 150),
            ("history_reduction", 1_024),
            ("cut_reduction", 1),
            ("defend_reduction", 1),
            ("quiescence_direct", 0),
            ("tt_eval", 0),
            ("leaf_fours_only", 1),
            ("leaf_fours", 1),
            ("keep_threes", 1),
            ("order_defence", 100),
            ("quick_win", 1),
            ("leaf_vcf", 100),
            ("block_gain", 50),
            ("attack_continuation", 1),
            ("trivial_depth", 4),
            ("lmp_pv", 1),
            ("lmr_fraction", 60),
            ("hash_extension", 25),
            ("lmr_pv_less", 100),
            ("null_move_depth", 4),
            ("tt_cut_pv", 0),
            ("tt_move_stats", 1),
            ("lmr_tt_pv_less", 0),
            ("history_gravity", 8_192),
            ("singular_former_pv", 4),
            ("lmp_percent", 150),
        ] {
            let mut more = singular;
            more.set(name, value).expect("in range");
            let r = best_with(&mut board(Rule::Freestyle, quiet), 8, more);
            assert_ne!(r.nodes, extended.nodes, "{name} changes nothing");
        }
        // Candidates that act only through another: `lmr_not_improving` adds only to
        // reductions over a ply, which `lmr_fraction` makes; `leaf_vcf_defend` works through
        // `leaf_vcf`'s solver; `tt_pv_refine` changes only the flag `lmr_tt_pv_less` reads.
        for ((base, base_value), (name, value)) in [
            (("lmr_fraction", 100), ("lmr_not_improving", 100)),
            (("leaf_vcf", 100), ("leaf_vcf_defend", 1)),
            (("lmr_tt_pv_less", 100), ("tt_pv_refine", 1)),
        ] {
            let mut with = singular;
            with.set(base, base_value).expect("in range");
            let plain = best_with(&mut board(Rule::Freestyle, quiet), 8, with);
            with.set(name, value).expect("in range");
            let more = best_with(&mut board(Rule::Freestyle, quiet), 8, with);
            assert_ne!(plain.nodes, more.nodes, "{name} changes nothing");
        }
    }

    #[test]
    fn refined_tt_pv_joins_under_a_marked_parent_and_leaves_after_an_unmarked_refutation() {
        for bound in [Bound::Upper, Bound::Exact] {
            // A fail-low (or exact) node joins under a marked parent, above depth 3 only.
            assert!(refine_tt_pv(false, bound, 4, true, false));
            assert!(!refine_tt_pv(false, bound, 3, true, true));
            assert!(!refine_tt_pv(false, bound, 8, false, true));
            // It never loses its own mark.
            assert!(refine_tt_pv(true, bound, 8, false, false));
        }
        // A fail-high node keeps its mark above depth 3 only with a marked refuting child.
        assert!(refine_tt_pv(true, Bound::Lower, 4, false, true));
        assert!(!refine_tt_pv(true, Bound::Lower, 4, true, false));
        assert!(refine_tt_pv(true, Bound::Lower, 3, false, false));
        // And it never gains one.
        assert!(!refine_tt_pv(false, Bound::Lower, 8, true, true));
    }

    #[test]
    fn history_with_gravity_stays_within_its_bound_and_follows_recent_cut_offs() {
        let mv = Pos::from_xy(4, 4);
        let mut plain = Heuristics::new(&Params::default());
        for _ in 0..100_000 {
            plain.add_history(0, mv, 400);
        }
        assert_eq!(plain.history[mv.index()][0], 1 << 24);
        assert_eq!(
            plain.bonus(0, 0, None, mv),
            Params::default().history_max_bonus
        );
        let mut params = Params::default();
        params.set("history_gravity", 512).expect("in range");
        let mut heur = Heuristics::new(&params);
        for _ in 0..1_000 {
            heur.add_history(0, mv, 400);
            assert!((0..=512).contains(&heur.history[mv.index()][0]));
        }
        let full = heur.bonus(0, 0, None, mv);
        assert!(full > params.history_max_bonus * 9 / 10, "{full}");
        // A few fail-lows bring a move that used to refute nodes below zero.
        for _ in 0..3 {
            heur.add_history(0, mv, -400);
        }
        assert!(heur.history[mv.index()][0] < 0);
        assert!(heur.bonus(0, 0, None, mv) < 0);
        // Bonuses beyond the bound count as the bound.
        heur.add_history(0, mv, i32::MAX);
        assert_eq!(heur.history[mv.index()][0], 512);
        heur.add_history(0, mv, i32::MIN + 1);
        assert_eq!(heur.history[mv.index()][0], -512);
    }

    #[test]
    fn stop_predicate_ends_the_search_with_a_legal_move() {
        let text = (0..15)
            .map(|_| ".".repeat(15))
            .collect::<Vec<_>>()
            .join("\n");
        let mut b = board(Rule::Freestyle, &text);
        b.make(Pos::from_xy(7, 7));
        b.make(Pos::from_xy(8, 8));
        let tt = TranspositionTable::new(1 << 20);
        let stop = || true;
        let mut searcher = Searcher::new(&tt, Limits::depth(MAX_DEPTH), &stop);
        let r = searcher.think(&mut b, &mut |_| {});
        let m = r.best.expect("a move");
        assert!(b.is_empty(m));
        assert!(r.nodes < 5000);
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("test thread pool")
    }

    #[test]
    fn parallel_search_agrees_on_forced_results() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . .
            . . . . . . . . . .
            . . . X X X . . . .
            . . . . . . . . . .
            . . . O . O . . . .
            . . . . . . . . . .
            . . . O . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            ",
        );
        let tt = TranspositionTable::new(1 << 20);
        let never = || false;
        let p = pool(2);
        let mut searcher = Searcher::new(&tt, Limits::depth(3), &never).with_pool(&p);
        let r = searcher.think(&mut b, &mut |_| {});
        assert_eq!(r.score, win_in(3), "{r:?}");
        assert!(r.best == Some(Pos::from_xy(2, 2)) || r.best == Some(Pos::from_xy(6, 2)));
    }

    #[test]
    fn packed_best_orders_by_score_then_earlier_move() {
        assert!(pack(10, 3) > pack(9, 0));
        assert!(pack(10, 2) > pack(10, 3));
        assert!(pack(-5, 0) > pack(-6, 0));
        for (s, i) in [(0, 0), (-INFINITY, 7), (INFINITY, 300), (win_in(3), 1)] {
            assert_eq!(unpack(pack(s, i)), (s, i));
        }
    }

    /// Many short parallel searches, stopped at random moments by a deadline or by the stop
    /// predicate: every answer is a legal move and no search overruns its deadline by more
    /// than a scheduling slack.
    #[test]
    fn stress_parallel_searches_with_random_stops() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        use std::sync::atomic::AtomicBool;

        let table = Arc::new(PatternTable::new(Rule::Freestyle));
        let p = pool(2);
        let mut rng = StdRng::seed_from_u64(7);
        let tt = TranspositionTable::new(1 << 22);
        let mut worst_overrun = Duration::ZERO;
        let openings: Vec<Board> = crate::bench::POSITIONS
            .iter()
            .filter(|p| p.rule == Rule::Freestyle)
            .filter_map(|p| p.board(Arc::clone(&table)))
            .collect();
        for round in 0..60 {
            // A quiet opening from the bench, plus a few random stones near its centre.
            let mut b = openings[round % openings.len()].clone();
            let centre = (b.width() / 2) as i64;
            for _ in 0..rng.gen_range(0..4) {
                let x = centre + rng.gen_range(-3..=3);
                let y = centre + rng.gen_range(-3..=3);
                if let Some(q) = b.pos(x, y).filter(|&q| b.is_empty(q)) {
                    b.make(q);
                }
            }
            if b.threat_count(b.side_to_move(), Threat::Five) > 0 {
                continue;
            }
            // Long enough for iterations deep enough to split below the root.
            let budget = Duration::from_millis(rng.gen_range(1..200));
            let start = Instant::now();
            let stop_flag = AtomicBool::new(false);
            let stop_after = if round % 2 == 0 {
                u64::MAX
            } else {
                rng.gen_range(0..2000u64)
            };
            let polls = AtomicU64::new(0);
            let stop = || {
                polls.fetch_add(1, Ordering::Relaxed) >= stop_after
                    || stop_flag.load(Ordering::Relaxed)
            };
            let limits = Limits {
                max_depth: MAX_DEPTH,
                max_nodes: 0,
                soft: Some(start + budget / 2),
                hard: Some(start + budget),
            };
            let before = b.hash();
            let r = Searcher::new(&tt, limits, &stop)
                .with_pool(&p)
                .think(&mut b, &mut |_| {});
            let elapsed = start.elapsed();
            assert_eq!(b.hash(), before, "round {round}: board restored");
            let m = r.best.expect("a move on a non-full board");
            assert!(b.on_board(m) && b.is_empty(m), "round {round}: {m} illegal");
            worst_overrun = worst_overrun.max(elapsed.saturating_sub(budget));
        }
        assert!(
            worst_overrun < Duration::from_millis(50),
            "a search overran its deadline by {worst_overrun:?}"
        );
    }

    /// The quiet opening of the determinism test, black to move.
    fn opening() -> Board {
        board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . O . . . . . . .
            . . . . . . X X O . . . . . .
            . . . . . . . X . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            ",
        )
    }

    /// A fixed-depth search with `lines` lines, these exclusions, and a balanced goal.
    fn search_with(
        b: &mut Board,
        depth: i32,
        lines: usize,
        exclude: &[Pos],
        balance: Option<(bool, Score)>,
    ) -> SearchResult {
        let tt = TranspositionTable::new(1 << 20);
        let never = || false;
        let mut searcher = Searcher::new(&tt, Limits::depth(depth), &never)
            .multi_pv(lines)
            .exclude(exclude);
        match balance {
            Some((false, bias)) => searcher = searcher.balance_one(bias),
            Some((true, bias)) => searcher = searcher.balance_two(bias),
            None => {}
        }
        let before = b.hash();
        let r = searcher.think(b, &mut |_| {});
        assert_eq!(b.hash(), before, "board restored");
        r
    }

    #[test]
    fn one_line_and_no_exclusion_are_the_ordinary_search() {
        let plain = best(&mut opening(), 5);
        let same = search_with(&mut opening(), 5, 1, &[], None);
        assert_eq!(
            (plain.best, plain.score, plain.nodes, &plain.pv),
            (same.best, same.score, same.nodes, &same.pv)
        );
        assert_eq!(plain.lines.len(), 1);
        assert_eq!(plain.lines[0].mv, plain.best.expect("a move"));
        assert_eq!(plain.lines[0].pv, plain.pv);
    }

    #[test]
    fn multi_pv_gives_distinct_lines_best_first() {
        let mut b = opening();
        let r = search_with(&mut b, 5, 4, &[], None);
        assert_eq!(r.lines.len(), 4, "{r:?}");
        assert_eq!(Some(r.lines[0].mv), r.best);
        assert_eq!(r.lines[0].score, r.score);
        for (k, line) in r.lines.iter().enumerate() {
            assert_eq!(line.pv.first(), Some(&line.mv));
            assert_eq!(line.depth, 5);
            assert!(b.is_empty(line.mv));
            assert!(r.lines[..k].iter().all(|l| l.mv != line.mv), "{r:?}");
            if k > 0 {
                assert!(r.lines[k - 1].score >= line.score, "{r:?}");
            }
        }
        // The second line is the best move once the first is excluded.
        let first = [r.lines[0].mv];
        let without = search_with(&mut b, 5, 1, &first, None);
        assert_ne!(without.best, Some(first[0]));
        assert!(without.score <= r.lines[0].score);
    }

    /// Black to move; white at 6,6 makes two open threes at once (a VCT), unless black's open
    /// three at 8,8 keeps it busy.
    fn double_three_threat() -> Board {
        board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . O . . . . . . . .
            . . . . . . O . . . . . . . .
            . . . . . . . . O O . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . X . . . .
            . . . . . . . . . . X . . . .
            . . . . . . . . . . . X . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . X . .
            . . . . . . . . . . . . . . .
            ",
        )
    }

    /// The check behind `verify_share`: after a move far away, a search from the opponent's
    /// side finds its win (a double three at 6,6); after black's own open three (8,8: white must
    /// answer it first) it finds none.
    #[test]
    fn the_opponents_win_after_a_move_is_found() {
        let mut b = double_three_threat();
        let tt = TranspositionTable::new(1 << 20);
        let never = || false;
        let searcher = Searcher::new(&tt, Limits::depth(1), &never);
        let before = b.hash();
        let soon = || Instant::now() + Duration::from_millis(300);
        let (lost, nodes) = searcher.opponent_wins_after(&mut b, Pos::from_xy(0, 14), soon());
        assert!(lost && nodes > 0, "{nodes}");
        assert_eq!(b.hash(), before, "board restored");
        let (lost, _) = searcher.opponent_wins_after(&mut b, Pos::from_xy(8, 8), soon());
        assert!(!lost);
        assert_eq!(b.hash(), before, "board restored");
    }

    /// The check behind `verify_vct`: a best move far away is dropped (white then has a
    /// double three at 6,6, a VCT); black's own open three at 8,8 is kept; each move is checked
    /// once, and never before depth 6 or with a decided score.
    #[test]
    fn the_vct_check_drops_a_move_after_which_the_opponent_wins_by_threats() {
        let mut b = double_three_threat();
        let before = b.hash();
        let far = Pos::from_xy(0, 14);
        let three = Pos::from_xy(8, 8);
        let mut check = VctCheck::new(&Limits::depth(8), 1, Instant::now());
        assert!(!check.refutes(&mut b, &[far, three], 5, 0), "too shallow");
        assert!(!check.refutes(&mut b, &[far, three], 6, -WIN_THRESHOLD));
        assert_eq!(check.nodes, 0);
        assert!(check.refutes(&mut b, &[far, three], 6, 0));
        assert!(check.nodes > 0);
        assert_eq!(b.hash(), before, "board restored");
        assert!(!check.refutes(&mut b, &[far, three], 7, 0), "checked once");
        assert!(!check.refutes(&mut b, &[three, far], 7, 0));
        assert_eq!(b.hash(), before, "board restored");
        let mut off = VctCheck::new(&Limits::depth(8), 0, Instant::now());
        assert!(!off.refutes(&mut b, &[far, three], 6, 0), "off");
    }

    /// With `verify_share` on, a forced block stays the move even when the opponent wins after
    /// it too: a move the check drops is only ever replaced by one not proven lost.
    #[test]
    fn the_check_never_trades_a_forced_block_for_a_quicker_loss() {
        // Black to move must block white's four at 5,2; white's open three then wins anyway
        // (the block is the only move: the search gives it without a score).
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            X O O O O . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . O O O . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . X . . . . . . . . . .
            . . . . . . . X . . . . . . .
            . . . . . X . . . . . . . X .
            . X . . . . . . . . . . . . .
            . . . . . . . . . . . . . . .
            . . . . . . . . . . . . X . .
            ",
        );
        let tt = TranspositionTable::new(1 << 20);
        let never = || false;
        let limits = Limits {
            max_depth: MAX_DEPTH,
            max_nodes: 0,
            soft: None,
            hard: Some(Instant::now() + Duration::from_millis(400)),
        };
        let params = Params {
            verify_share: 25,
            ..Params::default()
        };
        let mut searcher = Searcher::new(&tt, limits, &never).params(params);
        let r = searcher.think(&mut b, &mut |_| {});
        assert!(
            r.best == Some(Pos::from_xy(5, 2)) && r.score > -WIN_THRESHOLD,
            "{r:?}"
        );
    }

    #[test]
    fn excluded_moves_are_never_played_even_forced_ones() {
        // Black can win at 0,1 or 5,1; both excluded, the win is gone.
        let text = "
            . . . . . . . . . .
            . X X X X . . . . .
            . O O O O . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            ";
        let wins = [Pos::from_xy(0, 1), Pos::from_xy(5, 1)];
        let mut b = board(Rule::Freestyle, text);
        let r = search_with(&mut b, 3, 1, &wins, None);
        let m = r.best.expect("a move");
        assert!(!wins.contains(&m) && b.is_empty(m));
        // White's four then wins: black's other moves lose.
        assert!(r.score <= -WIN_THRESHOLD, "{r:?}");
        // Every square excluded: the exclusion is ignored rather than no move.
        let all: Vec<Pos> = b.squares().collect();
        let r = search_with(&mut b, 3, 1, &all, None);
        assert!(wins.contains(&r.best.expect("a move")));
    }

    #[test]
    fn balanced_moves_are_closer_to_even_than_the_best() {
        let mut b = opening();
        let strongest = best(&mut b, 4);
        let one = search_with(&mut b, 4, 1, &[], Some((false, 0)));
        let m = one.best.expect("a move");
        assert!(b.is_empty(m));
        assert!(
            one.score.abs() <= strongest.score.abs(),
            "{one:?} {strongest:?}"
        );
        let two = search_with(&mut b, 4, 1, &[], Some((true, 0)));
        assert!(two.pv.len() >= 2, "{two:?}");
        let (a, c) = (two.pv[0], two.pv[1]);
        assert!(a != c && b.is_empty(a) && b.is_empty(c));
        assert_eq!(two.best, Some(a));
        // Aiming at a lead of 300 for the side to move gives a stronger move than aiming at 0.
        let ahead = search_with(&mut b, 4, 1, &[], Some((false, 300)));
        assert!(ahead.score >= one.score, "{ahead:?} {one:?}");
    }

    #[test]
    fn progress_reports_every_root_move() {
        let mut b = opening();
        let tt = TranspositionTable::new(1 << 20);
        let never = || false;
        let mut searcher = Searcher::new(&tt, Limits::depth(3), &never).start_depth(2);
        let (mut entered, mut left, mut depths) = (0, 0, Vec::new());
        let r = searcher.think_with(&mut b, &mut |p| match p {
            Progress::Enter { .. } => entered += 1,
            Progress::Leave { .. } => left += 1,
            Progress::Iteration(r) => depths.push(r.depth),
        });
        assert_eq!(depths, vec![2, 3], "start_depth skips depth 1");
        assert!(entered > 0 && entered == left);
        assert_eq!(r.depth, 3);
    }

    /// Renju, 7×7, white to move with two empty squares: the one in the top row would give
    /// black an overline, so white takes the other one and black, with only a forbidden square
    /// left, loses by playing it (the soak saw such an ending). Filling the forbidden square
    /// instead would let black draw on the last one.
    #[test]
    fn leaving_black_only_a_forbidden_square_wins() {
        let text = "
            X X X . X X X
            O X X O O X X
            X O X X O O X
            X O O . O X O
            X X O X O O X
            O O O O X X O
            X O O X O O O
            ";
        let mut b = board(Rule::Renju, text);
        assert_eq!(b.side_to_move(), Stone::White);
        let r = best(&mut b, 4);
        assert_eq!(r.best, Some(Pos::from_xy(3, 3)));
        assert!(r.score >= WIN_THRESHOLD, "{}", r.score);
        // Black to move with only the forbidden square left: a loss, not a quiet position.
        b.make(Pos::from_xy(3, 3));
        assert!(!movegen::has_legal_move(&mut b));
        assert!(best(&mut b, 2).score <= -WIN_THRESHOLD);
        // Under freestyle the same square is a draw by a full board.
        let mut free = board(Rule::Freestyle, text);
        assert_eq!(best(&mut free, 4).score, 0);
    }

    #[test]
    fn mate_scores_survive_the_table() {
        for ply in [0, 3, 17] {
            for s in [win_in(9), loss_in(12), 345, -77] {
                assert_eq!(score_from_tt(score_to_tt(s, ply), ply), s);
            }
        }
        assert_eq!(describe_score(win_in(5)), "win in 5");
        assert_eq!(describe_score(loss_in(4)), "loss in 4");
    }
}

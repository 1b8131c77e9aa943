//! Iterative-deepening negamax alpha-beta with principal variation search (PVS) and a
//! transposition table.
//!
//! The search never prints and never reads input: the caller passes [`Limits`] (depth, nodes,
//! deadlines) and a stop predicate (YXSTOP / END from the reader thread), and gets a
//! [`SearchResult`] back; an optional callback sees every completed iteration.
//!
//! Tactics come from the board's threat counts before any move is generated: a side that can
//! make a five has won; a side facing two fives has lost; a side that can make a straight four
//! while the opponent has no five wins in three plies. Forced blocks of a four are searched even
//! below depth 0 (a one-move quiescence), so a four is never overlooked at the horizon.

use std::{
    sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use rayon::prelude::*;

use crate::{
    board::{Board, Pos},
    eval,
    movegen::{self, MoveKind},
    rules::Threat,
    tt::{Bound, TranspositionTable},
};

/// Search score in evaluation units; mate scores are near ±[`WIN`].
pub type Score = i32;
/// Score of a position won at the root (a win in `n` plies scores `WIN − n`).
pub const WIN: Score = 1_000_000;
/// Larger than any score.
pub const INFINITY: Score = WIN + 1;
/// Scores beyond this (in absolute value) are forced wins or losses.
pub const WIN_THRESHOLD: Score = WIN - 1_000;
/// Deepest ply the search reaches.
pub const MAX_PLY: i32 = 200;
/// Deepest nominal depth of iterative deepening.
pub const MAX_DEPTH: i32 = 60;

/// Score of a win `ply` plies from the root.
pub fn win_in(ply: i32) -> Score {
    WIN - ply
}

/// Score of a loss `ply` plies from the root.
pub fn loss_in(ply: i32) -> Score {
    -WIN + ply
}

/// Converts a score at `ply` to the form stored in the TT (mate distance from the node).
pub fn score_to_tt(score: Score, ply: i32) -> Score {
    if score >= WIN_THRESHOLD {
        score + ply
    } else if score <= -WIN_THRESHOLD {
        score - ply
    } else {
        score
    }
}

/// Converts a stored TT score back to a score at `ply`.
pub fn score_from_tt(score: Score, ply: i32) -> Score {
    if score >= WIN_THRESHOLD {
        score - ply
    } else if score <= -WIN_THRESHOLD {
        score + ply
    } else {
        score
    }
}

/// Describes a score for humans: `win in 5`, `loss in 4` or `cp 123`.
pub fn describe_score(score: Score) -> String {
    if score >= WIN_THRESHOLD {
        format!("win in {}", WIN - score)
    } else if score <= -WIN_THRESHOLD {
        format!("loss in {}", WIN + score)
    } else {
        format!("ev {score}")
    }
}

/// What bounds a search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest iteration (1..=[`MAX_DEPTH`]).
    pub max_depth: i32,
    /// Stop after about this many nodes (0 = no limit).
    pub max_nodes: u64,
    /// No new iteration starts after this.
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
}

/// Shallowest remaining depth at which a node searches its later moves in parallel.
const SPLIT_DEPTH: i32 = 4;

/// How often (in nodes) a worker flushes its node count and checks the stop conditions.
const CHECK_INTERVAL: u64 = 1024;

/// One thread's search state: the node count not yet flushed, and whether it has stopped.
struct Worker<'c, 'a> {
    ctx: &'c Context<'a>,
    nodes: u64,
    aborted: bool,
    /// Cut-off flags of the parallel splits this worker searches under: when one is set, a
    /// sibling has refuted the node and this work is no longer needed.
    cancel: Vec<&'c AtomicBool>,
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
            },
        }
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
        let start = Instant::now();
        let ctx = &self.ctx;
        ctx.tt.new_search();
        let mut result = SearchResult {
            best: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            elapsed: Duration::ZERO,
        };
        let list = movegen::generate(board, None);
        let mut root: Vec<Pos> = list.moves;
        if root.is_empty() {
            root = fallback_moves(board);
        }
        result.best = root.first().copied();
        result.pv = root.first().copied().into_iter().collect();
        match list.kind {
            MoveKind::Win => result.score = win_in(1),
            MoveKind::Lost => result.score = loss_in(2),
            _ => {}
        }
        let decided = matches!(list.kind, MoveKind::Win | MoveKind::Lost);
        if decided || root.len() <= 1 {
            result.elapsed = start.elapsed();
            return result;
        }

        let mut main = Worker {
            ctx,
            nodes: 0,
            aborted: false,
            cancel: Vec::new(),
        };
        let mut scores: Vec<Score> = vec![-INFINITY; root.len()];
        for depth in 1..=ctx.limits.max_depth {
            let outcome = match ctx.pool {
                None => main.search_root_sequential(board, &root, depth, &mut scores),
                Some(pool) => main.search_root_parallel(board, &root, depth, &mut scores, pool),
            };
            if let Some((index, score)) = outcome.best {
                // A partial iteration still searched the previous best first, so its best move
                // is at least as well informed as the last complete one.
                result.best = Some(root[index]);
                result.score = score;
            }
            if outcome.aborted {
                break;
            }
            result.depth = depth;
            result.nodes = main.total_nodes();
            result.elapsed = start.elapsed();
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
            result.pv = principal_variation(ctx.tt, board, root[0], depth);
            on_iteration(&result);
            if result.score.abs() >= WIN_THRESHOLD {
                break;
            }
            if let Some(soft) = ctx.limits.soft {
                if Instant::now() >= soft {
                    break;
                }
            }
        }
        if result.pv.first() != result.best.as_ref() {
            result.pv = result.best.into_iter().collect();
        }
        result.nodes = main.total_nodes();
        result.elapsed = start.elapsed();
        result
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
    moves: &'s [Pos],
    depth: i32,
    ply: i32,
    beta: Score,
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
            board.make(self.moves[i]);
            let (depth, ply) = (self.depth - 1, self.ply + 1);
            let mut score = -worker.negamax(board, depth, ply, -bound - 1, -bound);
            if score > bound && score < self.beta && !worker.aborted {
                score = -worker.negamax(board, depth, ply, -self.beta, -bound);
            }
            board.undo();
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
    fn total_nodes(&mut self) -> u64 {
        self.flush();
        self.ctx.nodes.load(Ordering::Relaxed)
    }

    fn flush(&mut self) {
        self.ctx.nodes.fetch_add(self.nodes, Ordering::Relaxed);
        self.nodes = 0;
    }

    /// Searches one root move; `threshold` is the score it must beat (null window first, then
    /// a full re-search when it does).
    fn search_root_move(
        &mut self,
        board: &mut Board,
        mv: Pos,
        depth: i32,
        threshold: Score,
        first: bool,
    ) -> Score {
        board.make(mv);
        let score = if first {
            -self.negamax(board, depth - 1, 1, -INFINITY, -threshold)
        } else {
            let s = -self.negamax(board, depth - 1, 1, -threshold - 1, -threshold);
            if s > threshold && !self.aborted {
                -self.negamax(board, depth - 1, 1, -INFINITY, -threshold)
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
        scores: &mut [Score],
    ) -> RootOutcome {
        let mut alpha = -INFINITY;
        let mut best = None;
        for (i, &mv) in root.iter().enumerate() {
            let score = self.search_root_move(board, mv, depth, alpha, i == 0);
            if self.aborted {
                break;
            }
            scores[i] = score;
            if score > alpha {
                alpha = score;
                best = Some((i, score));
            }
        }
        RootOutcome {
            best,
            aborted: self.aborted,
        }
    }

    fn search_root_parallel(
        &mut self,
        board: &mut Board,
        root: &[Pos],
        depth: i32,
        scores: &mut [Score],
        pool: &rayon::ThreadPool,
    ) -> RootOutcome {
        let first = self.search_root_move(board, root[0], depth, -INFINITY, true);
        if self.aborted {
            return RootOutcome {
                best: None,
                aborted: true,
            };
        }
        scores[0] = first;
        self.flush();
        let shared_best = AtomicU64::new(pack(first, 0));
        let results: Vec<AtomicI32> = (0..root.len()).map(|_| AtomicI32::new(-INFINITY)).collect();
        let ctx = self.ctx;
        let template: &Board = board;
        pool.install(|| {
            root[1..].par_iter().enumerate().for_each_init(
                || {
                    (
                        template.clone(),
                        Worker {
                            ctx,
                            nodes: 0,
                            aborted: false,
                            cancel: Vec::new(),
                        },
                    )
                },
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
                    let score = worker.search_root_move(local, mv, depth, threshold, false);
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
        for (i, r) in results.iter().enumerate().skip(1) {
            scores[i] = r.load(Ordering::Relaxed);
        }
        let aborted = ctx.aborted.load(Ordering::Relaxed);
        self.aborted = aborted;
        RootOutcome {
            best: Some(unpack(shared_best.load(Ordering::Relaxed))).map(|(s, i)| (i, s)),
            aborted,
        }
    }

    /// Searches `moves` (the later moves of a node whose first move has been searched without
    /// a cut-off and left the bound at `alpha`) in parallel ("young brothers wait"); returns the
    /// best score above `alpha` and its move, or `alpha` and `None`. The first job that reaches
    /// `beta` cancels the others.
    ///
    /// Each thread of the pool takes the next unsearched move from a shared counter until none
    /// is left, so a split costs one board copy per helper thread; the calling thread searches
    /// on `board` itself.
    #[allow(clippy::too_many_arguments)]
    fn search_siblings(
        &mut self,
        board: &mut Board,
        moves: &[Pos],
        depth: i32,
        ply: i32,
        alpha: Score,
        beta: Score,
        pool: &rayon::ThreadPool,
    ) -> (Score, Option<Pos>) {
        self.flush();
        let shared_best = AtomicU64::new(pack(alpha, moves.len()));
        let cutoff = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let ctx = self.ctx;
        let mut cancel: Vec<&AtomicBool> = self.cancel.clone();
        cancel.push(&cutoff);
        let split = Split {
            moves,
            depth,
            ply,
            beta,
            best: &shared_best,
            cutoff: &cutoff,
            next: &next,
        };
        let helpers = pool
            .current_num_threads()
            .saturating_sub(1)
            .min(moves.len());
        pool.install(|| {
            rayon::scope(|scope| {
                for _ in 0..helpers {
                    let (split, cancel) = (&split, &cancel);
                    let template: &Board = board;
                    let mut local = template.clone();
                    scope.spawn(move |_| {
                        let mut worker = Worker {
                            ctx,
                            nodes: 0,
                            aborted: false,
                            cancel: cancel.clone(),
                        };
                        split.run(&mut worker, &mut local);
                    });
                }
                let mut worker = Worker {
                    ctx,
                    nodes: 0,
                    aborted: false,
                    cancel: cancel.clone(),
                };
                split.run(&mut worker, board);
            });
        });
        self.aborted = ctx.aborted.load(Ordering::Relaxed) || self.cancelled();
        let (score, index) = unpack(shared_best.load(Ordering::Relaxed));
        (score, moves.get(index).copied())
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

    fn negamax(
        &mut self,
        board: &mut Board,
        depth: i32,
        ply: i32,
        mut alpha: Score,
        beta: Score,
    ) -> Score {
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
            if has_flex_four(board) {
                return win_in(ply + 3);
            }
            if depth <= 0 {
                return eval::evaluate(board);
            }
        }

        let tt = self.ctx.tt;
        let key = board.hash();
        let mut hash_move = None;
        if let Some(entry) = tt.probe(key) {
            hash_move = entry.best;
            if entry.depth >= depth {
                let s = score_from_tt(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let list = movegen::generate(board, hash_move);
        match list.kind {
            MoveKind::Lost => return loss_in(ply + 2),
            MoveKind::ForcedBlock if list.moves.is_empty() => return loss_in(ply + 2),
            _ if list.moves.is_empty() => return eval::evaluate(board),
            _ => {}
        }
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        for (i, &mv) in list.moves.iter().enumerate() {
            if i == 1 && depth >= SPLIT_DEPTH && list.moves.len() > 2 {
                if let Some(pool) = self.ctx.pool {
                    let (score, mv) = self.search_siblings(
                        board,
                        &list.moves[1..],
                        depth,
                        ply,
                        alpha,
                        beta,
                        pool,
                    );
                    if self.aborted {
                        return 0;
                    }
                    if score > best {
                        best = score;
                        best_move = mv;
                    }
                    break;
                }
            }
            board.make(mv);
            let score = if i == 0 {
                -self.negamax(board, depth - 1, ply + 1, -beta, -alpha)
            } else {
                let s = -self.negamax(board, depth - 1, ply + 1, -alpha - 1, -alpha);
                if s > alpha && s < beta && !self.aborted {
                    -self.negamax(board, depth - 1, ply + 1, -beta, -alpha)
                } else {
                    s
                }
            };
            board.undo();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
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
        tt.store(key, best_move, score_to_tt(best, ply), depth, bound);
        best
    }
}

/// True if the side to move can make a straight four (or four-four) it is allowed to play.
fn has_flex_four(board: &mut Board) -> bool {
    let me = board.side_to_move();
    if board.threat_count(me, Threat::FlexFour) == 0 {
        return false;
    }
    if !board.rule().has_forbidden(me) {
        return true;
    }
    board
        .cells_with(me, Threat::FlexFour)
        .into_iter()
        .any(|p| movegen::is_legal(board, p))
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
    use crate::rules::{PatternTable, Rule};

    fn board(rule: Rule, text: &str) -> Board {
        Board::from_ascii(text, Arc::new(PatternTable::new(rule))).expect("valid board")
    }

    fn best(board: &mut Board, depth: i32) -> SearchResult {
        let tt = TranspositionTable::new(1 << 20);
        let never = || false;
        let mut searcher = Searcher::new(&tt, Limits::depth(depth), &never);
        let before = board.hash();
        let r = searcher.think(board, &mut |_| {});
        assert_eq!(board.hash(), before, "board restored");
        r
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

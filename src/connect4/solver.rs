//! The exact solver: negamax alpha-beta with null windows around the score, after Pascal Pons'
//! "Solving Connect 4", plus what makes it search fewer nodes than his.
//!
//! Scores are Pons' convention on any size: 0 for a draw; if the side to move wins, one plus
//! the discs it still holds after its winning disc (`(cells + 1 - n) / 2` for a win with the
//! disc played when `n` discs are down: 22 − its discs on 7×6); the negative if it loses.
//! On boards with an odd number of cells the first player holds one disc more than the second,
//! and the formula gives 1 to a win with either player's last disc.
//!
//! At every node, before any child is searched:
//! - the opponent's immediate threats force the reply or lose at once, and a move under an
//!   opponent's threat is never tried (Pons);
//! - the score is bounded by the earliest possible win of either side (Pons) and by whether a
//!   side can still make any four at all (a side without a possible four cannot win: its best
//!   is a draw), which settles many endgames without a search;
//! - the table is probed with a key shared by a position and its mirror image while few discs
//!   are down (transpositions across the symmetry), both bounds are kept, and the child moves
//!   are probed before they are searched (an enhanced transposition cut-off);
//! - moves are tried in order: the table's best column, then the moves making the most new
//!   threats (cells where a disc would complete a four, Pons' order), then the centre first;
//!   the others are scored only when the table's move does not cut off.
//!
//! [`Solver::solve`] narrows the score with null-window searches as Pons does (testing the
//! extremes first: short wins are cheap to prove); a weak solve asks only "win, draw or loss".
//! A search can be stopped by a flag or a deadline; what it stored until then stays valid.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

use super::{
    bits::{self, with_geometry, Geometry},
    book::Book,
    table::{Table, NO_LOWER, NO_UPPER},
    Position,
};

/// Positions with at most this many discs share their key with their mirror image.
const SYMMETRY_PLY: u32 = 18;
/// Enhanced transposition cut-offs where at least this many moves are left.
const ETC_MOVES_LEFT: i32 = 14;
/// Nodes between two looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 4096;
/// Default largest table: 2^22 buckets, 64 MiB.
pub const DEFAULT_TABLE_BITS: u32 = 22;

/// How much of the score to find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The exact score.
    Strong,
    /// Only its sign: 1 win, 0 draw, -1 loss.
    Weak,
}

/// When to give up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits<'a> {
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when this becomes true.
    pub stop: Option<&'a AtomicBool>,
}

impl Limits<'_> {
    /// No limit.
    pub fn none() -> Limits<'static> {
        Limits::default()
    }
}

/// A solver: its transposition table, kept between calls on the same board size (solving the
/// next move of a game reuses the previous move's work), and counters.
pub struct Solver {
    table: Table,
    bucket_bits: u32,
    nodes: u64,
    use_book: bool,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new(DEFAULT_TABLE_BITS)
    }
}

/// The bitboard position the search works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// The side to move's discs.
    pub current: u64,
    /// Every disc.
    pub mask: u64,
    /// Discs on the board.
    pub moves: u32,
}

impl Node {
    #[inline(always)]
    pub(crate) fn play(self, bit: u64) -> Node {
        Node {
            current: self.current ^ self.mask,
            mask: self.mask | bit,
            moves: self.moves + 1,
        }
    }

    #[inline(always)]
    pub(crate) fn key(self) -> u64 {
        self.current + self.mask
    }

    pub(crate) fn of(pos: &Position) -> Node {
        let (current, mask) = pos.bits();
        Node {
            current,
            mask,
            moves: pos.moves_played() as u32,
        }
    }

    /// The position after the side to move plays `col` (legal).
    pub(crate) fn play_column<G: Geometry>(self, g: G, col: u32) -> Node {
        self.play(bits::playable(g, self.mask) & g.column(col))
    }

    /// True if the side to move wins by playing `col` (legal).
    pub(crate) fn wins_with<G: Geometry>(self, g: G, col: u32) -> bool {
        bits::winning_cells(g, self.current, self.mask)
            & bits::playable(g, self.mask)
            & g.column(col)
            != 0
    }

    /// True if the side to move has a winning move.
    pub(crate) fn can_win_now<G: Geometry>(self, g: G) -> bool {
        bits::winning_cells(g, self.current, self.mask) & bits::playable(g, self.mask) != 0
    }
}

/// The score of winning with the next disc when `moves` discs are down.
pub fn win_now_score(cells: u32, moves: u32) -> i32 {
    (cells as i32 + 1 - moves as i32) / 2
}

/// The number of its own discs, this one included, the side to move needs to win with `score`
/// (> 0) when `moves` discs are down; for a loss (`score < 0`), the discs the opponent needs.
pub fn discs_to_end(cells: u32, moves: u32, score: i32) -> u32 {
    let (cells, moves) = (cells as i32, moves as i32);
    // The disc that ends the game is played when `m` discs are down, `m` of the right parity
    // with `(cells + 1 - m) / 2 == |score|`.
    let parity = if score > 0 {
        moves % 2
    } else {
        (moves + 1) % 2
    };
    let s = score.abs();
    let mut m = cells + 1 - 2 * s;
    if m.rem_euclid(2) != parity {
        m -= 1;
    }
    let first = if score > 0 { moves } else { moves + 1 };
    ((m - first) / 2 + 1).max(1) as u32
}

impl Solver {
    /// A solver whose table grows to at most `2^table_bits` buckets of 16 bytes (22: 64 MiB).
    pub fn new(table_bits: u32) -> Solver {
        Solver {
            table: Table::new(table_bits, 0),
            bucket_bits: table_bits,
            nodes: 0,
            use_book: true,
        }
    }

    /// Whether the embedded opening book answers positions it holds (on by default).
    pub fn set_book(&mut self, on: bool) {
        self.use_book = on;
    }

    /// Nodes searched since the last [`Solver::reset`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Empties the table and the node count.
    pub fn reset(&mut self) {
        self.table.clear();
        self.nodes = 0;
    }

    /// Bytes of table.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Makes the table fit a `width`×`height` board (done by every search; call it first to
    /// keep the table's allocation out of a timed search).
    pub fn prepare(&mut self, width: usize, height: usize) {
        let key_bits = (width * (height + 1)) as u32;
        if self.table.key_bits() != key_bits {
            self.table = Table::new(self.bucket_bits, key_bits);
        }
    }

    fn book(&self, width: usize, height: usize) -> Option<&'static Book> {
        if self.use_book {
            Book::embedded(width, height)
        } else {
            None
        }
    }

    /// The score of `pos` for the side to move, or `None` if the limits stopped the search.
    /// A finished game scores as a draw or as the loss it is for the side to move.
    pub fn solve(&mut self, pos: &Position, mode: Mode, limits: Limits<'_>) -> Option<i32> {
        self.prepare(pos.width(), pos.height());
        let book = self.book(pos.width(), pos.height());
        let node = Node::of(pos);
        let done = match pos.outcome() {
            super::Outcome::Won(_) => Some(-win_now_score(
                pos.width() as u32 * pos.height() as u32,
                node.moves - 1,
            )),
            super::Outcome::Draw => Some(0),
            super::Outcome::Ongoing => None,
        };
        if let Some(score) = done {
            return Some(match mode {
                Mode::Strong => score,
                Mode::Weak => score.signum(),
            });
        }
        with_geometry!(pos.width(), pos.height(), |g| {
            let mut search = Search::new(g, self, book, limits);
            let score = search.solve(node, mode);
            search.finish();
            score
        })
    }

    /// The score of playing each column (`None` for a full column, or where the limits
    /// stopped the search), from the side to move's view. Columns are solved centre first.
    pub fn move_scores(
        &mut self,
        pos: &Position,
        mode: Mode,
        limits: Limits<'_>,
    ) -> Vec<Option<i32>> {
        self.prepare(pos.width(), pos.height());
        let book = self.book(pos.width(), pos.height());
        let node = Node::of(pos);
        let mut scores = vec![None; pos.width()];
        with_geometry!(pos.width(), pos.height(), |g| {
            let mut search = Search::new(g, self, book, limits);
            for col in centre_order(g.width()) {
                if !pos.can_play(col as usize) {
                    continue;
                }
                scores[col as usize] = search.move_score(node, col, mode);
                if search.aborted {
                    break;
                }
            }
            search.finish();
        });
        scores
    }

    /// A best column for the side to move and its score, or `None` if the game is over or the
    /// limits stopped the search. Among equal moves the one nearest the centre.
    pub fn best_move(
        &mut self,
        pos: &Position,
        mode: Mode,
        limits: Limits<'_>,
    ) -> Option<(usize, i32)> {
        if pos.outcome() != super::Outcome::Ongoing {
            return None;
        }
        self.prepare(pos.width(), pos.height());
        let book = self.book(pos.width(), pos.height());
        let node = Node::of(pos);
        with_geometry!(pos.width(), pos.height(), |g| {
            let mut search = Search::new(g, self, book, limits);
            let found = search.best_move(node, mode);
            search.finish();
            found.map(|(c, s)| (c as usize, s))
        })
    }
}

/// Columns from the centre outwards, the left one first among two at the same distance.
pub(crate) fn centre_order(width: u32) -> Vec<u32> {
    let mut cols: Vec<u32> = (0..width).collect();
    cols.sort_by_key(|&c| ((2 * c as i32 - (width as i32 - 1)).abs(), c));
    cols
}

/// One call's search: the geometry, the table and the limits.
pub(crate) struct Search<'a, G: Geometry> {
    g: G,
    table: &'a mut Table,
    nodes: u64,
    total_nodes: &'a mut u64,
    book: Option<&'static Book>,
    deadline: Option<Instant>,
    stop: Option<&'a AtomicBool>,
    pub aborted: bool,
    order: [u32; bits::MAX_WIDTH],
    cells: i32,
    /// Cells in rows of the parity of `height` (0 = bottom row): a column with an even number
    /// of empty cells has its lowest empty cell in such a row.
    parity_rows: u64,
}

impl<'a, G: Geometry> Search<'a, G> {
    fn new(
        g: G,
        solver: &'a mut Solver,
        book: Option<&'static Book>,
        limits: Limits<'a>,
    ) -> Search<'a, G> {
        let mut order = [0; bits::MAX_WIDTH];
        for (slot, col) in order.iter_mut().zip(centre_order(g.width())) {
            *slot = col;
        }
        Search {
            g,
            table: &mut solver.table,
            nodes: 0,
            total_nodes: &mut solver.nodes,
            book,
            deadline: limits.deadline,
            stop: limits.stop,
            aborted: false,
            order,
            cells: g.cells() as i32,
            parity_rows: (0..g.height())
                .filter(|r| r % 2 == g.height() % 2)
                .fold(0, |m, r| m | g.bottom() << r),
        }
    }

    fn finish(self) {
        *self.total_nodes += self.nodes;
    }

    fn check_limits(&mut self) {
        if self.stop.map_or(false, |s| s.load(Ordering::Relaxed))
            || self.deadline.map_or(false, |d| Instant::now() >= d)
        {
            self.aborted = true;
        }
    }

    /// The score of `node` (game not over).
    fn solve(&mut self, node: Node, mode: Mode) -> Option<i32> {
        let g = self.g;
        if node.can_win_now(g) {
            let s = win_now_score(g.cells(), node.moves);
            return Some(if mode == Mode::Weak { 1 } else { s });
        }
        if node.moves as i32 >= self.cells {
            return Some(0);
        }
        if let Some(score) = self.book.and_then(|b| b.get(g, node)) {
            return Some(if mode == Mode::Weak {
                score.signum()
            } else {
                score
            });
        }
        let (mut min, mut max) = match mode {
            Mode::Strong => (
                -(self.cells - node.moves as i32) / 2,
                (self.cells + 1 - node.moves as i32) / 2,
            ),
            Mode::Weak => (-1, 1),
        };
        while min < max {
            // Pons' choice of the next null window: towards the extremes, where short wins
            // and losses are cheap to prove.
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax(node, med, med + 1);
            if self.aborted {
                return None;
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        Some(match mode {
            Mode::Strong => min,
            Mode::Weak => min.signum(),
        })
    }

    /// The score of playing `col` (legal) in `node`, for the side to move in `node`.
    fn move_score(&mut self, node: Node, col: u32, mode: Mode) -> Option<i32> {
        let g = self.g;
        if node.wins_with(g, col) {
            let s = win_now_score(g.cells(), node.moves);
            return Some(if mode == Mode::Weak { 1 } else { s });
        }
        let child = node.play_column(g, col);
        if child.moves as i32 == self.cells {
            return Some(0);
        }
        self.solve(child, mode).map(|s| -s)
    }

    /// The best column of `node` and its score.
    fn best_move(&mut self, node: Node, mode: Mode) -> Option<(u32, i32)> {
        let g = self.g;
        let score = self.solve(node, mode)?;
        let possible = bits::playable(g, node.mask);
        let order = self.order;
        for &col in &order[..g.width() as usize] {
            if possible & g.column(col) == 0 {
                continue;
            }
            if node.wins_with(g, col) {
                if mode == Mode::Weak || score == win_now_score(g.cells(), node.moves) {
                    return Some((col, score));
                }
                continue;
            }
            let child = node.play_column(g, col);
            let child_score = if child.moves as i32 == self.cells {
                0
            } else if child.can_win_now(g) {
                win_now_score(g.cells(), child.moves)
            } else {
                // Is the child's score at most -score?
                let (lo, hi) = match mode {
                    Mode::Strong => (-score, -score + 1),
                    Mode::Weak => (-score.signum(), -score.signum() + 1),
                };
                let r = self.negamax(child, lo, hi);
                if self.aborted {
                    return None;
                }
                if r <= lo {
                    -score
                } else {
                    hi
                }
            };
            let ours = -child_score;
            let good = match mode {
                Mode::Strong => ours >= score,
                Mode::Weak => ours.signum() >= score,
            };
            if good {
                return Some((col, score));
            }
        }
        debug_assert!(false, "no move reaches the solved score");
        None
    }

    #[inline(always)]
    fn key(&self, node: Node) -> (u64, bool) {
        let key = node.key();
        if node.moves <= SYMMETRY_PLY {
            let m = bits::mirror(self.g, key);
            if m < key {
                return (m, true);
            }
        }
        (key, false)
    }

    /// The score of `node` within `[alpha, beta]`, where the side to move cannot win at once
    /// and the game is not over: the exact score if inside the window, else a bound beyond the
    /// window edge it crossed (Pons' contract).
    fn negamax(&mut self, node: Node, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert!(!node.can_win_now(self.g));
        let g = self.g;
        self.nodes += 1;
        if self.nodes % CHECK_EVERY == 0 {
            self.check_limits();
        }
        if self.aborted {
            return 0;
        }
        // Probed first, used later: the table's cache miss overlaps the work below.
        let (key, mirrored) = self.key(node);
        let entry = self.table.get(key);
        let n = node.moves as i32;
        let opponent = node.current ^ node.mask;
        let possible = bits::playable(g, node.mask);
        let opp_win = bits::winning_cells(g, opponent, node.mask);
        let forced = possible & opp_win;
        let mut candidates = possible;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return -(self.cells - n) / 2;
            }
            candidates = forced;
        }
        candidates &= !(opp_win >> 1);
        if candidates == 0 {
            return -(self.cells - n) / 2;
        }
        if n >= self.cells - 2 {
            return 0;
        }

        // The opponent cannot win with its next disc, we cannot win with this one.
        let mut min = -(self.cells - 2 - n) / 2;
        let mut max = (self.cells - 1 - n) / 2;
        {
            let empty = g.board() & !node.mask;
            if !bits::has_four(g, node.current | empty) {
                max = max.min(0);
            }
            if !bits::has_four(g, opponent | empty) {
                min = min.max(0);
            }
        }
        {
            // Every column has an even number of empty cells: the opponent can answer every
            // disc in the same column (Allis' claimeven) and so take every empty cell of the
            // other row parity. If that leaves us no four, we cannot win; if it gives the
            // opponent one as well, we lose.
            let ours = self.parity_rows;
            if possible & !ours == 0 {
                let empty = g.board() & !node.mask;
                if !bits::has_four(g, node.current | (empty & ours)) {
                    max = max.min(0);
                    if bits::has_four(g, opponent | (empty & !ours)) {
                        max = max.min(-1);
                    }
                }
            }
        }
        if min >= max {
            return min;
        }
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        let flip = |col: u32| if mirrored { g.width() - 1 - col } else { col };
        let mut table_move = None;
        if let Some(e) = entry {
            if e.lower > alpha {
                alpha = e.lower;
                if alpha >= beta {
                    return alpha;
                }
            }
            if e.upper < beta {
                beta = e.upper;
                if alpha >= beta {
                    return beta;
                }
            }
            table_move = e.best.map(flip);
        }
        if let Some(book) = self.book {
            if let Some(score) = book.get(g, node) {
                return score;
            }
        }

        let start_nodes = self.nodes;
        if self.cells - n >= ETC_MOVES_LEFT {
            let mut rest = candidates;
            while rest != 0 {
                let bit = rest & rest.wrapping_neg();
                rest ^= bit;
                let (child_key, _) = self.key(node.play(bit));
                if let Some(e) = self.table.get(child_key) {
                    if -e.upper >= beta {
                        let col = flip(bits::column_of(g, bit));
                        self.table.put(key, -e.upper, NO_UPPER, Some(col), 0);
                        return -e.upper;
                    }
                }
            }
        }

        // The table's move first; the others are ordered only if it does not cut off.
        let mut moves = [0u64; bits::MAX_WIDTH];
        let mut count = 0;
        let mut ordered = false;
        if let Some(col) = table_move {
            let bit = candidates & g.column(col);
            if bit != 0 {
                moves[0] = bit;
                count = 1;
            }
        }
        if count == 0 {
            count = self.order_moves(node, candidates, &mut moves);
            ordered = true;
        }

        let alpha_in = alpha;
        let mut best = None;
        let mut i = 0;
        while i < count {
            let bit = moves[i];
            i += 1;
            if i == count && !ordered {
                let rest = candidates & !moves[0];
                let mut more = [0u64; bits::MAX_WIDTH];
                let extra = self.order_moves(node, rest, &mut more);
                moves[count..count + extra].copy_from_slice(&more[..extra]);
                count += extra;
                ordered = true;
            }
            let child = node.play(bit);
            let score = -self.negamax(child, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if score >= beta {
                let work = log2(self.nodes - start_nodes);
                let col = flip(bits::column_of(g, bit));
                self.table.put(key, score, NO_UPPER, Some(col), work);
                return score;
            }
            if score > alpha {
                alpha = score;
                best = Some(bit);
            }
        }
        let work = log2(self.nodes - start_nodes);
        match best {
            Some(bit) if alpha > alpha_in => {
                let col = flip(bits::column_of(g, bit));
                self.table.put(key, alpha, alpha, Some(col), work);
            }
            _ => self.table.put(key, NO_LOWER, alpha, None, work),
        }
        alpha
    }

    /// Writes the moves of `candidates` into `moves`, most promising first (ties: centre
    /// first), and returns how many there are.
    #[inline(always)]
    fn order_moves(
        &self,
        node: Node,
        candidates: u64,
        moves: &mut [u64; bits::MAX_WIDTH],
    ) -> usize {
        let g = self.g;
        let mut scores = [0i32; bits::MAX_WIDTH];
        let mut count = 0;
        let order = self.order;
        for &col in &order[..g.width() as usize] {
            let bit = candidates & g.column(col);
            if bit == 0 {
                continue;
            }
            let score = self.move_order_score(node, bit);
            let mut i = count;
            while i > 0 && scores[i - 1] < score {
                scores[i] = scores[i - 1];
                moves[i] = moves[i - 1];
                i -= 1;
            }
            scores[i] = score;
            moves[i] = bit;
            count += 1;
        }
        count
    }

    /// How promising the move `bit` looks: threats it leaves its player.
    #[inline(always)]
    fn move_order_score(&self, node: Node, bit: u64) -> i32 {
        let g = self.g;
        let mine = node.current | bit;
        let mask = node.mask | bit;
        let threats = bits::winning_cells(g, mine, mask);
        threats.count_ones() as i32
    }
}

#[inline(always)]
fn log2(n: u64) -> u32 {
    63 - (n | 1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::HashMap;

    /// The exact score by plain minimax over every move, memoised: the oracle.
    fn brute<G: Geometry>(g: G, node: Node, memo: &mut HashMap<u64, i32>) -> i32 {
        if node.can_win_now(g) {
            return win_now_score(g.cells(), node.moves);
        }
        if let Some(&s) = memo.get(&node.key()) {
            return s;
        }
        let possible = bits::playable(g, node.mask);
        let mut best = i32::MIN;
        for col in 0..g.width() {
            let bit = possible & g.column(col);
            if bit == 0 {
                continue;
            }
            let child = node.play(bit);
            let score = if child.moves == g.cells() {
                0
            } else {
                -brute(g, child, memo)
            };
            best = best.max(score);
        }
        memo.insert(node.key(), best);
        best
    }

    /// A fixed-seed xorshift: the same random games on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// A random game on `width`×`height` with `empty` cells left and nobody having won.
    fn random_position(rng: &mut Rng, width: usize, height: usize, empty: usize) -> Position {
        loop {
            let mut pos = Position::new(width, height).expect("supported size");
            while pos.moves_played() < width * height - empty {
                let legal = pos.legal_columns();
                let col = legal[rng.below(legal.len())];
                pos.play(col).expect("legal");
                if pos.outcome() != crate::connect4::Outcome::Ongoing {
                    break;
                }
            }
            if pos.outcome() == crate::connect4::Outcome::Ongoing {
                return pos;
            }
        }
    }

    fn check_against_brute_force(width: usize, height: usize, empty: usize, games: usize) {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ (width * 31 + height) as u64);
        let mut solver = Solver::new(16);
        let mut memo = HashMap::new();
        for _ in 0..games {
            let pos = random_position(&mut rng, width, height, empty);
            let want = with_geometry!(width, height, |g| brute(g, Node::of(&pos), &mut memo));
            let got = solver.solve(&pos, Mode::Strong, Limits::none());
            assert_eq!(got, Some(want), "{pos:?}");
            let weak = solver.solve(&pos, Mode::Weak, Limits::none());
            assert_eq!(weak, Some(want.signum()), "{pos:?}");
            let scores = solver.move_scores(&pos, Mode::Strong, Limits::none());
            assert_eq!(scores.iter().flatten().max(), Some(&want), "{pos:?}");
            let (col, score) = solver
                .best_move(&pos, Mode::Strong, Limits::none())
                .expect("game not over");
            assert_eq!(score, want);
            assert_eq!(scores[col], Some(want), "{pos:?}: best move {col}");
        }
    }

    #[test]
    fn exact_on_seven_by_seven_endgames() {
        check_against_brute_force(7, 7, 12, 60);
    }

    #[test]
    fn exact_on_six_by_seven_endgames() {
        check_against_brute_force(6, 7, 12, 60);
    }

    #[test]
    fn exact_on_sizes_without_a_compiled_geometry() {
        // 5×4 and 8×7 (all 64 bits) go through the run-time geometry.
        check_against_brute_force(5, 4, 14, 40);
        check_against_brute_force(4, 4, 16, 1);
        check_against_brute_force(8, 7, 10, 10);
    }

    #[test]
    fn own_seven_by_seven_and_six_by_seven_positions() {
        let mut solver = Solver::new(16);
        let score = |solver: &mut Solver, w, h, moves: &str| {
            let pos = Position::from_moves(w, h, moves).expect("legal");
            solver.solve(&pos, Mode::Strong, Limits::none())
        };
        // X to move with two threats on the bottom row after 3 or 6: wins with its 4th disc
        // (3 played): 25 + 1 - 4 = 22 on 7×7 (the first player holds 25 discs).
        assert_eq!(score(&mut solver, 7, 7, "4455"), Some(22));
        // The same on 6×7 (21 discs each): 22 - 4 = 18.
        assert_eq!(score(&mut solver, 6, 7, "3344"), Some(18));
        // O to move, X threatens both ends of 2-3-4 on the bottom row: O loses to X's 4th.
        assert_eq!(score(&mut solver, 7, 7, "44553"), Some(-22));
        // A won game: the side to move lost to the opponent's 4th disc.
        assert_eq!(score(&mut solver, 7, 7, "1212121"), Some(-22));
    }

    #[test]
    fn a_stopped_search_answers_none_and_leaves_the_table_usable() {
        let pos = Position::from_moves(7, 6, "").expect("legal");
        let stop = AtomicBool::new(true);
        let mut solver = Solver::new(16);
        solver.set_book(false);
        let limits = Limits {
            deadline: None,
            stop: Some(&stop),
        };
        assert_eq!(solver.solve(&pos, Mode::Strong, limits), None);
        let deadline = Limits {
            deadline: Some(Instant::now()),
            stop: None,
        };
        assert_eq!(solver.best_move(&pos, Mode::Weak, deadline), None);
        let end =
            Position::from_moves(7, 6, "2252576253462244111563365343671351441").expect("legal");
        assert_eq!(solver.solve(&end, Mode::Strong, Limits::none()), Some(-1));
    }

    #[test]
    fn centre_order_of_odd_and_even_widths() {
        assert_eq!(centre_order(7), vec![3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(centre_order(6), vec![2, 3, 1, 4, 0, 5]);
        assert_eq!(centre_order(1), vec![0]);
        assert_eq!(centre_order(2), vec![0, 1]);
    }

    #[test]
    fn distances_from_scores() {
        // 7×6, empty board: the first player's win with its last (21st) disc scores 1.
        assert_eq!(discs_to_end(42, 0, 1), 21);
        assert_eq!(discs_to_end(42, 0, 21), 1);
        // Second player to move (1 disc down), losing to a win with the opponent's 2nd disc.
        assert_eq!(discs_to_end(42, 1, -20), 1);
        // 7×7: first player's 25th disc and second player's 24th both score 1.
        assert_eq!(win_now_score(49, 48), 1);
        assert_eq!(win_now_score(49, 47), 1);
        assert_eq!(discs_to_end(49, 0, 1), 25);
        assert_eq!(discs_to_end(49, 1, 1), 24);
    }
}

//! Game state: positions, stones, and the incrementally updated board.
//!
//! The board is a padded array: cell `(x, y)` lives at index `(y + PAD) · STRIDE + (x + PAD)`,
//! with at least [`PAD`] wall cells around the playing area, so scanning five cells in any
//! direction never needs a bounds check. Boards up to [`MAX_SIZE`]×[`MAX_SIZE`] (rectangular too)
//! share this layout.
//!
//! For every cell and each of the four directions the board keeps a *line key*: 2 bits for each
//! of the five cells on either side (0 empty, 1 black, 2 white, 3 wall). A move changes the keys of
//! the 40 cells within reach, and for exactly those cells the board looks up the new
//! [`Pattern`]s in the rule's [`PatternTable`], folds them into a per-colour [`CellInfo`], and keeps
//! per-colour counts of [`Threat`] classes, the sums of cell evaluation weights over empty cells,
//! a bitset of the empty cells where each colour would make a four or five, and the set of empty
//! squares within two cells of a stone (move generation's candidates). Each move logs what it
//! overwrote (old patterns, infos and counts), so `undo` restores it without table lookups;
//! removing an older stone (TAKEBACK) runs the same update in reverse instead. The test module
//! checks all of it against a full recompute after random make/undo sequences, under every rule.

use std::{fmt, sync::Arc};

use crate::rules::{CellInfo, Pattern, PatternTable, Rule, Threat, HALF_WINDOW};

/// Largest supported board width or height.
pub const MAX_SIZE: usize = 32;
/// Smallest supported board width or height.
pub const MIN_SIZE: usize = 5;
/// Wall cells around the playing area (the pattern window reaches five cells out).
pub const PAD: usize = HALF_WINDOW;
/// Distance between two rows in the padded array.
pub const STRIDE: usize = MAX_SIZE + 2 * PAD;
/// Number of cells in the padded array.
pub const NUM_CELLS: usize = STRIDE * STRIDE;
/// Index steps of the four line directions: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, STRIDE as isize - 1];
/// 64-bit words of a bitset over the padded cells.
const CELL_WORDS: usize = (NUM_CELLS + 63) / 64;
/// (cell, direction) pairs whose line key a move changes: [`HALF_WINDOW`] cells on either side,
/// in each direction.
const TOUCHED: usize = 2 * HALF_WINDOW * DIRECTIONS.len();

// A pattern nibble makes a four or five exactly when its bit 3 is set (see `four_bits`).
const _: () = assert!(
    Pattern::B4 as u8 == 8
        && Pattern::DoubleB4 as u8 == 9
        && Pattern::F4 as u8 == 10
        && Pattern::F5 as u8 == 11
        && Pattern::COUNT == 12
);

/// Bit 0: black would make a four or five in some direction of a cell with these packed
/// patterns; bit 1: white would.
#[inline]
fn four_bits(pats: [u8; 4]) -> u64 {
    let any = pats[0] | pats[1] | pats[2] | pats[3];
    ((any >> 3) & 1) as u64 | ((any >> 6) & 2) as u64
}

/// `stone`'s four pattern codes out of a cell's packed patterns (black low nibble, white high).
#[inline]
fn patterns_of(pats: [u8; 4], stone: Stone) -> [u8; 4] {
    let shift = 4 * stone.index();
    pats.map(|p| (p >> shift) & 0xF)
}

/// A set of cells of the padded array: one bit per [`Pos::index`]. Iteration is in index order,
/// which is board order (row by row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CellSet([u64; CELL_WORDS]);

impl CellSet {
    /// The set holding only `pos`.
    pub fn single(pos: Pos) -> CellSet {
        let mut set = CellSet::default();
        set.assign(pos.index(), true);
        set
    }

    /// True if `pos` is in the set.
    #[inline]
    pub fn contains(&self, pos: Pos) -> bool {
        let i = pos.index();
        (self.0[i / 64] >> (i % 64)) & 1 != 0
    }

    /// Number of cells in the set.
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True if the set has no cell.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The cells in either set.
    pub fn union(mut self, other: CellSet) -> CellSet {
        for (w, o) in self.0.iter_mut().zip(other.0) {
            *w |= o;
        }
        self
    }

    /// The cells, in index (board) order.
    pub fn iter(&self) -> CellSetIter<'_> {
        CellSetIter {
            words: &self.0,
            word: 0,
            bits: self.0[0],
        }
    }

    /// Sets the `len` (< 64) cells from index `start` on to the low `len` bits of `bits`.
    #[inline]
    fn assign_run(&mut self, start: usize, len: usize, bits: u64) {
        let (w, b) = (start / 64, start % 64);
        let full = (1u64 << len) - 1;
        self.0[w] = (self.0[w] & !(full << b)) | (bits << b);
        if b + len > 64 {
            let spill = 64 - b;
            self.0[w + 1] = (self.0[w + 1] & !(full >> spill)) | (bits >> spill);
        }
    }

    /// Puts cell index `i` in the set (`on`) or takes it out.
    #[inline]
    fn assign(&mut self, i: usize, on: bool) {
        let (w, b) = (i / 64, i % 64);
        self.0[w] = (self.0[w] & !(1 << b)) | (u64::from(on) << b);
    }
}

/// Iterator over a [`CellSet`], in index order.
#[derive(Clone, Debug)]
pub struct CellSetIter<'a> {
    words: &'a [u64; CELL_WORDS],
    word: usize,
    bits: u64,
}

impl Iterator for CellSetIter<'_> {
    type Item = Pos;

    #[inline]
    fn next(&mut self) -> Option<Pos> {
        while self.bits == 0 {
            self.word += 1;
            if self.word >= CELL_WORDS {
                return None;
            }
            self.bits = self.words[self.word];
        }
        let bit = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(Pos::from_index(64 * self.word + bit))
    }
}

/// A cell of the padded array. Only positions returned by [`Board::pos`] (or derived from one
/// by at most [`PAD`] steps) are meaningful.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos(u16);

impl Pos {
    /// The padded index of `(x, y)`; the caller guarantees `x, y < MAX_SIZE`.
    pub const fn from_xy(x: usize, y: usize) -> Pos {
        Pos(((y + PAD) * STRIDE + x + PAD) as u16)
    }

    /// Column (0-based, may be out of the board for wall cells).
    pub fn x(self) -> usize {
        (self.0 as usize % STRIDE).wrapping_sub(PAD)
    }

    /// Row (0-based, may be out of the board for wall cells).
    pub fn y(self) -> usize {
        (self.0 as usize / STRIDE).wrapping_sub(PAD)
    }

    /// The padded index, usable to index per-cell arrays of length [`NUM_CELLS`].
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The position from a padded index (must be < [`NUM_CELLS`]).
    pub fn from_index(index: usize) -> Pos {
        debug_assert!(index < NUM_CELLS);
        Pos(index as u16)
    }

    /// The cell `delta` index steps away (see [`DIRECTIONS`]).
    #[inline]
    pub fn offset(self, delta: isize) -> Pos {
        Pos((self.0 as isize + delta) as u16)
    }
}

impl fmt::Display for Pos {
    /// Protocol form `x,y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x(), self.y())
    }
}

/// A player's colour. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stone {
    /// First player.
    Black,
    /// Second player.
    White,
}

impl Stone {
    /// Both colours, black first.
    pub const BOTH: [Stone; 2] = [Stone::Black, Stone::White];

    /// The other colour.
    pub fn opponent(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }

    /// 0 for black, 1 for white.
    pub fn index(self) -> usize {
        self as usize
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }
}

/// Contents of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// No stone.
    Empty,
    /// A stone.
    Stone(Stone),
    /// Outside the board, or a blocked square (BOARD field 3).
    Wall,
}

const CODE_EMPTY: u8 = 0;
const CODE_WALL: u8 = 3;

/// SplitMix64, usable in `const` context, for the Zobrist keys.
const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn zobrist_table() -> [[u64; NUM_CELLS]; 2] {
    let mut table = [[0u64; NUM_CELLS]; 2];
    let mut state = 0x5755_5A49_2020_2026u64;
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < NUM_CELLS {
            let (s, v) = splitmix(state);
            state = s;
            table[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    table
}

/// Zobrist keys per colour and cell, fixed at compile time.
static ZOBRIST: [[u64; NUM_CELLS]; 2] = zobrist_table();
/// Key toggled on every move (side to move).
const ZOBRIST_SIDE: u64 = splitmix(0x0123_4567_89AB_CDEF).1;
/// Per-rule key mixed into the hash, so positions under different rules never collide.
const fn rule_key(rule: Rule) -> u64 {
    splitmix(0xA5A5_0000 + rule as u64).1
}

/// The game position with incremental pattern state. Cloning is cheap enough for one copy per
/// search thread (a few tens of kilobytes; the pattern table is shared).
#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    table: Arc<PatternTable>,
    cells: Vec<u8>,
    /// Everything derived from the cells, kept up to date incrementally.
    derived: Derived,
    side: Stone,
    history: Vec<Pos>,
    /// What [`Board::put`] overwrote for the newest stones, so that [`Board::remove`] of the
    /// last stone restores it without table lookups.
    undo: UndoLog,
    playable: usize,
}

impl Board {
    /// An empty `width`×`height` board (black to move), or `None` for unsupported sizes.
    pub fn new(width: usize, height: usize, table: Arc<PatternTable>) -> Option<Board> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&width) || !(MIN_SIZE..=MAX_SIZE).contains(&height) {
            return None;
        }
        let mut cells = vec![CODE_WALL; NUM_CELLS];
        for y in 0..height {
            for x in 0..width {
                cells[Pos::from_xy(x, y).index()] = CODE_EMPTY;
            }
        }
        let mut board = Board {
            width,
            height,
            table,
            cells,
            derived: Derived {
                keys: Vec::new(),
                pats: Vec::new(),
                info: vec![[CellInfo::default(); 2]; NUM_CELLS],
                near: Vec::new(),
                four: [CellSet::default(); 2],
                candidates: CellSet::default(),
                threat_count: [[0; Threat::COUNT]; 2],
                eval_sum: [[0; 2]; 2],
                hash: 0,
                stones: 0,
            },
            side: Stone::Black,
            history: Vec::with_capacity(width * height),
            undo: UndoLog::default(),
            playable: width * height,
        };
        board.recompute();
        Some(board)
    }

    /// Board width (number of columns).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Board height (number of rows).
    pub fn height(&self) -> usize {
        self.height
    }

    /// The rule this board's patterns follow.
    pub fn rule(&self) -> Rule {
        self.table.rule()
    }

    /// The shared pattern table.
    pub fn table(&self) -> &Arc<PatternTable> {
        &self.table
    }

    /// The position of `(x, y)` if it is on the board.
    pub fn pos(&self, x: i64, y: i64) -> Option<Pos> {
        if x >= 0 && y >= 0 && (x as u64) < self.width as u64 && (y as u64) < self.height as u64 {
            Some(Pos::from_xy(x as usize, y as usize))
        } else {
            None
        }
    }

    /// True if `pos` is a playing square (not a wall cell).
    pub fn on_board(&self, pos: Pos) -> bool {
        pos.x() < self.width && pos.y() < self.height
    }

    /// Every playing square, row by row.
    pub fn squares(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Pos::from_xy(x, y)))
    }

    /// What is on `pos`.
    pub fn cell(&self, pos: Pos) -> Cell {
        match self.cells[pos.index()] {
            CODE_EMPTY => Cell::Empty,
            1 => Cell::Stone(Stone::Black),
            2 => Cell::Stone(Stone::White),
            _ => Cell::Wall,
        }
    }

    /// True if `pos` is an empty playing square.
    #[inline]
    pub fn is_empty(&self, pos: Pos) -> bool {
        self.cells[pos.index()] == CODE_EMPTY
    }

    /// The colour to move.
    pub fn side_to_move(&self) -> Stone {
        self.side
    }

    /// Sets the colour to move (used when a position arrives as a whole, e.g. BOARD).
    pub fn set_side_to_move(&mut self, side: Stone) {
        if side != self.side {
            self.derived.hash ^= ZOBRIST_SIDE;
            self.side = side;
        }
    }

    /// Zobrist key of the position (stones, side to move, rule).
    pub fn hash(&self) -> u64 {
        self.derived.hash
    }

    /// The Zobrist key the position would have after [`Board::make`] at `pos`.
    #[inline]
    pub fn hash_after(&self, pos: Pos) -> u64 {
        self.derived.hash ^ ZOBRIST[self.side.index()][pos.index()] ^ ZOBRIST_SIDE
    }

    /// Moves made with [`Board::make`] / [`Board::put`], oldest first.
    pub fn history(&self) -> &[Pos] {
        &self.history
    }

    /// The most recent stone.
    pub fn last_move(&self) -> Option<Pos> {
        self.history.last().copied()
    }

    /// Number of stones on the board.
    pub fn stone_count(&self) -> usize {
        self.derived.stones
    }

    /// True if no empty playing square is left.
    pub fn is_full(&self) -> bool {
        self.derived.stones >= self.playable
    }

    /// Number of stones within the 5×5 square centred on `pos`.
    #[inline]
    pub fn near(&self, pos: Pos) -> u8 {
        self.derived.near[pos.index()]
    }

    /// The pattern `stone` would make at `pos` in direction `dir` (0..4, see [`DIRECTIONS`]).
    #[inline]
    pub fn pattern(&self, pos: Pos, dir: usize, stone: Stone) -> Pattern {
        Pattern::from_u8(self.pattern_code(pos, dir, stone))
    }

    #[inline]
    fn pattern_code(&self, pos: Pos, dir: usize, stone: Stone) -> u8 {
        (self.derived.pats[pos.index()][dir] >> (4 * stone.index())) & 0xF
    }

    /// The combined class and value of `pos` for `stone` (meaningful for empty cells).
    #[inline]
    pub fn cell_info(&self, pos: Pos, stone: Stone) -> CellInfo {
        self.derived.info[pos.index()][stone.index()]
    }

    /// The threat class of `pos` for `stone`.
    #[inline]
    pub fn threat(&self, pos: Pos, stone: Stone) -> Threat {
        Threat::from_u8(self.derived.info[pos.index()][stone.index()].threat)
    }

    /// Number of empty cells where `stone` would make `threat`.
    #[inline]
    pub fn threat_count(&self, stone: Stone, threat: Threat) -> usize {
        self.derived.threat_count[stone.index()][threat as usize] as usize
    }

    /// Sums of `stone`'s evaluation weights over all empty cells: `[as the side to move, as the
    /// opponent]` (see [`CellInfo::eval`]).
    #[inline]
    pub fn eval_sums(&self, stone: Stone) -> [i32; 2] {
        self.derived.eval_sum[stone.index()]
    }

    /// Empty cells where `stone` would make `threat`, in board order.
    ///
    /// The classes that always include a four (`Five`, `FlexFour`, `FourThree`, `Four`) are
    /// picked from [`Board::four_cells`]; the others scan every square.
    pub fn cells_with(&self, stone: Stone, threat: Threat) -> Vec<Pos> {
        if self.threat_count(stone, threat) == 0 {
            return Vec::new();
        }
        match threat {
            Threat::Five | Threat::FlexFour | Threat::FourThree | Threat::Four => self
                .four_cells(stone)
                .filter(|&p| self.threat(p, stone) == threat)
                .collect(),
            _ => self
                .squares()
                .filter(|&p| self.is_empty(p) && self.threat(p, stone) == threat)
                .collect(),
        }
    }

    /// Empty cells where `stone` would make a four or a five in at least one direction (some
    /// [`Board::pattern`] is [`Pattern::is_four_or_five`]), in board order. Under renju this
    /// includes black's forbidden double-fours.
    pub fn four_cells(&self, stone: Stone) -> CellSetIter<'_> {
        self.derived.four[stone.index()].iter()
    }

    /// The cells of [`Board::four_cells`] as a set.
    #[inline]
    pub fn four_cell_set(&self, stone: Stone) -> &CellSet {
        &self.derived.four[stone.index()]
    }

    /// Number of cells [`Board::four_cells`] yields.
    pub fn four_cell_count(&self, stone: Stone) -> usize {
        self.derived.four[stone.index()].len()
    }

    /// Empty playing squares with a stone within the 5×5 square around them ([`Board::near`]
    /// > 0): move generation's candidate area.
    #[inline]
    pub fn candidates(&self) -> &CellSet {
        &self.derived.candidates
    }

    /// True if `stone` played at the empty square `pos` would win (a five under the rule).
    pub fn is_winning_move(&self, pos: Pos, stone: Stone) -> bool {
        self.is_empty(pos) && self.threat(pos, stone) == Threat::Five
    }

    /// Plays the side to move at the empty square `pos` and passes the turn.
    pub fn make(&mut self, pos: Pos) {
        let side = self.side;
        self.put(pos, side);
        self.side = side.opponent();
        self.derived.hash ^= ZOBRIST_SIDE;
    }

    /// Takes back the last [`Board::make`].
    pub fn undo(&mut self) {
        if let Some(pos) = self.history.last().copied() {
            self.remove(pos);
            self.side = self.side.opponent();
            self.derived.hash ^= ZOBRIST_SIDE;
        }
    }

    /// Places `stone` on the empty square `pos` without changing the side to move; it is
    /// recorded in the history so [`Board::remove`] of the last stone restores the position.
    pub fn put(&mut self, pos: Pos, stone: Stone) {
        debug_assert!(self.is_empty(pos) && self.on_board(pos));
        let i = pos.index();
        self.undo.frames.push(UndoFrame {
            cells_start: self.undo.cells.len() as u32,
            threat_count: self.derived.threat_count,
            eval_sum: self.derived.eval_sum,
        });
        for c in Stone::BOTH {
            let old = self.derived.info[i][c.index()];
            self.uncount(c, old);
        }
        self.set_four_bits(i, 0);
        self.cells[i] = stone.code();
        self.derived.hash ^= ZOBRIST[stone.index()][i];
        self.derived.stones += 1;
        self.history.push(pos);
        self.adjust_near(pos, 1);
        self.update_lines(pos, stone.code() as u32);
    }

    /// Removes the stone on `pos`. The last stone placed (the normal case, and what
    /// [`Board::undo`] does) is taken back from the undo log without table lookups; any other
    /// stone (a protocol TAKEBACK of an older move) by redoing the line update, which also drops
    /// the undo log of the stones still on the board (their removal then takes this slow way too).
    pub fn remove(&mut self, pos: Pos) {
        let i = pos.index();
        let code = self.cells[i];
        debug_assert!(code == 1 || code == 2);
        let stone = if code == 1 {
            Stone::Black
        } else {
            Stone::White
        };
        self.cells[i] = CODE_EMPTY;
        self.derived.hash ^= ZOBRIST[stone.index()][i];
        self.derived.stones -= 1;
        self.adjust_near(pos, -1);
        if self.history.last() == Some(&pos) && !self.undo.frames.is_empty() {
            self.history.pop();
            self.restore_lines(pos);
        } else {
            if let Some(at) = self.history.iter().rposition(|&p| p == pos) {
                self.history.remove(at);
            }
            self.update_lines(pos, 0);
            for c in Stone::BOTH {
                let pats = patterns_of(self.derived.pats[i], c);
                let info = self.table.combine(c, pats);
                self.derived.info[i][c.index()] = info;
                self.count(c, info);
            }
            self.undo.clear();
        }
        self.set_four_bits(i, four_bits(self.derived.pats[i]));
    }

    /// Turns the empty square `pos` into a wall (BOARD field 3). Not undoable.
    pub fn put_wall(&mut self, pos: Pos) {
        if !self.is_empty(pos) {
            return;
        }
        self.cells[pos.index()] = CODE_WALL;
        self.playable -= 1;
        self.recompute();
        self.undo.clear();
    }

    /// Adds `delta` to the near counts of the 5×5 square around `pos` and refreshes its
    /// candidate bits (call after `pos`'s cell has its new content).
    fn adjust_near(&mut self, pos: Pos, delta: i8) {
        let corner = pos.index() - 2 * STRIDE - 2;
        for row in 0..5 {
            let start = corner + row * STRIDE;
            let near = &mut self.derived.near[start..start + 5];
            let cells = &self.cells[start..start + 5];
            let mut candidates = 0u64;
            for (k, (n, &code)) in near.iter_mut().zip(cells).enumerate() {
                *n = n.wrapping_add(delta as u8);
                candidates |= u64::from(*n > 0 && code == CODE_EMPTY) << k;
            }
            self.derived.candidates.assign_run(start, 5, candidates);
        }
    }

    /// Writes `code` into the line keys of the cells around `pos` and refreshes their patterns,
    /// logging the old patterns and infos in the undo log.
    ///
    /// Two passes over the same [`TOUCHED`] (cell, direction) pairs: first all keys and their
    /// table lookups (independent loads from a table too big for the nearest caches, so they
    /// overlap), then the pattern changes and cell refreshes. Each cell lies on one of the pairs
    /// only, so the passes give the same state and undo log as one pass would.
    fn update_lines(&mut self, pos: Pos, code: u32) {
        let base = pos.index() as isize;
        let mut touched = [(0usize, 0usize); TOUCHED];
        let mut packed = [0u8; TOUCHED];
        let mut n = 0;
        for (d, &step) in DIRECTIONS.iter().enumerate() {
            for k in 1..=HALF_WINDOW {
                // `pos` seen from the cell k steps before it sits at offset +k (slot k + 4);
                // seen from the cell k steps after it, at offset −k (slot 5 − k).
                let before = (base - step * k as isize) as usize;
                let after = (base + step * k as isize) as usize;
                touched[n] = (before, d);
                packed[n] = self.set_key_slot(before, d, HALF_WINDOW - 1 + k, code);
                touched[n + 1] = (after, d);
                packed[n + 1] = self.set_key_slot(after, d, HALF_WINDOW - k, code);
                n += 2;
            }
        }
        let mut old_pats = [0u8; TOUCHED];
        for ((&(i, d), &new), old_slot) in touched.iter().zip(&packed).zip(&mut old_pats) {
            // The cell's four patterns are changed as one word in a register and written
            // whole: a one-byte store read back at once as four bytes would stall the load (no
            // store-to-load forwarding).
            let shift = 8 * d as u32;
            let word = u32::from_le_bytes(self.derived.pats[i]);
            let old = (word >> shift) as u8;
            *old_slot = old;
            if old != new {
                let new_word = (word & !(0xFF << shift)) | (u32::from(new) << shift);
                self.derived.pats[i] = new_word.to_le_bytes();
                if self.cells[i] == CODE_EMPTY {
                    self.refresh_cell(i, word, new_word);
                }
            }
        }
        self.undo.pats.extend_from_slice(&old_pats);
    }

    /// Writes `code` into slot `slot` of cell `i`'s line key in direction `d`; returns the
    /// packed patterns of the new key.
    #[inline(always)]
    fn set_key_slot(&mut self, i: usize, d: usize, slot: usize, code: u32) -> u8 {
        let shift = 2 * slot as u32;
        let key = (self.derived.keys[i][d] & !(3 << shift)) | (code << shift);
        self.derived.keys[i][d] = key;
        self.table.lookup(key)
    }

    /// Recomputes the combined info of the empty cell `i` and its counts and four bits, after
    /// one of its patterns changed: `old_word` and `word` hold its packed patterns before and
    /// now, direction 0 in the low byte (only the colours whose nibble changed are combined
    /// again).
    fn refresh_cell(&mut self, i: usize, old_word: u32, word: u32) {
        let old_info = self.derived.info[i];
        let old_four = four_bits(old_word.to_le_bytes()) as u8;
        self.undo.cells.push((i as u16, old_info, old_four));
        let x = old_word ^ word;
        let changed = (x | x >> 8 | x >> 16 | x >> 24) as u8;
        for c in Stone::BOTH {
            if (changed >> (4 * c.index())) & 0xF == 0 {
                continue;
            }
            let own = (word >> (4 * c.index())) & 0x0F0F_0F0F;
            let new = self.table.combine(c, own.to_le_bytes());
            let old = old_info[c.index()];
            if new != old {
                self.uncount(c, old);
                self.derived.info[i][c.index()] = new;
                self.count(c, new);
            }
        }
        self.set_four_bits(i, four_bits(word.to_le_bytes()));
    }

    /// Takes back the line update of the last stone, on `pos`, from the undo log: clears its
    /// slot in the 40 line keys and restores the old patterns, infos, four bits and counts.
    fn restore_lines(&mut self, pos: Pos) {
        let frame = self
            .undo
            .frames
            .pop()
            .expect("the last stone has an undo frame");
        let start = self.undo.pats.len() - TOUCHED;
        let mut old = self.undo.pats[start..].iter().copied();
        let base = pos.index() as isize;
        for (d, &step) in DIRECTIONS.iter().enumerate() {
            for k in 1..=HALF_WINDOW {
                // Same cells and order as `update_lines`.
                let before = (base - step * k as isize) as usize;
                let after = (base + step * k as isize) as usize;
                let before_mask = !(3u32 << (2 * (HALF_WINDOW - 1 + k)));
                let after_mask = !(3u32 << (2 * (HALF_WINDOW - k)));
                self.derived.keys[before][d] &= before_mask;
                self.derived.pats[before][d] = old.next().unwrap_or_default();
                self.derived.keys[after][d] &= after_mask;
                self.derived.pats[after][d] = old.next().unwrap_or_default();
            }
        }
        self.undo.pats.truncate(start);
        let cells_start = frame.cells_start as usize;
        for n in cells_start..self.undo.cells.len() {
            let (j, info, four) = self.undo.cells[n];
            let j = j as usize;
            self.derived.info[j] = info;
            self.set_four_bits(j, u64::from(four));
        }
        self.undo.cells.truncate(cells_start);
        self.derived.threat_count = frame.threat_count;
        self.derived.eval_sum = frame.eval_sum;
    }

    /// Sets the four bits of cell `i` from `bits` (as [`four_bits`] returns them).
    #[inline]
    fn set_four_bits(&mut self, i: usize, bits: u64) {
        self.derived.four[0].assign(i, bits & 1 != 0);
        self.derived.four[1].assign(i, bits & 2 != 0);
    }

    fn count(&mut self, c: Stone, info: CellInfo) {
        self.derived.threat_count[c.index()][info.threat as usize] += 1;
        let sums = &mut self.derived.eval_sum[c.index()];
        sums[0] += i32::from(info.eval[0]);
        sums[1] += i32::from(info.eval[1]);
    }

    fn uncount(&mut self, c: Stone, info: CellInfo) {
        self.derived.threat_count[c.index()][info.threat as usize] -= 1;
        let sums = &mut self.derived.eval_sum[c.index()];
        sums[0] -= i32::from(info.eval[0]);
        sums[1] -= i32::from(info.eval[1]);
    }

    /// Rebuilds every derived field from the cells alone (no incremental steps).
    fn recompute(&mut self) {
        self.derived = Derived::compute(self);
    }

    /// Renders the board as rows of `.` (empty), `X` (black), `O` (white), `#` (wall), row 0
    /// first; the format [`Board::from_ascii`] reads.
    pub fn to_ascii(&self) -> String {
        let mut s = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                s.push(match self.cell(Pos::from_xy(x, y)) {
                    Cell::Empty => '.',
                    Cell::Stone(Stone::Black) => 'X',
                    Cell::Stone(Stone::White) => 'O',
                    Cell::Wall => '#',
                });
            }
            s.push('\n');
        }
        s
    }

    /// Builds a board from rows of `.`/`X`/`O`/`#` (whitespace between cells allowed; blank
    /// lines skipped). Side to move: black if the stone counts are equal, else white. Returns
    /// `None` for ragged rows, unknown characters or unsupported sizes.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use wuzi::{board::Board, rules::{PatternTable, Rule}};
    /// let table = Arc::new(PatternTable::new(Rule::Freestyle));
    /// let board = Board::from_ascii(
    ///     "
    ///     . . . . .
    ///     . X X X .
    ///     . O O . .
    ///     . . . . .
    ///     . . . . .
    ///     ",
    ///     table,
    /// )
    /// .unwrap();
    /// assert_eq!(board.stone_count(), 5);
    /// ```
    pub fn from_ascii(text: &str, table: Arc<PatternTable>) -> Option<Board> {
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect();
        let height = rows.len();
        let width = rows.first()?.len();
        if rows.iter().any(|r| r.len() != width) {
            return None;
        }
        let mut board = Board::new(width, height, table)?;
        let mut walls = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, &ch) in row.iter().enumerate() {
                let pos = Pos::from_xy(x, y);
                match ch {
                    '.' | '+' => {}
                    'X' | 'x' => board.put(pos, Stone::Black),
                    'O' | 'o' => board.put(pos, Stone::White),
                    '#' => walls.push(pos),
                    _ => return None,
                }
            }
        }
        for pos in walls {
            board.put_wall(pos);
        }
        let blacks = board
            .squares()
            .filter(|&p| board.cell(p) == Cell::Stone(Stone::Black))
            .count();
        let side = if 2 * blacks == board.stone_count() {
            Stone::Black
        } else {
            Stone::White
        };
        board.set_side_to_move(side);
        Some(board)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Board {}x{} {} {:?} to move",
            self.width,
            self.height,
            self.rule().name(),
            self.side
        )?;
        f.write_str(&self.to_ascii())
    }
}

/// Everything the board derives from its cells. [`Board`] updates it incrementally;
/// [`Derived::compute`] builds it from scratch (at creation, and in the invariant test).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Derived {
    /// Line keys per cell and direction.
    keys: Vec<[u32; 4]>,
    /// Packed patterns (black low nibble, white high nibble) per cell and direction.
    pats: Vec<[u8; 4]>,
    /// Combined info per cell and colour; only counted for empty cells.
    info: Vec<[CellInfo; 2]>,
    /// Stones within the 5×5 square around each cell (candidate area).
    near: Vec<u8>,
    /// Per colour, the empty cells where that colour would make a four or a five in some
    /// direction.
    four: [CellSet; 2],
    /// Empty playing squares with `near > 0`.
    candidates: CellSet,
    /// Empty cells per colour and [`Threat`] class.
    threat_count: [[u16; Threat::COUNT]; 2],
    /// Sums of [`CellInfo::eval`] over empty cells, per colour.
    eval_sum: [[i32; 2]; 2],
    /// Zobrist key (stones, side to move, rule).
    hash: u64,
    /// Stones on the board.
    stones: usize,
}

impl Derived {
    fn compute(board: &Board) -> Derived {
        let mut keys = vec![[0u32; 4]; NUM_CELLS];
        let mut pats = vec![[0u8; 4]; NUM_CELLS];
        let mut info = vec![[CellInfo::default(); 2]; NUM_CELLS];
        let mut near = vec![0u8; NUM_CELLS];
        let mut four = [CellSet::default(); 2];
        let mut threat_count = [[0u16; Threat::COUNT]; 2];
        let mut eval_sum = [[0i32; 2]; 2];
        let mut hash = rule_key(board.rule());
        if board.side == Stone::White {
            hash ^= ZOBRIST_SIDE;
        }
        let mut stones = 0;
        let lo = PAD as isize;
        for i in 0..NUM_CELLS {
            let (x, y) = ((i % STRIDE) as isize, (i / STRIDE) as isize);
            // Only cells whose whole window lies inside the array get keys; that covers every
            // playing square and every cell a move can touch.
            if x < lo || y < lo || x >= (STRIDE - PAD) as isize || y >= (STRIDE - PAD) as isize {
                continue;
            }
            for (d, &step) in DIRECTIONS.iter().enumerate() {
                let mut key = 0u32;
                for k in 1..=HALF_WINDOW as isize {
                    let before = board.cells[(i as isize - step * k) as usize] as u32;
                    let after = board.cells[(i as isize + step * k) as usize] as u32;
                    key |= before << (2 * (HALF_WINDOW as isize - k) as u32);
                    key |= after << (2 * (HALF_WINDOW as isize - 1 + k) as u32);
                }
                keys[i][d] = key;
                pats[i][d] = board.table.lookup(key);
            }
        }
        for pos in board.squares() {
            let i = pos.index();
            match board.cells[i] {
                CODE_EMPTY => {
                    let bits = four_bits(pats[i]);
                    four[0].assign(i, bits & 1 != 0);
                    four[1].assign(i, bits & 2 != 0);
                    for c in Stone::BOTH {
                        let p = patterns_of(pats[i], c);
                        let ci = board.table.combine(c, p);
                        info[i][c.index()] = ci;
                        threat_count[c.index()][ci.threat as usize] += 1;
                        eval_sum[c.index()][0] += i32::from(ci.eval[0]);
                        eval_sum[c.index()][1] += i32::from(ci.eval[1]);
                    }
                }
                code @ (1 | 2) => {
                    stones += 1;
                    hash ^= ZOBRIST[code as usize - 1][i];
                    for dy in -2isize..=2 {
                        for dx in -2isize..=2 {
                            near[(i as isize + dy * STRIDE as isize + dx) as usize] += 1;
                        }
                    }
                }
                _ => {}
            }
        }
        // Occupied cells keep the info they had when they were last empty; only empty cells
        // are compared.
        let mut candidates = CellSet::default();
        for pos in board.squares() {
            let i = pos.index();
            if board.cells[i] != CODE_EMPTY {
                info[i] = board.derived.info[i];
            } else if near[i] > 0 {
                candidates.assign(i, true);
            }
        }
        Derived {
            keys,
            pats,
            info,
            near,
            four,
            candidates,
            threat_count,
            eval_sum,
            hash,
            stones,
        }
    }
}

/// What [`Board::put`] overwrote, per stone, for the newest stones of the history (a suffix of
/// it: a [`Board::remove`] of an older stone or a [`Board::put_wall`] clears the log).
#[derive(Clone, Debug, Default)]
struct UndoLog {
    /// One frame per logged stone, oldest first.
    frames: Vec<UndoFrame>,
    /// The old packed patterns of the [`TOUCHED`] (cell, direction) pairs of each logged
    /// stone, in the order `update_lines` visits them.
    pats: Vec<u8>,
    /// The old info and four bits (as [`four_bits`] gives them) of each empty cell whose
    /// patterns a logged stone changed.
    cells: Vec<(u16, [CellInfo; 2], u8)>,
}

/// The undo record of one stone, besides its [`TOUCHED`] entries in [`UndoLog::pats`].
#[derive(Clone, Debug)]
struct UndoFrame {
    /// Where this stone's entries in [`UndoLog::cells`] start.
    cells_start: u32,
    /// [`Derived::threat_count`] before the stone.
    threat_count: [[u16; Threat::COUNT]; 2],
    /// [`Derived::eval_sum`] before the stone.
    eval_sum: [[i32; 2]; 2],
}

impl UndoLog {
    fn clear(&mut self) {
        self.frames.clear();
        self.pats.clear();
        self.cells.clear();
    }
}

#[cfg(test)]
mod tests {
    use rand::{rngs::StdRng, Rng, SeedableRng};

    use super::*;

    fn table(rule: Rule) -> Arc<PatternTable> {
        Arc::new(PatternTable::new(rule))
    }

    fn assert_consistent(board: &Board, context: &str) {
        let full = Derived::compute(board);
        let inc = &board.derived;
        // Keys of cells in the outer wall band are never read; compare the interior.
        for i in 0..NUM_CELLS {
            let (x, y) = (i % STRIDE, i / STRIDE);
            if (PAD..STRIDE - PAD).contains(&x) && (PAD..STRIDE - PAD).contains(&y) {
                assert!(
                    full.keys[i] == inc.keys[i],
                    "line keys differ at {i} {context}\n{board:?}"
                );
                assert!(
                    full.pats[i] == inc.pats[i],
                    "patterns differ at {i} {context}\n{board:?}"
                );
            }
        }
        assert!(
            full.info == inc.info,
            "cell info differs {context}\n{board:?}"
        );
        assert!(full.near == inc.near, "near counts differ {context}");
        assert!(
            full.four == inc.four,
            "four bitsets differ {context}\n{board:?}"
        );
        assert!(
            full.candidates == inc.candidates,
            "candidate sets differ {context}\n{board:?}"
        );
        let near: Vec<Pos> = board
            .squares()
            .filter(|&p| board.is_empty(p) && board.near(p) > 0)
            .collect();
        assert_eq!(
            board.candidates().iter().collect::<Vec<_>>(),
            near,
            "{context}"
        );
        assert_eq!(board.candidates().len(), near.len(), "{context}");
        for c in Stone::BOTH {
            let fours: Vec<Pos> = board
                .squares()
                .filter(|&p| {
                    board.is_empty(p) && (0..4).any(|d| board.pattern(p, d, c).is_four_or_five())
                })
                .collect();
            assert_eq!(board.four_cells(c).collect::<Vec<_>>(), fours, "{context}");
            assert_eq!(board.four_cell_count(c), fours.len(), "{context}");
            for threat in [
                Threat::Five,
                Threat::FlexFour,
                Threat::FourThree,
                Threat::Four,
            ] {
                let scan: Vec<Pos> = board
                    .squares()
                    .filter(|&p| board.is_empty(p) && board.threat(p, c) == threat)
                    .collect();
                assert_eq!(board.cells_with(c, threat), scan, "{threat:?} {context}");
            }
        }
        assert_eq!(
            full.threat_count, inc.threat_count,
            "threat counts {context}"
        );
        assert_eq!(full.eval_sum, inc.eval_sum, "value sums {context}");
        assert_eq!(full.hash, inc.hash, "hash {context}");
        assert_eq!(full.stones, inc.stones, "stone count {context}");
    }

    #[test]
    fn incremental_state_equals_full_recompute_under_every_rule() {
        let mut rng = StdRng::seed_from_u64(20261130);
        for rule in Rule::ALL {
            let t = table(rule);
            for &(w, h) in &[(15, 15), (20, 20), (7, 5), (MAX_SIZE, MAX_SIZE)] {
                let mut board = Board::new(w, h, t.clone()).expect("supported size");
                let start_hash = board.hash();
                for step in 0..300 {
                    let undo = board.stone_count() > 0 && rng.gen_range(0..10) < 3;
                    if undo || board.is_full() {
                        board.undo();
                    } else {
                        let empties: Vec<Pos> =
                            board.squares().filter(|&p| board.is_empty(p)).collect();
                        let pos = empties[rng.gen_range(0..empties.len())];
                        board.make(pos);
                    }
                    assert_consistent(&board, &format!("{} {w}x{h} step {step}", rule.name()));
                }
                while board.stone_count() > 0 {
                    board.undo();
                }
                assert_eq!(board.hash(), start_hash);
                assert_consistent(&board, "after undoing everything");
            }
        }
    }

    #[test]
    fn removing_older_stones_and_walls_keep_the_state_consistent() {
        let mut rng = StdRng::seed_from_u64(20260317);
        for rule in Rule::ALL {
            let mut board = Board::new(15, 15, table(rule)).expect("size");
            for step in 0..400 {
                let context = format!("{} step {step}", rule.name());
                let roll = rng.gen_range(0..20);
                if roll < 3 && board.stone_count() > 0 {
                    // TAKEBACK of any stone, not only the last one.
                    let stones = board.history().to_vec();
                    let pos = stones[rng.gen_range(0..stones.len())];
                    board.remove(pos);
                } else if roll < 7 && board.stone_count() > 0 {
                    board.undo();
                } else if roll == 7 && board.stone_count() > 0 && board.stone_count() < 60 {
                    let empties: Vec<Pos> =
                        board.squares().filter(|&p| board.is_empty(p)).collect();
                    board.put_wall(empties[rng.gen_range(0..empties.len())]);
                } else if !board.is_full() {
                    let empties: Vec<Pos> =
                        board.squares().filter(|&p| board.is_empty(p)).collect();
                    board.make(empties[rng.gen_range(0..empties.len())]);
                }
                assert_consistent(&board, &context);
            }
            while let Some(pos) = board.last_move() {
                board.remove(pos);
            }
            assert_consistent(&board, &format!("{} emptied", rule.name()));
        }
    }

    #[test]
    fn make_undo_round_trip_restores_everything() {
        let t = table(Rule::Renju);
        let mut board = Board::new(15, 15, t).expect("size");
        for &(x, y) in &[(7, 7), (8, 8), (7, 8), (6, 6), (7, 9)] {
            board.make(Pos::from_xy(x, y));
        }
        let before = board.clone();
        board.make(Pos::from_xy(7, 10));
        board.undo();
        assert_eq!(board.derived.keys, before.derived.keys);
        assert_eq!(board.derived.info, before.derived.info);
        assert_eq!(board.hash(), before.hash());
        assert_eq!(board.side_to_move(), Stone::White);
    }

    #[test]
    fn positions_and_bounds() {
        let board = Board::new(20, 15, table(Rule::Freestyle)).expect("size");
        assert_eq!(board.pos(19, 14).map(|p| (p.x(), p.y())), Some((19, 14)));
        assert_eq!(board.pos(20, 0), None);
        assert_eq!(board.pos(0, 15), None);
        assert_eq!(board.pos(-1, 3), None);
        assert_eq!(board.squares().count(), 300);
        assert!(Board::new(4, 15, table(Rule::Freestyle)).is_none());
        assert!(Board::new(33, 15, table(Rule::Freestyle)).is_none());
        assert_eq!(Pos::from_xy(3, 9).to_string(), "3,9");
    }

    #[test]
    fn ascii_round_trip_and_side_to_move() {
        let text = "X....\n.O...\n..X..\n.....\n....#\n";
        let board = Board::from_ascii(text, table(Rule::Freestyle)).expect("valid");
        assert_eq!(board.to_ascii(), text);
        assert_eq!(board.side_to_move(), Stone::White);
        assert!(Board::from_ascii("XX\nX", table(Rule::Freestyle)).is_none());
    }

    #[test]
    fn threat_counts_see_fours_and_threes() {
        let board = Board::from_ascii(
            "
            . . . . . . . . .
            . . . . . . . . .
            . . X X X X . . .
            . . . . . . . . .
            . . . O O O . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            ",
            table(Rule::Freestyle),
        )
        .expect("valid");
        assert_eq!(board.threat_count(Stone::Black, Threat::Five), 2);
        assert_eq!(
            board.cells_with(Stone::Black, Threat::Five),
            vec![Pos::from_xy(1, 2), Pos::from_xy(6, 2)]
        );
        // White's open three: 2,4 and 6,4 make straight fours.
        assert!(board.threat(Pos::from_xy(2, 4), Stone::White) >= Threat::FlexFour);
        assert!(board.threat(Pos::from_xy(6, 4), Stone::White) >= Threat::FlexFour);
    }
}

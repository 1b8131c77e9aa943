//! Bitboard geometry and the bit tricks every other Connect Four module builds on.
//!
//! Layout (Pons' and Tromp's): column `c` owns the `height + 1` bits from `c * (height + 1)`,
//! bottom cell first; the extra top bit of each column is a sentinel that is never set, so a
//! shift by a whole column never carries a stone into the next column's cells, and
//! `width * (height + 1) <= 64` bits fit one `u64`. For 7×6:
//!
//! ```text
//!   .  .  .  .  .  .  .     6 13 20 27 34 41 48   (sentinel row)
//!   5 12 19 26 33 40 47     5 12 19 26 33 40 47
//!   4 11 18 25 32 39 46     …
//!   3 10 17 24 31 38 45
//!   2  9 16 23 30 37 44
//!   1  8 15 22 29 36 43
//!   0  7 14 21 28 35 42
//! ```
//!
//! A position is two words: `mask` (occupied cells) and `current` (the side to move's stones).
//! `current + mask` is a unique key: per column it sets the bit just above the top disc and
//! keeps the side to move's discs below it.
//!
//! [`Geometry`] is a trait so that the solver is compiled once per common board size with
//! every shift and mask a constant ([`Fixed`]) and once more for any other size ([`Dynamic`]).

/// The largest width: moves are written as one digit per disc.
pub const MAX_WIDTH: usize = 9;

/// A board size: its width, height and the masks derived from them.
pub trait Geometry: Copy + Send + Sync {
    /// Columns.
    fn width(self) -> u32;
    /// Rows.
    fn height(self) -> u32;
    /// The bottom cell of every column.
    fn bottom(self) -> u64;
    /// Every cell of the board (no sentinel bits).
    fn board(self) -> u64;

    /// Bits per column: the cells and the sentinel.
    #[inline(always)]
    fn stride(self) -> u32 {
        self.height() + 1
    }

    /// Cells on the board.
    #[inline(always)]
    fn cells(self) -> u32 {
        self.width() * self.height()
    }

    /// The cells of column `col`.
    #[inline(always)]
    fn column(self, col: u32) -> u64 {
        ((1u64 << self.height()) - 1) << (col * self.stride())
    }

    /// The top cell of column `col`.
    #[inline(always)]
    fn top_cell(self, col: u32) -> u64 {
        1u64 << (self.height() - 1 + col * self.stride())
    }

    /// The bottom cell of column `col`.
    #[inline(always)]
    fn bottom_cell(self, col: u32) -> u64 {
        1u64 << (col * self.stride())
    }
}

/// A size known at compile time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fixed<const W: u32, const H: u32>;

impl<const W: u32, const H: u32> Fixed<W, H> {
    const BOTTOM: u64 = bottom_mask(W, H);
    const BOARD: u64 = Self::BOTTOM * ((1u64 << H) - 1);
}

impl<const W: u32, const H: u32> Geometry for Fixed<W, H> {
    #[inline(always)]
    fn width(self) -> u32 {
        W
    }
    #[inline(always)]
    fn height(self) -> u32 {
        H
    }
    #[inline(always)]
    fn bottom(self) -> u64 {
        Self::BOTTOM
    }
    #[inline(always)]
    fn board(self) -> u64 {
        Self::BOARD
    }
}

/// A size chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dynamic {
    width: u32,
    height: u32,
    bottom: u64,
    board: u64,
}

impl Dynamic {
    /// The geometry of a `width`×`height` board; the caller has checked [`size_fits`].
    pub fn new(width: u32, height: u32) -> Dynamic {
        debug_assert!(size_fits(width as usize, height as usize));
        let bottom = bottom_mask(width, height);
        Dynamic {
            width,
            height,
            bottom,
            board: bottom * ((1u64 << height) - 1),
        }
    }
}

impl Geometry for Dynamic {
    #[inline(always)]
    fn width(self) -> u32 {
        self.width
    }
    #[inline(always)]
    fn height(self) -> u32 {
        self.height
    }
    #[inline(always)]
    fn bottom(self) -> u64 {
        self.bottom
    }
    #[inline(always)]
    fn board(self) -> u64 {
        self.board
    }
}

/// True if a `width`×`height` board is supported: 1..=[`MAX_WIDTH`] columns, at least one row,
/// and `width * (height + 1) <= 64`.
pub fn size_fits(width: usize, height: usize) -> bool {
    (1..=MAX_WIDTH).contains(&width) && height >= 1 && width * (height + 1) <= 64
}

const fn bottom_mask(width: u32, height: u32) -> u64 {
    let mut mask = 0u64;
    let mut col = 0;
    while col < width {
        mask |= 1u64 << (col * (height + 1));
        col += 1;
    }
    mask
}

/// Runs `$body` with `$g` bound to the geometry of a `$w`×`$h` board: a [`Fixed`] one for the
/// sizes people play, a [`Dynamic`] one for the rest.
macro_rules! with_geometry {
    ($w:expr, $h:expr, |$g:ident| $body:expr) => {
        match ($w, $h) {
            (7, 6) => {
                let $g = $crate::connect4::bits::Fixed::<7, 6>;
                $body
            }
            (7, 7) => {
                let $g = $crate::connect4::bits::Fixed::<7, 7>;
                $body
            }
            (6, 7) => {
                let $g = $crate::connect4::bits::Fixed::<6, 7>;
                $body
            }
            (6, 5) => {
                let $g = $crate::connect4::bits::Fixed::<6, 5>;
                $body
            }
            (w, h) => {
                let $g = $crate::connect4::bits::Dynamic::new(w as u32, h as u32);
                $body
            }
        }
    };
}
pub(crate) use with_geometry;

#[inline(always)]
fn shl(x: u64, n: u32) -> u64 {
    x.checked_shl(n).unwrap_or(0)
}

#[inline(always)]
fn shr(x: u64, n: u32) -> u64 {
    x.checked_shr(n).unwrap_or(0)
}

/// The empty cells that would complete a four for the owner of `stones` (playable now or not).
#[inline(always)]
pub fn winning_cells<G: Geometry>(g: G, stones: u64, mask: u64) -> u64 {
    let p = stones;
    // Vertical: three below.
    let mut r = (p << 1) & (p << 2) & (p << 3);
    for d in [g.stride(), g.stride() - 1, g.stride() + 1] {
        let a = shl(p, d) & shl(p, 2 * d);
        r |= a & shl(p, 3 * d);
        r |= a & shr(p, d);
        let b = shr(p, d) & shr(p, 2 * d);
        r |= b & shl(p, d);
        r |= b & shr(p, 3 * d);
    }
    r & (g.board() ^ mask)
}

/// True if `stones` hold four in a row.
#[inline(always)]
pub fn has_four<G: Geometry>(g: G, stones: u64) -> bool {
    for d in [1, g.stride(), g.stride() - 1, g.stride() + 1] {
        let m = stones & shr(stones, d);
        if m & shr(m, 2 * d) != 0 {
            return true;
        }
    }
    false
}

/// The cells playable now: the lowest empty cell of every column that has one.
#[inline(always)]
pub fn playable<G: Geometry>(g: G, mask: u64) -> u64 {
    mask.wrapping_add(g.bottom()) & g.board()
}

/// The key of `current`/`mask` with the columns in mirror order.
#[inline(always)]
pub fn mirror<G: Geometry>(g: G, key: u64) -> u64 {
    let column = (1u64 << g.stride()) - 1;
    let mut out = 0;
    for col in 0..g.width() {
        let bits = (key >> (col * g.stride())) & column;
        out |= bits << ((g.width() - 1 - col) * g.stride());
    }
    out
}

/// The column of a single-bit move.
#[inline(always)]
pub fn column_of<G: Geometry>(g: G, bit: u64) -> u32 {
    bit.trailing_zeros() / g.stride()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_of_seven_by_six() {
        let g = Fixed::<7, 6>;
        assert_eq!(g.bottom().count_ones(), 7);
        assert_eq!(g.board().count_ones(), 42);
        assert_eq!(g.column(3), 0b11_1111 << 21);
        let d = Dynamic::new(7, 6);
        assert_eq!(d.board(), g.board());
        assert_eq!(d.bottom(), g.bottom());
    }

    #[test]
    fn sizes() {
        assert!(size_fits(7, 6));
        assert!(size_fits(8, 7));
        assert!(size_fits(1, 63));
        assert!(!size_fits(8, 8));
        assert!(!size_fits(10, 4));
        assert!(!size_fits(0, 6));
        assert!(!size_fits(7, 0));
    }

    #[test]
    fn tall_narrow_board_shifts_do_not_overflow() {
        let g = Dynamic::new(1, 63);
        let three = 0b111;
        assert_eq!(winning_cells(g, three, three), 0b1000);
        assert!(!has_four(g, three));
        assert!(has_four(g, 0b1111));
    }

    #[test]
    fn mirror_swaps_columns() {
        let g = Fixed::<7, 6>;
        assert_eq!(mirror(g, g.bottom_cell(0)), g.bottom_cell(6));
        assert_eq!(mirror(g, g.column(2) | 1), g.column(4) | g.bottom_cell(6));
        assert_eq!(mirror(g, mirror(g, 0x1234_5678_9abc)), 0x1234_5678_9abc);
    }
}

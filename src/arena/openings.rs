//! Opening files and the order in which openings are played.
//!
//! Two formats (protocol.md §3.3, §5.1; `shared/data/openings/README.md`):
//! - **offset** (Gomocup, Piskvork, c-gomoku-cli `type=offset`): `dx,dy, dx,dy, …` relative to
//!   the centre `size/2`; whitespace is insignificant.
//! - **pos** (c-gomoku-cli `type=pos`): concatenated moves like `h8i9j7`, letter = x from `a`,
//!   number = y + 1. Commas and spaces between moves are allowed too (mintaka's csv form).
//!
//! In both the first stone is black's and colours alternate. Blank lines and lines starting with
//! `#` or `//` are skipped. An opening whose stones fall off the board or repeat a square is
//! skipped with a warning, so one file serves 15×15 and 20×20.

use std::{collections::HashSet, fmt};

/// One opening: stones in move order (black first), absolute board coordinates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Opening {
    /// `(x, y)` of each stone, oldest first.
    pub stones: Vec<(usize, usize)>,
    /// 1-based line of the file it came from (0 when made up, e.g. the empty opening).
    pub line: usize,
    /// Which of the 8 board symmetries was applied (0 = none).
    pub symmetry: u8,
}

impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.stones.is_empty() {
            return write!(f, "empty board");
        }
        for (i, (x, y)) in self.stones.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{x},{y}")?;
        }
        Ok(())
    }
}

/// The format of an opening file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Decide per line: digits and commas only → offset, letters → pos.
    Auto,
    /// Gomocup offsets from the centre.
    Offset,
    /// `a1`-style moves.
    Pos,
}

impl Format {
    /// Parses `auto`, `offset` or `pos`.
    pub fn parse(text: &str) -> Option<Format> {
        match text.to_ascii_lowercase().as_str() {
            "auto" => Some(Format::Auto),
            "offset" => Some(Format::Offset),
            "pos" => Some(Format::Pos),
            _ => None,
        }
    }
}

/// Parses an offset line into signed absolute coordinates.
fn parse_offset(line: &str, size: usize) -> Result<Vec<(i64, i64)>, String> {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let numbers: Vec<i64> = compact
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<i64>().map_err(|_| format!("bad number `{s}`")))
        .collect::<Result<_, _>>()?;
    if numbers.len() % 2 != 0 {
        return Err("odd number of coordinates".to_string());
    }
    let centre = (size / 2) as i64;
    Ok(numbers
        .chunks(2)
        .map(|c| (centre + c[0], centre + c[1]))
        .collect())
}

/// Parses a pos line (`h8i9`, `f7,f6,h6`) into signed absolute coordinates.
fn parse_pos(line: &str) -> Result<Vec<(i64, i64)>, String> {
    let chars: Vec<char> = line
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',' && *c != ';')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let mut stones = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let letter = chars[i];
        if !letter.is_ascii_lowercase() {
            return Err(format!("expected a column letter, got `{letter}`"));
        }
        i += 1;
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            return Err(format!("column `{letter}` without a row number"));
        }
        let row: String = chars[start..i].iter().collect();
        let row: i64 = row.parse().map_err(|_| format!("bad row `{row}`"))?;
        stones.push((letter as i64 - 'a' as i64, row - 1));
    }
    Ok(stones)
}

/// Parses one line of an opening file; `Ok(None)` for blank and comment lines.
pub fn parse_line(
    line: &str,
    format: Format,
    size: usize,
) -> Result<Option<Vec<(i64, i64)>>, String> {
    let text = line.trim().trim_start_matches('\u{feff}');
    if text.is_empty() || text.starts_with('#') || text.starts_with("//") {
        return Ok(None);
    }
    let format = match format {
        Format::Auto if text.chars().any(|c| c.is_ascii_alphabetic()) => Format::Pos,
        Format::Auto => Format::Offset,
        f => f,
    };
    match format {
        Format::Pos => parse_pos(text).map(Some),
        _ => parse_offset(text, size).map(Some),
    }
}

/// Checks that every stone is on a `size`×`size` board and no square repeats.
pub fn validate(stones: &[(i64, i64)], size: usize) -> Result<Vec<(usize, usize)>, String> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(stones.len());
    for &(x, y) in stones {
        if x < 0 || y < 0 || x >= size as i64 || y >= size as i64 {
            return Err(format!("stone {x},{y} is off the {size}×{size} board"));
        }
        let p = (x as usize, y as usize);
        if !seen.insert(p) {
            return Err(format!("square {x},{y} is used twice"));
        }
        out.push(p);
    }
    Ok(out)
}

/// Reads the openings of `text` for a `size`×`size` board. Returns the usable openings and a
/// warning for each skipped line.
pub fn parse_file(text: &str, format: Format, size: usize) -> (Vec<Opening>, Vec<String>) {
    let mut openings = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        match parse_line(line, format, size) {
            Ok(None) => {}
            Ok(Some(stones)) => match validate(&stones, size) {
                Ok(stones) => openings.push(Opening {
                    stones,
                    line: number,
                    symmetry: 0,
                }),
                Err(e) => warnings.push(format!("line {number}: {e}; skipped")),
            },
            Err(e) => warnings.push(format!("line {number}: {e}; skipped")),
        }
    }
    (openings, warnings)
}

/// Applies symmetry `s` (0..8) of the square board to `(x, y)`.
pub fn transform(s: u8, (x, y): (usize, usize), size: usize) -> (usize, usize) {
    let m = size - 1;
    match s & 7 {
        0 => (x, y),
        1 => (m - x, y),
        2 => (x, m - y),
        3 => (m - x, m - y),
        4 => (y, x),
        5 => (m - y, x),
        6 => (y, m - x),
        _ => (m - y, m - x),
    }
}

/// Replaces each opening by its distinct images under the 8 symmetries of the square board
/// (an opening that is its own mirror image appears fewer than 8 times).
pub fn expand_symmetries(openings: &[Opening], size: usize) -> Vec<Opening> {
    let mut out = Vec::new();
    for opening in openings {
        let mut seen: Vec<Vec<(usize, usize)>> = Vec::new();
        for s in 0..8u8 {
            let stones: Vec<(usize, usize)> = opening
                .stones
                .iter()
                .map(|&p| transform(s, p, size))
                .collect();
            if seen.contains(&stones) {
                continue;
            }
            seen.push(stones.clone());
            out.push(Opening {
                stones,
                line: opening.line,
                symmetry: s,
            });
        }
    }
    out
}

/// A small deterministic generator (SplitMix64), so a seed gives the same order on every
/// platform and toolchain (rand's `StdRng` promises no such thing).
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_lines() {
        let s = parse_line("0,0, 1,0, 1,3", Format::Auto, 15)
            .unwrap()
            .unwrap();
        assert_eq!(s, vec![(7, 7), (8, 7), (8, 10)]);
        let s = parse_line(" -7,-8,-6,-9 ", Format::Offset, 20)
            .unwrap()
            .unwrap();
        assert_eq!(s, vec![(3, 2), (4, 1)]);
        assert!(parse_line("1,2,3", Format::Offset, 15).is_err());
        assert!(parse_line("1,x", Format::Offset, 15).is_err());
        assert_eq!(parse_line("   ", Format::Auto, 15).unwrap(), None);
        assert_eq!(parse_line("# note", Format::Auto, 15).unwrap(), None);
    }

    #[test]
    fn pos_lines() {
        let s = parse_line("d3e5f6d7", Format::Auto, 20).unwrap().unwrap();
        assert_eq!(s, vec![(3, 2), (4, 4), (5, 5), (3, 6)]);
        let s = parse_line("k10j10i9", Format::Pos, 20).unwrap().unwrap();
        assert_eq!(s, vec![(10, 9), (9, 9), (8, 8)]);
        let s = parse_line("f7,f6,h6,h7,h4", Format::Auto, 15)
            .unwrap()
            .unwrap();
        assert_eq!(s[0], (5, 6));
        assert_eq!(s[4], (7, 3));
        assert!(parse_line("h", Format::Pos, 15).is_err());
        assert!(parse_line("8h", Format::Pos, 15).is_err());
    }

    #[test]
    fn files_skip_bad_lines() {
        let text = "0,0, 1,1\n\n-9,-9, 0,0\n0,0, 0,0\nh8i9\n";
        let (openings, warnings) = parse_file(text, Format::Auto, 15);
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].line, 1);
        assert_eq!(openings[1].stones, vec![(7, 7), (8, 8)]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        let (openings, warnings) = parse_file(text, Format::Auto, 20);
        assert_eq!(openings.len(), 3, "{warnings:?}");
    }

    #[test]
    fn shared_opening_files_parse() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/openings");
        for (name, size, min) in [
            ("Piskvork_openings.txt", 15, 40),
            ("GomocupJudge_openings_20.txt", 20, 6),
            ("c-gomoku-cli_offset_freestyle_20x20.txt", 20, 3),
            ("c-gomoku-cli_pos_freestyle_20x20.txt", 20, 3),
            ("mintaka_arena_openings.csv", 15, 12),
        ] {
            let path = format!("{dir}/{name}");
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(_) => continue, // the shared folder is not part of every checkout
            };
            let (openings, warnings) = parse_file(&text, Format::Auto, size);
            assert!(openings.len() >= min, "{name}: {warnings:?}");
        }
    }

    #[test]
    fn symmetries() {
        let o = Opening {
            stones: vec![(7, 7), (8, 7)],
            line: 1,
            symmetry: 0,
        };
        let all = expand_symmetries(std::slice::from_ref(&o), 15);
        // A centre stone plus a horizontal neighbour has 4 distinct images.
        assert_eq!(all.len(), 4);
        assert!(all.iter().all(|o| o.stones[0] == (7, 7)));
        let asym = Opening {
            stones: vec![(0, 1), (3, 5)],
            line: 2,
            symmetry: 0,
        };
        assert_eq!(expand_symmetries(&[asym], 15).len(), 8);
        for s in 0..8 {
            assert_eq!(transform(s, (7, 7), 15), (7, 7));
            let (x, y) = transform(s, (0, 3), 20);
            assert!(x < 20 && y < 20);
        }
    }

    #[test]
    fn seeded_shuffle_is_reproducible() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        SplitMix::new(42).shuffle(&mut a);
        SplitMix::new(42).shuffle(&mut b);
        assert_eq!(a, b);
        let mut c: Vec<u32> = (0..20).collect();
        SplitMix::new(43).shuffle(&mut c);
        assert_ne!(a, c);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
    }
}

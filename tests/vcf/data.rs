//! The position file `tests/data/vcf.txt`: one position per line,
//!
//! ```text
//! <rule> <width>x<height> win <N> <moves>     the side to move has a VCF of N attacker moves
//! <rule> <width>x<height> none <moves>        the side to move has no VCF
//! ```
//!
//! `rule` is `freestyle` or `standard`; `moves` are `x,y` pairs (0-based column, row) played
//! alternately from black, so the side to move is black after an even number of moves. N
//! counts every attacker move of a shortest VCF, the final five included (an open four on the
//! board's next move is N = 2). Lines starting with `#` and blank lines are comments.

use super::oracle::{OBoard, ORule};

/// What the file says about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A VCF with this many attacker moves.
    Win(usize),
    /// No VCF.
    NoWin,
}

/// One line of the file.
#[derive(Clone, Debug)]
pub struct Entry {
    pub rule: ORule,
    pub width: usize,
    pub height: usize,
    pub expect: Expect,
    pub moves: Vec<(usize, usize)>,
    /// 1-based line number in the file (0 when not read from a file).
    pub line: usize,
}

impl Entry {
    /// The position on the oracle's board.
    pub fn oracle_board(&self) -> OBoard {
        let mut b = OBoard::new(self.width, self.height, self.rule);
        for (k, &(x, y)) in self.moves.iter().enumerate() {
            let i = b.idx(x as i32, y as i32);
            assert_eq!(
                b.cells[i], 0,
                "line {}: move {k} on an occupied cell",
                self.line
            );
            b.set(i, if k % 2 == 0 { 1 } else { 2 });
        }
        b
    }

    /// The line as written in the file.
    pub fn format(&self) -> String {
        let expect = match self.expect {
            Expect::Win(n) => format!("win {n}"),
            Expect::NoWin => "none".to_string(),
        };
        let moves: Vec<String> = self.moves.iter().map(|(x, y)| format!("{x},{y}")).collect();
        format!(
            "{} {}x{} {} {}",
            self.rule.name(),
            self.width,
            self.height,
            expect,
            moves.join(" ")
        )
    }
}

/// Parses the whole file; panics with the line number on a malformed line.
pub fn parse(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |what: &str| -> ! { panic!("tests/data/vcf.txt:{}: {what}: {raw}", k + 1) };
        let mut words = line.split_whitespace();
        let rule = words
            .next()
            .and_then(ORule::from_name)
            .unwrap_or_else(|| bad("rule"));
        let size = words.next().unwrap_or_else(|| bad("size"));
        let (w, h) = size.split_once('x').unwrap_or_else(|| bad("size"));
        let width: usize = w.parse().unwrap_or_else(|_| bad("width"));
        let height: usize = h.parse().unwrap_or_else(|_| bad("height"));
        let expect = match words.next() {
            Some("win") => Expect::Win(
                words
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| bad("win length")),
            ),
            Some("none") => Expect::NoWin,
            _ => bad("expectation"),
        };
        let moves = words
            .map(|m| {
                let (x, y) = m.split_once(',').unwrap_or_else(|| bad("move"));
                let x: usize = x.parse().unwrap_or_else(|_| bad("move"));
                let y: usize = y.parse().unwrap_or_else(|_| bad("move"));
                if x >= width || y >= height {
                    bad("move off the board");
                }
                (x, y)
            })
            .collect();
        out.push(Entry {
            rule,
            width,
            height,
            expect,
            moves,
            line: k + 1,
        });
    }
    out
}

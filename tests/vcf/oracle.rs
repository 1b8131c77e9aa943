//! An independent VCF oracle: a plain `Vec` board, five detection by counting runs, and an
//! exhaustive search over attacker fours with a memo of failed positions. It shares nothing
//! with the engine's pattern tables; the test uses it to classify positions and to verify the
//! engine's winning lines.
//!
//! Rules: freestyle (five or more in a row wins) and standard (exactly five wins; six or more
//! does not). Renju is out of scope.

use std::collections::HashMap;

/// The rules the oracle knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ORule {
    /// Five or more in a row wins.
    Freestyle,
    /// Exactly five in a row wins (in any one direction).
    Standard,
}

impl ORule {
    pub fn name(self) -> &'static str {
        match self {
            ORule::Freestyle => "freestyle",
            ORule::Standard => "standard",
        }
    }

    pub fn from_name(name: &str) -> Option<ORule> {
        match name {
            "freestyle" => Some(ORule::Freestyle),
            "standard" => Some(ORule::Standard),
            _ => None,
        }
    }
}

/// Cell values: 0 empty, 1 black, 2 white.
pub const EMPTY: u8 = 0;
pub const BLACK: u8 = 1;
pub const WHITE: u8 = 2;

const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

/// A plain board, row-major, `(x, y)` = (column, row).
#[derive(Clone, Debug)]
pub struct OBoard {
    pub w: i32,
    pub h: i32,
    pub rule: ORule,
    pub cells: Vec<u8>,
    /// Every window of five cells in a line: the five cell indices and the cells just before
    /// and after it (`None` off the board). Used only to find candidates quickly; every
    /// candidate is confirmed by [`OBoard::makes_five`].
    windows: Vec<[usize; 5]>,
    /// For each cell, the windows that contain it.
    through: Vec<Vec<u32>>,
    keys: Vec<[u64; 2]>,
    hash: u64,
    stones: usize,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl OBoard {
    pub fn new(w: usize, h: usize, rule: ORule) -> OBoard {
        let (w, h) = (w as i32, h as i32);
        let mut windows = Vec::new();
        for y in 0..h {
            for x in 0..w {
                for (dx, dy) in DIRS {
                    let (ex, ey) = (x + 4 * dx, y + 4 * dy);
                    if ex < 0 || ey < 0 || ex >= w || ey >= h {
                        continue;
                    }
                    let mut win = [0usize; 5];
                    for (k, cell) in win.iter_mut().enumerate() {
                        let k = k as i32;
                        *cell = ((y + k * dy) * w + x + k * dx) as usize;
                    }
                    windows.push(win);
                }
            }
        }
        let mut through = vec![Vec::new(); (w * h) as usize];
        for (k, win) in windows.iter().enumerate() {
            for &c in win {
                through[c].push(k as u32);
            }
        }
        let mut seed = 0x05EE_D0F0_AC1E;
        let keys = (0..(w * h) as usize)
            .map(|_| [splitmix(&mut seed), splitmix(&mut seed)])
            .collect();
        OBoard {
            w,
            h,
            rule,
            cells: vec![EMPTY; (w * h) as usize],
            windows,
            through,
            keys,
            hash: 0,
            stones: 0,
        }
    }

    /// A board from rows of `.`/`X`/`O` (whitespace ignored, blank lines skipped).
    pub fn from_ascii(text: &str, rule: ORule) -> OBoard {
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect();
        let mut b = OBoard::new(rows[0].len(), rows.len(), rule);
        for (y, row) in rows.iter().enumerate() {
            assert_eq!(row.len(), rows[0].len(), "ragged ASCII board");
            for (x, &c) in row.iter().enumerate() {
                let s = match c {
                    'X' => BLACK,
                    'O' => WHITE,
                    '.' => EMPTY,
                    _ => panic!("bad ASCII cell {c:?}"),
                };
                if s != EMPTY {
                    b.set(b.idx(x as i32, y as i32), s);
                }
            }
        }
        b
    }

    pub fn idx(&self, x: i32, y: i32) -> usize {
        (y * self.w + x) as usize
    }

    pub fn xy(&self, i: usize) -> (usize, usize) {
        (i % self.w as usize, i / self.w as usize)
    }

    fn at(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.w || y >= self.h {
            3
        } else {
            self.cells[(y * self.w + x) as usize]
        }
    }

    /// Puts `s` on the empty cell `i` (or clears it with `EMPTY`).
    pub fn set(&mut self, i: usize, s: u8) {
        let old = self.cells[i];
        if old != EMPTY {
            self.hash ^= self.keys[i][old as usize - 1];
            self.stones -= 1;
        }
        if s != EMPTY {
            self.hash ^= self.keys[i][s as usize - 1];
            self.stones += 1;
        }
        self.cells[i] = s;
    }

    /// The side to move when black moved first and colours alternated.
    pub fn side_to_move(&self) -> u8 {
        let blacks = self.cells.iter().filter(|&&c| c == BLACK).count();
        if 2 * blacks == self.stones {
            BLACK
        } else {
            WHITE
        }
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Would `s` on the empty cell `i` make a winning line? Counted directly: the run of `s`
    /// through `i` in each direction, 5+ (freestyle) or exactly 5 (standard).
    pub fn makes_five(&self, i: usize, s: u8) -> bool {
        debug_assert_eq!(self.cells[i], EMPTY);
        let (x, y) = (i as i32 % self.w, i as i32 / self.w);
        DIRS.iter().any(|&(dx, dy)| {
            let mut len = 1;
            let mut k = 1;
            while self.at(x + k * dx, y + k * dy) == s {
                len += 1;
                k += 1;
            }
            k = 1;
            while self.at(x - k * dx, y - k * dy) == s {
                len += 1;
                k += 1;
            }
            match self.rule {
                ORule::Freestyle => len >= 5,
                ORule::Standard => len == 5,
            }
        })
    }

    /// Is there a winning line of `s` through the stone at `i`?
    pub fn five_at(&mut self, i: usize) -> bool {
        let s = self.cells[i];
        self.set(i, EMPTY);
        let five = self.makes_five(i, s);
        self.set(i, s);
        five
    }

    /// The "five squares" of `s`: empty cells where its stone would make a winning line,
    /// sorted. Candidates are the empty cells of windows holding four `s` stones, each
    /// confirmed by [`OBoard::makes_five`].
    pub fn five_squares(&self, s: u8) -> Vec<usize> {
        self.five_squares_in(s, self.windows.iter())
    }

    /// The five squares of `s` in windows through cell `c`: all of them when `s` had none
    /// before a stone of `s` was put on `c` (a new five square shares a window with `c`).
    pub fn five_squares_through(&self, c: usize, s: u8) -> Vec<usize> {
        self.five_squares_in(
            s,
            self.through[c].iter().map(|&k| &self.windows[k as usize]),
        )
    }

    fn five_squares_in<'a>(&self, s: u8, wins: impl Iterator<Item = &'a [usize; 5]>) -> Vec<usize> {
        let mut out = Vec::new();
        for win in wins {
            let mut own = 0;
            let mut empty = None;
            let mut blocked = false;
            for &c in win {
                match self.cells[c] {
                    EMPTY => empty = Some(c),
                    v if v == s => own += 1,
                    _ => blocked = true,
                }
            }
            if let (false, 4, Some(e)) = (blocked, own, empty) {
                if !out.contains(&e) && self.makes_five(e, s) {
                    out.push(e);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Empty cells where a stone of `s` makes at least one five square (a four), sorted.
    /// Candidates: empty cells of windows with three `s` stones and no opponent stone.
    pub fn four_moves(&mut self, s: u8) -> Vec<usize> {
        let mut cand = Vec::new();
        for win in &self.windows {
            let mut own = 0;
            let mut blocked = false;
            for &c in win {
                match self.cells[c] {
                    EMPTY => {}
                    v if v == s => own += 1,
                    _ => blocked = true,
                }
            }
            if !blocked && own == 3 {
                cand.extend(win.iter().copied().filter(|&c| self.cells[c] == EMPTY));
            }
        }
        cand.sort_unstable();
        cand.dedup();
        let before = self.five_squares(s);
        cand.retain(|&c| {
            self.set(c, s);
            let four = if before.is_empty() {
                !self.five_squares_through(c, s).is_empty()
            } else {
                !self.five_squares(s).is_empty()
            };
            self.set(c, EMPTY);
            four
        });
        cand
    }
}

/// What the oracle found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A shortest VCF: attacker, defender, …, the attacker's five (cell indices).
    Win(Vec<usize>),
    /// Proven: no VCF.
    NoWin,
    /// The node budget ran out.
    Unknown,
}

/// The number of attacker moves in a line (attacker moves are at even indices).
pub fn attacker_moves(line: &[usize]) -> usize {
    (line.len() + 1) / 2
}

struct Search<'a> {
    b: &'a mut OBoard,
    att: u8,
    nodes: u64,
    budget: u64,
    /// Failed positions (attacker to move): the largest attacker-move allowance that failed.
    failed: HashMap<u64, u32>,
    /// Whether the current iteration cut a line at the depth limit.
    cut: bool,
}

impl Search<'_> {
    /// A VCF within `depth` attacker moves (the final five counts), reversed, or `None`.
    /// `Err(())` when the node budget runs out.
    fn attack(&mut self, depth: u32) -> Result<Option<Vec<usize>>, ()> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(());
        }
        let att = self.att;
        let def = 3 - att;
        if let Some(&f) = self.b.five_squares(att).first() {
            return Ok(Some(vec![f]));
        }
        if depth < 2 {
            self.cut = true;
            return Ok(None);
        }
        let key = self.b.hash();
        if self.failed.get(&key).map_or(false, |&d| d >= depth) {
            return Ok(None);
        }
        let threats = self.b.five_squares(def);
        let moves = match threats.len() {
            0 => self.b.four_moves(att),
            1 => threats.clone(),
            _ => Vec::new(),
        };
        for m in moves {
            self.b.set(m, att);
            // The attacker had no five square, so every new one shares a window with `m`; and
            // an attacker stone never gives the defender a five square: the defender's are the
            // threats less `m`.
            let fives = self.b.five_squares_through(m, att);
            debug_assert_eq!(fives, self.b.five_squares(att));
            let result = if fives.is_empty() || threats.iter().any(|&t| t != m) {
                // Not a four (a forced block that does not attack), or the defender wins first.
                None
            } else if fives.len() >= 2 {
                // Two five squares: the defender blocks one, the attacker plays the other.
                Some(vec![fives[1], fives[0]])
            } else {
                let block = fives[0];
                if self.b.makes_five(block, def) {
                    None
                } else {
                    self.b.set(block, def);
                    let r = self.attack(depth - 1);
                    self.b.set(block, EMPTY);
                    match r {
                        Err(()) => {
                            self.b.set(m, EMPTY);
                            return Err(());
                        }
                        Ok(r) => r.map(|mut line| {
                            line.push(block);
                            line
                        }),
                    }
                }
            };
            self.b.set(m, EMPTY);
            if let Some(mut line) = result {
                line.push(m);
                return Ok(Some(line));
            }
        }
        let e = self.failed.entry(key).or_insert(0);
        *e = (*e).max(depth);
        Ok(None)
    }
}

/// Searches a shortest VCF for the side to move (iterative deepening on attacker moves) within
/// `budget` nodes. Returns the verdict and the nodes used.
pub fn solve(b: &mut OBoard, budget: u64) -> (Verdict, u64) {
    let att = b.side_to_move();
    let mut s = Search {
        b,
        att,
        nodes: 0,
        budget,
        failed: HashMap::new(),
        cut: false,
    };
    let mut depth = 1;
    loop {
        s.cut = false;
        match s.attack(depth) {
            Err(()) => return (Verdict::Unknown, s.nodes),
            Ok(Some(mut line)) => {
                line.reverse();
                return (Verdict::Win(line), s.nodes);
            }
            Ok(None) if !s.cut => return (Verdict::NoWin, s.nodes),
            Ok(None) => depth += 1,
        }
    }
}

/// Checks a claimed VCF of the side to move on `b` move by move (cell indices). Convention:
/// attacker and defender alternate, attacker first. Each attacker move lands on an empty cell
/// and either makes a five (then the line must end there) or makes at least one five square;
/// if the defender has a five square, the attacker's move must make a five or take that square
/// (a single one). Each defender move is the attacker's only five square (or one of them when
/// there are two or more), and must not make a five for the defender. The line ends with the
/// attacker's five, or with an attacker move after which the attacker has two or more five
/// squares and the defender none. Returns `Err(reason)` for the first broken rule; `b` is
/// restored.
pub fn verify_line(b: &mut OBoard, line: &[usize]) -> Result<(), String> {
    let att = b.side_to_move();
    let def = 3 - att;
    let mut placed = Vec::new();
    let r = (|| {
        for (k, &m) in line.iter().enumerate() {
            let last = k + 1 == line.len();
            if m >= b.cells.len() || b.cells[m] != EMPTY {
                return Err(format!("move {k} {:?} is not an empty cell", b.xy(m)));
            }
            if k % 2 == 0 {
                if b.makes_five(m, att) {
                    return if last {
                        Ok(())
                    } else {
                        Err(format!("move {k} makes five but the line goes on"))
                    };
                }
                let threats = b.five_squares(def);
                if !threats.is_empty() && threats != [m] {
                    return Err(format!(
                        "move {k} {:?} ignores the defender's five squares {:?}",
                        b.xy(m),
                        threats.iter().map(|&t| b.xy(t)).collect::<Vec<_>>()
                    ));
                }
                b.set(m, att);
                placed.push(m);
                let fives = b.five_squares(att);
                if fives.is_empty() {
                    return Err(format!("move {k} {:?} is not a four", b.xy(m)));
                }
                if last {
                    return if fives.len() >= 2 && b.five_squares(def).is_empty() {
                        Ok(())
                    } else {
                        Err(format!("line ends after move {k} without a win"))
                    };
                }
                let reply = line[k + 1];
                if !fives.contains(&reply) || (fives.len() == 1 && fives[0] != reply) {
                    return Err(format!(
                        "defender move {} {:?} is not the forced block {:?}",
                        k + 1,
                        b.xy(reply),
                        fives.iter().map(|&t| b.xy(t)).collect::<Vec<_>>()
                    ));
                }
            } else {
                if b.makes_five(m, def) {
                    return Err(format!("defender move {k} makes a five"));
                }
                b.set(m, def);
                placed.push(m);
                if last {
                    return Err("the line ends with a defender move".to_string());
                }
            }
        }
        Err("empty line".to_string())
    })();
    for m in placed {
        b.set(m, EMPTY);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve_ascii(rule: ORule, text: &str) -> Verdict {
        let mut b = OBoard::from_ascii(text, rule);
        let before = b.cells.clone();
        let (v, _) = solve(&mut b, 1_000_000);
        assert_eq!(b.cells, before, "solve must restore the board");
        if let Verdict::Win(line) = &v {
            assert_eq!(verify_line(&mut b, line), Ok(()), "{line:?}");
        }
        v
    }

    fn cells(b: &OBoard, xy: &[(i32, i32)]) -> Vec<usize> {
        xy.iter().map(|&(x, y)| b.idx(x, y)).collect()
    }

    #[test]
    fn five_detection_freestyle_and_standard() {
        let text = "
            . . . . . . . . .
            X X X X . X . . .
            . . . . . . . . .
            O O O . O . . . .
            . . . . . . . . .
        ";
        let free = OBoard::from_ascii(text, ORule::Freestyle);
        let std = OBoard::from_ascii(text, ORule::Standard);
        // (4,1) joins six black stones: a win in freestyle only.
        assert!(free.makes_five(free.idx(4, 1), BLACK));
        assert!(!std.makes_five(std.idx(4, 1), BLACK));
        assert_eq!(free.five_squares(WHITE), cells(&free, &[(3, 3)]));
        assert_eq!(std.five_squares(WHITE), cells(&std, &[(3, 3)]));
        assert_eq!(std.five_squares(BLACK), Vec::<usize>::new());
        assert_eq!(free.five_squares(BLACK), cells(&free, &[(4, 1)]));
    }

    #[test]
    fn immediate_five_and_open_four() {
        // Black to move with four in a row: win in one.
        let v = solve_ascii(
            ORule::Freestyle,
            "
            . . . . . . . . .
            . X X X X O . . .
            . O O O . . . . .
            . . . . . . . . .
            ",
        );
        assert_eq!(attacker_moves(&win(&v)), 1);
        // Open three on an empty row: the open four wins in two attacker moves.
        let v = solve_ascii(
            ORule::Freestyle,
            "
            . . . . . . . . .
            . . X X X . . . .
            . . . . . . . . .
            . O . O . O . . .
            . . . . . . . . .
            ",
        );
        assert_eq!(attacker_moves(&win(&v)), 2);
    }

    fn win(v: &Verdict) -> Vec<usize> {
        match v {
            Verdict::Win(line) => line.clone(),
            other => panic!("expected a win, got {other:?}"),
        }
    }

    /// Black's row four at (5,2) forces white to (6,2); then (5,5) or (5,1) makes an open
    /// four in column 5. In the first board white's block (6,2) also completes white's open
    /// four in column 6, so white wins first: the tempting line fails and there is no VCF.
    /// In the second board white's column is one stone short and the same line wins.
    #[test]
    fn a_block_that_makes_the_defender_an_open_four_refutes_the_vcf() {
        let refuted = "
            . . . . . . . . . .
            . . . . . . . . . .
            . O X X X . . . . .
            . . . . . X O . . .
            . . . . . X O . . .
            . . . . . . O . . .
            . . . . . . . . . .
            . . . . . . . . . O
        ";
        assert_eq!(solve_ascii(ORule::Freestyle, refuted), Verdict::NoWin);
        let mut b = OBoard::from_ascii(refuted, ORule::Freestyle);
        assert_eq!(b.four_moves(BLACK), cells(&b, &[(5, 2), (6, 2)]));
        let tempting = cells(&b, &[(5, 2), (6, 2), (5, 5), (5, 6), (5, 1)]);
        assert!(verify_line(&mut b, &tempting).is_err());

        let wins = "
            . . . . . . . . . .
            . . . . . . . . . .
            . O X X X . . . . .
            . . . . . X O . . .
            . . . . . X O . . .
            . . . . . . . . . .
            . . . . . . . . . .
            O . . . . . . . . O
        ";
        let line = win(&solve_ascii(ORule::Freestyle, wins));
        assert_eq!(attacker_moves(&line), 3, "{line:?}");
        let mut b = OBoard::from_ascii(wins, ORule::Freestyle);
        assert_eq!(line[..2], cells(&b, &[(5, 2), (6, 2)])[..]);
        assert_eq!(verify_line(&mut b, &tempting), Ok(()));
    }

    /// Same start, but white's block (6,2) makes a closed four (five square (6,1)): black must
    /// take (6,1). In the first board that is itself an open four on the anti-diagonal
    /// (6,1)-(3,4), so black still wins, through the counter-four; in the second (the stone
    /// (3,4) moved away) black's forced block is no four and there is no VCF.
    #[test]
    fn a_counter_four_must_be_answered() {
        let answered = "
            O . . . . . . . . O
            . . . . . . . . . .
            . O X X X . . . . .
            . . . . X X O . . .
            . . . X . X O . . .
            . . . . . . O . . .
            . . . . . . X . . .
            O . . . . . . . . O
        ";
        let line = win(&solve_ascii(ORule::Freestyle, answered));
        let mut b = OBoard::from_ascii(answered, ORule::Freestyle);
        // Ignoring white's four loses: after (5,2) (6,2), black must block at (6,1).
        let ignores = cells(&b, &[(5, 2), (6, 2), (5, 5), (5, 6), (5, 1)]);
        assert!(verify_line(&mut b, &ignores).is_err());
        let through = cells(&b, &[(5, 2), (6, 2), (6, 1), (7, 0), (2, 5)]);
        assert_eq!(verify_line(&mut b, &through), Ok(()));
        assert!(attacker_moves(&line) <= 3, "{line:?}");

        let refuted = "
            O . . . . . . . . O
            . . . . . . . . . .
            . O X X X . . . . .
            . . . . X X O . . .
            . . . . . X O . . X
            . . . . . . O . . .
            . . . . . . X . . .
            O . . . . . . . . O
        ";
        assert_eq!(solve_ascii(ORule::Freestyle, refuted), Verdict::NoWin);
    }

    #[test]
    fn standard_overline_is_not_a_four() {
        // Black X X X . X X: (3,1) makes six, a win in freestyle, nothing in standard.
        let text = "
            . . . . . . . . . .
            X X X . X X O . . .
            . . . . . . . . . .
            O O . O . . . . . .
            . . . . . . . . . O
        ";
        assert_eq!(
            attacker_moves(&win(&solve_ascii(ORule::Freestyle, text))),
            1
        );
        assert_eq!(solve_ascii(ORule::Standard, text), Verdict::NoWin);
    }

    #[test]
    fn verify_line_rejects_bad_lines() {
        let text = "
            . . . . . . . . .
            . . X X X . . . .
            . . . . . . . . .
            . O . O . O . . .
            . . . . . . . . .
        ";
        let mut b = OBoard::from_ascii(text, ORule::Freestyle);
        let good = cells(&b, &[(5, 1), (1, 1), (6, 1)]);
        assert_eq!(verify_line(&mut b, &good), Ok(()));
        // Ending on the open four (two five squares) is accepted too.
        assert_eq!(verify_line(&mut b, &good[..1]), Ok(()));
        // A wrong defender move, a non-four, and a line ending on a defender move.
        for bad in [
            &[(5, 1), (0, 0), (6, 1)][..],
            &[(7, 4), (1, 1), (6, 1)],
            &[(5, 1), (1, 1)],
        ] {
            let line = cells(&b, bad);
            assert!(verify_line(&mut b, &line).is_err(), "{bad:?}");
        }
    }
}

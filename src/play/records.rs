//! Game records for the play page: saving a game as PSQ (Piskvork) or SGF (Renju SGF) with the
//! arena's writers, and reading such a file back (an upload, never a path) to continue a game or
//! to replay it.
//!
//! Reading accepts what the writers produce and what Piskvork and Renju programs write:
//! - **PSQ**: a first line `Piskvorky WxH, …`, then one `x,y[,ms]` line per move (1-based), up
//!   to the first line that is not one; the first move is black's. One game per file (the
//!   first).
//! - **SGF**: the first game tree's main line (its first variation at every branch): `SZ[n]`, `RU[…]` when it names a rule wuzi
//!   knows, and `;B[xy]` / `;W[xy]` moves (letters `a`… then `A`…, `a` = 0); variations are
//!   skipped. Set-up stones (`AB`/`AW`) are refused, since their order is unknown.

use std::{fs, path::Path};

use super::{
    game::{Game, Ply},
    position::{Variant, Xy},
    ApiError,
};
use crate::{
    arena::{
        game::{GameRecord, MoveRecord, Outcome, Reason},
        record::{self, GameInfo},
    },
    board::MAX_SIZE,
    rules::Rule,
};

/// Longest record accepted, in bytes.
pub const MAX_RECORD_BYTES: usize = 256 * 1024;

/// A record's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Piskvork.
    Psq,
    /// Renju SGF.
    Sgf,
}

impl Format {
    /// `psq` or `sgf`.
    pub fn parse(text: &str) -> Option<Format> {
        match text.to_ascii_lowercase().as_str() {
            "psq" => Some(Format::Psq),
            "sgf" => Some(Format::Sgf),
            _ => None,
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Psq => "psq",
            Format::Sgf => "sgf",
        }
    }
}

/// What a record holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Board size.
    pub size: usize,
    /// The rule, when the record names one.
    pub rule: Option<Rule>,
    /// The moves, black first.
    pub moves: Vec<Xy>,
}

fn arena_record(game: &Game) -> GameRecord {
    let (plies, start) = game.plies();
    let moves = plies
        .iter()
        .map(|&Ply { at: (x, y), ms }| MoveRecord { x, y, ms })
        .collect();
    let outcome = match game.ending() {
        Some(e) => e.outcome.clone(),
        None => Outcome {
            winner: None,
            reason: Reason::Unfinished,
            detail: String::new(),
        },
    };
    GameRecord {
        moves,
        opening_len: start,
        outcome,
        times: [Vec::new(), Vec::new()],
        late: [0, 0],
        spawns: [0, 0],
        about: [None, None],
        start_retries: [0, 0],
    }
}

/// The game (the moves on the board) as a record of `format`; `None` for games that have no
/// such record (Connect Four).
pub fn text(game: &Game, format: Format, number: usize) -> Option<String> {
    let (size, rule) = match game.variant() {
        Variant::Gomoku { size, rule } => (size, rule),
        Variant::ConnectFour { .. } => return None,
    };
    let names = game.names();
    let origin = if game.origin().is_empty() {
        "empty board".to_string()
    } else {
        game.origin().to_string()
    };
    let info = GameInfo {
        number,
        names: [&names[0], &names[1]],
        size,
        rule,
        opening: origin,
        date: record::today(),
    };
    let record = arena_record(game);
    Some(match format {
        Format::Psq => record::psq(&record, &info),
        Format::Sgf => record::sgf(&record, &info),
    })
}

/// The files a finished game leaves in the records folder: `<date>-<id>-<round>.psq` and
/// `.sgf`.
pub fn finished_files(game: &Game, round: u64) -> Vec<(String, String)> {
    let id: String = game.id().chars().take(12).collect();
    let stem = format!("{}-{id}-{}", record::today(), round + 1);
    [Format::Psq, Format::Sgf]
        .iter()
        .filter_map(|&f| {
            text(game, f, round as usize + 1).map(|t| (format!("{stem}.{}", f.extension()), t))
        })
        .collect()
}

/// Writes `files` into `dir` (failures are logged; the game goes on).
pub fn write_files(dir: &Path, files: &[(String, String)]) {
    for (name, text) in files {
        let path = dir.join(name);
        if let Err(e) = fs::write(&path, text) {
            log::warn!("cannot write {}: {e}", path.display());
        }
    }
}

/// Reads a record of either format (told apart by its first characters).
pub fn parse(text: &str) -> Result<Parsed, ApiError> {
    if text.len() > MAX_RECORD_BYTES {
        return Err(ApiError::too_large("the record is too large"));
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('(') {
        parse_sgf(trimmed)
    } else {
        parse_psq(trimmed)
    }
}

fn check_size(size: usize) -> Result<usize, ApiError> {
    if (crate::board::MIN_SIZE..=MAX_SIZE).contains(&size) {
        Ok(size)
    } else {
        Err(ApiError::bad(format!(
            "board size {size} is not supported ({}..{})",
            crate::board::MIN_SIZE,
            MAX_SIZE
        )))
    }
}

/// Reads a PSQ record.
pub fn parse_psq(text: &str) -> Result<Parsed, ApiError> {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or("").trim();
    let dims = header.strip_prefix("Piskvorky").ok_or_else(|| {
        ApiError::bad("not a PSQ record: the first line must start with `Piskvorky`")
    })?;
    let dims = dims.trim().split(',').next().unwrap_or("");
    let (w, h) = dims
        .split_once('x')
        .ok_or_else(|| ApiError::bad("PSQ header: no board size such as 15x15"))?;
    let w: usize = w
        .trim()
        .parse()
        .map_err(|_| ApiError::bad("PSQ header: bad width"))?;
    let h: usize = h
        .trim()
        .parse()
        .map_err(|_| ApiError::bad("PSQ header: bad height"))?;
    if w != h {
        return Err(ApiError::bad(format!(
            "the board must be square, not {w}x{h}"
        )));
    }
    let size = check_size(w)?;
    let mut moves = Vec::new();
    for line in lines {
        let fields: Vec<&str> = line.trim().split(',').map(str::trim).collect();
        if !(2..=3).contains(&fields.len()) {
            break;
        }
        let numbers: Option<Vec<i64>> = fields.iter().map(|f| f.parse::<i64>().ok()).collect();
        let numbers = match numbers {
            Some(n) => n,
            None => break,
        };
        let (x, y) = (numbers[0], numbers[1]);
        if x < 1 || y < 1 || x > size as i64 || y > size as i64 {
            return Err(ApiError::bad(format!(
                "PSQ move {}: {x},{y} is off the {size}×{size} board",
                moves.len() + 1
            )));
        }
        moves.push(((x - 1) as usize, (y - 1) as usize));
    }
    Ok(Parsed {
        size,
        rule: None,
        moves,
    })
}

fn sgf_coordinate(c: char) -> Option<usize> {
    match c {
        'a'..='z' => Some(c as usize - 'a' as usize),
        'A'..='Z' => Some(c as usize - 'A' as usize + 26),
        _ => None,
    }
}

/// Reads the first game tree's main line of an SGF record.
pub fn parse_sgf(text: &str) -> Result<Parsed, ApiError> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut size = 15usize;
    let mut rule = None;
    let mut moves: Vec<(char, String)> = Vec::new();
    let mut ident = String::new();
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c == '[' {
            // A property value, `\` escapes the next character.
            let mut value = String::new();
            while i < chars.len() && chars[i] != ']' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if let Some(&v) = chars.get(i) {
                    value.push(v);
                }
                i += 1;
            }
            if i >= chars.len() {
                return Err(ApiError::bad("SGF: a property value is not closed"));
            }
            i += 1;
            match ident.as_str() {
                "SZ" => {
                    let n = value.split(':').next().unwrap_or("");
                    size = check_size(
                        n.trim()
                            .parse()
                            .map_err(|_| ApiError::bad(format!("SGF: bad size `{value}`")))?,
                    )?;
                }
                "RU" => rule = Rule::from_name(value.trim()),
                "B" | "W" => moves.push((ident.chars().next().unwrap_or('B'), value)),
                "AB" | "AW" | "AE" => {
                    return Err(ApiError::bad(
                        "SGF: set-up stones (AB/AW) are not supported; the record needs moves",
                    ))
                }
                _ => {}
            }
            continue;
        }
        match c {
            // The main line ends where its first variation (or the tree) closes.
            ')' => break,
            ';' => ident.clear(),
            c if c.is_ascii_uppercase() => {
                if i >= 2 && chars[i - 2].is_ascii_uppercase() {
                    ident.push(c);
                } else {
                    ident = c.to_string();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (n, (colour, value)) in moves.iter().enumerate() {
        let expected = if n % 2 == 0 { 'B' } else { 'W' };
        if *colour != expected {
            return Err(ApiError::bad(format!(
                "SGF move {}: expected {expected}, found {colour} (colours must alternate, black first)",
                n + 1
            )));
        }
        let cs: Vec<char> = value.trim().chars().collect();
        let (x, y) = match (
            cs.first().and_then(|&c| sgf_coordinate(c)),
            cs.get(1).and_then(|&c| sgf_coordinate(c)),
        ) {
            (Some(x), Some(y)) if cs.len() == 2 => (x, y),
            _ => {
                return Err(ApiError::bad(format!(
                    "SGF move {}: `{value}` is not a square",
                    n + 1
                )))
            }
        };
        if x >= size || y >= size {
            return Err(ApiError::bad(format!(
                "SGF move {}: `{value}` is off the {size}×{size} board",
                n + 1
            )));
        }
        out.push((x, y));
    }
    Ok(Parsed {
        size,
        rule,
        moves: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psq_is_read_back() {
        let text =
            "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,8,120\n9,9,33\nwuzi\nperson\n-1\n# game 1\n";
        let p = parse(text).unwrap();
        assert_eq!(p.size, 15);
        assert_eq!(p.moves, vec![(7, 7), (8, 7), (8, 8)]);
        assert_eq!(p.rule, None);
        // Piskvork also writes moves without times.
        assert_eq!(
            parse("Piskvorky 20x20\n1,1\n20,20\n").unwrap().moves,
            vec![(0, 0), (19, 19)]
        );
        assert_eq!(
            parse("Piskvorky 15x15, 1:1\n16,1,0\n").unwrap_err().status,
            400
        );
        assert_eq!(parse("Piskvorky 15x20, 1:1\n").unwrap_err().status, 400);
        assert_eq!(parse("hello").unwrap_err().status, 400);
        assert_eq!(parse("Piskvorky 99x99\n").unwrap_err().status, 400);
    }

    #[test]
    fn sgf_main_line_is_read_and_variations_skipped() {
        let text = "(;GM[4]FF[4]SZ[15]RU[renju]PB[a\\]b]C[x]\n;B[hh]C[opening];W[ih];B[ii]C[81 ms](;W[jj])(;W[aa]))";
        let p = parse(text).unwrap();
        assert_eq!(p.size, 15);
        assert_eq!(p.rule, Some(Rule::Renju));
        assert_eq!(p.moves, vec![(7, 7), (8, 7), (8, 8), (9, 9)]);
        let big = parse("(;SZ[30];B[AA];W[Ad])").unwrap();
        assert_eq!(big.moves, vec![(26, 26), (26, 3)]);
        assert_eq!(parse("(;SZ[15];B[hh];B[ii])").unwrap_err().status, 400);
        assert_eq!(parse("(;SZ[15];B[zz])").unwrap_err().status, 400);
        assert_eq!(parse("(;SZ[15]AB[hh][ii])").unwrap_err().status, 400);
        assert_eq!(parse("(;SZ[15];B[hh").unwrap_err().status, 400);
    }
}

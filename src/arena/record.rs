//! Game records: one file per match holding every game, appended (and flushed) as each game
//! ends, so an interrupted match keeps what it played.
//!
//! - **SGF** (Renju SGF, `GM[4]`, FF\[4\]): a collection of game trees. The root carries the
//!   board size, players, rule (`RU`), result (`RE`: `B+`/`W+` for a win on the board, `B+T`/
//!   `W+T` on time, `B+F`/`W+F` for other forfeits, `0` for a draw), the game number and a
//!   comment with the opening and the reason. Every stone, opening included, is a move node;
//!   engine moves carry their think time in a comment. Column x is the first letter, row y the
//!   second (`a` = 0).
//! - **PSQ** (Piskvork): per game a header `Piskvorky WxH, 11:11, 0`, one `x,y,ms` line per
//!   stone (1-based, opening stones with 0 ms), the black and white engine names, `-1`, and a
//!   `#` comment line with the game number, result and reason (the format has no field for
//!   them); games follow each other in the same file.

use std::{
    fs::File,
    io::{self, BufWriter, Write},
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

use super::game::{GameRecord, Reason};
use crate::{board::Stone, rules::Rule};

/// Record file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// Renju SGF collection.
    Sgf,
    /// Piskvork PSQ blocks.
    Psq,
}

/// What a record needs besides the game itself.
#[derive(Clone, Debug)]
pub struct GameInfo<'a> {
    /// Game number in the match (1-based).
    pub number: usize,
    /// Engine names, black then white.
    pub names: [&'a str; 2],
    /// Board size.
    pub size: usize,
    /// Rule.
    pub rule: Rule,
    /// Opening description (file line and symmetry).
    pub opening: String,
    /// `YYYY-MM-DD`.
    pub date: String,
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Escapes `]` and `\` for an SGF text value.
fn sgf_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn sgf_coord(v: usize) -> char {
    // a..z then A..Z (boards up to 52; Gomocup uses at most 22).
    if v < 26 {
        (b'a' + v as u8) as char
    } else {
        (b'A' + (v - 26) as u8) as char
    }
}

/// The SGF `RE` value (`None` for an unfinished game, which has no result).
fn sgf_result(record: &GameRecord) -> Option<String> {
    if record.outcome.reason == Reason::Unfinished {
        return None;
    }
    Some(match record.outcome.winner {
        None => "0".to_string(),
        Some(stone) => {
            let c = if stone == Stone::Black { 'B' } else { 'W' };
            match record.outcome.reason {
                Reason::TimeForfeit => format!("{c}+T"),
                Reason::Resign => format!("{c}+R"),
                r if r.is_forfeit() => format!("{c}+F"),
                _ => format!("{c}+"),
            }
        }
    })
}

/// A sentence for the result: `black (A) wins by five`, `draw (full board)`.
pub fn result_text(record: &GameRecord, names: [&str; 2]) -> String {
    let reason = record.outcome.reason;
    if reason == Reason::Unfinished {
        return "unfinished".to_string();
    }
    let detail = if record.outcome.detail.is_empty() {
        String::new()
    } else {
        format!(": {}", record.outcome.detail)
    };
    match record.outcome.winner {
        None => format!("draw ({reason}{detail})"),
        Some(stone) => {
            let (win, lose) = if stone == Stone::Black {
                (("black", names[0]), ("white", names[1]))
            } else {
                (("white", names[1]), ("black", names[0]))
            };
            if reason == Reason::Five {
                format!("{} ({}) wins by five", win.0, win.1)
            } else {
                format!(
                    "{} ({}) wins: {} ({}) loses by {reason}{detail}",
                    win.0, win.1, lose.0, lose.1
                )
            }
        }
    }
}

/// One game as an SGF game tree.
pub fn sgf(record: &GameRecord, info: &GameInfo<'_>) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "(;GM[4]FF[4]CA[UTF-8]AP[wuzi arena]SZ[{}]RU[{}]PB[{}]PW[{}]DT[{}]GN[{}]",
        info.size,
        info.rule.name(),
        sgf_text(info.names[0]),
        sgf_text(info.names[1]),
        info.date,
        info.number,
    ));
    if let Some(result) = sgf_result(record) {
        s.push_str(&format!("RE[{result}]"));
    }
    s.push_str(&format!(
        "C[game {}; opening {} ({} stones); {}]",
        info.number,
        sgf_text(&info.opening),
        record.opening_len,
        sgf_text(&result_text(record, info.names)),
    ));
    for (i, m) in record.moves.iter().enumerate() {
        let c = if i % 2 == 0 { 'B' } else { 'W' };
        s.push_str(&format!("\n;{c}[{}{}]", sgf_coord(m.x), sgf_coord(m.y)));
        if i < record.opening_len {
            s.push_str("C[opening]");
        } else {
            s.push_str(&format!("C[{} ms]", m.ms));
        }
    }
    s.push_str(")\n");
    s
}

/// One game as a PSQ block.
pub fn psq(record: &GameRecord, info: &GameInfo<'_>) -> String {
    let mut s = format!("Piskvorky {}x{}, 11:11, 0\n", info.size, info.size);
    for m in &record.moves {
        s.push_str(&format!("{},{},{}\n", m.x + 1, m.y + 1, m.ms));
    }
    s.push_str(&format!("{}\n{}\n-1\n", info.names[0], info.names[1]));
    s.push_str(&format!(
        "# game {}, opening {}: {}\n",
        info.number,
        info.opening,
        result_text(record, info.names)
    ));
    s
}

/// Appends games to a record file.
pub struct RecordWriter {
    out: BufWriter<File>,
    format: RecordFormat,
}

impl RecordWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path, format: RecordFormat) -> io::Result<RecordWriter> {
        Ok(RecordWriter {
            out: BufWriter::new(File::create(path)?),
            format,
        })
    }

    /// Writes one game and flushes.
    pub fn write(&mut self, record: &GameRecord, info: &GameInfo<'_>) -> io::Result<()> {
        let text = match self.format {
            RecordFormat::Sgf => sgf(record, info),
            RecordFormat::Psq => psq(record, info),
        };
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::game::{MoveRecord, Outcome};

    fn record(winner: Option<Stone>, reason: Reason) -> GameRecord {
        GameRecord {
            moves: vec![
                MoveRecord { x: 7, y: 7, ms: 0 },
                MoveRecord { x: 8, y: 7, ms: 0 },
                MoveRecord {
                    x: 0,
                    y: 19,
                    ms: 81,
                },
            ],
            opening_len: 2,
            outcome: Outcome {
                winner,
                reason,
                detail: String::new(),
            },
            times: [Vec::new(), Vec::new()],
            late: [0, 0],
            spawns: [0, 0],
            about: [None, None],
            start_retries: [0, 0],
        }
    }

    fn info() -> GameInfo<'static> {
        GameInfo {
            number: 3,
            names: ["new]", "old"],
            size: 20,
            rule: Rule::Renju,
            opening: "line 1".to_string(),
            date: "2026-01-02".to_string(),
        }
    }

    #[test]
    fn sgf_game() {
        let text = sgf(&record(Some(Stone::Black), Reason::Five), &info());
        assert!(text.starts_with("(;GM[4]FF[4]"), "{text}");
        assert!(text.contains("SZ[20]RU[renju]PB[new\\]]PW[old]"), "{text}");
        assert!(text.contains("RE[B+]"), "{text}");
        assert!(text.contains(";B[hh]C[opening]"), "{text}");
        assert!(text.contains(";W[ih]C[opening]"), "{text}");
        assert!(text.contains(";B[at]C[81 ms]"), "{text}");
        assert!(text.trim_end().ends_with(')'));
        let t = sgf(&record(Some(Stone::White), Reason::TimeForfeit), &info());
        assert!(t.contains("RE[W+T]"));
        assert!(t.contains("loses by time forfeit"), "{t}");
        let c = sgf(&record(Some(Stone::White), Reason::Crash), &info());
        assert!(c.contains("RE[W+F]"));
        let d = sgf(&record(None, Reason::FullBoard), &info());
        assert!(d.contains("RE[0]"));
        let r = sgf(&record(Some(Stone::Black), Reason::Resign), &info());
        assert!(r.contains("RE[B+R]"), "{r}");
        assert!(r.contains("loses by resignation"), "{r}");
        let a = sgf(&record(None, Reason::Agreed), &info());
        assert!(a.contains("RE[0]") && a.contains("draw (agreement)"), "{a}");
        let u = sgf(&record(None, Reason::Unfinished), &info());
        assert!(!u.contains("RE["), "{u}");
        assert!(u.contains("; unfinished]"), "{u}");
    }

    #[test]
    fn psq_game() {
        let text = psq(&record(Some(Stone::Black), Reason::Five), &info());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Piskvorky 20x20, 11:11, 0");
        assert_eq!(lines[1], "8,8,0");
        assert_eq!(lines[3], "1,20,81");
        assert_eq!(lines[4], "new]");
        assert_eq!(lines[6], "-1");
        assert!(lines[7].starts_with("# game 3"));
    }

    #[test]
    fn date_format() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
        assert_eq!(&d[4..5], "-");
    }
}

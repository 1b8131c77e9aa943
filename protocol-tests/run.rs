//! Protocol transcript tests: every `protocol-tests/*.txt` file is one conversation with a
//! fresh brain process (see `protocol-tests/README.md` for the format).
//!
//! The brain is `pbrain-wuzi` from this build, or the command line in `WUZI_BRAIN`
//! (whitespace-separated, e.g. `wine dist/pbrain-wuzi64.exe`). Every time limit is multiplied
//! by `WUZI_TIME_SCALE` (default 1.0). `WUZI_TRANSCRIPT=name[,name…]` runs only those files,
//! `WUZI_JOBS` sets how many run at once (default 2).

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long a `<…` expectation waits when no `!within` is pending.
const DEFAULT_WAIT_MS: u64 = 5000;
/// How long the brain gets to exit after the final EOF before it is killed.
const END_GRACE_MS: u64 = 2000;
/// How many output lines a failure report shows.
const REPORT_LINES: usize = 12;
/// How much of the brain's stderr a failure report shows.
const REPORT_STDERR_BYTES: usize = 2000;

// ---------------------------------------------------------------------------------------------
// Transcript syntax
// ---------------------------------------------------------------------------------------------

/// A board square `x,y` as the protocol writes it (x = column, y = row).
type Sq = (i64, i64);

/// What one `<…` line expects of the next output line.
#[derive(Debug, Clone)]
enum Expect {
    /// `< TEXT`: next non-MESSAGE/DEBUG line equals TEXT.
    Exact(String),
    /// `<= TEXT`: next line of any kind equals TEXT.
    ExactAny(String),
    /// `<prefix TEXT`: next non-MESSAGE/DEBUG line starts with TEXT.
    Prefix(String),
    /// `<=prefix TEXT`: next line of any kind starts with TEXT.
    PrefixAny(String),
    /// `<about`: an ABOUT reply with name, version, author, country in that order.
    About,
    /// `<move` / `<move A|B`: a legal move, optionally one of the listed squares.
    Move(Option<Vec<Sq>>),
    /// `<move-not A|B`: a legal move that is none of the listed squares.
    MoveNot(Vec<Sq>),
    /// `<moves N`: N distinct legal squares separated by single spaces.
    Moves(usize),
    /// `<swap2`: `SWAP` or one or two legal squares.
    Swap2,
    /// `<swap2-5`: `SWAP` or exactly one legal square.
    Swap2Five,
    /// `<any-order E1 ;; E2 …`: the next lines satisfy these expectations in some order.
    AnyOrder(Vec<Expect>),
    /// `<like PATTERN`: next non-MESSAGE/DEBUG line matches the pattern (see [`Token`]).
    Like(Vec<Token>),
    /// `<=like PATTERN`: next line of any kind matches the pattern.
    LikeAny(Vec<Token>),
    /// `<find PATTERN`: MESSAGE/DEBUG lines are skipped until one (or an answer) matches;
    /// an answer line that does not match fails.
    Find(Vec<Token>),
}

/// One word of a `<like` / `<=like` / `<find` pattern; words are separated by whitespace.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// Any other word: itself.
    Literal(String),
    /// `*`: any one word.
    AnyWord,
    /// `...`: the rest of the line, possibly nothing (last word only).
    Rest,
    /// `{A|B}`: one of these words.
    OneOf(Vec<String>),
    /// `!WORD`: any word but this one.
    Not(String),
    /// `%int`: an integer; `%int[A,B]`: one from A to B.
    Int(Option<(f64, f64)>),
    /// `%num[A,B]`: a number from A to B, a trailing `%` allowed (`12.5%`).
    Num((f64, f64)),
    /// `%score`: a score as wuzi writes it, `ev N`, `win in N` or `loss in N`.
    Score,
    /// `%sq` (a word `x,y`) or `%xy` (two words `x y`): a square on the board, empty unless
    /// `?` follows; `+` records it as a stone, `~` requires it to differ from every other `~`
    /// square since the last line sent; then `{A|B}` (one of) or `!{A|B}` (none of).
    Square(SquareTok),
}

/// The checks of a `%sq` / `%xy` pattern word.
#[derive(Debug, Clone, PartialEq, Default)]
struct SquareTok {
    two_words: bool,
    occupied_ok: bool,
    record: bool,
    distinct: bool,
    one_of: Option<Vec<Sq>>,
    none_of: Vec<Sq>,
}

/// `[A,B]` → (A, B).
fn parse_range(text: &str) -> Result<(f64, f64), String> {
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("bad range `{text}`"))?;
    let (a, b) = inner
        .split_once(',')
        .ok_or_else(|| format!("bad range `{text}`"))?;
    match (a.trim().parse(), b.trim().parse()) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        _ => Err(format!("bad range `{text}`")),
    }
}

fn parse_pattern(text: &str) -> Result<Vec<Token>, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return Err("a pattern needs at least one word".to_string());
    }
    let mut tokens = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let token = match *word {
            "..." if i + 1 == words.len() => Token::Rest,
            "..." => return Err("`...` must be the last word".to_string()),
            "*" => Token::AnyWord,
            "%int" => Token::Int(None),
            "%score" => Token::Score,
            w if w.starts_with("%int[") => Token::Int(Some(parse_range(&w[4..])?)),
            w if w.starts_with("%num[") => Token::Num(parse_range(&w[4..])?),
            w if w.len() > 2 && w.starts_with('{') && w.ends_with('}') => {
                Token::OneOf(w[1..w.len() - 1].split('|').map(str::to_string).collect())
            }
            w if w.len() > 1 && w.starts_with('!') => Token::Not(w[1..].to_string()),
            w if w.starts_with("%sq") || w.starts_with("%xy") => {
                let mut tok = SquareTok {
                    two_words: w.starts_with("%xy"),
                    ..SquareTok::default()
                };
                let mut rest = &w[3..];
                while let Some(c) = rest.chars().next() {
                    match c {
                        '+' => tok.record = true,
                        '?' => tok.occupied_ok = true,
                        '~' => tok.distinct = true,
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                if let Some(list) = rest.strip_prefix("!{").and_then(|r| r.strip_suffix('}')) {
                    tok.none_of = parse_sq_list(list)?;
                } else if let Some(list) = rest.strip_prefix('{').and_then(|r| r.strip_suffix('}'))
                {
                    tok.one_of = Some(parse_sq_list(list)?);
                } else if !rest.is_empty() {
                    return Err(format!("bad square pattern `{w}`"));
                }
                Token::Square(tok)
            }
            w if w.starts_with('%') => return Err(format!("unknown pattern word `{w}`")),
            w => Token::Literal(w.to_string()),
        };
        tokens.push(token);
    }
    Ok(tokens)
}

impl Expect {
    /// Whether MESSAGE/DEBUG lines count as the next line (`<=`, `<=prefix`).
    fn any_kind(&self) -> bool {
        matches!(
            self,
            Expect::ExactAny(_) | Expect::PrefixAny(_) | Expect::LikeAny(_) | Expect::Find(_)
        )
    }
}

/// One line of a transcript.
#[derive(Debug, Clone)]
enum Directive {
    /// `> TEXT` (LF) or `>> TEXT` (CR LF).
    Send { text: String, crlf: bool },
    /// `!send-bytes HEX…`
    SendBytes(Vec<u8>),
    /// `!send-long N`
    SendLong(usize),
    /// `<…`
    Expect(Expect),
    /// `!within MS`
    Within(u64),
    /// `!silent MS`
    Silent(u64),
    /// `!sleep MS`
    Sleep(u64),
    /// `!eof`
    Eof,
    /// `!exit MS`
    Exit(u64),
    /// `!rss-below BYTES`
    RssBelow(u64),
    /// `!any-output`
    AnyOutput,
}

/// A parsed transcript line with its 1-based line number and source text.
#[derive(Debug, Clone)]
struct Step {
    line: usize,
    source: String,
    directive: Directive,
}

/// Parses a strict move `x,y`: two integers, one comma, no spaces.
fn parse_sq_strict(s: &str) -> Option<Sq> {
    let (x, y) = s.split_once(',')?;
    Some((parse_int_strict(x)?, parse_int_strict(y)?))
}

fn parse_int_strict(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses coordinates the way a tolerant brain would: spaces around the numbers allowed.
fn parse_sq_loose(s: &str) -> Option<Sq> {
    let mut parts = s.split(',');
    let x = parts.next()?.trim().parse().ok()?;
    let y = parts.next()?.trim().parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some((x, y))
}

fn parse_sq_list(s: &str) -> Result<Vec<Sq>, String> {
    s.split('|')
        .map(|t| parse_sq_strict(t.trim()).ok_or_else(|| format!("bad square `{t}` in list")))
        .collect()
}

fn parse_ms(arg: &str, what: &str) -> Result<u64, String> {
    arg.trim()
        .parse()
        .map_err(|_| format!("{what} needs a non-negative integer, got `{arg}`"))
}

/// Parses a whole transcript; the first bad line is an error naming its line number.
fn parse_transcript(text: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let source = raw.strip_suffix('\r').unwrap_or(raw);
        if source.trim().is_empty() || source.trim_start().starts_with('#') {
            continue;
        }
        let directive =
            parse_directive(source).map_err(|msg| format!("line {line}: `{source}`: {msg}"))?;
        steps.push(Step {
            line,
            source: source.to_string(),
            directive,
        });
    }
    for (index, step) in steps.iter().enumerate() {
        let next = steps.get(index + 1).map(|s| &s.directive);
        if matches!(step.directive, Directive::Within(_))
            && !matches!(next, Some(Directive::Expect(_)))
        {
            return Err(format!(
                "line {}: `{}` must be followed directly by a `<…` expectation",
                step.line, step.source
            ));
        }
    }
    Ok(steps)
}

/// Text after a directive word: exactly one separating space is removed.
fn rest_after<'a>(source: &'a str, word: &str) -> &'a str {
    let rest = &source[word.len()..];
    rest.strip_prefix(' ').unwrap_or(rest)
}

fn parse_directive(source: &str) -> Result<Directive, String> {
    let word = source.split_whitespace().next().unwrap_or("");
    let arg = rest_after(source, word);
    if let Some(rest) = source.strip_prefix(">>") {
        let text = rest.strip_prefix(' ').unwrap_or(rest);
        return Ok(Directive::Send {
            text: text.to_string(),
            crlf: true,
        });
    }
    if let Some(rest) = source.strip_prefix('>') {
        let text = rest.strip_prefix(' ').unwrap_or(rest);
        return Ok(Directive::Send {
            text: text.to_string(),
            crlf: false,
        });
    }
    let expect = |e: Expect| Ok(Directive::Expect(e));
    match word {
        "<" => expect(Expect::Exact(arg.to_string())),
        "<=" => expect(Expect::ExactAny(arg.to_string())),
        "<prefix" if !arg.is_empty() => expect(Expect::Prefix(arg.to_string())),
        "<=prefix" if !arg.is_empty() => expect(Expect::PrefixAny(arg.to_string())),
        "<about" if arg.trim().is_empty() => expect(Expect::About),
        "<move" if arg.trim().is_empty() => expect(Expect::Move(None)),
        "<move" => expect(Expect::Move(Some(parse_sq_list(arg)?))),
        "<move-not" if !arg.trim().is_empty() => expect(Expect::MoveNot(parse_sq_list(arg)?)),
        "<moves" => match arg.trim().parse() {
            Ok(n) if n > 0 => expect(Expect::Moves(n)),
            _ => Err("`<moves` needs a positive count".to_string()),
        },
        "<any-order" => {
            let mut parts = Vec::new();
            for part in arg.split(";;") {
                match parse_directive(part.trim())? {
                    Directive::Expect(e)
                        if e.any_kind() || matches!(e, Expect::AnyOrder(_) | Expect::Find(_)) =>
                    {
                        return Err(
                            "`<any-order` cannot hold `<any-order`, `<find`, `<=`, `<=prefix`, `<=like`"
                                .to_string(),
                        )
                    }
                    Directive::Expect(e) => parts.push(e),
                    _ => return Err(format!("`{}` is not an expectation", part.trim())),
                }
            }
            if parts.len() < 2 {
                return Err("`<any-order` needs two or more expectations".to_string());
            }
            expect(Expect::AnyOrder(parts))
        }
        "<like" => expect(Expect::Like(parse_pattern(arg)?)),
        "<=like" => expect(Expect::LikeAny(parse_pattern(arg)?)),
        "<find" => expect(Expect::Find(parse_pattern(arg)?)),
        "<swap2" if arg.trim().is_empty() => expect(Expect::Swap2),
        "<swap2-5" if arg.trim().is_empty() => expect(Expect::Swap2Five),
        "!within" => Ok(Directive::Within(parse_ms(arg, word)?)),
        "!silent" => Ok(Directive::Silent(parse_ms(arg, word)?)),
        "!sleep" => Ok(Directive::Sleep(parse_ms(arg, word)?)),
        "!exit" => Ok(Directive::Exit(parse_ms(arg, word)?)),
        "!rss-below" => Ok(Directive::RssBelow(parse_ms(arg, word)?)),
        "!eof" if arg.trim().is_empty() => Ok(Directive::Eof),
        "!any-output" if arg.trim().is_empty() => Ok(Directive::AnyOutput),
        "!send-long" => match arg.trim().parse() {
            Ok(n) => Ok(Directive::SendLong(n)),
            Err(_) => Err("`!send-long` needs a length".to_string()),
        },
        "!send-bytes" => {
            let bytes: Result<Vec<u8>, String> = arg
                .split_whitespace()
                .map(|h| u8::from_str_radix(h, 16).map_err(|_| format!("bad hex byte `{h}`")))
                .collect();
            let bytes = bytes?;
            if bytes.is_empty() {
                return Err("`!send-bytes` needs at least one byte".to_string());
            }
            Ok(Directive::SendBytes(bytes))
        }
        _ => Err("unknown directive or bad arguments (see protocol-tests/README.md)".to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Output line checks (pure)
// ---------------------------------------------------------------------------------------------

/// Lines a manager skips while waiting for an answer (Piskvork: prefix with the space).
fn is_info_line(line: &str) -> bool {
    let upper = line.get(..8).unwrap_or(line).to_ascii_uppercase();
    upper.starts_with("MESSAGE ") || upper.starts_with("DEBUG ")
}

/// Checks `key="value", key="value", …` and that name, version, author, country appear in
/// that order (other keys such as www or email may appear too).
fn check_about(line: &str) -> Result<(), String> {
    let mut keys = Vec::new();
    let mut rest = line;
    loop {
        let (key, after) = rest
            .split_once("=\"")
            .ok_or_else(|| format!("expected key=\"value\" at `{rest}`"))?;
        let key = key.trim();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!("bad key `{key}`"));
        }
        let (_value, after) = after
            .split_once('"')
            .ok_or_else(|| format!("unterminated value for key `{key}`"))?;
        keys.push(key.to_string());
        let after = after.trim_start();
        if after.is_empty() {
            break;
        }
        rest = after
            .strip_prefix(',')
            .ok_or_else(|| format!("expected `,` before `{after}`"))?;
    }
    let wanted = ["name", "version", "author", "country"];
    let mut next = 0;
    for key in &keys {
        if next < wanted.len() && key == wanted[next] {
            next += 1;
        }
    }
    if next < wanted.len() {
        return Err(format!(
            "keys {keys:?} do not contain name, version, author, country in that order"
        ));
    }
    Ok(())
}

/// The runner's own record of the game: board size and occupied squares.
#[derive(Debug, Default)]
struct Record {
    size: Option<Sq>,
    stones: HashSet<Sq>,
    /// Stones of an open BOARD/YXBOARD/SWAP2BOARD block, committed on DONE.
    block: Option<Vec<Sq>>,
    /// TAKEBACK sent; the stone goes when the answer is `OK`.
    takeback: Option<Sq>,
    /// Squares matched by `~` pattern words since the last line sent.
    distinct: HashSet<Sq>,
}

/// Commands that end an open BOARD block in the engine (the block is dropped).
const KEYWORDS: &[&str] = &[
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "BOARD",
    "YXBOARD",
    "SWAP2BOARD",
    "INFO",
    "END",
    "ABOUT",
    "TAKEBACK",
    "PLAY",
    "STOP",
    "YXSTOP",
    "YXSHOWFORBID",
    "YXHASHCLEAR",
    "YXNBEST",
    "YXBLOCK",
    "YXBLOCKUNDO",
    "YXBLOCKRESET",
    "YXBALANCEONE",
    "YXBALANCETWO",
    "YXSEARCHDEFEND",
    "YXSHOWINFO",
    "YXSHOWHASHUSAGE",
    "YXHASHDUMP",
    "YXHASHLOAD",
    "YXSWAP2STEP1",
    "YXSWAP2STEP2",
    "YXSWAP2STEP3",
    "YXSOOSORVSTEP1",
    "YXSOOSORVSTEP2",
    "YXSOOSORVSTEP3",
    "YXSOOSORVSTEP4",
    "YXSOOSORVSTEP5",
    "YXSOOSORVSTEP6",
];

impl Record {
    fn in_range(&self, sq: Sq) -> bool {
        match self.size {
            Some((w, h)) => sq.0 >= 0 && sq.1 >= 0 && sq.0 < w && sq.1 < h,
            None => false,
        }
    }

    /// Updates the record for a line sent to the brain.
    fn sent(&mut self, text: &str) {
        self.distinct.clear();
        let trimmed = text.trim();
        let word = trimmed.split_whitespace().next().unwrap_or("");
        let upper = word.to_ascii_uppercase();
        let arg = trimmed[word.len()..].trim();
        if self.block.is_some() {
            if upper == "DONE" {
                if let Some(block) = self.block.take() {
                    self.stones = block.into_iter().collect();
                }
                return;
            }
            if !KEYWORDS.contains(&upper.as_str()) {
                let fields: Vec<&str> = trimmed.split(',').map(str::trim).collect();
                let stone = match fields.as_slice() {
                    [x, y] | [x, y, "1" | "2" | "3"] => x.parse().ok().zip(y.parse().ok()),
                    _ => None,
                };
                if let Some(sq) = stone {
                    if self.in_range(sq) {
                        if let Some(block) = self.block.as_mut() {
                            block.push(sq);
                        }
                    }
                }
                return;
            }
            self.block = None;
        }
        match upper.as_str() {
            "START" => {
                let nums: Vec<Option<i64>> =
                    arg.split_whitespace().map(|t| t.parse().ok()).collect();
                match nums.as_slice() {
                    [Some(n)] => self.size = Some((*n, *n)),
                    [Some(w), Some(h)] => self.size = Some((*w, *h)),
                    _ => {}
                }
                self.stones.clear();
            }
            "RECTSTART" => {
                if let Some(sq) = parse_sq_loose(arg) {
                    self.size = Some(sq);
                }
                self.stones.clear();
            }
            "RESTART" => self.stones.clear(),
            "BOARD" | "YXBOARD" | "SWAP2BOARD" => self.block = Some(Vec::new()),
            // The Soosorv steps bring the stones so far as a block; steps 1 start afresh.
            "YXSOOSORVSTEP2" | "YXSOOSORVSTEP3" | "YXSOOSORVSTEP4" | "YXSOOSORVSTEP5"
            | "YXSOOSORVSTEP6" => self.block = Some(Vec::new()),
            "YXSOOSORVSTEP1" | "YXSWAP2STEP1" => self.stones.clear(),
            "TURN" => {
                if let Some(sq) = parse_sq_loose(arg) {
                    if self.in_range(sq) {
                        self.stones.insert(sq);
                    }
                }
            }
            "TAKEBACK" => self.takeback = parse_sq_loose(arg),
            _ => {}
        }
    }

    /// Updates the record for a consumed non-MESSAGE/DEBUG answer line.
    fn answered(&mut self, line: &str) {
        if let Some(sq) = self.takeback.take() {
            if line == "OK" {
                self.stones.remove(&sq);
            }
        }
        if let Some(sq) = parse_sq_strict(line) {
            if self.in_range(sq) {
                self.stones.insert(sq);
            }
        }
    }

    /// A legal move token: strict `x,y`, in range, empty.
    fn check_move(&self, token: &str) -> Result<Sq, String> {
        let (w, h) = self
            .size
            .ok_or("no board size known (no START/RECTSTART sent)")?;
        let sq = parse_sq_strict(token).ok_or_else(|| format!("`{token}` is not a move `x,y`"))?;
        if !self.in_range(sq) {
            return Err(format!("move {token} is off the {w}x{h} board"));
        }
        if self.stones.contains(&sq) {
            return Err(format!("move {token} is on an occupied square"));
        }
        Ok(sq)
    }

    /// Checks a line of `count` distinct legal moves separated by single spaces.
    fn check_moves(&self, line: &str, counts: &[usize]) -> Result<Vec<Sq>, String> {
        let tokens: Vec<&str> = line.split(' ').collect();
        if !counts.contains(&tokens.len()) {
            return Err(format!("expected {counts:?} squares, got {}", tokens.len()));
        }
        let mut squares = Vec::new();
        for token in tokens {
            let sq = self.check_move(token)?;
            if squares.contains(&sq) {
                return Err(format!("square {token} given twice"));
            }
            squares.push(sq);
        }
        Ok(squares)
    }

    /// Checks a line against a pattern; on success records the `+` squares and the `~` ones.
    fn check_pattern(&mut self, tokens: &[Token], line: &str) -> Result<(), String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut at = 0;
        let mut record = Vec::new();
        let mut distinct = Vec::new();
        for (i, token) in tokens.iter().enumerate() {
            let word = |k: usize| {
                words
                    .get(k)
                    .copied()
                    .ok_or_else(|| format!("the line ends before pattern word {}", i + 1))
            };
            match token {
                Token::Rest => {
                    at = words.len();
                    break;
                }
                Token::AnyWord => {
                    word(at)?;
                    at += 1;
                }
                Token::Literal(text) => {
                    let got = word(at)?;
                    if got != text {
                        return Err(format!("word {}: expected `{text}`, got `{got}`", at + 1));
                    }
                    at += 1;
                }
                Token::OneOf(words) => {
                    let got = word(at)?;
                    if !words.iter().any(|w| w == got) {
                        return Err(format!("word {}: `{got}` is not one of {words:?}", at + 1));
                    }
                    at += 1;
                }
                Token::Not(text) => {
                    let got = word(at)?;
                    if got == text {
                        return Err(format!("word {}: expected anything but `{text}`", at + 1));
                    }
                    at += 1;
                }
                Token::Int(range) => {
                    let got = word(at)?;
                    let n = parse_int_strict(got)
                        .ok_or_else(|| format!("word {}: `{got}` is not an integer", at + 1))?;
                    if let Some((a, b)) = range {
                        if (n as f64) < *a || (n as f64) > *b {
                            return Err(format!("word {}: {n} is not in [{a}, {b}]", at + 1));
                        }
                    }
                    at += 1;
                }
                Token::Score => {
                    let got = word(at)?;
                    let (number, used) = match got {
                        "ev" => (word(at + 1)?, 2),
                        "win" | "loss" if word(at + 1)? == "in" => (word(at + 2)?, 3),
                        _ => return Err(format!("word {}: `{got}` starts no score", at + 1)),
                    };
                    if parse_int_strict(number).is_none() {
                        return Err(format!("score `{got} … {number}` has no integer"));
                    }
                    at += used;
                }
                Token::Num((a, b)) => {
                    let got = word(at)?;
                    let n: f64 = got
                        .strip_suffix('%')
                        .unwrap_or(got)
                        .parse()
                        .map_err(|_| format!("word {}: `{got}` is not a number", at + 1))?;
                    if n < *a || n > *b {
                        return Err(format!("word {}: {n} is not in [{a}, {b}]", at + 1));
                    }
                    at += 1;
                }
                Token::Square(tok) => {
                    let text = if tok.two_words {
                        let (x, y) = (word(at)?, word(at + 1)?);
                        at += 2;
                        format!("{x},{y}")
                    } else {
                        at += 1;
                        word(at - 1)?.to_string()
                    };
                    let sq = if tok.occupied_ok {
                        let sq = parse_sq_strict(&text)
                            .ok_or_else(|| format!("`{text}` is not a square"))?;
                        if !self.in_range(sq) {
                            return Err(format!("square {text} is off the board"));
                        }
                        sq
                    } else {
                        self.check_move(&text)?
                    };
                    if let Some(list) = &tok.one_of {
                        if !list.contains(&sq) {
                            return Err(format!("square {text} is not one of {list:?}"));
                        }
                    }
                    if tok.none_of.contains(&sq) {
                        return Err(format!("square {text} is one of {:?}", tok.none_of));
                    }
                    if tok.distinct {
                        if self.distinct.contains(&sq) || distinct.contains(&sq) {
                            return Err(format!("square {text} was already given"));
                        }
                        distinct.push(sq);
                    }
                    if tok.record {
                        record.push(sq);
                    }
                }
            }
        }
        if at < words.len() {
            return Err(format!("unexpected words from `{}` on", words[at]));
        }
        self.distinct.extend(distinct);
        self.stones.extend(record);
        Ok(())
    }

    /// Checks one consumed line against an expectation; records the brain's stones.
    fn check(&mut self, expect: &Expect, line: &str) -> Result<(), String> {
        let list = |squares: &[Sq]| {
            let names: Vec<String> = squares.iter().map(|(x, y)| format!("{x},{y}")).collect();
            names.join("|")
        };
        match expect {
            Expect::Exact(text) | Expect::ExactAny(text) => {
                if line != text {
                    return Err(format!("expected `{text}`"));
                }
            }
            Expect::Prefix(text) | Expect::PrefixAny(text) => {
                if !line.starts_with(text.as_str()) {
                    return Err(format!("expected a line starting with `{text}`"));
                }
            }
            Expect::About => check_about(line)?,
            Expect::Move(allowed) => {
                let sq = self.check_move(line)?;
                if let Some(allowed) = allowed {
                    if !allowed.contains(&sq) {
                        return Err(format!("expected one of {}", list(allowed)));
                    }
                }
            }
            Expect::MoveNot(forbidden) => {
                let sq = self.check_move(line)?;
                if forbidden.contains(&sq) {
                    return Err(format!("expected a move other than {}", list(forbidden)));
                }
            }
            Expect::Moves(n) => {
                let squares = self.check_moves(line, &[*n])?;
                self.stones.extend(squares);
            }
            Expect::AnyOrder(_) => return Err("`<any-order` spans several lines".to_string()),
            Expect::Like(tokens) | Expect::LikeAny(tokens) | Expect::Find(tokens) => {
                self.check_pattern(tokens, line)?
            }
            Expect::Swap2 | Expect::Swap2Five => {
                if line != "SWAP" {
                    let counts: &[usize] = if matches!(expect, Expect::Swap2) {
                        &[1, 2]
                    } else {
                        &[1]
                    };
                    let squares = self
                        .check_moves(line, counts)
                        .map_err(|e| format!("expected `SWAP` or squares: {e}"))?;
                    self.stones.extend(squares);
                }
            }
        }
        if !expect.any_kind() || !is_info_line(line) {
            self.answered(line);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The brain process
// ---------------------------------------------------------------------------------------------

/// What the stdout reader thread reports, stamped with its arrival time.
enum Out {
    Line(Instant, String),
    Closed,
}

struct Brain {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Out>,
    stderr: Arc<Mutex<Vec<u8>>>,
    spawned: Instant,
    /// Every output line so far, with its arrival time, for failure reports.
    seen: Vec<(Instant, String)>,
    stdout_closed: bool,
    status: Option<ExitStatus>,
}

impl Brain {
    fn spawn(command: &[String]) -> Result<Brain, String> {
        let (program, args) = command.split_first().ok_or("empty brain command line")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start brain {command:?}: {e}"))?;
        let spawned = Instant::now();
        let stdout = child.stdout.take().ok_or("brain has no stdout pipe")?;
        let stderr_pipe = child.stderr.take().ok_or("brain has no stderr pipe")?;
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Out::Closed);
                        return;
                    }
                    Ok(_) => {
                        let at = Instant::now();
                        if buf.last() == Some(&b'\n') {
                            buf.pop();
                        }
                        if buf.last() == Some(&b'\r') {
                            buf.pop();
                        }
                        let line = String::from_utf8_lossy(&buf).into_owned();
                        if tx.send(Out::Line(at, line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut pipe = stderr_pipe;
            let mut chunk = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    return;
                }
                if let Ok(mut all) = sink.lock() {
                    all.extend_from_slice(&chunk[..n]);
                }
            }
        });
        let stdin = child.stdin.take();
        Ok(Brain {
            child,
            stdin,
            rx,
            stderr,
            spawned,
            seen: Vec::new(),
            stdout_closed: false,
            status: None,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or("cannot send: stdin already closed by !eof")?;
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write to the brain (exited?): {e}"))
    }

    /// The next output line that arrives before `deadline`; `None` on timeout.
    fn next_line(&mut self, deadline: Instant) -> Result<Option<(Instant, String)>, String> {
        if self.stdout_closed {
            return Err(self.closed_message());
        }
        let event = match self.rx.try_recv() {
            Ok(event) => event,
            Err(TryRecvError::Disconnected) => return Err("stdout reader vanished".to_string()),
            Err(TryRecvError::Empty) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                match self.rx.recv_timeout(wait) {
                    Ok(event) => event,
                    Err(RecvTimeoutError::Timeout) => return Ok(None),
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err("stdout reader vanished".to_string())
                    }
                }
            }
        };
        match event {
            Out::Line(at, line) => {
                self.seen.push((at, line.clone()));
                Ok(Some((at, line)))
            }
            Out::Closed => {
                self.stdout_closed = true;
                Err(self.closed_message())
            }
        }
    }

    fn poll_exit(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status
    }

    fn closed_message(&mut self) -> String {
        thread::sleep(Duration::from_millis(50));
        match self.poll_exit() {
            Some(status) => format!("the brain closed stdout and exited ({status})"),
            None => "the brain closed stdout".to_string(),
        }
    }

    /// Waits until the process exits or `deadline` passes.
    fn wait_exit(&mut self, deadline: Instant) -> Option<ExitStatus> {
        loop {
            if let Some(status) = self.poll_exit() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// All remaining output up to stdout EOF (or `deadline`), after the process exited.
    fn drain(&mut self, deadline: Instant) -> Vec<(Instant, String)> {
        let mut lines = Vec::new();
        while let Ok(Some(line)) = self.next_line(deadline) {
            lines.push(line);
        }
        lines
    }

    fn kill(&mut self) {
        if self.poll_exit().is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
        }
    }

    fn report(&self) -> String {
        let mut out = String::new();
        let skip = self.seen.len().saturating_sub(REPORT_LINES);
        let _ = writeln!(
            out,
            "  output lines ({} in all, ms since spawn):",
            self.seen.len()
        );
        for (at, line) in &self.seen[skip..] {
            let ms = at.saturating_duration_since(self.spawned).as_millis();
            let shown: String = line.chars().take(200).collect();
            let _ = writeln!(out, "    {ms:>6}  {shown}");
        }
        if let Ok(stderr) = self.stderr.lock() {
            if !stderr.is_empty() {
                let start = stderr.len().saturating_sub(REPORT_STDERR_BYTES);
                let _ = writeln!(out, "  stderr (tail):");
                for line in String::from_utf8_lossy(&stderr[start..]).lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        out
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        self.kill();
    }
}

// ---------------------------------------------------------------------------------------------
// Running one transcript
// ---------------------------------------------------------------------------------------------

/// Options shared by all transcripts of one run.
#[derive(Debug, Clone)]
struct Config {
    brain: Vec<String>,
    scale: f64,
}

impl Config {
    fn from_env() -> Config {
        let brain = match std::env::var("WUZI_BRAIN") {
            Ok(cmd) if !cmd.trim().is_empty() => {
                cmd.split_whitespace().map(str::to_string).collect()
            }
            _ => vec![env!("CARGO_BIN_EXE_pbrain-wuzi").to_string()],
        };
        let scale = match std::env::var("WUZI_TIME_SCALE") {
            Ok(s) => match s.trim().parse::<f64>() {
                Ok(v) if v > 0.0 && v.is_finite() => v,
                _ => panic!("WUZI_TIME_SCALE must be a positive number, got `{s}`"),
            },
            Err(_) => 1.0,
        };
        Config { brain, scale }
    }

    fn ms(&self, ms: u64) -> Duration {
        Duration::from_secs_f64(ms as f64 * self.scale / 1000.0)
    }
}

/// Runs one transcript against a fresh brain; `Err` holds the failure report.
fn run_transcript(config: &Config, text: &str) -> Result<(), String> {
    let steps = parse_transcript(text)?;
    let mut brain = Brain::spawn(&config.brain)?;
    let result = run_steps(config, &steps, &mut brain);
    brain.kill();
    result.map_err(|(step, msg)| match step {
        Some(step) => format!(
            "line {}: `{}`: {msg}\n{}",
            step.line,
            step.source,
            brain.report()
        ),
        None => format!("at the end: {msg}\n{}", brain.report()),
    })
}

type StepResult<'a> = Result<(), (Option<&'a Step>, String)>;

fn run_steps<'a>(config: &Config, steps: &'a [Step], brain: &mut Brain) -> StepResult<'a> {
    let mut record = Record::default();
    let mut last_send = Instant::now();
    let mut within: Option<Duration> = None;
    let mut any_output = false;
    let mut exited = false;
    for step in steps {
        let fail = |msg: String| Err((Some(step), msg));
        match &step.directive {
            Directive::Send { text, crlf } => {
                let mut bytes = text.as_bytes().to_vec();
                bytes.extend_from_slice(if *crlf { b"\r\n" } else { b"\n" });
                last_send = Instant::now();
                if let Err(msg) = brain.write(&bytes) {
                    return fail(msg);
                }
                record.sent(text);
            }
            Directive::SendBytes(bytes) => {
                last_send = Instant::now();
                if let Err(msg) = brain.write(bytes) {
                    return fail(msg);
                }
                // Complete lines among the bytes count as commands for the record.
                let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
                lines.pop();
                for line in lines {
                    let text = String::from_utf8_lossy(line);
                    record.sent(text.strip_suffix('\r').unwrap_or(&text));
                }
            }
            Directive::SendLong(n) => {
                let mut bytes = vec![b'A'; *n];
                bytes.push(b'\n');
                last_send = Instant::now();
                if let Err(msg) = brain.write(&bytes) {
                    return fail(msg);
                }
            }
            Directive::Expect(expect) => {
                let limit = within.take();
                let any_kind = expect.any_kind();
                let limit = limit.map(|d| last_send + d);
                if let Err(msg) = expect_line(config, brain, &mut record, expect, any_kind, limit) {
                    return fail(msg);
                }
            }
            Directive::Within(ms) => within = Some(config.ms(*ms)),
            Directive::Silent(ms) => {
                let deadline = Instant::now() + config.ms(*ms);
                match brain.next_line(deadline) {
                    Ok(None) => {}
                    Ok(Some((at, line))) => {
                        let ms = at.saturating_duration_since(last_send).as_millis();
                        return fail(format!(
                            "expected no output, got `{line}` ({ms} ms after the last send)"
                        ));
                    }
                    Err(msg) => return fail(format!("expected no output: {msg}")),
                }
            }
            Directive::Sleep(ms) => thread::sleep(config.ms(*ms)),
            Directive::Eof => brain.stdin = None,
            Directive::Exit(ms) => {
                let deadline = last_send + config.ms(*ms);
                match brain.wait_exit(deadline) {
                    None => {
                        return fail(format!(
                            "the brain did not exit within {} ms",
                            config.ms(*ms).as_millis()
                        ))
                    }
                    Some(status) if !status.success() => {
                        return fail(format!("the brain exited with {status}, expected 0"))
                    }
                    Some(_) => {}
                }
                exited = true;
                let rest = brain.drain(Instant::now() + config.ms(END_GRACE_MS));
                for (at, line) in rest {
                    if !is_info_line(&line) || at > last_send {
                        return fail(format!("expected no more output, got `{line}`"));
                    }
                }
            }
            Directive::RssBelow(limit) => {
                if let Err(msg) = check_rss(brain, *limit) {
                    return fail(msg);
                }
            }
            Directive::AnyOutput => any_output = true,
        }
    }
    if within.is_some() {
        return Err((
            None,
            "`!within` is not followed by an expectation".to_string(),
        ));
    }
    if !exited {
        brain.stdin = None;
        match brain.wait_exit(Instant::now() + config.ms(END_GRACE_MS)) {
            Some(status) if !status.success() => {
                return Err((
                    None,
                    format!("after stdin EOF the brain exited with {status}"),
                ))
            }
            Some(_) => {}
            None => {
                eprintln!("note: the brain did not exit within 2 s of stdin EOF; killed");
                brain.kill();
            }
        }
        let rest = brain.drain(Instant::now() + config.ms(END_GRACE_MS));
        if !any_output {
            if let Some((_, line)) = rest.iter().find(|(_, line)| !is_info_line(line)) {
                return Err((
                    None,
                    format!("unexpected extra output `{line}` (one answer per request)"),
                ));
            }
        }
    }
    Ok(())
}

/// Reads lines until one that the expectation looks at, then checks it.
fn expect_line(
    config: &Config,
    brain: &mut Brain,
    record: &mut Record,
    expect: &Expect,
    any_kind: bool,
    limit: Option<Instant>,
) -> Result<(), String> {
    let deadline = limit.unwrap_or_else(Instant::now) + config.ms(DEFAULT_WAIT_MS);
    if let Expect::AnyOrder(parts) = expect {
        let mut pending: Vec<&Expect> = parts.iter().collect();
        while !pending.is_empty() {
            let (_, line) = next_answer(config, brain, false, limit, deadline)?;
            let mut errors = Vec::new();
            let found = pending.iter().position(|e| match record.check(e, &line) {
                Ok(()) => true,
                Err(msg) => {
                    errors.push(msg);
                    false
                }
            });
            match found {
                Some(index) => {
                    pending.remove(index);
                }
                None => {
                    let shown: String = line.chars().take(200).collect();
                    return Err(format!(
                        "`{shown}` matches none of the remaining expectations: {}",
                        errors.join("; ")
                    ));
                }
            }
        }
        return Ok(());
    }
    if let Expect::Find(_) = expect {
        loop {
            let (_, line) = next_answer(config, brain, true, limit, deadline)?;
            let shown: String = line.chars().take(200).collect();
            match record.check(expect, &line) {
                Ok(()) => return Ok(()),
                Err(_) if is_info_line(&line) => continue,
                Err(e) => return Err(format!("{e}; got `{shown}` before a matching line")),
            }
        }
    }
    let (_, line) = next_answer(config, brain, any_kind, limit, deadline)?;
    let shown: String = line.chars().take(200).collect();
    record
        .check(expect, &line)
        .map_err(|e| format!("{e}; got `{shown}`"))
}

/// The next line an expectation looks at (MESSAGE/DEBUG skipped unless `any_kind`), checked
/// against the `!within` limit.
fn next_answer(
    config: &Config,
    brain: &mut Brain,
    any_kind: bool,
    limit: Option<Instant>,
    deadline: Instant,
) -> Result<(Instant, String), String> {
    loop {
        let (at, line) = match brain.next_line(deadline)? {
            Some(got) => got,
            None => {
                let waited = config.ms(DEFAULT_WAIT_MS).as_millis();
                let after = if limit.is_some() {
                    " after the !within limit"
                } else {
                    ""
                };
                return Err(format!("no answer line within {waited} ms{after}"));
            }
        };
        if !any_kind && is_info_line(&line) {
            continue;
        }
        if let Some(limit) = limit {
            if at > limit {
                let late = at.saturating_duration_since(limit).as_millis();
                return Err(format!("`{line}` came {late} ms too late"));
            }
        }
        return Ok((at, line));
    }
}

#[cfg(target_os = "linux")]
fn check_rss(brain: &mut Brain, limit: u64) -> Result<(), String> {
    let path = format!("/proc/{}/status", brain.child.id());
    let status = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no VmHWM in {path}"))?;
    let bytes = kb * 1024;
    if bytes >= limit {
        return Err(format!("peak RSS {bytes} bytes is not below {limit}"));
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn check_rss(_brain: &mut Brain, _limit: u64) -> Result<(), String> {
    eprintln!("note: !rss-below skipped (Linux only)");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

fn transcript_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-tests")
}

/// The transcript files to run, sorted; `WUZI_TRANSCRIPT` selects some by name.
fn transcript_files() -> Vec<PathBuf> {
    let dir = transcript_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().map_or(false, |ext| ext == "txt"))
        .collect();
    files.sort();
    if let Ok(names) = std::env::var("WUZI_TRANSCRIPT") {
        let wanted: Vec<&str> = names
            .split(',')
            .map(|n| n.trim().trim_end_matches(".txt"))
            .filter(|n| !n.is_empty())
            .collect();
        for name in &wanted {
            assert!(
                dir.join(format!("{name}.txt")).is_file(),
                "WUZI_TRANSCRIPT: no transcript {name}.txt in {}",
                dir.display()
            );
        }
        files.retain(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .map_or(false, |s| wanted.contains(&s))
        });
    }
    files
}

#[test]
fn transcripts() {
    let config = Config::from_env();
    let files = transcript_files();
    assert!(!files.is_empty(), "no transcripts found");
    let jobs = std::env::var("WUZI_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .filter(|&j| j > 0)
        .unwrap_or(2)
        .min(files.len());
    let queue = Mutex::new(files.iter().collect::<VecDeque<_>>());
    let results = Mutex::new(Vec::new());
    thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let next = queue.lock().map(|mut q| q.pop_front());
                let path = match next {
                    Ok(Some(path)) => path,
                    _ => return,
                };
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                let started = Instant::now();
                let result = match std::fs::read_to_string(path) {
                    Ok(text) => run_transcript(&config, &text),
                    Err(e) => Err(format!("cannot read: {e}")),
                };
                let ms = started.elapsed().as_millis();
                eprintln!(
                    "transcript {name}: {} ({ms} ms)",
                    if result.is_ok() { "ok" } else { "FAILED" }
                );
                if let Ok(mut all) = results.lock() {
                    all.push((name, result));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("a transcript worker panicked");
    results.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(results.len(), files.len(), "a transcript worker panicked");
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(name, r)| {
            r.as_ref()
                .err()
                .map(|e| format!("protocol-tests/{name}: {e}"))
        })
        .collect();
    if !failures.is_empty() {
        panic!(
            "{} of {} transcripts failed:\n\n{}",
            failures.len(),
            results.len(),
            failures.join("\n")
        );
    }
}

/// The runner must be able to fail: a wrong expectation is reported with its line.
#[test]
fn runner_reports_a_wrong_expectation() {
    let config = Config {
        scale: 0.2,
        ..Config::from_env()
    };
    let err = run_transcript(&config, "> START 15\n< NOT-OK\n")
        .expect_err("`< NOT-OK` after `START 15` must fail");
    // Line 2 with a working brain; line 1 if it exits at once; no line if it cannot start.
    assert!(
        err.starts_with("line ") || err.starts_with("cannot start"),
        "unexpected failure report: {err}"
    );
}

#[test]
fn unknown_directives_are_rejected() {
    let bad_lines = [
        "<mvoe",
        "! sleep 5",
        "!within",
        "<move 7,7|x",
        "!send-bytes zz",
        "<moves 0",
        "<any-order <move",
        "<any-order <move ;; > BEGIN",
        "<like %foo",
        "<find",
        "<any-order <move ;; <find x",
        "!within 100\n!sleep 5",
    ];
    for bad in bad_lines {
        let err = parse_transcript(&format!("# ok\n\n{bad}\n<move\n")).expect_err(bad);
        assert!(err.starts_with("line 3:"), "{bad}: {err}");
    }
    let err = parse_transcript("> BEGIN\n!within 100\n").expect_err("dangling !within");
    assert!(err.starts_with("line 2:"), "{err}");
}

#[test]
fn output_checks() {
    assert!(check_about(r#"name="wuzi", version="0.1", author="A B", country="CZ""#).is_ok());
    assert!(check_about(r#"name="x",version="1",author="y",country="z",www="w""#).is_ok());
    assert!(check_about(r#"version="1", name="x", author="y", country="z""#).is_err());
    assert!(check_about(r#"name="x", version="1", author="y""#).is_err());
    assert!(check_about(r#"name=x, version="1", author="y", country="z""#).is_err());
    assert_eq!(parse_sq_strict("7,12"), Some((7, 12)));
    for bad in ["7, 12", " 7,12", "7,12 ", "7,", ",7", "7,1,2", "a,b", "7"] {
        assert_eq!(parse_sq_strict(bad), None, "{bad}");
    }
    let mut record = Record::default();
    for line in [
        "START 15",
        "BOARD",
        "7,7,1",
        "8,8,2",
        "x,y,z",
        "DONE",
        "TURN 9, 9",
    ] {
        record.sent(line);
    }
    assert!(record.check(&Expect::Move(None), "7,7").is_err());
    assert!(record.check(&Expect::Move(None), "9,9").is_err());
    assert!(record.check(&Expect::Move(None), "15,0").is_err());
    assert!(record.check(&Expect::MoveNot(vec![(1, 1)]), "1,1").is_err());
    assert!(record
        .check(&Expect::Move(Some(vec![(2, 2)])), "2,2")
        .is_ok());
    assert!(record.check(&Expect::Moves(2), "3,3 3,3").is_err());
    assert!(record.check(&Expect::Swap2Five, "4,4 5,5").is_err());
    assert!(record.check(&Expect::Swap2, "4,4 5,5").is_ok());
    assert!(record.check(&Expect::Move(None), "5,5").is_err());
    record.sent("TAKEBACK 5,5");
    assert!(record.check(&Expect::Exact("OK".to_string()), "OK").is_ok());
    assert!(record.check(&Expect::Move(None), "5,5").is_ok());
    assert!(is_info_line("MESSAGE depth 3") && is_info_line("debug x"));
    let pattern = |p: &str| parse_pattern(p).expect("pattern");
    let like = |p: &str| Expect::Like(pattern(p));
    assert!(record
        .check(
            &like("MESSAGE multipv %int * ev %int pv %sq ..."),
            "MESSAGE multipv 1 depth ev 5 pv 6,6 1 2"
        )
        .is_ok());
    assert!(record.check(&like("a %int"), "a 1 b").is_err());
    assert!(record.check(&like("a %int"), "a").is_err());
    assert!(record.check(&like("a %int"), "a x").is_err());
    assert!(record.check(&like("%sq"), "7,7").is_err(), "occupied");
    assert!(record.check(&like("%sq?"), "7,7").is_ok());
    assert!(record.check(&like("%sq{6,6|6,7}"), "6,8").is_err());
    assert!(record.check(&like("%sq!{6,6|6,7}"), "6,6").is_err());
    assert!(record.check(&like("M %xy~ N %xy~"), "M 3 3 N 3 3").is_err());
    assert!(record.check(&like("M %xy~"), "M 3 3").is_ok());
    assert!(
        record.check(&like("M %xy~"), "M 3 3").is_err(),
        "given before"
    );
    record.sent("ABOUT");
    assert!(
        record.check(&like("M %xy~"), "M 3 3").is_ok(),
        "a send resets it"
    );
    assert!(record.check(&like("%sq+ %sq+"), "10,10 11,11").is_ok());
    assert!(
        record.check(&Expect::Move(None), "11,11").is_err(),
        "recorded"
    );
    assert!(record.check(&like("{YES|NO} %int[1,8]"), "NO 8").is_ok());
    for good in ["ev -12 x", "win in 5 x", "loss in 4 x"] {
        assert!(record.check(&like("%score x"), good).is_ok(), "{good}");
    }
    for bad in ["ev x", "win 5 x", "draw x"] {
        assert!(record.check(&like("%score x"), bad).is_err(), "{bad}");
    }
    assert!(record.check(&like("{YES|NO}"), "MAYBE").is_err());
    assert!(record.check(&like("%int[1,8]"), "9").is_err());
    assert!(record
        .check(&like("!0.0% %num[0,50]"), "0.1% 12.5%")
        .is_ok());
    assert!(record.check(&like("!0.0%"), "0.0%").is_err());
    assert!(record.check(&like("%num[0,50]"), "50.1%").is_err());
    for bad in ["%foo", "... x", "%sq{x}", "%sqz", "%int[1]", "%num[a,b]"] {
        assert!(parse_pattern(bad).is_err(), "{bad}");
    }
    assert!(!is_info_line("MESSAGE") && !is_info_line("7,7"));
}

/// A correct transcript passes and a wrong one fails against a tiny shell brain.
#[cfg(unix)]
#[test]
fn runner_against_a_shell_brain() {
    let script = "while IFS= read -r l; do case \"$l\" in \
                  START*) echo OK;; BEGIN) echo 'MESSAGE hi'; echo 7,7;; END) exit 0;; \
                  ABOUT) echo 'name=\"sh\", version=\"1\", author=\"a\", country=\"b\"';; \
                  esac; done";
    let config = Config {
        brain: vec!["sh".to_string(), "-c".to_string(), script.to_string()],
        scale: 1.0,
    };
    let good = "> START 15\n< OK\n> BEGIN\n!within 2000\n<move 7,7|1,1\n> END\n!exit 500\n";
    run_transcript(&config, good).expect("the good transcript must pass");
    let good = "!send-bytes 53 54 41 52 54 20 39 0a\n< OK\n> BEGIN\n> ABOUT\n\
                <any-order <about ;; <move-not 1,1\n!silent 100\n";
    run_transcript(&config, good).expect("the second good transcript must pass");
    for bad in [
        "> START 15\n< OK\n> BEGIN\n<= 7,7\n",
        "> START 15\n< OK\n> BEGIN\n<move-not 7,7\n",
        "> START 15\n> BEGIN\n< OK\n",
        "> START 15\n!silent 300\n",
        "> BEGIN\n<move\n",
        "> START 15\n< OK\n> BEGIN\n<move\n> BEGIN\n<move\n",
        "> START 6\n< OK\n> BEGIN\n<move\n",
        "> START 15\n< OK\n> BEGIN\n!within 0\n<move\n",
        "> START 15\n< OK\n!eof\n!exit 200\n> START 15\n",
    ] {
        assert!(run_transcript(&config, bad).is_err(), "must fail:\n{bad}");
    }
}

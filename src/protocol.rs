//! Text ⇄ types for the Gomocup (Piskvork) brain protocol and its Yixin extensions, nothing else.
//!
//! The session's reader thread hands every input line to [`Parser::feed`], which returns a typed
//! [`Command`] (multi-line `BOARD`/`YXBOARD`/`SWAP2BOARD … DONE` blocks arrive as one value) or a
//! [`ParseError`] the session turns into `ERROR …`/`UNKNOWN …`. Everything the brain prints is a
//! [`Reply`] whose `Display` is the exact line. The module is pure: no I/O, no board knowledge,
//! no range checks (board size and coordinate limits belong to the session).
//!
//! Input comes from a manager we do not control, so nothing here may panic: lines may be 100 KB
//! long, hold U+FFFD from lossy decoding, or control characters. Text echoed back in errors is
//! cut short, and every reply is forced onto one line.

use std::fmt;

/// Longest piece of input quoted back inside an error or problem message, in characters.
const MAX_QUOTE_CHARS: usize = 64;

/// Longest free text (`ERROR`, `UNKNOWN`, `MESSAGE`, `DEBUG`, ABOUT values) a reply may carry,
/// in characters, so that a huge garbage line is never echoed back whole.
pub const MAX_REPLY_TEXT_CHARS: usize = 200;

/// A 0-based protocol coordinate as sent by the manager (x = column, y = row). Not range-checked here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coord {
    /// Column, 0-based (the protocol's X, width direction).
    pub x: i32,
    /// Row, 0-based (the protocol's Y, height direction).
    pub y: i32,
}

impl Coord {
    /// Builds a coordinate from its column and row.
    pub const fn new(x: i32, y: i32) -> Self {
        Coord { x, y }
    }
}

impl fmt::Display for Coord {
    /// The protocol form `x,y`, without spaces (what Piskvork's `sscanf("%d,%d")` and
    /// c-gomoku-cli's strict parser accept).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// Field value of a BOARD line: 1 own (side to move), 2 opponent, 3 winning-line/wall stone (continuous game).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Field `1`: a stone of the brain, i.e. of the side to move.
    Own,
    /// Field `2`: a stone of the opponent.
    Opponent,
    /// Field `3`: a stone of an already scored line (continuous game); blocks the square.
    Wall,
}

/// One INFO key, typed. Keys are case-insensitive. Numeric values that fail to parse become `Invalid`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    /// `timeout_turn`: limit per move in ms (0 = as fast as possible).
    TimeoutTurn(i64),
    /// `timeout_match`: limit for the whole game in ms (0 = no limit).
    TimeoutMatch(i64),
    /// `time_left`: remaining match time in ms; may be negative; 2147483647 = unlimited.
    TimeLeft(i64),
    /// `max_memory`: memory limit in bytes (0 = no limit).
    MaxMemory(i64),
    /// `game_type`: 0 human, 1 brain, 2 tournament, 3 network tournament.
    GameType(i64),
    /// `rule`: bitmask (1 exactly five, 2 continuous, 4 renju, 8 caro); Yixin uses 2 for renju.
    Rule(i64),
    /// `thread_num` (Yixin-Board / c-gomoku-cli extension): number of search threads.
    ThreadNum(i64),
    /// `max_node` (Yixin-Board extension): stop after this many nodes.
    MaxNode(i64),
    /// `max_depth` (Yixin-Board extension): stop after this depth.
    MaxDepth(i64),
    /// `pondering` (Yixin-Board / Rapfi extension): 1 = think on the opponent's time.
    Pondering(i64),
    /// `show_detail` (Yixin-Board): bit 0 = realtime analysis lines (`MESSAGE REALTIME …`).
    ShowDetail(i64),
    /// `hash_size` (Yixin-Board): hash table size in KB (0 = the default).
    HashSize(i64),
    /// `time_increment` (Yixin-Board): ms added to the match clock after each move.
    TimeIncrement(i64),
    /// `start_depth` (Yixin-Board `search from N`): first depth of the iterative deepening.
    StartDepth(i64),
    /// `nbestsym` (Yixin-Board): 0 = `YXNBEST` lists one move of each set of symmetric moves.
    NBestSym(i64),
    /// Yixin-Board settings wuzi accepts without a use: `caution_factor`, `checkmate`,
    /// `vcthread`, `usedatabase`, `thread_split_depth` (the key, and the value).
    Accepted(&'static str, i64),
    /// `INFO folder <path>`: the rest of the line, spaces kept (trimmed at both ends).
    Folder(String),
    /// `INFO evaluate x,y` (debug only; value kept as text).
    Evaluate(String),
    /// `INFO param_<name> <integer>` (wuzi extension for tuners): a search parameter (see
    /// [`crate::params`]); the name is not checked here.
    Param(String, i64),
    /// A known key with a value that is not a valid integer (or missing), e.g. `INFO timeout_turn abc`, `INFO rule`.
    /// A `folder` or `evaluate` key without a value also lands here.
    Invalid {
        /// The key, lower-cased.
        key: String,
        /// The value as sent (trimmed), possibly empty.
        value: String,
    },
    /// Any other key (lower-cased), to be ignored. A bare `INFO` gives an empty key and value.
    Unknown {
        /// The key, lower-cased.
        key: String,
        /// The rest of the line (trimmed), possibly empty.
        value: String,
    },
}

/// A complete command. Multi-line blocks (BOARD, YXBOARD, SWAP2BOARD ... DONE) arrive as one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START n` (square), `start W H` (Yixin-Board, two numbers), `RECTSTART W,H`.
    /// `START W,H` is accepted too. Sizes are not range-checked here.
    Start {
        /// Board width (number of columns, the X range).
        width: i32,
        /// Board height (number of rows, the Y range).
        height: i32,
    },
    /// `RESTART`: clear the board, keep the size.
    Restart,
    /// `BEGIN`: play the first move on the current board.
    Begin,
    /// `TURN x,y`: the opponent played there; answer with a move.
    Turn(Coord),
    /// BOARD ... DONE (`reply: true`) or YXBOARD ... DONE (`reply: false`: position only, no move).
    /// `stones` in the order received; `problems` are human-readable descriptions of skipped lines
    /// (malformed like `10,10`, `x,y,z`, `10,10,4`), one per bad line, e.g. "skipped malformed BOARD line `10,10`".
    Board {
        /// The stones, in the order received (move order for Piskvork and GomocupJudge).
        stones: Vec<(Coord, Field)>,
        /// One description per skipped line.
        problems: Vec<String>,
        /// `true` for BOARD (answer with a move), `false` for YXBOARD (no answer).
        reply: bool,
    },
    /// SWAP2BOARD, then 0, 3 or 5 bare `x,y` lines, then DONE.
    /// The number of stones is not checked here.
    Swap2Board {
        /// The opening stones, in move order (1st black, 2nd white, ...).
        stones: Vec<Coord>,
        /// One description per skipped line.
        problems: Vec<String>,
    },
    /// `INFO key value`: never answered.
    Info(Info),
    /// `END`: exit as soon as possible, print nothing.
    End,
    /// `ABOUT`: answer with the brain's `name="…", version="…", …` line.
    About,
    /// `TAKEBACK x,y`: remove that stone (undo), answer `OK`.
    Takeback(Coord),
    /// `PLAY x,y`: play that square (answer to a `SUGGEST`), echo it.
    Play(Coord),
    /// `YXSTOP` or `STOP`.
    Stop,
    /// `YXSHOWFORBID`.
    ShowForbid,
    /// `YXHASHCLEAR`.
    HashClear,
    /// `YXNBEST n`: search, report the n best moves with their lines, play the best.
    NBest(i64),
    /// `YXBLOCK` (`undo: false`) or `YXBLOCKUNDO` (`undo: true`), bare `x,y` lines, `DONE`:
    /// squares added to (removed from) the moves the search never plays.
    Block {
        /// The squares, in the order received.
        squares: Vec<Coord>,
        /// One description per skipped line.
        problems: Vec<String>,
        /// `true` for YXBLOCKUNDO.
        undo: bool,
    },
    /// `YXBLOCKRESET`: no square is blocked any more.
    BlockReset,
    /// `YXBALANCEONE n` (`two: false`) or `YXBALANCETWO n`: a move (two moves) after which the
    /// position is balanced, `n` being the target score of the side to move (0 when absent).
    Balance {
        /// `true` for YXBALANCETWO.
        two: bool,
        /// The target score.
        bias: i64,
    },
    /// `YXSWAP2STEP1` … `YXSWAP2STEP3` (Yixin-Board's swap2 with the brain as a player).
    Swap2Step(u8),
    /// `YXSOOSORVSTEP1` … `YXSOOSORVSTEP6` (Yixin-Board's Soosorv-8 renju opening). Steps 2
    /// to 6 carry the stones so far as bare `x,y` lines up to `DONE`; steps 4 and 5 the number
    /// of fifth moves on the command line.
    Soosorv {
        /// 1 to 6.
        step: u8,
        /// The declared number of fifth moves (steps 4 and 5), else 0.
        count: i64,
        /// The stones in move order (step 6: the four opening stones, then the proposed
        /// fifth moves).
        stones: Vec<Coord>,
        /// One description per skipped line.
        problems: Vec<String>,
    },
    /// `YXSEARCHDEFEND`: which moves do not lose, then the best of them is played.
    SearchDefend,
    /// `YXSHOWHASHUSAGE`.
    ShowHashUsage,
    /// `YXHASHDUMP path` (the path on the same line or on the next one).
    HashDump(String),
    /// `YXHASHLOAD path` (the path on the same line or on the next one).
    HashLoad(String),
    /// `YXSHOWINFO`: the GUI asks for the engine's limits and wants realtime lines.
    ShowInfo,
    /// One of Yixin's database commands (the name, upper case), its path line or `x,y` block
    /// already consumed.
    Database(&'static str),
    /// A Yixin command wuzi knows but does not implement (`YXBLOCKPATH`, …), its block consumed.
    Unsupported(&'static str),
}

/// What follows the line of a Yixin extension command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    /// Nothing.
    None,
    /// A path: the rest of the line, or the next line when the rest is empty.
    Path,
    /// Bare `x,y` lines up to `DONE`.
    List,
}

/// Yixin's database commands with what follows them (Yixin-Board `main.c`, Rapfi
/// `gomocup.cpp`). wuzi has no database: they are read whole and answered by the session.
const DATABASE_COMMANDS: [(&str, Tail); 23] = [
    ("YXQUERYDATABASEALL", Tail::List),
    ("YXQUERYDATABASEALLT", Tail::List),
    ("YXQUERYDATABASEONE", Tail::List),
    ("YXQUERYDATABASETEXT", Tail::List),
    ("YXEDITTVDDATABASE", Tail::List),
    ("YXEDITTEXTDATABASE", Tail::List),
    ("YXEDITLABELDATABASE", Tail::List),
    ("YXDELETEDATABASEONE", Tail::List),
    ("YXDELETEDATABASEALL", Tail::List),
    ("YXSETBESTMOVEDATABASE", Tail::List),
    ("YXCLEARBESTMOVEDATABASE", Tail::List),
    ("YXSETDATABASE", Tail::Path),
    ("YXDBTOPOS", Tail::Path),
    ("YXDBTOTXT", Tail::Path),
    ("YXDBTOTXTALL", Tail::Path),
    ("YXTXTTODB", Tail::Path),
    ("YXLIBTODB", Tail::Path),
    ("YXDBTOLIB", Tail::Path),
    ("YXDBSPLIT", Tail::Path),
    ("YXDBMERGE", Tail::Path),
    ("YXSAVEDATABASE", Tail::None),
    ("YXDBCHECK", Tail::None),
    ("YXDBFIX", Tail::None),
];

/// Yixin commands that are read whole (with their `x,y` block) but not implemented.
const UNSUPPORTED_COMMANDS: [(&str, Tail); 3] = [
    ("YXBLOCKPATH", Tail::List),
    ("YXBLOCKPATHUNDO", Tail::List),
    ("YXBLOCKPATHRESET", Tail::None),
];

/// Why a line is not a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The first word is not a command we know (session answers `UNKNOWN <Display>`). Holds the word as sent.
    Unknown(String),
    /// A known command with bad arguments (session answers `ERROR <Display>`), e.g. `START abc`, `TURN 3`, `TURN a,b`.
    Malformed {
        /// The command, upper case (`"START"`, `"TURN"`, …).
        command: &'static str,
        /// What was wrong, quoting (a short prefix of) the argument.
        reason: String,
    },
}

impl fmt::Display for ParseError {
    /// `unknown command FOO` or `START: expected a board size, got `abc``. Quoted input is cut
    /// to a short prefix.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown(word) => write!(f, "unknown command {}", excerpt(word)),
            ParseError::Malformed { command, reason } => write!(f, "{}: {}", command, reason),
        }
    }
}

impl std::error::Error for ParseError {}

/// The keywords that start a command. `DONE` is not one: it only ends a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keyword {
    Start,
    RectStart,
    Restart,
    Begin,
    Turn,
    Board,
    YxBoard,
    Swap2Board,
    Info,
    End,
    About,
    Takeback,
    Play,
    YxStop,
    Stop,
    YxShowForbid,
    YxHashClear,
    YxNBest,
    YxBlock,
    YxBlockUndo,
    YxBlockReset,
    YxBalanceOne,
    YxBalanceTwo,
    YxSwap2Step(u8),
    YxSoosorvStep(u8),
    YxSearchDefend,
    YxShowHashUsage,
    YxHashDump,
    YxHashLoad,
    YxShowInfo,
    /// Index into [`DATABASE_COMMANDS`].
    Database(usize),
    /// Index into [`UNSUPPORTED_COMMANDS`].
    Unsupported(usize),
}

/// Spelling of each keyword, matched case-insensitively.
const KEYWORDS: [(&str, Keyword); 37] = [
    ("START", Keyword::Start),
    ("RECTSTART", Keyword::RectStart),
    ("RESTART", Keyword::Restart),
    ("BEGIN", Keyword::Begin),
    ("TURN", Keyword::Turn),
    ("BOARD", Keyword::Board),
    ("YXBOARD", Keyword::YxBoard),
    ("SWAP2BOARD", Keyword::Swap2Board),
    ("INFO", Keyword::Info),
    ("END", Keyword::End),
    ("ABOUT", Keyword::About),
    ("TAKEBACK", Keyword::Takeback),
    ("PLAY", Keyword::Play),
    ("YXSTOP", Keyword::YxStop),
    ("STOP", Keyword::Stop),
    ("YXSHOWFORBID", Keyword::YxShowForbid),
    ("YXHASHCLEAR", Keyword::YxHashClear),
    ("YXNBEST", Keyword::YxNBest),
    ("YXBLOCK", Keyword::YxBlock),
    ("YXBLOCKUNDO", Keyword::YxBlockUndo),
    ("YXBLOCKRESET", Keyword::YxBlockReset),
    ("YXBALANCEONE", Keyword::YxBalanceOne),
    ("YXBALANCETWO", Keyword::YxBalanceTwo),
    ("YXSWAP2STEP1", Keyword::YxSwap2Step(1)),
    ("YXSWAP2STEP2", Keyword::YxSwap2Step(2)),
    ("YXSWAP2STEP3", Keyword::YxSwap2Step(3)),
    ("YXSOOSORVSTEP1", Keyword::YxSoosorvStep(1)),
    ("YXSOOSORVSTEP2", Keyword::YxSoosorvStep(2)),
    ("YXSOOSORVSTEP3", Keyword::YxSoosorvStep(3)),
    ("YXSOOSORVSTEP4", Keyword::YxSoosorvStep(4)),
    ("YXSOOSORVSTEP5", Keyword::YxSoosorvStep(5)),
    ("YXSOOSORVSTEP6", Keyword::YxSoosorvStep(6)),
    ("YXSEARCHDEFEND", Keyword::YxSearchDefend),
    ("YXSHOWHASHUSAGE", Keyword::YxShowHashUsage),
    ("YXHASHDUMP", Keyword::YxHashDump),
    ("YXHASHLOAD", Keyword::YxHashLoad),
    ("YXSHOWINFO", Keyword::YxShowInfo),
];

fn keyword(word: &str) -> Option<Keyword> {
    let find = |table: &[(&str, Tail)]| {
        table
            .iter()
            .position(|(name, _)| name.eq_ignore_ascii_case(word))
    };
    KEYWORDS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(word))
        .map(|&(_, kw)| kw)
        .or_else(|| find(&DATABASE_COMMANDS).map(Keyword::Database))
        .or_else(|| find(&UNSUPPORTED_COMMANDS).map(Keyword::Unsupported))
}

/// What follows the line of a command with this keyword.
fn tail(kw: Keyword) -> Tail {
    match kw {
        Keyword::YxBlock | Keyword::YxBlockUndo => Tail::List,
        Keyword::YxSoosorvStep(step) if step >= 2 => Tail::List,
        Keyword::YxHashDump | Keyword::YxHashLoad => Tail::Path,
        Keyword::Database(i) => DATABASE_COMMANDS[i].1,
        Keyword::Unsupported(i) => UNSUPPORTED_COMMANDS[i].1,
        _ => Tail::None,
    }
}

/// The block being assembled between a block keyword and `DONE`.
#[derive(Debug)]
enum Block {
    /// BOARD (`reply: true`) or YXBOARD (`reply: false`).
    Board {
        stones: Vec<(Coord, Field)>,
        problems: Vec<String>,
        reply: bool,
    },
    Swap2 {
        stones: Vec<Coord>,
        problems: Vec<String>,
    },
    /// A Yixin command followed by bare `x,y` lines: the keyword, the rest of its line, the
    /// squares so far.
    List {
        kw: Keyword,
        args: String,
        squares: Vec<Coord>,
        problems: Vec<String>,
    },
    /// A Yixin command whose path comes on the next line.
    Path { kw: Keyword },
}

/// Stateful line parser: feeds one line at a time and assembles BOARD/YXBOARD/SWAP2BOARD blocks.
#[derive(Default, Debug)]
pub struct Parser {
    block: Option<Block>,
}

impl Parser {
    /// A parser outside any block.
    pub fn new() -> Self {
        Parser::default()
    }

    /// Feed one line (already decoded lossily from bytes; may still end with '\r' -- strip it; any
    /// surrounding whitespace is insignificant). Returns None for an empty line and for lines that are
    /// part of an unfinished block; Some(Ok(cmd)) for a complete command; Some(Err(e)) for a bad line.
    ///
    /// Inside a block, a line starting with a command keyword (anything but `DONE`) drops the
    /// unfinished block and is parsed as that command (checklist item 31); any other bad line is
    /// recorded in the block's `problems` and skipped.
    pub fn feed(&mut self, line: &str) -> Option<Result<Command, ParseError>> {
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        let (word, args) = split_first_word(line);
        if let Some(Block::Path { kw }) = self.block {
            self.block = None;
            if keyword(word).is_none() || word.eq_ignore_ascii_case("DONE") {
                return Some(Ok(path_command(kw, line)));
            }
            // A keyword: the path never came; obey the command.
        }
        if let Some(block) = self.block.as_mut() {
            if word.eq_ignore_ascii_case("DONE") {
                return self.block.take().map(|block| Ok(finish_block(block)));
            }
            if keyword(word).is_none() {
                add_block_line(block, line);
                return None;
            }
            // A keyword: the manager gave up on the block; forget it and obey the command.
            self.block = None;
        }
        let kw = match keyword(word) {
            Some(kw) => kw,
            None => return Some(Err(ParseError::Unknown(word.to_string()))),
        };
        match kw {
            Keyword::Board | Keyword::YxBoard => {
                self.block = Some(Block::Board {
                    stones: Vec::new(),
                    problems: Vec::new(),
                    reply: kw == Keyword::Board,
                });
                None
            }
            Keyword::Swap2Board => {
                self.block = Some(Block::Swap2 {
                    stones: Vec::new(),
                    problems: Vec::new(),
                });
                None
            }
            _ => match tail(kw) {
                Tail::None => Some(parse_simple(kw, args)),
                Tail::Path if args.is_empty() => {
                    self.block = Some(Block::Path { kw });
                    None
                }
                Tail::Path => Some(Ok(path_command(kw, args))),
                Tail::List => {
                    self.block = Some(Block::List {
                        kw,
                        args: args.to_string(),
                        squares: Vec::new(),
                        problems: Vec::new(),
                    });
                    None
                }
            },
        }
    }

    /// True while inside a BOARD/YXBOARD/SWAP2BOARD block (used on EOF to know a block was cut off).
    pub fn in_block(&self) -> bool {
        self.block.is_some()
    }
}

/// Splits a trimmed, non-empty line into its first word and the trimmed rest.
fn split_first_word(line: &str) -> (&str, &str) {
    match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    }
}

/// Parses a one-line command (every keyword except the block openers).
fn parse_simple(kw: Keyword, args: &str) -> Result<Command, ParseError> {
    match kw {
        Keyword::Start => parse_start(args),
        Keyword::RectStart => match parse_pair(args) {
            Some((width, height)) => Ok(Command::Start { width, height }),
            None => Err(ParseError::Malformed {
                command: "RECTSTART",
                reason: format!("expected `width,height`, got {}", quoted(args)),
            }),
        },
        Keyword::Restart => Ok(Command::Restart),
        Keyword::Begin => Ok(Command::Begin),
        Keyword::Turn => coord_arg("TURN", args).map(Command::Turn),
        Keyword::Takeback => coord_arg("TAKEBACK", args).map(Command::Takeback),
        Keyword::Play => coord_arg("PLAY", args).map(Command::Play),
        Keyword::Info => Ok(Command::Info(parse_info(args))),
        Keyword::End => Ok(Command::End),
        Keyword::About => Ok(Command::About),
        Keyword::YxStop | Keyword::Stop => Ok(Command::Stop),
        Keyword::YxShowForbid => Ok(Command::ShowForbid),
        Keyword::YxHashClear => Ok(Command::HashClear),
        Keyword::YxNBest => match args.parse::<i64>() {
            Ok(n) => Ok(Command::NBest(n)),
            Err(_) => Err(ParseError::Malformed {
                command: "YXNBEST",
                reason: format!("expected a number of moves, got {}", quoted(args)),
            }),
        },
        Keyword::YxBlockReset => Ok(Command::BlockReset),
        Keyword::YxBalanceOne | Keyword::YxBalanceTwo => {
            let two = kw == Keyword::YxBalanceTwo;
            let bias = if args.is_empty() {
                Ok(0)
            } else {
                args.parse::<i64>()
            };
            match bias {
                Ok(bias) => Ok(Command::Balance { two, bias }),
                Err(_) => Err(ParseError::Malformed {
                    command: if two { "YXBALANCETWO" } else { "YXBALANCEONE" },
                    reason: format!("expected a score, got {}", quoted(args)),
                }),
            }
        }
        Keyword::YxSwap2Step(step) => Ok(Command::Swap2Step(step)),
        Keyword::YxSoosorvStep(step) => Ok(Command::Soosorv {
            step,
            count: 0,
            stones: Vec::new(),
            problems: Vec::new(),
        }),
        Keyword::YxSearchDefend => Ok(Command::SearchDefend),
        Keyword::YxShowHashUsage => Ok(Command::ShowHashUsage),
        Keyword::YxShowInfo => Ok(Command::ShowInfo),
        Keyword::Database(i) => Ok(Command::Database(DATABASE_COMMANDS[i].0)),
        Keyword::Unsupported(i) => Ok(Command::Unsupported(UNSUPPORTED_COMMANDS[i].0)),
        // Commands with a tail are built by `Parser::feed`; reaching here would be a bug.
        Keyword::YxBlock | Keyword::YxBlockUndo | Keyword::YxHashDump | Keyword::YxHashLoad => {
            Err(ParseError::Malformed {
                command: "YXBLOCK",
                reason: "command with a tail parsed as a single line".to_string(),
            })
        }
        // Block openers are handled by `Parser::feed`; reaching here would be a bug, but a
        // wrong answer beats a panic on the protocol thread.
        Keyword::Board | Keyword::YxBoard | Keyword::Swap2Board => Err(ParseError::Malformed {
            command: "BOARD",
            reason: "block command parsed as a single line".to_string(),
        }),
    }
}

/// `START n` → n×n; `START W H` (Yixin-Board) or `START W,H` → W×H.
fn parse_start(args: &str) -> Result<Command, ParseError> {
    if let Ok(n) = args.parse::<i32>() {
        return Ok(Command::Start {
            width: n,
            height: n,
        });
    }
    match parse_pair(args) {
        Some((width, height)) => Ok(Command::Start { width, height }),
        None => Err(ParseError::Malformed {
            command: "START",
            reason: format!("expected a board size, got {}", quoted(args)),
        }),
    }
}

/// Two integers separated by a comma (spaces allowed around it) or by whitespace alone.
fn parse_pair(args: &str) -> Option<(i32, i32)> {
    if args.contains(',') {
        let coord = parse_coord(args)?;
        return Some((coord.x, coord.y));
    }
    let mut words = args.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some(a), Some(b), None) => Some((a.parse().ok()?, b.parse().ok()?)),
        _ => None,
    }
}

/// `x,y` with optional spaces around the comma and the numbers; anything else is `None`.
fn parse_coord(text: &str) -> Option<Coord> {
    let mut parts = text.split(',');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(x), Some(y), None) => Some(Coord {
            x: x.trim().parse().ok()?,
            y: y.trim().parse().ok()?,
        }),
        _ => None,
    }
}

fn coord_arg(command: &'static str, args: &str) -> Result<Coord, ParseError> {
    parse_coord(args).ok_or_else(|| ParseError::Malformed {
        command,
        reason: format!("expected coordinates `x,y`, got {}", quoted(args)),
    })
}

/// `INFO key value…`; never fails, because INFO must never be answered.
fn parse_info(args: &str) -> Info {
    let (key, value) = match args.split_once(char::is_whitespace) {
        Some((key, value)) => (key, value.trim()),
        None => (args, ""),
    };
    let key = key.to_ascii_lowercase();
    let number: fn(i64) -> Info = match key.as_str() {
        "timeout_turn" => Info::TimeoutTurn,
        "timeout_match" => Info::TimeoutMatch,
        "time_left" => Info::TimeLeft,
        "max_memory" => Info::MaxMemory,
        "game_type" => Info::GameType,
        "rule" => Info::Rule,
        "thread_num" => Info::ThreadNum,
        "max_node" => Info::MaxNode,
        "max_depth" => Info::MaxDepth,
        "pondering" => Info::Pondering,
        "show_detail" => Info::ShowDetail,
        "hash_size" => Info::HashSize,
        "time_increment" => Info::TimeIncrement,
        "start_depth" => Info::StartDepth,
        "nbestsym" => Info::NBestSym,
        "caution_factor" => |v| Info::Accepted("caution_factor", v),
        "checkmate" => |v| Info::Accepted("checkmate", v),
        "vcthread" => |v| Info::Accepted("vcthread", v),
        "usedatabase" => |v| Info::Accepted("usedatabase", v),
        "thread_split_depth" => |v| Info::Accepted("thread_split_depth", v),
        "folder" | "evaluate" if value.is_empty() => {
            return Info::Invalid {
                key,
                value: String::new(),
            }
        }
        "folder" => return Info::Folder(value.to_string()),
        "evaluate" => return Info::Evaluate(value.to_string()),
        _ if key.len() > "param_".len() && key.starts_with("param_") => {
            return match value.parse::<i64>() {
                Ok(n) => Info::Param(key["param_".len()..].to_string(), n),
                Err(_) => Info::Invalid {
                    key,
                    value: value.to_string(),
                },
            }
        }
        _ => {
            return Info::Unknown {
                key,
                value: value.to_string(),
            }
        }
    };
    // i64's parser takes an optional leading '+' or '-' and rejects overflow and blanks.
    match value.parse::<i64>() {
        Ok(n) => number(n),
        Err(_) => Info::Invalid {
            key,
            value: value.to_string(),
        },
    }
}

/// Records one non-keyword, non-DONE line of a block: a stone, or a problem.
fn add_block_line(block: &mut Block, line: &str) {
    match block {
        Block::Board {
            stones,
            problems,
            reply,
        } => {
            let name = if *reply { "BOARD" } else { "YXBOARD" };
            match parse_board_line(line) {
                Ok(stone) => stones.push(stone),
                Err(why) => {
                    problems.push(format!("skipped {} {} line {}", why, name, quoted(line)))
                }
            }
        }
        Block::Swap2 { stones, problems } => match parse_coord(line) {
            Some(coord) => stones.push(coord),
            None => problems.push(format!(
                "skipped malformed SWAP2BOARD line {}",
                quoted(line)
            )),
        },
        Block::List {
            kw,
            squares,
            problems,
            ..
        } => match parse_coord(line) {
            Some(coord) => squares.push(coord),
            None => problems.push(format!(
                "skipped malformed {} line {}",
                keyword_name(*kw),
                quoted(line)
            )),
        },
        // Never stored in `block` while lines arrive (see `Parser::feed`).
        Block::Path { .. } => {}
    }
}

/// The spelling of a keyword (for messages).
fn keyword_name(kw: Keyword) -> &'static str {
    match kw {
        Keyword::Database(i) => DATABASE_COMMANDS[i].0,
        Keyword::Unsupported(i) => UNSUPPORTED_COMMANDS[i].0,
        _ => KEYWORDS
            .iter()
            .find(|(_, k)| *k == kw)
            .map_or("?", |(name, _)| name),
    }
}

/// The command of a keyword followed by a path.
fn path_command(kw: Keyword, path: &str) -> Command {
    let path = path.trim().to_string();
    match kw {
        Keyword::YxHashDump => Command::HashDump(path),
        Keyword::YxHashLoad => Command::HashLoad(path),
        Keyword::Database(i) => Command::Database(DATABASE_COMMANDS[i].0),
        _ => Command::Unsupported(keyword_name(kw)),
    }
}

/// `x,y,field` with spaces allowed around the numbers; the error is the adjective for the
/// problem message.
fn parse_board_line(line: &str) -> Result<(Coord, Field), &'static str> {
    let mut parts = line.split(',').map(str::trim);
    let (x, y, field) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(x), Some(y), Some(field), None) => (x, y, field),
        _ => return Err("malformed"),
    };
    let coord = match (x.parse(), y.parse()) {
        (Ok(x), Ok(y)) => Coord { x, y },
        _ => return Err("malformed"),
    };
    let field = match field.parse::<i32>() {
        Ok(1) => Field::Own,
        Ok(2) => Field::Opponent,
        Ok(3) => Field::Wall,
        Ok(_) => return Err("out-of-range field in"),
        Err(_) => return Err("malformed"),
    };
    Ok((coord, field))
}

fn finish_block(block: Block) -> Command {
    match block {
        Block::Board {
            stones,
            problems,
            reply,
        } => Command::Board {
            stones,
            problems,
            reply,
        },
        Block::Swap2 { stones, problems } => Command::Swap2Board { stones, problems },
        Block::List {
            kw,
            args,
            squares,
            mut problems,
        } => match kw {
            Keyword::YxBlock | Keyword::YxBlockUndo => Command::Block {
                squares,
                problems,
                undo: kw == Keyword::YxBlockUndo,
            },
            Keyword::YxSoosorvStep(step) => {
                let count = if step == 4 || step == 5 {
                    match args.parse::<i64>() {
                        Ok(n) => n,
                        Err(_) => {
                            problems.push(format!(
                                "YXSOOSORVSTEP{step}: expected the number of fifth moves, got {}; 1 assumed",
                                quoted(&args)
                            ));
                            1
                        }
                    }
                } else {
                    0
                };
                Command::Soosorv {
                    step,
                    count,
                    stones: squares,
                    problems,
                }
            }
            Keyword::Database(i) => Command::Database(DATABASE_COMMANDS[i].0),
            _ => Command::Unsupported(keyword_name(kw)),
        },
        Block::Path { kw } => path_command(kw, ""),
    }
}

/// At most [`MAX_QUOTE_CHARS`] characters of `text`, with `…` when cut. Cuts on char boundaries.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// `` `text` `` (shortened), or `nothing` for an empty argument.
fn quoted(text: &str) -> String {
    if text.is_empty() {
        "nothing".to_string()
    } else {
        format!("`{}`", excerpt(text))
    }
}

/// What the brain prints. `Display` gives the exact line without the newline.
///
/// Free text is forced onto one line (control characters become spaces) and cut to
/// [`MAX_REPLY_TEXT_CHARS`] characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A move, `7,7` (no spaces).
    Move(Coord),
    /// `OK`.
    Ok,
    /// `ERROR <msg>`.
    Error(String),
    /// `UNKNOWN <msg>`.
    Unknown(String),
    /// `MESSAGE <text>`.
    Message(String),
    /// `DEBUG <text>`.
    Debug(String),
    /// `name="..", version="..", author="..", country=".."` (double quotes in values become `'`).
    About {
        /// Brain name.
        name: String,
        /// Version string.
        version: String,
        /// Author(s).
        author: String,
        /// Country.
        country: String,
    },
    /// `SWAP`: answer to SWAP2BOARD with 3 or 5 stones.
    Swap,
    /// `x,y x,y x,y` (space separated) for SWAP2BOARD answers.
    Moves(Vec<Coord>),
    /// Yixin: `FORBID ` + each square as 2-digit x then 2-digit y, then `.`; e.g. `FORBID 09121011.`;
    /// an empty list gives `FORBID .`. Coordinates are expected in 0..=99.
    Forbid(Vec<Coord>),
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Move(coord) => write!(f, "{}", coord),
            Reply::Ok => f.write_str("OK"),
            Reply::Error(text) => write!(f, "ERROR {}", one_line(text)),
            Reply::Unknown(text) => write!(f, "UNKNOWN {}", one_line(text)),
            Reply::Message(text) => write!(f, "MESSAGE {}", one_line(text)),
            Reply::Debug(text) => write!(f, "DEBUG {}", one_line(text)),
            Reply::About {
                name,
                version,
                author,
                country,
            } => write!(
                f,
                "name=\"{}\", version=\"{}\", author=\"{}\", country=\"{}\"",
                about_value(name),
                about_value(version),
                about_value(author),
                about_value(country)
            ),
            Reply::Swap => f.write_str("SWAP"),
            Reply::Moves(coords) => {
                for (i, coord) in coords.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{}", coord)?;
                }
                Ok(())
            }
            Reply::Forbid(coords) => {
                f.write_str("FORBID ")?;
                for coord in coords {
                    write!(f, "{:02}{:02}", coord.x, coord.y)?;
                }
                f.write_str(".")
            }
        }
    }
}

/// `text` on one line (control characters → spaces), cut to [`MAX_REPLY_TEXT_CHARS`]
/// characters, the last three being `...` when cut.
fn one_line(text: &str) -> String {
    let clean = text.chars().map(|c| if c.is_control() { ' ' } else { c });
    if text.chars().count() <= MAX_REPLY_TEXT_CHARS {
        clean.collect()
    } else {
        let mut out: String = clean.take(MAX_REPLY_TEXT_CHARS - 3).collect();
        out.push_str("...");
        out
    }
}

/// An ABOUT value: one line, and no `"` that would end the quoted value early.
fn about_value(text: &str) -> String {
    one_line(text).replace('"', "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(x: i32, y: i32) -> Coord {
        Coord::new(x, y)
    }

    /// Feeds all lines to a fresh parser and collects every answer.
    fn feed_all(lines: &[&str]) -> Vec<Result<Command, ParseError>> {
        let mut parser = Parser::new();
        lines.iter().filter_map(|line| parser.feed(line)).collect()
    }

    /// Parses one line with a fresh parser.
    fn one(line: &str) -> Option<Result<Command, ParseError>> {
        Parser::new().feed(line)
    }

    fn ok(line: &str) -> Command {
        match one(line) {
            Some(Ok(cmd)) => cmd,
            other => panic!("`{}` gave {:?}", line, other),
        }
    }

    fn malformed(line: &str) -> (&'static str, String) {
        match one(line) {
            Some(Err(ParseError::Malformed { command, reason })) => (command, reason),
            other => panic!("`{}` gave {:?}", line, other),
        }
    }

    fn info(line: &str) -> Info {
        match ok(line) {
            Command::Info(info) => info,
            other => panic!("`{}` gave {:?}", line, other),
        }
    }

    fn start(width: i32, height: i32) -> Command {
        Command::Start { width, height }
    }

    // ---- lexical rules ----

    #[test]
    fn empty_and_blank_lines_give_nothing() {
        assert_eq!(one(""), None);
        assert_eq!(one("\r"), None);
        assert_eq!(one("   \t  "), None);
        assert_eq!(one(" \r\n"), None);
    }

    #[test]
    fn case_insensitive_commands() {
        assert_eq!(ok("TURN 7,7"), Command::Turn(c(7, 7)));
        assert_eq!(ok("turn 7,7"), Command::Turn(c(7, 7)));
        assert_eq!(ok("Turn 7,7"), Command::Turn(c(7, 7)));
        assert_eq!(ok("tUrN 7,7"), Command::Turn(c(7, 7)));
        assert_eq!(ok("begin"), Command::Begin);
        assert_eq!(ok("yxStop"), Command::Stop);
    }

    #[test]
    fn cr_lf_and_surrounding_whitespace_are_stripped() {
        assert_eq!(ok("TURN 7,7\r"), Command::Turn(c(7, 7)));
        assert_eq!(ok("TURN 7,7\r\n"), Command::Turn(c(7, 7)));
        assert_eq!(ok("  TURN 7,7  \r"), Command::Turn(c(7, 7)));
        assert_eq!(ok("BEGIN\r"), Command::Begin);
        assert_eq!(ok("\tEND \r"), Command::End);
        assert_eq!(ok("START 15\r"), start(15, 15));
    }

    // ---- START / RECTSTART / RESTART ----

    #[test]
    fn start_square() {
        assert_eq!(ok("START 20"), start(20, 20));
        assert_eq!(ok("start 15"), start(15, 15));
        assert_eq!(ok("START +15"), start(15, 15));
    }

    #[test]
    fn start_sizes_are_not_range_checked() {
        assert_eq!(ok("START 4"), start(4, 4));
        assert_eq!(ok("START 0"), start(0, 0));
        assert_eq!(ok("START -3"), start(-3, -3));
        assert_eq!(ok("START 100"), start(100, 100));
    }

    #[test]
    fn start_two_numbers() {
        assert_eq!(ok("start 15 15"), start(15, 15));
        assert_eq!(ok("start 20 15"), start(20, 15));
        assert_eq!(ok("START 20,15"), start(20, 15));
        assert_eq!(ok("START 20 , 15"), start(20, 15));
        assert_eq!(ok("START  20 \t 15 "), start(20, 15));
    }

    #[test]
    fn start_malformed() {
        assert_eq!(
            malformed("START abc"),
            ("START", "expected a board size, got `abc`".to_string())
        );
        assert_eq!(
            malformed("START"),
            ("START", "expected a board size, got nothing".to_string())
        );
        assert_eq!(malformed("START 15 15 15").0, "START");
        assert_eq!(malformed("START 15,15,15").0, "START");
        assert_eq!(malformed("START 15x15").0, "START");
        assert_eq!(malformed("START 1.5").0, "START");
        assert_eq!(malformed("START 99999999999").0, "START");
        assert_eq!(malformed("START 15,").0, "START");
    }

    #[test]
    fn start_error_display() {
        let err = Parser::new().feed("START abc").and_then(Result::err);
        assert_eq!(
            err.map(|e| e.to_string()),
            Some("START: expected a board size, got `abc`".to_string())
        );
    }

    #[test]
    fn rectstart() {
        assert_eq!(ok("RECTSTART 20,20"), start(20, 20));
        assert_eq!(ok("RECTSTART 30,20"), start(30, 20));
        assert_eq!(ok("rectstart 30, 20"), start(30, 20));
        assert_eq!(ok("RectStart 30 20"), start(30, 20));
        assert_eq!(
            malformed("RECTSTART 20"),
            ("RECTSTART", "expected `width,height`, got `20`".to_string())
        );
        assert_eq!(malformed("RECTSTART").0, "RECTSTART");
        assert_eq!(malformed("RECTSTART a,b").0, "RECTSTART");
    }

    #[test]
    fn argument_free_commands() {
        assert_eq!(ok("RESTART"), Command::Restart);
        assert_eq!(ok("restart"), Command::Restart);
        assert_eq!(ok("BEGIN"), Command::Begin);
        assert_eq!(ok("END"), Command::End);
        assert_eq!(ok("end"), Command::End);
        assert_eq!(ok("ABOUT"), Command::About);
        assert_eq!(ok("about"), Command::About);
        assert_eq!(ok("YXSTOP"), Command::Stop);
        assert_eq!(ok("STOP"), Command::Stop);
        assert_eq!(ok("stop"), Command::Stop);
        assert_eq!(ok("YXSHOWFORBID"), Command::ShowForbid);
        assert_eq!(ok("yxshowforbid"), Command::ShowForbid);
        assert_eq!(ok("YXHASHCLEAR"), Command::HashClear);
        assert_eq!(ok("yxhashclear"), Command::HashClear);
    }

    #[test]
    fn extra_arguments_of_argument_free_commands_are_ignored() {
        assert_eq!(ok("END now"), Command::End);
        assert_eq!(ok("BEGIN 1"), Command::Begin);
    }

    // ---- TURN / TAKEBACK / PLAY ----

    #[test]
    fn turn_coordinates_with_spaces() {
        assert_eq!(ok("TURN 7,7"), Command::Turn(c(7, 7)));
        assert_eq!(ok("TURN 7, 7"), Command::Turn(c(7, 7)));
        assert_eq!(ok("TURN 7 ,7"), Command::Turn(c(7, 7)));
        assert_eq!(ok("TURN  7 , 7 "), Command::Turn(c(7, 7)));
        assert_eq!(ok("TURN\t10,11"), Command::Turn(c(10, 11)));
        assert_eq!(ok("TURN 0,19"), Command::Turn(c(0, 19)));
    }

    #[test]
    fn turn_negative_and_large_coordinates_parse() {
        assert_eq!(ok("TURN -1,0"), Command::Turn(c(-1, 0)));
        assert_eq!(ok("TURN 15,3"), Command::Turn(c(15, 3)));
        assert_eq!(
            ok("TURN 2147483647,-2147483648"),
            Command::Turn(c(i32::MAX, i32::MIN))
        );
    }

    #[test]
    fn turn_malformed() {
        assert_eq!(
            malformed("TURN 3"),
            ("TURN", "expected coordinates `x,y`, got `3`".to_string())
        );
        assert_eq!(
            malformed("TURN a,b"),
            ("TURN", "expected coordinates `x,y`, got `a,b`".to_string())
        );
        assert_eq!(
            malformed("TURN"),
            (
                "TURN",
                "expected coordinates `x,y`, got nothing".to_string()
            )
        );
        assert_eq!(malformed("TURN 1,2,3").0, "TURN");
        assert_eq!(malformed("TURN 7 7").0, "TURN");
        assert_eq!(malformed("TURN 7,").0, "TURN");
        assert_eq!(malformed("TURN ,7").0, "TURN");
        assert_eq!(malformed("TURN 2147483648,0").0, "TURN");
        assert_eq!(malformed("TURN 7,7x").0, "TURN");
        assert_eq!(malformed("TURN 7.0,7").0, "TURN");
    }

    #[test]
    fn takeback_and_play() {
        assert_eq!(ok("TAKEBACK 3,4"), Command::Takeback(c(3, 4)));
        assert_eq!(ok("takeback 3, 4"), Command::Takeback(c(3, 4)));
        assert_eq!(ok("PLAY 9,9"), Command::Play(c(9, 9)));
        assert_eq!(ok("play 9 , 9"), Command::Play(c(9, 9)));
        assert_eq!(malformed("TAKEBACK").0, "TAKEBACK");
        assert_eq!(malformed("TAKEBACK x").0, "TAKEBACK");
        assert_eq!(malformed("PLAY 1").0, "PLAY");
        assert_eq!(malformed("PLAY a,1").0, "PLAY");
    }

    // ---- unknown commands ----

    #[test]
    fn unknown_commands_keep_the_word_as_sent() {
        assert_eq!(
            one("FOO bar"),
            Some(Err(ParseError::Unknown("FOO".to_string())))
        );
        assert_eq!(
            one("yxresign 3"),
            Some(Err(ParseError::Unknown("yxresign".to_string())))
        );
        assert_eq!(
            one("10,10"),
            Some(Err(ParseError::Unknown("10,10".to_string())))
        );
        assert_eq!(
            one("SUGGEST 1,1"),
            Some(Err(ParseError::Unknown("SUGGEST".to_string())))
        );
        assert_eq!(
            one("START15"),
            Some(Err(ParseError::Unknown("START15".to_string())))
        );
    }

    #[test]
    fn done_outside_a_block_is_unknown() {
        assert_eq!(
            one("DONE"),
            Some(Err(ParseError::Unknown("DONE".to_string())))
        );
        assert_eq!(
            one("done\r"),
            Some(Err(ParseError::Unknown("done".to_string())))
        );
    }

    #[test]
    fn unknown_display() {
        assert_eq!(
            ParseError::Unknown("FOO".to_string()).to_string(),
            "unknown command FOO"
        );
        let long = "X".repeat(1000);
        let shown = ParseError::Unknown(long).to_string();
        assert_eq!(shown, format!("unknown command {}…", "X".repeat(64)));
    }

    // ---- BOARD / YXBOARD ----

    #[test]
    fn board_block_in_move_order() {
        let got = feed_all(&["BOARD", "10,10,1", "10,11,2", "11,11,1", "9,10,2", "DONE"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![
                    (c(10, 10), Field::Own),
                    (c(10, 11), Field::Opponent),
                    (c(11, 11), Field::Own),
                    (c(9, 10), Field::Opponent),
                ],
                problems: vec![],
                reply: true,
            })]
        );
    }

    #[test]
    fn board_lines_return_none_until_done() {
        let mut parser = Parser::new();
        assert!(!parser.in_block());
        assert_eq!(parser.feed("BOARD\r"), None);
        assert!(parser.in_block());
        assert_eq!(parser.feed("7,7,2\r"), None);
        assert_eq!(parser.feed(""), None);
        assert!(parser.in_block());
        assert_eq!(
            parser.feed("DONE\r"),
            Some(Ok(Command::Board {
                stones: vec![(c(7, 7), Field::Opponent)],
                problems: vec![],
                reply: true,
            }))
        );
        assert!(!parser.in_block());
        assert_eq!(parser.feed("TURN 1,1"), Some(Ok(Command::Turn(c(1, 1)))));
    }

    #[test]
    fn empty_board_block() {
        let got = feed_all(&["BOARD", "DONE"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![],
                problems: vec![],
                reply: true,
            })]
        );
    }

    #[test]
    fn board_lower_case_spaces_and_wall() {
        let got = feed_all(&["board", " 7 , 7 , 1 ", "8,8, 2\r", "0,0,3", "done"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![
                    (c(7, 7), Field::Own),
                    (c(8, 8), Field::Opponent),
                    (c(0, 0), Field::Wall),
                ],
                problems: vec![],
                reply: true,
            })]
        );
    }

    #[test]
    fn board_bad_lines_are_reported_and_skipped() {
        let got = feed_all(&[
            "BOARD",
            "10,10",
            "1,1,1",
            "x,y,z",
            "10,10,4",
            "garbage here",
            "2,2,2",
            "10,10,0",
            "1,2,3,4",
            "-1,5,1",
            "DONE",
        ]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![
                    (c(1, 1), Field::Own),
                    (c(2, 2), Field::Opponent),
                    (c(-1, 5), Field::Own),
                ],
                problems: vec![
                    "skipped malformed BOARD line `10,10`".to_string(),
                    "skipped malformed BOARD line `x,y,z`".to_string(),
                    "skipped out-of-range field in BOARD line `10,10,4`".to_string(),
                    "skipped malformed BOARD line `garbage here`".to_string(),
                    "skipped out-of-range field in BOARD line `10,10,0`".to_string(),
                    "skipped malformed BOARD line `1,2,3,4`".to_string(),
                ],
                reply: true,
            })]
        );
    }

    #[test]
    fn yxboard_block_does_not_ask_for_a_reply() {
        let got = feed_all(&["YXBOARD", "7,7,1", "bad", "DONE"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![(c(7, 7), Field::Own)],
                problems: vec!["skipped malformed YXBOARD line `bad`".to_string()],
                reply: false,
            })]
        );
        assert_eq!(
            feed_all(&["yxboard", "done"]),
            vec![Ok(Command::Board {
                stones: vec![],
                problems: vec![],
                reply: false,
            })]
        );
    }

    #[test]
    fn block_aborted_by_end() {
        let mut parser = Parser::new();
        assert_eq!(parser.feed("BOARD"), None);
        assert_eq!(parser.feed("7,7,1"), None);
        assert_eq!(parser.feed("END"), Some(Ok(Command::End)));
        assert!(!parser.in_block());
        // The dropped block leaves nothing behind: DONE is now outside any block.
        assert_eq!(
            parser.feed("DONE"),
            Some(Err(ParseError::Unknown("DONE".to_string())))
        );
    }

    #[test]
    fn block_aborted_by_other_keywords() {
        let cases: Vec<(&str, Result<Command, ParseError>)> = vec![
            ("START 15", Ok(start(15, 15))),
            ("turn 1,1", Ok(Command::Turn(c(1, 1)))),
            ("INFO rule 4", Ok(Command::Info(Info::Rule(4)))),
            ("ABOUT", Ok(Command::About)),
            ("YXSTOP", Ok(Command::Stop)),
            ("BEGIN", Ok(Command::Begin)),
            ("RESTART", Ok(Command::Restart)),
            (
                "TURN a,b",
                Err(ParseError::Malformed {
                    command: "TURN",
                    reason: "expected coordinates `x,y`, got `a,b`".to_string(),
                }),
            ),
        ];
        for (line, expected) in cases {
            let mut parser = Parser::new();
            assert_eq!(parser.feed("BOARD"), None);
            assert_eq!(parser.feed("3,3,1"), None);
            assert_eq!(parser.feed(line), Some(expected), "line `{}`", line);
            assert!(!parser.in_block(), "line `{}`", line);
        }
    }

    #[test]
    fn board_inside_board_starts_a_new_block() {
        let got = feed_all(&["BOARD", "1,1,1", "BOARD", "2,2,2", "DONE"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![(c(2, 2), Field::Opponent)],
                problems: vec![],
                reply: true,
            })]
        );
        let got = feed_all(&["SWAP2BOARD", "1,1", "YXBOARD", "2,2,1", "DONE"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![(c(2, 2), Field::Own)],
                problems: vec![],
                reply: false,
            })]
        );
    }

    #[test]
    fn unknown_words_inside_a_block_are_problems_not_aborts() {
        let got = feed_all(&["BOARD", "FOO", "1,1,1", "DONE"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![(c(1, 1), Field::Own)],
                problems: vec!["skipped malformed BOARD line `FOO`".to_string()],
                reply: true,
            })]
        );
    }

    #[test]
    fn unfinished_block_is_visible_for_eof() {
        let mut parser = Parser::new();
        assert_eq!(parser.feed("BOARD"), None);
        assert_eq!(parser.feed("1,1,1"), None);
        assert!(parser.in_block());
        let mut parser = Parser::new();
        assert_eq!(parser.feed("SWAP2BOARD"), None);
        assert!(parser.in_block());
    }

    // ---- SWAP2BOARD ----

    #[test]
    fn swap2board_empty() {
        assert_eq!(
            feed_all(&["SWAP2BOARD", "DONE"]),
            vec![Ok(Command::Swap2Board {
                stones: vec![],
                problems: vec![],
            })]
        );
    }

    #[test]
    fn swap2board_three_stones() {
        assert_eq!(
            feed_all(&["swap2board\r", "7,7\r", "7, 8", " 8 ,8 ", "done\r"]),
            vec![Ok(Command::Swap2Board {
                stones: vec![c(7, 7), c(7, 8), c(8, 8)],
                problems: vec![],
            })]
        );
    }

    #[test]
    fn swap2board_five_stones() {
        assert_eq!(
            feed_all(&["SWAP2BOARD", "7,7", "7,8", "8,8", "6,6", "9,9", "DONE"]),
            vec![Ok(Command::Swap2Board {
                stones: vec![c(7, 7), c(7, 8), c(8, 8), c(6, 6), c(9, 9)],
                problems: vec![],
            })]
        );
    }

    #[test]
    fn swap2board_bad_lines_and_abort() {
        assert_eq!(
            feed_all(&["SWAP2BOARD", "7,7,1", "7,7", "x", "DONE"]),
            vec![Ok(Command::Swap2Board {
                stones: vec![c(7, 7)],
                problems: vec![
                    "skipped malformed SWAP2BOARD line `7,7,1`".to_string(),
                    "skipped malformed SWAP2BOARD line `x`".to_string(),
                ],
            })]
        );
        assert_eq!(
            feed_all(&["SWAP2BOARD", "7,7", "END"]),
            vec![Ok(Command::End)]
        );
    }

    // ---- INFO ----

    #[test]
    fn info_integer_keys() {
        assert_eq!(info("INFO timeout_turn 1000"), Info::TimeoutTurn(1000));
        assert_eq!(
            info("INFO timeout_match 180000"),
            Info::TimeoutMatch(180000)
        );
        assert_eq!(
            info("INFO time_left 2147483647"),
            Info::TimeLeft(2147483647)
        );
        assert_eq!(info("INFO time_left -500"), Info::TimeLeft(-500));
        assert_eq!(
            info("INFO max_memory 367001600"),
            Info::MaxMemory(367001600)
        );
        assert_eq!(info("INFO game_type 3"), Info::GameType(3));
        assert_eq!(info("INFO rule 4"), Info::Rule(4));
        assert_eq!(info("INFO thread_num 8"), Info::ThreadNum(8));
        assert_eq!(info("INFO max_node 100000"), Info::MaxNode(100000));
        assert_eq!(info("INFO max_depth 6"), Info::MaxDepth(6));
        assert_eq!(info("INFO pondering 1"), Info::Pondering(1));
    }

    #[test]
    fn info_keys_and_command_are_case_insensitive() {
        assert_eq!(info("info TIMEOUT_TURN 5000"), Info::TimeoutTurn(5000));
        assert_eq!(info("Info Rule 1\r"), Info::Rule(1));
        assert_eq!(info("INFO  rule   9  "), Info::Rule(9));
        assert_eq!(info("INFO\trule\t8"), Info::Rule(8));
    }

    #[test]
    fn info_integer_signs_and_limits() {
        assert_eq!(info("INFO time_left +1500"), Info::TimeLeft(1500));
        assert_eq!(info("INFO max_memory 0"), Info::MaxMemory(0));
        assert_eq!(
            info("INFO time_left 9223372036854775807"),
            Info::TimeLeft(i64::MAX)
        );
        assert_eq!(
            info("INFO time_left 9223372036854775808"),
            Info::Invalid {
                key: "time_left".to_string(),
                value: "9223372036854775808".to_string(),
            }
        );
    }

    #[test]
    fn info_invalid_values() {
        assert_eq!(
            info("INFO timeout_turn abc"),
            Info::Invalid {
                key: "timeout_turn".to_string(),
                value: "abc".to_string(),
            }
        );
        assert_eq!(
            info("INFO rule"),
            Info::Invalid {
                key: "rule".to_string(),
                value: String::new(),
            }
        );
        assert_eq!(
            info("INFO RULE 1 2"),
            Info::Invalid {
                key: "rule".to_string(),
                value: "1 2".to_string(),
            }
        );
        assert_eq!(
            info("INFO max_memory 1.5"),
            Info::Invalid {
                key: "max_memory".to_string(),
                value: "1.5".to_string(),
            }
        );
        assert_eq!(
            info("INFO folder"),
            Info::Invalid {
                key: "folder".to_string(),
                value: String::new(),
            }
        );
    }

    #[test]
    fn info_folder_keeps_spaces() {
        assert_eq!(
            info("INFO folder C:/Some Dir/with spaces"),
            Info::Folder("C:/Some Dir/with spaces".to_string())
        );
        assert_eq!(
            info("INFO FOLDER   /tmp/a  b/c  \r"),
            Info::Folder("/tmp/a  b/c".to_string())
        );
        // The path keeps its case; only the key is lower-cased.
        assert_eq!(info("INFO folder /Data"), Info::Folder("/Data".to_string()));
    }

    #[test]
    fn info_evaluate_keeps_text() {
        assert_eq!(info("INFO evaluate 7,8"), Info::Evaluate("7,8".to_string()));
        assert_eq!(
            info("INFO evaluate"),
            Info::Invalid {
                key: "evaluate".to_string(),
                value: String::new(),
            }
        );
    }

    #[test]
    fn info_search_parameters() {
        assert_eq!(
            info("INFO param_rfp_margin 300"),
            Info::Param("rfp_margin".into(), 300)
        );
        assert_eq!(
            info("INFO PARAM_No_Such -5"),
            Info::Param("no_such".into(), -5)
        );
        assert_eq!(
            info("INFO param_rfp_margin x"),
            Info::Invalid {
                key: "param_rfp_margin".into(),
                value: "x".into()
            }
        );
        assert_eq!(
            info("INFO param_ 3"),
            Info::Unknown {
                key: "param_".into(),
                value: "3".into()
            }
        );
    }

    #[test]
    fn info_unknown_keys() {
        assert_eq!(
            info("INFO foo 12"),
            Info::Unknown {
                key: "foo".to_string(),
                value: "12".to_string(),
            }
        );
        assert_eq!(
            info("INFO thread_stack 1024"),
            Info::Unknown {
                key: "thread_stack".to_string(),
                value: "1024".to_string(),
            }
        );
    }

    #[test]
    fn info_yixin_keys() {
        assert_eq!(info("INFO Hash_Size 1024"), Info::HashSize(1024));
        assert_eq!(info("INFO show_detail 3"), Info::ShowDetail(3));
        assert_eq!(info("INFO time_increment 500"), Info::TimeIncrement(500));
        assert_eq!(info("INFO start_depth 4"), Info::StartDepth(4));
        assert_eq!(info("info nbestsym 1"), Info::NBestSym(1));
        assert_eq!(
            info("INFO caution_factor 2"),
            Info::Accepted("caution_factor", 2)
        );
        for key in ["checkmate", "vcthread", "usedatabase", "thread_split_depth"] {
            match info(&format!("INFO {key} 1")) {
                Info::Accepted(k, 1) => assert_eq!(k, key),
                other => panic!("{key}: {other:?}"),
            }
        }
        assert_eq!(
            info("INFO caution_factor"),
            Info::Invalid {
                key: "caution_factor".to_string(),
                value: String::new(),
            }
        );
    }

    // ---- Yixin analysis commands ----

    #[test]
    fn yixin_one_line_commands() {
        assert_eq!(ok("YXNBEST 3"), Command::NBest(3));
        assert_eq!(malformed("yxnbest x").0, "YXNBEST");
        assert_eq!(malformed("yxnbest").0, "YXNBEST");
        assert_eq!(ok("yxblockreset"), Command::BlockReset);
        assert_eq!(
            ok("YXBALANCEONE -30"),
            Command::Balance {
                two: false,
                bias: -30
            }
        );
        assert_eq!(ok("yxbalancetwo"), Command::Balance { two: true, bias: 0 });
        assert_eq!(malformed("YXBALANCETWO 1.5").0, "YXBALANCETWO");
        assert_eq!(ok("yxswap2step2"), Command::Swap2Step(2));
        assert_eq!(
            ok("YXSOOSORVSTEP1"),
            Command::Soosorv {
                step: 1,
                count: 0,
                stones: vec![],
                problems: vec![],
            }
        );
        assert_eq!(ok("yxsearchdefend"), Command::SearchDefend);
        assert_eq!(ok("YXSHOWHASHUSAGE"), Command::ShowHashUsage);
        assert_eq!(ok("yxshowinfo"), Command::ShowInfo);
        assert_eq!(ok("YXDBCHECK"), Command::Database("YXDBCHECK"));
        assert_eq!(
            ok("yxblockpathreset"),
            Command::Unsupported("YXBLOCKPATHRESET")
        );
    }

    #[test]
    fn yixin_blocks_of_squares() {
        assert_eq!(
            feed_all(&["YXBLOCK", "7,7", "8, 8", "7,7,1", "DONE"]),
            vec![Ok(Command::Block {
                squares: vec![c(7, 7), c(8, 8)],
                problems: vec!["skipped malformed YXBLOCK line `7,7,1`".to_string()],
                undo: false,
            })]
        );
        assert_eq!(
            feed_all(&["yxblockundo", "3,4", "done"]),
            vec![Ok(Command::Block {
                squares: vec![c(3, 4)],
                problems: vec![],
                undo: true,
            })]
        );
        assert_eq!(
            feed_all(&["YXSOOSORVSTEP5 3", "7,7", "8,8", "7,9", "9,7", "DONE"]),
            vec![Ok(Command::Soosorv {
                step: 5,
                count: 3,
                stones: vec![c(7, 7), c(8, 8), c(7, 9), c(9, 7)],
                problems: vec![],
            })]
        );
        match &feed_all(&["YXSOOSORVSTEP4 x", "7,7", "DONE"])[..] {
            [Ok(Command::Soosorv {
                step: 4,
                count: 1,
                problems,
                ..
            })] => assert_eq!(problems.len(), 1),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            feed_all(&["yxquerydatabaseall", "7,7", "8,8", "done", "ABOUT"]),
            vec![
                Ok(Command::Database("YXQUERYDATABASEALL")),
                Ok(Command::About)
            ]
        );
        assert_eq!(
            feed_all(&["YXBLOCKPATH", "7,7", "DONE"]),
            vec![Ok(Command::Unsupported("YXBLOCKPATH"))]
        );
        // A keyword inside the block drops it, as for BOARD.
        assert_eq!(
            feed_all(&["YXBLOCK", "7,7", "BEGIN"]),
            vec![Ok(Command::Begin)]
        );
    }

    #[test]
    fn yixin_paths_on_the_line_or_the_next() {
        assert_eq!(
            ok("YXHASHDUMP /tmp/a b.hash"),
            Command::HashDump("/tmp/a b.hash".to_string())
        );
        assert_eq!(
            feed_all(&["yxhashload", "C:\\Yixin\\x.hash\r"]),
            vec![Ok(Command::HashLoad("C:\\Yixin\\x.hash".to_string()))]
        );
        assert_eq!(
            feed_all(&["YXSETDATABASE", "my.db", "ABOUT"]),
            vec![Ok(Command::Database("YXSETDATABASE")), Ok(Command::About)]
        );
        // A command instead of the path: the path never came.
        assert_eq!(feed_all(&["YXHASHDUMP", "ABOUT"]), vec![Ok(Command::About)]);
        let mut parser = Parser::new();
        assert_eq!(parser.feed("YXHASHDUMP"), None);
        assert!(parser.in_block());
    }

    #[test]
    fn bare_info_is_never_an_error() {
        let empty = Info::Unknown {
            key: String::new(),
            value: String::new(),
        };
        assert_eq!(info("INFO"), empty);
        assert_eq!(info("info \r"), empty);
    }

    // ---- robustness ----

    #[test]
    fn huge_line_does_not_panic() {
        let word = "A".repeat(100_000);
        let got = one(&word);
        assert_eq!(got, Some(Err(ParseError::Unknown(word.clone()))));
        let spaced = format!("TURN {}", "9".repeat(100_000));
        assert_eq!(malformed(&spaced).0, "TURN");
        let reason = malformed(&spaced).1;
        assert!(reason.chars().count() < 120, "{}", reason);
        let garbage = "x é,".repeat(25_000);
        let got = feed_all(&["BOARD", &garbage, "DONE"]);
        match &got[..] {
            [Ok(Command::Board {
                stones, problems, ..
            })] => {
                assert!(stones.is_empty());
                assert_eq!(problems.len(), 1);
                assert!(problems[0].chars().count() < 120, "{}", problems[0]);
            }
            other => panic!("{:?}", other),
        }
        let folder = format!("INFO folder {}", "d ".repeat(50_000));
        match info(&folder) {
            Info::Folder(path) => assert_eq!(path.len(), 99_999),
            other => panic!("{:?}", other),
        }
    }

    #[test]
    fn replacement_characters_and_control_characters_do_not_panic() {
        assert_eq!(
            one("\u{FFFD}\u{FFFD}TURN 1,1"),
            Some(Err(ParseError::Unknown("\u{FFFD}\u{FFFD}TURN".to_string())))
        );
        assert_eq!(malformed("TURN 1\u{FFFD},2").0, "TURN");
        assert_eq!(
            info("INFO folder C:/\u{FFFD}/x"),
            Info::Folder("C:/\u{FFFD}/x".to_string())
        );
        assert_eq!(
            one("\u{0}\u{7}\u{1b}[2J"),
            Some(Err(ParseError::Unknown("\u{0}\u{7}\u{1b}[2J".to_string())))
        );
        let got = feed_all(&["BOARD", "\u{FFFD},1,1", "1,1,\u{FFFD}", "DONE"]);
        assert_eq!(
            got,
            vec![Ok(Command::Board {
                stones: vec![],
                problems: vec![
                    "skipped malformed BOARD line `\u{FFFD},1,1`".to_string(),
                    "skipped malformed BOARD line `1,1,\u{FFFD}`".to_string(),
                ],
                reply: true,
            })]
        );
        // A multi-byte character straddling the excerpt limit is kept whole.
        let long = "é".repeat(100);
        assert_eq!(
            ParseError::Unknown(long).to_string(),
            format!("unknown command {}…", "é".repeat(64))
        );
    }

    #[test]
    fn a_transcript() {
        let got = feed_all(&[
            "START 15\r",
            "INFO timeout_turn 5000\r",
            "INFO rule 1\r",
            "\r",
            "BOARD\r",
            "7,7,2\r",
            "8,7,1\r",
            "9,9,2\r",
            "DONE\r",
            "TURN 6,6\r",
            "END\r",
        ]);
        assert_eq!(
            got,
            vec![
                Ok(start(15, 15)),
                Ok(Command::Info(Info::TimeoutTurn(5000))),
                Ok(Command::Info(Info::Rule(1))),
                Ok(Command::Board {
                    stones: vec![
                        (c(7, 7), Field::Opponent),
                        (c(8, 7), Field::Own),
                        (c(9, 9), Field::Opponent),
                    ],
                    problems: vec![],
                    reply: true,
                }),
                Ok(Command::Turn(c(6, 6))),
                Ok(Command::End),
            ]
        );
    }

    // ---- replies ----

    #[test]
    fn reply_simple_lines() {
        assert_eq!(Reply::Move(c(7, 7)).to_string(), "7,7");
        assert_eq!(Reply::Move(c(10, 0)).to_string(), "10,0");
        assert_eq!(Reply::Ok.to_string(), "OK");
        assert_eq!(Reply::Swap.to_string(), "SWAP");
        assert_eq!(
            Reply::Error("unsupported board size (5..22)".to_string()).to_string(),
            "ERROR unsupported board size (5..22)"
        );
        assert_eq!(
            Reply::Unknown("unknown command FOO".to_string()).to_string(),
            "UNKNOWN unknown command FOO"
        );
        assert_eq!(
            Reply::Message("depth 7 eval 30".to_string()).to_string(),
            "MESSAGE depth 7 eval 30"
        );
        assert_eq!(
            Reply::Debug("nodes 1234".to_string()).to_string(),
            "DEBUG nodes 1234"
        );
        // Piskvork only skips MESSAGE/DEBUG lines *with* the trailing space.
        assert_eq!(Reply::Message(String::new()).to_string(), "MESSAGE ");
    }

    #[test]
    fn reply_about() {
        let about = Reply::About {
            name: "wuzi".to_string(),
            version: "0.1.0".to_string(),
            author: "The wuzi team".to_string(),
            country: "Czech Republic".to_string(),
        };
        assert_eq!(
            about.to_string(),
            "name=\"wuzi\", version=\"0.1.0\", author=\"The wuzi team\", country=\"Czech Republic\""
        );
        let odd = Reply::About {
            name: "a\"b".to_string(),
            version: "1\n2".to_string(),
            author: String::new(),
            country: "X".to_string(),
        };
        assert_eq!(
            odd.to_string(),
            "name=\"a'b\", version=\"1 2\", author=\"\", country=\"X\""
        );
    }

    #[test]
    fn reply_moves() {
        assert_eq!(
            Reply::Moves(vec![c(7, 7), c(7, 8), c(8, 8)]).to_string(),
            "7,7 7,8 8,8"
        );
        assert_eq!(Reply::Moves(vec![c(3, 4)]).to_string(), "3,4");
        assert_eq!(Reply::Moves(vec![c(3, 4), c(5, 6)]).to_string(), "3,4 5,6");
        assert_eq!(Reply::Moves(vec![]).to_string(), "");
    }

    #[test]
    fn reply_forbid() {
        assert_eq!(
            Reply::Forbid(vec![c(9, 12), c(10, 11)]).to_string(),
            "FORBID 09121011."
        );
        assert_eq!(Reply::Forbid(vec![c(0, 0)]).to_string(), "FORBID 0000.");
        assert_eq!(Reply::Forbid(vec![c(14, 3)]).to_string(), "FORBID 1403.");
        assert_eq!(Reply::Forbid(vec![]).to_string(), "FORBID .");
    }

    #[test]
    fn reply_text_is_forced_onto_one_line() {
        assert_eq!(
            Reply::Error("bad\r\nthing\there\u{0}".to_string()).to_string(),
            "ERROR bad  thing here "
        );
        assert_eq!(
            Reply::Message("line1\nline2".to_string()).to_string(),
            "MESSAGE line1 line2"
        );
        assert_eq!(
            Reply::Debug("a\u{1b}[31mb".to_string()).to_string(),
            "DEBUG a [31mb"
        );
        assert_eq!(
            Reply::Unknown("x\ry".to_string()).to_string(),
            "UNKNOWN x y"
        );
    }

    #[test]
    fn reply_text_is_truncated() {
        let exact = "a".repeat(200);
        assert_eq!(
            Reply::Error(exact.clone()).to_string(),
            format!("ERROR {}", exact)
        );
        let long = "é\n".repeat(50_000);
        let shown = Reply::Unknown(long).to_string();
        assert_eq!(shown.chars().count(), "UNKNOWN ".len() + 200);
        assert!(shown.starts_with("UNKNOWN é é"));
        assert!(shown.ends_with("..."));
        assert!(!shown.contains('\n'));
        let message = Reply::Message("m".repeat(201)).to_string();
        assert_eq!(message, format!("MESSAGE {}...", "m".repeat(197)));
    }

    #[test]
    fn parse_error_goes_through_reply_on_one_line() {
        let err = match one("FOO\u{7}\u{7}") {
            Some(Err(e)) => e,
            other => panic!("{:?}", other),
        };
        assert_eq!(
            Reply::Unknown(err.to_string()).to_string(),
            "UNKNOWN unknown command FOO  "
        );
    }

    #[test]
    fn coord_display_round_trips() {
        let coord = c(12, 3);
        assert_eq!(coord.to_string(), "12,3");
        assert_eq!(ok(&format!("TURN {}", coord)), Command::Turn(coord));
    }
}

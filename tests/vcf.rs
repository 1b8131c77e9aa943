//! Checks `wuzi::vcf::find_vcf` against `tests/data/vcf.txt`: positions from self-play games
//! and hand-made boards whose verdict (VCF or not, and the shortest length) comes from the
//! independent oracle in `tests/vcf/oracle.rs`.
//!
//! Asserted, with a fixed node limit per position:
//! - a `none` position is never claimed as a win (a claimed line is also checked, to tell an
//!   oracle bug from an engine bug in the message);
//! - a `win` position is never reported `NoWin` (the whole tree was searched and missed it);
//! - every returned winning line is legal by the oracle's rules ([`oracle::verify_line`]:
//!   attacker and defender alternate; every attacker move makes a five or a four, and answers
//!   a defender's four; every defender move is the forced block; the line ends with the
//!   attacker's five, or with an attacker move that leaves two or more five squares);
//! - at least 95% of the `win` positions are solved.
//!
//! Counts, node totals and every failure go to stderr (`cargo test --release --test vcf --
//! --nocapture`).

#[path = "vcf/data.rs"]
mod data;
#[path = "vcf/generate.rs"]
mod generate;
#[path = "vcf/oracle.rs"]
mod oracle;

use data::{Entry, Expect};
use oracle::verify_line;
use std::sync::Arc;
use std::time::Instant;
use wuzi::board::{Board, Pos};
use wuzi::rules::{PatternTable, Rule};
use wuzi::vcf::{find_vcf, VcfOutcome};

/// Node limit per position for `find_vcf`.
const NODE_LIMIT: u64 = 2_000_000;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/vcf.txt");

fn load() -> Vec<Entry> {
    let text = std::fs::read_to_string(DATA).expect("tests/data/vcf.txt");
    data::parse(&text)
}

fn engine_board(e: &Entry, tables: &[Arc<PatternTable>; 2]) -> Board {
    let table = match e.rule {
        oracle::ORule::Freestyle => &tables[0],
        oracle::ORule::Standard => &tables[1],
    };
    let mut b = Board::new(e.width, e.height, table.clone()).expect("supported board size");
    for &(x, y) in &e.moves {
        let p = Pos::from_xy(x, y);
        assert!(b.is_empty(p), "line {}: occupied {x},{y}", e.line);
        b.make(p);
    }
    b
}

#[test]
fn data_file_is_well_formed() {
    let entries = load();
    let wins = entries
        .iter()
        .filter(|e| matches!(e.expect, Expect::Win(_)))
        .count();
    assert!(wins >= 150, "{wins} win positions");
    assert!(
        entries.len() - wins >= 100,
        "{} none positions",
        entries.len() - wins
    );
    for e in &entries {
        // Builds without overlaps; black moved first; nobody has five yet.
        let mut b = e.oracle_board();
        let stones: Vec<usize> = (0..b.cells.len()).filter(|&i| b.cells[i] != 0).collect();
        assert!(
            stones.iter().all(|&i| !b.five_at(i)),
            "line {}: a five is already on the board",
            e.line
        );
    }
}

#[test]
fn find_vcf_matches_the_oracle() {
    let entries = load();
    let tables = [
        Arc::new(PatternTable::new(Rule::Freestyle)),
        Arc::new(PatternTable::new(Rule::Standard)),
    ];
    let start = Instant::now();
    let (mut wins, mut solved, mut unknown_none, mut nodes) = (0, 0, 0, 0u64);
    let mut failures = Vec::new();
    let mut missed = Vec::new();
    for e in &entries {
        let mut board = engine_board(e, &tables);
        let before = board.to_ascii();
        let hash = board.hash();
        let result = find_vcf(&mut board, NODE_LIMIT);
        nodes += result.nodes;
        if board.to_ascii() != before || board.hash() != hash {
            failures.push(format!(
                "line {}: find_vcf did not restore the board",
                e.line
            ));
        }
        let mut ob = e.oracle_board();
        match (&result.outcome, e.expect) {
            (VcfOutcome::Win(line), expect) => {
                let cells: Vec<usize> = line
                    .iter()
                    .map(|p| {
                        if p.x() < e.width && p.y() < e.height {
                            ob.idx(p.x() as i32, p.y() as i32)
                        } else {
                            usize::MAX
                        }
                    })
                    .collect();
                let check = verify_line(&mut ob, &cells);
                let shown: Vec<String> = line.iter().map(|p| format!("{p}")).collect();
                match (expect, check) {
                    (Expect::NoWin, Ok(())) => failures.push(format!(
                        "line {}: oracle says no VCF, engine line {shown:?} verifies: oracle bug?",
                        e.line
                    )),
                    (Expect::NoWin, Err(why)) => {
                        failures.push(format!("line {}: false win claim {shown:?}: {why}", e.line))
                    }
                    (Expect::Win(_), Err(why)) => failures.push(format!(
                        "line {}: illegal winning line {shown:?}: {why}",
                        e.line
                    )),
                    (Expect::Win(_), Ok(())) => {
                        wins += 1;
                        solved += 1;
                    }
                }
            }
            (VcfOutcome::NoWin, Expect::Win(n)) => {
                wins += 1;
                failures.push(format!(
                    "line {}: NoWin, but the oracle has a VCF of {n}",
                    e.line
                ));
            }
            (VcfOutcome::Unknown, Expect::Win(n)) => {
                wins += 1;
                missed.push(format!("line {} (win {n})", e.line));
            }
            (VcfOutcome::Unknown, Expect::NoWin) => unknown_none += 1,
            (VcfOutcome::NoWin, Expect::NoWin) => {}
        }
    }
    eprintln!(
        "vcf: {solved}/{wins} wins solved, {} none positions ({unknown_none} unknown), \
         {nodes} nodes, {:.2} s",
        entries.len() - wins,
        start.elapsed().as_secs_f64()
    );
    if !missed.is_empty() {
        let more = if missed.len() > 20 {
            format!(" and {} more", missed.len() - 20)
        } else {
            String::new()
        };
        eprintln!(
            "vcf: not solved within {NODE_LIMIT} nodes: {}{more}",
            missed[..missed.len().min(20)].join(", ")
        );
    }
    for f in &failures {
        eprintln!("vcf: FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} failures (see stderr)",
        failures.len()
    );
    assert!(
        solved * 100 >= wins * 95,
        "only {solved} of {wins} VCF positions solved"
    );
}

/// Regenerates `tests/data/vcf.txt` (ignored; needs game records). The set in the repository
/// was made from these self-play games of commit 1ab9912 (`O` is the opening folder of the
/// shared data, `/work/shared/data/openings` on the development machine):
///
/// ```text
/// cargo build --release
/// B=$PWD/target/release/pbrain-wuzi; O=/work/shared/data/openings
/// mkdir -p /tmp/vcfgames && cd /tmp/vcfgames
/// m() { nice -n 10 $B match --engine cmd=$B name=a --engine cmd=$B name=b \
///       --each threads=1 --order random "$@"; }
/// m --rule 0 --size 15 --turn 30 --games 160 --seed 11 \
///   --openings $O/Piskvork_openings.txt --sgf fs15.sgf
/// m --rule 0 --size 20 --turn 30 --games 160 --seed 12 \
///   --openings $O/c-gomoku-cli_offset_freestyle_20x20.txt --sgf fs20.sgf
/// m --rule 0 --size 20 --turn 100 --games 100 --seed 15 --concurrency 2 \
///   --openings $O/Piskvork_openings.txt --sgf fs20-slow.sgf
/// m --rule 1 --size 15 --turn 30 --games 80 --seed 13 \
///   --openings $O/mintaka_arena_openings.csv --sgf std15.sgf
/// m --rule 1 --size 20 --turn 50 --games 60 --seed 14 \
///   --openings $O/Piskvork_openings.txt --sgf std20.sgf
/// cd - && VCF_RECORDS=/tmp/vcfgames cargo test --release --test vcf -- \
///   --ignored generate --nocapture
/// ```
///
/// A file's stem up to the first `-` names its group (`fs15`, `fs20`, `std15`, `std20`; quotas
/// in `generate::TARGETS`). The output depends only on the records (about 30 s); the games
/// themselves vary with timing, so a rerun gives a different but equivalent set.
#[test]
#[ignore]
fn generate() {
    let dir = std::env::var("VCF_RECORDS").expect("VCF_RECORDS=<directory of .sgf records>");
    let text = generate::generate(std::path::Path::new(&dir));
    std::fs::write(DATA, text).expect("write tests/data/vcf.txt");
    eprintln!("wrote {DATA}");
}

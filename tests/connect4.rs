//! Connect Four against Pons' benchmark sets and through the binary.
//!
//! `tests/data/connect4/` holds a sample of each of the six sets of Pascal Pons' "Solving
//! Connect 4" (copied from `../shared/data/connect4/`, which has the full sets and their
//! README): every 33rd position of the four easier sets, every 50th of Begin-Medium, and three
//! Begin-Hard positions that take a third of a second each (the set averages over a second).
//! Every score must be right, in the strong and in the weak mode, with and without the book.

use std::{
    io::Write,
    path::Path,
    process::{Command, Stdio},
};

use wuzi::connect4::{
    cli::{run_set, SETS},
    Limits, Mode, Position, Solver,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4");

#[test]
fn a_sample_of_every_set_is_solved_exactly() {
    let mut solver = Solver::new(18);
    solver.set_book(false);
    for (file, name) in SETS {
        let result = run_set(&mut solver, &Path::new(DATA).join(file), usize::MAX)
            .expect("the sample files are readable");
        assert!(
            result.positions >= 3,
            "{name}: {} positions",
            result.positions
        );
        assert!(result.wrong.is_empty(), "{name}: {:?}", result.wrong);
        eprintln!(
            "{name}: {} positions, {:.0} µs and {:.0} nodes a position",
            result.positions, result.mean_micros, result.mean_nodes
        );
    }
}

#[test]
fn weak_scores_and_the_book_agree_with_the_sets() {
    let mut solver = Solver::new(18);
    for (file, _) in &SETS[..5] {
        let text = std::fs::read_to_string(Path::new(DATA).join(file)).expect("sample file");
        for line in text.lines().take(8) {
            let mut fields = line.split(' ');
            let moves = fields.next().expect("moves");
            let score: i32 = fields.next().and_then(|s| s.parse().ok()).expect("score");
            let pos = Position::from_moves(7, 6, moves).expect("a legal position");
            let weak = solver.solve(&pos, Mode::Weak, Limits::none());
            assert_eq!(weak, Some(score.signum()), "{moves}");
            let strong = solver.solve(&pos, Mode::Strong, Limits::none());
            assert_eq!(strong, Some(score), "{moves} with the book on");
        }
    }
}

#[test]
fn the_solve_command_reports_bad_lines_and_goes_on() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args(["connect4", "solve", "--no-book"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(b"4455 18\n9\n11111111\n1212121 5\n44x4\n44455554221\n")
        .expect("stdin takes the lines");
    let output = child.wait_with_output().expect("the binary ends");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(lines[0][..2], ["4455", "18"]);
    assert_eq!(lines[0].len(), 4, "moves, score, nodes, µs: {text}");
    assert_eq!(lines[1].join(" "), "error: 9: move 1: there is no column 9");
    assert_eq!(
        lines[2].join(" "),
        "error: 11111111: move 7: column 1 is full"
    );
    assert_eq!(lines[3][..2], ["1212121", "-18"], "a finished game: lost");
    assert_eq!(
        lines[4].join(" "),
        "error: 44x4: move 3: `x` is not a column digit"
    );
    assert_eq!(lines[5][..2], ["44455554221", "-15"], "Pons' example");
}

#[test]
fn other_sizes_through_the_binary() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args([
            "connect4", "solve", "--width", "7", "--height", "7", "--weak",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(b"4455\n44553\n8\n")
        .expect("stdin takes the lines");
    let output = child.wait_with_output().expect("the binary ends");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("4455 1 "), "{text}");
    assert!(lines[1].starts_with("44553 -1 "), "{text}");
    assert_eq!(lines[2], "error: 8: move 1: there is no column 8");
    let status = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
        .args(["connect4", "solve", "--width", "8", "--height", "8"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the binary starts");
    assert!(!status.success(), "8×8 does not fit 64 bits");
}

/// Every position of the book's two trees where the perfect side is to move within the book's
/// reach (the first player's first three moves, the second player's first two): the computer
/// answers from the book, at once, with the book's choice.
#[test]
fn the_computer_plays_its_book_moves_at_once() {
    use std::{
        sync::atomic::AtomicBool,
        time::{Duration, Instant},
    };
    use wuzi::connect4::{book, Computer, Outcome, Player, Source, MAX_LEVEL};

    fn walk(pos: &Position, perfect: Player, computer: &mut Computer, seen: &mut usize) {
        let the_book = book::Book::embedded(7, 6).expect("the 7×6 book");
        if pos.outcome() != Outcome::Ongoing || pos.moves_played() + 1 > the_book.max_ply() as usize
        {
            return;
        }
        let next: Vec<usize> = if pos.side_to_move() == perfect {
            let stop = AtomicBool::new(false);
            let start = Instant::now();
            let choice = computer
                .best_move(pos, MAX_LEVEL, Duration::from_secs(30), &stop)
                .expect("game on");
            assert!(start.elapsed() < Duration::from_millis(50), "{pos:?}");
            assert_eq!(choice.source, Source::Book, "{pos:?}");
            let scores = the_book.move_scores(pos);
            assert_eq!(Some(choice.column), book::choose(pos, &scores), "{pos:?}");
            *seen += 1;
            vec![choice.column]
        } else {
            pos.legal_columns()
        };
        for c in next {
            let mut child = pos.clone();
            child.play(c).expect("legal");
            walk(&child, perfect, computer, seen);
        }
    }

    let mut computer = Computer::new();
    let empty = Position::new(7, 6).expect("7×6");
    let mut seen = 0;
    for perfect in [Player::First, Player::Second] {
        walk(&empty, perfect, &mut computer, &mut seen);
    }
    // 5 discs deep: the first player's moves at 0, 2 and 4 discs, the second's at 1 and 3.
    assert!(seen >= (1 + 7 + 49) + (7 + 49), "{seen} book moves");
}

#[test]
fn six_by_seven_through_the_binary_and_the_empty_line() {
    let run = |args: &[&str], input: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        child
            .stdin
            .take()
            .expect("piped stdin")
            .write_all(input)
            .expect("stdin takes the lines");
        let output = child.wait_with_output().expect("the binary ends");
        assert!(output.status.success());
        String::from_utf8(output.stdout).expect("utf-8")
    };
    // 6 wide, 7 high (21 discs each): the bottom-row double threat wins with the 4th disc.
    let text = run(
        &["connect4", "solve", "--width", "6", "--height", "7"],
        b"3344\n33447\n3344 -5\n",
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("3344 18 "), "{text}");
    assert_eq!(lines[1], "error: 33447: move 5: there is no column 7");
    assert!(
        lines[2].starts_with("3344 18 "),
        "the second field is ignored: {text}"
    );
    // The empty line is the empty 7×6 board, answered from the book without a node.
    let text = run(&["connect4", "solve"], b"\n");
    let fields: Vec<&str> = text.trim_end().split(' ').collect();
    assert_eq!(fields[..3], ["", "1", "0"], "{text}");
}

//! Whole matches against the fake brain `testdata/fake-brain.sh`: each kind of misbehaviour is
//! recorded with its reason, and the match still finishes.

use super::{
    cli::{parse, Parsed},
    game::Reason,
    run,
    summary::Summary,
};

const FAKE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/arena/testdata/fake-brain.sh"
);

fn engine(mode: &str) -> Vec<String> {
    let mut words = vec![
        "--engine".to_string(),
        "cmd=bash".to_string(),
        format!("arg={FAKE}"),
    ];
    for (i, part) in mode.split_whitespace().enumerate() {
        if i == 0 {
            words.push(format!("name={part}"));
        }
        words.push(format!("arg={part}"));
    }
    words
}

/// Runs a match of `a` against `b` with extra options; returns the summary and the output.
fn play(a: &str, b: &str, extra: &str) -> (Summary, String) {
    let mut args = engine(a);
    args.extend(engine(b));
    args.extend(extra.split_whitespace().map(str::to_string));
    let config = match parse(&args) {
        Ok(Parsed::Run(c)) => c,
        other => panic!("{args:?}: {other:?}"),
    };
    let mut out = Vec::new();
    let summary = run(&config, &mut out).expect("match runs");
    (summary, String::from_utf8_lossy(&out).into_owned())
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("wuzi-arena-{}-{name}", std::process::id()))
}

#[test]
fn normal_engines_play_to_a_five() {
    let (s, out) = play("normal", "normal", "--games 2 --turn 500 --size 15");
    assert_eq!(s.games, 2, "{out}");
    let p = &s.pairs[0];
    assert_eq!(p.reason_count(Reason::Five), 2, "{out}");
    // Row-order play gives black the diagonal five: each engine wins with black.
    assert_eq!((p.wld.wins, p.wld.losses, p.wld.draws), (1, 1, 0), "{out}");
    assert_eq!(p.penta.0, [0, 0, 1, 0, 0]);
    assert!(out.contains("Elo"), "{out}");
    assert!(out.contains("ended by: five 2"), "{out}");
    assert_eq!(s.engines[0].about.as_deref(), Some("fake-normal 1"));
    assert_eq!(s.engines[0].starts, 1, "engine reused across games");
}

#[test]
fn crash_is_a_loss_and_the_engine_is_restarted() {
    let (s, out) = play("normal", "crash", "--games 3 --turn 500");
    let p = &s.pairs[0];
    assert_eq!(p.reason_count(Reason::Crash), 3, "{out}");
    assert_eq!(p.wld.wins, 3);
    assert_eq!(s.engines[1].forfeits[&Reason::Crash], 3);
    assert_eq!(s.engines[1].starts, 3, "{out}");
    assert!(out.contains("exited"), "{out}");
}

#[test]
fn hanging_engine_is_killed_and_loses_on_time() {
    let t = std::time::Instant::now();
    let (s, out) = play("hang", "normal", "--games 2 --turn 100 --tolerance 100");
    let p = &s.pairs[0];
    assert_eq!(p.reason_count(Reason::TimeForfeit), 2, "{out}");
    assert_eq!(p.wld.losses, 2);
    assert_eq!(s.engines[0].starts, 2, "killed, then restarted: {out}");
    assert!(t.elapsed().as_secs() < 10);
}

#[test]
fn late_answers_within_tolerance_count_after_it_lose() {
    // 150 ms against a 100 ms limit with 300 ms tolerance: accepted, counted late.
    let (s, out) = play(
        "late 150",
        "normal",
        "--games 2 --turn 100 --tolerance 300 --draw-after 8",
    );
    let p = &s.pairs[0];
    assert_eq!(p.reason_count(Reason::DrawAfter), 2, "{out}");
    assert_eq!(s.engines[0].late, 8, "{out}");
    assert!(s.engines[0].slowest.0.as_millis() >= 150, "{out}");
    // 400 ms against 100 + 100: time forfeit.
    let (s, out) = play("late 400", "normal", "--games 1 --turn 100 --tolerance 100");
    assert_eq!(s.pairs[0].reason_count(Reason::TimeForfeit), 1, "{out}");
}

#[test]
fn bad_moves_are_recorded_with_their_reason() {
    for (mode, reason) in [
        ("occupied", Reason::Occupied),
        ("outside", Reason::Illegal),
        ("garbage", Reason::Unparsable),
        ("no-ok", Reason::NoAnswer),
        ("refuse", Reason::NoAnswer),
    ] {
        let (s, out) = play(
            "normal",
            mode,
            "--games 2 --turn 300 --init-time 300 --tolerance 200",
        );
        let p = &s.pairs[0];
        assert_eq!(p.reason_count(reason), 2, "{mode}: {out}");
        assert_eq!(p.wld.wins, 2, "{mode}: {out}");
        assert_eq!(s.engines[1].forfeits[&reason], 2, "{mode}");
    }
}

#[test]
fn chatty_engine_is_understood() {
    let (s, out) = play("chatty", "normal", "--games 2 --turn 500");
    let p = &s.pairs[0];
    assert_eq!(p.reason_count(Reason::Five), 2, "{out}");
    assert_eq!(
        s.engines[0].about.as_deref(),
        Some("fake-chatty 1"),
        "{out}"
    );
    for e in &s.engines {
        assert!(e.forfeits.is_empty(), "{out}");
    }
}

#[test]
fn openings_records_and_concurrency() {
    let openings = temp_path("openings.txt");
    std::fs::write(&openings, "0,0, 1,0, 1,3\n-9,-9, 0,0\nh8i9\n").unwrap();
    let sgf = temp_path("games.sgf");
    let psq = temp_path("games.psq");
    let extra = format!(
        "--turn 500 --rounds 1 --concurrency 2 --openings {} --sgf {} --send-board",
        openings.display(),
        sgf.display()
    );
    let (s, out) = play("normal", "normal", &extra);
    // Two usable openings (the second is off the 15×15 board), both colours each.
    assert_eq!(s.games, 4, "{out}");
    assert!(out.contains("warning"), "{out}");
    assert_eq!(s.pairs[0].penta.pairs(), 2);
    let text = std::fs::read_to_string(&sgf).unwrap();
    assert_eq!(text.matches("(;GM[4]").count(), 4, "{text}");
    assert!(text.contains(";B[hh]C[opening]"), "{text}");
    let extra = format!(
        "--turn 500 --games 3 --openings {} --psq {} --order random --seed 5 --symmetry",
        openings.display(),
        psq.display()
    );
    let (s, out) = play("normal", "normal", &extra);
    assert_eq!(s.games, 3, "{out}");
    let text = std::fs::read_to_string(&psq).unwrap();
    assert_eq!(text.matches("Piskvorky 15x15").count(), 3, "{text}");
    for p in [openings, sgf, psq] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn sprt_stops_the_match() {
    let (s, out) = play("normal", "garbage", "--games 200 --turn 300 --sprt 0,50");
    assert!(s.games < 200, "{out}");
    assert!(out.contains("H1 accepted"), "{out}");
    // The verdict line carries the LLR that crossed the bound, then the LLR over all games.
    let line = out
        .lines()
        .find(|l| l.starts_with("SPRT: LLR "))
        .unwrap_or_else(|| panic!("no verdict line: {out}"));
    let at: f64 = line["SPRT: LLR ".len()..]
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(at >= 19f64.ln(), "{line}");
    assert!(
        line.contains(&format!("over all {} games", s.games)),
        "{line}"
    );
}

#[test]
fn gauntlet_pairs() {
    let mut args = engine("normal");
    args.extend(engine("garbage"));
    args.extend(engine("outside"));
    args.extend(
        "--gauntlet --games 2 --turn 300"
            .split_whitespace()
            .map(str::to_string),
    );
    let config = match parse(&args) {
        Ok(Parsed::Run(c)) => c,
        other => panic!("{other:?}"),
    };
    let mut out = Vec::new();
    let s = run(&config, &mut out).unwrap();
    assert_eq!(s.pairs.len(), 2);
    assert_eq!(s.games, 4);
    assert_eq!(s.pairs[0].reason_count(Reason::Unparsable), 2);
    assert_eq!(s.pairs[1].reason_count(Reason::Illegal), 2);
}

#[test]
fn plain_text_about_is_taken_without_waiting_out_the_init_time() {
    let start = std::time::Instant::now();
    let (s, out) = play(
        "plain-about",
        "normal",
        "--games 2 --turn 500 --init-time 20s",
    );
    assert_eq!(s.games, 2, "{out}");
    assert_eq!(s.engines[0].about.as_deref(), Some("Fake plain brain 2.0"));
    // Two engine starts would each wait 20 s without the grace period.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(15),
        "{out}"
    );
}

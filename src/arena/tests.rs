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

#[test]
fn start_is_retried_once_before_the_game_is_forfeited() {
    // Refused once, accepted the second time: the game is played, the retry counted.
    let (s, out) = play("refuse-once", "normal", "--games 2 --turn 500");
    let p = &s.pairs[0];
    assert_eq!(p.reason_count(Reason::Five), 2, "{out}");
    assert!(s.engines[0].forfeits.is_empty(), "{out}");
    assert_eq!(s.engines[0].start_retries, 1, "{out}");
    assert_eq!(s.engines[0].starts, 1, "{out}");
    // No answer at all the first time: killed, restarted, started.
    let marker = temp_path("silent-once");
    let _ = std::fs::remove_file(&marker);
    let (s, out) = play(
        &format!("silent-once {}", marker.display()),
        "normal",
        "--games 2 --turn 500 --init-time 300",
    );
    let _ = std::fs::remove_file(&marker);
    assert_eq!(s.pairs[0].reason_count(Reason::Five), 2, "{out}");
    assert_eq!(s.engines[0].start_retries, 1, "{out}");
    assert_eq!(s.engines[0].starts, 2, "{out}");
    // Refused twice: a loss by `no answer`, shown in the table and in the progress line.
    let (s, out) = play("normal", "refuse", "--games 2 --turn 500");
    assert_eq!(s.games, 2, "{out}");
    assert_eq!(s.engines[1].forfeits[&Reason::NoAnswer], 2, "{out}");
    assert_eq!(s.engines[1].start_retries, 2, "{out}");
    assert!(out.contains("no answer 2 (normal 0, refuse 2)"), "{out}");
    assert!(out.contains("; again after 500 ms: refused START"), "{out}");
}

/// The pair rows of a final table (everything before the engine rows, whose times differ
/// between runs).
fn pair_rows(table: &str) -> &str {
    &table[..table.find("\nengine ").expect("engine rows")]
}

fn merge_files(files: &[&std::path::Path], sprt: Option<&str>) -> (super::merge::Merged, String) {
    let sprt = sprt.map(|s| super::stats::Sprt::parse(s).unwrap());
    let paths: Vec<std::path::PathBuf> = files.iter().map(|p| p.to_path_buf()).collect();
    let mut out = Vec::new();
    let merged = super::merge::run(&paths, sprt.as_ref(), &mut out).expect("merge runs");
    (merged, String::from_utf8_lossy(&out).into_owned())
}

/// Game number → the line's fields that do not depend on timing.
fn games_of(path: &std::path::Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut games: Vec<(usize, String)> = text
        .lines()
        .filter_map(|l| match super::results::parse_line(l) {
            Ok(super::results::Line::Game(g)) => Some((
                g.game,
                format!(
                    "{} {} {:?} {} {} {} {} {} {}",
                    g.pair,
                    g.game_pair,
                    g.players,
                    g.opening,
                    g.opening_stones,
                    g.result,
                    g.reason,
                    g.moves,
                    g.sides[0].answers
                ),
            )),
            _ => None,
        })
        .collect();
    games.sort();
    games
}

#[test]
fn shards_merged_give_the_one_run_table() {
    let openings = temp_path("shard-openings.txt");
    std::fs::write(
        &openings,
        "0,0, 1,0, 1,3\n0,0, 1,1, 0,3\n0,0, 1,0, 0,3\n3,3\n-7,-7, 7,7\n0,0, 0,1, 1,2\n",
    )
    .unwrap();
    // Three engines, every pair: the fakes play by row order, so the games are the same in
    // every run; the stone limit makes some of them draws, `occupied` loses its games.
    let base = format!(
        "--turn 500 --rounds 1 --openings {} --order random --seed 11 --draw-after 63",
        openings.display()
    );
    let three = |extra: &str| -> (Summary, String) {
        let mut args = engine("normal");
        args.extend(engine("occupied"));
        let mut b = engine("normal");
        b[3] = "name=other".to_string();
        args.extend(b);
        args.extend(base.split_whitespace().map(str::to_string));
        args.extend(extra.split_whitespace().map(str::to_string));
        let config = match parse(&args) {
            Ok(Parsed::Run(c)) => c,
            other => panic!("{args:?}: {other:?}"),
        };
        let mut out = Vec::new();
        let summary = run(&config, &mut out).expect("match runs");
        (summary, String::from_utf8_lossy(&out).into_owned())
    };
    let all = temp_path("all.jsonl");
    let shards: Vec<std::path::PathBuf> = (1..=3)
        .map(|k| temp_path(&format!("shard-{k}.jsonl")))
        .collect();
    for p in shards.iter().chain([&all]) {
        let _ = std::fs::remove_file(p);
    }
    let (one, out) = three(&format!("--results {} --concurrency 2", all.display()));
    assert_eq!(one.games, 36, "{out}");
    let one_table = one.table();
    assert!(one_table.contains("draw after N stones"), "{one_table}");
    let mut shard_games = 0;
    for (k, path) in shards.iter().enumerate() {
        let (s, out) = three(&format!("--shard {}/3 --results {}", k + 1, path.display()));
        assert!(
            out.contains(&format!("of 36 games (shard {}/3)", k + 1)),
            "{out}"
        );
        shard_games += s.games;
    }
    assert_eq!(shard_games, 36);

    // The whole run's own file gives back its table exactly, engine rows and times included.
    let (m, text) = merge_files(&[&all], None);
    assert_eq!(m.summary.table(), one_table, "{text}");
    assert!(text.ends_with(&format!("{one_table}\n")), "{text}");

    // The shards play the same games (numbers, openings, colours, results) as the whole run.
    let mut sharded: Vec<(usize, String)> = shards.iter().flat_map(|p| games_of(p)).collect();
    sharded.sort();
    assert_eq!(sharded, games_of(&all));
    let files: Vec<&std::path::Path> = shards.iter().map(|p| p.as_path()).collect();
    let (m, text) = merge_files(&files, None);
    assert_eq!(
        (m.counted, m.missing, m.duplicates, m.foreign),
        (36, 0, 0, 0)
    );
    let table = m.summary.table();
    assert_eq!(pair_rows(&table), pair_rows(&one_table), "{text}");
    for (a, b) in m.summary.engines.iter().zip(&one.engines) {
        assert_eq!(
            (a.games, a.answers, a.late, &a.forfeits, &a.about),
            (b.games, b.answers, b.late, &b.forfeits, &b.about)
        );
    }
    assert!(text.contains("shards: 1/3 2/3 3/3"), "{text}");

    // A file read twice, a foreign file and a half-written line change nothing but the notes.
    let foreign = temp_path("foreign.jsonl");
    let id = m.header.as_ref().unwrap().id.clone();
    let shard2 = std::fs::read_to_string(&shards[1]).unwrap();
    std::fs::write(&foreign, shard2.replace(&id, "0123456789abcdef")).unwrap();
    let partial = temp_path("partial.jsonl");
    let first = std::fs::read_to_string(&shards[0]).unwrap();
    std::fs::write(&partial, format!("{first}{{\"kind\":\"game\",\"ma")).unwrap();
    let mut again = files.clone();
    again.extend([shards[0].as_path(), foreign.as_path(), partial.as_path()]);
    let (m2, text) = merge_files(&again, None);
    assert_eq!(m2.summary.table(), table, "{text}");
    assert_eq!(m2.duplicates, 2 * (first.lines().count() - 1), "{text}");
    assert_eq!(m2.foreign, shard2.lines().count(), "{text}");
    assert!(text.contains("read before, counted once"), "{text}");
    assert!(
        text.contains("of another match (0123456789abcdef)"),
        "{text}"
    );
    assert!(text.contains("last line is incomplete"), "{text}");
    // Two shards of three: the games of the third are missing, and listed.
    let (m3, text) = merge_files(&files[..2], None);
    assert_eq!(m3.counted + m3.missing, 36, "{text}");
    assert!(
        text.contains(&format!("Missing: {} of 36", m3.missing)),
        "{text}"
    );
    for p in shards.iter().chain([&all, &openings, &foreign, &partial]) {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn merge_prints_the_sprt_state_of_one_run() {
    let all = temp_path("sprt-all.jsonl");
    let parts = [temp_path("sprt-1.jsonl"), temp_path("sprt-2.jsonl")];
    for p in parts.iter().chain([&all]) {
        let _ = std::fs::remove_file(p);
    }
    let (_, out) = play(
        "normal",
        "garbage",
        &format!(
            "--games 12 --turn 300 --sprt 0,50 --results {}",
            all.display()
        ),
    );
    let llr_line = |text: &str| -> String {
        text.lines()
            .find(|l| l.starts_with("SPRT: LLR "))
            .unwrap_or_else(|| panic!("no LLR line: {text}"))
            .to_string()
    };
    for (k, p) in parts.iter().enumerate() {
        play(
            "normal",
            "garbage",
            &format!(
                "--games 12 --turn 300 --shard {}/2 --results {}",
                k + 1,
                p.display()
            ),
        );
    }
    let (_, text) = merge_files(&[&parts[0], &parts[1]], Some("0,50"));
    assert_eq!(llr_line(&text), llr_line(&out), "{text}");
    assert!(llr_line(&text).ends_with("no verdict yet"), "{text}");
    for p in parts.iter().chain([&all]) {
        let _ = std::fs::remove_file(p);
    }
}

//! `scripts/label-positions.py` against the built binary: every position of a small record file
//! gets one label line with wuzi's own score, and a brain that never answers is restarted and its
//! positions left out rather than waited for.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-wuzi");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/label-positions.py");

/// One freestyle game of nine moves that black wins, as `pbrain-wuzi match --sgf` writes it.
const RECORD: &str = "(;GM[4]FF[4]SZ[15]RU[freestyle]RE[B+]PB[a]PW[b];B[hh];W[ii];B[hi];W[gg];\
B[hj];W[hg];B[jj];W[ig];B[gj])\n";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wuzi-label-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the script on `records` with `brain`; returns (success, stdout, stderr).
fn label(brain: &str, records: &Path, extra: &[&str]) -> (bool, String, String) {
    let out = Command::new("python3")
        .arg(SCRIPT)
        .args(["-j", "1", "--nodes", "3000", "--from-ply", "6"])
        .args(extra)
        .arg(brain)
        .arg(records)
        .output()
        .expect("python3 runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_position_from_the_first_ply_gets_one_label_line() {
    let dir = temp_dir("wuzi");
    let records = dir.join("game.sgf");
    std::fs::write(&records, RECORD).expect("record written");
    let (ok, out, err) = label(BIN, &records, &[]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    // Plies 6, 7 and 8: the positions before the last move.
    assert_eq!(lines.len(), 3, "{out}\n{err}");
    for (line, plies) in lines.iter().zip(6..) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(parts.len(), 5, "{line}");
        assert_eq!(&parts[..3], ["15", "freestyle", "1"], "{line}");
        parts[3].parse::<i32>().expect("an integer score");
        assert_eq!(parts[4].split(';').count(), plies, "{line}");
        assert!(parts[4].starts_with("7,7;8,8;7,8;6,6"), "{line}");
    }
    assert!(
        err.contains("3 labelled, 0 without a score, 0 not answered in time"),
        "{err}"
    );
}

#[test]
fn a_brain_that_never_answers_is_restarted_and_its_positions_left_out() {
    let dir = temp_dir("silent");
    let records = dir.join("game.sgf");
    std::fs::write(&records, RECORD).expect("record written");
    // Reads its input and never writes a line.
    let started = Instant::now();
    let (ok, out, err) = label("cat > /dev/null", &records, &["--answer-timeout", "0.3"]);
    assert!(ok, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("0 labelled, 0 without a score, 3 not answered in time"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

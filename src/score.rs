//! Search scores: evaluation units for ordinary positions, and mate scores near ±[`WIN`] that
//! count the plies to the forced win or loss. The evaluation, the transposition table and the
//! search all speak in these; the search re-exports them, so `search::Score` still works.

/// Search score in evaluation units; mate scores are near ±[`WIN`].
pub type Score = i32;
/// Score of a position won at the root (a win in `n` plies scores `WIN − n`).
pub const WIN: Score = 1_000_000;
/// Larger than any score.
pub const INFINITY: Score = WIN + 1;
/// Scores beyond this (in absolute value) are forced wins or losses.
pub const WIN_THRESHOLD: Score = WIN - 1_000;

/// Score of a win `ply` plies from the root.
pub fn win_in(ply: i32) -> Score {
    WIN - ply
}

/// Score of a loss `ply` plies from the root.
pub fn loss_in(ply: i32) -> Score {
    -WIN + ply
}

/// Converts a score at `ply` to the form stored in the TT (mate distance from the node).
pub fn score_to_tt(score: Score, ply: i32) -> Score {
    if score >= WIN_THRESHOLD {
        score + ply
    } else if score <= -WIN_THRESHOLD {
        score - ply
    } else {
        score
    }
}

/// Converts a stored TT score back to a score at `ply`.
pub fn score_from_tt(score: Score, ply: i32) -> Score {
    if score >= WIN_THRESHOLD {
        score - ply
    } else if score <= -WIN_THRESHOLD {
        score + ply
    } else {
        score
    }
}

/// Describes a score for humans: `win in 5`, `loss in 4` or `cp 123`.
pub fn describe_score(score: Score) -> String {
    if score >= WIN_THRESHOLD {
        format!("win in {}", WIN - score)
    } else if score <= -WIN_THRESHOLD {
        format!("loss in {}", WIN + score)
    } else {
        format!("ev {score}")
    }
}

//! Victory by continuous fours (VCF): the attacker plays only moves that make a four, the
//! defender only the one square that blocks it, until the attacker makes a five or a straight
//! four the defender cannot stop.

use crate::board::{Board, Pos};

/// What a VCF search found for the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VcfOutcome {
    /// A forced win: attacker move, defender reply, …, ending with the attacker's five.
    Win(Vec<Pos>),
    /// The whole VCF tree was searched: there is no forced win by fours.
    NoWin,
    /// The node budget ran out first.
    Unknown,
}

/// The result of [`find_vcf`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VcfResult {
    /// What was found.
    pub outcome: VcfOutcome,
    /// Nodes visited.
    pub nodes: u64,
}

/// Searches for a VCF of the side to move within `max_nodes` nodes (0 = no limit); `board` is
/// restored on return.
pub fn find_vcf(board: &mut Board, max_nodes: u64) -> VcfResult {
    let _ = (board, max_nodes);
    VcfResult {
        outcome: VcfOutcome::Unknown,
        nodes: 0,
    }
}

//! Victory by continuous threats (VCT): the attacker plays only fours and open threes, the
//! defender every reply that could matter, until the attacker wins.
//!
//! After an attacker's four the defender's reply is forced (the completion square). After an open
//! three (the attacker now has a square that makes a straight four or a double four) the
//! defender may play any of the defences that move generation gives for that case: a square
//! where the attacker would make a four (which covers every way to stop the straight four) or a
//! four of its own. A defender's four is answered by its block, after which the defender must
//! still deal with the attacker's standing threat. The attacker wins when it makes a five, when
//! it has a straight four the defender cannot answer with a five, or when every defence loses.
//!
//! Depth counts the attacker's threes (fours are forced and cost nothing); the search deepens one
//! three at a time within a node budget, and remembers proven wins and depth-bounded refutations
//! by Zobrist hash. A reported win is a proof within these rules of play, so the caller may play
//! it without further search.

use std::collections::HashMap;

use crate::{
    board::{Board, Pos},
    movegen,
    rules::{self, Threat},
};

/// A VCT search with its memory of proven positions.
pub struct VctSolver {
    /// Per attacker-node hash: `Some(plies)` = a win in that many plies; `None` = no win within
    /// the stored depth.
    memo: HashMap<u64, (i32, Option<u32>)>,
    nodes: u64,
    limit: u64,
    out_of_budget: bool,
}

impl Default for VctSolver {
    fn default() -> Self {
        VctSolver::new()
    }
}

impl VctSolver {
    /// An empty solver.
    pub fn new() -> VctSolver {
        VctSolver {
            memo: HashMap::new(),
            nodes: 0,
            limit: 0,
            out_of_budget: false,
        }
    }

    /// Nodes visited since creation.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Looks for a VCT of the side to move with up to `max_threes` open threes, deepening one
    /// three at a time, within `max_nodes` further nodes. Returns the first move and the plies
    /// to the five (the longest defence) when one is found.
    pub fn solve(
        &mut self,
        board: &mut Board,
        max_threes: i32,
        max_nodes: u64,
    ) -> Option<(Pos, u32)> {
        self.limit = self.nodes.saturating_add(max_nodes.max(1));
        self.out_of_budget = false;
        for depth in 0..=max_threes {
            let mut first = None;
            if let Some(plies) = self.attack(board, depth, Some(&mut first)) {
                return first.map(|p| (p, plies));
            }
            if self.out_of_budget {
                break;
            }
        }
        None
    }

    /// Attacker (the side to move) to play with `depth` threes left; the plies to the five when
    /// it wins. `first` receives the winning move of this node.
    fn attack(
        &mut self,
        board: &mut Board,
        depth: i32,
        first: Option<&mut Option<Pos>>,
    ) -> Option<u32> {
        self.nodes += 1;
        let me = board.side_to_move();
        let opp = me.opponent();
        if board.threat_count(me, Threat::Five) > 0 {
            if let Some(f) = first {
                *f = board.cells_with(me, Threat::Five).first().copied();
            }
            return Some(1);
        }
        if self.nodes >= self.limit {
            self.out_of_budget = true;
            return None;
        }
        let hash = board.hash();
        if first.is_none() {
            match self.memo.get(&hash) {
                Some(&(_, Some(plies))) => return Some(plies),
                Some(&(d, None)) if d >= depth => return None,
                _ => {}
            }
        }
        let result = match board.threat_count(opp, Threat::Five) {
            0 => self.attack_moves(board, depth, first),
            1 => {
                // The defender has a four: block it, then the defender must still answer our
                // standing threats.
                let block = board.cells_with(opp, Threat::Five)[0];
                if rules::is_forbidden_move(board, block) {
                    None
                } else {
                    board.make(block);
                    let r = self.defend(board, depth);
                    board.undo();
                    if r.is_some() {
                        if let Some(f) = first {
                            *f = Some(block);
                        }
                    }
                    r.map(|n| n + 1)
                }
            }
            _ => None,
        };
        if !self.out_of_budget || result.is_some() {
            self.memo.insert(hash, (depth, result));
        }
        result
    }

    fn attack_moves(
        &mut self,
        board: &mut Board,
        depth: i32,
        mut first: Option<&mut Option<Pos>>,
    ) -> Option<u32> {
        let me = board.side_to_move();
        let mut moves: Vec<(i32, Pos, bool)> = Vec::new();
        for p in board.squares() {
            if !board.is_empty(p) {
                continue;
            }
            let (rank, three) = match board.threat(p, me) {
                Threat::FlexFour => (4, false),
                Threat::FourThree => (3, false),
                Threat::Four => (1, false),
                Threat::ThreeThree if depth > 0 => (2, true),
                Threat::Three if depth > 0 => (0, true),
                Threat::Forbidden | Threat::ThreeThree
                    if movegen::makes_four(board, p, board.side_to_move()) =>
                {
                    (1, false)
                }
                _ => continue,
            };
            let value = i32::from(board.cell_info(p, me).value);
            moves.push((rank * 1_000_000 + value, p, three));
        }
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, mv, three) in moves {
            if rules::is_forbidden_move(board, mv) {
                continue;
            }
            board.make(mv);
            let r = self.defend(board, depth - i32::from(three));
            board.undo();
            if let Some(n) = r {
                if let Some(f) = first.as_deref_mut() {
                    *f = Some(mv);
                }
                return Some(n + 1);
            }
            if self.out_of_budget {
                return None;
            }
        }
        None
    }

    /// Defender to move; the plies to the attacker's five when every defence loses.
    fn defend(&mut self, board: &mut Board, depth: i32) -> Option<u32> {
        self.nodes += 1;
        let defender = board.side_to_move();
        let attacker = defender.opponent();
        if board.threat_count(defender, Threat::Five) > 0 {
            return None;
        }
        let fives = board.threat_count(attacker, Threat::Five);
        if fives >= 2 {
            return Some(2);
        }
        if fives == 0 && !movegen::has_legal_flex_four(board, attacker) {
            // No standing threat: the defender gets a free move and the attack is over.
            return None;
        }
        let list = movegen::generate(board, None);
        if list.moves.is_empty() {
            // Every block is forbidden (renju) or nothing stops the straight four.
            return Some(if fives > 0 { 2 } else { 4 });
        }
        let mut longest = 0;
        for mv in list.moves {
            board.make(mv);
            let r = self.attack(board, depth, None);
            board.undo();
            match r {
                Some(n) => longest = longest.max(n + 1),
                None => return None,
            }
        }
        Some(longest)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::{PatternTable, Rule};

    fn board(rule: Rule, text: &str) -> Board {
        Board::from_ascii(text, Arc::new(PatternTable::new(rule))).expect("valid board")
    }

    #[test]
    fn finds_a_three_three_win() {
        // Black: 5,5 makes two open threes (row 5 and column 5); no four anywhere.
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . X . . . . . .
            . . . . . X . . . . . .
            . . . X X . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . . .
            . . . . . . . . . . O O
            . . . . . . . . . . . O
            . . . . . . . . . . . O
            ",
        );
        let before = b.hash();
        let mut solver = VctSolver::new();
        let found = solver.solve(&mut b, 3, 100_000);
        assert_eq!(b.hash(), before);
        let (mv, plies) = found.expect("a VCT");
        assert!(plies >= 5, "{plies}");
        // The first move must itself be a threat.
        assert!(b.threat(mv, b.side_to_move()) >= Threat::Three, "{mv}");
    }

    #[test]
    fn a_single_open_three_is_not_a_win() {
        let mut b = board(
            Rule::Freestyle,
            "
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . X X . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . O .
            . . . . . . . . . . O
            . . . . . . . . . . .
            ",
        );
        let mut solver = VctSolver::new();
        assert_eq!(solver.solve(&mut b, 4, 200_000), None);
    }
}

//! The static evaluation: what a quiet position is worth to the side to
//! move, in hundredths of a man.

use crate::draughts::board::{bit_of, row_mask, squares, Color, Position, Square};

const MAN: i32 = 100;
const KING: i32 = 140;
/// A man on its own back row keeps the opponent's men from crowning there.
const BACK_ROW: i32 = 8;
/// Each row a man has advanced.
const ADVANCE: i32 = 2;
/// Each piece on the eight central squares.
const CENTRE: i32 = 4;
/// Each simple move available.
const MOBILITY: i32 = 2;
/// Scales the bonus for trading pieces when ahead: the same lead is worth
/// more with fewer pieces left.
const TRADE: i32 = 200;
/// Each step between the stronger side's kings and the weaker side's pieces,
/// once few pieces are left: the winner closes in instead of shuffling.
const CHASE: i32 = 3;
/// At most this many pieces on the board for the chase to count.
const CHASE_PIECES: u32 = 10;

/// Squares 10, 11, 14, 15, 18, 19, 22 and 23.
const CENTRE_SQUARES: u64 = {
    let numbers = [10, 11, 14, 15, 18, 19, 22, 23];
    let mut mask = 0;
    let mut i = 0;
    while i < numbers.len() {
        mask |= 1 << bit_of(numbers[i] - 1);
        i += 1;
    }
    mask
};

/// The position's worth to the side to move.
pub fn evaluate(p: &Position) -> i32 {
    let me = p.to_move();
    let them = me.opponent();
    let (mine, theirs) = (material(p, me), material(p, them));
    let mut score = mine - theirs + side(p, me) - side(p, them);
    if mine + theirs > 0 {
        score += (mine - theirs) * TRADE / (mine + theirs);
    }
    let pieces = (p.pieces(me) | p.pieces(them)).count_ones();
    if pieces <= CHASE_PIECES && mine != theirs {
        let (strong, sign) = if mine > theirs { (me, 1) } else { (them, -1) };
        score -= sign * CHASE * chase_distance(p, strong);
    }
    score
}

fn material(p: &Position, c: Color) -> i32 {
    MAN * p.men(c).count_ones() as i32 + KING * p.kings(c).count_ones() as i32
}

/// Everything but material, for one side.
fn side(p: &Position, c: Color) -> i32 {
    let men = p.men(c);
    let mut score = 0;
    if p.men(c.opponent()) != 0 {
        score += BACK_ROW * (men & c.back_row()).count_ones() as i32;
    }
    for row in 0..8 {
        let on_row = (men & row_mask(row)).count_ones() as i32;
        score += ADVANCE * c.advance(row) as i32 * on_row;
    }
    score += CENTRE * (p.pieces(c) & CENTRE_SQUARES).count_ones() as i32;
    score + MOBILITY * p.mobility(c) as i32
}

/// The sum, over the stronger side's kings, of the steps to the nearest
/// piece of the weaker side.
fn chase_distance(p: &Position, strong: Color) -> i32 {
    let targets: Vec<Square> = squares(p.pieces(strong.opponent())).collect();
    squares(p.kings(strong))
        .map(|k| {
            targets
                .iter()
                .map(|&t| i32::from(k.distance(t)))
                .min()
                .unwrap_or(0)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> i32 {
        evaluate(&fen.parse().unwrap())
    }

    #[test]
    fn the_start_is_even_and_material_counts() {
        assert_eq!(evaluate(&Position::start()), 0);
        assert!(eval("B:W21,22:B1,2,3") > 100);
        assert!(eval("W:W21,22:B1,2,3") < -100);
        assert!(eval("B:WK21:BK1") < eval("B:WK21:BK1,K2"));
        assert!(eval("B:W21:BK5") > eval("B:W21:B5"), "a king is worth more");
    }

    #[test]
    fn a_lead_is_worth_more_with_fewer_pieces_and_kings_close_in() {
        let big = eval("B:W21,22,23,24,25,26,27:B1,2,3,4,5,6,7,8");
        let small = eval("B:W21:B1,2");
        assert!(small > big, "{small} {big}");
        assert!(eval("B:WK32:BK27,K23") > eval("B:WK32:BK1,K5"));
    }

    #[test]
    fn centre_squares_are_the_eight_in_the_middle() {
        let numbers: Vec<u8> = squares(CENTRE_SQUARES).map(Square::number).collect();
        assert_eq!(numbers, [10, 11, 14, 15, 18, 19, 22, 23]);
    }
}
